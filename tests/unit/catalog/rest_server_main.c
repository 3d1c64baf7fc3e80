/*
 * zb-test-rest-server: the REST catalog test server (rest_server.c) as a
 * process of its own, for the command-line tests of tables on S3
 * (tests/s3/s3_creds_refresh.sh): it vends temporary S3 keys with each
 * table and answers loadCredentials with fresh ones, and reads and
 * writes its metadata files on the S3 store through its own keys (the
 * AWS chain: AWS_ACCESS_KEY_ID ...).
 *
 *   zb-test-rest-server --dir DIR --s3-endpoint URL [--vend-ttl-ms N]
 *       [--vend-grace-ms N] [--vend-endpoint URL]
 *
 * Prints "listening PORT" (its URI is http://127.0.0.1:PORT/catalog),
 * then serves until SIGTERM or SIGINT.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rest_server.h"
#include "zamboni/io_s3.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static int usage(const char *why)
{
    fprintf(stderr, "zb-test-rest-server: %s\nusage: zb-test-rest-server "
            "--dir DIR --s3-endpoint URL [--vend-ttl-ms N] "
            "[--vend-grace-ms N] [--vend-endpoint URL]\n", why);
    return 2;
}

int main(int argc, char **argv)
{
    rest_server_opts o = { 0 };
    zb_s3_config s3 = { 0 };
    rest_server *srv = NULL;
    const char *dir = NULL, *port;
    zb_ctx ctx;

    o.vend_temporary = 1;
    o.vend_ttl_ms = 3600 * 1000;
    s3.path_style = 1;
    for (int i = 1; i < argc; i += 2) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL)
            return usage("an option without its value");
        if (strcmp(k, "--dir") == 0)
            dir = v;
        else if (strcmp(k, "--s3-endpoint") == 0)
            s3.endpoint = v;
        else if (strcmp(k, "--vend-ttl-ms") == 0)
            o.vend_ttl_ms = strtol(v, NULL, 10);
        else if (strcmp(k, "--vend-grace-ms") == 0)
            o.vend_grace_ms = strtol(v, NULL, 10);
        else if (strcmp(k, "--vend-endpoint") == 0)
            o.vend_endpoint = v;
        else
            return usage("unknown option");
    }
    if (dir == NULL || s3.endpoint == NULL)
        return usage("--dir and --s3-endpoint are needed");
    zb_ctx_init(&ctx);
    if (rest_server_start(&srv, dir, &o) != 0)
        return usage("the server did not start");
    if (zb_io_add_s3(rest_server_io(srv), &ctx, &s3) != ZB_OK) {
        fprintf(stderr, "zb-test-rest-server: %s\n", ctx.err.msg);
        rest_server_stop(srv);
        return 1;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    port = strrchr(rest_server_uri(srv), ':') + 1;
    printf("listening %.*s\n", (int)strcspn(port, "/"), port);
    fflush(stdout);
    while (!stop)
        sleep(1);                    /* a signal cuts it short */
    rest_server_stop(srv);
    return 0;
}
