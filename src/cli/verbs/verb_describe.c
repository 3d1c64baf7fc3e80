/*
 * cli/verbs/verb_describe.c - `zamboni describe TABLE` and `zamboni plan
 * TABLE`, read-only (ZAMBONI-INTERFACE.md section 5).
 *
 * describe walks the live entries of the current snapshot once and prints
 *     T  (format-version V, snapshot S)
 *       live data files : N  (SIZE, R rows)
 *       file sizes      : < 1MiB: a, 1-16MiB: b, 16-64MiB: c, ...
 *       partition specs : 0 [day(ts)] (default)
 *       sort order id   : 0
 *       delete files    : P position, E equality
 *       snapshots       : K
 *       findings        : one line each
 *       settings        : target_file_size_bytes 134217728 (default)
 *                         min_input_files 2 (table config min_input_files, ...)
 * The small-file threshold of the findings is the compaction target
 * (--target-file-size-bytes, the table config, the table's properties,
 * 128 MiB), resolved by ops/table_settings.h as compaction resolves it,
 * with where it came from.
 *
 * plan prints the compaction plan (ops/compact/compact.h) without writing:
 * "T: G group(s), F file(s), target B bytes, snapshot S", one line per
 * group and per skipped partition, then the same settings lines. It
 * needs compaction in the build.
 */
#define ZB_MODULE "cli"

#include <string.h>

#include "cli/exit.h"
#include "cli/verbs/verbs.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/str.h"
#include "ops/compact/compact.h"
#include "ops/compact/compact_options.h"

/* Settings lines, "  LABEL: NAME VALUE (ORIGIN)", the rest under it. */
static int print_settings(const char *label, const zb_table_settings *s,
                          const zb_tset *ids, size_t n)
{
    zb_buf line;
    size_t i;
    int rc = ZB_OK;

    zb_buf_init(&line, 4096);
    for (i = 0; i < n && rc == ZB_OK; i++) {
        zb_buf_clear(&line);
        if ((rc = zb_tset_format(&line, ids[i], &s->v[ids[i]])) == ZB_OK)
            printf("  %-16s%s %s\n", i == 0 ? label : "", i == 0 ? ":" : " ",
                   zb_buf_cstr(&line));
    }
    zb_buf_free(&line);
    return rc;
}

static const zb_tset compaction_settings[] = { ZB_TSET_TARGET_FILE_SIZE,
                                                ZB_TSET_MIN_INPUT_FILES };

static void print_describe(const zb_table *t, const char *ident,
                           const ice_live_counts *c,
                           const zb_table_settings *set)
{
    int64_t target = set->v[ZB_TSET_TARGET_FILE_SIZE].value;
    const ice_metadata *m = t->meta;
    const ice_snapshot *snap = ice_metadata_current_snapshot(m);
    typedef unsigned long long ull;
    ull deletes = c->position_deletes + c->equality_deletes +
                  c->deletion_vectors;
    char sz[32], tg[32];
    size_t i, k;

    printf("%s  (format-version %d, snapshot ", ident, m->format_version);
    if (snap)
        printf("%lld)\n", (long long)snap->snapshot_id);
    else
        printf("none)\n");
    zb_str_format_bytes(sz, sizeof sz, c->data_bytes);
    printf("  live data files : %llu  (%s, %llu rows)\n",
           (ull)c->data_files, sz, (ull)c->data_rows);
    printf("  file sizes      : <1MiB %llu, 1-16MiB %llu, 16-64MiB %llu, "
           "64-128MiB %llu, >=128MiB %llu\n",
           (ull)c->size_bins[0], (ull)c->size_bins[1], (ull)c->size_bins[2],
           (ull)c->size_bins[3], (ull)c->size_bins[4]);
    printf("  partition specs :");
    for (i = 0; i < m->n_specs; i++) {
        const ice_partition_spec *s = &m->specs[i];

        printf("%s %d [", i ? "," : "", (int)s->spec_id);
        for (k = 0; k < s->n_fields; k++)
            printf("%s%s(%s)", k ? ", " : "", s->fields[k].transform,
                   s->fields[k].name);
        printf("]%s", s->spec_id == m->default_spec_id ? " (default)" : "");
    }
    printf("\n  sort order id   : %d\n", (int)m->default_sort_order_id);
    printf("  delete files    : %llu position, %llu equality",
           (ull)c->position_deletes, (ull)c->equality_deletes);
    if (c->deletion_vectors)
        printf(", %llu deletion vector(s)", (ull)c->deletion_vectors);
    printf("\n  snapshots       : %zu\n", m->n_snapshots);
    (void)print_settings("settings", set, compaction_settings,
                         sizeof compaction_settings /
                             sizeof compaction_settings[0]);
    printf("  findings        :");
    zb_str_format_bytes(tg, sizeof tg, (uint64_t)target);
    if (c->small_data_files > 1)
        printf("\n    %llu data file(s) below the %s target: compaction "
               "candidates",
               (ull)c->small_data_files, tg);
    if (deletes > 0)
        printf("\n    %llu delete file(s) applied on every read: compaction "
               "applies them",
               deletes);
    if (m->n_snapshots > 1)
        printf("\n    %zu snapshots: expire keeps what the retention rules "
               "ask",
               m->n_snapshots);
    if (m->format_version < 2)
        printf("\n    format version 1: no row-level deletes");
    if (c->small_data_files <= 1 && deletes == 0 && m->n_snapshots <= 1)
        printf(" none");
    printf("\n");
}

static int run_read_only(int argc, char **argv, unsigned bit)
{
    zb_verb_args *a = zb_calloc(1, sizeof *a);
    zb_verb_env env;
    zb_catalog *cat = NULL;
    zb_table *t = NULL;
    ice_live_counts c;
    zb_ctx ctx;
    int owned = 0, help, code, rc = ZB_OK;

    memset(&env, 0, sizeof env);
    memset(&c, 0, sizeof c);
    zb_ctx_init(&ctx);
    if (a == NULL) {
        fputs("zamboni: out of memory\n", stderr);
        return ZB_EXIT_FAILED;
    }
    if ((code = zb_verb_parse(a, bit, argc, argv, 1, 1, &help)) != 0 ||
        help) {
        if (help)
            zb_verb_help(stdout, bit);
        goto done;
    }
    if ((rc = zb_verb_env_open(&env, &ctx, a)) < 0)
        goto fail;
    a->mo.config = env.tc;
    if (bit == ZB_VERB_DESCRIBE) {
        zb_table_settings set;

        if ((rc = zb_verb_catalog(&cat, &owned, &env, &ctx, a->pos[0])) < 0 ||
            (rc = zb_catalog_load_table(cat, &ctx, a->pos[0], &t)) < 0)
            goto fail;
        /* an expire property describe does not use is no failure here */
        (void)zb_maint_settings(&set, NULL, &a->mo, a->pos[0], t->meta);
        if ((rc = ice_snapshot_live_counts(
                 &c, env.io, &ctx, t->meta,
                 ice_metadata_current_snapshot(t->meta), &t->paths,
                 set.v[ZB_TSET_TARGET_FILE_SIZE].value)) < 0)
            goto fail;
        print_describe(t, a->pos[0], &c, &set);
    } else {
        zb_compact_opts co = ZB_COMPACT_OPTS_INIT;
        zb_compact_plan plan;
        zb_op_target tg;
        zb_buf out;
        zb_table_settings set;

        memset(&plan, 0, sizeof plan);
        memset(&tg, 0, sizeof tg);
        if ((rc = zb_verb_catalog(&cat, &owned, &env, &ctx, a->pos[0])) < 0)
            goto fail;
        tg.catalog = cat;
        tg.io = env.io;
        tg.ident = a->pos[0];
        tg.dry_run = 1;
        zb_verb_plan_opts(&co, &env, &a->mo, a->pos[0]);
        rc = zb_compact_plan_table(&plan, &t, &tg, &ctx, &co);
        zb_buf_init(&out, (size_t)256 << 20);
        if (rc == ZB_OK)
            rc = zb_compact_plan_report(&out, a->pos[0], &plan);
        if (rc == ZB_OK && a->verbose)
            rc = zb_compact_plan_files_report(&out, &plan);
        if (rc == ZB_OK)
            fputs(zb_buf_cstr(&out), stdout);
        if (rc == ZB_OK) {
            zb_tc_effective eff;
            zb_compact_options opts;

            (void)zb_maint_settings(&set, NULL, &a->mo, a->pos[0], t->meta);
            rc = print_settings("settings", &set, compaction_settings,
                                sizeof compaction_settings /
                                    sizeof compaction_settings[0]);
            if (env.tc != NULL)
                zb_table_config_effective(&eff, env.tc, a->pos[0]);
            zb_compact_options_resolve(&opts, &a->mo.rw,
                                       env.tc ? &eff : NULL);
            zb_buf_clear(&out);
            if (rc == ZB_OK &&
                (rc = zb_compact_options_report(&out, &opts, &plan)) ==
                    ZB_OK)
                fputs(zb_buf_cstr(&out), stdout);
        }
        zb_buf_free(&out);
        zb_compact_plan_free(&plan);
        if (rc < 0)
            goto fail;
    }
    code = fflush(stdout) == 0 ? ZB_EXIT_OK : ZB_EXIT_FAILED;
    goto done;
fail:
    fprintf(stderr, "zamboni %s: %s: %s\n", a->verb, a->pos[0],
            ctx.err.msg[0] ? ctx.err.msg : zb_rc_name(rc));
    code = zb_cli_exit_code(rc);
done:
    zb_table_free(t);
    if (owned)
        zb_catalog_free(cat);
    zb_verb_env_close(&env);
    zb_free(a);
    return code;
}

void zb_verb_plan_opts(zb_compact_opts *co, const zb_verb_env *env,
                       const zb_maint_opts *mo, const char *ident)
{
    zb_tc_effective eff;
    zb_tset_value v;

    if (env->tc != NULL)
        zb_table_config_effective(&eff, env->tc, ident);
    /* flag, then config; compaction reads the property and default */
    (void)zb_tset_explicit(&v, ZB_TSET_TARGET_FILE_SIZE,
                           mo->target_file_size_bytes,
                           env->tc ? &eff : NULL);
    co->target_file_bytes = v.value;
    (void)zb_tset_explicit(&v, ZB_TSET_MIN_INPUT_FILES, mo->min_input_files,
                           env->tc ? &eff : NULL);
    co->min_input_files = (int)v.value;
    {
        zb_compact_options r;

        zb_compact_options_resolve(&r, &mo->rw, env->tc ? &eff : NULL);
        zb_compact_options_apply(co, &r);
    }
    co->rewrite_all |= mo->rewrite_all;
    co->branch = mo->branch;
}

int zb_cli_describe_run(int argc, char **argv)
{
    return run_read_only(argc, argv, ZB_VERB_DESCRIBE);
}

int zb_cli_plan_run(int argc, char **argv)
{
    return run_read_only(argc, argv, ZB_VERB_PLAN);
}
