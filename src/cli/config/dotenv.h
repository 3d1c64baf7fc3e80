/*
 * cli/config/dotenv.h - the .env file: secrets for cron jobs, kept out of the
 * crontab (seed 003, section 3).
 *
 * Where it is found, first match wins: --env FILE, ./.env,
 * $ZAMBONI_ROOT/.env. A candidate counts only when it holds at least one
 * ZAMBONI_* key (a ./.env of another tool in the working directory is
 * passed over), and only ZAMBONI_* keys are loaded from it. A file that
 * group or other may read (any of the mode bits 077) is refused: it holds
 * credentials. Real environment variables win over the file; the file is
 * consulted, never written into the environment unless the caller asks
 * (zb_dotenv_export).
 *
 * Syntax, one assignment a line:
 *     # comment
 *     export ZAMBONI_TOKEN=abc          "export " is allowed and ignored
 *     ZAMBONI_URI = https://x/catalog   spaces around '=' are trimmed
 *     ZAMBONI_SCOPE=catalog  # note     unquoted: " #" starts a comment
 *     ZAMBONI_CREDENTIAL='id:se#cret'   single quotes: taken literally
 *     ZAMBONI_SCOPE="a\nb \"q\""        double quotes: \n \r \t \" \\ \$
 * Quoted values may span lines. Blank lines are skipped; CRLF is accepted.
 * Anything else (no '=', a bad key, text after a closing quote, an
 * unterminated quote, a NUL byte) is an error naming the file and line.
 */
#ifndef ZB_CLI_DOTENV_H
#define ZB_CLI_DOTENV_H

#include <stddef.h>

#include "util/buf.h"
#include "zamboni/zamboni.h"

typedef struct zb_dotenv zb_dotenv;

/* Largest .env read, in bytes. */
#define ZB_DOTENV_MAX_BYTES (1u << 20)

/*
 * Parses text (len bytes, need not be NUL-terminated) named name in
 * messages. Every key is kept, ZAMBONI_* or not (zb_dotenv_get filters).
 * ZB_EUSAGE on a syntax error ("NAME:LINE: ..."), ZB_ENOMEM.
 */
int zb_dotenv_parse(zb_dotenv **out, zb_ctx *ctx, const char *name,
                    const char *text, size_t len);

/*
 * Refuses a file whose mode lets group or other read or write it:
 * ZB_EUSAGE, "PATH is readable by group or other (mode 644); it holds
 * secrets: run chmod 600 PATH". ZB_ENOTFOUND when it does not exist,
 * ZB_EIO when it cannot be examined.
 */
int zb_dotenv_check_mode(zb_ctx *ctx, const char *path);

/*
 * Finds and loads the .env: env_flag (--env, may be NULL; must exist),
 * else ./.env (cwd NULL: "."), else root/.env (root may be NULL). *out
 * is NULL when no candidate holds a ZAMBONI_* key (not an error).
 * ZB_EUSAGE for a refused mode or a syntax error, ZB_ENOTFOUND for a
 * missing --env file, ZB_EIO, ZB_ENOMEM.
 */
int zb_dotenv_find(zb_dotenv **out, zb_ctx *ctx, const char *env_flag,
                   const char *cwd, const char *root);

/*
 * Loads one file; its mode is checked as zb_dotenv_check_mode does, on
 * the descriptor read. ZB_ENOTFOUND when missing.
 */
int zb_dotenv_load(zb_dotenv **out, zb_ctx *ctx, const char *path);

void zb_dotenv_free(zb_dotenv *d);

/* The file's path or name as given; borrowed. */
const char *zb_dotenv_path(const zb_dotenv *d);

/*
 * The value of a ZAMBONI_* key, or NULL (also for a key that does not
 * start with ZAMBONI_, which is never loaded). The last assignment of a
 * key wins. Borrowed from d.
 */
const char *zb_dotenv_get(const zb_dotenv *d, const char *key);

/* Line of the assignment zb_dotenv_get returns; 0 when there is none. */
unsigned zb_dotenv_line(const zb_dotenv *d, const char *key);

/* Number of ZAMBONI_* assignments, and the i-th key and value. */
size_t zb_dotenv_count(const zb_dotenv *d);
const char *zb_dotenv_key(const zb_dotenv *d, size_t i);
const char *zb_dotenv_value(const zb_dotenv *d, size_t i);

/*
 * Puts each ZAMBONI_* key into the process environment unless it is set
 * there already (real variables win). For code that reads getenv itself;
 * not thread-safe, call before starting threads.
 */
int zb_dotenv_export(const zb_dotenv *d, zb_ctx *ctx);

#endif
