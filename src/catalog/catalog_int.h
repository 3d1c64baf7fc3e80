/*
 * catalog/catalog_int.h - private to src/catalog: the catalog handle, the
 * vtable every backend fills, the backend constructors, and helpers the
 * backends share (tables, identifiers, error context).
 *
 * Opening: zb_catalog_open (catalog.c) allocates the handle, copies the
 * common configuration (name, kind, io, remaps), then calls the backend
 * constructor for cfg->kind, which sets c->ops, c->caps and c->backend.
 * A constructor that fails frees what it allocated itself and leaves
 * c->backend NULL; catalog.c frees the rest. zb_catalog_free calls
 * ops->destroy(c) (which frees c->backend only) and then the handle.
 *
 * The public functions in catalog.c check their arguments, call the op
 * (an op left NULL answers ZB_EUNSUPPORTED with a message), and on
 * failure put "catalog <name> (<kind>): " in front of the backend's
 * message, so a backend names the table and what failed, not the catalog.
 */
#ifndef ZB_CATALOG_CATALOG_INT_H
#define ZB_CATALOG_CATALOG_INT_H

#include "catalog/catalog.h"

typedef struct zb_catalog_ops {
    unsigned version;              /* ZB_CATALOG_OPS_VERSION */
    int (*list_warehouses)(zb_catalog *c, zb_ctx *ctx,
                           zb_catalog_list_cb fn, void *payload);
    int (*list_namespaces)(zb_catalog *c, zb_ctx *ctx, const char *parent,
                           zb_catalog_list_cb fn, void *payload);
    int (*list_tables)(zb_catalog *c, zb_ctx *ctx, const char *ns,
                       zb_catalog_list_cb fn, void *payload);
    int (*create_namespace)(zb_catalog *c, zb_ctx *ctx, const char *ns);
    int (*load_table)(zb_catalog *c, zb_ctx *ctx, const char *ident,
                      zb_table **out);
    /* location is never NULL here when the backend cannot choose one;
     * catalog.c passes the caller's value through unchanged. */
    int (*create_table)(zb_catalog *c, zb_ctx *ctx, const char *ident,
                        const char *location, const ice_metadata *first,
                        zb_table **out);
    int (*register_table)(zb_catalog *c, zb_ctx *ctx, const char *ident,
                          const char *metadata_location, zb_table **out);
    /* out is never NULL here: catalog.c frees the table if its caller
     * passed NULL. */
    int (*commit)(zb_catalog *c, zb_ctx *ctx, const zb_table *base,
                  const zb_json *requirements, const zb_json *updates,
                  zb_table **out);
    int (*drop_table)(zb_catalog *c, zb_ctx *ctx, const char *ident);
    /* Frees c->backend (not the handle). May be NULL. (Not named "free":
     * tools/checksrc bans that call name.) */
    void (*destroy)(zb_catalog *c);
} zb_catalog_ops;

#define ZB_CATALOG_OPS_VERSION 1

struct zb_catalog {
    const zb_catalog_ops *ops;     /* set by the backend constructor */
    zb_catalog_kind kind;
    char *name;                    /* cfg->name, or the kind's name */
    unsigned caps;                 /* ZB_CATALOG_CAP_*, set by the backend */
    zb_io *io;                     /* borrowed from the opener, unless */
    int owns_io;                   /* cfg->owns_io: freed with the handle */
    unsigned s3_pinned;            /* cfg->s3_pinned */
    /* cfg->remaps, copied (strings owned). */
    size_t n_remaps;
    ice_path_remap *remaps;
    void *backend;                 /* the backend's state */
    const zb_commit_fence *fence;  /* zb_catalog_set_fence; NULL: none */
};

/*
 * Backend constructors: fill c->ops, c->caps and c->backend from cfg.
 * Codes: ZB_EUSAGE (bad configuration, such as a malformed connection
 * string), ZB_EIO (a server that does not answer), ZB_ENOMEM,
 * ZB_EUNSUPPORTED (a backend this build does not have).
 */
int zb_catalog__path_open(zb_catalog *c, zb_ctx *ctx,
                          const zb_catalog_config *cfg);
/* ZB_EREFUSED for a table folder on an object store (catalog.h,
 * zb_catalog_check_writable); ZB_OK otherwise. */
int zb_catalog__path_writable(zb_ctx *ctx, const char *folder);
/* For an ident naming a metadata file: ZB_EREFUSED unless it is its
 * table folder's newest (a change from an older one would fork the table,
 * a deletion from it lose newer files); ZB_OK for a folder. */
int zb_catalog__path_check_named(zb_catalog *c, zb_ctx *ctx,
                                 const char *ident);
/* SQLITE and POSTGRES: cfg->sqldb, or the database cfg names. */
int zb_catalog__sql_open_config(zb_catalog *c, zb_ctx *ctx,
                                const zb_catalog_config *cfg);
int zb_catalog__rest_open(zb_catalog *c, zb_ctx *ctx,
                          const zb_catalog_config *cfg);

/*
 * Private part of a zb_table. Backends may hang their own state on it
 * (backend, freed with backend_free).
 */
struct zb_table_int {
    /* Remaps in t->paths: the catalog's, then the backend's (for PATH,
     * the recorded location -> the folder). Strings owned. */
    size_t n_remaps;
    ice_path_remap *remaps;
    /* Strip scheme and authority in the resolve callback and remap
     * again (PATH). */
    int strip_scheme;
    void *backend;
    void (*backend_free)(void *backend);
};

/*
 * A new table with ident, metadata_location and root copied and meta
 * taken over (freed on failure too). root NULL: meta->location through
 * the catalog's remaps (a moved table's files are written under its new
 * location). t->paths gets the catalog's remaps; add more with
 * zb_table__add_remap.
 */
int zb_table__new(zb_table **out, zb_ctx *ctx, const zb_catalog *c,
                  const char *ident, const char *metadata_location,
                  ice_metadata *meta, const char *root);

/*
 * uri through the catalog's remaps (the first match wins), as a new
 * string (*out: zb_free): where a path a catalog names is read and
 * written when its table was moved.
 */
int zb_catalog__remap(char **out, zb_ctx *ctx, const zb_catalog *c,
                      const char *uri);

/* Appends a remap (strings copied) after those already in t->paths. */
int zb_table__add_remap(zb_table *t, zb_ctx *ctx, const char *from,
                        const char *to);

/* Appends one key/value pair to t->config (strings copied). */
int zb_table__add_config(zb_table *t, zb_ctx *ctx, const char *key,
                         const char *value);

/*
 * Splits "a.b.tbl" at the last '.' into a namespace ("a.b") and a name
 * ("tbl"), both freed with zb_free. ZB_EUSAGE (message naming ident) when
 * there is no '.', or either part is empty.
 */
int zb_catalog__split_ident(char **ns_out, char **name_out, zb_ctx *ctx,
                            const char *ident);

/* The length of "scheme://authority" at the start of path (0: none);
 * "file:" without an authority counts as a scheme too. */
size_t zb_catalog__scheme_len(const char *path);

/*
 * c->fence evaluated in its database (catalog_fence.c): ZB_OK when there
 * is none or it holds, ZB_EFENCED (message naming fence->what) when it
 * does not, another code when the database failed (no commit either).
 */
int zb_catalog__fence_check(zb_catalog *c, zb_ctx *ctx);

/* The current wall-clock time in ms since the epoch. */
int64_t zb_catalog__now_ms(void);

#endif
