/*
 * Tests of cli/config/settings.c: the precedence between every pair of sources
 * (flag, environment, .env, ./zamboni.yml, $ZAMBONI_ROOT/zamboni.yml,
 * default) with the origin of each value, how the root is found, the
 * .env search through the settings, the catalog config from each kind of
 * URI, the table-config path, and the removed secret flags.
 */
#include <stdio.h>
#include <string.h>

#include "cfg_test.h"
#include "cli/config/resources.h"
#include "cli/config/settings.h"
#include "util/buf.h"
#include "zbtest.h"

enum { S_FLAG, S_ENV, S_DOTENV, S_PROFILE, S_ROOT, S_COUNT };
static const char *const src_value[S_COUNT] = { "flag", "env", "dotenv",
                                                "profile", "rootprofile" };

typedef struct fixture {
    char cwd[512], root[512];
    const char *env[16];
    zb_settings_input in;
    cfg_env fake;
} fixture;

static void fixture_init(fixture *f, const char *name)
{
    snprintf(f->cwd, sizeof(f->cwd), "%s/%s/cwd", zbt_tmpdir(), name);
    snprintf(f->root, sizeof(f->root), "%s/%s/root", zbt_tmpdir(), name);
    memset(f->env, 0, sizeof(f->env));
    f->env[0] = "ZAMBONI_ROOT";
    f->env[1] = f->root;
    f->env[2] = "HOME";
    f->env[3] = "/home/nobody";
    zb_settings_input init = ZB_SETTINGS_INPUT_INIT;
    f->in = init;
    f->in.cwd = f->cwd;
    f->fake.pairs = f->env;
    f->in.getenv_fn = cfg_env_get;
    f->in.getenv_payload = &f->fake;
}

static void fixture_env(fixture *f, const char *k, const char *v)
{
    size_t i = 0;
    while (f->env[i] != NULL)
        i += 2;
    f->env[i] = k;
    f->env[i + 1] = v;
}

static void write_in(const char *dir, const char *name, const char *text,
                     unsigned mode)
{
    char p[700];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    cfg_write(p, text, mode);
}

static zb_settings *load_ok(fixture *f)
{
    zb_settings *s = NULL;
    zb_ctx ctx;
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_settings_load(&s, &ctx, &f->in), &ctx);
    return s;
}

static void set_source(fixture *f, int src, const char *key,
                       const char *value)
{
    char line[200];
    switch (src) {
    case S_FLAG:
        f->in.flags[zb_settings_id_for_flag(key)] = value;
        break;
    case S_ENV:
        fixture_env(f, key, value);
        break;
    case S_DOTENV:
        snprintf(line, sizeof(line), "%s=%s\n", key, value);
        write_in(f->cwd, ".env", line, 0600);
        break;
    default:
        snprintf(line, sizeof(line), "%s: %s\n", key, value);
        write_in(src == S_PROFILE ? f->cwd : f->root, "zamboni.yml", line,
                 0644);
    }
}

static void test_config_settings__precedence_every_pair(void)
{
    static const zb_setting_source want_src[S_COUNT] = {
        ZB_SRC_FLAG, ZB_SRC_ENV, ZB_SRC_DOTENV, ZB_SRC_PROFILE,
        ZB_SRC_ROOT_PROFILE
    };
    static const char *const keys[S_COUNT] = {
        "--uri", "ZAMBONI_URI", "ZAMBONI_URI", "uri", "uri"
    };
    int pairs = 0;

    for (int hi = 0; hi < S_COUNT; hi++) {
        for (int lo = hi + 1; lo < S_COUNT; lo++) {
            char name[32];
            fixture f;
            snprintf(name, sizeof(name), "p%d%d", hi, lo);
            fixture_init(&f, name);
            write_in(f.cwd, "keep", "", 0644);   /* the folders exist */
            write_in(f.root, "keep", "", 0644);
            set_source(&f, lo, keys[lo], src_value[lo]);
            set_source(&f, hi, keys[hi], src_value[hi]);
            zb_settings *s = load_ok(&f);
            ZBT_EQ_STR(zb_settings_get(s, ZB_SET_URI), src_value[hi]);
            ZBT_EQ_INT(zb_settings_source(s, ZB_SET_URI), want_src[hi]);
            zb_settings_free(s);
            /* and the lower one alone is used when it is alone */
            fixture_init(&f, name);
            f.in.flags[ZB_SET_URI] = NULL;
            set_source(&f, lo, keys[lo], src_value[lo]);
            if (hi == S_DOTENV || hi == S_PROFILE) {
                char p[700];
                snprintf(p, sizeof(p), "%s/%s", f.cwd,
                         hi == S_DOTENV ? ".env" : "zamboni.yml");
                remove(p);
            }
            s = load_ok(&f);
            ZBT_EQ_STR(zb_settings_get(s, ZB_SET_URI), src_value[lo]);
            ZBT_EQ_INT(zb_settings_source(s, ZB_SET_URI), want_src[lo]);
            zb_settings_free(s);
            pairs++;
        }
    }
    ZBT_EQ_INT(pairs, 10);
}

static void test_config_settings__default_is_last(void)
{
    static const char *const engines[S_COUNT] = { "--engine",
                                                  "ZAMBONI_ENGINE",
                                                  "ZAMBONI_ENGINE", "engine",
                                                  "engine" };
    fixture f;
    fixture_init(&f, "d");
    zb_settings *s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_ENGINE), "local");
    ZBT_EQ_INT(zb_settings_source(s, ZB_SET_ENGINE), ZB_SRC_DEFAULT);
    ZBT_EQ_STR(zb_settings_origin(s, ZB_SET_ENGINE), "default");
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_S3_REGION), "us-east-1");
    ZBT_CHECK(zb_settings_get(s, ZB_SET_URI) == NULL);
    ZBT_EQ_INT(zb_settings_source(s, ZB_SET_URI), ZB_SRC_NONE);
    ZBT_EQ_STR(zb_settings_origin(s, ZB_SET_URI), "");
    zb_settings_free(s);
    for (int src = 0; src < S_COUNT; src++) {
        char name[32];
        snprintf(name, sizeof(name), "d%d", src);
        fixture_init(&f, name);
        set_source(&f, src, engines[src], "spark");
        s = load_ok(&f);
        ZBT_EQ_STR(zb_settings_get(s, ZB_SET_ENGINE), "spark");
        zb_settings_free(s);
    }
    /* a flag of the default value still beats the profile (the Python
     * tool's --engine local could not) */
    fixture_init(&f, "dq");
    set_source(&f, S_PROFILE, "engine", "trino");
    f.in.flags[ZB_SET_ENGINE] = "local";
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_ENGINE), "local");
    ZBT_EQ_STR(zb_settings_origin(s, ZB_SET_ENGINE), "--engine");
    zb_settings_free(s);
}

static void test_config_settings__origins(void)
{
    fixture f;
    char want[800];
    fixture_init(&f, "o");
    write_in(f.cwd, ".env", "# secrets\nZAMBONI_TOKEN=tok\n"
             "ZAMBONI_WAREHOUSE=fromfile\n", 0600);
    write_in(f.cwd, "zamboni.yml", "uri: https://cat\nwarehouse: w\n"
             "trino:\n  port: 8080\n", 0644);
    write_in(f.root, "zamboni.yml", "engine: spark\noperations: [expire]\n"
             "tables: [db.t]\n", 0644);
    fixture_env(&f, "ZAMBONI_SCOPE", "sc");
    f.in.flags[zb_settings_id_for_flag("--db")] = "acme";
    zb_settings *s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_WAREHOUSE), "acme");
    ZBT_EQ_STR(zb_settings_origin(s, ZB_SET_WAREHOUSE), "--warehouse");
    ZBT_EQ_STR(zb_settings_origin(s, ZB_SET_SCOPE),
               "ZAMBONI_SCOPE (environment)");
    snprintf(want, sizeof(want), "ZAMBONI_TOKEN (%s/.env:2)", f.cwd);
    ZBT_EQ_STR(zb_settings_origin(s, ZB_SET_TOKEN), want);
    snprintf(want, sizeof(want), "%s/zamboni.yml:1", f.cwd);
    ZBT_EQ_STR(zb_settings_origin(s, ZB_SET_URI), want);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_TRINO_PORT), "8080");
    snprintf(want, sizeof(want), "%s/zamboni.yml:1", f.root);
    ZBT_EQ_STR(zb_settings_origin(s, ZB_SET_ENGINE), want);
    ZBT_EQ_STR(zb_settings_origin(s, ZB_SET_ROOT),
               "ZAMBONI_ROOT (environment)");
    size_t n;
    const char *origin;
    const char *const *ops = zb_settings_operations(s, &n, &origin);
    ZBT_EQ_INT(n, 1);
    ZBT_EQ_STR(ops[0], "expire");
    snprintf(want, sizeof(want), "%s/zamboni.yml:2", f.root);
    ZBT_EQ_STR(origin, want);
    const char *const *tables = zb_settings_tables(s, &n, &origin);
    ZBT_EQ_INT(n, 1);
    ZBT_EQ_STR(tables[0], "db.t");
    snprintf(want, sizeof(want), "%s/zamboni.yml", f.cwd);
    ZBT_EQ_STR(zb_settings_profile_path(s), want);
    snprintf(want, sizeof(want), "%s/zamboni.yml", f.root);
    ZBT_EQ_STR(zb_settings_root_profile_path(s), want);
    snprintf(want, sizeof(want), "%s/.env", f.cwd);
    ZBT_EQ_STR(zb_settings_dotenv_path(s), want);
    /* describe masks secrets */
    zb_buf b = ZB_BUF_INIT(1 << 16);
    ZBT_EQ_INT(zb_settings_describe(&b, s), ZB_OK);
    ZBT_CONTAINS(b.ptr, "  token                (set)  (ZAMBONI_TOKEN (");
    ZBT_CHECK(strstr(b.ptr, "tok\n") == NULL && strstr(b.ptr, " tok ") == NULL);
    ZBT_CONTAINS(b.ptr, "  warehouse            acme  (--warehouse)\n");
    ZBT_CONTAINS(b.ptr, "  operations           expire  (");
    ZBT_CONTAINS(b.ptr, "  env file             ");
    zb_buf_free(&b);
    zb_settings_free(s);
    /* with no profile lists: all six, by default */
    fixture_init(&f, "o2");
    s = load_ok(&f);
    ops = zb_settings_operations(s, &n, &origin);
    ZBT_EQ_INT(n, 6);
    ZBT_EQ_STR(ops[5], "remove-orphans");
    ZBT_EQ_STR(origin, "default");
    ZBT_CHECK(zb_settings_tables(s, &n, NULL) == NULL);
    ZBT_CHECK(zb_settings_profile_path(s) == NULL);
    ZBT_CHECK(zb_settings_dotenv_path(s) == NULL);
    zb_settings_free(s);
}

static void test_config_settings__oauth_spellings(void)
{
    fixture f;
    fixture_init(&f, "oa");
    fixture_env(&f, "ZAMBONI_OAUTH_SERVER_URI", "https://old/token");
    zb_settings *s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_OAUTH2_SERVER_URI),
               "https://old/token");
    ZBT_EQ_STR(zb_settings_origin(s, ZB_SET_OAUTH2_SERVER_URI),
               "ZAMBONI_OAUTH_SERVER_URI (environment)");
    zb_settings_free(s);
    fixture_env(&f, "ZAMBONI_OAUTH2_SERVER_URI", "https://new/token");
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_OAUTH2_SERVER_URI),
               "https://new/token");
    zb_settings_free(s);
    /* in .env too */
    fixture_init(&f, "oa2");
    write_in(f.cwd, ".env", "ZAMBONI_OAUTH_SERVER_URI=https://f/t\n", 0600);
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_OAUTH2_SERVER_URI), "https://f/t");
    zb_settings_free(s);
}

static void test_config_settings__root(void)
{
    fixture f;
    char want[800];
    zb_settings *s;

    /* default ~/.zamboni with $HOME */
    fixture_init(&f, "r0");
    f.env[0] = "UNRELATED";
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_ROOT), "/home/nobody/.zamboni");
    ZBT_EQ_STR(zb_settings_origin(s, ZB_SET_ROOT), "default");
    zb_settings_free(s);
    /* no HOME: a clear error */
    f.env[2] = "NOT_HOME";
    zb_ctx ctx;
    zb_ctx_init(&ctx);
    ZBT_RC(zb_settings_load(&s, &ctx, &f.in), ZB_EUSAGE);
    ZBT_EQ_STR(ctx.err.msg, "cannot expand '~/.zamboni' (default): HOME is "
               "not set; set ZAMBONI_ROOT to a full path");
    /* root: in ./zamboni.yml picks the root profile and the root .env */
    fixture_init(&f, "r1");
    f.env[0] = "UNRELATED";
    snprintf(want, sizeof(want), "root: %s\n", f.root);
    write_in(f.cwd, "zamboni.yml", want, 0644);
    write_in(f.root, "zamboni.yml", "warehouse: fromroot\nroot: /ignored\n",
             0644);
    write_in(f.root, ".env", "ZAMBONI_TOKEN=roottoken\n", 0600);
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_ROOT), f.root);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_WAREHOUSE), "fromroot");
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_TOKEN), "roottoken");
    zb_settings_free(s);
    /* ZAMBONI_ROOT from ./.env, "~" expanded */
    fixture_init(&f, "r2");
    f.env[0] = "UNRELATED";
    write_in(f.cwd, ".env", "ZAMBONI_ROOT=~/elsewhere\n", 0600);
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_ROOT), "/home/nobody/elsewhere");
    zb_settings_free(s);
    /* the root .env is not read when ./.env was used */
    fixture_init(&f, "r3");
    write_in(f.cwd, ".env", "ZAMBONI_SCOPE=cwd\n", 0600);
    write_in(f.root, ".env", "ZAMBONI_TOKEN=root\n", 0600);
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_SCOPE), "cwd");
    ZBT_CHECK(zb_settings_get(s, ZB_SET_TOKEN) == NULL);
    zb_settings_free(s);
    /* cwd == root: the one zamboni.yml is the profile, read once */
    fixture_init(&f, "r4");
    f.in.cwd = f.root;
    write_in(f.root, "zamboni.yml", "warehouse: same\n", 0644);
    s = load_ok(&f);
    ZBT_EQ_INT(zb_settings_source(s, ZB_SET_WAREHOUSE), ZB_SRC_PROFILE);
    ZBT_CHECK(zb_settings_root_profile_path(s) == NULL);
    zb_settings_free(s);
}

static void test_config_settings__explicit_files(void)
{
    fixture f;
    char p[700];
    zb_settings *s = NULL;
    zb_ctx ctx;

    fixture_init(&f, "x");
    snprintf(p, sizeof(p), "%s/other.yml", f.root);
    write_in(f.cwd, "zamboni.yml", "warehouse: cwd\nuri: u\n", 0644);
    write_in(f.root, "other.yml", "warehouse: other\n", 0644);
    f.in.profile_path = p;
    s = load_ok(&f);
    /* --profile replaces ./zamboni.yml */
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_WAREHOUSE), "other");
    ZBT_CHECK(zb_settings_get(s, ZB_SET_URI) == NULL);
    zb_settings_free(s);
    snprintf(p, sizeof(p), "%s/missing.yml", f.root);
    zb_ctx_init(&ctx);
    ZBT_RC(zb_settings_load(&s, &ctx, &f.in), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "--profile ");
    ZBT_CONTAINS(ctx.err.msg, "missing.yml: no such file");
    f.in.profile_path = NULL;
    /* --env: must exist, mode checked, wins over ./.env */
    write_in(f.cwd, ".env", "ZAMBONI_SCOPE=cwd\n", 0600);
    snprintf(p, sizeof(p), "%s/secrets.env", f.root);
    write_in(f.root, "secrets.env", "ZAMBONI_SCOPE=flag\n", 0644);
    f.in.env_path = p;
    ZBT_RC(zb_settings_load(&s, &ctx, &f.in), ZB_EUSAGE);
    char want[1600];
    snprintf(want, sizeof(want), "%s is readable by group or other (mode "
             "644); it holds secrets: run chmod 600 %s", p, p);
    ZBT_EQ_STR(ctx.err.msg, want);
    write_in(f.root, "secrets.env", "ZAMBONI_SCOPE=flag\n", 0600);
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_SCOPE), "flag");
    zb_settings_free(s);
    /* a bad profile stops everything, with file and line */
    f.in.env_path = NULL;
    write_in(f.cwd, "zamboni.yml", "warehouse: w\npassword: x\n", 0644);
    ZBT_RC(zb_settings_load(&s, &ctx, &f.in), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "/cwd/zamboni.yml:2: 'password' is a secret");
}

static void test_config_settings__bad_values(void)
{
    fixture f;
    zb_settings *s = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    fixture_init(&f, "b");
    fixture_env(&f, "ZAMBONI_ENGINE", "duckdb");
    ZBT_RC(zb_settings_load(&s, &ctx, &f.in), ZB_EUSAGE);
    ZBT_EQ_STR(ctx.err.msg, "engine 'duckdb' (ZAMBONI_ENGINE (environment)) "
               "is not one of local, spark, trino");
    fixture_init(&f, "b");
    f.in.flags[ZB_SET_TRINO_PORT] = "0";
    ZBT_RC(zb_settings_load(&s, &ctx, &f.in), ZB_EUSAGE);
    ZBT_EQ_STR(ctx.err.msg, "trino_port '0' (--trino-port) must be a whole "
               "number from 1 to 65535");
    fixture_init(&f, "b");
    fixture_env(&f, "ZAMBONI_PG_READ_POOL", "lots");
    ZBT_RC(zb_settings_load(&s, &ctx, &f.in), ZB_EUSAGE);
    ZBT_EQ_STR(ctx.err.msg, "pg_read_pool 'lots' (ZAMBONI_PG_READ_POOL "
               "(environment)) must be a whole number from 1 to 1000");
    /* an empty variable counts as unset */
    fixture_init(&f, "b");
    fixture_env(&f, "ZAMBONI_ENGINE", "");
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_ENGINE), "local");
    zb_settings_free(s);
}

/* memory_budget_bytes and threads from each source, in the resolution of
 * cli/config/resources.h, and their bad values naming the source. */
static void test_config_settings__budget_and_threads(void)
{
    static const char *const budget_key[S_COUNT] = {
        "--memory-budget-bytes", "ZAMBONI_MEMORY_BUDGET_BYTES",
        "ZAMBONI_MEMORY_BUDGET_BYTES", "memory_budget_bytes",
        "memory_budget_bytes"
    };
    static const char *const threads_key[S_COUNT] = {
        "--threads", "ZAMBONI_THREADS", "ZAMBONI_THREADS", "threads",
        "threads"
    };
    static const char *const budgets[S_COUNT] = { "1000", "2000", "3000",
                                                  "4000", "5000" };
    static const char *const threads[S_COUNT] = { "1", "2", "3", "4", "5" };
    zb_sys_limits l;
    zb_resources r;
    zb_settings *s = NULL;
    zb_ctx ctx;

    memset(&l, 0, sizeof l);
    l.mem_limit_bytes = (uint64_t)1 << 30;
    l.cores = 7;
    for (int src = 0; src < S_COUNT; src++) {
        char name[16];
        fixture f;

        snprintf(name, sizeof(name), "bt%d", src);
        fixture_init(&f, name);
        write_in(f.cwd, "keep", "", 0644);
        write_in(f.root, "keep", "", 0644);
        if (src == S_DOTENV || src >= S_PROFILE) {
            /* one file holds both keys */
            char text[200], path[700];
            const char *dir = src == S_ROOT ? f.root : f.cwd;
            snprintf(text, sizeof(text),
                     src == S_DOTENV ? "%s=%s\n%s=%s\n" : "%s: %s\n%s: %s\n",
                     budget_key[src], budgets[src], threads_key[src],
                     threads[src]);
            snprintf(path, sizeof(path), "%s/%s", dir,
                     src == S_DOTENV ? ".env" : "zamboni.yml");
            cfg_write(path, text, src == S_DOTENV ? 0600 : 0644);
        } else {
            set_source(&f, src, budget_key[src], budgets[src]);
            set_source(&f, src, threads_key[src], threads[src]);
        }
        s = load_ok(&f);
        zb_resources_resolve(&r, s, &l);
        ZBT_EQ_U64(r.budget_bytes, (uint64_t)(src + 1) * 1000);
        ZBT_EQ_INT(r.threads, src + 1);
        ZBT_EQ_STR(r.budget_source,
                   zb_settings_origin(s, ZB_SET_MEMORY_BUDGET_BYTES));
        ZBT_EQ_STR(r.threads_source, zb_settings_origin(s, ZB_SET_THREADS));
        ZBT_EQ_INT(r.no_mem_limit, 0);
        zb_settings_free(s);
    }
    /* nothing given: the limits */
    {
        fixture f;

        fixture_init(&f, "btd");
        s = load_ok(&f);
        zb_resources_resolve(&r, s, &l);
        ZBT_EQ_U64(r.budget_bytes, ((uint64_t)1 << 30) - (256u << 20));
        ZBT_EQ_INT(r.no_mem_limit, 1);
        ZBT_EQ_INT(r.threads, 7);
        ZBT_CONTAINS(r.threads_source, "cores rule");
        zb_settings_free(s);
        /* 0 disables the budget */
        fixture_init(&f, "btd");
        fixture_env(&f, "ZAMBONI_MEMORY_BUDGET_BYTES", "0");
        s = load_ok(&f);
        zb_resources_resolve(&r, s, &l);
        ZBT_EQ_U64(r.budget_bytes, 0);
        ZBT_EQ_STR(r.budget_source, "ZAMBONI_MEMORY_BUDGET_BYTES "
                                    "(environment); 0: no budget");
        zb_settings_free(s);
    }
    /* bad values: exit 2 (ZB_EUSAGE), the message naming the source */
    {
        static const struct {
            const char *flag_budget, *env_threads, *yml, *msg;
        } bad[] = {
            { "12x", NULL, NULL, "memory_budget_bytes '12x' "
              "(--memory-budget-bytes) must be a whole number from 0 to "
              "1152921504606846976" },
            { "-1", NULL, NULL, "memory_budget_bytes '-1' "
              "(--memory-budget-bytes) must be a whole number" },
            { NULL, "0", NULL, "threads '0' (ZAMBONI_THREADS (environment)) "
              "must be a whole number from 1 to 256" },
            { NULL, "257", NULL, "threads '257' (ZAMBONI_THREADS "
              "(environment)) must be a whole number from 1 to 256" },
            { NULL, NULL, "memory_budget_bytes: lots\n", "memory_budget_bytes "
              "'lots' (" },
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            fixture f;

            fixture_init(&f, "btb");
            write_in(f.cwd, "keep", "", 0644);
            f.in.flags[ZB_SET_MEMORY_BUDGET_BYTES] = bad[i].flag_budget;
            if (bad[i].env_threads)
                fixture_env(&f, "ZAMBONI_THREADS", bad[i].env_threads);
            {
                char path[700];
                snprintf(path, sizeof(path), "%s/zamboni.yml", f.cwd);
                if (bad[i].yml)
                    cfg_write(path, bad[i].yml, 0644);
                else
                    remove(path);
            }
            zb_ctx_init(&ctx);
            s = NULL;
            ZBT_RC(zb_settings_load(&s, &ctx, &f.in), ZB_EUSAGE);
            ZBT_CONTAINS(ctx.err.msg, bad[i].msg);
            if (bad[i].yml)
                ZBT_CONTAINS(ctx.err.msg, "/zamboni.yml:1)");
            ZBT_CHECK(s == NULL);
        }
    }
}

/* spill_compression: auto by default, from the environment or the
   profile, anything else refused naming its source. */
static void test_config_settings__spill_compression(void)
{
    zb_settings *s = NULL;
    zb_ctx ctx;
    fixture f;

    fixture_init(&f, "spc1");
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_SPILL_COMPRESSION), "auto");
    zb_settings_free(s);
    fixture_init(&f, "spc2");
    fixture_env(&f, "ZAMBONI_SPILL_COMPRESSION", "always");
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_SPILL_COMPRESSION), "always");
    zb_settings_free(s);
    fixture_init(&f, "spc3");
    write_in(f.cwd, "zamboni.yml", "spill_compression: never\n", 0644);
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_SPILL_COMPRESSION), "never");
    zb_settings_free(s);
    fixture_init(&f, "spc4");
    fixture_env(&f, "ZAMBONI_SPILL_COMPRESSION", "lz4");
    zb_ctx_init(&ctx);
    s = NULL;
    ZBT_RC(zb_settings_load(&s, &ctx, &f.in), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "spill_compression 'lz4' (ZAMBONI_SPILL_"
                              "COMPRESSION (environment)) is not one of "
                              "auto, always, never");
    ZBT_CHECK(s == NULL);
}

static zb_catalog_config catalog_for(fixture *f, const char *uri,
                                     zb_settings **s)
{
    zb_catalog_config cfg;
    zb_ctx ctx;
    zb_ctx_init(&ctx);
    f->in.flags[ZB_SET_URI] = uri;
    *s = load_ok(f);
    ZBT_OK_CTX(zb_settings_catalog_config(&cfg, &ctx, *s), &ctx);
    return cfg;
}

static void test_config_settings__catalog_config(void)
{
    fixture f;
    zb_settings *s;
    zb_catalog_config c;
    char want[800];

    fixture_init(&f, "c");
    f.in.flags[ZB_SET_WAREHOUSE] = "acme";
    c = catalog_for(&f, NULL, &s);
    ZBT_EQ_INT(c.version, ZB_CATALOG_CONFIG_VERSION);
    ZBT_EQ_INT(c.kind, ZB_CATALOG_SQLITE);
    snprintf(want, sizeof(want), "%s/catalog.db", f.root);
    ZBT_EQ_STR(c.sqlite_path, want);
    ZBT_EQ_STR(c.warehouse, "acme");
    ZBT_EQ_STR(c.name, "acme");
    snprintf(want, sizeof(want), "%s/warehouses/acme", f.root);
    ZBT_EQ_STR(c.warehouse_location, want);
    zb_settings_free(s);
    c = catalog_for(&f, "sqlite:", &s);
    snprintf(want, sizeof(want), "%s/catalog.db", f.root);
    ZBT_EQ_STR(c.sqlite_path, want);
    zb_settings_free(s);
    c = catalog_for(&f, "sqlite:/data/cat.db", &s);
    ZBT_EQ_INT(c.kind, ZB_CATALOG_SQLITE);
    ZBT_EQ_STR(c.sqlite_path, "/data/cat.db");
    zb_settings_free(s);
    c = catalog_for(&f, "sqlite:////abs/cat.db", &s);
    ZBT_EQ_STR(c.sqlite_path, "/abs/cat.db");
    zb_settings_free(s);
    c = catalog_for(&f, "sqlite:///rel/cat.db", &s);
    ZBT_EQ_STR(c.sqlite_path, "rel/cat.db");
    zb_settings_free(s);
    c = catalog_for(&f, "sqlite:~/c.db", &s);
    ZBT_EQ_STR(c.sqlite_path, "/home/nobody/c.db");
    zb_settings_free(s);
    /* --local-warehouse moves new tables */
    f.in.flags[ZB_SET_LOCAL_WAREHOUSE] = "/lake";
    c = catalog_for(&f, NULL, &s);
    ZBT_EQ_STR(c.warehouse_location, "/lake");
    zb_settings_free(s);
    f.in.flags[ZB_SET_LOCAL_WAREHOUSE] = NULL;
    /* PostgreSQL: the write URL, a read URL and pools from the env */
    fixture_env(&f, "ZAMBONI_PG_READ_URL", "postgresql://replica/db");
    fixture_env(&f, "ZAMBONI_PG_WRITE_POOL", "4");
    c = catalog_for(&f, "postgresql://u@primary/db", &s);
    ZBT_EQ_INT(c.kind, ZB_CATALOG_POSTGRES);
    ZBT_EQ_STR(c.pg_write_url, "postgresql://u@primary/db");
    ZBT_EQ_STR(c.pg_read_url, "postgresql://replica/db");
    ZBT_EQ_INT(c.pg_write_pool, 4);
    ZBT_EQ_INT(c.pg_read_pool, 2);
    ZBT_EQ_STR(c.warehouse, "acme");
    zb_settings_free(s);
    c = catalog_for(&f, "postgresql+psycopg2://u@h:5433/db", &s);
    ZBT_EQ_STR(c.pg_write_url, "postgresql://u@h:5433/db");
    zb_settings_free(s);
    c = catalog_for(&f, "postgres://h/db", &s);
    ZBT_EQ_INT(c.kind, ZB_CATALOG_POSTGRES);
    ZBT_EQ_STR(c.pg_write_url, "postgresql://h/db");
    zb_settings_free(s);
    /* REST, with secrets from the environment */
    fixture_env(&f, "ZAMBONI_CREDENTIAL", "id:secret");
    fixture_env(&f, "ZAMBONI_SCOPE", "PRINCIPAL_ROLE:ALL");
    c = catalog_for(&f, "https://cat.internal/catalog", &s);
    ZBT_EQ_INT(c.kind, ZB_CATALOG_REST);
    ZBT_EQ_STR(c.uri, "https://cat.internal/catalog");
    ZBT_EQ_STR(c.credential, "id:secret");
    ZBT_EQ_STR(c.scope, "PRINCIPAL_ROLE:ALL");
    ZBT_CHECK(c.token == NULL && c.sqlite_path == NULL);
    zb_settings_free(s);
    c = catalog_for(&f, "http://localhost:8181", &s);
    ZBT_EQ_INT(c.kind, ZB_CATALOG_REST);
    zb_settings_free(s);
    /* what no catalog speaks */
    static const char *const bad[] = { "thrift://hms:9083", "sqlite://x",
                                       "httpx://a", "postgresqlx://a" };
    for (size_t i = 0; i < 4; i++) {
        zb_ctx ctx;
        zb_ctx_init(&ctx);
        f.in.flags[ZB_SET_URI] = bad[i];
        s = load_ok(&f);
        ZBT_RC(zb_settings_catalog_config(&c, &ctx, s), ZB_EUSAGE);
        ZBT_CONTAINS(ctx.err.msg, bad[i]);
        ZBT_CONTAINS(ctx.err.msg, "(--uri)");
        zb_settings_free(s);
    }
}

static void test_config_settings__table_config_path(void)
{
    fixture f;
    zb_settings *s;
    zb_buf b = ZB_BUF_INIT(4096);
    zb_ctx ctx;
    char want[800];

    zb_ctx_init(&ctx);
    fixture_init(&f, "t");
    s = load_ok(&f);
    ZBT_RC(zb_settings_table_config_path(&b, &ctx, s), ZB_EUSAGE);
    ZBT_EQ_STR(ctx.err.msg, "no warehouse: give --warehouse (or --db), "
               "ZAMBONI_WAREHOUSE or warehouse: in zamboni.yml");
    zb_settings_free(s);
    f.in.flags[ZB_SET_WAREHOUSE] = "acme";
    s = load_ok(&f);
    ZBT_OK_CTX(zb_settings_table_config_path(&b, &ctx, s), &ctx);
    snprintf(want, sizeof(want), "%s/configs/acme/table-config.json", f.root);
    ZBT_EQ_STR(b.ptr, want);
    zb_settings_free(s);
    static const char *const bad[] = { "..", "a/b", "." };
    for (size_t i = 0; i < 3; i++) {
        f.in.flags[ZB_SET_WAREHOUSE] = bad[i];
        s = load_ok(&f);
        ZBT_RC(zb_settings_table_config_path(&b, &ctx, s), ZB_EUSAGE);
        ZBT_CONTAINS(ctx.err.msg, "is not a plain name");
        zb_settings_free(s);
    }
    zb_buf_free(&b);
}

static void test_config_settings__removed_flags(void)
{
    zb_ctx ctx;
    zb_ctx_init(&ctx);
    ZBT_RC(zb_settings_removed_flag(&ctx, "--token"), ZB_EUSAGE);
    ZBT_EQ_STR(ctx.err.msg, "--token was removed: a secret on the command "
               "line is visible to other users (ps, shell history). Set "
               "ZAMBONI_TOKEN in the environment or in a .env file "
               "(chmod 600)");
    ZBT_RC(zb_settings_removed_flag(&ctx, "--credential=id:s"), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "--credential was removed: ");
    ZBT_CONTAINS(ctx.err.msg, "Set ZAMBONI_CREDENTIAL ");
    ZBT_RC(zb_settings_removed_flag(&ctx, "--s3-secret-access-key"),
           ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "Set ZAMBONI_S3_SECRET_ACCESS_KEY ");
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_settings_removed_flag(&ctx, "--tokens"), &ctx);
    ZBT_OK_CTX(zb_settings_removed_flag(&ctx, "--uri"), &ctx);
    /* and none of them resolves from a flag */
    ZBT_EQ_INT(zb_settings_id_for_flag("--token"), -1);
    ZBT_CHECK(zb_settings_flag_name(ZB_SET_TOKEN) == NULL);
    ZBT_CHECK(zb_settings_is_secret(ZB_SET_TOKEN));
    ZBT_CHECK(!zb_settings_is_secret(ZB_SET_URI));
    ZBT_EQ_INT(zb_settings_id_for_flag("--db"), ZB_SET_WAREHOUSE);
    ZBT_EQ_INT(zb_settings_id_for_flag("--s3-region"), ZB_SET_S3_REGION);
    ZBT_EQ_STR(zb_settings_env_name(ZB_SET_OAUTH2_SERVER_URI),
               "ZAMBONI_OAUTH2_SERVER_URI");
    ZBT_EQ_STR(zb_settings_key_name(ZB_SET_TRINO_PORT), "trino_port");
    ZBT_EQ_STR(zb_settings_default(ZB_SET_ENGINE), "local");
}

/* The S3 settings (issue 16): region's AWS_* fallback below the profile,
 * path style as true/false/auto, the retry bounds validated, the session
 * token a secret that zamboni.yml refuses. */
static void test_config_settings__s3(void)
{
    fixture f;
    zb_settings *s = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    fixture_init(&f, "s3a");
    s = load_ok(&f);
    ZBT_EQ_INT(zb_settings_s3_path_style(s), -1);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_S3_REGION), "us-east-1");
    ZBT_CHECK(!zb_settings_given(s, ZB_SET_S3_REGION));
    zb_settings_free(s);
    /* AWS_DEFAULT_REGION, then AWS_REGION over it */
    fixture_init(&f, "s3b");
    fixture_env(&f, "AWS_DEFAULT_REGION", "eu-west-3");
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_S3_REGION), "eu-west-3");
    ZBT_EQ_STR(zb_settings_origin(s, ZB_SET_S3_REGION),
               "AWS_DEFAULT_REGION (environment)");
    zb_settings_free(s);
    fixture_env(&f, "AWS_REGION", "eu-north-1");
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_S3_REGION), "eu-north-1");
    ZBT_EQ_INT(zb_settings_source(s, ZB_SET_S3_REGION), ZB_SRC_AWS_ENV);
    ZBT_CHECK(!zb_settings_given(s, ZB_SET_S3_REGION));
    zb_settings_free(s);
    /* the profile beats AWS_REGION, ZAMBONI_S3_REGION beats the profile */
    write_in(f.cwd, "zamboni.yml", "s3_region: ap-south-1\n"
             "s3_path_style_access: true\ns3_max_attempts: 3\n", 0644);
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_S3_REGION), "ap-south-1");
    ZBT_CHECK(zb_settings_given(s, ZB_SET_S3_REGION));
    ZBT_EQ_INT(zb_settings_s3_path_style(s), 1);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_S3_MAX_ATTEMPTS), "3");
    zb_settings_free(s);
    fixture_env(&f, "ZAMBONI_S3_REGION", "us-west-2");
    fixture_env(&f, "ZAMBONI_S3_PATH_STYLE_ACCESS", "false");
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_S3_REGION), "us-west-2");
    ZBT_EQ_INT(zb_settings_s3_path_style(s), 0);
    zb_settings_free(s);
    /* bad values name the setting and where it came from */
    fixture_init(&f, "s3c");
    f.in.flags[ZB_SET_S3_PATH_STYLE_ACCESS] = "yes";
    ZBT_RC(zb_settings_load(&s, &ctx, &f.in), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "s3_path_style_access 'yes' "
                 "(--s3-path-style-access) must be true or false");
    fixture_init(&f, "s3c");
    fixture_env(&f, "ZAMBONI_S3_MAX_ATTEMPTS", "0");
    ZBT_RC(zb_settings_load(&s, &ctx, &f.in), ZB_EUSAGE);
    ZBT_EQ_STR(ctx.err.msg, "s3_max_attempts '0' (ZAMBONI_S3_MAX_ATTEMPTS "
               "(environment)) must be a whole number from 1 to 100");
    fixture_init(&f, "s3c");
    f.in.flags[ZB_SET_S3_MAX_RETRY_SECONDS] = "-5";
    ZBT_RC(zb_settings_load(&s, &ctx, &f.in), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "s3_max_retry_seconds '-5' "
                 "(--s3-max-retry-seconds) must be a whole number");
    /* the multipart threshold: flag, ZAMBONI_*, zamboni.yml, in order */
    fixture_init(&f, "s3e");
    write_in(f.cwd, "zamboni.yml", "s3_multipart_threshold_bytes: 1048576\n",
             0644);
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_S3_MULTIPART_THRESHOLD_BYTES),
               "1048576");
    ZBT_CONTAINS(zb_settings_origin(s, ZB_SET_S3_MULTIPART_THRESHOLD_BYTES),
                 "zamboni.yml");
    zb_settings_free(s);
    fixture_env(&f, "ZAMBONI_S3_MULTIPART_THRESHOLD_BYTES", "2048");
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_S3_MULTIPART_THRESHOLD_BYTES),
               "2048");
    zb_settings_free(s);
    f.in.flags[ZB_SET_S3_MULTIPART_THRESHOLD_BYTES] = "5368709120";
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_S3_MULTIPART_THRESHOLD_BYTES),
               "5368709120");
    zb_settings_free(s);
    f.in.flags[ZB_SET_S3_MULTIPART_THRESHOLD_BYTES] = "5368709121";
    ZBT_RC(zb_settings_load(&s, &ctx, &f.in), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "s3_multipart_threshold_bytes '5368709121' "
                 "(--s3-multipart-threshold-bytes) must be a whole number "
                 "from 1 to 5368709120");
    /* the session token: a secret, from the environment, never the file */
    fixture_init(&f, "s3d");
    fixture_env(&f, "ZAMBONI_S3_SESSION_TOKEN", "sess-xyz");
    s = load_ok(&f);
    ZBT_CHECK(zb_settings_is_secret(ZB_SET_S3_SESSION_TOKEN));
    ZBT_CHECK(zb_settings_flag_name(ZB_SET_S3_SESSION_TOKEN) == NULL);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_S3_SESSION_TOKEN), "sess-xyz");
    zb_buf d = ZB_BUF_INIT(1 << 16);
    ZBT_RC(zb_settings_describe(&d, s), ZB_OK);
    ZBT_CHECK(strstr(zb_buf_cstr(&d), "sess-xyz") == NULL);
    ZBT_CONTAINS(zb_buf_cstr(&d), "s3_session_token");
    zb_buf_free(&d);
    zb_settings_free(s);
    write_in(f.cwd, "zamboni.yml", "s3_session_token: abc\n", 0644);
    ZBT_RC(zb_settings_load(&s, &ctx, &f.in), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "'s3_session_token' is a secret");
    ZBT_CONTAINS(ctx.err.msg, "set ZAMBONI_S3_SESSION_TOKEN");
}

/* size_classes: from zamboni.yml as JSON text; ZAMBONI_SIZE_CLASSES wins. */
static void test_config_settings__size_classes(void)
{
    fixture f;
    zb_settings *s;

    fixture_init(&f, "size_classes");
    write_in(f.cwd, "zamboni.yml",
             "size_classes:\n  - {name: a, cores: 1, memory: 1Gi, "
             "max_jobs: 1}\n", 0644);
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_SIZE_CLASSES),
               "[{\"name\":\"a\",\"cores\":1,\"memory\":\"1Gi\","
               "\"max_jobs\":1}]");
    ZBT_CONTAINS(zb_settings_origin(s, ZB_SET_SIZE_CLASSES), "zamboni.yml:1");
    zb_settings_free(s);
    fixture_env(&f, "ZAMBONI_SIZE_CLASSES", "[{\"name\":\"b\"}]");
    s = load_ok(&f);
    ZBT_EQ_STR(zb_settings_get(s, ZB_SET_SIZE_CLASSES), "[{\"name\":\"b\"}]");
    ZBT_EQ_STR(zb_settings_origin(s, ZB_SET_SIZE_CLASSES),
               "ZAMBONI_SIZE_CLASSES (environment)");
    zb_settings_free(s);
}

static fixture alloc_fixture;

static int alloc_fn(zb_ctx *ctx)
{
    zb_settings *s = NULL;
    zb_catalog_config c;
    int rc = zb_settings_load(&s, ctx, &alloc_fixture.in);
    if (rc == ZB_OK)
        rc = zb_settings_catalog_config(&c, ctx, s);
    zb_settings_free(s);
    return rc;
}

static void test_config_settings__alloc_failure(void)
{
    fixture *f = &alloc_fixture;
    fixture_init(f, "a");
    write_in(f->cwd, ".env", "ZAMBONI_TOKEN=t\n", 0600);
    write_in(f->cwd, "zamboni.yml", "warehouse: w\noperations: [expire]\n",
             0644);
    write_in(f->root, "zamboni.yml", "uri: postgres://h/db\ntables: [a.b]\n",
             0644);
    ZBT_CHECK(cfg_torture_alloc(alloc_fn) >= 10);
}

const zbt_case test_config_settings[] = {
    ZBT_CASE(test_config_settings__precedence_every_pair),
    ZBT_CASE(test_config_settings__default_is_last),
    ZBT_CASE(test_config_settings__origins),
    ZBT_CASE(test_config_settings__oauth_spellings),
    ZBT_CASE(test_config_settings__root),
    ZBT_CASE(test_config_settings__explicit_files),
    ZBT_CASE(test_config_settings__bad_values),
    ZBT_CASE(test_config_settings__budget_and_threads),
    ZBT_CASE(test_config_settings__spill_compression),
    ZBT_CASE(test_config_settings__catalog_config),
    ZBT_CASE(test_config_settings__table_config_path),
    ZBT_CASE(test_config_settings__removed_flags),
    ZBT_CASE(test_config_settings__s3),
    ZBT_CASE(test_config_settings__size_classes),
    ZBT_CASE(test_config_settings__alloc_failure),
    ZBT_END
};
