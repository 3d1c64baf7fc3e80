/*
 * zb-manifest-gen OUT_DIR - writes the sample table of
 * tests/unit/table/manifest_sample.c for format versions 1, 2 and 3,
 * partitioned and not, as table folders OUT_DIR/v<N>-<part|unpart>, for
 * avsc_manifests.mjs to compare with what our reader makes of them and
 * check_written.mjs to check the schemas' field ids.
 */
#include <stdio.h>
#include <stdlib.h>

#include "io/io.h"
#include "manifest_sample.h"

int main(int argc, char **argv)
{
    zb_ctx ctx;
    zb_io *io = NULL;
    char dir[4096];
    int v, p, ret = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: zb-manifest-gen OUT_DIR\n");
        return 2;
    }
    zb_ctx_init(&ctx);
    if (zb_io_new(&io, &ctx) < 0)
        return 1;
    for (v = 1; v <= 3; v++) {
        for (p = 0; p <= 1; p++) {
            mfs_result res;
            char cmd[4200];
            snprintf(dir, sizeof dir, "%s/v%d-%s", argv[1], v,
                     p ? "part" : "unpart");
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
            if (system(cmd) != 0)
                return 1;
            if (mfs_write_table(io, &ctx, dir, v, p, &res) < 0) {
                fprintf(stderr, "zb-manifest-gen: %s: %s\n", dir,
                        ctx.err.msg);
                ret = 1;
            } else {
                printf("wrote %s (%d manifests)\n", dir, res.n_manifests);
            }
        }
    }
    zb_io_free(io);
    return ret;
}
