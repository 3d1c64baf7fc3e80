/*
 * util/json.h - zb_json, a JSON value as modules hand it to each other.
 *
 * Why a type of our own: some interfaces carry documents that are JSON by
 * definition and go on as JSON (TableRequirement and TableUpdate lists a
 * REST catalog receives as they are; Schema, PartitionSpec and SortOrder
 * objects), so a typed struct would only copy jansson's tree into ours
 * and back. jansson's value type is kept out of headers all the same
 * (STYLE.md section 2): a zb_json is opaque, its implementation is a
 * jansson value, and only .c files of modules that link jansson convert,
 * with a cast to and from jansson's type. Ownership and reference counts
 * are jansson's: a function that takes a zb_json says whether it keeps a
 * reference, as jansson's own functions do.
 */
#ifndef ZB_UTIL_JSON_H
#define ZB_UTIL_JSON_H

typedef struct zb_json zb_json;

#endif
