/*
 * cli/verbs/verb_doctor.c - `zamboni doctor [TABLE] [--json]`: can Zamboni
 * work here, and on TABLE? (ZAMBONI-INTERFACE.md section 1: "probe table,
 * usable: True|False, reason:; exit 0/1".)
 *
 * One line per check, in this order:
 *   config    the settings resolve (flags, ZAMBONI_*, .env, zamboni.yml)
 *             and the table config, when one is selected, loads
 *   catalog   the configured catalog opens and lists its namespaces (a
 *             TABLE naming a folder needs no configured catalog)
 *   tmpdir    --temp-directory, $TMPDIR or /tmp is a folder we can create
 *             a file in (one empty file, removed at once); its free space
 *   memory    the process's memory budget and its source
 *             (cli/config/resources.h: --memory-budget-bytes,
 *             ZAMBONI_MEMORY_BUDGET_BYTES, zamboni.yml, else the limit
 *             minus the headroom) against the memory limit (cgroup v2
 *             memory.max, else physical memory; exec/pool.h)
 *   threads   the thread count and its source (--threads, ZAMBONI_THREADS,
 *             zamboni.yml, else the cores rule)
 *   codecs    which Parquet codecs this build compresses and decompresses
 *             (a round trip of a few bytes each)
 * and with TABLE:
 *   table     the table loads (its metadata file named)
 *   format    its format version is one this build reads (1 to 3)
 *   features  nothing it uses is missing here: encryption (encryption-keys,
 *             a snapshot's key-id), partition or sort transforms we cannot
 *             parse
 *   snapshot  the current snapshot plans (plan/scan/scan_plan.h: every
 *             manifest read), its data and delete files are Parquet (or
 *             Puffin deletion vectors)
 * then "usable: True|False" and "reason: ..." (the first failed check, or
 * "none"). Warnings do not make a table unusable. Exit 0 usable, 1 not,
 * 2 usage. Nothing is changed anywhere.
 */
#define ZB_MODULE "cli"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <jansson.h>

#include "catalog/catalog.h"
#include "cli/exit.h"
#include "cli/verbs/verbs.h"
#include "exec/pool.h"
#include "format/parquet/pq_compression.h"
#include "plan/scan/scan_plan.h"
#include "table/value/transform.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/str.h"
#include "zamboni/io_s3.h"

#define MAX_CHECKS 16

typedef enum level { LV_OK, LV_WARN, LV_FAIL } level;

typedef struct check {
    const char *name;
    level lv;
    char detail[1024];
} check;

typedef struct doctor {
    check v[MAX_CHECKS];
    size_t n;
} doctor;

static void add(doctor *d, const char *name, level lv, const char *fmt, ...)
    ZB_PRINTF(4, 5);

static void add(doctor *d, const char *name, level lv, const char *fmt, ...)
{
    va_list ap;
    check *c;

    if (d->n >= MAX_CHECKS)
        return;
    c = &d->v[d->n++];
    c->name = name;
    c->lv = lv;
    va_start(ap, fmt);
    vsnprintf(c->detail, sizeof c->detail, fmt, ap);
    va_end(ap);
}

static const char *msg_of(const zb_ctx *ctx, int rc)
{
    return ctx->err.msg[0] ? ctx->err.msg : zb_rc_name(rc);
}

/* ------------------------------------------------------------ config */

static void check_config(doctor *d, const zb_verb_env *env)
{
    const char *wh = zb_settings_get(env->settings, ZB_SET_WAREHOUSE);
    const char *uri = zb_settings_get(env->settings, ZB_SET_URI);

    add(d, "config", LV_OK, "resolved; uri %s (%s), warehouse %s (%s), "
        "table config %s", uri ? uri : "SQLite at $ZAMBONI_ROOT/catalog.db",
        uri ? zb_settings_origin(env->settings, ZB_SET_URI) : "default",
        wh ? wh : "none",
        wh ? zb_settings_origin(env->settings, ZB_SET_WAREHOUSE) : "unset",
        env->tc != NULL ? env->tc_path : "none");
}

/* ----------------------------------------------------------- catalog */

static int count_item(const char *item, void *payload)
{
    (void)item;
    (*(size_t *)payload)++;
    return 0;
}

/* Returns 0 when the catalog is usable. */
static int check_catalog(doctor *d, zb_verb_env *env, zb_ctx *ctx,
                         const char *table)
{
    zb_catalog *cat = NULL;
    size_t n = 0;
    int rc;

    if (table != NULL && zb_verb_names_folder(table)) {
        add(d, "catalog", LV_OK, "%s names a table folder (read without a "
            "catalog)", table);
        return 0;
    }
    if ((rc = zb_verb_configured_catalog(&cat, env, ctx)) < 0) {
        add(d, "catalog", LV_FAIL, "cannot open the catalog: %s",
            msg_of(ctx, rc));
        return -1;
    }
    if (!(zb_catalog_caps(cat) & ZB_CATALOG_CAP_NAMESPACES)) {
        add(d, "catalog", LV_OK, "%s catalog '%s' opened (it cannot list "
            "namespaces)", zb_catalog_kind_name(zb_catalog_get_kind(cat)),
            zb_catalog_name(cat));
        return 0;
    }
    ctx->err.msg[0] = '\0';
    if ((rc = zb_catalog_list_namespaces(cat, ctx, NULL, count_item,
                                         &n)) < 0) {
        add(d, "catalog", LV_FAIL, "%s catalog '%s' cannot list its "
            "namespaces: %s", zb_catalog_kind_name(zb_catalog_get_kind(cat)),
            zb_catalog_name(cat), msg_of(ctx, rc));
        return -1;
    }
    add(d, "catalog", LV_OK, "%s catalog '%s' reachable, %zu namespace(s)",
        zb_catalog_kind_name(zb_catalog_get_kind(cat)), zb_catalog_name(cat),
        n);
    return 0;
}

/* ----------------------------------------------------------- storage */

/* Endpoint, region, addressing and the credentials' source (never the
 * secret) of a location on an object store; nothing for a local one. */
static void check_storage(doctor *d, zb_verb_env *env, zb_ctx *ctx,
                          const char *uri)
{
    char line[2048];
    int rc;

    if (uri == NULL || !zb_io_is_object_store(uri))
        return;
    ctx->err.msg[0] = '\0';
    rc = zb_verb_s3_describe(line, sizeof line, env, ctx, uri);
    add(d, "storage", rc < 0 ? LV_FAIL : LV_OK, "%.200s: %s", uri, line);
    zb_err_clear(&ctx->err);
}

/* ------------------------------------------------ tmpdir, memory, codecs */

static void check_tmpdir(doctor *d, const zb_verb_args *a,
                         const zb_verb_env *env)
{
    const char *dir = a->temp_directory;
    const char *pack = env->settings ? zb_settings_get(env->settings,
                                           ZB_SET_SPILL_COMPRESSION) : NULL;
    const char *pack_from = env->settings ? zb_settings_origin(env->settings,
                                           ZB_SET_SPILL_COMPRESSION) : NULL;
    char path[4096], free_s[32];
    struct statvfs vs;
    struct stat st;
    int fd;

    if (dir == NULL || dir[0] == '\0')
        dir = getenv("TMPDIR");
    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        add(d, "tmpdir", LV_FAIL, "%s is not a folder (spill files go "
            "there; set TMPDIR or --temp-directory)", dir);
        return;
    }
    if ((size_t)snprintf(path, sizeof path, "%s/zamboni-doctor-XXXXXX",
                         dir) >= sizeof path ||
        (fd = mkstemp(path)) < 0) {
        add(d, "tmpdir", LV_FAIL, "%s is not writable (spill files go "
            "there; set TMPDIR or --temp-directory)", dir);
        return;
    }
    close(fd);
    unlink(path);
    if (statvfs(dir, &vs) != 0) {
        add(d, "tmpdir", LV_WARN, "%s writable; free space unknown", dir);
        return;
    }
    zb_str_format_bytes(free_s, sizeof free_s,
                        (uint64_t)vs.f_bavail * (uint64_t)vs.f_frsize);
    add(d, "tmpdir", LV_OK, "%s writable, %s free; spill compression %s "
        "(%s)", dir, free_s, pack ? pack : "auto",
        pack_from ? pack_from : "default");
}

/* The process's budget (cli/config/resources.h) against the memory
 * limit, and the threads; both with their sources. */
static void check_memory(doctor *d, const zb_verb_env *env)
{
    const zb_resources *r = &env->res;
    const char *what;
    zb_sys_limits l;
    char lim[32], bud[32];

    zb_sys_limits_read(&l, NULL);
    zb_str_format_bytes(lim, sizeof lim, l.mem_limit_bytes);
    what = !l.mem_from_cgroup ? "physical memory"
           : l.cgroup_version == 1 ? "cgroup v1 memory.limit_in_bytes"
                                   : "cgroup v2 memory.max";
    if (env->budget == NULL) {
        add(d, "memory", LV_WARN, "limit %s (%s); budget not resolved: the "
            "configuration does not resolve", lim, what);
        add(d, "threads", LV_WARN, "not resolved: the configuration does "
            "not resolve");
        return;
    }
    zb_str_format_bytes(bud, sizeof bud, r->budget_bytes);
    if (r->budget_bytes == 0)
        add(d, "memory", LV_OK, "limit %s (%s), no budget (%s)", lim, what,
            r->budget_source);
    else if (r->budget_bytes > l.mem_limit_bytes)
        add(d, "memory", LV_FAIL, "budget %s (%s) exceeds the memory limit "
            "%s (%s): work that size would be killed", bud, r->budget_source,
            lim, what);
    else
        add(d, "memory", LV_OK, "limit %s (%s), budget %s, %llu bytes (%s)",
            lim, what, bud, (unsigned long long)r->budget_bytes,
            r->budget_source);
    add(d, "threads", LV_OK, "%u (%s)", r->threads, r->threads_source);
}

/* 1 when Parquet codec c round-trips a few bytes (compress, then
 * decompress). */
static int codec_writes(int c)
{
    static const uint8_t in[64] = "zamboni doctor zamboni doctor zamboni";
    uint8_t packed[1024], back[sizeof in];
    int algorithm = pq_codec_algorithm(c);
    size_t n = 0;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    if (algorithm < 0 ||
        zb_codec_compress_bound(algorithm, sizeof in) > sizeof packed ||
        zb_codec_compress(NULL, &ctx, algorithm, 0, in, sizeof in, packed,
                          sizeof packed, &n) != ZB_OK)
        return 0;
    if (pq_decompress_page(NULL, &ctx, c, packed, n, back, sizeof back) !=
        ZB_OK)
        return 0;
    return memcmp(in, back, sizeof in) == 0;
}

/* 1 when Parquet codec c decompresses (a plain LZ4 block for Hadoop
 * LZ4). */
static int codec_reads(int c)
{
    static const uint8_t in[64] = "zamboni doctor zamboni doctor zamboni";
    uint8_t packed[1024], back[sizeof in];
    size_t n = 0;
    zb_ctx ctx;

    if (c != PQ_CODEC_LZ4)
        return 0;
    zb_ctx_init(&ctx);
    if (zb_codec_compress(NULL, &ctx, ZB_CODEC_LZ4_RAW, 0, in, sizeof in,
                          packed, sizeof packed, &n) != ZB_OK)
        return 0;
    return pq_decompress_page(NULL, &ctx, c, packed, n, back, sizeof back) ==
               ZB_OK &&
           memcmp(in, back, sizeof in) == 0;
}

static void check_codecs(doctor *d)
{
    char rw[256] = "", ro[128] = "", none[128] = "";
    int c, core_missing = 0;

    for (c = PQ_CODEC_UNCOMPRESSED; c <= PQ_CODEC_LZ4_RAW; c++) {
        char *dst;
        size_t cap;

        if (codec_writes(c)) {
            dst = rw;
            cap = sizeof rw;
        } else if (codec_reads(c)) {
            dst = ro;
            cap = sizeof ro;
        } else {
            dst = none;
            cap = sizeof none;
            if (c == PQ_CODEC_SNAPPY || c == PQ_CODEC_GZIP ||
                c == PQ_CODEC_ZSTD)
                core_missing = 1;
        }
        snprintf(dst + strlen(dst), cap - strlen(dst), "%s%s",
                 dst[0] ? " " : "", pq_codec_name(c));
    }
    add(d, "codecs", core_missing ? LV_WARN : LV_OK,
        "read and write: %s; read only: %s; missing: %s", rw,
        ro[0] ? ro : "none", none[0] ? none : "none");
}

/* ------------------------------------------------------------- table */

/* Encryption the metadata declares; 0 when none. */
static int find_encryption(char *out, size_t size, const zb_table *t,
                           zb_ctx *ctx)
{
    zb_buf b;
    json_t *doc, *keys, *snaps, *s;
    size_t k, n_keyed = 0;
    int found = 0;

    zb_buf_init(&b, ICE_METADATA_MAX_BYTES);
    if (ice_metadata_write(&b, t->meta, ctx) < 0) {
        zb_buf_free(&b);
        return 0;
    }
    doc = json_loadb(b.ptr ? b.ptr : "", b.len, 0, NULL);
    zb_buf_free(&b);
    if (doc == NULL)
        return 0;
    keys = json_object_get(doc, "encryption-keys");
    snaps = json_object_get(doc, "snapshots");
    json_array_foreach(snaps, k, s)
        if (json_object_get(s, "key-id") != NULL)
            n_keyed++;
    if (json_array_size(keys) > 0 || n_keyed > 0) {
        snprintf(out, size, "encryption (%zu key(s) in encryption-keys, "
                 "%zu snapshot(s) with an encrypted manifest list): this "
                 "build cannot decrypt manifests or data files",
                 json_array_size(keys), n_keyed);
        found = 1;
    }
    json_decref(doc);
    return found;
}

/*
 * The first transform this build does not know (a partition value it
 * cannot compute, a sort it cannot apply); 0 when it knows them all.
 */
static int find_bad_transform(char *out, size_t size, const ice_metadata *m)
{
    ice_transform tr;
    zb_ctx ctx;
    size_t i, k;

    for (i = 0; i < m->n_specs; i++)
        for (k = 0; k < m->specs[i].n_fields; k++) {
            const ice_partition_field *f = &m->specs[i].fields[k];

            zb_ctx_init(&ctx);
            if (ice_transform_parse(&tr, &ctx, f->transform) < 0 ||
                tr.kind == ICE_TR_UNKNOWN) {
                snprintf(out, size, "partition spec %d field '%s' uses "
                         "transform '%s', unknown to this build",
                         (int)m->specs[i].spec_id, f->name, f->transform);
                return 1;
            }
        }
    for (i = 0; i < m->n_sort_orders; i++)
        for (k = 0; k < m->sort_orders[i].n_fields; k++) {
            const ice_sort_field *f = &m->sort_orders[i].fields[k];

            zb_ctx_init(&ctx);
            if (ice_transform_parse(&tr, &ctx, f->transform) < 0 ||
                tr.kind == ICE_TR_UNKNOWN) {
                snprintf(out, size, "sort order %d uses transform '%s', "
                         "unknown to this build",
                         (int)m->sort_orders[i].order_id, f->transform);
                return 1;
            }
        }
    return 0;
}

static void check_features(doctor *d, const zb_table *t, zb_ctx *ctx)
{
    char why[1024];

    if (find_encryption(why, sizeof why, t, ctx) ||
        find_bad_transform(why, sizeof why, t->meta))
        add(d, "features", LV_FAIL, "%s", why);
    else
        add(d, "features", LV_OK, "none this build lacks (%zu partition "
            "spec(s), %zu schema(s), %zu snapshot(s))", t->meta->n_specs,
            t->meta->n_schemas, t->meta->n_snapshots);
}

static int is_format(const char *f, const char *want)
{
    return f == NULL || strcasecmp(f, want) == 0;
}

static void check_snapshot(doctor *d, zb_io *io, zb_ctx *ctx,
                           const zb_table *t)
{
    const ice_snapshot *snap = ice_metadata_current_snapshot(t->meta);
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *plan = NULL;
    const zb_scan_task *task;
    const char *odd = NULL;
    uint64_t n_odd = 0;
    zb_scan_stats st;
    size_t k;
    int rc;

    if (snap == NULL) {
        add(d, "snapshot", LV_OK, "none (an empty table)");
        return;
    }
    po.manifest = &t->paths;
    ctx->err.msg[0] = '\0';
    if ((rc = zb_scan_plan_open(&plan, io, ctx, t->meta, snap, &po)) ==
        ZB_OK) {
        while ((rc = zb_scan_plan_next(plan, ctx, &task)) > 0) {
            const char *f = task->data.file->file_format;

            if (!is_format(f, "PARQUET")) {
                n_odd++;
                if (odd == NULL)
                    odd = strcasecmp(f, "ORC") == 0 ? "ORC" : "AVRO";
            }
            for (k = 0; k < task->n_deletes; k++) {
                f = task->deletes[k].file->file_format;
                if (!is_format(f, "PARQUET") && !is_format(f, "PUFFIN")) {
                    n_odd++;
                    if (odd == NULL)
                        odd = strcasecmp(f, "ORC") == 0 ? "ORC" : "AVRO";
                }
            }
        }
    }
    if (rc < 0) {
        add(d, "snapshot", LV_FAIL, "snapshot %lld does not plan: %s",
            (long long)snap->snapshot_id, msg_of(ctx, rc));
        zb_scan_plan_free(plan);
        return;
    }
    zb_scan_plan_stats(&st, plan);
    zb_scan_plan_free(plan);
    if (n_odd > 0) {
        add(d, "snapshot", LV_FAIL, "snapshot %lld lists %llu file(s) in "
            "%s format: this build reads and writes Parquet only",
            (long long)snap->snapshot_id, (unsigned long long)n_odd, odd);
        return;
    }
    add(d, "snapshot", LV_OK, "%lld planned: %llu manifest(s) read, %llu "
        "data file(s), %llu position, %llu equality, %llu DV delete "
        "file(s)", (long long)snap->snapshot_id,
        (unsigned long long)st.manifests_read,
        (unsigned long long)st.data_files,
        (unsigned long long)st.pos_delete_files,
        (unsigned long long)st.eq_delete_files,
        (unsigned long long)st.dv_files);
}

static void check_table(doctor *d, zb_verb_env *env, zb_ctx *ctx,
                        const char *table)
{
    zb_catalog *cat = NULL;
    zb_table *t = NULL;
    int owned = 0, rc;

    ctx->err.msg[0] = '\0';
    if ((rc = zb_verb_catalog(&cat, &owned, env, ctx, table)) < 0 ||
        (rc = zb_catalog_load_table(cat, ctx, table, &t)) < 0) {
        add(d, "table", LV_FAIL, "%s %s: %s", table,
            rc == ZB_ENOTFOUND ? "not found" : "does not load",
            msg_of(ctx, rc));
        if (owned)
            zb_catalog_free(cat);
        return;
    }
    add(d, "table", LV_OK, "%s loaded (%s)", table,
        t->metadata_location ? t->metadata_location : "?");
    check_storage(d, env, ctx, t->root);
    add(d, "format", LV_OK, "version %d (this build reads 1 to 3)",
        t->meta->format_version);
    check_features(d, t, ctx);
    check_snapshot(d, env->io, ctx, t);
    zb_table_free(t);
    if (owned)
        zb_catalog_free(cat);
}

/* ------------------------------------------------------------ output */

static const char *level_name(level lv)
{
    return lv == LV_OK ? "ok" : lv == LV_WARN ? "warning" : "failed";
}

static const check *first_failure(const doctor *d)
{
    size_t i;

    for (i = 0; i < d->n; i++)
        if (d->v[i].lv == LV_FAIL)
            return &d->v[i];
    return NULL;
}

static int print_lines(const doctor *d)
{
    const check *bad = first_failure(d);
    size_t i;

    for (i = 0; i < d->n; i++)
        printf("%s: %s%s\n", d->v[i].name,
               d->v[i].lv == LV_OK ? "" : d->v[i].lv == LV_WARN
                                              ? "warning: "
                                              : "FAILED: ",
               d->v[i].detail);
    printf("usable: %s\n", bad ? "False" : "True");
    if (bad)
        printf("reason: %s: %s\n", bad->name, bad->detail);
    else
        printf("reason: none\n");
    return 0;
}

/* "budget": {"bytes", "source"} and "threads": {"count", "source"}, or
 * null when the configuration did not resolve. */
static int resources_json(json_t *doc, const zb_verb_env *env)
{
    json_t *b = json_null(), *t = json_null();

    if (env->budget != NULL) {
        json_decref(b);
        json_decref(t);
        b = json_pack("{sIss}", "bytes", (json_int_t)env->res.budget_bytes,
                      "source", env->res.budget_source);
        t = json_pack("{sIss}", "count", (json_int_t)env->res.threads,
                      "source", env->res.threads_source);
    }
    if (json_object_set_new(doc, "budget", b) < 0 ||
        json_object_set_new(doc, "threads", t) < 0)
        return -1;
    return 0;
}

static int print_json(const doctor *d, const zb_verb_env *env)
{
    const check *bad = first_failure(d);
    json_t *doc = json_object(), *arr = json_array();
    char reason[1100];
    size_t i;
    int rc = -1;

    if (doc == NULL || arr == NULL)
        goto out;
    for (i = 0; i < d->n; i++)
        if (json_array_append_new(arr, json_pack("{ssssss}", "check",
                                                 d->v[i].name, "status",
                                                 level_name(d->v[i].lv),
                                                 "detail",
                                                 d->v[i].detail)) < 0)
            goto out;
    if (bad)
        snprintf(reason, sizeof reason, "%s: %s", bad->name, bad->detail);
    if (json_object_set(doc, "checks", arr) < 0 ||
        json_object_set_new(doc, "usable", json_boolean(bad == NULL)) < 0 ||
        json_object_set_new(doc, "reason",
                            bad ? json_string(reason) : json_null()) < 0 ||
        resources_json(doc, env) < 0)
        goto out;
    rc = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (rc == 0)
        putchar('\n');
out:
    json_decref(arr);
    json_decref(doc);
    return rc;
}

int zb_cli_doctor_run(int argc, char **argv)
{
    zb_verb_args *a = zb_calloc(1, sizeof *a);
    doctor *d = zb_calloc(1, sizeof *d);
    zb_verb_env env;
    zb_ctx ctx;
    const char *table;
    int help, code, rc, config_ok;

    memset(&env, 0, sizeof env);
    zb_ctx_init(&ctx);
    if (a == NULL || d == NULL) {
        fputs("zamboni doctor: out of memory\n", stderr);
        zb_free(a);
        zb_free(d);
        return ZB_EXIT_FAILED;
    }
    if ((code = zb_verb_parse(a, ZB_VERB_DOCTOR, argc, argv, 0, 1,
                              &help)) != 0 ||
        help) {
        if (help)
            zb_verb_help(stdout, ZB_VERB_DOCTOR);
        goto done;
    }
    table = a->n_pos > 0 ? a->pos[0] : NULL;
    rc = zb_verb_env_open(&env, &ctx, a);
    config_ok = rc == ZB_OK;
    if (config_ok)
        check_config(d, &env);
    else
        add(d, "config", LV_FAIL, "%s", msg_of(&ctx, rc));
    if (env.settings != NULL && env.io != NULL) {
        check_catalog(d, &env, &ctx, table);
        check_storage(d, &env, &ctx,
                      zb_settings_get(env.settings, ZB_SET_LOCAL_WAREHOUSE));
    } else {
        add(d, "catalog", LV_FAIL, "not checked: the configuration does "
            "not resolve");
    }
    check_tmpdir(d, a, &env);
    check_memory(d, &env);
    check_codecs(d);
    if (table != NULL && env.io != NULL && env.settings != NULL)
        check_table(d, &env, &ctx, table);
    else if (table != NULL)
        add(d, "table", LV_FAIL, "%s not checked: the configuration does "
            "not resolve", table);
    if ((a->json ? print_json(d, &env) : print_lines(d)) != 0 ||
        fflush(stdout) != 0)
        code = ZB_EXIT_FAILED;
    else
        code = first_failure(d) ? ZB_EXIT_FAILED : ZB_EXIT_OK;
done:
    zb_verb_env_close(&env);
    zb_free(d);
    zb_free(a);
    return code;
}
