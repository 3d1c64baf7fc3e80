/*
 * plan/scan/scan_task.h - the unit of work scan planning hands to readers: one
 * live data file and the delete files that apply to it by the rules of
 * format/spec.md "Scan Planning". Shared by the planner (plan/scan/scan_plan.h)
 * and the row stream (plan/read/scan_read.h).
 *
 * Lifetimes are the producer's: a task the planner yields is valid until
 * its next call (the data file is the manifest reader's entry; the delete
 * files live until the planner is freed). zb_scan_task_copy
 * (plan/scan/scan_plan.h) makes a deep copy to keep.
 */
#ifndef ZB_PLAN_SCAN_TASK_H
#define ZB_PLAN_SCAN_TASK_H

#include <stddef.h>
#include <stdint.h>

#include "table/manifest/manifest.h"

/* A file as the planner found it in a manifest. */
typedef struct zb_scan_file {
    const ice_data_file *file;     /* content, path, partition, counts... */
    int64_t data_sequence_number;  /* after inheritance; 0 in v1 */
    int32_t spec_id;               /* of the manifest it was listed in */
    /* The URI to open: file->file_path through the table's remaps. */
    const char *uri;
} zb_scan_file;

typedef struct zb_scan_task {
    zb_scan_file data;
    /*
     * The delete files that apply, in this order: deletion vectors (at
     * most one, v3), then position delete files, then equality delete
     * files; each group by ascending data sequence number.
     */
    size_t n_deletes;
    const zb_scan_file *deletes;
} zb_scan_task;

#endif
