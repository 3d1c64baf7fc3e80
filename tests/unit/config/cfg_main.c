#include "cfg_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/alloc.h"
#include "util/err.h"
#include "zbtest.h"

extern const zbt_case test_config_dotenv[], test_config_profile[],
    test_config_settings[], test_config_table[], test_config_resources[];

const char *cfg_env_get(const char *name, void *payload)
{
    const cfg_env *e = payload;
    for (size_t i = 0; e && e->pairs && e->pairs[i]; i += 2)
        if (strcmp(e->pairs[i], name) == 0)
            return e->pairs[i + 1];
    return NULL;
}

void cfg_write(const char *path, const char *text, unsigned mode)
{
    zbt_write_file(path, text, strlen(text));
    ZBT_CHECK(chmod(path, (mode_t)mode) == 0);
}

size_t cfg_torture_text(cfg_parse_fn parse, const char *name,
                        const char *text, int want_rc)
{
    size_t len = strlen(text), bad = 0;
    char *copy = malloc(len + 1);
    uint32_t seed = 12345;
    zb_ctx ctx;

    for (size_t n = 0; n <= len; n++) {
        zb_ctx_init(&ctx);
        memcpy(copy, text, n);
        int rc = parse(&ctx, name, copy, n);
        if (rc != ZB_OK && (rc != want_rc ||
                            strncmp(ctx.err.msg, name, strlen(name)) != 0)) {
            fprintf(stderr, "prefix %zu: %s: %s\n", n, zb_rc_name(rc),
                    ctx.err.msg);
            bad++;
        }
    }
    for (int round = 0; round < 2000; round++) {
        memcpy(copy, text, len);
        for (int k = 0; k < 3; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % (len ? len : 1);
            seed = seed * 1103515245u + 12345u;
            static const char junk[] = "{}[]:,\"'\\\n #-=.0a\t\r\x01\xff";
            copy[at] = junk[(seed >> 8) % (sizeof(junk) - 1)];
        }
        zb_ctx_init(&ctx);
        int rc = parse(&ctx, name, copy, len);
        if (rc != ZB_OK && (rc != want_rc ||
                            strncmp(ctx.err.msg, name, strlen(name)) != 0)) {
            fprintf(stderr, "corrupt round %d: %s: %s\n", round,
                    zb_rc_name(rc), ctx.err.msg);
            bad++;
        }
    }
    free(copy);
    return bad;
}

size_t cfg_torture_alloc(cfg_alloc_fn fn)
{
    size_t runs = 0;
    uint64_t live = zb_alloc_live_bytes();
    zb_ctx ctx;

    for (uint64_t n = 1;; n++) {
        zb_ctx_init(&ctx);
        zb_alloc__fail_at(n, 0);
        int rc = fn(&ctx);
        uint64_t failed = zb_alloc__fail_at(0, 0);
        runs++;
        ZBT_EQ_U64(zb_alloc_live_bytes(), live);
        if (failed == 0) {
            ZBT_OK_CTX(rc, &ctx);
            break;
        }
        if (rc != ZB_ENOMEM)
            zbt__fail(__FILE__, __LINE__, "allocation %llu failed: got %s "
                      "(%s), want ZB_ENOMEM", (unsigned long long)n,
                      zb_rc_name(rc), ctx.err.msg);
    }
    if (getenv("CFG_VERBOSE"))
        fprintf(stderr, "%zu allocation-failure runs\n", runs);
    return runs;
}

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_config_dotenv, test_config_profile,
                                       test_config_settings, test_config_table,
                                       test_config_resources, NULL };
    return zbt_main(argc, argv, suites);
}
