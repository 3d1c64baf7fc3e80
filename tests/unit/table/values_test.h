/*
 * Helpers shared by the table values tests.
 */
#ifndef VALUES_TEST_H
#define VALUES_TEST_H

#include <stdio.h>

#include "table/value/ice_value.h"
#include "table/value/transform.h"
#include "zbtest.h"

static inline ice_prim vt_prim(ice_type_id id)
{
    ice_prim p = { id, 0, 0, 0 };
    return p;
}

static inline ice_prim vt_dec(int precision, int scale)
{
    ice_prim p = { ICE_DECIMAL, precision, scale, 0 };
    return p;
}

/* Lowercase hex of a buffer, into a static string. */
static inline const char *vt_hex(const void *p, size_t n)
{
    static char s[512];
    const unsigned char *b = p;
    size_t i;

    for (i = 0; i < n && 2 * i + 2 < sizeof s; i++)
        snprintf(s + 2 * i, 3, "%02x", b[i]);
    s[2 * i] = '\0';
    return s;
}

/* Parses the text form of a value of type id (arena kept by caller). */
#define VT_PARSE(out, ctx, arena, prim, text)                                \
    ZBT_OK_CTX(ice_value_from_text((out), (ctx), (arena), (prim), (text),    \
                                   strlen(text)), (ctx))

#endif
