/*
 * util/str.h - small string helpers shared by every layer.
 */
#ifndef ZB_UTIL_STR_H
#define ZB_UTIL_STR_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

int zb_str_starts_with(const char *s, const char *prefix);
int zb_str_ends_with(const char *s, const char *suffix);

/*
 * Parses a whole decimal unsigned integer: no sign, no spaces, no trailing
 * characters, no overflow. Returns ZB_OK or ZB_EINVAL.
 */
int zb_str_to_u64(uint64_t *out, const char *s);

/*
 * Parses a byte size: a decimal number with an optional unit B, K/KB/KiB,
 * M/MB/MiB, G/GB/GiB, T/TB/TiB (all powers of 1024, as Iceberg's
 * properties are), case-insensitive. Returns ZB_OK or ZB_EINVAL.
 */
int zb_str_to_bytes(uint64_t *out, const char *s);

/*
 * Renders a byte count the way Zamboni's output lines do: "512B" below
 * 1 KiB, else one decimal and a binary unit ("7.0KiB", "4.1GiB").
 */
void zb_str_format_bytes(char *out, size_t out_size, uint64_t bytes);

/* 1 when s[0..n) is well-formed UTF-8 (no overlong forms, surrogates
 * or code points past U+10FFFF: what JSON libraries refuse), else 0. */
int zb_str_utf8_valid(const char *s, size_t n);

/* The value of a hexadecimal digit (either case), -1 for any other c. */
int zb_str_hex_digit(int c);

/* Appends s to b as a JSON string literal, quotes included. */
int zb_str_append_json(zb_buf *b, const char *s);

#endif
