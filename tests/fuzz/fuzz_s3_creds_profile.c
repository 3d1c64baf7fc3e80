/*
 * libFuzzer target: the AWS profile file reader
 * (zb_s3_creds__profile_parse, src/io/s3/s3_creds_profile.c) on arbitrary
 * bytes, for the sections "default" and "profile dev". It returns ZB_OK
 * (keys NUL-terminated inside their fields, none without its section) or
 * ZB_EUSAGE with a one-line message that starts with the file's path and
 * the keys wiped; never a crash.
 */
#include <stdlib.h>
#include <string.h>

#include "io/s3/s3_creds_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run(const uint8_t *data, size_t size, const char *section)
{
    zb_s3_profile_keys k;
    zb_ctx ctx;
    int rc;

    zb_ctx_init(&ctx);
    rc = zb_s3_creds__profile_parse(&k, &ctx, "fuzz.ini",
                                    (const char *)data, size, section);
    if (rc == ZB_OK) {
        if (memchr(k.access_key_id, '\0', sizeof k.access_key_id) == NULL ||
            memchr(k.secret_access_key, '\0',
                   sizeof k.secret_access_key) == NULL ||
            memchr(k.session_token, '\0', sizeof k.session_token) == NULL ||
            (!k.section_found && (k.access_key_id[0] != '\0' ||
                                  k.secret_access_key[0] != '\0')))
            abort();
        return;
    }
    if (rc != ZB_EUSAGE || strncmp(ctx.err.msg, "fuzz.ini:", 9) != 0 ||
        strchr(ctx.err.msg, '\n') != NULL || k.access_key_id[0] != '\0' ||
        k.secret_access_key[0] != '\0')
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run(data, size, "default");
    run(data, size, "profile dev");
    return 0;
}
