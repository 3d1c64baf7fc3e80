/*
 * exec/sys_limits.h - the CPU and memory the process may use, from its
 * cgroup (v2 or v1) or else the machine, and the core count they allow.
 *
 * Cores (DESIGN.md "Memory, cores and disk"): cores = min(floor(cpu
 * limit), memory limit / 4 GiB), at least 1, where the CPU limit is the
 * cgroup's quota / period or else the online CPUs, and the memory limit
 * the cgroup's memory limit or else the physical memory (whichever is
 * smaller when both exist).
 *
 * cgroup v2 (the unified hierarchy): /proc/self/cgroup's "0::<path>"
 * line names the folder <root><path>, holding cpu.max ("<quota> <period>"
 * or "max <period>") and memory.max (bytes or "max").
 * cgroup v1: the "<id>:<controllers>:<path>" line whose controllers
 * include memory names <root>/<controllers>/<path> (or <root>/memory/...)
 * holding memory.limit_in_bytes (a value of 2^62 or more, such as
 * 9223372036854771712, is unlimited); the one with cpu ("cpu,cpuacct" or
 * "cpu") names the folder holding cpu.cfs_quota_us (-1: unlimited) and
 * cpu.cfs_period_us. Where a controller appears on a v1 line it is read
 * there (a hybrid system's unified hierarchy holds no controllers).
 *
 * The folder's ancestors up to the mount limit it too: each figure is the
 * smallest found from the folder up. A container sees its own cgroup at
 * the mount's top while /proc still names the host's path, so when
 * <mount><path> does not exist the path's leading parts are dropped one
 * by one until a folder that exists is found.
 */
#ifndef ZB_EXEC_SYS_LIMITS_H
#define ZB_EXEC_SYS_LIMITS_H

#include <stdint.h>

typedef struct zb_sys_limits {
    double cpu_limit;            /* cores the process may use */
    uint64_t mem_limit_bytes;    /* memory it may use */
    int cpu_from_cgroup;         /* 1 when a cgroup CPU quota set it */
    int mem_from_cgroup;         /* 1 when a cgroup memory limit set it */
    int cgroup_version;          /* the hierarchy read: 1, 2; 0 none */
    unsigned cores;              /* zb_cores_from_limits of the above */
} zb_sys_limits;

#define ZB_CORE_MEMORY_BYTES (4ull << 30)

/*
 * The process's limits. cgroup_dir NULL reads the real ones
 * (zb_sys_limits_read_tree under /sys/fs/cgroup with /proc/self/cgroup);
 * otherwise it is one folder of cgroup v2 files (cpu.max, memory.max),
 * read alone, cgroup_version 2 when either file exists. Missing or
 * unlimited values fall back to sysconf's online CPUs and physical
 * memory. Never fails.
 */
void zb_sys_limits_read(zb_sys_limits *out, const char *cgroup_dir);

/*
 * The same from a tree laid out like /sys/fs/cgroup (cgroup_root) and a
 * file in /proc/self/cgroup's format (proc_cgroup_file), as described at
 * the top. cgroup_version is 1 when the memory or cpu controller is on a
 * v1 line, else 2 with a "0::" line, else 0. Never fails.
 */
void zb_sys_limits_read_tree(zb_sys_limits *out, const char *cgroup_root,
                             const char *proc_cgroup_file);

/* min(floor(cpu_limit), mem_bytes / 4 GiB), at least 1. */
unsigned zb_cores_from_limits(double cpu_limit, uint64_t mem_bytes);

#endif
