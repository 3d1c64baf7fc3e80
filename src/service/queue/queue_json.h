/*
 * service/queue/queue_json.h - the JSON form of a task, an attempt and a
 * table's health: one place, so that `zamboni tasks list --json`,
 * `zamboni history --json` and serve's /api/v1 answers carry the same
 * fields. Only the CLI and service/http include it (jansson's json_t
 * reaches no other zb header).
 *
 * Each returns a new reference, NULL when out of memory.
 *   task:     id, warehouse, table, operation, size_class, state,
 *             est_memory_bytes, est_unspillable_bytes, est_cores,
 *             priority, scheduled_for_ms, attempt, max_attempts,
 *             lease_expires_ms, heartbeat_ms, created_ms, worker_id|null,
 *             last_message|null, progress|null, options|null
 *   attempt:  warehouse, table, operation, size_class, worker_id,
 *             attempt, outcome, started_ms, finished_ms, task_id|null,
 *             message|null, report|null, before|null, after|null
 *   health:   null when not measured, else data_files, data_bytes,
 *             delete_files, snapshots, metadata_bytes
 */
#ifndef ZB_SERVICE_QUEUE_JSON_H
#define ZB_SERVICE_QUEUE_JSON_H

#include <jansson.h>

#include "service/queue/queue.h"

json_t *zb_queue_task_json(const zb_task *t);
json_t *zb_queue_attempt_json(const zb_attempt *a);
json_t *zb_queue_health_json(const zb_table_health *h);

#endif
