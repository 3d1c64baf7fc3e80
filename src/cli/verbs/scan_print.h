/*
 * cli/verbs/scan_print.h - prints Arrow batches of table rows (the row
 * stream's, plan/read/scan_read.h) as JSON lines or CSV, for `zamboni scan`.
 *
 * JSON lines: one object per row, keyed by the top-level column names in
 * schema order, each value in format/spec.md Appendix D "JSON
 * single-value serialization" (written by table/value/ice_value.h for the
 * primitives): booleans, ints and longs as JSON numbers, floats and
 * doubles as the shortest JSON number that reads back to the same value,
 * decimals as strings carrying their scale ("14.20"), dates "2017-11-16",
 * times "22:31:08.123456", timestamps "2017-11-16T22:31:08.123456" (with
 * "+00:00" when they carry a zone; 9 digits for the _ns types), uuids in
 * lowercase, binary and fixed as lowercase hex, nested structs as objects
 * keyed by field id (as Appendix D says; by name when a child carries no
 * "PARQUET:field_id"), lists as arrays, maps as {"keys": [...], "values":
 * [...]}. Appendix D has no form for NaN and the infinities: they print
 * as the strings "NaN", "Infinity", "-Infinity"; nor for variants, which
 * the row stream gives as a struct of two binaries without field ids and
 * so print as {"metadata": HEX, "value": HEX}.
 *
 * CSV (RFC 4180): a header line of the column names, then one line per
 * row, lines ended by CRLF. A field holding a comma, a double quote, CR
 * or LF is quoted, with its quotes doubled. Null is an empty field; an
 * empty string is "" (quoted). Strings print as their text, the other
 * primitives as their JSON text without the quotes, nested values as
 * their JSON text.
 *
 * Arrow types read (exec/arrow/arrow.h layouts, offsets and validity honoured):
 * b, c s i l, C S I L, f g, d:P,S (128-bit), tdD, ttu ttn tts ttm, ts?:
 * and ts?:ZONE, u U, z Z, w:N (a uuid when the field's metadata has
 * ARROW:extension:name arrow.uuid), n, +s, +l +L, +m. Anything else is
 * ZB_EUNSUPPORTED naming the column and its format.
 */
#ifndef ZB_CLI_SCAN_PRINT_H
#define ZB_CLI_SCAN_PRINT_H

#include <stdio.h>

#include "exec/arrow/arrow.h"
#include "zamboni/zamboni.h"

typedef enum zb_scan_format {
    ZB_SCAN_FORMAT_JSONL = 0,
    ZB_SCAN_FORMAT_CSV
} zb_scan_format;

/*
 * Writes the CSV header line of schema (a "+s" struct of the columns) to
 * fp. Does nothing for JSON lines. ZB_EIO when fp fails.
 */
int zb_scan_print_header(FILE *fp, zb_ctx *ctx, zb_scan_format fmt,
                         const struct ArrowSchema *schema);

/*
 * Writes every row of batch (a "+s" struct array described by schema) to
 * fp in fmt. Codes: ZB_EUNSUPPORTED (an Arrow type not listed above),
 * ZB_ECORRUPT (a batch whose shape disagrees with its schema), ZB_ENOMEM,
 * ZB_EIO (fp failed).
 */
int zb_scan_print_batch(FILE *fp, zb_ctx *ctx, zb_scan_format fmt,
                        const struct ArrowSchema *schema,
                        const struct ArrowArray *batch);

#endif
