/*
 * util/str.c - string helpers (see util/str.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/str.h"

int zb_str_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

int zb_str_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

int zb_str_utf8_valid(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, k, len;

    while (i < n) {
        unsigned char c = u[i], lo = 0x80, hi = 0xBF;

        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF)
            len = 2;
        else if (c >= 0xE0 && c <= 0xEF)
            len = 3;
        else if (c >= 0xF0 && c <= 0xF4)
            len = 4;
        else
            return 0;
        /* the second byte's range rules out the overlong and surrogate
         * forms and code points past U+10FFFF */
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
        else if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
        if (n - i < len || u[i + 1] < lo || u[i + 1] > hi)
            return 0;
        for (k = 2; k < len; k++)
            if ((u[i + k] & 0xC0) != 0x80)
                return 0;
        i += len;
    }
    return 1;
}

int zb_str_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses the leading digits of s into *out; returns how many were used. */
static size_t parse_digits(uint64_t *out, const char *s, int *overflow)
{
    uint64_t v = 0;
    size_t i;

    *overflow = 0;
    for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            *overflow = 1;
        else
            v = v * 10 + d;
    }
    *out = v;
    return i;
}

int zb_str_to_u64(uint64_t *out, const char *s)
{
    uint64_t v;
    int overflow;
    size_t n = parse_digits(&v, s, &overflow);

    if (n == 0 || s[n] != '\0' || overflow)
        return ZB_EINVAL;
    *out = v;
    return ZB_OK;
}

int zb_str_to_bytes(uint64_t *out, const char *s)
{
    static const struct { const char *names[3]; unsigned shift; } units[] = {
        { { "b", "", "" }, 0 },
        { { "k", "kb", "kib" }, 10 },
        { { "m", "mb", "mib" }, 20 },
        { { "g", "gb", "gib" }, 30 },
        { { "t", "tb", "tib" }, 40 },
    };
    uint64_t v;
    int overflow;
    size_t n = parse_digits(&v, s, &overflow), i, j;
    const char *unit = s + n;

    if (n == 0 || overflow)
        return ZB_EINVAL;
    if (*unit == '\0') {
        *out = v;
        return ZB_OK;
    }
    for (i = 0; i < sizeof units / sizeof units[0]; i++) {
        for (j = 0; j < 3; j++) {
            const char *name = units[i].names[j];
            if (name[0] && strcasecmp(unit, name) == 0) {
                if (v > (UINT64_MAX >> units[i].shift))
                    return ZB_EINVAL;
                *out = v << units[i].shift;
                return ZB_OK;
            }
        }
    }
    return ZB_EINVAL;
}

void zb_str_format_bytes(char *out, size_t out_size, uint64_t bytes)
{
    static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB",
                                        "EiB" };
    double v = (double)bytes;
    size_t i = 0;

    if (bytes < 1024) {
        snprintf(out, out_size, "%uB", (unsigned)bytes);
        return;
    }
    v /= 1024.0;
    while (v >= 1024.0 && i + 1 < sizeof unit / sizeof unit[0]) {
        v /= 1024.0;
        i++;
    }
    snprintf(out, out_size, "%.1f%s", v, unit[i]);
}

int zb_str_append_json(zb_buf *b, const char *s)
{
    int rc = zb_buf_putc(b, '"');

    for (; rc == ZB_OK && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '"': rc = zb_buf_puts(b, "\\\""); break;
        case '\\': rc = zb_buf_puts(b, "\\\\"); break;
        case '\n': rc = zb_buf_puts(b, "\\n"); break;
        case '\r': rc = zb_buf_puts(b, "\\r"); break;
        case '\t': rc = zb_buf_puts(b, "\\t"); break;
        default:
            if (c < 0x20)
                rc = zb_buf_appendf(b, "\\u%04x", c);
            else
                rc = zb_buf_putc(b, (char)c);
        }
    }
    return rc == ZB_OK ? zb_buf_putc(b, '"') : rc;
}
