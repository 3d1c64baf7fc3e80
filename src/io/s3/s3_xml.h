/*
 * io/s3/s3_xml.h - S3's XML replies, parsed with expat: a listing page, an
 * error, a batch delete's result, a multipart upload's id and its end.
 *
 * Each parser takes the whole body of one reply (a page is at most 1,000
 * entries) and reports what it holds through callbacks or small outputs.
 * It returns ZB_OK, or ZB_ECORRUPT with a short reason in err when the
 * body is not XML, is cut short, or is not the document asked for; it
 * never reads past len and never trusts a length in the body.
 */
#ifndef ZB_IO_S3_XML_H
#define ZB_IO_S3_XML_H

#include <stddef.h>
#include <stdint.h>

#define ZB_S3_XML_ERR_SIZE 160

/* One <Contents> entry of ListObjectsV2; key is borrowed for the call. */
typedef int (*zb_s3_xml_entry_cb)(void *user, const char *key,
                                  uint64_t size, int64_t mtime_ms);

typedef struct zb_s3_xml_page {
    int is_truncated;
    char *next_token;          /* NextContinuationToken, or NULL; owned */
    size_t n_entries;
} zb_s3_xml_page;

/* A ListBucketResult. A callback's negative return stops the parse and is
 * returned. Free page->next_token with zb_free. */
int zb_s3_xml_parse_list(zb_s3_xml_page *page, const void *data, size_t len,
                         zb_s3_xml_entry_cb cb, void *user, char *err);

/* An <Error>: its Code and Message (truncated to fit). ZB_ECORRUPT when
 * the body is not an S3 error document. */
int zb_s3_xml_parse_error(char *code, size_t code_size, char *msg,
                          size_t msg_size, const void *data, size_t len,
                          char *err);

/* A DeleteResult: one call per Deleted key (code NULL) or Error (code and
 * message set). */
typedef int (*zb_s3_xml_delete_cb)(void *user, const char *key,
                                   const char *code, const char *message);
int zb_s3_xml_parse_delete(const void *data, size_t len,
                           zb_s3_xml_delete_cb cb, void *user, char *err);

/* InitiateMultipartUploadResult's UploadId. */
int zb_s3_xml_parse_upload_id(char *upload_id, size_t size, const void *data,
                              size_t len, char *err);

/*
 * A CompleteMultipartUpload reply, which S3 may send as 200 with an
 * <Error> body: *ok 1 for a CompleteMultipartUploadResult, 0 for an Error
 * (code and msg filled).
 */
int zb_s3_xml_parse_complete(int *ok, char *code, size_t code_size,
                             char *msg, size_t msg_size, const void *data,
                             size_t len, char *err);

/* "2009-10-12T17:50:30.000Z" as ms since the epoch; -1 if malformed. */
int64_t zb_s3_xml_parse_time(const char *s);

#endif
