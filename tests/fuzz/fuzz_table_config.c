/*
 * libFuzzer target: zb_table_config_parse (ops/config/table_config.c, jansson)
 * on arbitrary bytes. It must return ZB_OK, or ZB_EUSAGE / ZB_ENOMEM with
 * a one-line message naming the file, never crash. On ZB_OK the table
 * list is sorted, every table's effective block keeps the rules the
 * parser enforces (min_input_files >= 1, zorder bits * columns <= 62,
 * orphans only with expiry, coarser evolution), and the summary renders.
 */
#include <stdlib.h>
#include <string.h>

#include "ops/config/table_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_block(const zb_tc_block *b)
{
    if (b->min_input_files < 1 ||
        (b->target_file_size_bytes != -1 && b->target_file_size_bytes < 100))
        abort();
    if (b->order_mode == ZB_TC_ORDER_ZORDER &&
        (b->n_zorder < 2 || b->precision_bits < 1 || b->precision_bits > 32 ||
         (size_t)b->precision_bits * b->n_zorder > 62))
        abort();
    if (b->order_mode == ZB_TC_ORDER_SORT && b->n_sort == 0)
        abort();
    /* the enum runs year, month, day, hour: coarser is smaller */
    for (size_t i = 0; i < b->n_rules; i++)
        if (b->rules[i].to >= b->rules[i].from)
            abort();
    if (b->retention.orphans_enabled && !b->retention.expire_enabled)
        abort();
    for (size_t i = 0; i < b->n_partition; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(b->partition[i].name, b->partition[j].name) == 0)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zb_table_config *tc = NULL;
    zb_tc_effective e;
    zb_ctx ctx;
    int rc;

    zb_ctx_init(&ctx);
    rc = zb_table_config_parse(&tc, &ctx, "fuzz.json", (const char *)data,
                               size);
    if (rc != ZB_OK) {
        if (tc != NULL || (rc != ZB_EUSAGE && rc != ZB_ENOMEM) ||
            strncmp(ctx.err.msg, "fuzz.json", 9) != 0 ||
            strchr(ctx.err.msg, '\n') != NULL)
            abort();
        return 0;
    }
    for (size_t i = 0; i < zb_table_config_table_count(tc); i++) {
        const char *t = zb_table_config_table(tc, i);
        if (i > 0 && strcmp(zb_table_config_table(tc, i - 1), t) >= 0)
            abort();
        zb_table_config_effective(&e, tc, t);
        if (!e.listed)
            abort();
        check_block(&e.block);
    }
    zb_table_config_effective(&e, tc, "no.such.table");
    check_block(&e.block);
    zb_buf b = ZB_BUF_INIT(64u << 20);
    if (zb_table_config_summary(&b, &ctx, tc, NULL) != ZB_OK)
        abort();
    zb_buf_free(&b);
    zb_table_config_free(tc);
    return 0;
}
