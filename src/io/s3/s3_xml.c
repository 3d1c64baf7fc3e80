/*
 * io/s3/s3_xml.c - S3's XML replies with expat (s3_xml.h).
 *
 * One walker serves every document: it keeps the names of the open
 * elements and the text of the innermost one (bounded), and at each end
 * tag hands (depth, name, parent, text) to the document's handler. S3
 * puts its documents in a default namespace, so the names arrive bare.
 */
#define ZB_MODULE "io"

#include "io/s3/s3_xml.h"

#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/err.h"

#define MAX_DEPTH 8
#define NAME_SIZE 48
#define TEXT_MAX 8192          /* a key is at most 1,024 bytes */

typedef struct walker walker;
/* Called at an end tag; nonzero return stops the parse. */
typedef int (*end_fn)(walker *w, int depth, const char *name,
                      const char *parent, const char *text);

struct walker {
    XML_Parser parser;
    char names[MAX_DEPTH][NAME_SIZE];
    int depth;                 /* open elements, may exceed MAX_DEPTH */
    zb_buf text;
    char root[NAME_SIZE];
    end_fn on_end;
    int rc;                    /* set by a handler that stops */
    char *err;
    void *doc;
};

static void stop(walker *w, int rc, const char *why)
{
    if (w->rc == ZB_OK) {
        w->rc = rc;
        if (w->err && why)
            snprintf(w->err, ZB_S3_XML_ERR_SIZE, "%s", why);
    }
    XML_StopParser(w->parser, XML_FALSE);
}

static void XMLCALL on_start(void *p, const XML_Char *name,
                             const XML_Char **attrs)
{
    walker *w = p;

    ZB_UNUSED(attrs);
    if (w->depth == 0)
        snprintf(w->root, sizeof w->root, "%s", name);
    if (w->depth < MAX_DEPTH)
        snprintf(w->names[w->depth], NAME_SIZE, "%s", name);
    w->depth++;
    zb_buf_clear(&w->text);
}

static void XMLCALL on_end(void *p, const XML_Char *name)
{
    walker *w = p;
    int d = --w->depth;
    const char *parent = d > 0 && d - 1 < MAX_DEPTH ? w->names[d - 1] : "";
    int rc;

    if (w->rc != ZB_OK)
        return;
    rc = w->on_end(w, d, name, parent, w->text.ptr ? w->text.ptr : "");
    zb_buf_clear(&w->text);
    if (rc != 0)
        stop(w, rc, NULL);
}

static void XMLCALL on_text(void *p, const XML_Char *s, int len)
{
    walker *w = p;

    if (w->rc != ZB_OK)
        return;
    if (zb_buf_append(&w->text, s, (size_t)len) < 0)
        stop(w, ZB_ECORRUPT, "an element's text is too long");
}

/* Parses data with on_end; want_root: the document's expected root. */
static int walk(const void *data, size_t len, const char *want_root,
                end_fn fn, void *doc, char *err)
{
    walker w;
    enum XML_Status st;
    int rc;

    memset(&w, 0, sizeof w);
    zb_buf_init(&w.text, TEXT_MAX);
    w.on_end = fn;
    w.err = err;
    w.doc = doc;
    if (err)
        err[0] = '\0';
    if (len > (size_t)INT32_MAX) {
        if (err)
            snprintf(err, ZB_S3_XML_ERR_SIZE, "reply too large");
        return ZB_ECORRUPT;
    }
    if ((w.parser = XML_ParserCreate("UTF-8")) == NULL)
        return ZB_ENOMEM;
    XML_SetUserData(w.parser, &w);
    XML_SetElementHandler(w.parser, on_start, on_end);
    XML_SetCharacterDataHandler(w.parser, on_text);
    st = XML_Parse(w.parser, data ? data : "", (int)len, XML_TRUE);
    if (w.rc != ZB_OK) {
        rc = w.rc;
    } else if (st != XML_STATUS_OK) {
        if (err)
            snprintf(err, ZB_S3_XML_ERR_SIZE, "reply is not S3 XML (%s at "
                     "line %lu)",
                     XML_ErrorString(XML_GetErrorCode(w.parser)),
                     (unsigned long)XML_GetCurrentLineNumber(w.parser));
        rc = ZB_ECORRUPT;
    } else if (want_root && strcmp(w.root, want_root) != 0) {
        if (err)
            snprintf(err, ZB_S3_XML_ERR_SIZE, "reply is <%.40s>, not <%s>",
                     w.root, want_root);
        rc = ZB_ECORRUPT;
    } else {
        rc = ZB_OK;
    }
    XML_ParserFree(w.parser);
    zb_buf_free(&w.text);
    return rc;
}

static void copy_text(char *dst, size_t size, const char *src)
{
    if (size > 0)
        snprintf(dst, size, "%s", src);
}

/* Digits of s[0..n) as an unsigned value; -1 when not all digits. */
static long long digits(const char *s, int n)
{
    long long v = 0;
    int i;

    for (i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm). */
static long long days_from_civil(long long y, unsigned m, unsigned d)
{
    long long era;
    unsigned yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = (unsigned)(y - era * 400);
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

int64_t zb_s3_xml_parse_time(const char *s)
{
    long long y, mo, d, h, mi, sec, ms = 0;
    size_t n = strlen(s);
    const char *p;

    if (n < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
        s[13] != ':' || s[16] != ':')
        return -1;
    y = digits(s, 4), mo = digits(s + 5, 2), d = digits(s + 8, 2);
    h = digits(s + 11, 2), mi = digits(s + 14, 2), sec = digits(s + 17, 2);
    if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 ||
        mi < 0 || mi > 59 || sec < 0 || sec > 60)
        return -1;
    p = s + 19;
    if (*p == '.') {
        int k = 0;
        for (p++; *p >= '0' && *p <= '9'; p++, k++)
            if (k < 3)
                ms = ms * 10 + (*p - '0');
        if (k == 0)
            return -1;
        for (; k < 3; k++)
            ms *= 10;
    }
    if (strcmp(p, "Z") != 0 && strcmp(p, "+00:00") != 0)
        return -1;
    return ((days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 +
             h * 3600 + mi * 60 + sec) * 1000) + ms;
}

/* ---- ListObjectsV2 ---------------------------------------------------- */

typedef struct list_doc {
    zb_s3_xml_page *page;
    zb_s3_xml_entry_cb cb;
    void *user;
    char *key;
    int have_key;
    uint64_t size;
    int have_size;
    int64_t mtime_ms;
} list_doc;

static int parse_u64(uint64_t *out, const char *s)
{
    uint64_t v = 0;

    if (*s == '\0')
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 0;
}

static int list_end(walker *w, int depth, const char *name,
                    const char *parent, const char *text)
{
    list_doc *l = w->doc;

    if (depth == 2 && strcmp(parent, "Contents") == 0) {
        if (strcmp(name, "Key") == 0) {
            zb_free(l->key);
            if ((l->key = zb_strdup(text)) == NULL)
                return ZB_ENOMEM;
            l->have_key = 1;
        } else if (strcmp(name, "Size") == 0) {
            if (parse_u64(&l->size, text) < 0) {
                stop(w, ZB_ECORRUPT, "listing entry with a bad <Size>");
                return 0;
            }
            l->have_size = 1;
        } else if (strcmp(name, "LastModified") == 0) {
            l->mtime_ms = zb_s3_xml_parse_time(text);
            if (l->mtime_ms < 0) {
                stop(w, ZB_ECORRUPT, "listing entry with a bad "
                     "<LastModified>");
                return 0;
            }
        }
    } else if (depth == 1 && strcmp(name, "Contents") == 0) {
        int rc;
        if (!l->have_key || !l->have_size) {
            stop(w, ZB_ECORRUPT, "listing entry without <Key> or <Size>");
            return 0;
        }
        rc = l->cb ? l->cb(l->user, l->key, l->size, l->mtime_ms) : 0;
        l->page->n_entries++;
        l->have_key = l->have_size = 0;
        l->mtime_ms = 0;
        if (rc < 0)
            return rc;
    } else if (depth == 1 && strcmp(name, "IsTruncated") == 0) {
        l->page->is_truncated = strcmp(text, "true") == 0;
    } else if (depth == 1 && strcmp(name, "NextContinuationToken") == 0) {
        zb_free(l->page->next_token);
        if ((l->page->next_token = zb_strdup(text)) == NULL)
            return ZB_ENOMEM;
    }
    return 0;
}

int zb_s3_xml_parse_list(zb_s3_xml_page *page, const void *data, size_t len,
                         zb_s3_xml_entry_cb cb, void *user, char *err)
{
    list_doc l;
    int rc;

    memset(page, 0, sizeof *page);
    memset(&l, 0, sizeof l);
    l.page = page, l.cb = cb, l.user = user;
    rc = walk(data, len, "ListBucketResult", list_end, &l, err);
    zb_free(l.key);
    if (rc == ZB_OK && page->is_truncated &&
        (page->next_token == NULL || page->next_token[0] == '\0')) {
        if (err)
            snprintf(err, ZB_S3_XML_ERR_SIZE, "listing is truncated but "
                     "has no <NextContinuationToken>");
        rc = ZB_ECORRUPT;
    }
    if (rc < 0) {
        zb_free(page->next_token);
        page->next_token = NULL;
    }
    return rc;
}

/* ---- Error ------------------------------------------------------------ */

typedef struct error_doc {
    char *code, *msg;
    size_t code_size, msg_size;
    int have_code;
} error_doc;

static int error_end(walker *w, int depth, const char *name,
                     const char *parent, const char *text)
{
    error_doc *e = w->doc;

    ZB_UNUSED(parent);
    if (depth == 1 && strcmp(name, "Code") == 0) {
        copy_text(e->code, e->code_size, text);
        e->have_code = 1;
    } else if (depth == 1 && strcmp(name, "Message") == 0) {
        copy_text(e->msg, e->msg_size, text);
    }
    return 0;
}

int zb_s3_xml_parse_error(char *code, size_t code_size, char *msg,
                          size_t msg_size, const void *data, size_t len,
                          char *err)
{
    error_doc e = { code, msg, code_size, msg_size, 0 };
    int rc;

    copy_text(code, code_size, "");
    copy_text(msg, msg_size, "");
    if ((rc = walk(data, len, "Error", error_end, &e, err)) < 0)
        return rc;
    if (!e.have_code) {
        if (err)
            snprintf(err, ZB_S3_XML_ERR_SIZE, "S3 <Error> without a <Code>");
        return ZB_ECORRUPT;
    }
    return ZB_OK;
}

/* ---- DeleteResult ----------------------------------------------------- */

typedef struct delete_doc {
    zb_s3_xml_delete_cb cb;
    void *user;
    char *key;
    char code[64];
    char msg[256];
    int have_key, have_code;
} delete_doc;

static int delete_end(walker *w, int depth, const char *name,
                      const char *parent, const char *text)
{
    delete_doc *d = w->doc;
    int rc;

    if (depth == 2 && (strcmp(parent, "Deleted") == 0 ||
                       strcmp(parent, "Error") == 0)) {
        if (strcmp(name, "Key") == 0) {
            zb_free(d->key);
            if ((d->key = zb_strdup(text)) == NULL)
                return ZB_ENOMEM;
            d->have_key = 1;
        } else if (strcmp(name, "Code") == 0) {
            copy_text(d->code, sizeof d->code, text);
            d->have_code = 1;
        } else if (strcmp(name, "Message") == 0) {
            copy_text(d->msg, sizeof d->msg, text);
        }
        return 0;
    }
    if (depth != 1 || (strcmp(name, "Deleted") && strcmp(name, "Error")))
        return 0;
    if (!d->have_key) {
        stop(w, ZB_ECORRUPT, "delete result entry without a <Key>");
        return 0;
    }
    if (name[0] == 'D')
        rc = d->cb ? d->cb(d->user, d->key, NULL, NULL) : 0;
    else
        rc = d->cb ? d->cb(d->user, d->key,
                           d->have_code ? d->code : "(no code)", d->msg) : 0;
    d->have_key = d->have_code = 0;
    d->code[0] = d->msg[0] = '\0';
    return rc < 0 ? rc : 0;
}

int zb_s3_xml_parse_delete(const void *data, size_t len,
                           zb_s3_xml_delete_cb cb, void *user, char *err)
{
    delete_doc d;
    int rc;

    memset(&d, 0, sizeof d);
    d.cb = cb, d.user = user;
    rc = walk(data, len, "DeleteResult", delete_end, &d, err);
    zb_free(d.key);
    return rc;
}

/* ---- multipart -------------------------------------------------------- */

typedef struct upload_doc {
    char *id;
    size_t size;
    int have;
} upload_doc;

static int upload_end(walker *w, int depth, const char *name,
                      const char *parent, const char *text)
{
    upload_doc *u = w->doc;

    ZB_UNUSED(parent);
    if (depth == 1 && strcmp(name, "UploadId") == 0) {
        if (text[0] == '\0' || strlen(text) >= u->size) {
            stop(w, ZB_ECORRUPT, "bad <UploadId>");
            return 0;
        }
        copy_text(u->id, u->size, text);
        u->have = 1;
    }
    return 0;
}

int zb_s3_xml_parse_upload_id(char *upload_id, size_t size, const void *data,
                              size_t len, char *err)
{
    upload_doc u = { upload_id, size, 0 };
    int rc;

    copy_text(upload_id, size, "");
    if ((rc = walk(data, len, "InitiateMultipartUploadResult", upload_end,
                   &u, err)) < 0)
        return rc;
    if (!u.have) {
        if (err)
            snprintf(err, ZB_S3_XML_ERR_SIZE, "reply without an <UploadId>");
        return ZB_ECORRUPT;
    }
    return ZB_OK;
}

static int nothing_end(walker *w, int depth, const char *name,
                       const char *parent, const char *text)
{
    ZB_UNUSED(w), ZB_UNUSED(depth), ZB_UNUSED(name), ZB_UNUSED(parent);
    ZB_UNUSED(text);
    return 0;
}

int zb_s3_xml_parse_complete(int *ok, char *code, size_t code_size,
                             char *msg, size_t msg_size, const void *data,
                             size_t len, char *err)
{
    int rc;

    *ok = 0;
    copy_text(code, code_size, "");
    copy_text(msg, msg_size, "");
    rc = zb_s3_xml_parse_error(code, code_size, msg, msg_size, data, len,
                               NULL);
    if (rc == ZB_OK)
        return ZB_OK;
    if (rc == ZB_ENOMEM)
        return rc;
    if ((rc = walk(data, len, "CompleteMultipartUploadResult", nothing_end,
                   NULL, err)) < 0)
        return rc;
    *ok = 1;
    return ZB_OK;
}
