/*
 * cli/verbs/verb_args.c - the flags of the operation verbs, maintenance,
 * add-files, scan and the read-only verbs: one table (which verbs take a
 * flag, its value, default and meaning), the parser over it, the help
 * printed from it (the run environment every verb opens the same way is
 * verb_env.c). The flags that address a
 * table (--remap, --uri, --warehouse and the other catalog settings) are
 * declared once for every verb that reads one (TABLE_READERS).
 *
 * Order of a run: zb_verb_parse, zb_verb_env_open (settings from the five
 * sources of cli/config/settings.h; the table config from --table-config or
 * $ZAMBONI_ROOT/configs/<W>/table-config.json, whose warehouse must be
 * W: exit 3 before anything is touched), then zb_verb_catalog per table.
 */
#define ZB_MODULE "cli"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/exit.h"
#include "cli/verbs/verbs.h"
#include "util/alloc.h"
#include "util/err.h"

#define OPS (ZB_VERB_MAINTENANCE | ZB_VERB_COMPACT | ZB_VERB_APPLY |      \
             ZB_VERB_DANGLING | ZB_VERB_MANIFESTS | ZB_VERB_EXPIRE |      \
             ZB_VERB_ORPHANS)
#define COMPACTION (ZB_VERB_MAINTENANCE | ZB_VERB_COMPACT |               \
                    ZB_VERB_DESCRIBE | ZB_VERB_PLAN)
/* the verbs that open a table's files */
#define TABLE_READERS (OPS | ZB_VERB_DESCRIBE | ZB_VERB_PLAN |             \
                       ZB_VERB_DOCTOR | ZB_VERB_SCAN | ZB_VERB_ADD_FILES)
#define CATALOG (TABLE_READERS | ZB_VERB_WAREHOUSES | ZB_VERB_TABLE_CONFIG | \
                 ZB_VERB_WORKER | ZB_VERB_SERVE)

typedef enum flag_id {
    F_DRY_RUN, F_YES, F_TABLE_CONFIG, F_STATUS, F_VERBOSE, F_PROFILE, F_ENV,
    F_SETTING, /* --uri, --warehouse/--db, ... through settings.h */
    F_TARGET, F_MIN_FILES, F_REWRITE_ALL, F_PARTIAL, F_RW, F_MEMORY_MODE,
    F_READ_AHEAD, F_READ_AHEAD_FILES, F_TEMP_DIR,
    F_SORT_BY, F_SORT_TABLE, F_BRANCH, F_SNAP_OP, F_DANGLING_POLICY,
    F_MAX_AGE, F_MIN_KEEP, F_OLDER_THAN, F_MIN_MANIFESTS, F_TABLE, F_FORCE, F_JSON, F_OUTPUT, F_NAMESPACE, F_OVERWRITE,
    F_NO_EVOLUTION, F_REMAP, F_SNAPSHOT, F_COUNT, F_FORMAT, F_SOURCE,
    F_CREATE, F_PARTITION_BY, F_FORMAT_VERSION, F_ALLOW_DUPLICATES,
    F_MAX_GROUP_MEMORY, F_MAX_CONCURRENT,
    F_PARALLEL, F_LOCATION, F_FLEET
} flag_id;

typedef struct flag_def {
    const char *name;
    flag_id id;
    const char *metavar;       /* NULL: no value */
    unsigned verbs;
    const char *help;          /* with the default */
} flag_def;

static const flag_def flags[] = {
    { "--dry-run", F_DRY_RUN, NULL, OPS,
      "preview with real counts (the plan, the files that would go);\n"
      "change nothing: no commit, no file written or deleted" },
    { "--snapshot", F_SNAPSHOT, "ID", ZB_VERB_SCAN,
      "read this snapshot instead of the current one, with the schema it\n"
      "records (without it: the table's current schema); an ID the table\n"
      "does not have fails (exit 1)" },
    { "--count", F_COUNT, NULL, ZB_VERB_SCAN,
      "print only the number of live rows" },
    { "--format", F_FORMAT, "FORMAT", ZB_VERB_SCAN,
      "jsonl (default): one JSON object a row, keyed by column name, each\n"
      "value in the Iceberg spec's JSON single-value serialization\n"
      "(Appendix D: decimals, dates, times and timestamps as strings,\n"
      "binary as hex, nested structs keyed by field id, maps as\n"
      "{\"keys\": [...], \"values\": [...]}, variants as\n"
      "{\"metadata\": HEX, \"value\": HEX}); NaN and the infinities as the\n"
      "strings \"NaN\", \"Infinity\", \"-Infinity\".\n"
      "csv: RFC 4180, a header line of column names, CRLF line ends; null\n"
      "is an empty field, an empty string is \"\"; nested values as their\n"
      "JSON text" },
    { "--source", F_SOURCE, "DIR_OR_URI", ZB_VERB_ADD_FILES,
      "a directory (listed recursively) or one file. Names starting with\n"
      "'.' or '_' are skipped, and so are files in hidden or temporary\n"
      "directories (.spark-staging, _temporary: '.', or '_' without '=');\n"
      "other files that are not Parquet are skipped; skipped files are\n"
      "counted" },
    { "--create", F_CREATE, NULL, ZB_VERB_ADD_FILES,
      "create TABLE from the first file's schema (fresh field ids,\n"
      "schema.name-mapping.default set); NAME=VALUE directories become\n"
      "columns (long, date or string) and identity partition fields.\n"
      "Default: TABLE must exist" },
    { "--partition-by", F_PARTITION_BY, "SPEC", ZB_VERB_ADD_FILES,
      "with --create: more partition fields after the directories', e.g.\n"
      "\"day(ts), bucket(16, id)\" (COL, year/month/day/hour(COL),\n"
      "bucket(N, COL), truncate(W, COL)); values from the files'\n"
      "statistics. Default: none" },
    { "--format-version", F_FORMAT_VERSION, "N", ZB_VERB_ADD_FILES,
      "with --create: 1, 2 or 3 (default 2)" },
    { "--allow-duplicates", F_ALLOW_DUPLICATES, NULL, ZB_VERB_ADD_FILES,
      "add files that are already data files of TABLE (default: refuse,\n"
      "exit 3, nothing committed)" },
    { "--dry-run", F_DRY_RUN, NULL, ZB_VERB_ADD_FILES,
      "read and check every file, print what would be added; create and\n"
      "commit nothing" },
    { "--remap", F_REMAP, "OLD=NEW", TABLE_READERS,
      "paths starting with OLD are read, written and deleted under NEW\n"
      "instead (repeatable; the first match wins): for a table copied or\n"
      "moved while its metadata (and catalog) still name OLD, or data kept\n"
      "outside a table folder. A table folder's recorded location resolves\n"
      "into the folder without it. Default: none.\n"
      "Writing verbs put every new file (data, manifests, metadata) under\n"
      "the table's NEW location and name it by its NEW path; nothing under\n"
      "OLD is written or deleted. The metadata's \"location\" and the paths\n"
      "already recorded keep OLD (rewriting them would rewrite every\n"
      "manifest), so keep giving the same --remap to read the table. A\n"
      "catalog table's pointer moves to the new metadata file: give a copy\n"
      "its own catalog (--uri). A moved table whose write.data.path or\n"
      "write.metadata.path resolves outside its new location is refused\n"
      "(exit 3)" },
    { "--yes", F_YES, NULL, OPS,
      "accepted for scripts written for the Python tool; changes nothing\n"
      "(the work is done by default, without it)" },
    { "--status", F_STATUS, NULL, ZB_VERB_MAINTENANCE,
      "print the warehouse before and after (tables, data files, data\n"
      "bytes, metadata bytes, delete files, snapshots), what was\n"
      "reclaimed, and one line per table" },
    { "--json", F_JSON, NULL, ZB_VERB_MAINTENANCE,
      "print one JSON document for the run (tables, each operation's\n"
      "status, exit code, report lines and timing; --status counts)\n"
      "instead of the lines (default: lines)" },
    { "--json", F_JSON, NULL, ZB_VERB_DOCTOR,
      "print one JSON document (each check, usable, reason) instead of\n"
      "the lines (default: lines)" },
    { "--memory-budget-bytes", F_SETTING, "N", TABLE_READERS,
      "the process's memory budget in bytes (0: none); default\n"
      "ZAMBONI_MEMORY_BUDGET_BYTES, then memory_budget_bytes: in\n"
      "zamboni.yml, else the cgroup memory limit, else the physical memory\n"
      "(with a warning), minus a headroom of a quarter of it (160 MiB to\n"
      "2 GiB, at most half). Compaction groups, the Parquet reader and\n"
      "equality-delete key sets reserve from it before they buffer data,\n"
      "and wait while it is full. doctor checks it against the memory limit" },
    { "--threads", F_SETTING, "N", ZB_VERB_DOCTOR,
      "the thread count to report (1..256); default ZAMBONI_THREADS, then\n"
      "threads: in zamboni.yml, else min(floor(CPU limit), memory / 4 GiB),\n"
      "at least 1" },
    { "--temp-directory", F_TEMP_DIR, "DIR", ZB_VERB_DOCTOR,
      "the spill folder to check; default $TMPDIR, else /tmp" },
    { "--verbose", F_VERBOSE, NULL, ZB_VERB_MAINTENANCE,
      "print each operation's timing and the settings' origins, the\n"
      "memory budget and the threads with theirs" },
    { "--verbose", F_VERBOSE, NULL, ZB_VERB_PLAN,
      "also one line per file of each group, with why it was chosen\n"
      "(the files kept are counted by reason)" },
    { "--verbose", F_VERBOSE, NULL, OPS & ~ZB_VERB_MAINTENANCE,
      "print the memory budget and the threads, each with where it came\n"
      "from, before the report (default: the report only)" },
    { "--parallel", F_PARALLEL, "N", ZB_VERB_MAINTENANCE,
      "maintain N tables at once (1 to 64) in this one process, sharing\n"
      "its memory budget; each table's report is kept apart and printed\n"
      "in table order, the exit code is the same as one at a time (no\n"
      "progress line when N > 1); default 1" },
    { "--table-config", F_TABLE_CONFIG, "FILE",
      OPS | COMPACTION | ZB_VERB_TABLE_CONFIG | ZB_VERB_DOCTOR,
      "per-table settings (table-config.json version 2); default:\n"
      "$ZAMBONI_ROOT/configs/<warehouse>/table-config.json when it exists.\n"
      "Its \"warehouse\" must equal --warehouse (exit 3 otherwise)" },
    { "--table", F_TABLE, "T", ZB_VERB_TABLE_CONFIG,
      "summary: only this table (default: the defaults and every table)" },
    { "--output", F_OUTPUT, "FILE", ZB_VERB_TABLE_CONFIG,
      "generate: the file to write (alias -o); default table-config.json" },
    { "--namespace", F_NAMESPACE, "NS", ZB_VERB_TABLE_CONFIG,
      "generate: only this namespace's tables (default: every namespace)" },
    { "--force", F_OVERWRITE, NULL, ZB_VERB_TABLE_CONFIG,
      "generate: replace an existing output file (default: exit 2)" },
    { "--no-evolution", F_NO_EVOLUTION, NULL, ZB_VERB_TABLE_CONFIG,
      "from-catalog: disable partition evolution in the defaults\n"
      "(default: day -> month after 90 days, spelled out)" },
    { "--warehouse", F_SETTING, "W", CATALOG | ZB_VERB_TABLE_CONFIG,
      "the warehouse (alias --db); default ZAMBONI_WAREHOUSE, then\n"
      "warehouse: in zamboni.yml; selects\n"
      "$ZAMBONI_ROOT/configs/W/table-config.json" },
    { "--uri", F_SETTING, "URI", CATALOG,
      "catalog: http(s):// REST, sqlite:PATH or postgresql://... SQL;\n"
      "default ZAMBONI_URI, then uri: in zamboni.yml, else SQLite at\n"
      "$ZAMBONI_ROOT/catalog.db" },
    { "--engine", F_SETTING, "ENGINE", OPS | ZB_VERB_ENGINES,
      "local (default; ZAMBONI_ENGINE, engine: in zamboni.yml); spark and\n"
      "trino are not available in this build (exit 3)" },
    { "--local-warehouse", F_SETTING, "PATH", CATALOG,
      "where the SQL catalog puts new tables; default\n"
      "$ZAMBONI_ROOT/warehouses/<warehouse>" },
    { "--oauth2-server-uri", F_SETTING, "URI", CATALOG,
      "REST OAuth2 token endpoint; default <uri>/v1/oauth/tokens" },
    { "--scope", F_SETTING, "SCOPE", CATALOG, "REST OAuth2 scope; default catalog" },
    { "--s3-endpoint", F_SETTING, "URL", CATALOG | ZB_VERB_DEMO,
      "S3-compatible endpoint (http://127.0.0.1:9000; plain http only for\n"
      "loopback); default ZAMBONI_S3_ENDPOINT, s3_endpoint: in zamboni.yml,\n"
      "then the table's s3.endpoint from a REST catalog, else AWS\n"
      "(https://s3.<region>.amazonaws.com)" },
    { "--s3-region", F_SETTING, "REGION", CATALOG | ZB_VERB_DEMO,
      "S3 region; default ZAMBONI_S3_REGION, s3_region: in zamboni.yml,\n"
      "AWS_REGION, AWS_DEFAULT_REGION, then the table's client.region from a\n"
      "REST catalog, else us-east-1" },
    { "--s3-path-style-access", F_SETTING, "BOOL", CATALOG | ZB_VERB_DEMO,
      "true: endpoint/bucket/key; false: bucket.endpoint/key (virtual-\n"
      "hosted); default ZAMBONI_S3_PATH_STYLE_ACCESS, s3_path_style_access:\n"
      "in zamboni.yml, the table's s3.path-style-access, else auto (path\n"
      "style for an IP or localhost endpoint)" },
    { "--s3-max-attempts", F_SETTING, "N", CATALOG | ZB_VERB_DEMO,
      "tries of one S3 request that may be repeated (1..100; 500, 503,\n"
      "SlowDown, resets, timeouts); default ZAMBONI_S3_MAX_ATTEMPTS, else 8" },
    { "--s3-max-retry-seconds", F_SETTING, "N", CATALOG | ZB_VERB_DEMO,
      "the longest one S3 request is retried (1..86400); default\n"
      "ZAMBONI_S3_MAX_RETRY_SECONDS, else 60" },
    { "--s3-timeout-seconds", F_SETTING, "N", CATALOG | ZB_VERB_DEMO,
      "an S3 request that moves no byte for this long is cut and, if safe,\n"
      "tried again (1..3600); default ZAMBONI_S3_TIMEOUT_SECONDS, else 30" },
    { "--s3-multipart-threshold-bytes", F_SETTING, "N", CATALOG | ZB_VERB_DEMO,
      "files larger than this go to S3 as multipart uploads of 8 MiB parts,\n"
      "smaller ones in one PUT (1..5368709120); default\n"
      "ZAMBONI_S3_MULTIPART_THRESHOLD_BYTES, else 16777216 (16 MiB)" },
    { "--s3-access-key-id", F_SETTING, "ID", CATALOG | ZB_VERB_DEMO,
      "S3 access key id (the secret comes from ZAMBONI_S3_SECRET_ACCESS_KEY,\n"
      "a session token from ZAMBONI_S3_SESSION_TOKEN); default\n"
      "ZAMBONI_S3_ACCESS_KEY_ID, else the table's vended credentials, then\n"
      "AWS_ACCESS_KEY_ID, AWS_PROFILE, web identity, container, instance\n"
      "metadata" },
    { "--trino-host", F_SETTING, "HOST", OPS, "Trino engine (not in this build)" },
    { "--trino-port", F_SETTING, "PORT", OPS, "Trino engine (not in this build)" },
    { "--trino-user", F_SETTING, "USER", OPS, "Trino engine (not in this build)" },
    { "--trino-version", F_SETTING, "V", OPS, "Trino engine (not in this build)" },
    { "--trino-catalog", F_SETTING, "NAME", OPS, "Trino engine (not in this build)" },
    { "--spark-remote", F_SETTING, "URL", OPS, "Spark engine (not in this build)" },
    { "--spark-master", F_SETTING, "URL", OPS, "Spark engine (not in this build)" },
    { "--spark-catalog", F_SETTING, "NAME", OPS, "Spark engine (not in this build)" },
    { "--location", F_LOCATION, "URI", ZB_VERB_DEMO,
      "where the demo's tables go: s3://BUCKET/PREFIX puts their data and\n"
      "metadata files in the bucket (the catalog, zamboni.yml and configs\n"
      "stay under DIR; the S3 flags given are written to DIR/zamboni.yml,\n"
      "secrets never); default DIR/warehouses/demo. Objects of an earlier\n"
      "demo at the same location are left in place" },
    { "--fleet", F_FLEET, NULL, ZB_VERB_DEMO,
      "then migrate the queue (in DIR/catalog.db) and start `zamboni serve`\n"
      "(the default listen address, 127.0.0.1:8650) and one `zamboni\n"
      "worker` in the background on the demo warehouse; print the\n"
      "dashboard's URL, their PIDs (in DIR/fleet.pids, their logs in\n"
      "DIR/serve.log and DIR/worker.log) and how to stop them" },
    { "--profile", F_PROFILE, "FILE", CATALOG | ZB_VERB_ENGINES,
      "zamboni.yml to read; default ./zamboni.yml, then\n"
      "$ZAMBONI_ROOT/zamboni.yml" },
    { "--env", F_ENV, "FILE", CATALOG | ZB_VERB_DEMO,
      ".env with secrets (mode 600); default ./.env, then $ZAMBONI_ROOT/.env" },
    { "--target-file-size-bytes", F_TARGET, "N", COMPACTION,
      "compaction target (>= 100); default: the table config, then the\n"
      "table's write.parquet.target-file-size-bytes,\n"
      "write.target-file-size-bytes, else 134217728. The flag beats the file" },
    { "--min-input-files", F_MIN_FILES, "N", COMPACTION,
      "a group needs this many files to be rewritten (>= 1), unless it has\n"
      "more than one file and more than a target of bytes, or a file that\n"
      "is too large, carries deletes or has another spec; default: the\n"
      "table config, else 2 (ours, as the Python tool; Iceberg's: 5).\n"
      "The options below are Iceberg's rewrite_data_files ones, by name\n"
      "(dots as dashes); each is also a table-config.json key (dashes as\n"
      "underscores, e.g. max_files_to_rewrite); the flag beats the key.\n"
      "`zamboni plan` shows each value and where it came from" },
    { "--min-file-size-bytes", F_RW, "N", COMPACTION,
      "a file below N bytes is a candidate (>= 0); default 75% of the\n"
      "target (Iceberg's)" },
    { "--max-file-size-bytes", F_RW, "N", COMPACTION,
      "a file above N bytes is a candidate, rewritten even alone and split\n"
      "into files of the target (>= 1); default 180% of the target" },
    { "--rewrite-all", F_REWRITE_ALL, NULL, COMPACTION,
      "every live data file is a candidate and every group is rewritten,\n"
      "a single file alone in its partition too (for a new sort order);\n"
      "key rewrite_all; default false" },
    { "--delete-file-threshold", F_RW, "N", COMPACTION,
      "a file that N or more delete files apply to is a candidate and is\n"
      "rewritten even alone (>= 1); default 1, ours: any file that carries\n"
      "deletes is rewritten (Iceberg's default: no limit)" },
    { "--delete-ratio-threshold", F_RW, "R", COMPACTION,
      "a file whose rows its position deletes and deletion vectors name\n"
      "reach this share (above 0, at most 1) is a candidate and is\n"
      "rewritten even alone; default 0.3 (Iceberg's)" },
    { "--max-file-group-size-bytes", F_RW, "N", COMPACTION,
      "a partition's candidates, largest first, are cut into groups of at\n"
      "most N bytes (>= 1); default 107374182400 (100 GiB, Iceberg's)" },
    { "--partial-progress", F_PARTIAL, NULL, COMPACTION,
      "commit groups as they finish (default: one snapshot for the run);\n"
      "the same as --partial-progress-enabled true" },
    { "--partial-progress-enabled", F_RW, "BOOL", COMPACTION,
      "true: commit groups as they finish; key partial_progress_enabled;\n"
      "default false" },
    { "--partial-progress-max-commits", F_RW, "N", COMPACTION,
      "with partial progress, the groups go in at most N commits (>= 1);\n"
      "default 10 (Iceberg's)" },
    { "--max-files-to-rewrite", F_RW, "N", COMPACTION,
      "rewrite at most N files in the run (>= 1): groups are taken in the\n"
      "job order while their files fit, the one that crosses N is cut to\n"
      "the files left (largest first); default: no limit" },
    { "--rewrite-job-order", F_RW, "ORDER", COMPACTION,
      "the order groups are rewritten (and taken for\n"
      "--max-files-to-rewrite): bytes-asc, bytes-desc, files-asc,\n"
      "files-desc or none (the plan's order); default none" },
    { "--output-spec-id", F_RW, "ID", COMPACTION,
      "the partition spec of the new files (>= 0, a spec of the table):\n"
      "files of other specs are candidates and are rewritten into it;\n"
      "default: the table's default spec" },
    { "--use-starting-sequence-number", F_RW, "BOOL", COMPACTION,
      "true: the new files keep the data sequence number of the snapshot\n"
      "the plan read, so equality deletes committed meanwhile still apply;\n"
      "default true (Iceberg's)" },
    { "--memory-mode", F_MEMORY_MODE, "MODE", COMPACTION,
      "auto (default), in_memory or chunked; accepted for compatibility:\n"
      "this engine always streams within --memory-budget-bytes" },
    { "--max-group-memory-bytes", F_MAX_GROUP_MEMORY, "N",
      ZB_VERB_MAINTENANCE | ZB_VERB_COMPACT,
      "largest memory one compaction unit (a group, or a slice of one)\n"
      "may need: a larger one fails the run before anything is written;\n"
      "default: no cap (a unit larger than the whole memory budget waits\n"
      "until it is the only holder and then runs alone)" },
    { "--threads", F_SETTING, "N", ZB_VERB_MAINTENANCE | ZB_VERB_COMPACT,
      "threads compaction may keep busy (1..256); default ZAMBONI_THREADS,\n"
      "then threads: in zamboni.yml, else min(floor(CPU limit), memory\n"
      "limit / 4 GiB), at least 1 (the CPU limit: cgroup cpu.max, else\n"
      "the online CPUs)" },
    { "--max-concurrent-file-group-rewrites", F_MAX_CONCURRENT, "N",
      ZB_VERB_MAINTENANCE | ZB_VERB_COMPACT,
      "compaction groups rewritten at once (1..256), each within the\n"
      "memory budget; default: the table config's\n"
      "max_concurrent_file_group_rewrites, else --threads' figure" },
    { "--read-ahead-bytes", F_READ_AHEAD, "N", COMPACTION,
      "accepted for compatibility (default 67108864); reads are planned\n"
      "per group" },
    { "--max-read-ahead-files", F_READ_AHEAD_FILES, "N", COMPACTION,
      "accepted for compatibility (default 8)" },
    { "--temp-directory", F_TEMP_DIR, "DIR", COMPACTION,
      "where spill files go; default $TMPDIR, else /tmp" },
    { "--sort-by", F_SORT_BY, "EXPR", COMPACTION,
      "sort rows while compacting: \"col [asc|desc] [nulls first|last],\n"
      "...\" (top-level columns; nulls last by default; the files'\n"
      "sort_order_id stays null); default: the table config's ordering,\n"
      "else no sort (binpack)" },
    { "--sort-by-table-order", F_SORT_TABLE, NULL, COMPACTION,
      "sort by the table's default sort order (identity fields), and\n"
      "stamp its id on the new files" },
    { "--branch", F_BRANCH, "NAME", COMPACTION, "branch to compact; default main" },
    { "--snapshot-operation", F_SNAP_OP, "OP", COMPACTION,
      "replace (default); overwrite is not in this build (exit 3)" },
    { "--dangling-delete-policy", F_DANGLING_POLICY, "POLICY", COMPACTION,
      "report (default): delete files left dangling are reported and\n"
      "removed by remove-dangling-deletes; block is not in this build" },
    { "--max-snapshot-age-days", F_MAX_AGE, "N", ZB_VERB_EXPIRE | ZB_VERB_MAINTENANCE,
      "expire snapshots older than N days (>= 0); default: the table\n"
      "config, then history.expire.max-snapshot-age-ms, else 5" },
    { "--min-snapshots-to-keep", F_MIN_KEEP, "N", ZB_VERB_EXPIRE | ZB_VERB_MAINTENANCE,
      "keep at least N snapshots per branch (>= 1); default: the table\n"
      "config, then history.expire.min-snapshots-to-keep, else 1" },
    { "--older-than-days", F_OLDER_THAN, "N", ZB_VERB_ORPHANS | ZB_VERB_MAINTENANCE,
      "delete unreferenced files older than N days (the age guard; below\n"
      "1 only with --force);\n"
      "default: the table config, else 3" },
    { "--force", F_FORCE, NULL, ZB_VERB_ORPHANS | ZB_VERB_MAINTENANCE,
      "allow an age guard below 1 day (default: refused, exit 3: files a\n"
      "running job wrote but has not committed yet would go)" },
    { "--size-class", F_SETTING, "NAME", ZB_VERB_WORKER,
      "the size class this worker serves (ZAMBONI_SIZE_CLASS, size_class:);\n"
      "default: the smallest configured class (size_classes: in zamboni.yml\n"
      "or ZAMBONI_SIZE_CLASSES; without any, one class standard: 2 cores,\n"
      "8 GiB, max_jobs 2)" },
    { "--workers", F_SETTING, "N", ZB_VERB_WORKER,
      "worker loops in this process, 1..256 (ZAMBONI_WORKERS); each gets an\n"
      "equal share of the memory (its own budget), cores and spill disk;\n"
      "default 1" },
    { "--drain-timeout", F_SETTING, "DURATION", ZB_VERB_WORKER,
      "on SIGTERM or SIGINT: take no new task, let a running compaction\n"
      "commit the groups it already wrote for at most this long, then log\n"
      "the attempt abandoned (rescheduled about 2 minutes later) and exit 0;\n"
      "0 drops the written groups at once (ZAMBONI_DRAIN_TIMEOUT); default 0" },
    { "--max-lifetime", F_SETTING, "DURATION", ZB_VERB_WORKER,
      "take no new task after this long; exit 0 once the running one ended;\n"
      "0: never (ZAMBONI_MAX_LIFETIME); default 1h" },
    { "--idle-exit-after", F_SETTING, "DURATION", ZB_VERB_WORKER,
      "exit 0 after this long without a task; 0: never, for a systemd\n"
      "service (ZAMBONI_IDLE_EXIT_AFTER); default 180s" },
    { "--lease-seconds", F_SETTING, "DURATION", ZB_VERB_WORKER,
      "a task's lease; a worker silent for longer loses it to the sweep\n"
      "(ZAMBONI_LEASE_SECONDS); default 60" },
    { "--heartbeat-seconds", F_SETTING, "DURATION", ZB_VERB_WORKER,
      "how often the lease is renewed, at most a third of the lease (exit 2\n"
      "otherwise) (ZAMBONI_HEARTBEAT_SECONDS); default 10" },
    { "--listen", F_SETTING, "ADDR:PORT", ZB_VERB_SERVE,
      "where the HTTP endpoints answer (ZAMBONI_LISTEN, listen:); default\n"
      "127.0.0.1:8650; 0.0.0.0:8650 in a container, so that probes and\n"
      "KEDA reach it; [::1]:8650 for IPv6; port 0 picks a free one" },
    { "--plan-interval", F_SETTING, "DURATION", ZB_VERB_SERVE,
      "time between planner cycles, at least 1s (ZAMBONI_PLAN_INTERVAL,\n"
      "plan_interval:); default 60s" },
    { "--queue-uri", F_SETTING, "URI", ZB_VERB_WORKER | ZB_VERB_SERVE,
      "the queue's database: sqlite:PATH or postgresql://... (prefer\n"
      "ZAMBONI_QUEUE_URI: a password on the command line is visible to other\n"
      "users); default: the catalog's database when the catalog is SQL,\n"
      "else sqlite:$ZAMBONI_ROOT/queue.db" },
    { "--min-input-manifests", F_MIN_MANIFESTS, "N",
      ZB_VERB_MANIFESTS | ZB_VERB_MAINTENANCE,
      "rewrite only when there are at least N data manifests (>= 2);\n"
      "default: the table config, else 2" },
};

#define N_FLAGS (sizeof flags / sizeof flags[0])

typedef struct verb_doc {
    unsigned bit;
    const char *name;
    const char *usage;
    const char *text;
} verb_doc;

static const verb_doc docs[] = {
    { ZB_VERB_MAINTENANCE, "maintenance", "[TABLE...] [options]",
      "Runs compact, apply-properties, remove-dangling-deletes,\n"
      "rewrite-manifests, expire and remove-orphans, in that order, on each\n"
      "table: the TABLEs given, else the profile's tables:, else every table\n"
      "of the table config (sorted). Each table is isolated: one that fails\n"
      "or aborts does not stop the others. After a safety abort (exit 4) the\n"
      "rest of that table is skipped. A profile's operations: list runs a\n"
      "subset, always in this order. The work is done by default.\n"
      "Exit code: the worst any table produced." },
    { ZB_VERB_COMPACT, "compact", "TABLE [options]",
      "Rewrites small, oversized and delete-laden data files into files of\n"
      "the target size and commits one replace snapshot. Files are chosen\n"
      "by Iceberg's rewrite_data_files rules and option names (below);\n"
      "where our defaults differ (min-input-files 2, delete-file-threshold\n"
      "1: any file that carries deletes is rewritten) --help says so." },
    { ZB_VERB_APPLY, "apply-properties", "TABLE [options]",
      "Sets the table properties and sort order its table-config entry\n"
      "declares (target file size, metadata and expiry settings)." },
    { ZB_VERB_DANGLING, "remove-dangling-deletes", "TABLE [options]",
      "Removes the delete files that apply to no live data file." },
    { ZB_VERB_MANIFESTS, "rewrite-manifests", "TABLE [options]",
      "Regroups the current snapshot's manifests by partition." },
    { ZB_VERB_EXPIRE, "expire", "TABLE [options]",
      "Expires snapshots by the retention rules and deletes the files only\n"
      "they reached." },
    { ZB_VERB_ORPHANS, "remove-orphans", "TABLE [options]",
      "Deletes files under the table's location that no metadata references\n"
      "and that are older than the age guard. Aborts (exit 4, nothing\n"
      "deleted) when a referenced file is missing from the listing or\n"
      "another table lies inside this one." },
    { ZB_VERB_DESCRIBE, "describe", "TABLE [options]",
      "Shows the table's format, snapshot, live data files (count, bytes,\n"
      "rows, size histogram), partition specs, sort order, delete files and\n"
      "findings. Read-only." },
    { ZB_VERB_PLAN, "plan", "TABLE [options]",
      "Shows the compaction plan: the groups that would be rewritten with\n"
      "why their files were chosen (below min size, above max size, deletes\n"
      "over a threshold, another spec, alone in its partition, a partition\n"
      "cut by the group size cap), the partitions skipped and the files\n"
      "kept with why, then each setting and option with where it came\n"
      "from (flag, table config, default). Read-only." },
    { ZB_VERB_WAREHOUSES, "warehouses", "[options]",
      "Lists the catalog's warehouses, one name a line (for generating cron\n"
      "lines). Read-only." },
    { ZB_VERB_ENGINES, "engines", "[options]",
      "Lists each engine, each operation, what it supports and whether it\n"
      "previews. Read-only." },
    { ZB_VERB_TABLE_CONFIG, "table-config",
      "validate|summary FILE, generate, from-catalog CAT",
      "validate: checks a table-config.json (exit 0 valid, 2 invalid with the\n"
      "key path and rule); --warehouse W also checks its warehouse (exit 3).\n"
      "summary: every effective setting, \"(default)\" for built-in values.\n"
      "generate: writes a table-config.json for the tables of the configured\n"
      "catalog (needs --warehouse): the built-in values spelled out as its\n"
      "defaults, each table's partition spec; format version 1 tables are\n"
      "skipped. from-catalog CAT: generate from the catalog CAT (a URI as\n"
      "--uri takes, or a SQLite database file) instead of the configured\n"
      "one, with the partition evolution rule spelled out in the defaults\n"
      "(--no-evolution: disabled). Validate and summary read no catalog." },
    { ZB_VERB_DOCTOR, "doctor", "[TABLE] [options]",
      "Checks what Zamboni needs, one line each: the configuration resolves\n"
      "(flags, ZAMBONI_*, .env, zamboni.yml, table config), the catalog is\n"
      "reachable, the temporary folder is writable (free space), the\n"
      "memory budget and where it came from against the memory limit, the\n"
      "threads and where they came from, the build's Parquet codecs.\n"
      "With TABLE also: the table loads, its format version is supported,\n"
      "its current snapshot plans (every manifest read) and it uses no\n"
      "feature this build lacks (encryption, unknown transforms, ...).\n"
      "Ends with \"usable: True|False\" and \"reason: ...\" (the first\n"
      "blocking problem). Read-only (the temporary-folder check writes and\n"
      "removes one empty file). Exit 0 usable, 1 not usable, 2 usage." },
    { ZB_VERB_SCAN, "scan", "TABLE [options]",
      "Prints the live rows of a table: every position delete, deletion\n"
      "vector and equality delete applied. Read-only. A table folder's\n"
      "newest metadata file is read (version-hint.text, else the highest\n"
      "version); a folder copied from elsewhere is read in place: paths\n"
      "under the location its metadata records resolve into the folder.\n"
      "Rows come in the planner's file order (manifest list order, then\n"
      "entry order), each data file's rows in file order." },
    { ZB_VERB_ADD_FILES, "add-files", "TABLE --source DIR_OR_URI [options]",
      "Registers existing Parquet files as data files of TABLE, without\n"
      "rewriting them (as Spark's add_files procedure and PyIceberg's\n"
      "add_files do), in one append snapshot.\n"
      "\n"
      "Files without field ids are read by column name through the table's\n"
      "schema.name-mapping.default (set from the current schema when the\n"
      "table has none); files with field ids must use the table's ids.\n"
      "Every column must map to a field (none is dropped) and be readable\n"
      "as its field's type; with --create, as the first file's. Partition\n"
      "values: identity fields from NAME=VALUE directories (URL-decoded,\n"
      "__HIVE_DEFAULT_PARTITION__ is null), other fields (and identity\n"
      "fields without a directory) from the column's min and max, which\n"
      "must give one value (bucket: min = max). A NAME=VALUE directory for\n"
      "a column that is not identity-partitioned is refused unless the\n"
      "file holds that column with that value. Files already in TABLE (or\n"
      "listed twice) are duplicates; paths compare normalized (file:/x,\n"
      "file:///x and /x are one). Metrics (counts, bounds) come from the\n"
      "footers.\n"
      "A corrupt file or one that does not fit fails the whole command,\n"
      "naming the file, before anything is committed." },
    { ZB_VERB_WORKER, "worker", "[options]",
      "Takes maintenance tasks of its size class from the queue (zamboni\n"
      "enqueue or serve put them there) and runs each, one at a time per\n"
      "worker loop: the operation named, on the table named, within the\n"
      "loop's memory, cores and spill disk. Resources come from the cgroup\n"
      "(v2 or v1) memory and CPU limits, else the machine (with a warning):\n"
      "cores = min(floor(CPU limit), memory / 4 GiB), at least 1, shared by\n"
      "--workers; spill under TMPDIR within ZAMBONI_SPILL_DISK_LIMIT_BYTES\n"
      "(default 100 GiB). The first log line, \"Optimize: ...\", gives each\n"
      "worker's share. Commits are fenced by the task's lease: a worker that\n"
      "lost it commits nothing. Every attempt is recorded in the queue's\n"
      "history (zamboni history) with the table's health before and after.\n"
      "Log lines (stderr), one per event:\n"
      "  task id=T attempt=A op=OP warehouse=W table=TBL worker=ID event=start\n"
      "  task id=T ... worker=ID outcome=O ms=MS [message=TEXT]\n"
      "  worker id=ID event=exit reason=drain|lifetime|idle tasks=N\n"
      "The schema must be migrated first (zamboni db migrate)." },
    { ZB_VERB_SERVE, "serve", "[--warehouse W]... [options]",
      "Plans maintenance for a worker fleet and answers its probes. A\n"
      "planner thread runs a cycle every --plan-interval: for each\n"
      "warehouse (--warehouse, repeatable; default every configs/<W>/ under\n"
      "ZAMBONI_ROOT), for each table of its table config, it decides from\n"
      "cheap health signals which operations are due and puts tasks on the\n"
      "queue, no more than the workers' free capacity per size class, within\n"
      "the queue's cap (ZAMBONI_QUEUE_MAX_TASKS); it also sweeps the tasks\n"
      "of lost workers. Several replicas may run: one plans at a time (a\n"
      "leader lease in the queue's database), all answer HTTP:\n"
      "  /livez    200 while the process runs (liveness probe)\n"
      "  /health   200 when the queue database answers within 2 s, else 503\n"
      "            naming the check that failed (readiness probe)\n"
      "  /metrics  Prometheus text format\n"
      "  /demand?class=NAME  {\"class\": NAME, \"demand\": N} for KEDA's\n"
      "            metrics-api scaler (valueLocation: demand, targetValue: 1)\n"
      "  /         the dashboard (built into the binary, works offline):\n"
      "            the fleet, /warehouses/W, /tables/W/T, /tasks/ID; it\n"
      "            refreshes every 10 s\n"
      "  /api/v1/  its read-only JSON: fleet, warehouses, warehouses/W,\n"
      "            warehouses/W/tables/T[/plan], tasks, tasks/ID, workers,\n"
      "            runs (docs/api/dashboard-openapi.yaml); tasks, runs and\n"
      "            plan are what `tasks list --json`, `history --json` and\n"
      "            `plan TABLE` print\n"
      "With ZAMBONI_SERVE_TOKEN set (environment or .env), /metrics,\n"
      "/demand and /api/v1 need \"Authorization: Bearer TOKEN\" or the\n"
      "dashboard's session cookie (else 401); the pages ask for the token\n"
      "once (/login) and keep it in an HttpOnly, SameSite=Strict cookie.\n"
      "The queue's schema must be migrated first (zamboni db migrate; exit 3\n"
      "otherwise). SIGTERM or SIGINT: the planner stops, gives up its lease,\n"
      "the HTTP server stops, exit 0. Log lines (stderr):\n"
      "  serve replica=ID warehouses=W,... plan_interval_ms=N event=start\n"
      "  serve http listening=ADDR:PORT token=set|unset\n"
      "  serve health status=503|200 check=queue_database [message=TEXT]\n"
      "  serve replica=ID event=stop reason=signal" },
    { ZB_VERB_DEMO, "demo", "[DIR]",
      "Creates a demo under DIR: a warehouse \"demo\" in an embedded SQLite\n"
      "catalog (DIR/catalog.db), DIR/zamboni.yml,\n"
      "DIR/configs/demo/table-config.json, and tables written the way\n"
      "streaming ingest writes them: hundreds of small appends, position\n"
      "deletes, equality deletes (upserts), a partitioned and an\n"
      "unpartitioned table, a schema change. Without DIR: $ZAMBONI_ROOT\n"
      "when it is set (the demo is then the root every other verb reads),\n"
      "else ./zamboni-demo. Running it again rebuilds the demo from scratch\n"
      "(only in a folder an earlier demo made; another folder must be\n"
      "empty). Then:\n"
      "  ZAMBONI_ROOT=DIR zamboni maintenance --warehouse demo --status\n"
      "With --fleet, a serve and a worker maintain it in the background and\n"
      "the dashboard shows them at http://127.0.0.1:8650/." },
};

/* The verbs whose exit codes are not the common ones. */
static const struct {
    unsigned bit;
    const char *text;
} exit_docs[] = {
    { ZB_VERB_SCAN,
      "Exit codes: 0 printed, 1 failed (unreadable or corrupt table, unknown\n"
      "table or snapshot, no catalog database), 2 usage error (also a bad\n"
      "configuration), 3 not supported by this build (non-Parquet data\n"
      "files).\n" },
    { ZB_VERB_WORKER,
      "Exit codes: 0 after a drain (SIGTERM, SIGINT), the max lifetime or\n"
      "the idle exit (a task that failed is recorded, not an exit code);\n"
      "2 usage or configuration error (a heartbeat over a third of the lease,\n"
      "an unknown size class); 1 or 3 when the queue cannot be opened (3: its\n"
      "schema is missing, older or newer than this build).\n" },
    { ZB_VERB_ADD_FILES,
      "Exit: 0 added, 1 failed, 2 usage, 3 refused (duplicates, a file that\n"
      "does not fit, --create on an existing table, a moved table writing\n"
      "outside its new location).\n" },
};

static const char *exits_of(unsigned bit)
{
    size_t i;

    for (i = 0; i < sizeof exit_docs / sizeof exit_docs[0]; i++)
        if (exit_docs[i].bit == bit)
            return exit_docs[i].text;
    return "Exit codes: 0 success, 1 failed, 2 usage or configuration error,\n"
           "3 refused (unsupported, wrong warehouse), 4 a safety check aborted\n"
           "and nothing was deleted.\n";
}

static const verb_doc *doc_of(unsigned bit)
{
    size_t i;

    for (i = 0; i < sizeof docs / sizeof docs[0]; i++)
        if (docs[i].bit == bit)
            return &docs[i];
    return &docs[0];
}

static const char *trailer_of(unsigned bit)
{
    switch (bit) {
    case ZB_VERB_COMPACT:
        return "rewrite and commit.";
    case ZB_VERB_EXPIRE:
        return "expire and delete.";
    case ZB_VERB_ORPHANS:
        return "delete.";
    case ZB_VERB_DANGLING:
        return "commit the removal.";
    case ZB_VERB_MANIFESTS:
        return "commit the rewrite.";
    case ZB_VERB_APPLY:
        return "set them.";
    default:
        return "commit every operation above.";
    }
}

void zb_verb_help(FILE *out, unsigned bit)
{
    const verb_doc *d = doc_of(bit);
    size_t i;

    fprintf(out, "Usage: zamboni %s %s\n\n%s\n", d->name, d->usage, d->text);
    if (bit & OPS)
        fprintf(out, "\nWith --dry-run it previews and ends with\n"
                     "  dry run -- nothing changed; re-run without --dry-run to %s\n",
                trailer_of(bit));
    if (bit & TABLE_READERS)
        fputs("\nTABLE is namespace.table in the configured catalog, or the path\n"
              "or file: URI of a table folder (a name holding a slash, starting\n"
              "with file:, or an existing directory), or of one of its metadata\n"
              "files (a name ending in .json or .json.gz: any name, gzip or not).\n"
              "A metadata file is the table's state as it is for reading verbs;\n"
              "a verb that commits refuses it (exit 3) unless it is the folder's\n"
              "newest metadata file.\n",
              out);
    fputs("\nOptions:\n", out);
    for (i = 0; i < N_FLAGS; i++) {
        const flag_def *f = &flags[i];
        char head[64];
        const char *h, *nl;

        if (!(f->verbs & bit))
            continue;
        snprintf(head, sizeof head, "%s%s%s", f->name, f->metavar ? " " : "",
                 f->metavar ? f->metavar : "");
        fprintf(out, "  %s\n", head);
        for (h = f->help; (nl = strchr(h, '\n')) != NULL; h = nl + 1)
            fprintf(out, "      %.*s\n", (int)(nl - h), h);
        fprintf(out, "      %s\n", h);
    }
    fputs("  -h, --help\n      show this help\n", out);
    if (bit & CATALOG)
        fputs("\nSettings resolve flag > ZAMBONI_* variable (real, then .env) >\n"
              "./zamboni.yml > $ZAMBONI_ROOT/zamboni.yml > default; ZAMBONI_ROOT\n"
              "defaults to ~/.zamboni. Secrets come from the environment or .env.\n",
              out);
    fprintf(out, "\n%s", exits_of(bit));
}

int zb_verb_reads_tables(unsigned bit)
{
    return (bit & TABLE_READERS) != 0;
}

const char *zb_verb_trailer(unsigned bit)
{
    return trailer_of(bit);
}

int zb_verb_usage(const char *verb, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "zamboni %s: ", verb);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'zamboni %s --help'.\n", verb);
    return ZB_EXIT_USAGE;
}

static int parse_i64(int64_t *out, const char *v, int64_t min)
{
    char *end;
    long long x;

    errno = 0;
    x = strtoll(v, &end, 10);
    if (errno || end == v || *end != '\0' || x < min)
        return -1;
    *out = (int64_t)x;
    return 0;
}

static const flag_def *find_flag(const char *name, unsigned bit)
{
    size_t i;

    for (i = 0; i < N_FLAGS; i++)
        if ((flags[i].verbs & bit) && strcmp(flags[i].name, name) == 0)
            return &flags[i];
    if (strcmp(name, "--db") == 0)
        return find_flag("--warehouse", bit);
    if (strcmp(name, "-o") == 0)
        return find_flag("--output", bit);
    return NULL;
}

static int one_of(const char *v, const char *a, const char *b, const char *c)
{
    return strcmp(v, a) == 0 || strcmp(v, b) == 0 ||
           (c != NULL && strcmp(v, c) == 0);
}

/*
 * --sort-by "col [asc|desc] [nulls first|last], col2 ...": the columns
 * into a->sort_keys (strings point into a->sort_text). Nulls last by
 * default, as the table config's ordering.
 */
static int parse_sort_by(zb_verb_args *a, const char *v)
{
    char *p, *item, *save = NULL;
    size_t n = 0;

    if (strlen(v) >= sizeof a->sort_text)
        return zb_verb_usage(a->verb, "--sort-by is too long");
    memcpy(a->sort_text, v, strlen(v) + 1);
    for (item = strtok_r(a->sort_text, ",", &save); item != NULL;
         item = strtok_r(NULL, ",", &save)) {
        zb_tc_sort_key *k;
        char *w, *wsave = NULL;
        int words = 0;

        if (n >= sizeof a->sort_keys / sizeof a->sort_keys[0])
            return zb_verb_usage(a->verb, "--sort-by: at most 16 columns");
        k = &a->sort_keys[n];
        memset(k, 0, sizeof *k);
        for (w = strtok_r(item, " \t", &wsave); w != NULL;
             w = strtok_r(NULL, " \t", &wsave), words++) {
            if (words == 0) {
                k->column = w;
            } else if (strcmp(w, "asc") == 0) {
                k->descending = 0;
            } else if (strcmp(w, "desc") == 0) {
                k->descending = 1;
            } else if (strcmp(w, "nulls") == 0 &&
                       (p = strtok_r(NULL, " \t", &wsave)) != NULL &&
                       (strcmp(p, "first") == 0 || strcmp(p, "last") == 0)) {
                k->nulls_first = strcmp(p, "first") == 0;
            } else {
                return zb_verb_usage(a->verb, "invalid value '%s' for "
                                     "--sort-by (COLUMN [asc|desc] [nulls "
                                     "first|last], ...)", v);
            }
        }
        if (words == 0)
            return zb_verb_usage(a->verb, "invalid value '%s' for --sort-by",
                                 v);
        n++;
    }
    if (n == 0)
        return zb_verb_usage(a->verb, "invalid value '%s' for --sort-by", v);
    a->mo.sort_by = a->sort_keys;
    a->mo.n_sort_by = n;
    return 0;
}

/*
 * --remap OLD=NEW (split at the first '='; both sides non-empty): OLD is
 * copied into a->remap_text, NEW stays in argv.
 */
static int parse_remap(zb_verb_args *a, const char *v)
{
    const char *eq = strchr(v, '=');
    size_t used = 0, k, n;

    if (eq == NULL || eq == v || eq[1] == '\0')
        return zb_verb_usage(a->verb, "invalid value '%s' for --remap "
                             "(OLD=NEW, both non-empty)", v);
    if (a->n_remaps >= ZB_VERB_MAX_REMAPS)
        return zb_verb_usage(a->verb, "--remap: at most %d", ZB_VERB_MAX_REMAPS);
    for (k = 0; k < a->n_remaps; k++)
        used += strlen(a->remaps[k].from) + 1;
    n = (size_t)(eq - v);
    if (used + n + 1 > sizeof a->remap_text)
        return zb_verb_usage(a->verb, "--remap: the OLD paths are too long");
    memcpy(a->remap_text + used, v, n);
    a->remap_text[used + n] = '\0';
    a->remaps[a->n_remaps].from = a->remap_text + used;
    a->remaps[a->n_remaps].to = eq + 1;
    a->n_remaps++;
    return 0;
}

/* Long on purpose: one switch over the flag table's ids, each case a
 * few lines that store one flag's value with its own check. */
static int set_value(zb_verb_args *a, const flag_def *f, const char *name,
                     const char *v)
{
    int64_t x;
    int id;

    switch (f->id) {
    case F_TABLE_CONFIG:
        a->table_config = v;
        return 0;
    case F_TABLE:
        a->table_filter = v;
        return 0;
    case F_OUTPUT:
        a->output = v;
        return 0;
    case F_NAMESPACE:
        a->namespace_filter = v;
        return 0;
    case F_PROFILE:
        a->profile_path = v;
        return 0;
    case F_ENV:
        a->env_path = v;
        return 0;
    case F_SETTING:
        id = zb_settings_id_for_flag(name);
        if (id < 0 || id >= ZB_SET_COUNT)
            return -1;
        a->setting_flags[id] = v;
        return 0;
    case F_TARGET:
        if (parse_i64(&x, v, 100) < 0)
            return zb_verb_usage(a->verb, "invalid value '%s' for %s "
                                 "(bytes, at least 100)", v, name);
        a->mo.target_file_size_bytes = x;
        return 0;
    case F_MIN_FILES:
        if (parse_i64(&x, v, 1) < 0 || x > 1000000)
            return zb_verb_usage(a->verb, "invalid value '%s' for %s "
                                 "(at least 1)", v, name);
        a->mo.min_input_files = (int)x;
        return 0;
    case F_RW: {
        char why[96];
        double d;

        id = zb_tc_rw_for_flag(name);
        if (id < 0)
            return -1;
        if (zb_tc_rw_parse(&d, (zb_tc_rw)id, v, why, sizeof why) != ZB_OK)
            return zb_verb_usage(a->verb, "invalid value '%s' for %s (%s)",
                                 v, name, why);
        a->mo.rw.v[id] = d;
        a->mo.rw.given |= 1u << id;
        return 0;
    }
    case F_MAX_GROUP_MEMORY:
        if (parse_i64(&x, v, 1) < 0)
            return zb_verb_usage(a->verb, "invalid value '%s' for %s", v, name);
        a->mo.max_group_memory_bytes = (uint64_t)x;
        return 0;
    case F_MAX_CONCURRENT:
        if (parse_i64(&x, v, 1) < 0 || x > 256)
            return zb_verb_usage(a->verb, "invalid value '%s' for %s "
                                 "(1 to 256)", v, name);
        a->mo.max_concurrent = (int)x;
        return 0;
    case F_READ_AHEAD:
    case F_READ_AHEAD_FILES:
        if (parse_i64(&x, v, 0) < 0)
            return zb_verb_usage(a->verb, "invalid value '%s' for %s", v, name);
        return 0;
    case F_MEMORY_MODE:
        if (!one_of(v, "auto", "in_memory", "chunked"))
            return zb_verb_usage(a->verb, "invalid value '%s' for %s "
                                 "(auto, in_memory or chunked)", v, name);
        a->memory_mode = v;
        return 0;
    case F_TEMP_DIR:
        a->temp_directory = v;
        return 0;
    case F_LOCATION:
        a->location = v;
        return 0;
    case F_SORT_BY:
        a->sort_by = v;
        return parse_sort_by(a, v);
    case F_BRANCH:
        a->mo.branch = v;
        return 0;
    case F_SNAP_OP:
        if (!one_of(v, "replace", "overwrite", NULL))
            return zb_verb_usage(a->verb, "invalid value '%s' for %s "
                                 "(replace or overwrite)", v, name);
        a->snapshot_operation = v;
        return 0;
    case F_DANGLING_POLICY:
        if (!one_of(v, "report", "block", NULL))
            return zb_verb_usage(a->verb, "invalid value '%s' for %s "
                                 "(report or block)", v, name);
        a->dangling_delete_policy = v;
        return 0;
    case F_MAX_AGE:
        if (parse_i64(&x, v, 0) < 0)
            return zb_verb_usage(a->verb, "invalid value '%s' for %s "
                                 "(days, at least 0)", v, name);
        a->mo.max_snapshot_age_days = x;
        return 0;
    case F_MIN_KEEP:
        if (parse_i64(&x, v, 1) < 0 || x > 1000000)
            return zb_verb_usage(a->verb, "invalid value '%s' for %s "
                                 "(at least 1)", v, name);
        a->mo.min_snapshots_to_keep = x;
        return 0;
    case F_OLDER_THAN:
        if (parse_i64(&x, v, 0) < 0)
            return zb_verb_usage(a->verb, "invalid value '%s' for %s "
                                 "(days, at least 0)", v, name);
        a->mo.older_than_days = x;
        return 0;
    case F_REMAP:
        return parse_remap(a, v);
    case F_SNAPSHOT:
        if (parse_i64(&x, v, INT64_MIN) < 0)
            return zb_verb_usage(a->verb, "invalid snapshot id '%s'", v);
        a->have_snapshot = 1;
        a->snapshot_id = x;
        return 0;
    case F_FORMAT:
        if (strcmp(v, "jsonl") == 0)
            a->format = ZB_SCAN_FORMAT_JSONL;
        else if (strcmp(v, "csv") == 0)
            a->format = ZB_SCAN_FORMAT_CSV;
        else
            return zb_verb_usage(a->verb, "invalid value '%s' for %s "
                                 "(jsonl or csv)", v, name);
        return 0;
    case F_SOURCE:
        a->af.source = v;
        return 0;
    case F_PARTITION_BY:
        a->af.partition_by = v;
        return 0;
    case F_FORMAT_VERSION:
        if (strcmp(v, "1") && strcmp(v, "2") && strcmp(v, "3"))
            return zb_verb_usage(a->verb, "invalid value '%s' for %s "
                                 "(1, 2 or 3)", v, name);
        a->af.format_version = v[0] - '0';
        return 0;
    case F_PARALLEL:
        if (parse_i64(&x, v, 1) < 0 || x > 64)
            return zb_verb_usage(a->verb, "invalid value '%s' for %s "
                                 "(1 to 64)", v, name);
        a->parallel = (int)x;
        return 0;
    case F_MIN_MANIFESTS:
        if (parse_i64(&x, v, 2) < 0 || x > 1000000)
            return zb_verb_usage(a->verb, "invalid value '%s' for %s "
                                 "(at least 2)", v, name);
        a->mo.min_input_manifests = x;
        return 0;
    default:
        return -1;
    }
}

int zb_verb_parse(zb_verb_args *a, unsigned bit, int argc, char **argv,
                  size_t min_pos, size_t max_pos, int *help)
{
    zb_maint_opts mo = ZB_MAINT_OPTS_INIT;
    zb_add_files_opts af = ZB_ADD_FILES_OPTS_INIT;
    int i, options_done = 0;

    memset(a, 0, sizeof *a);
    a->mo = mo;
    a->af = af;
    a->verb = argv[0];
    a->bit = bit;
    *help = 0;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const flag_def *f;
        char name[64];
        size_t nl = strcspn(arg, "=");
        const char *v = NULL;
        zb_ctx fctx;
        int rc;

        if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (a->n_pos >= max_pos || a->n_pos >= ZB_VERB_MAX_TABLES)
                return zb_verb_usage(a->verb, "unexpected argument '%s'", arg);
            a->pos[a->n_pos++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            options_done = 1;
            continue;
        }
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            *help = 1;
            return ZB_EXIT_OK;
        }
        if ((bit & ZB_VERB_MAINTENANCE) && strcmp(arg, "-v") == 0) {
            a->verbose = 1;
            continue;
        }
        zb_ctx_init(&fctx);
        if (zb_settings_removed_flag(&fctx, arg) < 0) {
            fprintf(stderr, "zamboni %s: %s\n", a->verb, fctx.err.msg);
            return ZB_EXIT_USAGE;
        }
        if (nl >= sizeof name)
            return zb_verb_usage(a->verb, "unknown option '%s'", arg);
        memcpy(name, arg, nl);
        name[nl] = '\0';
        if ((f = find_flag(name, bit)) == NULL)
            return zb_verb_usage(a->verb, "unknown option '%s'", arg);
        if (f->metavar == NULL) {
            if (arg[nl] == '=')
                return zb_verb_usage(a->verb, "option '%s' takes no value",
                                     name);
            switch (f->id) {
            case F_DRY_RUN: a->dry_run = 1; break;
            case F_YES: a->yes = 1; break;
            case F_STATUS: a->status = 1; break;
            case F_VERBOSE: a->verbose = 1; break;
            case F_REWRITE_ALL:
                a->mo.rewrite_all = 1;
                a->mo.rw.v[ZB_TC_RW_REWRITE_ALL] = 1;
                a->mo.rw.given |= 1u << ZB_TC_RW_REWRITE_ALL;
                break;
            case F_PARTIAL:
                a->mo.partial_progress = 1;
                a->mo.rw.v[ZB_TC_RW_PARTIAL_PROGRESS] = 1;
                a->mo.rw.given |= 1u << ZB_TC_RW_PARTIAL_PROGRESS;
                break;
            case F_SORT_TABLE:
                a->sort_by_table_order = 1;
                a->mo.sort_by_table_order = 1;
                break;
            case F_FORCE: a->mo.orphans_force = 1; break;
            case F_JSON: a->json = 1; break;
            case F_OVERWRITE: a->overwrite = 1; break;
            case F_NO_EVOLUTION: a->no_evolution = 1; break;
            case F_COUNT: a->count = 1; break;
            case F_CREATE: a->af.create = 1; break;
            case F_ALLOW_DUPLICATES: a->af.allow_duplicates = 1; break;
            case F_FLEET: a->fleet = 1; break;
            default: break;
            }
            continue;
        }
        if (arg[nl] == '=')
            v = arg + nl + 1;
        else if (i + 1 < argc)
            v = argv[++i];
        if (v == NULL)
            return zb_verb_usage(a->verb, "option '%s' needs a value", name);
        if ((rc = set_value(a, f, name, v)) != 0)
            return rc < 0 ? zb_verb_usage(a->verb, "unknown option '%s'", name)
                          : rc;
    }
    if (a->sort_by != NULL && a->sort_by_table_order)
        return zb_verb_usage(a->verb, "--sort-by and --sort-by-table-order "
                             "exclude each other");
    if (a->n_pos < min_pos)
        return zb_verb_usage(a->verb, "%s",
                             bit == ZB_VERB_TABLE_CONFIG
                                 ? "missing validate, summary, generate "
                                   "or from-catalog"
                                 : "missing TABLE (a table folder or "
                                   "namespace.table)");
    return ZB_EXIT_OK;
}
