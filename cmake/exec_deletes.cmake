# exec, part: what applying deletes needs, with no knowledge of Iceberg
# files: Roaring bitmaps and deletion-vector blobs (roaring*.c), spill
# files under TMPDIR with a process-wide disk limit (spill.c), and a hash
# set of byte-string keys that spills by partition when the memory budget
# refuses it room (keyset.c).
target_sources(zb_exec PRIVATE src/exec/roaring.c src/exec/roaring_io.c
  src/exec/spill.c src/exec/keyset.c src/exec/keyset_table.c)
