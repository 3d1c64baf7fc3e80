/*
 * cli/verbs/verb_listings.c - the small read-only verbs:
 *   zamboni warehouses                  the catalog's warehouses, one a line
 *   zamboni engines                     each engine, each operation, what
 *                                       it supports and whether it previews
 *   zamboni table-config validate FILE  exit 0 valid, 2 invalid (the key
 *                                       path and rule), 3 wrong warehouse
 *   zamboni table-config summary FILE [--table T]
 *   zamboni table-config generate [-o FILE] [--namespace NS] [--force]
 *                                       (cli/verbs/verb_table_config_generate.c)
 *   zamboni table-config from-catalog CAT [-o FILE] [--namespace NS]
 *                                       [--no-evolution]: generate from
 *                                       the catalog CAT
 *   zamboni validate-config FILE        = table-config validate FILE
 */
#define ZB_MODULE "cli"

#include <string.h>

#include "cli/exit.h"
#include "cli/verbs/verbs.h"
#include "util/alloc.h"
#include "util/err.h"

static int print_item(const char *item, void *payload)
{
    (void)payload;
    printf("%s\n", item);
    return 0;
}

int zb_cli_warehouses_run(int argc, char **argv)
{
    zb_verb_args *a = zb_calloc(1, sizeof *a);
    zb_verb_env env;
    zb_catalog *cat = NULL;
    zb_ctx ctx;
    int help, code, rc;

    memset(&env, 0, sizeof env);
    zb_ctx_init(&ctx);
    if (a == NULL) {
        fputs("zamboni warehouses: out of memory\n", stderr);
        return ZB_EXIT_FAILED;
    }
    if ((code = zb_verb_parse(a, ZB_VERB_WAREHOUSES, argc, argv, 0, 0,
                              &help)) != 0 ||
        help) {
        if (help)
            zb_verb_help(stdout, ZB_VERB_WAREHOUSES);
        goto done;
    }
    /* the table config plays no part here */
    a->table_config = NULL;
    if ((rc = zb_verb_env_open(&env, &ctx, a)) < 0 ||
        (rc = zb_verb_configured_catalog(&cat, &env, &ctx)) < 0 ||
        (rc = zb_catalog_list_warehouses(cat, &ctx, print_item, NULL)) < 0) {
        if (rc == ZB_EUNSUPPORTED && !ctx.err.msg[0])
            zb_fail(&ctx, rc, "this catalog cannot list its warehouses");
        fprintf(stderr, "zamboni warehouses: %s\n",
                ctx.err.msg[0] ? ctx.err.msg : zb_rc_name(rc));
        code = zb_cli_exit_code(rc);
        goto done;
    }
    code = fflush(stdout) == 0 ? ZB_EXIT_OK : ZB_EXIT_FAILED;
done:
    zb_verb_env_close(&env);
    zb_free(a);
    return code;
}

int zb_cli_engines_run(int argc, char **argv)
{
    zb_verb_args a;
    static const char *const engines[] = { "local", "spark", "trino" };
    int help, code, i, e;

    if ((code = zb_verb_parse(&a, ZB_VERB_ENGINES, argc, argv, 0, 0,
                              &help)) != 0 ||
        help) {
        if (help)
            zb_verb_help(stdout, ZB_VERB_ENGINES);
        return code;
    }
    for (e = 0; e < 3; e++) {
        int local = e == 0;

        printf("%s%s\n", engines[e],
               local ? "  (Zamboni's own C engine; the default)"
                     : "  (not available in this build)");
        for (i = 0; i < ZB_MAINT_OP_COUNT; i++) {
            int full = local;

            printf("  %-24s %-12s %s\n", zb_maint_op_names[i],
                   full ? "full" : "unsupported",
                   full ? "previews" : "cannot preview");
        }
        if (local) {
            printf("  limitations: --snapshot-operation overwrite and "
                   "--dangling-delete-policy block\n"
                   "               are not in this build\n");
            printf("  layout: $ZAMBONI_ROOT/configs/<warehouse>/"
                   "table-config.json\n");
        }
    }
    return fflush(stdout) == 0 ? ZB_EXIT_OK : ZB_EXIT_FAILED;
}

static int run_generate(const zb_verb_args *a)
{
    zb_verb_env env;
    zb_ctx ctx;
    int rc;

    if (a->n_pos > (a->from_catalog ? 2u : 1u))
        return zb_verb_usage(a->verb, "generate takes no FILE (use -o)");
    if (a->no_evolution && !a->from_catalog)
        return zb_verb_usage(a->verb, "--no-evolution goes with "
                             "from-catalog");
    memset(&env, 0, sizeof env);
    zb_ctx_init(&ctx);
    if ((rc = zb_verb_env_open(&env, &ctx, a)) == ZB_OK)
        rc = zb_verb_generate(&env, &ctx, a);
    if (rc < 0)
        fprintf(stderr, "zamboni table-config: %s\n",
                ctx.err.msg[0] ? ctx.err.msg : zb_rc_name(rc));
    zb_verb_env_close(&env);
    return zb_cli_exit_code(rc);
}

int zb_cli_table_config_run(int argc, char **argv)
{
    zb_verb_args *a = zb_calloc(1, sizeof *a);
    zb_table_config *tc = NULL;
    zb_buf out;
    zb_ctx ctx;
    const char *what, *file, *wh;
    int help, code, rc;

    zb_ctx_init(&ctx);
    zb_buf_init(&out, (size_t)64 << 20);
    if (a == NULL) {
        fputs("zamboni table-config: out of memory\n", stderr);
        return ZB_EXIT_FAILED;
    }
    if ((code = zb_verb_parse(a, ZB_VERB_TABLE_CONFIG, argc, argv, 1, 2,
                              &help)) != 0 ||
        help) {
        if (help)
            zb_verb_help(stdout, ZB_VERB_TABLE_CONFIG);
        goto done;
    }
    what = a->pos[0];
    if (strcmp(what, "from-catalog") == 0) {
        char uri[4096];

        if ((code = zb_verb_from_catalog_args(a, uri, sizeof uri)) == 0)
            code = run_generate(a);
        goto done;
    }
    if (strcmp(what, "generate") == 0) {
        code = run_generate(a);
        goto done;
    }
    if (strcmp(what, "validate") != 0 && strcmp(what, "summary") != 0) {
        code = zb_verb_usage(a->verb, "unknown action '%s' (validate, "
                             "summary, generate or from-catalog)", what);
        goto done;
    }
    file = a->n_pos > 1 ? a->pos[1] : a->table_config;
    if (file == NULL) {
        code = zb_verb_usage(a->verb, "%s needs FILE", what);
        goto done;
    }
    if (a->table_filter && strcmp(what, "summary") != 0) {
        code = zb_verb_usage(a->verb, "--table goes with summary");
        goto done;
    }
    rc = zb_table_config_load(&tc, &ctx, file);
    if (rc == ZB_ENOTFOUND) {
        fprintf(stderr, "zamboni table-config: %s: no such file\n", file);
        code = ZB_EXIT_USAGE;
        goto done;
    }
    if (rc < 0) {
        fprintf(stderr, "zamboni table-config: %s\n", ctx.err.msg);
        code = rc == ZB_EUSAGE ? ZB_EXIT_USAGE : zb_cli_exit_code(rc);
        goto done;
    }
    wh = a->setting_flags[ZB_SET_WAREHOUSE];
    if (wh != NULL &&
        (rc = zb_table_config_check_warehouse(&ctx, tc, wh)) < 0) {
        fprintf(stderr, "zamboni table-config: %s\n", ctx.err.msg);
        code = zb_cli_exit_code(rc);
        goto done;
    }
    if (strcmp(what, "validate") == 0) {
        printf("%s: valid (warehouse %s, %zu table(s))\n", file,
               zb_table_config_warehouse(tc),
               zb_table_config_table_count(tc));
    } else {
        if ((rc = zb_table_config_summary(&out, &ctx, tc,
                                          a->table_filter)) < 0) {
            fprintf(stderr, "zamboni table-config: %s\n", ctx.err.msg);
            code = zb_cli_exit_code(rc);
            goto done;
        }
        fputs(zb_buf_cstr(&out), stdout);
    }
    code = fflush(stdout) == 0 ? ZB_EXIT_OK : ZB_EXIT_FAILED;
done:
    zb_buf_free(&out);
    zb_table_config_free(tc);
    zb_free(a);
    return code;
}

/* `zamboni validate-config FILE`: the Python tool's spelling of
 * `table-config validate FILE`. */
int zb_cli_validate_config_run(int argc, char **argv)
{
    char **args = zb_calloc((size_t)argc + 2, sizeof *args);
    int i, code;

    if (args == NULL) {
        fputs("zamboni validate-config: out of memory\n", stderr);
        return ZB_EXIT_FAILED;
    }
    args[0] = (char *)"table-config";
    args[1] = (char *)"validate";
    for (i = 1; i < argc; i++)
        args[i + 1] = argv[i];
    code = zb_cli_table_config_run(argc + 1, args);
    zb_free(args);
    return code;
}
