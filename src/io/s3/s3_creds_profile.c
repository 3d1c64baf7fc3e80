/*
 * io/s3/s3_creds_profile.c - source 3 of s3_creds.h: a profile's static
 * keys in the AWS shared files.
 *
 * The profile is AWS_PROFILE, else "default". It is looked up as "[NAME]"
 * in AWS_SHARED_CREDENTIALS_FILE (else $HOME/.aws/credentials), then as
 * "[profile NAME]" ("[default]" for the default) in AWS_CONFIG_FILE (else
 * $HOME/.aws/config); the first of the two whose section has keys wins, as
 * the AWS CLI reads them. A profile named explicitly that is nowhere, or
 * that has no keys, is an error naming the files: falling through to
 * another source would act as another identity than the one asked for.
 *
 * zb_s3_creds__profile_parse is the INI reader, for one section of one
 * text; it is a fuzz target (tests/fuzz/fuzz_s3_creds_profile.c). Lines
 * are "[section]", "key = value", comments (# or ;), blank, or indented
 * (the sub-properties of a nested key such as "s3 =", skipped).
 */
#define ZB_MODULE "io"

#include "io/s3/s3_creds_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/err.h"
#include "util/file.h"

#define PROFILE_FILE_MAX (1024u * 1024u)

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* [start, end) without blanks on either side. */
static void trim_span(const char **start, const char **end)
{
    while (*start < *end && is_blank(**start))
        (*start)++;
    while (*end > *start && is_blank((*end)[-1]))
        (*end)--;
}

static int span_is(const char *s, const char *e, const char *word)
{
    size_t n = strlen(word);

    return (size_t)(e - s) == n && memcmp(s, word, n) == 0;
}

/* The section name in "[ name ]", with inner runs of blanks as one
 * space ("[profile   dev]" is "profile dev"). */
static int section_matches(const char *s, const char *e, const char *want)
{
    const char *w = want;

    while (s < e) {
        if (is_blank(*s)) {
            while (s < e && is_blank(*s))
                s++;
            if (*w++ != ' ')
                return 0;
            continue;
        }
        if (*w == '\0' || *w++ != *s++)
            return 0;
    }
    return *w == '\0';
}

static int take_value(char *dst, size_t size, const char *s, const char *e)
{
    size_t n = (size_t)(e - s);

    if (n >= size || memchr(s, '\0', n) != NULL)
        return -1;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return 0;
}

int zb_s3_creds__profile_parse(zb_s3_profile_keys *out, zb_ctx *ctx,
                               const char *path, const char *text,
                               size_t len, const char *section)
{
    const char *p = text, *end = text + len;
    unsigned long line = 0;
    int in_wanted = 0;

    memset(out, 0, sizeof *out);
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *s = p, *e = eol ? eol : end;
        const char *eq;

        p = eol ? eol + 1 : end;
        line++;
        if (s < e && is_blank(*s))
            continue;            /* a sub-property or a blank line */
        trim_span(&s, &e);
        if (s == e || *s == '#' || *s == ';')
            continue;
        if (*s == '[') {
            const char *close = memchr(s, ']', (size_t)(e - s));
            const char *ns = s + 1, *ne;

            if (close == NULL)
                goto bad_line;
            ne = close;
            trim_span(&ns, &ne);
            in_wanted = section_matches(ns, ne, section);
            if (in_wanted)
                out->section_found = 1;
            continue;
        }
        if ((eq = memchr(s, '=', (size_t)(e - s))) == NULL || eq == s)
            goto bad_line;
        if (in_wanted) {
            const char *ks = s, *ke = eq, *vs = eq + 1, *ve = e;
            int bad = 0;

            trim_span(&ks, &ke);
            trim_span(&vs, &ve);
            if (span_is(ks, ke, "aws_access_key_id"))
                bad = take_value(out->access_key_id,
                                 sizeof out->access_key_id, vs, ve);
            else if (span_is(ks, ke, "aws_secret_access_key"))
                bad = take_value(out->secret_access_key,
                                 sizeof out->secret_access_key, vs, ve);
            else if (span_is(ks, ke, "aws_session_token"))
                bad = take_value(out->session_token,
                                 sizeof out->session_token, vs, ve);
            if (bad) {
                zb_s3_creds__wipe(out, sizeof *out);
                return zb_fail(ctx, ZB_EUSAGE,
                               "%s:%lu: the value is too long or holds a NUL "
                               "byte", path, line);
            }
        }
    }
    return ZB_OK;

bad_line:
    zb_s3_creds__wipe(out, sizeof *out);
    return zb_fail(ctx, ZB_EUSAGE,
                   "%s:%lu: not a [section], a comment or key = value",
                   path, line);
}

/* Reads path and looks for section; ZB_OK with nothing found when the
 * file does not exist. */
static int read_profile(zb_s3_profile_keys *out, zb_ctx *ctx,
                        const char *path, const char *section)
{
    zb_buf text = ZB_BUF_INIT(PROFILE_FILE_MAX);
    int rc;

    memset(out, 0, sizeof *out);
    rc = zb_file_read_capped(&text, NULL, ctx, path, PROFILE_FILE_MAX,
                             ZB_FILE_REGULAR);
    if (rc == ZB_ENOTFOUND) {
        zb_err_clear(&ctx->err);
        rc = ZB_OK;
    } else if (rc == ZB_OK) {
        rc = zb_s3_creds__profile_parse(out, ctx, path,
                                        text.ptr ? text.ptr : "", text.len,
                                        section);
    }
    zb_s3_creds__buf_wipe_free(&text);
    return rc;
}

/* The file an AWS_* variable names, else $HOME/.aws/NAME; "" when
 * neither is known. */
static void file_path(char *out, size_t size, const char *var,
                      const char *name)
{
    const char *v = getenv(var), *home = getenv("HOME");

    if (v != NULL && v[0] != '\0')
        snprintf(out, size, "%s", v);
    else if (home != NULL && home[0] != '\0')
        snprintf(out, size, "%s/.aws/%s", home, name);
    else
        out[0] = '\0';
}

/* 1 when keys holds a usable pair, copied into out. */
static int use_keys(zb_s3_creds *out, const zb_s3_profile_keys *k,
                    const char *name, const char *path)
{
    if (k->access_key_id[0] == '\0' || k->secret_access_key[0] == '\0')
        return 0;
    memset(out, 0, sizeof *out);
    memcpy(out->access_key_id, k->access_key_id, sizeof k->access_key_id);
    memcpy(out->secret_access_key, k->secret_access_key,
           sizeof k->secret_access_key);
    memcpy(out->session_token, k->session_token, sizeof k->session_token);
    snprintf(out->source, sizeof out->source, "profile %s (%s)", name, path);
    return 1;
}

int zb_s3_creds__from_profile(zb_s3_creds *out, zb_ctx *ctx, zb_buf *tried)
{
    const char *env = getenv("AWS_PROFILE");
    int explicit = env != NULL && env[0] != '\0';
    const char *name = explicit ? env : "default";
    char creds_path[4096], config_path[4096], section[512];
    zb_s3_profile_keys *k;
    int rc = ZB_OK, found = 0, sections = 0;

    file_path(creds_path, sizeof creds_path, "AWS_SHARED_CREDENTIALS_FILE",
              "credentials");
    file_path(config_path, sizeof config_path, "AWS_CONFIG_FILE", "config");
    if (strlen(name) > 200)
        return zb_fail(ctx, ZB_EUSAGE, "AWS_PROFILE is too long");
    if ((k = zb_calloc(1, sizeof *k)) == NULL)
        return zb_fail_oom(ctx);
    if (creds_path[0] != '\0') {
        if ((rc = read_profile(k, ctx, creds_path, name)) < 0)
            goto done;
        sections += k->section_found;
        if ((found = use_keys(out, k, name, creds_path)) != 0)
            goto done;
    }
    if (config_path[0] != '\0') {
        if (strcmp(name, "default") == 0)
            snprintf(section, sizeof section, "default");
        else
            snprintf(section, sizeof section, "profile %s", name);
        if ((rc = read_profile(k, ctx, config_path, section)) < 0)
            goto done;
        sections += k->section_found;
        if ((found = use_keys(out, k, name, config_path)) != 0)
            goto done;
    }
    if (explicit) {
        rc = zb_fail(ctx, ZB_EUSAGE,
                     "S3 credentials: AWS_PROFILE=%s %s in %s or %s (this "
                     "build reads aws_access_key_id and "
                     "aws_secret_access_key of a profile)",
                     name, sections ? "has no aws_access_key_id and "
                                      "aws_secret_access_key"
                                    : "is not a profile",
                     creds_path[0] ? creds_path : "(no HOME)",
                     config_path[0] ? config_path : "(no HOME)");
        goto done;
    }
    zb_buf_puts(tried, ", profile default (no keys)");
done:
    zb_s3_creds__wipe(k, sizeof *k);
    zb_free(k);
    return rc < 0 ? rc : found;
}
