/*
 * cli/verbs/verb_demo.c - `zamboni demo [DIR]`: a warehouse to try maintenance
 * on.
 *
 * Under DIR (default $ZAMBONI_ROOT when set, else ./zamboni-demo), in the
 * ZAMBONI_ROOT layout:
 *     DIR/zamboni.yml                       warehouse: demo, root: DIR
 *     DIR/configs/demo/table-config.json    retention that expires at once
 *     DIR/catalog.db                        the embedded SQLite catalog
 *     DIR/warehouses/demo/demo/{events,users}   the tables
 *     DIR/.zamboni-demo                     marks the folder as the demo's
 * Tables, written through ops/ingest/table_write.h the way streaming ingest
 * writes them, one small commit at a time:
 *   demo.events  partitioned by day (identity on a date column), 3 days:
 *                EVENT_APPENDS appends of EVENT_ROWS rows; every 12th
 *                append is followed by a position delete of 3 of its rows;
 *                halfway, a schema change adds the column "note"
 *   demo.users   unpartitioned: USER_BATCHES appends of new users, then
 *                USER_UPSERTS upserts, each an equality delete on user_id
 *                and an append of the new versions
 * Running it again rebuilds everything, but only in a folder that holds
 * the marker: a folder the demo did not make is refused (exit 3) when it
 * is not empty.
 *
 * --fleet then starts serve and a worker on it (demo_fleet.c).
 *
 * --location s3://BUCKET/PREFIX puts the tables there instead of
 * DIR/warehouses/demo: the SQL catalog creates them under it and every
 * data and metadata file goes through zb_io (the S3 backend, from the
 * settings); the catalog, zamboni.yml and configs stay under DIR, and
 * the S3 settings given (never a secret) go into DIR/zamboni.yml so that
 * the other verbs find the bucket. A rerun leaves the earlier demo's
 * objects in the bucket: deleting under a prefix the user named is not
 * the demo's to do (remove-orphans finds them once the tables are new).
 */
#define ZB_MODULE "cli"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/exit.h"
#include "cli/verbs/verbs.h"
#include "ops/ingest/table_write.h"
#include "zamboni/io_s3.h"
#include "util/alloc.h"
#include "util/err.h"

#define EVENT_APPENDS 240
#define EVENT_ROWS 40
#define EVENT_DAYS 3
#define USER_BATCHES 20
#define USER_BATCH_ROWS 10
#define USER_UPSERTS 100
#define USER_UPSERT_ROWS 4
#define MARKER ".zamboni-demo"
#define DAY0 20758 /* 2026-11-01 */

static const char EVENTS_SCHEMA[] =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"device\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"reading\",\"required\":false,\"type\":\"double\"},"
    "{\"id\":4,\"name\":\"day\",\"required\":true,\"type\":\"date\"}]}";
static const char EVENTS_SCHEMA_1[] =
    "{\"type\":\"struct\",\"schema-id\":1,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"device\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"reading\",\"required\":false,\"type\":\"double\"},"
    "{\"id\":4,\"name\":\"day\",\"required\":true,\"type\":\"date\"},"
    "{\"id\":5,\"name\":\"note\",\"required\":false,\"type\":\"string\"}]}";
static const char EVENTS_SPEC[] =
    "{\"spec-id\":0,\"fields\":[{\"source-id\":4,\"field-id\":1000,"
    "\"name\":\"day\",\"transform\":\"identity\"}]}";
static const char USERS_SCHEMA[] =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"user_id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"score\",\"required\":false,\"type\":\"long\"}]}";

static const char TABLE_CONFIG[] =
    "{\n"
    "  \"version\": 2,\n"
    "  \"warehouse\": \"demo\",\n"
    "  \"defaults\": {\n"
    "    \"min_input_files\": 2,\n"
    "    \"retention\": {\n"
    "      \"expire_snapshots\": {\"enabled\": true, "
    "\"max_snapshot_age_days\": 0, \"min_snapshots_to_keep\": 1},\n"
    "      \"remove_orphan_files\": {\"enabled\": true, "
    "\"older_than_days\": 3},\n"
    "      \"remove_dangling_deletes\": {\"enabled\": true},\n"
    "      \"rewrite_manifests\": {\"enabled\": true, "
    "\"min_input_manifests\": 2}\n"
    "    }\n"
    "  },\n"
    "  \"namespaces\": {\n"
    "    \"demo\": {\n"
    "      \"tables\": {\n"
    "        \"events\": {\"description\": \"device readings, partitioned "
    "by day; position deletes; a schema change\"},\n"
    "        \"users\": {\"description\": \"upserts: equality deletes and "
    "appends\"}\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n";

/* ------------------------------------------------------------ files */

/* out = dir/name; ZB_EUSAGE when it does not fit. */
static int join(zb_ctx *ctx, char *out, size_t size, const char *dir,
                const char *name)
{
    int n = snprintf(out, size, "%s/%s", dir, name);

    if (n < 0 || (size_t)n >= size)
        return zb_fail(ctx, ZB_EUSAGE, "path too long: %s/%s", dir, name);
    return ZB_OK;
}

static int write_text(zb_ctx *ctx, const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (f == NULL)
        return zb_fail(ctx, ZB_EIO, "cannot create %s: %s", path,
                       strerror(errno));
    fputs(text, f);
    if (fclose(f) != 0)
        return zb_fail(ctx, ZB_EIO, "cannot write %s: %s", path,
                       strerror(errno));
    return ZB_OK;
}

static int make_dir(zb_ctx *ctx, const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return zb_fail(ctx, ZB_EIO, "cannot create %s: %s", path,
                       strerror(errno));
    return ZB_OK;
}

/* Removes path and everything under it (no symlink is followed). */
static int rm_tree(zb_ctx *ctx, const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *de;
    char sub[PATH_MAX];
    int rc = ZB_OK;

    if (lstat(path, &st) != 0)
        return errno == ENOENT ? ZB_OK
                               : zb_fail(ctx, ZB_EIO, "cannot examine %s: %s",
                                         path, strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        if (unlink(path) != 0)
            return zb_fail(ctx, ZB_EIO, "cannot delete %s: %s", path,
                           strerror(errno));
        return ZB_OK;
    }
    if ((d = opendir(path)) == NULL)
        return zb_fail(ctx, ZB_EIO, "cannot read %s: %s", path,
                       strerror(errno));
    while (rc == ZB_OK && (de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if ((size_t)snprintf(sub, sizeof sub, "%s/%s", path, de->d_name) >=
            sizeof sub) {
            rc = zb_fail(ctx, ZB_EIO, "path too long under %s", path);
            break;
        }
        rc = rm_tree(ctx, sub);
    }
    closedir(d);
    if (rc == ZB_OK && rmdir(path) != 0)
        rc = zb_fail(ctx, ZB_EIO, "cannot delete %s: %s", path,
                     strerror(errno));
    return rc;
}

/* Whether dir has entries other than . and .. */
static int dir_has_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int any = 0;

    if (d == NULL)
        return 0;
    while (!any && (de = readdir(d)) != NULL)
        any = strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    closedir(d);
    return any;
}

/* ------------------------------------------------------------ Arrow */

static int field(struct ArrowSchema *s, const char *fmt, const char *name,
                 int id, int nullable)
{
    char idtext[16], *md = NULL;
    size_t md_len = 0;
    const char *kv[] = { "PARQUET:field_id", idtext, NULL };
    int rc;

    snprintf(idtext, sizeof idtext, "%d", id);
    if ((rc = zb_arrow_metadata(&md, &md_len, kv)) < 0)
        return rc;
    rc = zb_arrow_schema_init(s, fmt, name, md, md_len,
                              nullable ? ARROW_FLAG_NULLABLE : 0, 0);
    zb_free(md);
    return rc;
}

static int col_fixed(struct ArrowArray *c, int64_t n, size_t width)
{
    void *v;

    if (zb_arrow_array_init(c, 2, 0) < 0 ||
        (v = zb_calloc((size_t)n + 1, width)) == NULL)
        return ZB_ENOMEM;
    c->buffers[1] = v;
    c->length = n;
    return ZB_OK;
}

/* A string column of n values; strs[i] NULL is a null. */
static int col_strings(struct ArrowArray *c, int64_t n,
                       const char *const *strs)
{
    int32_t *off;
    uint8_t *valid;
    char *chars;
    size_t total = 0, at = 0;
    int64_t i;

    for (i = 0; i < n; i++)
        total += strs[i] ? strlen(strs[i]) : 0;
    if (zb_arrow_array_init(c, 3, 0) < 0)
        return ZB_ENOMEM;
    off = zb_malloc(((size_t)n + 1) * sizeof *off);
    valid = zb_calloc((size_t)n / 8 + 1, 1);
    chars = zb_malloc(total + 1);
    c->buffers[0] = valid;
    c->buffers[1] = off;
    c->buffers[2] = chars;
    if (!off || !valid || !chars)
        return ZB_ENOMEM;
    off[0] = 0;
    for (i = 0; i < n; i++) {
        if (strs[i] == NULL) {
            c->null_count++;
        } else {
            size_t l = strlen(strs[i]);
            zb_arrow_set_bit(valid, i);
            memcpy(chars + at, strs[i], l);
            at += l;
        }
        off[i + 1] = (int32_t)at;
    }
    c->length = n;
    return ZB_OK;
}

/* ------------------------------------------------------------ tables */

typedef struct demo {
    zb_ctx *ctx;
    zb_io *io;
    zb_catalog *cat;
    zb_arena *arena;
    int64_t next_id;
} demo;

static int events_schema(struct ArrowSchema *s, int with_note)
{
    int n = with_note ? 5 : 4;

    if (zb_arrow_schema_init(s, "+s", "", NULL, 0, 0, n) < 0 ||
        field(s->children[0], "l", "id", 1, 0) < 0 ||
        field(s->children[1], "u", "device", 2, 1) < 0 ||
        field(s->children[2], "g", "reading", 3, 1) < 0 ||
        field(s->children[3], "tdD", "day", 4, 0) < 0 ||
        (with_note && field(s->children[4], "u", "note", 5, 1) < 0))
        return ZB_ENOMEM;
    return ZB_OK;
}

static int events_batch(struct ArrowArray *b, demo *d, int day, int rows,
                        int with_note)
{
    const char *dev[EVENT_ROWS], *note[EVENT_ROWS];
    char devbuf[EVENT_ROWS][16], notebuf[EVENT_ROWS][16];
    int64_t *ids;
    double *rd;
    int32_t *days;
    int i;

    if (zb_arrow_array_init(b, 1, with_note ? 5 : 4) < 0 ||
        col_fixed(b->children[0], rows, 8) < 0 ||
        col_fixed(b->children[2], rows, 8) < 0 ||
        col_fixed(b->children[3], rows, 4) < 0)
        return ZB_ENOMEM;
    ids = (int64_t *)b->children[0]->buffers[1];
    rd = (double *)b->children[2]->buffers[1];
    days = (int32_t *)b->children[3]->buffers[1];
    for (i = 0; i < rows; i++) {
        int64_t id = d->next_id++;

        ids[i] = id;
        rd[i] = (double)(id % 1000) * 0.25;
        days[i] = DAY0 + day;
        snprintf(devbuf[i], sizeof devbuf[i], "dev-%02d", (int)(id % 17));
        dev[i] = id % 11 == 10 ? NULL : devbuf[i];
        snprintf(notebuf[i], sizeof notebuf[i], "n%lld", (long long)id);
        note[i] = id % 3 ? notebuf[i] : NULL;
    }
    if (col_strings(b->children[1], rows, dev) < 0 ||
        (with_note && col_strings(b->children[4], rows, note) < 0))
        return ZB_ENOMEM;
    b->length = rows;
    return ZB_OK;
}

static int evolve_events(demo *d, zb_table **t)
{
    json_t *req = NULL, *upd = NULL, *schema = NULL;
    zb_table *t2 = NULL;
    int rc;

    schema = json_loads(EVENTS_SCHEMA_1, 0, NULL);
    req = json_pack("[{ssss}]", "type", "assert-table-uuid", "uuid",
                    (*t)->meta->table_uuid);
    upd = schema ? json_pack("[{sssOsi},{sssi}]", "action", "add-schema",
                             "schema", schema, "last-column-id", 5, "action",
                             "set-current-schema", "schema-id", -1)
                 : NULL;
    if (req == NULL || upd == NULL) {
        rc = zb_fail_oom(d->ctx);
        goto done;
    }
    if ((rc = zb_catalog_commit(d->cat, d->ctx, *t, (const zb_json *)req,
                                (const zb_json *)upd, &t2)) < 0)
        goto done;
    zb_table_free(*t);
    *t = t2;
done:
    json_decref(schema);
    json_decref(req);
    json_decref(upd);
    return rc;
}

static int make_events(demo *d)
{
    json_t *schema = json_loads(EVENTS_SCHEMA, 0, NULL);
    json_t *spec = json_loads(EVENTS_SPEC, 0, NULL);
    zb_table *t = NULL;
    struct ArrowSchema s4, s5;
    int a, rc;

    memset(&s4, 0, sizeof s4);
    memset(&s5, 0, sizeof s5);
    if (!schema || !spec || events_schema(&s4, 0) < 0 ||
        events_schema(&s5, 1) < 0) {
        rc = zb_fail_oom(d->ctx);
        goto done;
    }
    if ((rc = zb_ingest_create(&t, d->cat, d->ctx, "demo.events", NULL,
                               (const zb_json *)schema, (const zb_json *)spec,
                               NULL, 0, 2)) < 0)
        goto done;
    for (a = 0; a < EVENT_APPENDS; a++) {
        int day = a % EVENT_DAYS, note = a >= EVENT_APPENDS / 2;
        ice_value pv = ice_value_date(DAY0 + day);
        char folder[32];
        zb_write_partition part;
        struct ArrowArray b;
        ice_data_file df;

        if (a == EVENT_APPENDS / 2 && (rc = evolve_events(d, &t)) < 0)
            goto done;
        memset(&b, 0, sizeof b);
        memset(&part, 0, sizeof part);
        snprintf(folder, sizeof folder, "day=2026-11-%02d", 1 + day);
        part.spec_id = -1;
        part.n_values = 1;
        part.values = &pv;
        part.folder = folder;
        rc = events_batch(&b, d, day, EVENT_ROWS, note);
        if (rc == ZB_OK)
            rc = zb_ingest_write_parquet(&df, d->arena, d->io, d->ctx, t,
                                         ICE_CONTENT_DATA, note ? &s5 : &s4,
                                         &b, 1, &part);
        zb_arrow_array_release(&b);
        if (rc < 0 ||
            (rc = zb_ingest_commit_files(&t, d->cat, d->io, d->ctx, &df, NULL,
                                         1)) < 0)
            goto done;
        if (a % 12 == 11) {
            /* a late correction: three rows of this file go */
            const char *paths[3] = { df.file_path, df.file_path,
                                     df.file_path };
            int64_t pos[3] = { 1, 5, 17 };

            if ((rc = zb_ingest_delete_positions(&t, d->cat, d->io, d->ctx,
                                                 paths, pos, 3, &part)) < 0)
                goto done;
        }
        zb_arena_reset(d->arena);
    }
done:
    zb_arrow_schema_release(&s4);
    zb_arrow_schema_release(&s5);
    json_decref(schema);
    json_decref(spec);
    zb_table_free(t);
    return rc;
}

static int users_schema(struct ArrowSchema *s, int only_key)
{
    if (zb_arrow_schema_init(s, "+s", "", NULL, 0, 0, only_key ? 1 : 3) < 0 ||
        field(s->children[0], "l", "user_id", 1, 0) < 0 ||
        (!only_key && (field(s->children[1], "u", "name", 2, 1) < 0 ||
                       field(s->children[2], "l", "score", 3, 1) < 0)))
        return ZB_ENOMEM;
    return ZB_OK;
}

/* Rows for user ids[0..n), version v; only_key: the key column alone. */
static int users_batch(struct ArrowArray *b, const int64_t *ids, int n,
                       int v, int only_key)
{
    const char *names[USER_BATCH_ROWS];
    char buf[USER_BATCH_ROWS][24];
    int64_t *idv, *score;
    int i;

    if (zb_arrow_array_init(b, 1, only_key ? 1 : 3) < 0 ||
        col_fixed(b->children[0], n, 8) < 0 ||
        (!only_key && col_fixed(b->children[2], n, 8) < 0))
        return ZB_ENOMEM;
    idv = (int64_t *)b->children[0]->buffers[1];
    for (i = 0; i < n; i++)
        idv[i] = ids[i];
    if (!only_key) {
        score = (int64_t *)b->children[2]->buffers[1];
        for (i = 0; i < n; i++) {
            snprintf(buf[i], sizeof buf[i], "user-%lld-v%d",
                     (long long)ids[i], v);
            names[i] = buf[i];
            score[i] = ids[i] * 10 + v;
        }
        if (col_strings(b->children[1], n, names) < 0)
            return ZB_ENOMEM;
    }
    b->length = n;
    return ZB_OK;
}

static int make_users(demo *d)
{
    json_t *schema = json_loads(USERS_SCHEMA, 0, NULL);
    zb_table *t = NULL;
    struct ArrowSchema full, key;
    int64_t ids[USER_BATCH_ROWS];
    int32_t eq = 1;
    int a, i, rc;

    memset(&full, 0, sizeof full);
    memset(&key, 0, sizeof key);
    if (!schema || users_schema(&full, 0) < 0 || users_schema(&key, 1) < 0) {
        rc = zb_fail_oom(d->ctx);
        goto done;
    }
    if ((rc = zb_ingest_create(&t, d->cat, d->ctx, "demo.users", NULL,
                               (const zb_json *)schema,
                               NULL, NULL, 0, 2)) < 0)
        goto done;
    for (a = 0; a < USER_BATCHES; a++) {
        struct ArrowArray b;

        memset(&b, 0, sizeof b);
        for (i = 0; i < USER_BATCH_ROWS; i++)
            ids[i] = (int64_t)a * USER_BATCH_ROWS + i;
        rc = users_batch(&b, ids, USER_BATCH_ROWS, 0, 0);
        if (rc == ZB_OK)
            rc = zb_ingest_append(&t, d->cat, d->io, d->ctx, &full, &b, 1,
                                  NULL);
        zb_arrow_array_release(&b);
        if (rc < 0)
            goto done;
    }
    for (a = 0; a < USER_UPSERTS; a++) {
        struct ArrowArray b;

        /* the same users come back: the upserts overlap */
        for (i = 0; i < USER_UPSERT_ROWS; i++)
            ids[i] = (int64_t)((a * 7 + i * 53) %
                               (USER_BATCHES * USER_BATCH_ROWS));
        memset(&b, 0, sizeof b);
        rc = users_batch(&b, ids, USER_UPSERT_ROWS, a + 1, 1);
        if (rc == ZB_OK)
            rc = zb_ingest_delete_equal(&t, d->cat, d->io, d->ctx, &eq, 1,
                                        &key, &b, NULL);
        zb_arrow_array_release(&b);
        if (rc < 0)
            goto done;
        memset(&b, 0, sizeof b);
        rc = users_batch(&b, ids, USER_UPSERT_ROWS, a + 1, 0);
        if (rc == ZB_OK)
            rc = zb_ingest_append(&t, d->cat, d->io, d->ctx, &full, &b, 1,
                                  NULL);
        zb_arrow_array_release(&b);
        if (rc < 0)
            goto done;
    }
done:
    zb_arrow_schema_release(&full);
    zb_arrow_schema_release(&key);
    json_decref(schema);
    zb_table_free(t);
    return rc;
}

/* ------------------------------------------------------------ the verb */

static int prepare_dir(zb_ctx *ctx, const char *dir, char *abs, size_t size)
{
    char path[PATH_MAX], cwd[PATH_MAX];
    struct stat st;
    int rc;

    while (dir[0] == '.' && dir[1] == '/' && dir[2] != '\0')
        dir += 2;
    if ((rc = make_dir(ctx, dir)) < 0)
        return rc;
    if (dir[0] == '/') {
        if ((size_t)snprintf(abs, size, "%s", dir) >= size)
            return zb_fail(ctx, ZB_EUSAGE, "path too long: %s", dir);
    } else {
        if (getcwd(cwd, sizeof cwd) == NULL)
            return zb_fail(ctx, ZB_EIO, "cannot read the working directory: "
                           "%s", strerror(errno));
        if ((rc = join(ctx, abs, size, cwd, dir)) < 0)
            return rc;
    }
    while (strlen(abs) > 1 && abs[strlen(abs) - 1] == '/')
        abs[strlen(abs) - 1] = '\0';
    if ((rc = join(ctx, path, sizeof path, abs, MARKER)) < 0)
        return rc;
    if (stat(path, &st) != 0) {
        if (dir_has_entries(abs))
            return zb_fail(ctx, ZB_EREFUSED,
                           "%s is not empty and was not made by zamboni "
                           "demo; give a new folder",
                           abs);
    } else {
        /* an earlier demo: start again */
        const char *old[] = { "catalog.db", "catalog.db-journal",
                              "catalog.db-wal", "catalog.db-shm",
                              "warehouses", "configs", "zamboni.yml" };
        size_t k;

        for (k = 0; k < sizeof old / sizeof old[0]; k++) {
            if ((rc = join(ctx, path, sizeof path, abs, old[k])) < 0 ||
                (rc = rm_tree(ctx, path)) < 0)
                return rc;
        }
    }
    if ((rc = join(ctx, path, sizeof path, abs, MARKER)) < 0)
        return rc;
    return write_text(ctx, path,
                      "This folder was made by `zamboni demo`; running it "
                      "again deletes and rebuilds it.\n");
}

/* The S3 settings given on the command line or in the environment, as
 * zamboni.yml lines (none of them is a secret). */
static int s3_lines(zb_ctx *ctx, char *out, size_t size,
                    const zb_settings *s)
{
    static const zb_setting_id ids[] = {
        ZB_SET_S3_ENDPOINT, ZB_SET_S3_REGION, ZB_SET_S3_PATH_STYLE_ACCESS,
        ZB_SET_S3_MAX_ATTEMPTS, ZB_SET_S3_MAX_RETRY_SECONDS,
        ZB_SET_S3_TIMEOUT_SECONDS, ZB_SET_S3_MULTIPART_THRESHOLD_BYTES
    };
    size_t used = 0;

    out[0] = '\0';
    for (size_t i = 0; s != NULL && i < sizeof ids / sizeof ids[0]; i++) {
        zb_setting_source src = zb_settings_source(s, ids[i]);
        const char *v = zb_settings_get(s, ids[i]);
        int n;

        if (v == NULL || (src != ZB_SRC_FLAG && src != ZB_SRC_ENV &&
                          src != ZB_SRC_DOTENV))
            continue;
        if (strpbrk(v, "\n\r\"\\") != NULL)
            return zb_fail(ctx, ZB_EUSAGE, "%s holds a character "
                           "zamboni.yml cannot take",
                           zb_settings_key_name(ids[i]));
        n = snprintf(out + used, size - used, "%s: \"%s\"\n",
                     zb_settings_key_name(ids[i]), v);
        if (n < 0 || (size_t)n >= size - used)
            return zb_fail(ctx, ZB_EUSAGE, "S3 settings too long");
        used += (size_t)n;
    }
    return ZB_OK;
}

static int write_layout(zb_ctx *ctx, const char *abs, const zb_settings *s)
{
    char path[PATH_MAX], text[PATH_MAX + 4096], s3[4096];
    int rc, n;

    if ((rc = s3_lines(ctx, s3, sizeof s3, s)) < 0)
        return rc;
    n = snprintf(text, sizeof text,
                 "# Made by `zamboni demo`. Non-secret settings; see "
                 "README.md.\nwarehouse: demo\nroot: %s\n%s",
                 abs, s3);
    if (n < 0 || (size_t)n >= sizeof text)
        return zb_fail(ctx, ZB_EUSAGE, "path too long: %s", abs);
    if ((rc = join(ctx, path, sizeof path, abs, "zamboni.yml")) < 0 ||
        (rc = write_text(ctx, path, text)) < 0 ||
        (rc = join(ctx, path, sizeof path, abs, "configs")) < 0 ||
        (rc = make_dir(ctx, path)) < 0 ||
        (rc = join(ctx, path, sizeof path, abs, "configs/demo")) < 0 ||
        (rc = make_dir(ctx, path)) < 0 ||
        (rc = join(ctx, path, sizeof path, abs,
                   "configs/demo/table-config.json")) < 0)
        return rc;
    return write_text(ctx, path, TABLE_CONFIG);
}

/* DIR, else $ZAMBONI_ROOT (the root the other verbs read), else
 * ./zamboni-demo. */
static const char *demo_dir(const zb_verb_args *a)
{
    const char *root = getenv("ZAMBONI_ROOT");

    if (a->n_pos > 0)
        return a->pos[0];
    return root != NULL && root[0] != '\0' ? root : "zamboni-demo";
}

int zb_cli_demo_run(int argc, char **argv)
{
    zb_verb_args *a = zb_calloc(1, sizeof *a);
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    zb_settings_input in = ZB_SETTINGS_INPUT_INIT;
    zb_settings *settings = NULL;
    char abs[PATH_MAX - 64], db[PATH_MAX], wh[PATH_MAX];
    size_t k;
    demo d;
    zb_ctx ctx;
    int help, code, rc;

    memset(&d, 0, sizeof d);
    zb_ctx_init(&ctx);
    d.ctx = &ctx;
    if (a == NULL) {
        fputs("zamboni demo: out of memory\n", stderr);
        return ZB_EXIT_FAILED;
    }
    if ((code = zb_verb_parse(a, ZB_VERB_DEMO, argc, argv, 0, 1, &help)) !=
            0 ||
        help) {
        if (help)
            zb_verb_help(stdout, ZB_VERB_DEMO);
        goto done;
    }
    if (a->location != NULL && !zb_io_is_object_store(a->location)) {
        code = zb_verb_usage(a->verb, "--location takes an object store's "
                             "URI (s3://BUCKET/PREFIX); local tables go "
                             "under DIR");
        goto done;
    }
    for (k = 0; k < ZB_SET_COUNT; k++)
        in.flags[k] = a->setting_flags[k];
    in.env_path = a->env_path;
    in.profile_path = a->profile_path;
    in.cwd = ".";
    /* the settings only for a demo on S3: a local one never needed them */
    if ((rc = zb_io_new(&d.io, &ctx)) < 0 ||
        (a->location != NULL &&
         ((rc = zb_settings_load(&settings, &ctx, &in)) < 0 ||
          (rc = zb_verb_add_s3(d.io, &ctx, settings, NULL)) < 0)))
        goto fail;
    if ((rc = prepare_dir(&ctx, demo_dir(a), abs, sizeof abs)) < 0 ||
        (rc = write_layout(&ctx, abs, settings)) < 0)
        goto fail;
    if ((rc = join(&ctx, db, sizeof db, abs, "catalog.db")) < 0)
        goto fail;
    if (a->location != NULL) {
        size_t n = strlen(a->location);

        while (n > 0 && a->location[n - 1] == '/')
            n--;
        if (n >= sizeof wh) {
            rc = zb_fail(&ctx, ZB_EUSAGE, "--location too long");
            goto fail;
        }
        memcpy(wh, a->location, n);
        wh[n] = '\0';
    } else if ((rc = join(&ctx, wh, sizeof wh, abs, "warehouses/demo")) < 0) {
        goto fail;
    }
    cfg.kind = ZB_CATALOG_SQLITE;
    cfg.name = "demo";
    cfg.warehouse = "demo";
    cfg.sqlite_path = db;
    cfg.warehouse_location = wh;
    if ((rc = zb_catalog_open(&d.cat, &ctx, d.io, &cfg)) < 0 ||
        (rc = zb_arena_new(&d.arena, (size_t)16 << 20)) < 0)
        goto fail;
    if ((rc = zb_catalog_create_namespace(d.cat, &ctx, "demo")) < 0 &&
        rc != ZB_EEXISTS)
        goto fail;
    printf("writing demo.events: %d appends over %d days, position deletes, "
           "a schema change\n",
           EVENT_APPENDS, EVENT_DAYS);
    fflush(stdout);
    if ((rc = make_events(&d)) < 0)
        goto fail;
    printf("writing demo.users: %d appends, %d upserts (equality deletes)\n",
           USER_BATCHES, USER_UPSERTS);
    fflush(stdout);
    if ((rc = make_users(&d)) < 0)
        goto fail;
    printf("\ndemo warehouse ready in %s%s%s\n"
           "try:\n"
           "  ZAMBONI_ROOT=%s zamboni maintenance --warehouse demo --status\n",
           abs, a->location ? ", its tables in " : "",
           a->location ? wh : "", abs);
    if (a->fleet && (rc = zb_cli_demo_fleet(&ctx, abs)) < 0)
        goto fail;
    code = ZB_EXIT_OK;
    goto done;
fail:
    fprintf(stderr, "zamboni demo: %s\n",
            ctx.err.msg[0] ? ctx.err.msg : zb_rc_name(rc));
    code = zb_cli_exit_code(rc);
done:
    zb_arena_free(d.arena);
    zb_catalog_free(d.cat);
    zb_io_free(d.io);
    zb_settings_free(settings);
    zb_free(a);
    return code;
}
