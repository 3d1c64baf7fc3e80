/*
 * Shared by the scan planning tests: opening a fixture table of
 * ../shared/fixtures with its location remapped to its folder, and
 * planning a snapshot into a plain list of tasks.
 */
#ifndef ZB_TEST_PLAN_SCAN_H
#define ZB_TEST_PLAN_SCAN_H

#include "io/io.h"
#include "plan/scan/scan_plan.h"
#include "zbtest.h"

typedef struct sfx {
    char dir[1024];
    char up[1024];                 /* for impala-multi-location */
    zb_ctx ctx;
    zb_io *io;
    ice_metadata *m;
    ice_path_remap remaps[3];
    ice_manifest_opts o;
} sfx;

#define SCAN_MAX_DELETES 16

typedef struct stask {
    char path[1024];
    char uri[1200];
    int64_t seq;
    int32_t spec_id;
    int64_t records;
    size_t n;
    struct {
        char path[1024];
        char uri[1200];
        int content;
        int dv;
        int64_t seq;
        int64_t offset;
    } d[SCAN_MAX_DELETES];
} stask;

typedef struct splan {
    size_t n;
    stask *t;
    zb_scan_stats st;
} splan;

/* Opens fixture name from dir (fixtures root or a copy); 0 if missing. */
int sfx_open_at(sfx *f, const char *root, const char *name);
int sfx_open(sfx *f, const char *name);
void sfx_close(sfx *f);

/* Plans snap (NULL: current) with preds into out; returns the rc. */
int splan_run(splan *out, sfx *f, const ice_snapshot *snap,
              const zb_scan_pred *preds, size_t n_preds);
/* The same with the plan's manifests read on threads threads. */
int splan_run_threads(splan *out, sfx *f, const ice_snapshot *snap,
                      const zb_scan_pred *preds, size_t n_preds,
                      unsigned threads);
void splan_free(splan *p);
/* The task whose data path contains needle (exactly one), or fails. */
const stask *splan_find(const splan *p, const char *needle);

#endif
