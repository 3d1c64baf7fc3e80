/*
 * The S3 backend's parsers without a server: URIs, endpoints, request
 * URLs and the XML replies (whole, truncated at every byte, corrupt).
 */
#include <stdio.h>
#include <string.h>

#include "io/s3/s3_uri.h"
#include "io/s3/s3_xml.h"
#include "util/alloc.h"
#include "zamboni/io_s3.h"
#include "zbtest.h"

static void test_io_s3_parse__uris(void)
{
    zb_s3_uri u;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_OK_CTX(zb_s3_uri_parse(&u, &ctx, "S3A://bkt/a/b%20c/d.parquet"), &ctx);
    ZBT_EQ_STR(u.scheme, "s3a");
    ZBT_EQ_STR(u.bucket, "bkt");
    ZBT_EQ_STR(u.key, "a/b%20c/d.parquet");     /* as written */
    zb_s3_uri_free(&u);
    ZBT_OK_CTX(zb_s3_uri_parse(&u, &ctx, "s3n://bkt"), &ctx);
    ZBT_EQ_STR(u.key, "");
    zb_s3_uri_free(&u);
    ZBT_OK_CTX(zb_s3_uri_parse(&u, &ctx, "s3://bkt//x/"), &ctx);
    ZBT_EQ_STR(u.key, "/x/");
    zb_s3_uri_free(&u);
    ZBT_RC(zb_s3_uri_parse(&u, &ctx, "s3:///k"), ZB_EUSAGE);
    ZBT_RC(zb_s3_uri_parse(&u, &ctx, "gs://b/k"), ZB_EUSAGE);
    ZBT_RC(zb_s3_uri_parse(&u, &ctx, "s3://us@er/k"), ZB_EUSAGE);
    ZBT_CHECK(zb_s3_uri_accepts("s3://b/k"));
    ZBT_CHECK(!zb_s3_uri_accepts("/tmp/s3://b"));
    ZBT_CHECK(!zb_s3_uri_accepts("file:///b"));
}

static void test_io_s3_parse__escaping_and_urls(void)
{
    zb_buf b = ZB_BUF_INIT(4096);
    zb_s3_endpoint ep;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_s3_escape(&b, "a b/c%d~e+\xc3\xa9", 1), ZB_OK);
    ZBT_EQ_STR(b.ptr, "a%20b/c%25d~e%2B%C3%A9");
    zb_buf_clear(&b);
    ZBT_EQ_INT(zb_s3_escape(&b, "x/y=z", 0), ZB_OK);
    ZBT_EQ_STR(b.ptr, "x%2Fy%3Dz");

    ZBT_OK_CTX(zb_s3_endpoint_parse(&ep, &ctx, NULL, "eu-west-3"), &ctx);
    zb_buf_clear(&b);
    ZBT_EQ_INT(zb_s3_build_url(&b, &ep, -1, "bk", "a b/c", NULL), ZB_OK);
    ZBT_EQ_STR(b.ptr, "https://bk.s3.eu-west-3.amazonaws.com/a%20b/c");
    zb_buf_clear(&b);
    ZBT_EQ_INT(zb_s3_build_url(&b, &ep, 1, "bk", "k", "list-type=2"), ZB_OK);
    ZBT_EQ_STR(b.ptr, "https://s3.eu-west-3.amazonaws.com/bk/k?list-type=2");

    ZBT_OK_CTX(zb_s3_endpoint_parse(&ep, &ctx, "http://127.0.0.1:4568/",
                                    NULL), &ctx);
    zb_buf_clear(&b);
    ZBT_EQ_INT(zb_s3_build_url(&b, &ep, -1, "bk", "", "delete="), ZB_OK);
    ZBT_EQ_STR(b.ptr, "http://127.0.0.1:4568/bk?delete=");
    ZBT_OK_CTX(zb_s3_endpoint_parse(&ep, &ctx, "http://[::1]:9000", NULL),
               &ctx);
    ZBT_EQ_STR(ep.host, "[::1]");
    ZBT_EQ_STR(ep.port, "9000");
    ZBT_CHECK(ep.ip_or_localhost);
    ZBT_OK_CTX(zb_s3_endpoint_parse(&ep, &ctx, "https://minio.example:9000",
                                    NULL), &ctx);
    ZBT_CHECK(!ep.ip_or_localhost);
    zb_buf_clear(&b);
    ZBT_EQ_INT(zb_s3_build_url(&b, &ep, -1, "bk", "k", NULL), ZB_OK);
    ZBT_EQ_STR(b.ptr, "https://bk.minio.example:9000/k");

    ZBT_RC(zb_s3_endpoint_parse(&ep, &ctx, "http://minio.example:9000",
                                NULL), ZB_EUSAGE);
    ZBT_CONTAINS(ctx.err.msg, "loopback");
    ZBT_RC(zb_s3_endpoint_parse(&ep, &ctx, "http://10.0.0.1", NULL),
           ZB_EUSAGE);
    ZBT_RC(zb_s3_endpoint_parse(&ep, &ctx, "ftp://127.0.0.1", NULL),
           ZB_EUSAGE);
    ZBT_RC(zb_s3_endpoint_parse(&ep, &ctx, "https://h/path", NULL),
           ZB_EUSAGE);
    ZBT_RC(zb_s3_endpoint_parse(&ep, &ctx, "https://h:port", NULL),
           ZB_EUSAGE);
    ZBT_CHECK(zb_s3_host_is_loopback("127.8.9.10"));
    ZBT_CHECK(zb_s3_host_is_loopback("localhost"));
    ZBT_CHECK(zb_s3_host_is_loopback("[::1]"));
    ZBT_CHECK(!zb_s3_host_is_loopback("128.0.0.1"));
    ZBT_CHECK(!zb_s3_host_is_loopback("localhost.example"));
    zb_buf_free(&b);
}

static void test_io_s3_parse__object_stores(void)
{
    ZBT_CHECK(zb_io_is_object_store("s3://b/k"));
    ZBT_CHECK(zb_io_is_object_store("S3A://b/k"));
    ZBT_CHECK(zb_io_is_object_store("gs://b/k"));
    ZBT_CHECK(zb_io_is_object_store("abfss://c@a.dfs.core.windows.net/p"));
    ZBT_CHECK(zb_io_is_object_store("oss://b/k"));
    ZBT_CHECK(!zb_io_is_object_store("file:///tmp/x"));
    ZBT_CHECK(!zb_io_is_object_store("/tmp/s3://x"));
    ZBT_CHECK(!zb_io_is_object_store("hdfs://nn/x"));
}

static void test_io_s3_parse__times(void)
{
    ZBT_EQ_INT(zb_s3_xml_parse_time("1970-01-01T00:00:00.000Z"), 0);
    ZBT_EQ_INT(zb_s3_xml_parse_time("2009-10-12T17:50:30.123Z"),
               1255369830123LL);
    ZBT_EQ_INT(zb_s3_xml_parse_time("2024-02-29T00:00:00Z"), 1709164800000LL);
    ZBT_EQ_INT(zb_s3_xml_parse_time("2024-02-29 00:00:00Z"), -1);
    ZBT_EQ_INT(zb_s3_xml_parse_time("2024-13-01T00:00:00Z"), -1);
    ZBT_EQ_INT(zb_s3_xml_parse_time("2024-01-01T00:00:00"), -1);
}

static const char list_doc[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
    "<Name>b</Name><Prefix>t/</Prefix><KeyCount>2</KeyCount>"
    "<IsTruncated>true</IsTruncated>"
    "<Contents><Key>t/a &amp; b.parquet</Key>"
    "<LastModified>2009-10-12T17:50:30.000Z</LastModified>"
    "<ETag>&quot;x&quot;</ETag><Size>434234</Size>"
    "<StorageClass>STANDARD</StorageClass></Contents>"
    "<Contents><Key>t/c</Key><Size>0</Size>"
    "<LastModified>2009-10-12T17:50:31.000Z</LastModified></Contents>"
    "<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM="
    "</NextContinuationToken></ListBucketResult>";

typedef struct seen {
    int n;
    char keys[4][64];
    uint64_t sizes[4];
    int64_t mtimes[4];
} seen;

static int on_entry(void *user, const char *key, uint64_t size,
                    int64_t mtime_ms)
{
    seen *s = user;

    if (s->n < 4) {
        snprintf(s->keys[s->n], 64, "%s", key);
        s->sizes[s->n] = size;
        s->mtimes[s->n] = mtime_ms;
    }
    s->n++;
    return 0;
}

static void test_io_s3_parse__list(void)
{
    zb_s3_xml_page page;
    seen s;
    char err[ZB_S3_XML_ERR_SIZE];
    size_t cut;

    memset(&s, 0, sizeof s);
    ZBT_EQ_INT(zb_s3_xml_parse_list(&page, list_doc, strlen(list_doc),
                                    on_entry, &s, err), ZB_OK);
    ZBT_EQ_INT(s.n, 2);
    ZBT_EQ_STR(s.keys[0], "t/a & b.parquet");
    ZBT_EQ_U64(s.sizes[0], 434234);
    ZBT_EQ_INT(s.mtimes[0], 1255369830000LL);
    ZBT_EQ_STR(s.keys[1], "t/c");
    ZBT_CHECK(page.is_truncated);
    ZBT_EQ_STR(page.next_token, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
    zb_free(page.next_token);
    /* cut short anywhere: an error, never a page */
    for (cut = 0; cut < strlen(list_doc); cut++) {
        memset(&s, 0, sizeof s);
        ZBT_RC(zb_s3_xml_parse_list(&page, list_doc, cut, on_entry, &s, err),
               ZB_ECORRUPT);
        ZBT_CHECK(page.next_token == NULL);
        ZBT_CHECK(err[0] != '\0');
    }
    ZBT_RC(zb_s3_xml_parse_list(&page, "<html><body>Bad Gateway</body></html>",
                                37, on_entry, &s, err), ZB_ECORRUPT);
    ZBT_CONTAINS(err, "<ListBucketResult> was expected");
    ZBT_RC(zb_s3_xml_parse_list(&page, "garbage", 7, on_entry, &s, err),
           ZB_ECORRUPT);
    ZBT_CONTAINS(err, "not S3 XML");
    {
        static const char bad_size[] =
            "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size>"
            "</Contents></ListBucketResult>";
        static const char no_token[] =
            "<ListBucketResult><IsTruncated>true</IsTruncated>"
            "</ListBucketResult>";
        static const char no_key[] =
            "<ListBucketResult><Contents><Size>1</Size></Contents>"
            "</ListBucketResult>";
        ZBT_RC(zb_s3_xml_parse_list(&page, bad_size, strlen(bad_size),
                                    on_entry, &s, err), ZB_ECORRUPT);
        ZBT_RC(zb_s3_xml_parse_list(&page, no_token, strlen(no_token),
                                    on_entry, &s, err), ZB_ECORRUPT);
        ZBT_RC(zb_s3_xml_parse_list(&page, no_key, strlen(no_key),
                                    on_entry, &s, err), ZB_ECORRUPT);
    }
}

static void test_io_s3_parse__error(void)
{
    static const char doc[] =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey"
        "</Code><Message>The resource you requested does not exist</Message>"
        "<Resource>/mybucket/myfoto.jpg</Resource>"
        "<RequestId>4442587FB7D0A2F9</RequestId></Error>";
    char code[64], msg[256], err[ZB_S3_XML_ERR_SIZE];
    size_t cut;

    ZBT_EQ_INT(zb_s3_xml_parse_error(code, sizeof code, msg, sizeof msg, doc,
                                     strlen(doc), err), ZB_OK);
    ZBT_EQ_STR(code, "NoSuchKey");
    ZBT_EQ_STR(msg, "The resource you requested does not exist");
    for (cut = 0; cut < strlen(doc); cut++)
        ZBT_RC(zb_s3_xml_parse_error(code, sizeof code, msg, sizeof msg, doc,
                                     cut, err), ZB_ECORRUPT);
    ZBT_RC(zb_s3_xml_parse_error(code, sizeof code, msg, sizeof msg,
                                 "<Error><Message>m</Message></Error>", 34,
                                 err), ZB_ECORRUPT);
    ZBT_RC(zb_s3_xml_parse_error(code, 8, msg, 8, "<Error><Code>"
                                 "AVeryLongCodeIndeed</Code></Error>", 47,
                                 err), ZB_OK);
    ZBT_EQ_STR(code, "AVeryLo");           /* truncated to fit */
}

typedef struct deletes {
    int deleted, errors;
    char last_code[64];
} deletes;

static int on_delete(void *user, const char *key, const char *code,
                     const char *message)
{
    deletes *d = user;

    (void)key, (void)message;
    if (code == NULL)
        d->deleted++;
    else {
        d->errors++;
        snprintf(d->last_code, sizeof d->last_code, "%s", code);
    }
    return 0;
}

static void test_io_s3_parse__delete_result(void)
{
    static const char doc[] =
        "<DeleteResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        "<Deleted><Key>a</Key></Deleted>"
        "<Error><Key>b</Key><Code>AccessDenied</Code><Message>Access Denied"
        "</Message></Error><Deleted><Key>c</Key><VersionId>1</VersionId>"
        "</Deleted></DeleteResult>";
    deletes d;
    char err[ZB_S3_XML_ERR_SIZE];

    memset(&d, 0, sizeof d);
    ZBT_EQ_INT(zb_s3_xml_parse_delete(doc, strlen(doc), on_delete, &d, err),
               ZB_OK);
    ZBT_EQ_INT(d.deleted, 2);
    ZBT_EQ_INT(d.errors, 1);
    ZBT_EQ_STR(d.last_code, "AccessDenied");
    memset(&d, 0, sizeof d);
    ZBT_RC(zb_s3_xml_parse_delete(doc, strlen(doc) - 5, on_delete, &d, err),
           ZB_ECORRUPT);
    ZBT_RC(zb_s3_xml_parse_delete("<DeleteResult><Deleted></Deleted>"
                                  "</DeleteResult>", 48, on_delete, &d, err),
           ZB_ECORRUPT);
    ZBT_RC(zb_s3_xml_parse_delete("<Error><Code>InternalError</Code></Error>",
                                  41, on_delete, &d, err), ZB_ECORRUPT);
}

static void test_io_s3_parse__multipart(void)
{
    static const char init[] =
        "<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key>"
        "<UploadId>VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA"
        "</UploadId></InitiateMultipartUploadResult>";
    static const char done[] =
        "<CompleteMultipartUploadResult><Location>l</Location><Bucket>b"
        "</Bucket><Key>k</Key><ETag>\"3858f62230ac3c915f300c664312c11f-9\""
        "</ETag></CompleteMultipartUploadResult>";
    static const char failed[] =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<Error><Code>"
        "InternalError</Code><Message>We encountered an internal error."
        "</Message></Error>";
    char id[1024], code[64], msg[256], err[ZB_S3_XML_ERR_SIZE];
    int ok = -1;

    ZBT_EQ_INT(zb_s3_xml_parse_upload_id(id, sizeof id, init, strlen(init),
                                         err), ZB_OK);
    ZBT_EQ_STR(id, "VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA");
    ZBT_RC(zb_s3_xml_parse_upload_id(id, sizeof id, init, 40, err),
           ZB_ECORRUPT);
    ZBT_RC(zb_s3_xml_parse_upload_id(id, sizeof id, done, strlen(done), err),
           ZB_ECORRUPT);
    ZBT_EQ_INT(zb_s3_xml_parse_complete(&ok, code, sizeof code, msg,
                                        sizeof msg, done, strlen(done), err),
               ZB_OK);
    ZBT_EQ_INT(ok, 1);
    /* 200 with an <Error> body: not done */
    ZBT_EQ_INT(zb_s3_xml_parse_complete(&ok, code, sizeof code, msg,
                                        sizeof msg, failed, strlen(failed),
                                        err), ZB_OK);
    ZBT_EQ_INT(ok, 0);
    ZBT_EQ_STR(code, "InternalError");
    ZBT_RC(zb_s3_xml_parse_complete(&ok, code, sizeof code, msg, sizeof msg,
                                    done, strlen(done) - 3, err),
           ZB_ECORRUPT);
    ZBT_EQ_INT(ok, 0);
    ZBT_RC(zb_s3_xml_parse_complete(&ok, code, sizeof code, msg, sizeof msg,
                                    "", 0, err), ZB_ECORRUPT);
}

const zbt_case test_io_s3_parse[] = {
    ZBT_CASE(test_io_s3_parse__uris),
    ZBT_CASE(test_io_s3_parse__escaping_and_urls),
    ZBT_CASE(test_io_s3_parse__object_stores),
    ZBT_CASE(test_io_s3_parse__times),
    ZBT_CASE(test_io_s3_parse__list),
    ZBT_CASE(test_io_s3_parse__error),
    ZBT_CASE(test_io_s3_parse__delete_result),
    ZBT_CASE(test_io_s3_parse__multipart),
    ZBT_END
};
