/*
 * io/s3/s3_creds_parse.c - the replies of the credential endpoints
 * (s3_creds_int.h), which are untrusted bytes from the network:
 *   zb_s3_creds__parse_sts       STS's XML, streamed through expat, which
 *                                keeps a stack of element names and copies
 *                                the text of Credentials' children;
 *   zb_s3_creds__parse_json      the container endpoint's and IMDS's JSON
 *                                (jansson);
 *   zb_s3_creds__parse_iso8601   their Expiration.
 * Every field is copied into the fixed buffers of zb_s3_creds; a value too
 * long, a missing key, a truncated or misshapen document is ZB_ECORRUPT
 * with a message naming the endpoint, never quoting a value.
 */
#define ZB_MODULE "io"

#include "io/s3/s3_creds_int.h"

#include <expat.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/err.h"

void zb_s3_creds__wipe(void *p, size_t n)
{
    volatile unsigned char *v = p;

    while (n--)
        *v++ = 0;
}

void zb_s3_creds__buf_wipe_free(zb_buf *b)
{
    if (b->ptr != NULL)
        zb_s3_creds__wipe(b->ptr, b->cap);
    zb_buf_free(b);
}

int zb_s3_creds__copy(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);

    if (n >= size)
        return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

/* --- ISO 8601 -------------------------------------------------------- */

static int digits(int *out, const char *s, int n)
{
    int v = 0;

    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar,
 * counted in eras of 400 years (which repeat exactly). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int zb_s3_creds__parse_iso8601(int64_t *ms_out, const char *s)
{
    static const int mdays[] = { 31, 29, 31, 30, 31, 30,
                                 31, 31, 30, 31, 30, 31 };
    int y, mo, d, h, mi, sec, ms = 0, off_min = 0;
    const char *p;

    if (strlen(s) < 20 || digits(&y, s, 4) || s[4] != '-' ||
        digits(&mo, s + 5, 2) || s[7] != '-' || digits(&d, s + 8, 2) ||
        (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
        digits(&h, s + 11, 2) || s[13] != ':' || digits(&mi, s + 14, 2) ||
        s[16] != ':' || digits(&sec, s + 17, 2))
        return ZB_ECORRUPT;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 ||
        mi > 59 || sec > 60)
        return ZB_ECORRUPT;
    p = s + 19;
    if (*p == '.') {
        int scale = 100, n = 0;

        for (p++; *p >= '0' && *p <= '9'; p++, n++) {
            ms += (*p - '0') * scale;
            scale /= 10;
        }
        if (n == 0)
            return ZB_ECORRUPT;
    }
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh, om;

        if (digits(&oh, p + 1, 2) || p[3] != ':' || digits(&om, p + 4, 2) ||
            oh > 23 || om > 59)
            return ZB_ECORRUPT;
        off_min = (oh * 60 + om) * (*p == '-' ? -1 : 1);
        p += 6;
    } else {
        return ZB_ECORRUPT;
    }
    if (*p != '\0')
        return ZB_ECORRUPT;
    *ms_out = ((days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 +
                sec - (int64_t)off_min * 60) * 1000) + ms;
    return ZB_OK;
}

/* --- STS XML --------------------------------------------------------- */

#define STS_MAX_DEPTH 32
#define STS_NAME_MAX 64

typedef struct sts_state {
    zb_s3_creds *out;
    char names[STS_MAX_DEPTH][STS_NAME_MAX];
    int depth;
    int too_deep;
    int too_long;                    /* a value past its field */
    char text[8192];                 /* the current element's text */
    size_t text_len;
    char expiration[64];
    char code[128];
    int have_id, have_secret, have_token, have_exp;
} sts_state;

/* The name without a namespace prefix. */
static const char *local_name(const XML_Char *name)
{
    const char *c = strrchr(name, ':');

    return c ? c + 1 : name;
}

static void XMLCALL sts_start(void *user, const XML_Char *name,
                              const XML_Char **attrs)
{
    sts_state *st = user;

    (void)attrs;
    if (st->depth >= STS_MAX_DEPTH) {
        st->too_deep = 1;
        st->depth++;
        return;
    }
    snprintf(st->names[st->depth], STS_NAME_MAX, "%s", local_name(name));
    st->depth++;
    st->text_len = 0;
}

/* Copies the element's text into a field, or records that it was cut. */
static void sts_take(sts_state *st, char *dst, size_t size, int *have)
{
    if (st->text_len >= size || st->text_len >= sizeof st->text) {
        st->too_long = 1;
        return;
    }
    memcpy(dst, st->text, st->text_len);
    dst[st->text_len] = '\0';
    *have = 1;
}

static void XMLCALL sts_end(void *user, const XML_Char *name)
{
    sts_state *st = user;
    const char *parent;
    const char *me;
    int dummy;

    (void)name;
    st->depth--;
    if (st->depth >= STS_MAX_DEPTH || st->depth < 1)
        return;
    me = st->names[st->depth];
    parent = st->names[st->depth - 1];
    if (strcmp(parent, "Credentials") == 0) {
        zb_s3_creds *o = st->out;

        if (strcmp(me, "AccessKeyId") == 0)
            sts_take(st, o->access_key_id, sizeof o->access_key_id,
                     &st->have_id);
        else if (strcmp(me, "SecretAccessKey") == 0)
            sts_take(st, o->secret_access_key, sizeof o->secret_access_key,
                     &st->have_secret);
        else if (strcmp(me, "SessionToken") == 0)
            sts_take(st, o->session_token, sizeof o->session_token,
                     &st->have_token);
        else if (strcmp(me, "Expiration") == 0)
            sts_take(st, st->expiration, sizeof st->expiration,
                     &st->have_exp);
    } else if (strcmp(parent, "Error") == 0 && strcmp(me, "Code") == 0) {
        sts_take(st, st->code, sizeof st->code, &dummy);
    }
    st->text_len = 0;
}

static void XMLCALL sts_text(void *user, const XML_Char *s, int len)
{
    sts_state *st = user;
    size_t n = (size_t)len;

    if (st->text_len + n >= sizeof st->text) {
        /* Keep the length past the buffer: sts_take reports it. */
        st->text_len = sizeof st->text;
        return;
    }
    memcpy(st->text + st->text_len, s, n);
    st->text_len += n;
}

/* Trims the blanks that pretty-printed XML puts around a value. */
static void trim(char *s)
{
    size_t n = strlen(s), i = 0;

    while (n > 0 && strchr(" \t\r\n", s[n - 1]) != NULL)
        s[--n] = '\0';
    while (s[i] != '\0' && strchr(" \t\r\n", s[i]) != NULL)
        i++;
    memmove(s, s + i, n - i + 1);
}

/* The code of an error reply, printable characters only. */
static void printable(char *s)
{
    for (; *s != '\0'; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
            *s = '?';
}

int zb_s3_creds__parse_sts(zb_s3_creds *out, zb_ctx *ctx, const char *what,
                           const char *body, size_t len)
{
    XML_Parser xp;
    sts_state *st;
    int ok, rc = ZB_OK;

    if (len > ZB_S3_CREDS_MAX_REPLY || len > (size_t)INT32_MAX)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: reply too large", what);
    if ((st = zb_calloc(1, sizeof *st)) == NULL)
        return zb_fail_oom(ctx);
    memset(out, 0, sizeof *out);
    st->out = out;
    if ((xp = XML_ParserCreate("UTF-8")) == NULL) {
        zb_free(st);
        return zb_fail_oom(ctx);
    }
    XML_SetUserData(xp, st);
    XML_SetElementHandler(xp, sts_start, sts_end);
    XML_SetCharacterDataHandler(xp, sts_text);
    ok = XML_Parse(xp, body, (int)len, 1) == XML_STATUS_OK;
    if (!ok) {
        rc = zb_fail(ctx, ZB_ECORRUPT,
                     "%s: the reply is not XML (%s at line %lu)", what,
                     XML_ErrorString(XML_GetErrorCode(xp)),
                     (unsigned long)XML_GetCurrentLineNumber(xp));
    } else if (st->too_deep || st->too_long) {
        rc = zb_fail(ctx, ZB_ECORRUPT, "%s: the reply is %s", what,
                     st->too_deep ? "nested too deeply"
                                  : "a value longer than it may be");
    } else if (st->code[0] != '\0') {
        trim(st->code);
        printable(st->code);
        rc = zb_fail(ctx, ZB_EUSAGE, "%s refused the request: %s", what,
                     st->code);
    } else if (!st->have_id || !st->have_secret || !st->have_token ||
               !st->have_exp) {
        rc = zb_fail(ctx, ZB_ECORRUPT,
                     "%s: the reply has no Credentials with AccessKeyId, "
                     "SecretAccessKey, SessionToken and Expiration", what);
    } else {
        trim(out->access_key_id);
        trim(out->secret_access_key);
        trim(out->session_token);
        trim(st->expiration);
        if (out->access_key_id[0] == '\0' ||
            out->secret_access_key[0] == '\0')
            rc = zb_fail(ctx, ZB_ECORRUPT, "%s: the reply's keys are empty",
                         what);
        else if (zb_s3_creds__parse_iso8601(&out->expires_ms,
                                            st->expiration) != ZB_OK)
            rc = zb_fail(ctx, ZB_ECORRUPT,
                         "%s: the reply's Expiration is not an ISO 8601 "
                         "time", what);
    }
    XML_ParserFree(xp);
    zb_s3_creds__wipe(st, sizeof *st);
    zb_free(st);
    if (rc != ZB_OK)
        zb_s3_creds__wipe(out, sizeof *out);
    return rc;
}

/* --- container and IMDS JSON ----------------------------------------- */

/* Copies a string member; 1 copied, 0 absent, -1 not a string or too
 * long. */
static int json_field(char *dst, size_t size, json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);

    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_string(v) || json_string_length(v) >= size ||
        strlen(json_string_value(v)) != json_string_length(v))
        return -1;
    memcpy(dst, json_string_value(v), json_string_length(v) + 1);
    return 1;
}

int zb_s3_creds__parse_json(zb_s3_creds *out, zb_ctx *ctx, const char *what,
                            const char *body, size_t len, int need_code)
{
    json_error_t jerr;
    json_t *root;
    char code[64] = "", expiration[64] = "";
    int rc = ZB_OK, id, secret, token, exp, have_code;

    if (len > ZB_S3_CREDS_MAX_REPLY)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: reply too large", what);
    memset(out, 0, sizeof *out);
    if ((root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr)) ==
        NULL)
        return zb_fail(ctx, ZB_ECORRUPT,
                       "%s: the reply is not JSON (line %d column %d)", what,
                       jerr.line, jerr.column);
    if (!json_is_object(root)) {
        json_decref(root);
        return zb_fail(ctx, ZB_ECORRUPT, "%s: the reply is not a JSON "
                       "object", what);
    }
    have_code = json_field(code, sizeof code, root, "Code");
    id = json_field(out->access_key_id, sizeof out->access_key_id, root,
                    "AccessKeyId");
    secret = json_field(out->secret_access_key, sizeof out->secret_access_key,
                        root, "SecretAccessKey");
    token = json_field(out->session_token, sizeof out->session_token, root,
                       "Token");
    exp = json_field(expiration, sizeof expiration, root, "Expiration");
    if (need_code && (have_code != 1 || strcmp(code, "Success") != 0)) {
        printable(code);
        rc = zb_fail(ctx, ZB_ECORRUPT, "%s: the reply's Code is %s%s%s, "
                     "not \"Success\"", what, have_code == 1 ? "\"" : "",
                     have_code == 1 ? code : "missing",
                     have_code == 1 ? "\"" : "");
    } else if (id != 1 || secret != 1 || token < 0 || exp < 0 ||
               out->access_key_id[0] == '\0' ||
               out->secret_access_key[0] == '\0') {
        rc = zb_fail(ctx, ZB_ECORRUPT,
                     "%s: the reply needs string members AccessKeyId, "
                     "SecretAccessKey (and Token, Expiration) of sane "
                     "length", what);
    } else if (exp == 1 && zb_s3_creds__parse_iso8601(&out->expires_ms,
                                                      expiration) != ZB_OK) {
        rc = zb_fail(ctx, ZB_ECORRUPT, "%s: the reply's Expiration is not "
                     "an ISO 8601 time", what);
    } else if (exp == 0) {
        out->expires_ms = 0;
    }
    json_decref(root);
    if (rc != ZB_OK)
        zb_s3_creds__wipe(out, sizeof *out);
    return rc;
}
