/*
 * exec/sys_limits.c - cgroup v2 and v1 limits and the core count
 * (exec/sys_limits.h).
 *
 * Each figure is gathered as the smallest limit found in the cgroup's
 * folder and its ancestors (0: none found), then applied over the
 * machine's figures only when it is smaller, so that an unlimited or
 * absurd cgroup value never raises what sysconf reports.
 */
#define ZB_MODULE "sys_limits"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/sys_limits.h"

/* v1 reports "no limit" as a page-rounded LONG_MAX; anything this large
 * is no limit. */
#define V1_UNLIMITED_BYTES (1ull << 62)
#define PATH_BYTES 4096

typedef struct found {
    double cpu;                  /* smallest quota / period; 0: none */
    uint64_t mem;                /* smallest memory limit; 0: none */
    int seen;                    /* a limit file existed */
} found;

typedef void (*dir_reader)(const char *dir, found *f);

/* Reads a small file into buf (NUL-terminated); 0 on success. */
static int read_small(const char *path, char *buf, size_t size)
{
    ssize_t n;
    size_t got = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return -1;
    while (got + 1 < size) {
        n = read(fd, buf + got, size - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    return got ? 0 : -1;
}

/* Reads dir/name into buf; 0 on success. */
static int read_in(const char *dir, const char *name, char *buf, size_t size)
{
    char path[PATH_BYTES + 64];
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);

    if (n < 0 || (size_t)n >= sizeof path)
        return -1;
    return read_small(path, buf, size);
}

static int is_dir(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void take_cpu(found *f, double quota, double period)
{
    double c;

    if (quota <= 0 || period <= 0)
        return;
    c = quota / period;
    if (f->cpu == 0 || c < f->cpu)
        f->cpu = c;
}

static void take_mem(found *f, const char *text, uint64_t unlimited)
{
    char *end;
    unsigned long long mem = strtoull(text, &end, 10);

    if (end == text || mem == 0 || mem >= unlimited)
        return;
    if (f->mem == 0 || mem < f->mem)
        f->mem = mem;
}

/* v2 cpu.max: "<quota> <period>" or "max <period>". */
static void v2_cpu(const char *dir, found *f)
{
    char buf[128], *end;
    double quota;

    if (read_in(dir, "cpu.max", buf, sizeof buf) != 0)
        return;
    f->seen = 1;
    if (strncmp(buf, "max", 3) == 0)
        return;
    quota = strtod(buf, &end);
    take_cpu(f, quota, strtod(end, NULL));
}

/* v2 memory.max: bytes or "max". */
static void v2_mem(const char *dir, found *f)
{
    char buf[128];

    if (read_in(dir, "memory.max", buf, sizeof buf) != 0)
        return;
    f->seen = 1;
    if (strncmp(buf, "max", 3) != 0)
        take_mem(f, buf, UINT64_MAX);
}

/* v1 cpu.cfs_quota_us (-1: unlimited) over cpu.cfs_period_us. */
static void v1_cpu(const char *dir, found *f)
{
    char quota[64], period[64];

    if (read_in(dir, "cpu.cfs_quota_us", quota, sizeof quota) != 0)
        return;
    f->seen = 1;
    if (read_in(dir, "cpu.cfs_period_us", period, sizeof period) != 0)
        return;
    take_cpu(f, strtod(quota, NULL), strtod(period, NULL));
}

/* v1 memory.limit_in_bytes; a huge value is no limit. */
static void v1_mem(const char *dir, found *f)
{
    char buf[128];

    if (read_in(dir, "memory.limit_in_bytes", buf, sizeof buf) != 0)
        return;
    f->seen = 1;
    take_mem(f, buf, V1_UNLIMITED_BYTES);
}

/*
 * Reads the cgroup at mount + cg_path and each ancestor up to the mount.
 * When that folder does not exist (a container's mount shows its own
 * cgroup at the top), the path's leading parts are dropped until one
 * does.
 */
static void walk_up(const char *mount, const char *cg_path, dir_reader fn,
                    found *f)
{
    char dir[PATH_BYTES];
    const char *p = cg_path;
    size_t mount_len = strlen(mount);
    char *slash;
    int n;

    for (;;) {
        n = snprintf(dir, sizeof dir, "%s%s", mount,
                     strcmp(p, "/") == 0 ? "" : p);
        if (n < 0 || (size_t)n >= sizeof dir)
            return;
        if (*p == '\0' || is_dir(dir))
            break;
        p = strchr(p + 1, '/');
        if (p == NULL)
            p = "";
    }
    if (!is_dir(dir))
        return;
    for (;;) {
        fn(dir, f);
        if (strlen(dir) <= mount_len ||
            (slash = strrchr(dir + mount_len, '/')) == NULL)
            break;
        *slash = '\0';
    }
}

/* What /proc/self/cgroup says: the v2 path, and v1 lines per controller. */
typedef struct proc_cgroup {
    int has_v2, has_mem, has_cpu;
    char v2_path[PATH_BYTES];
    char mem_ctrls[128], mem_path[PATH_BYTES];
    char cpu_ctrls[128], cpu_path[PATH_BYTES];
} proc_cgroup;

/* 1 when the comma-separated list holds name. */
static int has_controller(const char *list, const char *name)
{
    size_t len = strlen(name);
    const char *p = list;

    while (*p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n == len && strncmp(p, name, len) == 0)
            return 1;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    return 0;
}

static void keep(char *dst, size_t size, const char *src, int *flag)
{
    int n = snprintf(dst, size, "%s", src);

    if (n >= 0 && (size_t)n < size)
        *flag = 1;
}

static void parse_proc_cgroup(proc_cgroup *pc, const char *file)
{
    char buf[16384], *line, *nl, *c1, *c2;

    memset(pc, 0, sizeof *pc);
    if (read_small(file, buf, sizeof buf) != 0)
        return;
    for (line = buf; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if ((c1 = strchr(line, ':')) == NULL ||
            (c2 = strchr(c1 + 1, ':')) == NULL)
            continue;
        *c1 = *c2 = '\0';
        if (strcmp(line, "0") == 0 && c1[1] == '\0') {
            keep(pc->v2_path, sizeof pc->v2_path, c2 + 1, &pc->has_v2);
            continue;
        }
        if (!pc->has_mem && has_controller(c1 + 1, "memory")) {
            snprintf(pc->mem_ctrls, sizeof pc->mem_ctrls, "%s", c1 + 1);
            keep(pc->mem_path, sizeof pc->mem_path, c2 + 1, &pc->has_mem);
        }
        if (!pc->has_cpu && has_controller(c1 + 1, "cpu")) {
            snprintf(pc->cpu_ctrls, sizeof pc->cpu_ctrls, "%s", c1 + 1);
            keep(pc->cpu_path, sizeof pc->cpu_path, c2 + 1, &pc->has_cpu);
        }
    }
}

/* The v1 hierarchy's folder: <root>/<controllers as listed>, else
 * <root>/<name>; 0 when neither exists. */
static int v1_mount(char *out, size_t size, const char *root,
                    const char *ctrls, const char *name)
{
    int n = snprintf(out, size, "%s/%s", root, ctrls);

    if (n >= 0 && (size_t)n < size && is_dir(out))
        return 1;
    n = snprintf(out, size, "%s/%s", root, name);
    return n >= 0 && (size_t)n < size && is_dir(out);
}

unsigned zb_cores_from_limits(double cpu_limit, uint64_t mem_bytes)
{
    uint64_t by_mem = mem_bytes / ZB_CORE_MEMORY_BYTES;
    double c = cpu_limit < 1.0 ? 1.0 : cpu_limit;
    uint64_t by_cpu = c > 4096.0 ? 4096 : (uint64_t)c;
    uint64_t n = by_cpu < by_mem ? by_cpu : by_mem;

    return n < 1 ? 1u : (unsigned)n;
}

static void machine_limits(zb_sys_limits *out)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

    memset(out, 0, sizeof *out);
    out->cpu_limit = ncpu > 0 ? (double)ncpu : 1.0;
    out->mem_limit_bytes = (pages > 0 && psize > 0)
                           ? (uint64_t)pages * (uint64_t)psize : 0;
}

/* Applies what the cgroup says where it is below the machine's figure. */
static void apply(zb_sys_limits *out, const found *cpu, const found *mem)
{
    if (cpu->cpu > 0 && cpu->cpu < out->cpu_limit) {
        out->cpu_limit = cpu->cpu;
        out->cpu_from_cgroup = 1;
    }
    if (mem->mem > 0 &&
        (out->mem_limit_bytes == 0 || mem->mem < out->mem_limit_bytes)) {
        out->mem_limit_bytes = mem->mem;
        out->mem_from_cgroup = 1;
    }
    out->cores = zb_cores_from_limits(out->cpu_limit, out->mem_limit_bytes);
}

void zb_sys_limits_read_tree(zb_sys_limits *out, const char *cgroup_root,
                             const char *proc_cgroup_file)
{
    proc_cgroup pc;
    found cpu = { 0, 0, 0 }, mem = { 0, 0, 0 };
    char mount[PATH_BYTES];

    machine_limits(out);
    parse_proc_cgroup(&pc, proc_cgroup_file);
    if (pc.has_mem) {
        if (v1_mount(mount, sizeof mount, cgroup_root, pc.mem_ctrls,
                     "memory"))
            walk_up(mount, pc.mem_path, v1_mem, &mem);
    } else if (pc.has_v2) {
        walk_up(cgroup_root, pc.v2_path, v2_mem, &mem);
    }
    if (pc.has_cpu) {
        if (v1_mount(mount, sizeof mount, cgroup_root, pc.cpu_ctrls, "cpu"))
            walk_up(mount, pc.cpu_path, v1_cpu, &cpu);
    } else if (pc.has_v2) {
        walk_up(cgroup_root, pc.v2_path, v2_cpu, &cpu);
    }
    out->cgroup_version = (pc.has_mem || pc.has_cpu) ? 1
                          : pc.has_v2 ? 2 : 0;
    apply(out, &cpu, &mem);
}

void zb_sys_limits_read(zb_sys_limits *out, const char *cgroup_dir)
{
    found cpu = { 0, 0, 0 }, mem = { 0, 0, 0 };

    if (cgroup_dir == NULL) {
        zb_sys_limits_read_tree(out, "/sys/fs/cgroup", "/proc/self/cgroup");
        return;
    }
    machine_limits(out);
    v2_cpu(cgroup_dir, &cpu);
    v2_mem(cgroup_dir, &mem);
    out->cgroup_version = (cpu.seen || mem.seen) ? 2 : 0;
    apply(out, &cpu, &mem);
}
