/*
 * bench_expire - expire and remove-orphans on a table of 1,000,000 files
 * and 1,000 snapshots (issue 9's targets: each under 60 s and 512 MiB).
 *
 * The table is a folder (PATH catalog) written directly: zero-byte data
 * files, 1000 per snapshot in a folder of their own; snapshot i adds
 * manifest M_i naming its files, and its manifest list holds the last
 * --window manifests (M_{i-W+1} .. M_i), as a table whose ingest appends
 * while retention drops old data would; one metadata file with every
 * snapshot, timestamps 10 days old. --orphans stray files (old) lie in
 * data/. Then, each phase in a child process whose peak RSS wait4
 * reports:
 *   1. remove-orphans (guard 3 days, clock 4 days ahead): lists every
 *      file, reads every snapshot's list and every manifest, deletes the
 *      strays;
 *   2. expire (defaults: 5 days, keep 1): expires all but the current
 *      snapshot and deletes the files only they reached (with the default
 *      window 100: 900,000 data files, 900 manifests, 999 lists).
 * Prints time and peak RSS per phase, and the results.
 *
 * Usage: bench_expire [--dir DIR] [--files-per-snapshot N] [--snapshots S]
 *          [--window W] [--orphans K] [--memory BYTES] [--threads T]
 *          [--keep]
 */
#define _DEFAULT_SOURCE 1        /* wait4 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "catalog/catalog.h"
#include "ops/expire/expire.h"
#include "ops/orphans/remove_orphans.h"
#include "table/commit/commit.h"
#include "table/manifest/manifest.h"
#include "util/arena.h"
#include "util/buf.h"

#define DAY_MS ((int64_t)24 * 3600 * 1000)

typedef struct bench_opts {
    char dir[1024];
    int files, snapshots, window, orphans, keep;
    unsigned threads;
    uint64_t memory;
} bench_opts;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int64_t clock_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void die(const zb_ctx *ctx, const char *what)
{
    fprintf(stderr, "bench_expire: %s: %s\n", what,
            ctx ? ctx->err.msg : strerror(errno));
    exit(1);
}

static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0)
        die(NULL, path);
    close(fd);
}

static void make_dir(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        die(NULL, path);
}

static const char SCHEMA[] =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}";

/* Writes the table; returns seconds. */
static double build(const bench_opts *o)
{
    zb_ctx ctx;
    zb_io *io = NULL;
    zb_arena *arena = NULL;
    ice_metadata *m = NULL;
    ice_manifest_file *mfs;
    json_t *schema = json_loads(SCHEMA, 0, NULL);
    zb_buf b = ZB_BUF_INIT((size_t)1 << 30);
    char path[2048], list[2048];
    int64_t ts0 = clock_ms() - 10 * DAY_MS;
    double t0 = now_s();
    int i, k;

    zb_ctx_init(&ctx);
    mfs = calloc((size_t)o->snapshots, sizeof *mfs);
    if (!schema || !mfs || zb_io_new(&io, &ctx) < 0 ||
        zb_arena_new(&arena, (size_t)1 << 30) < 0)
        die(&ctx, "setup");
    make_dir(o->dir);
    snprintf(path, sizeof path, "%s/metadata", o->dir);
    make_dir(path);
    snprintf(path, sizeof path, "%s/data", o->dir);
    make_dir(path);
    if (ice_metadata_create(&m, &ctx, (const zb_json *)schema, NULL, NULL,
                            o->dir, NULL, 0,
                            2) < 0)
        die(&ctx, "metadata");
    for (i = 0; i < o->snapshots; i++) {
        ice_manifest_writer *w = NULL;
        ice_manifest_writer_opts wo = ICE_MANIFEST_WRITER_OPTS_INIT;
        ice_manifest_list_writer *lw = NULL;
        ice_manifest_list_writer_opts lo =
            ICE_MANIFEST_LIST_WRITER_OPTS_INIT;
        ice_snapshot_new sn;
        int64_t id = i + 1;

        snprintf(path, sizeof path, "%s/data/s=%04d", o->dir, i);
        make_dir(path);
        wo.format_version = 2;
        wo.schema = ice_metadata_current_schema(m);
        wo.spec = ice_metadata_default_spec(m);
        wo.snapshot_id = id;
        wo.sequence_number = id;
        snprintf(path, sizeof path, "%s/metadata/m-%04d.avro", o->dir, i);
        if (ice_manifest_writer_open(&w, io, &ctx, path, &wo) < 0)
            die(&ctx, "manifest");
        for (k = 0; k < o->files; k++) {
            ice_manifest_entry e;
            char fp[2048];
            memset(&e, 0, sizeof e);
            snprintf(fp, sizeof fp,
                     "%s/data/s=%04d/%05d-0-8f1c2a3e-1b2c-4d5e-9f00-%012d"
                     ".parquet", o->dir, i, k, i * o->files + k);
            touch(fp);
            e.status = ICE_STATUS_ADDED;
            e.snapshot_id = id;
            e.sequence_number = id;
            e.file_sequence_number = id;
            e.explicit_mask = ICE_ENTRY_SNAPSHOT_ID_EXPLICIT;
            e.data_file.content = ICE_CONTENT_DATA;
            e.data_file.file_path = fp;
            e.data_file.file_format = "PARQUET";
            e.data_file.record_count = 1;
            e.data_file.file_size_in_bytes = 0;
            e.data_file.block_size_in_bytes = ICE_NULL_LONG;
            e.data_file.first_row_id = ICE_NULL_LONG;
            e.data_file.content_offset = ICE_NULL_LONG;
            e.data_file.content_size_in_bytes = ICE_NULL_LONG;
            if (ice_manifest_writer_add(w, &ctx, &e) < 0)
                die(&ctx, "manifest entry");
        }
        if (ice_manifest_writer_commit(w, &ctx, &mfs[i], arena) < 0)
            die(&ctx, "manifest commit");
        lo.format_version = 2;
        lo.snapshot_id = id;
        lo.parent_snapshot_id = i ? id - 1 : ICE_NO_SNAPSHOT;
        lo.sequence_number = id;
        snprintf(list, sizeof list, "%s/metadata/snap-%lld-1-list.avro",
                 o->dir, (long long)id);
        if (ice_manifest_list_writer_open(&lw, io, &ctx, list, &lo) < 0)
            die(&ctx, "list");
        for (k = i - o->window + 1 < 0 ? 0 : i - o->window + 1; k <= i; k++)
            if (ice_manifest_list_writer_add(lw, &ctx, &mfs[k]) < 0)
                die(&ctx, "list entry");
        if (ice_manifest_list_writer_commit(lw, &ctx) < 0)
            die(&ctx, "list commit");
        memset(&sn, 0, sizeof sn);
        sn.snapshot_id = id;
        sn.parent_snapshot_id = i ? id - 1 : ICE_NO_SNAPSHOT;
        sn.sequence_number = id;
        sn.timestamp_ms = ts0 + i * 1000;
        sn.manifest_list = list;
        sn.operation = "append";
        sn.schema_id = -1;
        if (ice_metadata_add_snapshot(m, &ctx, &sn) < 0)
            die(&ctx, "snapshot");
    }
    for (k = 0; k < o->orphans; k++) {
        struct timeval tv[2];
        snprintf(path, sizeof path, "%s/data/stray-%06d.parquet", o->dir, k);
        touch(path);
        tv[0].tv_sec = tv[1].tv_sec = (time_t)(ts0 / 1000);
        tv[0].tv_usec = tv[1].tv_usec = 0;
        utimes(path, tv);
    }
    if (ice_metadata_write(&b, m, &ctx) < 0)
        die(&ctx, "metadata write");
    snprintf(path, sizeof path, "%s/metadata/v1.metadata.json", o->dir);
    if (zb_io_write_new(io, &ctx, path, b.ptr, b.len) < 0)
        die(&ctx, "metadata file");
    snprintf(path, sizeof path, "%s/metadata/version-hint.text", o->dir);
    if (zb_io_write_new(io, &ctx, path, "1", 1) < 0)
        die(&ctx, "hint");
    zb_buf_free(&b);
    ice_metadata_free(m);
    zb_arena_free(arena);
    zb_io_free(io);
    free(mfs);
    json_decref(schema);
    return now_s() - t0;
}

static int open_target(zb_op_target *t, zb_ctx *ctx, const bench_opts *o,
                       int64_t now_ms)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    zb_io *io = NULL;
    zb_catalog *cat = NULL;

    cfg.kind = ZB_CATALOG_PATH;
    if (zb_io_new(&io, ctx) < 0 || zb_catalog_open(&cat, ctx, io, &cfg) < 0)
        return -1;
    memset(t, 0, sizeof *t);
    t->catalog = cat;
    t->io = io;
    t->ident = o->dir;
    t->now_ms = now_ms;
    return 0;
}

static void close_target(zb_op_target *t)
{
    zb_catalog_free(t->catalog);
    zb_io_free(t->io);
}

/* The phases, in a child each. */
static int phase_orphans(const bench_opts *o)
{
    zb_ctx ctx;
    zb_op_target t;
    zb_remove_orphans_opts ro = ZB_REMOVE_ORPHANS_OPTS_INIT;
    zb_remove_orphans_result r;
    zb_buf out = ZB_BUF_INIT(1 << 16);
    int rc;

    zb_ctx_init(&ctx);
    if (open_target(&t, &ctx, o, clock_ms() + 4 * DAY_MS) < 0)
        die(&ctx, "catalog");
    ro.max_memory_bytes = o->memory;
    ro.delete_threads = o->threads;
    rc = zb_remove_orphans(&t, &ctx, &ro, &r);
    zb_remove_orphans_report(&out, "bench", &r, 0);
    printf("%s", out.ptr ? out.ptr : "");
    if (rc < 0)
        printf("  error: %s\n", ctx.err.msg);
    zb_buf_free(&out);
    close_target(&t);
    return rc < 0 ? 1 : 0;
}

static int phase_expire(const bench_opts *o)
{
    zb_ctx ctx;
    zb_op_target t;
    zb_expire_opts eo = ZB_EXPIRE_OPTS_INIT;
    zb_expire_result r = ZB_EXPIRE_RESULT_INIT;
    zb_buf out = ZB_BUF_INIT(1 << 16);
    int rc;

    zb_ctx_init(&ctx);
    if (open_target(&t, &ctx, o, 0) < 0)
        die(&ctx, "catalog");
    eo.max_memory_bytes = o->memory;
    eo.delete_threads = o->threads;
    rc = zb_expire(&t, &ctx, &eo, &r);
    zb_expire_report(&out, "bench", &r, 0);
    printf("%s", out.ptr ? out.ptr : "");
    printf("  planned: %llu lists, %llu manifests, %llu data files\n",
           (unsigned long long)r.planned_lists,
           (unsigned long long)r.planned_manifests,
           (unsigned long long)r.planned_data);
    if (rc < 0)
        printf("  error: %s\n", ctx.err.msg);
    zb_expire_result_free(&r);
    zb_buf_free(&out);
    close_target(&t);
    return rc < 0 ? 1 : 0;
}

static int run_child(const char *name, int (*fn)(const bench_opts *),
                     const bench_opts *o)
{
    struct rusage ru;
    double t0 = now_s();
    int st;
    pid_t pid;

    fflush(stdout);
    if ((pid = fork()) < 0)
        die(NULL, "fork");
    if (pid == 0) {
        int rc = fn(o);
        fflush(stdout);
        _exit(rc);
    }
    if (wait4(pid, &st, 0, &ru) < 0)
        die(NULL, "wait4");
    printf("%-15s %8.2f s  peak RSS %7.1f MiB  %s\n", name, now_s() - t0,
           (double)ru.ru_maxrss / 1024.0,
           WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "ok" : "FAILED");
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    bench_opts o;
    int i, failed = 0;
    double s;

    memset(&o, 0, sizeof o);
    o.files = 1000;
    o.snapshots = 1000;
    o.window = 100;
    o.orphans = 1000;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--keep")) { o.keep = 1; continue; }
        i++;
        if (!strcmp(a, "--dir")) snprintf(o.dir, sizeof o.dir, "%s", v);
        else if (!strcmp(a, "--files-per-snapshot")) o.files = atoi(v);
        else if (!strcmp(a, "--snapshots")) o.snapshots = atoi(v);
        else if (!strcmp(a, "--window")) o.window = atoi(v);
        else if (!strcmp(a, "--orphans")) o.orphans = atoi(v);
        else if (!strcmp(a, "--memory")) o.memory = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--threads")) o.threads = (unsigned)atoi(v);
        else {
            fprintf(stderr, "usage: bench_expire [--dir DIR] "
                    "[--files-per-snapshot N] [--snapshots S] [--window W] "
                    "[--orphans K] [--memory BYTES] [--threads T] [--keep]\n");
            return 2;
        }
    }
    if (o.files < 1 || o.snapshots < 1 || o.window < 1)
        return 2;
    if (o.dir[0] == '\0') {
        const char *tmp = getenv("TMPDIR");
        snprintf(o.dir, sizeof o.dir, "%s/bench_expire_XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        if (mkdtemp(o.dir) == NULL)
            die(NULL, "mkdtemp");
    }
    printf("table %s: %d snapshots x %d files (%lld data files), window "
           "%d, %d strays\n", o.dir, o.snapshots, o.files,
           (long long)o.snapshots * o.files, o.window, o.orphans);
    s = build(&o);
    printf("%-15s %8.2f s\n", "build", s);
    failed |= run_child("remove-orphans", phase_orphans, &o);
    failed |= run_child("expire", phase_expire, &o);
    if (!o.keep) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", o.dir);
        if (system(cmd) != 0)
            fprintf(stderr, "bench_expire: could not remove %s\n", o.dir);
    }
    return failed;
}
