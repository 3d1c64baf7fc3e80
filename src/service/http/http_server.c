/*
 * service/http/http_server.c - the libmicrohttpd server of `zamboni
 * serve`: the listening socket (bound here, so a taken port is named
 * with its reason), the routes of http.h and the token rule.
 */
#define _POSIX_C_SOURCE 200809L
#define ZB_MODULE "http"

#include <errno.h>
#include <netdb.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <netinet/in.h>
#include <unistd.h>

#include <microhttpd.h>

#include "service/http/http_int.h"
#include "service/http/prom.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/err.h"

#define BODY_MAX (64u << 20)

int zb_http_parse_listen(const char *text, char *host, size_t host_size,
                         int *port, zb_ctx *ctx)
{
    const char *colon, *h = text, *h_end;
    char *end;
    long p;

    if (text == NULL || text[0] == '\0')
        return zb_fail(ctx, ZB_EUSAGE, "the listen address is empty "
                       "(ADDR:PORT, for example 127.0.0.1:8650)");
    if (text[0] == '[') {
        h = text + 1;
        if ((h_end = strchr(h, ']')) == NULL || h_end[1] != ':')
            goto bad;
        colon = h_end + 1;
    } else {
        if ((colon = strrchr(text, ':')) == NULL ||
            memchr(text, ':', (size_t)(colon - text)) != NULL)
            goto bad;              /* IPv6 needs its brackets */
        h_end = colon;
    }
    if (h_end == h || (size_t)(h_end - h) >= host_size)
        goto bad;
    errno = 0;
    p = strtol(colon + 1, &end, 10);
    if (colon[1] == '\0' || *end != '\0' || errno != 0 || p < 0 ||
        p > 65535)
        goto bad;
    memcpy(host, h, (size_t)(h_end - h));
    host[h_end - h] = '\0';
    *port = (int)p;
    return ZB_OK;
bad:
    return zb_fail(ctx, ZB_EUSAGE, "listen address '%.200s' is not "
                   "ADDR:PORT (for example 127.0.0.1:8650, 0.0.0.0:8650 or "
                   "[::1]:8650; port 0 to 65535)", text);
}

static void log_to(const zb_http *h, const char *line)
{
    if (h->log_line != NULL)
        h->log_line(line, h->payload);
}

/* ---- answers ---- */

enum MHD_Result zb_http__answer(struct MHD_Connection *c, unsigned status,
                                const char *type, const char *body,
                                size_t len, int auth_challenge)
{
    struct MHD_Response *r;
    enum MHD_Result ret;

    r = MHD_create_response_from_buffer(len, (void *)body,
                                        MHD_RESPMEM_MUST_COPY);
    if (r == NULL)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (auth_challenge)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                "Bearer realm=\"zamboni\"");
    ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result answer_text(struct MHD_Connection *c, unsigned status,
                                   const char *text)
{
    return zb_http__answer(c, status, "text/plain; charset=utf-8", text,
                           strlen(text), 0);
}

static enum MHD_Result answer_json(struct MHD_Connection *c, unsigned status,
                                   const char *json)
{
    return zb_http__answer(c, status, "application/json", json,
                           strlen(json), 0);
}

/* ---- routes ---- */

static enum MHD_Result health(zb_http *h, struct MHD_Connection *c)
{
    char msg[512], line[700], body[700];
    int ok, was;

    ok = zb_http_health_check(zb_queue_db(h->queue), h->health_timeout_ms,
                              msg, sizeof msg);
    was = atomic_exchange(&h->health, ok);
    if (!ok && was != 0) {
        snprintf(line, sizeof line, "serve health status=503 "
                 "check=queue_database message=%s", msg);
        log_to(h, line);
    } else if (ok && was == 0) {
        log_to(h, "serve health status=200 check=queue_database");
    }
    snprintf(body, sizeof body, "%s\nqueue_database: %s\n",
             ok ? "ok" : "unavailable", msg);
    return answer_text(c, ok ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE,
                       body);
}

static enum MHD_Result metrics(zb_http *h, struct MHD_Connection *c)
{
    zb_planner_counters pc;
    zb_buf b = ZB_BUF_INIT(BODY_MAX);
    enum MHD_Result ret;
    char body[1200];
    zb_ctx ctx;
    int rc;

    zb_ctx_init(&ctx);
    if (h->planner_counters != NULL) {
        memset(&pc, 0, sizeof pc);
        h->planner_counters(h->payload, &pc);
    }
    rc = zb_http_metrics_text(&b, &ctx, h->queue, &h->classes,
                              h->planner_counters ? &pc : NULL);
    if (rc < 0) {
        snprintf(body, sizeof body, "unavailable\nmetrics: %s\n",
                 ctx.err.msg[0] ? ctx.err.msg : zb_rc_name(rc));
        ret = answer_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, body);
    } else {
        ret = zb_http__answer(c, MHD_HTTP_OK, ZB_PROM_CONTENT_TYPE,
                              zb_buf_cstr(&b), b.len, 0);
    }
    zb_buf_free(&b);
    return ret;
}

static enum MHD_Result demand(zb_http *h, struct MHD_Connection *c)
{
    const char *cls = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
                                                  "class");
    zb_buf b = ZB_BUF_INIT(1u << 20);
    enum MHD_Result ret;
    int status = 500, rc;
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    rc = zb_http_demand_json(&b, &status, &ctx, h->queue, &h->classes, cls);
    ret = rc < 0 ? answer_json(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
                               "{\"error\": \"out of memory\"}\n")
                 : answer_json(c, (unsigned)status, zb_buf_cstr(&b));
    zb_buf_free(&b);
    return ret;
}

int zb_http__authed(const zb_http *h, struct MHD_Connection *c)
{
    if (h->token == NULL)
        return 1;
    return zb_http_bearer_ok(MHD_lookup_connection_value(
                                 c, MHD_HEADER_KIND,
                                 MHD_HTTP_HEADER_AUTHORIZATION),
                             h->token) ||
           zb_http_token_eq(MHD_lookup_connection_value(c, MHD_COOKIE_KIND,
                                                        ZB_HTTP_COOKIE),
                            h->cookie);
}

/* A GET has nothing to keep between calls; a POST keeps its body. */
static int get_marker;

static void on_completed(void *cls, struct MHD_Connection *c,
                         void **con_cls, enum MHD_RequestTerminationCode t)
{
    (void)cls;
    (void)c;
    (void)t;
    if (*con_cls != NULL && *con_cls != &get_marker) {
        memset(*con_cls, 0, sizeof(zb_http_upload));   /* a token */
        zb_free(*con_cls);
    }
    *con_cls = NULL;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    zb_http *h = cls;
    zb_http_upload *up = NULL;
    zb_http_route r;
    int post = strcmp(method, MHD_HTTP_METHOD_POST) == 0;

    (void)version;
    if (*con_cls == NULL) {        /* headers only so far */
        if (post && (*con_cls = zb_calloc(1, sizeof *up)) == NULL)
            return MHD_NO;
        if (!post)
            *con_cls = &get_marker;
        return MHD_YES;
    }
    if (*con_cls != &get_marker)
        up = *con_cls;
    if (*upload_size != 0) {       /* only a POST keeps its body */
        if (up != NULL && !up->too_big) {
            if (*upload_size > sizeof up->body - 1 - up->len) {
                up->too_big = 1;
            } else {
                memcpy(up->body + up->len, upload, *upload_size);
                up->len += *upload_size;
            }
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (!post && strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
        strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return answer_json(c, MHD_HTTP_METHOD_NOT_ALLOWED,
                           "{\"error\": \"only GET and HEAD are "
                           "answered\"}\n");
    if (strcmp(url, "/livez") == 0 && !post)
        return answer_text(c, MHD_HTTP_OK, "ok\n");
    if (strcmp(url, "/health") == 0 && !post)
        return health(h, c);
    zb_http_route_parse(&r, url);
    if (r.kind != ZB_ROUTE_NONE)
        return zb_http__dashboard(h, c, url, &r, method, up);
    if (post)
        return answer_json(c, MHD_HTTP_METHOD_NOT_ALLOWED,
                           "{\"error\": \"only GET and HEAD are "
                           "answered\"}\n");
    if (!zb_http__authed(h, c))
        return zb_http__answer(c, MHD_HTTP_UNAUTHORIZED, "application/json",
                               "{\"error\": \"unauthorized\"}\n", 26, 1);
    if (strcmp(url, "/metrics") == 0)
        return metrics(h, c);
    if (strcmp(url, "/demand") == 0)
        return demand(h, c);
    return answer_json(c, MHD_HTTP_NOT_FOUND,
                       "{\"error\": \"no such endpoint\"}\n");
}

/* ---- start, stop ---- */

static int listen_socket(int *fd_out, int *port_out, char *host,
                         size_t host_size, zb_ctx *ctx,
                         const char *listen_text)
{
    struct addrinfo hints, *res = NULL, *ai;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char port[16];
    int p, fd = -1, one = 1, rc, e = 0;

    if ((rc = zb_http_parse_listen(listen_text, host, host_size, &p,
                                   ctx)) < 0)
        return rc;
    snprintf(port, sizeof port, "%d", p);
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    if ((rc = getaddrinfo(host, port, &hints, &res)) != 0)
        return zb_fail(ctx, ZB_EUSAGE, "listen address %s: %s", listen_text,
                       gai_strerror(rc));
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
                    ai->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
            listen(fd, 64) == 0)
            break;
        e = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return zb_fail(ctx, ZB_EIO, "cannot listen on %s: %s", listen_text,
                       strerror(e ? e : EADDRNOTAVAIL));
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
        p = ss.ss_family == AF_INET6
                ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    *fd_out = fd;
    *port_out = p;
    return ZB_OK;
}

static void free_parts(zb_http *h)
{
    size_t i;

    if (h->token != NULL) {
        memset(h->token, 0, strlen(h->token));
        zb_free(h->token);
    }
    if (h->cookie != NULL) {
        memset(h->cookie, 0, strlen(h->cookie));
        zb_free(h->cookie);
    }
    for (i = 0; i < h->n_warehouses; i++)
        zb_free(h->warehouses[i]);
    zb_free(h->warehouses);
    zb_free(h);
}

int zb_http_start(zb_http **out, zb_ctx *ctx, const zb_http_opts *o)
{
    zb_http *h;
    char line[400], host[256];
    int fd = -1, rc;

    ZB_ASSERT_ARG(out != NULL && o != NULL && o->queue != NULL);
    *out = NULL;
    if ((h = zb_calloc(1, sizeof *h)) == NULL)
        return zb_fail_oom(ctx);
    h->queue = o->queue;
    if (o->classes != NULL && o->classes->n > 0)
        h->classes = *o->classes;
    else
        zb_size_classes_default(&h->classes);
    if (o->token != NULL && o->token[0] != '\0' &&
        (h->token = zb_strdup(o->token)) == NULL) {
        zb_free(h);
        return zb_fail_oom(ctx);
    }
    if (h->token != NULL &&
        (h->cookie = zb_malloc(strlen(h->token) * 2 + 1)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto fail;
    }
    if (h->cookie != NULL) {
        static const char hex[] = "0123456789abcdef";
        size_t i;

        for (i = 0; h->token[i] != '\0'; i++) {
            h->cookie[2 * i] = hex[(unsigned char)h->token[i] >> 4];
            h->cookie[2 * i + 1] = hex[(unsigned char)h->token[i] & 15];
        }
        h->cookie[2 * i] = '\0';
    }
    if (o->n_warehouses > 0) {
        size_t i;

        if ((h->warehouses = zb_calloc(o->n_warehouses,
                                       sizeof *h->warehouses)) == NULL) {
            rc = zb_fail_oom(ctx);
            goto fail;
        }
        for (i = 0; i < o->n_warehouses; i++, h->n_warehouses++)
            if ((h->warehouses[i] = zb_strdup(o->warehouses[i])) == NULL) {
                rc = zb_fail_oom(ctx);
                goto fail;
            }
    }
    h->health_timeout_ms = o->health_timeout_ms > 0 ? o->health_timeout_ms
                                                    : 2000;
    h->planner_counters = o->planner_counters;
    h->table_plan = o->table_plan;
    h->log_line = o->log_line;
    h->payload = o->payload;
    atomic_init(&h->health, -1);
    if ((rc = listen_socket(&fd, &h->port, host, sizeof host, ctx,
                            o->listen ? o->listen
                                      : ZB_HTTP_DEFAULT_LISTEN)) < 0)
        goto fail;
    h->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
                                MHD_USE_THREAD_PER_CONNECTION |
                                MHD_USE_ERROR_LOG,
                            0, NULL, NULL, on_request, h,
                            MHD_OPTION_LISTEN_SOCKET, fd,
                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)256,
                            MHD_OPTION_END);
    if (h->d == NULL) {
        close(fd);
        rc = zb_fail(ctx, ZB_EIO, "cannot start the HTTP server on %s",
                     o->listen ? o->listen : ZB_HTTP_DEFAULT_LISTEN);
        goto fail;
    }
    snprintf(line, sizeof line, "serve http listening=%s%s%s:%d token=%s",
             strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "",
             h->port, h->token ? "set" : "unset");
    log_to(h, line);
    *out = h;
    return ZB_OK;
fail:
    free_parts(h);
    return rc;
}

int zb_http_port(const zb_http *h)
{
    return h != NULL ? h->port : 0;
}

void zb_http_stop(zb_http *h)
{
    if (h == NULL)
        return;
    if (h->d != NULL)
        MHD_stop_daemon(h->d);     /* closes the listening socket too */
    free_parts(h);
}
