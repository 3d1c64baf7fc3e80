/*
 * cli/verbs/verb_add_files.c - `zamboni add-files TABLE --source DIR_OR_URI
 * [--create] [--dry-run] [--allow-duplicates]`: existing Parquet files become
 * data files of TABLE in one append (ops/add_files/add_files.h). TABLE is
 * namespace.table in the configured catalog or a table folder, resolved as the
 * other verbs resolve it (cli/verbs/verbs.h); its flags are in their table, the
 * catalog flags and --remap shared with them. Output: the report lines on
 * stdout, errors on stderr naming the table; exit code from cli/exit.c (3 for a
 * refused file or duplicates).
 */
#define ZB_MODULE "cli"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/exit.h"
#include "cli/verbs/verbs.h"
#include "cli/verbs/verb_add_files.h"
#include "ops/add_files/add_files.h"
#include "util/alloc.h"
#include "util/err.h"

int zb_cli_add_files_run(int argc, char **argv)
{
    zb_verb_args *a = NULL;
    zb_add_files_result r;
    zb_verb_env env;
    zb_op_target t;
    zb_catalog *cat = NULL;
    zb_buf out = ZB_BUF_INIT(1 << 16);
    zb_ctx ctx;
    int owned = 0, help, code, rc;

    if ((a = zb_calloc(1, sizeof *a)) == NULL) {
        fputs("zamboni: out of memory\n", stderr);
        return ZB_EXIT_FAILED;
    }
    memset(&env, 0, sizeof env);
    zb_ctx_init(&ctx);
    if ((code = zb_verb_parse(a, ZB_VERB_ADD_FILES, argc, argv, 1, 1,
                              &help)) != 0 ||
        help) {
        if (help)
            zb_verb_help(stdout, ZB_VERB_ADD_FILES);
        goto done;
    }
    if (a->af.source == NULL) {
        code = zb_verb_usage("add-files", "%s", "missing --source DIR_OR_URI");
        goto done;
    }
    if ((rc = zb_verb_env_open(&env, &ctx, a)) < 0 ||
        (rc = zb_verb_catalog(&cat, &owned, &env, &ctx, a->pos[0])) < 0 ||
        (rc = zb_verb_check_moved(cat, &ctx, a->pos[0])) < 0) {
        fprintf(stderr, "zamboni add-files: %s\n", ctx.err.msg);
        code = zb_cli_exit_code(rc);
        goto done;
    }
    memset(&t, 0, sizeof t);
    t.catalog = cat;
    t.io = env.io;
    t.ident = a->pos[0];
    t.dry_run = a->dry_run;
    rc = zb_add_files(&t, &ctx, &a->af, &r);
    if (rc == ZB_OK) {
        zb_add_files_report(&out, t.ident, &r, t.dry_run);
        fputs(zb_buf_cstr(&out), stdout);
        if (t.dry_run)
            printf("\n  dry run -- nothing changed; re-run without "
                   "--dry-run to add the files.\n");
    } else {
        size_t tl = strlen(t.ident);
        if (strncmp(ctx.err.msg, t.ident, tl) == 0 && ctx.err.msg[tl] == ':')
            fprintf(stderr, "zamboni add-files: %s\n", ctx.err.msg);
        else
            fprintf(stderr, "zamboni add-files: %s: %s\n", t.ident,
                    ctx.err.msg[0] ? ctx.err.msg : zb_rc_name(rc));
    }
    code = zb_cli_exit_code(rc);
done:
    zb_buf_free(&out);
    if (owned)
        zb_catalog_free(cat);
    zb_verb_env_close(&env);
    zb_free(a);
    return code;
}
