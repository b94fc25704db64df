/* Progress lines: plain lines on any stderr when asked, a self-updating line
 * on a terminal that messages erase before they print, nothing otherwise. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/progress.h"
#include "unit.h"

static void nap(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {}
}

/* stderr goes to fd until restore_stderr(); returns the old stderr */
static int take_stderr(int fd)
{
    fflush(stderr);
    int old = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    return old;
}

static void restore_stderr(int old)
{
    fflush(stderr);
    dup2(old, STDERR_FILENO);
    close(old);
}

/* what was written to fd (a file or a pty master), up to n - 1 bytes */
static void slurp(int fd, int rewind, char *buf, size_t n)
{
    if (rewind) lseek(fd, 0, SEEK_SET);
    size_t k = 0;
    ssize_t r;
    while (k + 1 < n && (r = read(fd, buf + k, n - 1 - k)) > 0) k += (size_t)r;
    buf[k] = 0;
}

static void test_plain_lines(void)
{
    char path[] = "/tmp/unit_progress_XXXXXX", buf[8192];
    int fd = mkstemp(path);
    unlink(path);
    int old = take_stderr(fd);
    sg_log_init("seqgpu test", 0);
    sg_progress_start("seqgpu test", 1, 0.1); /* -q does not silence --progress */
    sg_progress_stage("counting k-mers", 4000000);
    sg_progress_set(1000000);
    nap(0.35);
    sg_info("a message");
    sg_progress_stage("unitigs", 0);
    nap(0.25);
    sg_progress_stage_bases("overlapping", 8000000); /* bases, added from any thread */
    sg_progress_add(1500000);
    sg_progress_add(500000);
    nap(0.25);
    sg_progress_stop();
    restore_stderr(old);
    slurp(fd, 1, buf, sizeof buf);
    close(fd);
    CHECK(strstr(buf, "[seqgpu test] counting k-mers: 1.0 MB of 4.0 MB (25%), "), "%s", buf);
    CHECK(strstr(buf, "[seqgpu test] overlapping: 2.0 Mb of 8.0 Mb (25%), ") && strstr(buf, " Mb/s, ETA "), "%s", buf);
    CHECK(strstr(buf, " MB/s, ETA "), "%s", buf);
    CHECK(strstr(buf, "\n[seqgpu test] a message\n"), "%s", buf);
    CHECK(strstr(buf, "[seqgpu test] unitigs: 0 s\n"), "%s", buf);
    CHECK(!strchr(buf, '\r'), "plain lines, no carriage returns: %s", buf);
}

static void test_live_line_on_a_terminal(void)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    CHECK(m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0, "no pseudo-terminal");
    if (m < 0) return;
    int s = open(ptsname(m), O_RDWR | O_NOCTTY);
    int old = take_stderr(s);
    sg_log_init("seqgpu test", 0);
    sg_progress_start("seqgpu test", 0, 0);
    sg_progress_stage("scanning", 0);
    sg_progress_set(2500);
    nap(1.4); /* the line appears after the first second */
    sg_info("a message");
    sg_progress_stop();
    restore_stderr(old);
    close(s);
    char buf[8192];
    fcntl(m, F_SETFL, O_NONBLOCK);
    slurp(m, 0, buf, sizeof buf);
    close(m);
    const char *line = strstr(buf, "\r[seqgpu test] scanning: 2.5 kB, ");
    CHECK(line, "a live line with the bytes done and the rate: %s", buf);
    CHECK(!strstr(buf, "of "), "no total when none is known: %s", buf);
    /* the message erased the live line first (spaces, back to the start) */
    const char *msg = strstr(buf, "[seqgpu test] a message");
    CHECK(msg && msg > buf + 1 && msg[-1] == '\r' && msg[-2] == ' ', "%s", buf);
    /* and the end of the run leaves the terminal clean: no live line after the message */
    CHECK(msg && !strstr(msg, "scanning"), "%s", buf);
}

static void test_off_when_quiet_or_not_a_terminal(void)
{
    char path[] = "/tmp/unit_progress_XXXXXX", buf[256];
    int fd = mkstemp(path);
    unlink(path);
    int old = take_stderr(fd);
    sg_progress_start("seqgpu test", 0, 0); /* stderr is a file: no live line */
    sg_progress_stage("scanning", 100);
    sg_progress_set(50);
    sg_progress_stop();
    restore_stderr(old);
    slurp(fd, 1, buf, sizeof buf);
    close(fd);
    CHECK(!buf[0], "nothing written: %s", buf);
}

int main(void)
{
    RUN(test_plain_lines);
    RUN(test_live_line_on_a_terminal);
    RUN(test_off_when_quiet_or_not_a_terminal);
    return UNIT_SUMMARY();
}
