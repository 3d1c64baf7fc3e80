/*
 * cli/config/profile.h - zamboni.yml, the non-secret configuration (seed 003,
 * section 2; ZAMBONI-INTERFACE.md section 2).
 *
 * Keys, all optional:
 *     uri: https://catalog.internal/catalog   catalog URI (see settings.h)
 *     warehouse: acme
 *     engine: local                            local | spark | trino
 *     root: /srv/zamboni                       default ~/.zamboni
 *     memory_budget_bytes: 2147483648          the process's memory budget
 *                                              (0: none; cli/config/resources.h)
 *     threads: 4                               1..256 (default: the cores rule)
 *     operations: [compact, expire]            a subset of the six, in the
 *                                              order given (default: all)
 *     tables: [db.events]                      default: the table config's
 *     trino: {host, port, user, catalog, version}
 *     spark: {remote, master, catalog}
 *     size_classes:                            worker size classes
 *       - {name: standard, cores: 2, memory: 8Gi, max_jobs: 2}
 *     size_class, workers, drain_timeout, max_lifetime, idle_exit_after,
 *     lease_seconds, heartbeat_seconds, spill_disk_limit_bytes,
 *     queue_max_tasks, max_attempts      the worker's and the queue's
 *                                        scalars (settings.h)
 *     spill_compression                  auto, always or never
 * An unknown key is an error naming it, the file and the line. A key that
 * names a secret (credential, token, password, secret, ...) is refused
 * with a message pointing at the environment or .env instead: the profile
 * is meant to be readable and committed. A key whose value is empty or
 * null counts as absent.
 *
 * A profile is parsed whole and checked before anything is used; a syntax
 * error or a truncated file is reported as "FILE:LINE: what" with
 * ZB_EUSAGE (exit 2 at the CLI).
 */
#ifndef ZB_CLI_PROFILE_H
#define ZB_CLI_PROFILE_H

#include <stddef.h>

#include "zamboni/zamboni.h"

typedef struct zb_profile zb_profile;

/* Largest zamboni.yml read, in bytes. */
#define ZB_PROFILE_MAX_BYTES (1u << 20)

/* The six operations in the order maintenance runs them. */
extern const char *const zb_profile_operation_names[6];

/*
 * Parses text (len bytes) named name in messages. ZB_EUSAGE on any
 * error, ZB_ENOMEM.
 */
int zb_profile_parse(zb_profile **out, zb_ctx *ctx, const char *name,
                     const char *text, size_t len);

/* Reads and parses path. ZB_ENOTFOUND when it does not exist. */
int zb_profile_load(zb_profile **out, zb_ctx *ctx, const char *path);

void zb_profile_free(zb_profile *p);

/* The name or path the profile was parsed as; borrowed. */
const char *zb_profile_path(const zb_profile *p);

/*
 * A scalar key, dotted for the nested ones: "uri", "warehouse", "engine",
 * "root", "trino.host", "trino.port", "trino.user", "trino.catalog",
 * "trino.version", "spark.remote", "spark.master", "spark.catalog",
 * the worker's scalars, and "size_classes": the list as JSON text (an
 * array of objects; cores and max_jobs integers, memory an integer or the
 * text given), which zb_size_classes_parse_json (service/size_class.h)
 * checks as it checks ZAMBONI_SIZE_CLASSES.
 * Returns the value (borrowed) or NULL when absent; *line (may be NULL)
 * gets its 1-based line.
 */
const char *zb_profile_get(const zb_profile *p, const char *key,
                           unsigned *line);

/*
 * The operations list: NULL when the key is absent (run all six), else
 * n_out names validated against zb_profile_operation_names, in the
 * file's order, without repeats. Borrowed.
 */
const char *const *zb_profile_operations(const zb_profile *p, size_t *n_out,
                                         unsigned *line);

/* The tables list: NULL when absent, else n_out non-empty names. */
const char *const *zb_profile_tables(const zb_profile *p, size_t *n_out,
                                     unsigned *line);

#endif
