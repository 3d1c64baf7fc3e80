/*
 * libFuzzer target: the S3 XML replies (io/s3/s3_xml.c) on arbitrary
 * bytes, every parser on the same input. Each returns ZB_OK, ZB_ECORRUPT
 * (with a reason) or ZB_ENOMEM, never crashes; what a parser reports
 * (keys, codes, ids) is NUL-terminated and fits its buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "io/s3/s3_xml.h"
#include "util/alloc.h"
#include "zamboni/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void check_rc(int rc, const char *err)
{
    if (rc != ZB_OK && rc != ZB_ECORRUPT && rc != ZB_ENOMEM)
        abort();
    if (rc == ZB_ECORRUPT && (err[0] == '\0' || strchr(err, '\n')))
        abort();
}

static int on_entry(void *user, const char *key, uint64_t size,
                    int64_t mtime_ms)
{
    (void)user;
    sink += strlen(key) + (size_t)(size & 1) + (size_t)(mtime_ms & 1);
    return 0;
}

static int on_delete(void *user, const char *key, const char *code,
                     const char *message)
{
    (void)user;
    sink += strlen(key);
    if (code)
        sink += strlen(code) + strlen(message);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[ZB_S3_XML_ERR_SIZE], code[64], msg[256], id[1024];
    zb_s3_xml_page page;
    int rc, ok;

    rc = zb_s3_xml_parse_list(&page, data, size, on_entry, NULL, err);
    check_rc(rc, err);
    if (rc == ZB_OK) {
        if (page.is_truncated && (!page.next_token || !page.next_token[0]))
            abort();
        zb_free(page.next_token);
    } else if (page.next_token != NULL) {
        abort();
    }
    rc = zb_s3_xml_parse_error(code, sizeof code, msg, sizeof msg, data,
                               size, err);
    check_rc(rc, err);
    if (strlen(code) >= sizeof code || strlen(msg) >= sizeof msg)
        abort();
    check_rc(zb_s3_xml_parse_delete(data, size, on_delete, NULL, err), err);
    rc = zb_s3_xml_parse_upload_id(id, sizeof id, data, size, err);
    check_rc(rc, err);
    if (rc == ZB_OK && (id[0] == '\0' || strlen(id) >= sizeof id))
        abort();
    rc = zb_s3_xml_parse_complete(&ok, code, sizeof code, msg, sizeof msg,
                                  data, size, err);
    check_rc(rc, err);
    if (rc == ZB_OK && ok != 0 && ok != 1)
        abort();
    return 0;
}
