# table, part: commits. Defines the library zb_table_commit: the REST
# catalog's TableRequirement checks and TableUpdate actions applied to
# metadata as one transaction (commit_require.c, commit_apply.c,
# commit_evolve.c,
# metadata_edit.c), new table metadata and metadata file names
# (commit_create.c), and the snapshot producer that writes manifests and
# manifest lists for append, replace, delete and overwrite (commit_snap*.c).
add_library(zb_table_commit STATIC
  src/table/metadata_edit.c src/table/commit_require.c
  src/table/commit_apply.c src/table/commit_evolve.c
  src/table/commit_create.c
  src/table/commit_snap.c src/table/commit_snap_file.c)
target_link_libraries(zb_table_commit PUBLIC zb_table_manifest
  zb_table_metadata zb_table_values zb_io zb_util PkgConfig::JANSSON)
