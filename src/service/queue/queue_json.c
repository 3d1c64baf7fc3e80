/*
 * service/queue/queue_json.c - tasks, attempts and health as JSON
 * (queue_json.h), moved here from the CLI so that serve's API and the
 * CLI's --json print the same thing.
 */
#define ZB_MODULE "queue"

#include "service/queue/queue_json.h"

json_t *zb_queue_task_json(const zb_task *t)
{
    json_t *o = json_pack(
        "{s:I, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:i, s:i, s:I, s:i, s:i,"
        " s:I, s:I, s:I}",
        "id", (json_int_t)t->id, "warehouse", t->warehouse, "table",
        t->table, "operation", t->operation, "size_class", t->size_class,
        "state", t->state, "est_memory_bytes",
        (json_int_t)t->est_memory_bytes, "est_unspillable_bytes",
        (json_int_t)t->est_unspillable_bytes, "est_cores", t->est_cores,
        "priority", t->priority, "scheduled_for_ms",
        (json_int_t)t->scheduled_for_ms, "attempt", t->attempt,
        "max_attempts", t->max_attempts, "lease_expires_ms",
        (json_int_t)t->lease_expires_ms, "heartbeat_ms",
        (json_int_t)t->heartbeat_ms, "created_ms",
        (json_int_t)t->created_ms);

    if (o == NULL)
        return NULL;
    json_object_set_new(o, "worker_id", t->worker_id[0]
                                            ? json_string(t->worker_id)
                                            : json_null());
    json_object_set_new(o, "last_message", t->last_message[0]
                                               ? json_string(t->last_message)
                                               : json_null());
    /* progress and options are JSON object texts: embedded as objects. */
    json_object_set_new(o, "progress", t->progress[0]
                            ? json_loads(t->progress, 0, NULL) : json_null());
    json_object_set_new(o, "options", t->options[0]
                            ? json_loads(t->options, 0, NULL) : json_null());
    return o;
}

json_t *zb_queue_health_json(const zb_table_health *h)
{
    if (!h->known)
        return json_null();
    return json_pack("{s:I, s:I, s:I, s:I, s:I}", "data_files",
                     (json_int_t)h->data_files, "data_bytes",
                     (json_int_t)h->data_bytes, "delete_files",
                     (json_int_t)h->delete_files, "snapshots",
                     (json_int_t)h->snapshots, "metadata_bytes",
                     (json_int_t)h->metadata_bytes);
}

json_t *zb_queue_attempt_json(const zb_attempt *a)
{
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:I, s:I}",
                          "warehouse", a->warehouse, "table", a->table,
                          "operation", a->operation, "size_class",
                          a->size_class, "worker_id", a->worker_id,
                          "attempt", a->attempt, "outcome", a->outcome,
                          "started_ms", (json_int_t)a->started_ms,
                          "finished_ms", (json_int_t)a->finished_ms);
    if (j == NULL)
        return NULL;
    json_object_set_new(j, "task_id", a->task_id > 0
                            ? json_integer(a->task_id) : json_null());
    json_object_set_new(j, "message", a->message[0]
                            ? json_string(a->message) : json_null());
    json_object_set_new(j, "report", a->report
                            ? json_string(a->report) : json_null());
    json_object_set_new(j, "before", zb_queue_health_json(&a->before));
    json_object_set_new(j, "after", zb_queue_health_json(&a->after));
    return j;
}
