#!/usr/bin/env bash
# Regenerates the codec samples in this folder with the command-line tools
# of zstd, gzip, lz4 and brotli (Debian packages zstd, gzip, lz4, brotli),
# so that tests/unit/codec/codec.c checks our decoders against
# compressors other than our own. The outputs are committed; the tests do
# not need these tools. Usage: ./make-samples.sh (in this folder).
set -euo pipefail
cd "$(dirname "$0")"

# text.txt: about 4 KiB of repetitive text, so every codec finds matches.
for i in $(seq 1 60); do
    printf 'row %04d: an iceberg table rewritten by zamboni, part %d\n' "$i" $((i % 7))
done > text.txt
head -c 1500 text.txt > half1.tmp
tail -c +1501 text.txt > half2.tmp

gzip -9 -n -c text.txt > text.txt.gz
# Two gzip members in one page (Compression.md: readers should accept it).
{ gzip -1 -n -c half1.tmp; gzip -9 -n -c half2.tmp; } > text.txt.2members.gz

zstd -q -19 --check -c text.txt > text.txt.zst
# Two frames, written from a pipe so that they carry no content size.
{ zstd -q -3 -c < half1.tmp; zstd -q -1 --no-check -c < half2.tmp; } > text.txt.2frames.zst

brotli -q 11 -c text.txt > text.txt.br

# lz4's legacy format is [magic 4][LE size 4][LZ4 block] per 8 MiB: strip
# the 8 bytes to get the plain block LZ4_RAW stores.
lz4 -q -l -c text.txt | tail -c +9 > text.txt.lz4raw

rm -f half1.tmp half2.tmp
