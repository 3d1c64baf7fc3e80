/*
 * Helpers of the scan planning tests (scan_test.h): fixture tables
 * opened with their recorded location remapped to their folder (as
 * fixtures/README.md says), and plans copied into plain structs.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scan_test.h"
#include "util/alloc.h"

static int is_dir(const char *p)
{
    struct stat st;

    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int sfx_open_at(sfx *f, const char *root, const char *name)
{
    char meta[1200], *uri = NULL;
    size_t n = 0;

    memset(f, 0, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "%s/%s", root, name);
    snprintf(meta, sizeof meta, "%s/metadata", f->dir);
    if (!is_dir(f->dir))
        return 0;
    if (!is_dir(meta)) {           /* the table is one level down */
        DIR *d = opendir(f->dir);
        struct dirent *de;
        snprintf(f->up, sizeof f->up, "%s", f->dir);
        while (d && (de = readdir(d)) != NULL) {
            char sub[1200];
            if (de->d_name[0] == '.')
                continue;
            snprintf(sub, sizeof sub, "%s/%s/metadata", f->up, de->d_name);
            if (is_dir(sub)) {
                snprintf(f->dir, sizeof f->dir, "%s/%s", f->up, de->d_name);
                break;
            }
        }
        if (d)
            closedir(d);
    }
    zb_ctx_init(&f->ctx);
    ZBT_OK_CTX(zb_io_new(&f->io, &f->ctx), &f->ctx);
    ZBT_OK_CTX(ice_metadata_find_latest(&uri, f->io, &f->ctx, f->dir),
               &f->ctx);
    ZBT_OK_CTX(ice_metadata_load(&f->m, f->io, &f->ctx, uri), &f->ctx);
    zb_free(uri);
    f->remaps[n].from = f->m->location;
    f->remaps[n++].to = f->dir;
    if (strncmp(f->m->location, "./", 2) == 0) {
        f->remaps[n].from = f->m->location + 2;
        f->remaps[n++].to = f->dir;
    }
    if (f->up[0] != '\0') {
        f->remaps[n].from = "/test-warehouse/iceberg_test/hadoop_catalog/ice";
        f->remaps[n++].to = f->up;
    }
    {
        ice_manifest_opts o = ICE_MANIFEST_OPTS_INIT;
        f->o = o;
    }
    f->o.remaps = f->remaps;
    f->o.n_remaps = n;
    return 1;
}

int sfx_open(sfx *f, const char *name)
{
    return sfx_open_at(f, ZB_FIXTURES_DIR, name);
}

void sfx_close(sfx *f)
{
    ice_metadata_free(f->m);
    zb_io_free(f->io);
    f->m = NULL;
    f->io = NULL;
}

static int is_dv(const ice_data_file *d)
{
    return d->content == ICE_CONTENT_POSITION_DELETES &&
        d->file_format != NULL && (strcmp(d->file_format, "puffin") == 0 ||
                                   strcmp(d->file_format, "PUFFIN") == 0);
}

int splan_run(splan *out, sfx *f, const ice_snapshot *snap,
              const zb_scan_pred *preds, size_t n_preds)
{
    return splan_run_threads(out, f, snap, preds, n_preds, 1);
}

int splan_run_threads(splan *out, sfx *f, const ice_snapshot *snap,
                      const zb_scan_pred *preds, size_t n_preds,
                      unsigned threads)
{
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *p = NULL;
    const zb_scan_task *t;
    size_t cap = 0, i;
    int rc;

    memset(out, 0, sizeof *out);
    if (snap == NULL)
        snap = ice_metadata_current_snapshot(f->m);
    ZBT_CHECK(snap != NULL);
    po.manifest = &f->o;
    po.preds = preds;
    po.n_preds = n_preds;
    po.threads = threads;
    if ((rc = zb_scan_plan_open(&p, f->io, &f->ctx, f->m, snap, &po)) < 0)
        return rc;
    while ((rc = zb_scan_plan_next(p, &f->ctx, &t)) > 0) {
        stask *s;
        if (out->n == cap) {
            cap = cap ? cap * 2 : 16;
            out->t = realloc(out->t, cap * sizeof *out->t);
            ZBT_CHECK(out->t != NULL);
        }
        s = &out->t[out->n++];
        memset(s, 0, sizeof *s);
        snprintf(s->path, sizeof s->path, "%s", t->data.file->file_path);
        s->seq = t->data.data_sequence_number;
        s->spec_id = t->data.spec_id;
        s->records = t->data.file->record_count;
        ZBT_CHECK(t->data.uri != NULL);
        snprintf(s->uri, sizeof s->uri, "%s", t->data.uri);
        ZBT_CHECK(t->n_deletes <= SCAN_MAX_DELETES);
        s->n = t->n_deletes;
        for (i = 0; i < t->n_deletes; i++) {
            const zb_scan_file *d = &t->deletes[i];
            snprintf(s->d[i].path, sizeof s->d[i].path, "%s",
                     d->file->file_path);
            s->d[i].content = (int)d->file->content;
            s->d[i].dv = is_dv(d->file);
            s->d[i].seq = d->data_sequence_number;
            s->d[i].offset = d->file->content_offset;
            ZBT_CHECK(d->uri != NULL);
            snprintf(s->d[i].uri, sizeof s->d[i].uri, "%s", d->uri);
        }
    }
    zb_scan_plan_stats(&out->st, p);
    zb_scan_plan_free(p);
    return rc;
}

void splan_free(splan *p)
{
    free(p->t);
    memset(p, 0, sizeof *p);
}

const stask *splan_find(const splan *p, const char *needle)
{
    const stask *hit = NULL;
    size_t i;

    for (i = 0; i < p->n; i++)
        if (strstr(p->t[i].path, needle) != NULL) {
            if (hit != NULL)
                zbt__fail(__FILE__, __LINE__, "two tasks match %s", needle);
            hit = &p->t[i];
        }
    if (hit == NULL)
        zbt__fail(__FILE__, __LINE__, "no task matches %s", needle);
    return hit;
}
