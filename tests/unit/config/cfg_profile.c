/*
 * Tests of cli/config/profile.c: every key of zamboni.yml, the errors that name
 * the file and line (unknown keys, secrets, bad values, YAML syntax), and
 * truncated, corrupted and allocation-starved parses.
 */
#include <stdio.h>
#include <string.h>

#include "cfg_test.h"
#include "cli/config/profile.h"
#include "zbtest.h"

static zb_profile *parse_ok(const char *text)
{
    zb_profile *p = NULL;
    zb_ctx ctx;
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_profile_parse(&p, &ctx, "z.yml", text, strlen(text)), &ctx);
    return p;
}

static void parse_err(const char *text, const char *want)
{
    zb_profile *p = NULL;
    zb_ctx ctx;
    zb_ctx_init(&ctx);
    ZBT_RC(zb_profile_parse(&p, &ctx, "z.yml", text, strlen(text)),
           ZB_EUSAGE);
    ZBT_CHECK(p == NULL);
    ZBT_EQ_STR(ctx.err.msg, want);
}

/* The example of seed 003, section 2, plus the engine sections. */
static const char full[] =
    "# Catalog connection.\n"
    "uri: https://lakekeeper.internal/catalog\n"
    "warehouse: acme\n"
    "engine: local\n"
    "root: /srv/zamboni\n"
    "operations:\n"
    "  - expire\n"
    "  - compact\n"
    "  - remove-orphans\n"
    "tables:\n"
    "  - acme.events\n"
    "  - acme.raw.clicks\n"
    "trino:\n"
    "  host: trino.internal\n"
    "  port: 8443\n"
    "  user: maint\n"
    "  catalog: iceberg\n"
    "  version: \"483\"\n"
    "spark:\n"
    "  remote: sc://spark:15002\n"
    "  master: local[4]\n"
    "  catalog: lake\n";

static void test_config_profile__every_key(void)
{
    zb_profile *p = parse_ok(full);
    unsigned line;
    size_t n;

    ZBT_EQ_STR(zb_profile_path(p), "z.yml");
    ZBT_EQ_STR(zb_profile_get(p, "uri", &line),
               "https://lakekeeper.internal/catalog");
    ZBT_EQ_INT(line, 2);
    ZBT_EQ_STR(zb_profile_get(p, "warehouse", &line), "acme");
    ZBT_EQ_INT(line, 3);
    ZBT_EQ_STR(zb_profile_get(p, "engine", NULL), "local");
    ZBT_EQ_STR(zb_profile_get(p, "root", NULL), "/srv/zamboni");
    ZBT_EQ_STR(zb_profile_get(p, "trino.host", &line), "trino.internal");
    ZBT_EQ_INT(line, 14);
    ZBT_EQ_STR(zb_profile_get(p, "trino.port", NULL), "8443");
    ZBT_EQ_STR(zb_profile_get(p, "trino.user", NULL), "maint");
    ZBT_EQ_STR(zb_profile_get(p, "trino.catalog", NULL), "iceberg");
    ZBT_EQ_STR(zb_profile_get(p, "trino.version", NULL), "483");
    ZBT_EQ_STR(zb_profile_get(p, "spark.remote", NULL), "sc://spark:15002");
    ZBT_EQ_STR(zb_profile_get(p, "spark.master", NULL), "local[4]");
    ZBT_EQ_STR(zb_profile_get(p, "spark.catalog", &line), "lake");
    ZBT_EQ_INT(line, 22);
    ZBT_CHECK(zb_profile_get(p, "nope", &line) == NULL);
    ZBT_EQ_INT(line, 0);
    /* operations keep the file's order */
    const char *const *ops = zb_profile_operations(p, &n, &line);
    ZBT_EQ_INT(n, 3);
    ZBT_EQ_INT(line, 6);
    ZBT_EQ_STR(ops[0], "expire");
    ZBT_EQ_STR(ops[1], "compact");
    ZBT_EQ_STR(ops[2], "remove-orphans");
    const char *const *tables = zb_profile_tables(p, &n, NULL);
    ZBT_EQ_INT(n, 2);
    ZBT_EQ_STR(tables[1], "acme.raw.clicks");
    zb_profile_free(p);
}

static void test_config_profile__absent_and_null(void)
{
    size_t n = 99;
    zb_profile *p = parse_ok("");
    ZBT_CHECK(zb_profile_get(p, "uri", NULL) == NULL);
    ZBT_CHECK(zb_profile_operations(p, &n, NULL) == NULL);
    ZBT_EQ_INT(n, 0);
    ZBT_CHECK(zb_profile_tables(p, NULL, NULL) == NULL);
    zb_profile_free(p);
    p = parse_ok("# only a comment\n---\n");
    zb_profile_free(p);
    p = parse_ok("uri:\nwarehouse: ~\nengine: null\ntables:\ntrino:\n"
                 "spark: {}\n");
    ZBT_CHECK(zb_profile_get(p, "uri", NULL) == NULL);
    ZBT_CHECK(zb_profile_get(p, "warehouse", NULL) == NULL);
    ZBT_CHECK(zb_profile_get(p, "engine", NULL) == NULL);
    ZBT_CHECK(zb_profile_tables(p, NULL, NULL) == NULL);
    zb_profile_free(p);
    /* flow style and quoting are YAML's business */
    p = parse_ok("{uri: 'sqlite:/tmp/c.db', operations: [compact]}\n");
    ZBT_EQ_STR(zb_profile_get(p, "uri", NULL), "sqlite:/tmp/c.db");
    ZBT_CHECK(zb_profile_operations(p, &n, NULL) != NULL);
    ZBT_EQ_INT(n, 1);
    zb_profile_free(p);
    /* the six operation names */
    p = parse_ok("operations: [compact, apply-properties, "
                 "remove-dangling-deletes, rewrite-manifests, expire, "
                 "remove-orphans]\n");
    const char *const *ops = zb_profile_operations(p, &n, NULL);
    ZBT_EQ_INT(n, 6);
    for (size_t i = 0; i < 6; i++)
        ZBT_EQ_STR(ops[i], zb_profile_operation_names[i]);
    zb_profile_free(p);
}

static void test_config_profile__errors(void)
{
    parse_err("uri: x\ncolour: blue\n",
              "z.yml:2: unknown key 'colour' (known: uri, warehouse, engine, "
              "root, memory_budget_bytes, threads, operations, tables, "
              "trino, spark, s3_endpoint, s3_region, s3_path_style_access, "
              "s3_max_*)");
    parse_err("uri: x\ntoken: abc\n",
              "z.yml:2: 'token' is a secret, and secrets are not allowed in "
              "zamboni.yml: set ZAMBONI_TOKEN in the environment or in .env "
              "(chmod 600)");
    parse_err("credential: id:secret\n",
              "z.yml:1: 'credential' is a secret, and secrets are not "
              "allowed in zamboni.yml: set ZAMBONI_CREDENTIAL in the "
              "environment or in .env (chmod 600)");
    parse_err("s3_secret_access_key: k\n",
              "z.yml:1: 's3_secret_access_key' is a secret, and secrets are "
              "not allowed in zamboni.yml: set ZAMBONI_S3_SECRET_ACCESS_KEY "
              "in the environment or in .env (chmod 600)");
    parse_err("trino:\n  host: h\n  password: p\n",
              "z.yml:3: 'trino.password' is a secret, and secrets are not "
              "allowed in zamboni.yml: set it in the environment or in .env "
              "(chmod 600)");
    parse_err("trino:\n  hots: h\n",
              "z.yml:2: unknown key 'trino.hots' (known in trino: host, "
              "port, user, catalog, version)");
    parse_err("spark:\n  url: x\n",
              "z.yml:2: unknown key 'spark.url' (known in spark: remote, "
              "master, catalog)");
    parse_err("engine: duckdb\n",
              "z.yml:1: engine 'duckdb' is not one of local, spark, trino");
    parse_err("trino:\n  port: 80x\n",
              "z.yml:2: trino.port '80x' is not a port number (1..65535)");
    parse_err("trino:\n  port: 70000\n",
              "z.yml:2: trino.port '70000' is not a port number (1..65535)");
    parse_err("operations:\n  - compact\n  - vacuum\n",
              "z.yml:3: unknown operation 'vacuum' (one of: compact, "
              "apply-properties, remove-dangling-deletes, rewrite-manifests, "
              "expire, remove-orphans)");
    parse_err("operations: [expire, expire]\n",
              "z.yml:1: 'expire' is listed twice in 'operations'");
    parse_err("operations: []\n",
              "z.yml:1: 'operations' is an empty list (omit the key to run "
              "all six)");
    parse_err("operations: compact\n", "z.yml:1: 'operations' must be a list");
    parse_err("tables: [a.b, a.b]\n",
              "z.yml:1: 'a.b' is listed twice in 'tables'");
    parse_err("tables:\n  - [x]\n",
              "z.yml:2: each item of 'tables' must be a non-empty name");
    parse_err("uri: [a, b]\n",
              "z.yml:1: 'uri' must be a single value, not a list");
    parse_err("warehouse:\n  name: x\n",
              "z.yml:2: 'warehouse' must be a single value, not a mapping");
    parse_err("uri: a\nuri: b\n", "z.yml:2: 'uri' is given twice");
    parse_err("trino: 5\n", "z.yml:1: 'trino' must be a mapping of keys");
    parse_err("- uri\n", "z.yml:1: the profile must be a mapping of keys "
              "(uri: ..., warehouse: ...)");
    parse_err("uri: a\n---\nuri: b\n", "z.yml:3: a second YAML document "
              "('---'); the profile is one document");
}

static void test_config_profile__yaml_syntax(void)
{
    /* truncated flow sequence, tab indentation, bad indentation */
    zb_profile *p = NULL;
    zb_ctx ctx;
    static const char *const bad[] = {
        "uri: x\noperations: [compact,\n",
        "uri: x\ntrino:\n\thost: h\n",
        "uri: x\n  warehouse: y\n   bad: [\n",
        "uri: \"open\n",
        "uri: x\n*alias\n",
    };
    static const char *const want[] = {
        "z.yml:3: not valid YAML:",
        "z.yml:3: not valid YAML:",
        "z.yml:2: not valid YAML:",
        "z.yml:2: not valid YAML:",
        "z.yml:3: not valid YAML:",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        zb_ctx_init(&ctx);
        ZBT_RC(zb_profile_parse(&p, &ctx, "z.yml", bad[i], strlen(bad[i])),
               ZB_EUSAGE);
        ZBT_CHECK(p == NULL);
        if (strncmp(ctx.err.msg, want[i], strlen(want[i])) != 0)
            zbt__fail(__FILE__, __LINE__, "case %zu: \"%s\" does not start "
                      "with \"%s\"", i, ctx.err.msg, want[i]);
    }
    static const char nul[] = "uri: a\0b\n";
    zb_ctx_init(&ctx);
    ZBT_RC(zb_profile_parse(&p, &ctx, "z.yml", nul, sizeof(nul) - 1),
           ZB_EUSAGE);
    ZBT_EQ_STR(ctx.err.msg, "z.yml: holds a NUL byte (not a text file)");
}

static int parse_fn(zb_ctx *ctx, const char *name, const char *text,
                    size_t len)
{
    zb_profile *p = NULL;
    int rc = zb_profile_parse(&p, ctx, name, text, len);
    zb_profile_free(p);
    return rc;
}

static void test_config_profile__truncated_and_corrupt(void)
{
    ZBT_EQ_U64(cfg_torture_text(parse_fn, "z.yml", full, ZB_EUSAGE), 0);
    /* an alias bomb is a few nodes for the loader, not an expansion */
    ZBT_EQ_U64(cfg_torture_text(parse_fn, "z.yml",
                                "a: &a [x, x]\nb: &b [*a, *a]\n"
                                "tables: &t [*b, *b]\n", ZB_EUSAGE), 0);
}

static int alloc_fn(zb_ctx *ctx)
{
    zb_profile *p = NULL;
    int rc = zb_profile_parse(&p, ctx, "z.yml", full, strlen(full));
    zb_profile_free(p);
    return rc;
}

static void test_config_profile__alloc_failure(void)
{
    ZBT_CHECK(cfg_torture_alloc(alloc_fn) >= 4);
}

static void test_config_profile__load(void)
{
    char path[512];
    zb_profile *p = NULL;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    snprintf(path, sizeof(path), "%s/zamboni.yml", zbt_tmpdir());
    ZBT_RC(zb_profile_load(&p, &ctx, path), ZB_ENOTFOUND);
    cfg_write(path, "warehouse: w\nbogus: 1\n", 0644);
    ZBT_RC(zb_profile_load(&p, &ctx, path), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "/zamboni.yml:2: unknown key 'bogus'");
    cfg_write(path, "warehouse: w\n", 0644);
    ZBT_OK_CTX(zb_profile_load(&p, &ctx, path), &ctx);
    ZBT_EQ_STR(zb_profile_get(p, "warehouse", NULL), "w");
    ZBT_EQ_STR(zb_profile_path(p), path);
    zb_profile_free(p);
}

/* size_classes: a list of mappings, kept as the JSON text of that list
 * (what ZAMBONI_SIZE_CLASSES holds), and the worker's scalars. */
static void test_config_profile__size_classes(void)
{
    zb_profile *p;
    unsigned line;

    p = parse_ok("warehouse: w\n"
                 "size_classes:\n"
                 "  - name: small\n"
                 "    cores: 1\n"
                 "    memory: 4Gi\n"
                 "    max_jobs: 2\n"
                 "  - {name: large, cores: 4, memory: 17179869184, "
                 "max_jobs: 1}\n"
                 "size_class: large\n"
                 "workers: 2\n"
                 "drain_timeout: 30s\n"
                 "max_lifetime: 1h\n"
                 "idle_exit_after: 0\n"
                 "lease_seconds: 60\n"
                 "heartbeat_seconds: 10\n"
                 "spill_disk_limit_bytes: 1000\n");
    ZBT_EQ_STR(zb_profile_get(p, "size_classes", &line),
               "[{\"name\":\"small\",\"cores\":1,\"memory\":\"4Gi\","
               "\"max_jobs\":2},{\"name\":\"large\",\"cores\":4,"
               "\"memory\":17179869184,\"max_jobs\":1}]");
    ZBT_EQ_INT(line, 2);
    ZBT_EQ_STR(zb_profile_get(p, "size_class", &line), "large");
    ZBT_EQ_INT(line, 8);
    ZBT_EQ_STR(zb_profile_get(p, "workers", NULL), "2");
    ZBT_EQ_STR(zb_profile_get(p, "drain_timeout", NULL), "30s");
    ZBT_EQ_STR(zb_profile_get(p, "max_lifetime", NULL), "1h");
    ZBT_EQ_STR(zb_profile_get(p, "idle_exit_after", NULL), "0");
    ZBT_EQ_STR(zb_profile_get(p, "lease_seconds", NULL), "60");
    ZBT_EQ_STR(zb_profile_get(p, "heartbeat_seconds", NULL), "10");
    ZBT_EQ_STR(zb_profile_get(p, "spill_disk_limit_bytes", NULL), "1000");
    zb_profile_free(p);

    /* null counts as absent; an empty list is kept (the parser refuses
     * it with the variable's rules) */
    p = parse_ok("size_classes:\n");
    ZBT_CHECK(zb_profile_get(p, "size_classes", NULL) == NULL);
    zb_profile_free(p);
    p = parse_ok("size_classes: []\n");
    ZBT_EQ_STR(zb_profile_get(p, "size_classes", NULL), "[]");
    zb_profile_free(p);

    parse_err("size_classes: big\n",
              "z.yml:1: 'size_classes' must be a list of mappings (name, "
              "cores, memory, max_jobs)");
    parse_err("size_classes:\n  - small\n",
              "z.yml:2: each item of 'size_classes' must be a mapping "
              "(name, cores, memory, max_jobs)");
    parse_err("size_classes:\n  - {name: a, colour: red}\n",
              "z.yml:2: unknown key 'colour' in a size class (known: name, "
              "cores, memory, max_jobs)");
    parse_err("size_classes:\n  - {name: a, name: b}\n",
              "z.yml:2: 'name' is given twice in a size class");
    parse_err("size_classes:\n  - {name: a, cores: [1]}\n",
              "z.yml:2: 'cores' of a size class must be a single value");
    parse_err("size_classes: []\nsize_classes: []\n",
              "z.yml:2: 'size_classes' is given twice");
}

const zbt_case test_config_profile[] = {
    ZBT_CASE(test_config_profile__every_key),
    ZBT_CASE(test_config_profile__absent_and_null),
    ZBT_CASE(test_config_profile__errors),
    ZBT_CASE(test_config_profile__yaml_syntax),
    ZBT_CASE(test_config_profile__truncated_and_corrupt),
    ZBT_CASE(test_config_profile__alloc_failure),
    ZBT_CASE(test_config_profile__load),
    ZBT_CASE(test_config_profile__size_classes),
    ZBT_END
};
