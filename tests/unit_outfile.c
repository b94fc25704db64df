/* Output files: created before the work, never an input, replaced whole
 * (mode kept, links written through, names up to NAME_MAX), all of a run's
 * or none, and no temporary left on any way out. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "formats/outfile.h"
#include "core/log.h"
#include "unit.h"

static char dir[64];

static const char *in_dir(const char *name)
{
    static char buf[4][PATH_MAX];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", dir, name);
    return buf[i];
}

static void put(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    fputs(text, fp);
    fclose(fp);
}

static int holds(const char *path, const char *text)
{
    char buf[256] = "";
    FILE *fp = fopen(path, "r");
    if (!fp) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = 0;
    return !strcmp(buf, text);
}

/* Files in dir whose name contains part. */
static int files_with(const char *part)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; (e = readdir(d));) n += strstr(e->d_name, part) != NULL;
    closedir(d);
    return n;
}

/* One output written with text through the whole open-write-close cycle. */
static int write_one(const char *path, const char *text)
{
    sg_outfile_t o = {.what = "-o", .path = path};
    if (sg_outfiles_open(&o, 1, NULL, 0) < 0) return -1;
    fputs(text, o.fp);
    return sg_outfiles_close(&o, 1);
}

static void test_replace(void)
{
    const char *p = in_dir("priv.tsv");
    put(p, "old");
    chmod(p, 0600);
    CHECK(write_one(p, "new") == 0 && holds(p, "new"), "replaced");
    struct stat st;
    CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600, "mode %o, not 0600", st.st_mode & 07777);
    chmod(p, 0640);
    CHECK(write_one(p, "newer") == 0 && stat(p, &st) == 0 && (st.st_mode & 07777) == 0640, "mode %o, not 0640",
          st.st_mode & 07777);
    mode_t old = umask(027);
    const char *q = in_dir("fresh.tsv");
    CHECK(write_one(q, "x") == 0 && stat(q, &st) == 0 && (st.st_mode & 07777) == 0640, "new file: mode %o, not 0666 & ~027",
          st.st_mode & 07777);
    umask(old);
    CHECK(files_with("seqgpu-tmp") == 0, "a temporary is left");
}

static void test_links(void)
{
    const char *target = in_dir("target.bed"), *link = in_dir("link.bed"), *dangling = in_dir("dangling.bed");
    put(target, "old");
    CHECK(symlink("target.bed", link) == 0, "symlink");
    CHECK(write_one(link, "through") == 0, "write through a link");
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the link is no longer a link");
    CHECK(holds(target, "through"), "the target was not replaced");
    CHECK(symlink("made.bed", dangling) == 0, "symlink");
    CHECK(write_one(dangling, "made") == 0 && holds(in_dir("made.bed"), "made"), "a dangling link's target is created");
    CHECK(lstat(dangling, &st) == 0 && S_ISLNK(st.st_mode), "the dangling link is no longer a link");
}

static void test_long_names(void)
{
    char name[NAME_MAX + 1];
    memset(name, 'n', NAME_MAX);
    name[NAME_MAX] = 0;
    const char *p = in_dir(name);
    CHECK(write_one(p, "long") == 0 && holds(p, "long"), "a name of NAME_MAX bytes");
    put(p, "old");
    CHECK(write_one(p, "again") == 0 && holds(p, "again"), "replacing a name of NAME_MAX bytes");
    unlink(p);
}

static void test_temporaries(void)
{
    const char *p = in_dir("t.bed");
    sg_outfile_t a = {.what = "-o", .path = p}, b = {.what = "-o", .path = p};
    CHECK(sg_outfiles_open(&a, 1, NULL, 0) == 0 && sg_outfiles_open(&b, 1, NULL, 0) == 0, "open twice");
    CHECK(a.tmp && b.tmp && strcmp(a.tmp, b.tmp), "two runs got the same temporary");
    CHECK(a.tmp && !strncmp(a.tmp, dir, strlen(dir)) && strchr(a.tmp + strlen(dir) + 1, '/') == NULL,
          "the temporary %s is not beside the output", a.tmp);
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    CHECK(a.tmp && !strstr(a.tmp + strlen(dir), pid), "the temporary %s holds the process id: predictable", a.tmp);
    CHECK(access(p, F_OK) != 0, "the output appeared before it was closed");
    sg_outfiles_discard(&a, 1);
    sg_outfiles_discard(&b, 1);
    CHECK(files_with("seqgpu-tmp") == 0 && access(p, F_OK) != 0, "discard left something");
}

static void test_refusals(void)
{
    const char *in = in_dir("in.fa"), *hard = in_dir("hard.fa"), *soft = in_dir("soft.fa");
    put(in, ">a\nACGT\n");
    CHECK(link(in, hard) == 0 && symlink("in.fa", soft) == 0, "links");
    char *inputs[] = {(char *)in};
    const char *outs[] = {in, hard, soft};
    for (int i = 0; i < 3; i++) {
        sg_outfile_t o = {.what = "-o", .path = outs[i]};
        CHECK(sg_outfiles_open(&o, 1, inputs, 1) == SG_ERR_INPUT, "%s: an input as output", outs[i]);
    }
    CHECK(holds(in, ">a\nACGT\n"), "the input changed");
    sg_outfile_t two[] = {{.what = "-o", .path = in_dir("x.bed")}, {.what = "--stats", .path = in_dir("./x.bed")}};
    CHECK(sg_outfiles_open(two, 2, NULL, 0) == SG_ERR_INPUT, "the same output twice");
    sg_outfile_t std[] = {{.what = "-o", .path = "-"}, {.what = "--stats", .path = "-"}};
    CHECK(sg_outfiles_open(std, 2, NULL, 0) == SG_ERR_INPUT, "standard output twice");
    sg_outfile_t late[] = {{.what = "-o", .path = in_dir("ok.bed")}, {.what = "--stats", .path = in_dir("no/s.json")}};
    CHECK(sg_outfiles_open(late, 2, NULL, 0) == SG_ERR_INPUT, "a folder that is not there");
    CHECK(files_with("seqgpu-tmp") == 0 && access(in_dir("ok.bed"), F_OK) != 0, "a refused run left files");
}

static void test_all_or_none(void)
{
    if (access("/dev/full", W_OK) != 0) return;
    const char *p = in_dir("first.bed");
    put(p, "old");
    sg_outfile_t o[] = {{.what = "-o", .path = p}, {.what = "--stats", .path = "/dev/full"}};
    CHECK(sg_outfiles_open(o, 2, NULL, 0) == 0, "open");
    fputs("new", o[0].fp);
    fputs("stats", o[1].fp);
    CHECK(sg_outfiles_close(o, 2) == SG_ERR_SYSTEM, "a write error");
    CHECK(holds(p, "old") && files_with("seqgpu-tmp") == 0, "one output of a failed run was put in place");
}

/* A child opens an output and ends with how(); nothing may be left. */
static void ends_clean(const char *what, void (*how)(void))
{
    const char *p = in_dir("child.bed");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        sg_outfile_t o = {.what = "-o", .path = p};
        if (sg_outfiles_open(&o, 1, NULL, 0) < 0) _exit(99);
        fputs("partial", o.fp);
        fflush(o.fp);
        how();
        _exit(98);
    }
    int st;
    waitpid(pid, &st, 0);
    CHECK(!(WIFEXITED(st) && WEXITSTATUS(st) >= 98), "%s: the child did not end as it should", what);
    CHECK(files_with("seqgpu-tmp") == 0 && access(p, F_OK) != 0, "%s left a file", what);
}

#ifndef __SANITIZE_ADDRESS__ /* AddressSanitizer aborts on a failed allocation, before exit() */
static void out_of_memory(void) { sg_malloc(SIZE_MAX / 2); }
#endif
static void terminated(void) { raise(SIGTERM); }
static void broken_pipe(void) { raise(SIGPIPE); }
static void interrupted(void) { raise(SIGINT); }

static void test_every_way_out(void)
{
#ifndef __SANITIZE_ADDRESS__
    ends_clean("out of memory", out_of_memory);
#endif
    ends_clean("SIGTERM", terminated);
    ends_clean("SIGPIPE", broken_pipe);
    ends_clean("SIGINT", interrupted);
}

int main(void)
{
    sg_log_init("unit_outfile", 2);
    snprintf(dir, sizeof dir, "/tmp/sg_unit_outfileXXXXXX");
    if (!mkdtemp(dir)) return 1;
    signal(SIGINT, SIG_DFL); /* a caller's SIG_IGN would be kept, as it should */
    RUN(test_replace);
    RUN(test_links);
    RUN(test_long_names);
    RUN(test_temporaries);
    RUN(test_refusals);
    RUN(test_all_or_none);
    RUN(test_every_way_out);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
    return UNIT_SUMMARY();
}
