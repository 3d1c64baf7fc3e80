/*
 * catalog/catalog_s3.c - the memory-budget hooks of the S3 backend and the
 * S3 keys of a REST catalog's table config (catalog_s3.h).
 *
 * The backend's hooks pass only a byte count, while the budget hands out
 * reservations: each reserve makes one record, kept in a list under a
 * lock, and release gives back a record of the same budget and size.
 * Records of one size are interchangeable, so which one goes back does
 * not matter. The list is process-wide because the hooks serve every
 * FileIO of the process, whoever opened it (the command line, the
 * library), and its owner need not free anything.
 */
#define ZB_MODULE "catalog"

#include "catalog/catalog_s3.h"

#include <pthread.h>
#include <string.h>

#include "util/alloc.h"
#include "util/err.h"
#include "util/str.h"
#include "zamboni/budget.h"

typedef struct part_hold {
    zb_reservation r;
    struct part_hold *next;
} part_hold;

static pthread_mutex_t holds_lock = PTHREAD_MUTEX_INITIALIZER;
static part_hold *holds;

static int reserve_part(void *user, zb_ctx *ctx, uint64_t bytes)
{
    zb_budget *b = ctx ? ctx->budget : NULL;
    part_hold *h;
    int rc;

    ZB_UNUSED(user);
    if (b == NULL || bytes == 0)
        return ZB_OK;
    if ((h = zb_calloc(1, sizeof *h)) == NULL)
        return zb_fail_oom(ctx);
    rc = zb_budget_reserve(&h->r, b, bytes, NULL);
    if (rc == ZB_ENOMEM) {
        zb_free(h);            /* would deadlock: go unreserved (see .h) */
        return ZB_OK;
    }
    if (rc < 0) {
        zb_free(h);
        return zb_fail(ctx, rc, "cannot reserve %llu bytes of an upload "
                       "part from the memory budget: %s",
                       (unsigned long long)bytes, zb_rc_name(rc));
    }
    pthread_mutex_lock(&holds_lock);
    h->next = holds;
    holds = h;
    pthread_mutex_unlock(&holds_lock);
    return ZB_OK;
}

static void release_part(void *user, zb_ctx *ctx, uint64_t bytes)
{
    zb_budget *b = ctx ? ctx->budget : NULL;
    part_hold **pp, *h = NULL;

    ZB_UNUSED(user);
    if (b == NULL || bytes == 0)
        return;
    pthread_mutex_lock(&holds_lock);
    for (pp = &holds; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->r.budget == b && (*pp)->r.bytes == bytes) {
            h = *pp;
            *pp = h->next;
            break;
        }
    }
    pthread_mutex_unlock(&holds_lock);
    /* none: that part went unreserved */
    if (h != NULL) {
        zb_budget_release(&h->r);
        zb_free(h);
    }
}

void zb_catalog_s3_budget_hooks(zb_s3_config *cfg)
{
    cfg->reserve = reserve_part;
    cfg->release = release_part;
    cfg->hook_user = NULL;
}

static int is_true(const char *v)
{
    return strcmp(v, "true") == 0 || strcmp(v, "TRUE") == 0 ||
           strcmp(v, "True") == 0 || strcmp(v, "1") == 0;
}

/* A vended expiry: ms since the epoch; 0 (not known) for anything but
 * digits, which makes the keys used until the store refuses them. */
static int64_t expires_ms(const char *v)
{
    uint64_t n;

    if (zb_str_to_u64(&n, v) < 0 || n > (uint64_t)INT64_MAX)
        return 0;
    return (int64_t)n;
}

int zb_catalog_s3_from_kv(zb_s3_config *out, const zb_catalog_kv *kv,
                          size_t n, unsigned pinned)
{
    int any = 0;

    /* 0 and NULL are "take the opener's" in zb_io_s3_add_prefix, so a
     * vended false leaves path style to the opener's setting (auto:
     * virtual-hosted unless the endpoint is an IP or localhost) */
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        const char *k = kv[i].key, *v = kv[i].value;

        if (k == NULL || v == NULL || v[0] == '\0')
            continue;
        if (!(pinned & ZB_S3_PIN_CREDENTIALS) &&
            strcmp(k, "s3.access-key-id") == 0)
            out->access_key_id = v;
        else if (!(pinned & ZB_S3_PIN_CREDENTIALS) &&
                 strcmp(k, "s3.secret-access-key") == 0)
            out->secret_access_key = v;
        else if (!(pinned & ZB_S3_PIN_CREDENTIALS) &&
                 strcmp(k, "s3.session-token") == 0)
            out->session_token = v;
        else if (!(pinned & ZB_S3_PIN_CREDENTIALS) &&
                 strcmp(k, "s3.session-token-expires-at-ms") == 0)
            out->session_token_expires_ms = expires_ms(v);
        else if (!(pinned & ZB_S3_PIN_ENDPOINT) &&
                 strcmp(k, "s3.endpoint") == 0)
            out->endpoint = v;
        else if (!(pinned & ZB_S3_PIN_REGION) &&
                 (strcmp(k, "client.region") == 0 ||
                  strcmp(k, "s3.region") == 0))
            out->region = v;
        else if (!(pinned & ZB_S3_PIN_PATH_STYLE) &&
                 strcmp(k, "s3.path-style-access") == 0)
            out->path_style = is_true(v) ? 1 : 0;
        else
            continue;
        any = 1;
    }
    /* a key without its secret (or the reverse) is no credential */
    if ((out->access_key_id == NULL) != (out->secret_access_key == NULL)) {
        out->access_key_id = NULL;
        out->secret_access_key = NULL;
        out->session_token = NULL;
        out->session_token_expires_ms = 0;
    }
    if (out->access_key_id != NULL)
        out->credentials_source = "the catalog's vended credentials";
    return any;
}
