/*
 * Tests of cli/config/dotenv.c: the syntax (export, quotes, escapes, comments,
 * blank lines, CRLF, multi-line values), errors naming the file and line,
 * the ZAMBONI_* filter, the mode check and the search order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfg_test.h"
#include "cli/config/dotenv.h"
#include "zbtest.h"

static zb_dotenv *parse_ok(const char *text)
{
    zb_dotenv *d = NULL;
    zb_ctx ctx;
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_dotenv_parse(&d, &ctx, "t.env", text, strlen(text)), &ctx);
    return d;
}

static void parse_err(const char *text, const char *want)
{
    zb_dotenv *d = NULL;
    zb_ctx ctx;
    zb_ctx_init(&ctx);
    ZBT_RC(zb_dotenv_parse(&d, &ctx, "t.env", text, strlen(text)),
           ZB_EUSAGE);
    ZBT_CHECK(d == NULL);
    ZBT_EQ_STR(ctx.err.msg, want);
}

static void test_config_dotenv__syntax(void)
{
    zb_dotenv *d = parse_ok(
        "# comment line\n"
        "\n"
        "ZAMBONI_URI=https://cat/x\n"
        "export ZAMBONI_WAREHOUSE = acme  \n"
        "   ZAMBONI_SCOPE=catalog # trailing comment\n"
        "ZAMBONI_TOKEN=abc#def\n"
        "ZAMBONI_CREDENTIAL='id:se#cret \\n'  # c\n"
        "ZAMBONI_S3_REGION=\"eu\\t\\\"1\\\"\\\\\\$\"\n"
        "ZAMBONI_TRINO_USER=\"multi\nline\"\n"
        "ZAMBONI_TRINO_HOST=\r\n"
        "ZAMBONI_SPARK_MASTER=local[2]\r\n"
        "OTHER_TOOL=x\n"
        "export\tZAMBONI_ENGINE=spark\n"
        "ZAMBONI_URI=https://cat/y\n");
    ZBT_EQ_STR(zb_dotenv_path(d), "t.env");
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_URI"), "https://cat/y");
    ZBT_EQ_INT(zb_dotenv_line(d, "ZAMBONI_URI"), 15);
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_WAREHOUSE"), "acme");
    ZBT_EQ_INT(zb_dotenv_line(d, "ZAMBONI_WAREHOUSE"), 4);
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_SCOPE"), "catalog");
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_TOKEN"), "abc#def");
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_CREDENTIAL"), "id:se#cret \\n");
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_S3_REGION"), "eu\t\"1\"\\$");
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_TRINO_USER"), "multi\nline");
    ZBT_EQ_INT(zb_dotenv_line(d, "ZAMBONI_TRINO_HOST"), 11);
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_TRINO_HOST"), "");
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_SPARK_MASTER"), "local[2]");
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_ENGINE"), "spark");
    /* only ZAMBONI_* keys load */
    ZBT_CHECK(zb_dotenv_get(d, "OTHER_TOOL") == NULL);
    ZBT_EQ_INT(zb_dotenv_count(d), 11);
    ZBT_EQ_STR(zb_dotenv_key(d, 0), "ZAMBONI_URI");
    ZBT_EQ_STR(zb_dotenv_value(d, 0), "https://cat/x");
    ZBT_CHECK(zb_dotenv_key(d, 11) == NULL);
    zb_dotenv_free(d);

    d = parse_ok("");
    ZBT_EQ_INT(zb_dotenv_count(d), 0);
    zb_dotenv_free(d);
    d = parse_ok("ZAMBONI_A=1");   /* no final newline */
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_A"), "1");
    ZBT_CHECK(zb_dotenv_get(d, "ZAMBONI_") == NULL);
    zb_dotenv_free(d);
}

static void test_config_dotenv__errors(void)
{
    parse_err("ZAMBONI_A=1\nnot an assignment\n",
              "t.env:2: expected '=' after the key");
    parse_err("\n\n=value\n", "t.env:3: expected KEY=VALUE (a key is "
              "letters, digits and '_', not starting with a digit)");
    parse_err("1ZAMBONI=x\n", "t.env:1: expected KEY=VALUE (a key is "
              "letters, digits and '_', not starting with a digit)");
    parse_err("ZAMBONI_A=1\nZAMBONI_B=\"open\n\nstill open\n",
              "t.env:2: unterminated double quote");
    parse_err("ZAMBONI_B='x\n", "t.env:1: unterminated single quote");
    parse_err("ZAMBONI_A='x' y\n", "t.env:1: unexpected text after the value");
    parse_err("ZAMBONI_A=\"x\"\"y\"\n",
              "t.env:1: unexpected text after the value");
    parse_err("ZAMBONI_A=1\nZAMBONI_B=\"a\nb\"\nZAMBONI_C\n",
              "t.env:4: expected '=' after the key");
    parse_err("export\n", "t.env:1: expected '=' after the key");
    {
        static const char nul[] = "ZAMBONI_A=1\nZAMBONI_B=\0x\n";
        zb_dotenv *d = NULL;
        zb_ctx ctx;
        zb_ctx_init(&ctx);
        ZBT_RC(zb_dotenv_parse(&d, &ctx, "t.env", nul, sizeof(nul) - 1),
               ZB_EUSAGE);
        ZBT_EQ_STR(ctx.err.msg, "t.env:2: NUL byte (not a text file)");
    }
}

static int parse_fn(zb_ctx *ctx, const char *name, const char *text,
                    size_t len)
{
    zb_dotenv *d = NULL;
    int rc = zb_dotenv_parse(&d, ctx, name, text, len);
    zb_dotenv_free(d);
    return rc;
}

static void test_config_dotenv__truncated_and_corrupt(void)
{
    ZBT_EQ_U64(cfg_torture_text(parse_fn, "t.env",
                                "# secrets\nexport ZAMBONI_TOKEN='a b'\n"
                                "ZAMBONI_URI=\"https://x/\\\"y\"  # c\n"
                                "ZAMBONI_SCOPE=catalog\n", ZB_EUSAGE), 0);
}

static int alloc_fn(zb_ctx *ctx)
{
    static const char text[] = "ZAMBONI_A=1\nZAMBONI_B=\"two\"\nX=3\n"
                               "ZAMBONI_C='three'\n";
    zb_dotenv *d = NULL;
    int rc = zb_dotenv_parse(&d, ctx, "t.env", text, sizeof(text) - 1);
    zb_dotenv_free(d);
    return rc;
}

static void test_config_dotenv__alloc_failure(void)
{
    ZBT_CHECK(cfg_torture_alloc(alloc_fn) >= 4);
}

static void test_config_dotenv__mode(void)
{
    char path[512];
    zb_dotenv *d = NULL;
    zb_ctx ctx;
    char want[1200];

    snprintf(path, sizeof(path), "%s/.env", zbt_tmpdir());
    cfg_write(path, "ZAMBONI_TOKEN=t\n", 0644);
    zb_ctx_init(&ctx);
    ZBT_RC(zb_dotenv_load(&d, &ctx, path), ZB_EUSAGE);
    ZBT_CHECK(d == NULL);
    snprintf(want, sizeof(want), "%s is readable by group or other (mode "
             "644); it holds secrets: run chmod 600 %s", path, path);
    ZBT_EQ_STR(ctx.err.msg, want);
    /* any group or other bit, even without read */
    static const unsigned modes[] = { 0640, 0604, 0620, 0602, 0610, 0601 };
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        ZBT_CHECK(chmod(path, modes[i]) == 0);
        zb_ctx_init(&ctx);
        ZBT_RC(zb_dotenv_check_mode(&ctx, path), ZB_EUSAGE);
        ZBT_CONTAINS(ctx.err.msg, "is readable by group or other (mode 6");
    }
    ZBT_CHECK(chmod(path, 0600) == 0);
    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_dotenv_load(&d, &ctx, path), &ctx);
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_TOKEN"), "t");
    zb_dotenv_free(d);
    ZBT_CHECK(chmod(path, 0400) == 0);
    ZBT_OK_CTX(zb_dotenv_check_mode(&ctx, path), &ctx);
    snprintf(path, sizeof(path), "%s/missing.env", zbt_tmpdir());
    ZBT_RC(zb_dotenv_load(&d, &ctx, path), ZB_ENOTFOUND);
    /* a directory where the file should be, and a file too large */
    snprintf(path, sizeof(path), "%s/dir.env/x", zbt_tmpdir());
    cfg_write(path, "", 0600);
    snprintf(path, sizeof(path), "%s/dir.env", zbt_tmpdir());
    ZBT_RC(zb_dotenv_load(&d, &ctx, path), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "/dir.env is not a regular file");
    ZBT_RC(zb_dotenv_find(&d, &ctx, NULL, zbt_tmpdir(), NULL), ZB_OK);
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_TOKEN"), "t");   /* mode 0400 */
    zb_dotenv_free(d);
    snprintf(path, sizeof(path), "%s/big.env", zbt_tmpdir());
    {
        size_t n = ZB_DOTENV_MAX_BYTES + 10;
        char *big = malloc(n + 1);
        memset(big, '#', n);
        big[n] = '\0';
        cfg_write(path, big, 0600);
        free(big);
    }
    ZBT_RC(zb_dotenv_load(&d, &ctx, path), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "/big.env: larger than 1048576 bytes");
}

static void test_config_dotenv__search_order(void)
{
    char cwd[512], root[512], p[600], flag[600];
    zb_dotenv *d = NULL;
    zb_ctx ctx;

    snprintf(cwd, sizeof(cwd), "%s/cwd", zbt_tmpdir());
    snprintf(root, sizeof(root), "%s/root", zbt_tmpdir());
    snprintf(p, sizeof(p), "%s/.env", root);
    cfg_write(p, "ZAMBONI_URI=root\n", 0600);
    zb_ctx_init(&ctx);
    /* no ./.env: the root's */
    ZBT_OK_CTX(zb_dotenv_find(&d, &ctx, NULL, cwd, root), &ctx);
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_URI"), "root");
    ZBT_EQ_STR(zb_dotenv_path(d), p);
    zb_dotenv_free(d);
    /* a ./.env of another tool (no ZAMBONI_* key, open mode, even one we
     * cannot parse) is passed over */
    snprintf(p, sizeof(p), "%s/.env", cwd);
    cfg_write(p, "DATABASE_URL=postgres://x\nsomething odd\n", 0644);
    ZBT_OK_CTX(zb_dotenv_find(&d, &ctx, NULL, cwd, root), &ctx);
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_URI"), "root");
    zb_dotenv_free(d);
    /* ./.env with a ZAMBONI_* key wins, and its mode is checked */
    cfg_write(p, "ZAMBONI_URI=cwd\n", 0644);
    ZBT_RC(zb_dotenv_find(&d, &ctx, NULL, cwd, root), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "readable by group or other (mode 644)");
    ZBT_CHECK(chmod(p, 0600) == 0);
    ZBT_OK_CTX(zb_dotenv_find(&d, &ctx, NULL, cwd, root), &ctx);
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_URI"), "cwd");
    zb_dotenv_free(d);
    /* --env wins over both, and must exist */
    snprintf(flag, sizeof(flag), "%s/flag.env", zbt_tmpdir());
    cfg_write(flag, "ZAMBONI_URI=flag\n", 0600);
    ZBT_OK_CTX(zb_dotenv_find(&d, &ctx, flag, cwd, root), &ctx);
    ZBT_EQ_STR(zb_dotenv_get(d, "ZAMBONI_URI"), "flag");
    zb_dotenv_free(d);
    snprintf(flag, sizeof(flag), "%s/nope.env", zbt_tmpdir());
    ZBT_RC(zb_dotenv_find(&d, &ctx, flag, cwd, root), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "--env ");
    ZBT_CONTAINS(ctx.err.msg, "nope.env: no such file");
    /* a ZAMBONI file with a syntax error is an error, not skipped */
    cfg_write(p, "ZAMBONI_URI='x\n", 0600);
    ZBT_RC(zb_dotenv_find(&d, &ctx, NULL, cwd, root), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, ".env:1: unterminated single quote");
    /* none anywhere is fine */
    ZBT_OK_CTX(zb_dotenv_find(&d, &ctx, NULL, root, NULL), &ctx);
    ZBT_CHECK(d != NULL);
    zb_dotenv_free(d);
    snprintf(p, sizeof(p), "%s/empty", zbt_tmpdir());
    ZBT_OK_CTX(zb_dotenv_find(&d, &ctx, NULL, p, p), &ctx);
    ZBT_CHECK(d == NULL);
}

static void test_config_dotenv__export_keeps_real_env(void)
{
    zb_dotenv *d = parse_ok("ZAMBONI_TEST_REAL=file\nZAMBONI_TEST_NEW=a\n"
                            "ZAMBONI_TEST_NEW=b\n");
    zb_ctx ctx;
    zb_ctx_init(&ctx);
    setenv("ZAMBONI_TEST_REAL", "real", 1);
    unsetenv("ZAMBONI_TEST_NEW");
    ZBT_OK_CTX(zb_dotenv_export(d, &ctx), &ctx);
    ZBT_EQ_STR(getenv("ZAMBONI_TEST_REAL"), "real");
    ZBT_EQ_STR(getenv("ZAMBONI_TEST_NEW"), "b");
    unsetenv("ZAMBONI_TEST_REAL");
    unsetenv("ZAMBONI_TEST_NEW");
    zb_dotenv_free(d);
}

const zbt_case test_config_dotenv[] = {
    ZBT_CASE(test_config_dotenv__syntax),
    ZBT_CASE(test_config_dotenv__errors),
    ZBT_CASE(test_config_dotenv__truncated_and_corrupt),
    ZBT_CASE(test_config_dotenv__alloc_failure),
    ZBT_CASE(test_config_dotenv__mode),
    ZBT_CASE(test_config_dotenv__search_order),
    ZBT_CASE(test_config_dotenv__export_keeps_real_env),
    ZBT_END
};
