/*
 * cli/verbs/queue_open.h - the task queue's database for the verbs that
 * use it (db migrate, enqueue, tasks, history, worker; maintenance
 * records its runs there):
 *   queue_uri (--queue-uri, ZAMBONI_QUEUE_URI) sqlite:PATH or
 *       postgresql://... (the write URL; ZAMBONI_PG_READ_URL and the
 *       ZAMBONI_PG_WRITE_POOL and ZAMBONI_PG_READ_POOL sizes as for the SQL catalog); a queue_uri equal
 *       to the catalog's uri uses the catalog's own handle;
 *   else, when the configured catalog is SQL, the catalog's own handle
 *       (one set of connections; fenced commits in one statement);
 *   else SQLite at $ZAMBONI_ROOT/queue.db.
 */
#ifndef ZB_CLI_QUEUE_OPEN_H
#define ZB_CLI_QUEUE_OPEN_H

#include "cli/verbs/verbs.h"
#include "service/queue/queue.h"
#include "service/size_class.h"

/* The queue's database (a new reference: zb_sqldb_close it). ZB_EUSAGE
 * for a queue_uri that names neither SQLite nor PostgreSQL. */
int zb_verb_queue_db(zb_sqldb **out, zb_verb_env *env, zb_ctx *ctx);

/* zb_verb_queue_db and zb_queue_open (the schema checked, never
 * applied: ZB_EREFUSED, exit 3, until `zamboni db migrate`). The size
 * classes of zb_verb_size_classes are set on it. */
int zb_verb_queue_open(zb_queue **out, zb_verb_env *env, zb_ctx *ctx);

/* Whether a queue is configured for maintenance to record its runs in:
 * queue_uri is set, or the SQL catalog's database holds the current
 * queue schema. *out (a new reference) or NULL. Never an error: *why
 * says why not, for --verbose. */
void zb_verb_queue_for_records(zb_queue **out, char *why, size_t why_size,
                               zb_verb_env *env, zb_ctx *ctx);

/* The configured size classes: ZAMBONI_SIZE_CLASSES (JSON), else the
 * built-in one. ZB_EUSAGE naming the setting's origin when malformed. */
int zb_verb_size_classes(zb_size_classes *out, zb_verb_env *env,
                         zb_ctx *ctx);

/* The clock rule (serve and worker at start): warns on stderr, "zamboni
 * VERB: warning: this host's clock is N s ahead of|behind the queue
 * database's ...", past ZB_QUEUE_CLOCK_SKEW_WARN_MS of skew. A failed
 * read is a warning too: never an error. */
void zb_verb_queue_clock_check(zb_queue *q, const char *verb);

/*
 * Whether the catalog cfg names lives in the queue's database (queue_uri
 * unset, or naming the same SQLite file or PostgreSQL URL), so that the
 * service's catalog handles can use the queue's zb_sqldb: shared
 * connections, and the commit fence inside the compare-and-swap.
 */
int zb_verb_catalog_in_queue_db(const zb_settings *s,
                                const zb_catalog_config *cfg);

/*
 * A catalog handle for warehouse as the worker and serve open one per
 * thread: the configured catalog with its own FileIO (S3 settings
 * included), on the queue's zb_sqldb when share_db. The caller serialises
 * calls that share env's settings.
 */
int zb_verb_service_catalog(zb_catalog **out, zb_ctx *ctx,
                            const zb_verb_env *env, zb_queue *q, int share_db,
                            const char *warehouse);

#endif
