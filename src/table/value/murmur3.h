/*
 * table/value/murmur3.h - the 32-bit hash of Iceberg's bucket transform.
 *
 * format/spec.md, "Bucket Transform Details" and Appendix B: the 32-bit
 * Murmur3 hash, x86 variant, seeded with 0. Iceberg reads the result as a
 * signed Java int; callers cast the uint32_t to int32_t where they print it.
 */
#ifndef ZB_TABLE_MURMUR3_H
#define ZB_TABLE_MURMUR3_H

#include <stddef.h>
#include <stdint.h>

/* MurmurHash3_x86_32 of len bytes at data (data may be NULL when len is 0). */
uint32_t ice_murmur3_32(const void *data, size_t len, uint32_t seed);

/* Appendix B's hashLong: the hash of the 8 little-endian bytes of v. */
uint32_t ice_murmur3_long(int64_t v);

/* Appendix B's hashInt, which Iceberg defines as hashLong(long(v)) so that
 * int and long columns bucket alike after type promotion. */
uint32_t ice_murmur3_int(int32_t v);

#endif
