/*
 * tests/unit/parquet/encoding_test.h - what encoding.c shares with
 * encoding_files.c: the reference values of the current check and the
 * decode-and-compare wrappers around the decoders.
 */
#ifndef ZB_TEST_ENCODING_TEST_H
#define ZB_TEST_ENCODING_TEST_H

#include <stddef.h>
#include <stdint.h>

extern uint32_t *ref32;             /* dec_rle's expected values */
extern uint64_t *ref64;             /* dec_delta's */
extern const char *const *refstr;   /* dec_dlba's and dec_dba's */
extern unsigned ref_width;          /* dec_rle's bit width */

/* Decodes n values from buf[0..len) and returns the decoder's rc; when it
 * is ZB_OK, *differs tells whether the values differ from the reference. */
typedef int (*decode_fn)(const uint8_t *buf, size_t len, size_t n,
                         int *differs);

int dec_rle(const uint8_t *buf, size_t len, size_t n, int *differs);
int dec_delta(const uint8_t *buf, size_t len, size_t n, int *differs);
int dec_dlba(const uint8_t *buf, size_t len, size_t n, int *differs);
int dec_dba(const uint8_t *buf, size_t len, size_t n, int *differs);

#endif
