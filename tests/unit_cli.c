/* The threads a run takes by default: the cgroup CPU quota as the Java and
 * Go runtimes read it, on fake cgroup trees (v2 and v1, nested
 * limits, a container whose cgroup path is not mounted, no limit). */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cli.h"
#include "unit.h"

static char root[64];

/* put PATH (under root) TEXT, making the folders on the way */
static void put(const char *path, const char *text)
{
    char full[PATH_MAX];
    snprintf(full, sizeof full, "%s/%s", root, path);
    for (char *p = full + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        mkdir(full, 0755);
        *p = '/';
    }
    FILE *fp = fopen(full, "w");
    fputs(text, fp);
    fclose(fp);
}

static int cpus(const char *self)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/self", root);
    put("self", self);
    char fs[PATH_MAX];
    snprintf(fs, sizeof fs, "%s/fs", root);
    return sg_cgroup_cpus(fs, path);
}

static void test_v2(void)
{
    /* no file, "max", then a quota of 2.5 CPUs below one of 4 */
    CHECK(cpus("0::/job\n") == 0, "no cpu.max: no quota");
    put("fs/cpu.max", "max 100000\n");
    put("fs/job/cpu.max", "max 100000\n");
    CHECK(cpus("0::/job\n") == 0, "max: no quota");
    put("fs/job/cpu.max", "400000 100000\n");
    put("fs/job/step/cpu.max", "250000 100000\n");
    CHECK(cpus("0::/job/step\n") == 3, "2.5 CPUs round up to %d", cpus("0::/job/step\n"));
    /* a parent's smaller limit applies to its children */
    put("fs/job/cpu.max", "150000 100000\n");
    CHECK(cpus("0::/job/step\n") == 2, "the parent's 1.5 CPUs: %d", cpus("0::/job/step\n"));
    /* a whole number of CPUs stays that number */
    put("fs/job/cpu.max", "200000 100000\n");
    CHECK(cpus("0::/job/step\n") == 2, "2 CPUs: %d", cpus("0::/job/step\n"));
    /* in a container: its cgroup is the mount's root, the path one of the host's */
    put("fs/cpu.max", "100000 100000\n");
    CHECK(cpus("0::/system.slice/docker-1.scope\n") == 1, "the container's own limit");
}

static void test_v1(void)
{
    put("fs/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
    put("fs/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
    const char *self = "12:memory:/slurm/job1\n4:cpu,cpuacct:/slurm/job1\n1:name=systemd:/\n";
    CHECK(cpus(self) == 0, "-1: no quota");
    put("fs/cpu,cpuacct/slurm/job1/cpu.cfs_quota_us", "300000\n");
    put("fs/cpu,cpuacct/slurm/job1/cpu.cfs_period_us", "100000\n");
    CHECK(cpus(self) == 3, "3 CPUs: %d", cpus(self));
    /* a line of other controllers that contain "cpu" in their names is not the cpu one */
    CHECK(cpus("3:cpuset:/slurm/job1\n2:cpuacct:/slurm/job1\n") == 0, "cpuset and cpuacct are not cpu");
    /* a cgroup list that cannot be read: no quota */
    CHECK(sg_cgroup_cpus(root, "/nonexistent/self") == 0, "no list");
}

static void test_default(void)
{
    /* whatever this machine's quota, at least one thread and no more than the CPUs online */
    int n = sg_default_threads();
    CHECK(n >= 1 && n <= sysconf(_SC_NPROCESSORS_ONLN), "%d threads", n);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/unit_cli.XXXXXX");
    if (!mkdtemp(root)) return 2;
    RUN(test_v2);
    RUN(test_v1);
    RUN(test_default);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) return 2;
    return UNIT_SUMMARY();
}
