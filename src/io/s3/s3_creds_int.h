/*
 * io/s3/s3_creds_int.h - the parts of the credentials chain (s3_creds.h),
 * private to io/s3/:
 *   s3_creds.c         the provider: the order of the sources, the cache,
 *                      refresh before expiry;
 *   s3_creds_profile.c AWS_PROFILE in ~/.aws/credentials and ~/.aws/config;
 *   s3_creds_remote.c  STS web identity, container credentials, IMDSv2
 *                      (libcurl);
 *   s3_creds_parse.c   the replies of those endpoints, which are untrusted
 *                      (expat for STS's XML, jansson for the JSON).
 *
 * Each source returns 1 with out filled (and out->source named), 0 when it
 * is not configured (why goes into tried, for the message of a chain that
 * found nothing), or a negative rc with the message in ctx: a source that
 * is configured but fails stops the chain, so that a typo in a profile or
 * a refused token never silently yields some other identity.
 */
#ifndef ZB_IO_S3_CREDS_INT_H
#define ZB_IO_S3_CREDS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "io/s3/s3_creds.h"
#include "util/buf.h"

/* Replies and files above this are refused: credentials are small. */
#define ZB_S3_CREDS_MAX_REPLY (256u * 1024u)

/* Clears secrets through a volatile pointer, so the stores are kept. */
void zb_s3_creds__wipe(void *p, size_t n);
/* Wipes a buffer's bytes, then frees it. */
void zb_s3_creds__buf_wipe_free(zb_buf *b);

/* Copies src into a fixed field; non-zero when it does not fit. */
int zb_s3_creds__copy(char *dst, size_t size, const char *src);

/* --- s3_creds_parse.c ------------------------------------------------ */

/*
 * "2024-05-01T12:00:00Z", with optional fractional seconds and a "Z" or
 * "+HH:MM" / "-HH:MM" offset, into ms since the epoch. ZB_OK or
 * ZB_ECORRUPT (no message: the caller names the reply).
 */
int zb_s3_creds__parse_iso8601(int64_t *ms_out, const char *s);

/*
 * STS's AssumeRoleWithWebIdentityResponse: the Credentials element's
 * AccessKeyId, SecretAccessKey, SessionToken and Expiration. An
 * ErrorResponse gives ZB_EUSAGE with its Code (never its Message, which
 * may quote what was sent); anything else ZB_ECORRUPT. what names the
 * endpoint in messages. source is left to the caller.
 */
int zb_s3_creds__parse_sts(zb_s3_creds *out, zb_ctx *ctx, const char *what,
                           const char *body, size_t len);

/*
 * The JSON of the container endpoint and of IMDS: AccessKeyId,
 * SecretAccessKey, Token, Expiration; with need_code, a "Code" that must
 * be "Success" (IMDS). ZB_ECORRUPT for anything else.
 */
int zb_s3_creds__parse_json(zb_s3_creds *out, zb_ctx *ctx, const char *what,
                            const char *body, size_t len, int need_code);

/* --- s3_creds_profile.c ---------------------------------------------- */

/* The keys of one profile as found in one file. */
typedef struct zb_s3_profile_keys {
    int section_found;
    char access_key_id[256];
    char secret_access_key[256];
    char session_token[8192];
} zb_s3_profile_keys;

/*
 * Looks for the section named section ("dev", or "profile dev" in the
 * config file) in an INI text and copies its three keys. Keys of other
 * sections and indented sub-properties are skipped. ZB_OK (see
 * out->section_found), or ZB_EUSAGE naming path and line for a line that
 * is neither a [section], a comment nor key = value, or a value too long.
 */
int zb_s3_creds__profile_parse(zb_s3_profile_keys *out, zb_ctx *ctx,
                               const char *path, const char *text,
                               size_t len, const char *section);

/* Source 3. tried gets a short note when no profile applies. */
int zb_s3_creds__from_profile(zb_s3_creds *out, zb_ctx *ctx, zb_buf *tried);

/* --- s3_creds_remote.c ----------------------------------------------- */

/* Source 4: AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN through STS. */
int zb_s3_creds__from_web_identity(zb_s3_creds *out, zb_ctx *ctx,
                                   zb_buf *tried);
/* Source 5: AWS_CONTAINER_CREDENTIALS_FULL_URI / _RELATIVE_URI. */
int zb_s3_creds__from_container(zb_s3_creds *out, zb_ctx *ctx,
                                zb_buf *tried);
/* Source 6: IMDSv2; 0 also when nothing answers at its address. */
int zb_s3_creds__from_imds(zb_s3_creds *out, zb_ctx *ctx, zb_buf *tried);

#endif
