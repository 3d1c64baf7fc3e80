/*
 * tests/unit/catalog/cat_test.h - helpers shared by the catalog suites:
 * a catalog of a given kind in a fresh temporary folder (PostgreSQL from
 * $ZB_TEST_PG_URL, each case in a warehouse of its own; REST on the test
 * server of rest_server.c, started for the case in a child process), a
 * first table
 * metadata, and fake snapshots for commits.
 */
#ifndef CAT_TEST_H
#define CAT_TEST_H

#include <jansson.h>

#include "catalog/catalog.h"
#include "zbtest.h"

typedef struct cat_env {
    zb_ctx ctx;
    zb_io *io;
    zb_catalog *cat;
    zb_catalog_kind kind;
    char dir[512];                 /* the case's temporary folder */
    char warehouse[64];
    char db_path[600];             /* SQLite file */
    int rest_pid;                  /* REST: the test server's process */
    int rest_life;                 /* its lifeline pipe (write end) */
    char rest_uri[128];
} cat_env;

/* The PostgreSQL URL of the tests, or NULL (PostgreSQL cases skip). */
const char *cat_pg_url(void);

/* Opens a catalog of kind in a fresh folder. 0: skipped (no server). */
int cat_env_open(cat_env *e, zb_catalog_kind kind);
/* Opens another handle on the same catalog (as another process would). */
void cat_env_reopen(cat_env *e, zb_catalog **out);
void cat_env_close(cat_env *e);

/* First metadata of a table at location (one long column, v2). */
ice_metadata *cat_first_metadata(cat_env *e, const char *location);

/*
 * A fake append on the table's main branch: add-snapshot (parent: the
 * current snapshot, sequence number last + 1, manifest list under the
 * table's metadata folder, not written) and set-snapshot-ref main, with
 * the requirement assert-ref-snapshot-id main = the current snapshot.
 */
void cat_fake_append(json_t **reqs, json_t **updates, const zb_table *t,
                     int64_t snapshot_id, int64_t timestamp_ms);

/* A set-properties update of one key. */
json_t *cat_set_property(const char *key, const char *value);

/* Files directly in dir whose names end in suffix. */
size_t cat_count_files(const char *dir, const char *suffix);

int64_t cat_now_ms(void);

#endif
