/*
 * service/size_class.h - worker size classes (issue 17): the same memory
 * per core, different core counts; a task goes to the smallest class whose
 * memory fits its estimate, else the largest (where compaction spills
 * what can spill); a lost attempt runs again one class up.
 *
 * Configured as size_classes: in zamboni.yml (a list of name, cores,
 * memory in bytes or with Ki/Mi/Gi/Ti (K/M/G/T too), max_jobs) or
 * ZAMBONI_SIZE_CLASSES (the same list as JSON). Without any, one class:
 * standard, 2 cores, 8 GiB, max_jobs 2 (seed 004).
 */
#ifndef ZB_SERVICE_SIZE_CLASS_H
#define ZB_SERVICE_SIZE_CLASS_H

#include <stdint.h>

#include "zamboni/zamboni.h"

#define ZB_SIZE_CLASSES_MAX 16

typedef struct zb_size_class {
    char name[64];
    int cores;
    uint64_t memory_bytes;
    int max_jobs;
} zb_size_class;

/* Sorted by memory, smallest first. */
typedef struct zb_size_classes {
    int n;
    zb_size_class c[ZB_SIZE_CLASSES_MAX];
} zb_size_classes;

/* The built-in single class. */
void zb_size_classes_default(zb_size_classes *out);

/*
 * Parses the JSON list (ZAMBONI_SIZE_CLASSES; what the profile's YAML
 * list is turned into too). ZB_EUSAGE naming the entry and field: not a
 * list, a missing or duplicate name, cores or max_jobs < 1, memory
 * unparsable or 0, more than ZB_SIZE_CLASSES_MAX entries.
 */
int zb_size_classes_parse_json(zb_size_classes *out, zb_ctx *ctx,
                               const char *json, const char *origin);

/* "8Gi", "512Mi", "1073741824", "2G" -> bytes; ZB_EUSAGE when bad. */
int zb_size_parse_bytes(uint64_t *out, const char *text);

/* The class named, or NULL. */
const zb_size_class *zb_size_class_find(const zb_size_classes *cs,
                                        const char *name);
/* The smallest class whose memory holds need_bytes, else the largest. */
const zb_size_class *zb_size_class_for(const zb_size_classes *cs,
                                       uint64_t need_bytes);
/* The next larger class than name (itself when largest or unknown). */
const zb_size_class *zb_size_class_up(const zb_size_classes *cs,
                                      const char *name);

#endif
