/*
 * cli/config/dotenv.c - reading the .env file (see dotenv.h for the rules).
 *
 * zb_dotenv_parse is a single pass over the bytes: for each logical line
 * it skips blanks and comments, takes an optional "export " prefix, the
 * key, '=', and the value in one of three forms (bare, '...' or "..."),
 * then requires the rest of the line to be blank or a comment. Quoted
 * values may run over several lines, so the line counter advances inside
 * them. Entries live in one arena, freed with the handle.
 *
 * zb_dotenv_find walks the candidates in order. The mode check happens
 * before a chosen file's values are used, so a refused file never
 * contributes a value.
 */
#define ZB_MODULE "dotenv"

#include "cli/config/dotenv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/arena.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"
#include "util/vec.h"

#define DOTENV_PREFIX "ZAMBONI_"
#define DOTENV_MAX_ENTRIES 4096

typedef struct dotenv_entry {
    const char *key;
    const char *value;
    unsigned line;
} dotenv_entry;

struct zb_dotenv {
    zb_arena *arena;
    char *path;
    zb_vec entries;          /* dotenv_entry, ZAMBONI_* keys only */
    size_t n_all;            /* every assignment, for tests */
};

static int is_key_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int is_key_char(char c)
{
    return is_key_start(c) || (c >= '0' && c <= '9');
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

void zb_dotenv_free(zb_dotenv *d)
{
    if (d == NULL)
        return;
    zb_vec_free(&d->entries);
    zb_arena_free(d->arena);
    zb_free(d);
}

/* The parser's cursor. */
typedef struct dotenv_cur {
    const char *p, *end;
    unsigned line;
    const char *name;
    zb_ctx *ctx;
} dotenv_cur;

static int syntax(dotenv_cur *c, const char *what)
{
    return zb_fail(c->ctx, ZB_EUSAGE, "%s:%u: %s", c->name, c->line, what);
}

static void skip_blanks(dotenv_cur *c)
{
    while (c->p < c->end && is_blank(*c->p))
        c->p++;
}

/* After a value: blanks, then a comment or the end of the line. */
static int finish_line(dotenv_cur *c, int allow_comment)
{
    skip_blanks(c);
    if (c->p < c->end && *c->p == '#' && allow_comment) {
        while (c->p < c->end && *c->p != '\n')
            c->p++;
    }
    if (c->p < c->end && *c->p != '\n')
        return syntax(c, "unexpected text after the value");
    if (c->p < c->end) {
        c->p++;
        c->line++;
    }
    return ZB_OK;
}

static int read_quoted(zb_buf *v, dotenv_cur *c)
{
    char q = *c->p++;
    unsigned start_line = c->line;

    while (c->p < c->end && *c->p != q) {
        char ch = *c->p++;
        if (ch == '\n')
            c->line++;
        if (ch == '\\' && q == '"' && c->p < c->end) {
            char e = *c->p++;
            switch (e) {
            case 'n': ch = '\n'; break;
            case 'r': ch = '\r'; break;
            case 't': ch = '\t'; break;
            case '"': case '\\': case '$': ch = e; break;
            default:
                /* unknown escapes stay as written */
                if (zb_buf_putc(v, '\\') < 0)
                    return zb_fail_oom(c->ctx);
                ch = e;
                if (e == '\n')
                    c->line++;
            }
        }
        if (zb_buf_putc(v, ch) < 0)
            return zb_fail_oom(c->ctx);
    }
    if (c->p >= c->end) {
        c->line = start_line;
        return syntax(c, q == '"' ? "unterminated double quote"
                                  : "unterminated single quote");
    }
    c->p++;   /* the closing quote */
    return ZB_OK;
}

static int read_bare(zb_buf *v, dotenv_cur *c)
{
    const char *s = c->p;
    while (c->p < c->end && *c->p != '\n') {
        /* " #" starts a comment; a '#' inside a word does not */
        if (*c->p == '#' && c->p > s && is_blank(c->p[-1]))
            break;
        c->p++;
    }
    const char *e = c->p;
    while (e > s && is_blank(e[-1]))
        e--;
    if (zb_buf_append(v, s, (size_t)(e - s)) < 0)
        return zb_fail_oom(c->ctx);
    return ZB_OK;
}

static int add_entry(zb_dotenv *d, dotenv_cur *c, const char *key,
                     size_t key_len, const zb_buf *v, unsigned line)
{
    dotenv_entry *slot;

    d->n_all++;
    if (key_len <= strlen(DOTENV_PREFIX) ||
        memcmp(key, DOTENV_PREFIX, strlen(DOTENV_PREFIX)) != 0)
        return ZB_OK;
    if (d->entries.len >= DOTENV_MAX_ENTRIES)
        return syntax(c, "too many ZAMBONI_* assignments");
    if (zb_vec_push(&d->entries, (void **)&slot) < 0)
        return zb_fail_oom(c->ctx);
    slot->key = zb_arena_strndup(d->arena, key, key_len);
    slot->value = zb_arena_strdup(d->arena, zb_buf_cstr(v));
    slot->line = line;
    if (slot->key == NULL || slot->value == NULL)
        return zb_fail_oom(c->ctx);
    return ZB_OK;
}

static int parse_line(zb_dotenv *d, dotenv_cur *c, zb_buf *v)
{
    const char *key;
    size_t key_len;
    unsigned line = c->line;
    int rc;

    skip_blanks(c);
    if (c->p >= c->end)
        return ZB_OK;
    if (*c->p == '\n' || *c->p == '#')
        return finish_line(c, 1);
    if ((size_t)(c->end - c->p) > 7 && memcmp(c->p, "export", 6) == 0 &&
        (c->p[6] == ' ' || c->p[6] == '\t')) {
        c->p += 6;
        skip_blanks(c);
    }
    key = c->p;
    if (c->p >= c->end || !is_key_start(*c->p))
        return syntax(c, "expected KEY=VALUE (a key is letters, digits "
                         "and '_', not starting with a digit)");
    while (c->p < c->end && is_key_char(*c->p))
        c->p++;
    key_len = (size_t)(c->p - key);
    skip_blanks(c);
    if (c->p >= c->end || *c->p != '=')
        return syntax(c, "expected '=' after the key");
    c->p++;
    skip_blanks(c);
    zb_buf_clear(v);
    if (c->p < c->end && (*c->p == '"' || *c->p == '\'')) {
        if ((rc = read_quoted(v, c)) < 0)
            return rc;
    } else if ((rc = read_bare(v, c)) < 0) {
        return rc;
    }
    if ((rc = finish_line(c, 1)) < 0)
        return rc;
    return add_entry(d, c, key, key_len, v, line);
}

int zb_dotenv_parse(zb_dotenv **out, zb_ctx *ctx, const char *name,
                    const char *text, size_t len)
{
    zb_dotenv *d = NULL;
    zb_buf v = ZB_BUF_INIT(ZB_DOTENV_MAX_BYTES);
    dotenv_cur c;
    int rc = ZB_OK;

    ZB_ASSERT_ARG(out && ctx && name && (text || len == 0));
    *out = NULL;
    c.p = text;
    c.end = text + len;
    c.line = 1;
    c.name = name;
    c.ctx = ctx;
    if (len > ZB_DOTENV_MAX_BYTES)
        return zb_fail(ctx, ZB_EUSAGE, "%s: larger than %u bytes", name,
                       ZB_DOTENV_MAX_BYTES);
    if (len > 0 && memchr(text, '\0', len) != NULL) {
        const char *nul = memchr(text, '\0', len);
        for (const char *q = text; q < nul; q++)
            if (*q == '\n')
                c.line++;
        return syntax(&c, "NUL byte (not a text file)");
    }
    if ((d = zb_calloc(1, sizeof(*d))) == NULL)
        return zb_fail_oom(ctx);
    zb_vec_init(&d->entries, sizeof(dotenv_entry), DOTENV_MAX_ENTRIES);
    if (zb_arena_new(&d->arena, 4 * (size_t)ZB_DOTENV_MAX_BYTES) < 0 ||
        (d->path = zb_arena_strdup(d->arena, name)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    while (c.p < c.end) {
        if ((rc = parse_line(d, &c, &v)) < 0)
            goto done;
    }
    *out = d;
    d = NULL;
done:
    zb_buf_free(&v);
    zb_dotenv_free(d);
    return rc;
}

/* The refusal itself, from a mode already read. */
static int refuse_open_mode(zb_ctx *ctx, const char *path, unsigned mode)
{
    if ((mode & 077) != 0)
        return zb_fail(ctx, ZB_EUSAGE,
                       "%s is readable by group or other (mode %03o); it "
                       "holds secrets: run chmod 600 %s", path,
                       mode & 0777, path);
    return ZB_OK;
}

int zb_dotenv_check_mode(zb_ctx *ctx, const char *path)
{
    struct stat st;

    ZB_ASSERT_ARG(ctx && path);
    if (stat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return zb_fail(ctx, ZB_ENOTFOUND, "%s: no such file", path);
        return zb_fail(ctx, ZB_EIO, "%s: %s", path, strerror(errno));
    }
    return refuse_open_mode(ctx, path, (unsigned)st.st_mode);
}

int zb_dotenv_load(zb_dotenv **out, zb_ctx *ctx, const char *path)
{
    zb_buf text = ZB_BUF_INIT(ZB_DOTENV_MAX_BYTES);
    int rc;

    unsigned mode = 0;

    ZB_ASSERT_ARG(out && ctx && path);
    *out = NULL;
    rc = zb_file_read_capped(&text, &mode, ctx, path, ZB_DOTENV_MAX_BYTES,
                             ZB_FILE_REGULAR);
    if (rc == ZB_OK)
        rc = refuse_open_mode(ctx, path, mode);
    if (rc == ZB_OK)
        rc = zb_dotenv_parse(out, ctx, path, text.ptr, text.len);
    zb_buf_free(&text);
    return rc;
}

/*
 * One of the searched candidates: skipped (ZB_OK, *out NULL) when missing
 * or without a ZAMBONI_* key; refused when its mode is open.
 */
static int try_candidate(zb_dotenv **out, zb_ctx *ctx, const char *path)
{
    zb_buf text = ZB_BUF_INIT(ZB_DOTENV_MAX_BYTES);
    zb_dotenv *d = NULL;
    unsigned mode = 0;
    int rc;

    *out = NULL;
    rc = zb_file_read_capped(&text, &mode, ctx, path, ZB_DOTENV_MAX_BYTES,
                             ZB_FILE_REGULAR);
    if (rc == ZB_ENOTFOUND) {
        zb_err_clear(&ctx->err);
        rc = ZB_OK;
        goto done;
    }
    if (rc < 0)
        goto done;
    rc = zb_dotenv_parse(&d, ctx, path, text.ptr, text.len);
    if (rc == ZB_EUSAGE && (text.len == 0 ||
                            strstr(text.ptr, DOTENV_PREFIX) == NULL)) {
        /* another tool's file that we cannot read and would not use */
        zb_err_clear(&ctx->err);
        rc = ZB_OK;
        goto done;
    }
    if (rc < 0 || zb_dotenv_count(d) == 0)
        goto done;
    if ((rc = refuse_open_mode(ctx, path, mode)) < 0)
        goto done;
    *out = d;
    d = NULL;
done:
    zb_dotenv_free(d);
    zb_buf_free(&text);
    return rc;
}

int zb_dotenv_find(zb_dotenv **out, zb_ctx *ctx, const char *env_flag,
                   const char *cwd, const char *root)
{
    zb_buf path = ZB_BUF_INIT(4096);
    int rc;

    ZB_ASSERT_ARG(out && ctx);
    *out = NULL;
    if (env_flag != NULL) {
        rc = zb_dotenv_load(out, ctx, env_flag);
        if (rc == ZB_ENOTFOUND)
            rc = zb_fail(ctx, ZB_EUSAGE, "--env %s: no such file",
                         env_flag);
        return rc;
    }
    if (zb_buf_appendf(&path, "%s/.env", cwd ? cwd : ".") < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = try_candidate(out, ctx, path.ptr)) < 0 || *out != NULL)
        goto done;
    if (root != NULL) {
        zb_buf_clear(&path);
        if (zb_buf_appendf(&path, "%s/.env", root) < 0) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
        rc = try_candidate(out, ctx, path.ptr);
    }
done:
    zb_buf_free(&path);
    return rc;
}

const char *zb_dotenv_path(const zb_dotenv *d)
{
    return d ? d->path : NULL;
}

static const dotenv_entry *find_last(const zb_dotenv *d, const char *key)
{
    if (d == NULL || key == NULL)
        return NULL;
    for (size_t i = d->entries.len; i > 0; i--) {
        const dotenv_entry *e = zb_vec_at(&d->entries, i - 1);
        if (strcmp(e->key, key) == 0)
            return e;
    }
    return NULL;
}

const char *zb_dotenv_get(const zb_dotenv *d, const char *key)
{
    const dotenv_entry *e = find_last(d, key);
    return e ? e->value : NULL;
}

unsigned zb_dotenv_line(const zb_dotenv *d, const char *key)
{
    const dotenv_entry *e = find_last(d, key);
    return e ? e->line : 0;
}

size_t zb_dotenv_count(const zb_dotenv *d)
{
    return d ? d->entries.len : 0;
}

const char *zb_dotenv_key(const zb_dotenv *d, size_t i)
{
    return (d && i < d->entries.len)
               ? ((const dotenv_entry *)zb_vec_at(&d->entries, i))->key
               : NULL;
}

const char *zb_dotenv_value(const zb_dotenv *d, size_t i)
{
    return (d && i < d->entries.len)
               ? ((const dotenv_entry *)zb_vec_at(&d->entries, i))->value
               : NULL;
}

int zb_dotenv_export(const zb_dotenv *d, zb_ctx *ctx)
{
    ZB_ASSERT_ARG(ctx);
    for (size_t i = 0; i < zb_dotenv_count(d); i++) {
        const char *k = zb_dotenv_key(d, i);
        if (getenv(k) != NULL)
            continue;
        /* the last assignment wins, as in zb_dotenv_get */
        if (setenv(k, zb_dotenv_get(d, k), 0) != 0)
            return zb_fail(ctx, ZB_ENOMEM, "setting %s: %s", k,
                           strerror(errno));
    }
    return ZB_OK;
}
