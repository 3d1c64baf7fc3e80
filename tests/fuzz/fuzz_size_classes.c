/*
 * libFuzzer target: zb_size_classes_parse_json (service/size_class.c),
 * the ZAMBONI_SIZE_CLASSES list, on arbitrary bytes. It must return ZB_OK
 * with 1..ZB_SIZE_CLASSES_MAX classes sorted by memory, each named, with
 * cores, memory and max_jobs above 0; or ZB_EUSAGE / ZB_ENOMEM with a
 * one-line message naming the origin and no classes. Never a crash.
 */
#include <stdlib.h>
#include <string.h>

#include "service/size_class.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zb_size_classes cs;
    zb_ctx ctx;
    char *text = malloc(size + 1);
    uint64_t b;
    int rc, i;

    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    zb_ctx_init(&ctx);
    rc = zb_size_classes_parse_json(&cs, &ctx, text, "fuzz");
    if (rc != ZB_OK) {
        if ((rc != ZB_EUSAGE && rc != ZB_ENOMEM) || cs.n != 0 ||
            strncmp(ctx.err.msg, "fuzz", 4) != 0 ||
            strchr(ctx.err.msg, '\n') != NULL)
            abort();
    } else {
        if (cs.n < 1 || cs.n > ZB_SIZE_CLASSES_MAX)
            abort();
        for (i = 0; i < cs.n; i++) {
            if (cs.c[i].name[0] == '\0' || cs.c[i].cores < 1 ||
                cs.c[i].max_jobs < 1 || cs.c[i].memory_bytes == 0 ||
                (i > 0 && cs.c[i].memory_bytes < cs.c[i - 1].memory_bytes) ||
                zb_size_class_find(&cs, cs.c[i].name) == NULL)
                abort();
        }
        if (zb_size_class_for(&cs, UINT64_MAX) != &cs.c[cs.n - 1] ||
            zb_size_class_up(&cs, cs.c[cs.n - 1].name) != &cs.c[cs.n - 1])
            abort();
    }
    /* The bytes alone as a size: parsed or refused, never more. */
    rc = zb_size_parse_bytes(&b, text);
    if (rc != ZB_OK && rc != ZB_EUSAGE)
        abort();
    free(text);
    return 0;
}
