#define _GNU_SOURCE
#include "formats/outfile.h"
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <htslib/bgzf.h>
#include <htslib/hts_log.h>
#include <htslib/tbx.h>

/* Temporaries to remove when the run ends another way than through
 * sg_outfiles_close() or sg_outfiles_discard(): a fixed table, since a
 * signal handler may only read memory and call unlink(). */
#define MAX_TMP 16
static char *volatile pending[MAX_TMP];

static void remove_pending(void)
{
    for (int i = 0; i < MAX_TMP; i++)
        if (pending[i]) unlink(pending[i]);
}

static void on_signal(int sig)
{
    remove_pending();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* What ends a process by default and comes from a user, a pipe or a limit. */
static const int fatal_signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ};

static int remember(char *tmp)
{
    static int installed;
    if (!installed) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
            /* a signal the caller ignores (nohup, SIGPIPE in some shells) stays ignored */
            if (sigaction(fatal_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
                sigaction(fatal_signals[i], &sa, NULL);
        atexit(remove_pending); /* exit() from anywhere: out of memory, a library */
        installed = 1;
    }
    for (int i = 0; i < MAX_TMP; i++)
        if (!pending[i]) {
            pending[i] = tmp;
            return 0;
        }
    return -1;
}

static void forget(const char *tmp)
{
    for (int i = 0; i < MAX_TMP; i++)
        if (pending[i] == tmp) pending[i] = NULL;
}

/* n letters and digits nobody can guess, so that no one can plant a file or
 * link where the temporary will be */
static void random_letters(char *out, size_t n)
{
    static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char r[32];
    if (n > sizeof r) n = sizeof r;
    if (getrandom(r, n, GRND_NONBLOCK) != (ssize_t)n) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 48 ^ (uintptr_t)r;
        for (size_t i = 0; i < n; i++) {
            x += 0x9e3779b97f4a7c15ull; /* splitmix64 */
            uint64_t z = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ull;
            r[i] = (unsigned char)((z ^ z >> 27) * 0x94d049bb133111ebull >> 56);
        }
    }
    for (size_t i = 0; i < n; i++) out[i] = set[r[i] % (sizeof set - 1)];
}

/* path with its symlinks followed: the file a link points to is replaced and the link stays */
static char *follow_links(const char *path)
{
    char *p = sg_strdup(path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        char link[PATH_MAX];
        ssize_t n;
        if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode) || (n = readlink(p, link, sizeof link - 1)) < 0) break;
        link[n] = 0;
        const char *slash = strrchr(p, '/');
        size_t dir = link[0] == '/' || !slash ? 0 : (size_t)(slash - p) + 1;
        char *q = sg_malloc(dir + (size_t)n + 1);
        memcpy(q, p, dir);
        memcpy(q + dir, link, (size_t)n + 1);
        free(p);
        p = q;
    }
    return p;
}

/* The real folder of path, a slash and its last name: one spelling per file
 * (for finding an output named twice), or NULL with errno set. */
static char *canonical(const char *path)
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    if (!*base) {
        errno = EISDIR;
        return NULL;
    }
    size_t dn = slash ? (size_t)(slash - path) + 1 : 0;
    char *dir = sg_malloc(dn + 2);
    memcpy(dir, slash ? path : ".", slash ? dn : 1);
    dir[slash ? dn : 1] = 0;
    char *real = realpath(dir, NULL);
    free(dir);
    if (!real) return NULL;
    size_t n = strlen(real) + strlen(base) + 2;
    char *c = sg_malloc(n);
    snprintf(c, n, "%s%s%s", real, strcmp(real, "/") ? "/" : "", base);
    free(real);
    return c;
}

int sg_outfile_fd(const char *path)
{
    static const char *const dirs[] = {"/dev/fd/", "/proc/self/fd/"};
    if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout")) return STDOUT_FILENO;
    if (!strcmp(path, "/dev/stderr")) return STDERR_FILENO;
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(dirs[i]);
        if (strncmp(path, dirs[i], n) || path[n] < '0' || path[n] > '9') continue;
        char *end;
        errno = 0;
        long fd = strtol(path + n, &end, 10);
        if (!*end && !errno && fd <= INT_MAX) return (int)fd;
    }
    return -1;
}

int sg_outfile_compressed(const char *path)
{
    size_t n = strlen(path);
    return (n > 3 && !strcmp(path + n - 3, ".gz")) || (n > 4 && !strcmp(path + n - 4, ".bgz"));
}

/* A BGZF stream behind a FILE, so that every writer (fprintf, fwrite) and
 * the checks in finish() serve compressed outputs unchanged. htslib writes
 * into a pipe that a thread of ours drains into the file: htslib's BGZF
 * writer, its threads above all, loses memory and jobs when a write fails
 * (a full disk), so it is given a sink that never fails, and the drain keeps
 * the first error (its errno) for the close. */
typedef struct {
    BGZF *bgzf;        /* writes into the pipe */
    int pipe_rd, fd;   /* the pipe's read end; the output */
    _Atomic int err;   /* errno of the first failed write to fd, or 0 */
    pthread_t drain;
} bgzf_sink_t;

static void *drain(void *arg)
{
    bgzf_sink_t *k = arg;
    char buf[1 << 16];
    ssize_t n;
    while ((n = read(k->pipe_rd, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) { /* not on a pipe of ours; were it to happen, the writer would wait forever */
            k->err = errno;
            break;
        }
        /* after an error, read on and drop, so that htslib's writes never fail or block */
        for (ssize_t at = 0; !k->err && at < n;) {
            ssize_t w = write(k->fd, buf + at, (size_t)(n - at));
            if (w >= 0) at += w;
            else if (errno != EINTR) k->err = errno;
        }
    }
    return NULL;
}

static ssize_t bgzf_cookie_write(void *cookie, const char *buf, size_t n)
{
    bgzf_sink_t *k = cookie;
    int err = k->err; /* the output failed: stop the run now rather than at the close */
    if (err) {
        errno = err;
        return -1;
    }
    return bgzf_write(k->bgzf, buf, n) < 0 ? -1 : (ssize_t)n;
}

static int bgzf_cookie_close(void *cookie)
{
    bgzf_sink_t *k = cookie;
    int r = bgzf_close(k->bgzf); /* the end-of-file block, then the pipe's write end */
    pthread_join(k->drain, NULL);
    close(k->pipe_rd);
    if (close(k->fd) != 0 && !k->err) k->err = errno;
    int err = k->err ? k->err : r < 0 ? EIO : 0;
    free(k);
    errno = err;
    return err ? EOF : 0;
}

/* A plain output behind a FILE that keeps the first write error: stdio
 * forgets its errno once the write has failed, and a large write fails at
 * once rather than at the close (a full disk would read "Input/output
 * error"); the close reports it. */
typedef struct {
    int fd;
    int err; /* errno of the first failed write, or 0 */
} fd_sink_t;

static ssize_t fd_cookie_write(void *cookie, const char *buf, size_t n)
{
    fd_sink_t *k = cookie;
    size_t at = 0;
    while (!k->err && at < n) {
        ssize_t w = write(k->fd, buf + at, n - at);
        if (w >= 0) at += (size_t)w;
        else if (errno != EINTR) k->err = errno;
    }
    if (k->err) errno = k->err;
    return (ssize_t)at; /* short: stdio marks the error */
}

static int fd_cookie_close(void *cookie)
{
    fd_sink_t *k = cookie;
    if (close(k->fd) != 0 && !k->err) k->err = errno;
    int err = k->err;
    free(k);
    errno = err;
    return err ? EOF : 0;
}

/* o->fp on the open descriptor fd (taken over, closed on failure): BGZF
 * when the name asks for it. */
static int open_stream(sg_outfile_t *o, int fd)
{
    if (!sg_outfile_compressed(o->path)) {
        static const cookie_io_functions_t io = {.write = fd_cookie_write, .close = fd_cookie_close};
        fd_sink_t *k = sg_calloc(1, sizeof *k);
        k->fd = fd;
        if ((o->fp = fopencookie(k, "w", io))) return 0;
        free(k);
        close(fd);
        return -1;
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        close(fd);
        return -1;
    }
    bgzf_sink_t *k = sg_calloc(1, sizeof *k);
    k->pipe_rd = p[0];
    k->fd = fd;
    if (!(k->bgzf = bgzf_dopen(p[1], "w"))) {
        close(p[1]);
    } else if (pthread_create(&k->drain, NULL, drain, k) != 0) {
        bgzf_close(k->bgzf); /* a pipe of 64 kB takes a lone end-of-file block */
    } else {
        if (o->threads > 1 && bgzf_mt(k->bgzf, o->threads, 256) < 0) sg_warn("cannot start BGZF compression threads");
        static const cookie_io_functions_t io = {.write = bgzf_cookie_write, .close = bgzf_cookie_close};
        if ((o->fp = fopencookie(k, "w", io))) return 0;
        bgzf_cookie_close(k);
        return -1;
    }
    close(p[0]);
    close(fd);
    free(k);
    return -1;
}

#define TMP_TAG ".seqgpu-tmp."
#define TMP_RANDOM 12

/* A new empty file beside o->target (which exists when st does), with the
 * mode the output will have. */
static int create_tmp(sg_outfile_t *o, const struct stat *st)
{
    const char *slash = strrchr(o->target, '/');
    size_t dir = (size_t)(slash - o->target) + 1; /* canonical() gave a slash */
    o->tmp = sg_malloc(dir + sizeof TMP_TAG + TMP_RANDOM);
    memcpy(o->tmp, o->target, dir);
    memcpy(o->tmp + dir, TMP_TAG, sizeof TMP_TAG - 1);
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        random_letters(o->tmp + dir + sizeof TMP_TAG - 1, TMP_RANDOM);
        o->tmp[dir + sizeof TMP_TAG - 1 + TMP_RANDOM] = 0;
        /* a new output gets 0666 less the umask, as any new file; an existing
         * one its own mode, and nothing wider in the meantime */
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st ? 0600 : 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        sg_error("cannot open '%s' for writing: %s", o->name, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        return SG_ERR_INPUT;
    }
    if (remember(o->tmp) < 0) {
        sg_error("more than %d output files at once", MAX_TMP);
        close(fd);
        return SG_ERR_SYSTEM;
    }
    if (st && fchmod(fd, st->st_mode & 07777) != 0) {
        sg_error("cannot open '%s' for writing: %s", o->name, strerror(errno));
        close(fd);
        return SG_ERR_INPUT;
    }
    if (open_stream(o, fd) < 0) {
        sg_error("cannot open '%s' for writing: %s", o->name, strerror(errno));
        return SG_ERR_INPUT;
    }
    return 0;
}

static int open_one(sg_outfile_t *out, int i, const struct stat *in_st, const uint8_t *in_ok, char *const *inputs,
                    int n_inputs)
{
    sg_outfile_t *o = &out[i];
    const int fd_named = sg_outfile_fd(o->path), std = fd_named == STDOUT_FILENO;
    o->name = !strcmp(o->path, "-") ? "(standard output)" : o->path;
    if (fd_named < 0) o->target = follow_links(o->path);
    struct stat st;
    int exists = fd_named >= 0 ? fstat(fd_named, &st) == 0 : stat(o->target, &st) == 0;
    if (fd_named >= 0 && !exists) {
        sg_error("cannot open '%s' for writing: %s", o->name, strerror(errno));
        return SG_ERR_INPUT;
    }
    if (exists && S_ISREG(st.st_mode))
        for (int j = 0; j < n_inputs; j++)
            if (in_ok[j] && in_st[j].st_dev == st.st_dev && in_st[j].st_ino == st.st_ino) {
                if (std) sg_error("standard output is the input '%s': refusing to overwrite an input", inputs[j]);
                else sg_error("%s '%s' is the input '%s': refusing to overwrite an input", o->what, o->name, inputs[j]);
                return SG_ERR_INPUT;
            }
    /* an open descriptor (standard output, /dev/fd/N: a pipe, a terminal, a
     * file the shell opened, appending or not) is written through; a device
     * or a FIFO is opened and written */
    if (fd_named >= 0 || (exists && !S_ISREG(st.st_mode))) {
        for (int j = 0; j < i; j++)
            if (fd_named >= 0 && out[j].path && sg_outfile_fd(out[j].path) == fd_named) {
                if (std) sg_error("%s and %s both go to standard output: give one of them a file name", out[j].what, o->what);
                else sg_error("%s and %s both go to '%s': give one of them a file name", out[j].what, o->what, o->path);
                return SG_ERR_INPUT;
            }
        if (o->index_of) {
            sg_error("%s: cannot index '%s', which is not a regular file", o->what, o->name);
            return SG_ERR_INPUT;
        }
        int fd = fd_named >= 0 ? fcntl(fd_named, F_DUPFD_CLOEXEC, 3)
                               : open(o->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0 || open_stream(o, fd) < 0) {
            sg_error("cannot open '%s' for writing: %s", o->name, strerror(errno));
            return SG_ERR_INPUT;
        }
        return 0;
    }
    if (o->index_of && (!o->index_of->tmp || !sg_outfile_compressed(o->index_of->path))) {
        sg_error("%s: a tabix index needs a BGZF regular file (a name ending in .gz or .bgz), and '%s' is not one",
                 o->what, o->index_of->name ? o->index_of->name : "(none)");
        return SG_ERR_INPUT;
    }
    char *c = canonical(o->target);
    if (!c || (exists && access(c, W_OK) != 0)) {
        sg_error("cannot open '%s' for writing: %s", o->name, strerror(errno));
        free(c);
        return SG_ERR_INPUT;
    }
    free(o->target);
    o->target = c;
    for (int j = 0; j < i; j++)
        if (out[j].tmp && !strcmp(out[j].target, o->target)) {
            sg_error("%s '%s' is %s as well: give each output its own name", o->what, o->name, out[j].what);
            return SG_ERR_INPUT;
        }
    return create_tmp(o, exists ? &st : NULL);
}

char *sg_tmp_beside(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    char *tmp = sg_malloc(dir + sizeof TMP_TAG + TMP_RANDOM);
    memcpy(tmp, path, dir);
    memcpy(tmp + dir, TMP_TAG, sizeof TMP_TAG - 1);
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        random_letters(tmp + dir + sizeof TMP_TAG - 1, TMP_RANDOM);
        tmp[dir + sizeof TMP_TAG - 1 + TMP_RANDOM] = 0;
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0 || remember(tmp) < 0) {
        int e = fd < 0 ? errno : EMFILE;
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        free(tmp);
        errno = e;
        return NULL;
    }
    close(fd);
    return tmp;
}

int sg_tmp_place(char *tmp, const char *path)
{
    /* link() fails on an existing path, where rename() would replace it */
    if (link(tmp, path) != 0 && errno != EEXIST) return -1;
    sg_tmp_remove(tmp);
    return 0;
}

void sg_tmp_remove(char *tmp)
{
    unlink(tmp);
    forget(tmp);
    free(tmp);
}

int sg_outfiles_open(sg_outfile_t *out, int n, char *const *inputs, int n_inputs)
{
    struct stat *in_st = sg_malloc(((size_t)n_inputs + 1) * sizeof *in_st);
    uint8_t *in_ok = sg_malloc((size_t)n_inputs + 1);
    for (int j = 0; j < n_inputs; j++)
        in_ok[j] = (strcmp(inputs[j], "-") ? stat(inputs[j], &in_st[j]) : fstat(STDIN_FILENO, &in_st[j])) == 0;
    for (int i = 0; i < n; i++) {
        out[i].fp = NULL;
        out[i].target = out[i].tmp = NULL;
    }
    int r = 0;
    for (int i = 0; i < n && r == 0; i++)
        if (out[i].path) r = open_one(out, i, in_st, in_ok, inputs, n_inputs);
    free(in_st);
    free(in_ok);
    if (r < 0) sg_outfiles_discard(out, n);
    return r;
}

static int finish(sg_outfile_t *o)
{
    errno = 0;
    int bad = fflush(o->fp) != 0 || ferror(o->fp);
    int e = errno;
    /* the close says what the first failed write met, when the flush had nothing left to fail on */
    if (fclose(o->fp) != 0 && (!bad || !e)) bad = 1, e = errno;
    o->fp = NULL;
    if (bad) sg_error("cannot write to '%s': %s", o->name, strerror(e ? e : EIO));
    return bad ? SG_ERR_SYSTEM : 0;
}

int sg_outfiles_close(sg_outfile_t *out, int n)
{
    int r = 0;
    for (int i = 0; i < n; i++)
        if (out[i].fp && finish(&out[i]) < 0) r = SG_ERR_SYSTEM;
    for (int i = 0; i < n && r == 0; i++) {
        sg_outfile_t *o = &out[i];
        if (!o->index_of || !o->tmp) continue;
        /* min_shift 0: a .tbi index, the one tabix looks for; a position past
         * what a .tbi holds (2^29, a wheat or axolotl chromosome) takes a .csi
         * (tabix -C), which tabix reads too, put in place as FILE.csi */
        const int level = hts_get_log_level();
        hts_set_log_level(HTS_LOG_OFF);
        int b = tbx_index_build3(o->index_of->tmp, o->tmp, 0, o->threads, &tbx_conf_bed);
        hts_set_log_level(level);
        size_t n = strlen(o->target);
        if (b != 0 && n > 4 && !strcmp(o->target + n - 4, ".tbi") &&
            tbx_index_build3(o->index_of->tmp, o->tmp, 14, o->threads, &tbx_conf_bed) == 0) {
            b = 0;
            if (unlink(o->target) != 0 && errno != ENOENT) /* the .tbi of an earlier run would be read first */
                sg_warn("cannot remove '%s', an index of an earlier '%s': %s", o->target, o->index_of->name,
                        strerror(errno));
            memcpy(o->target + n - 4, ".csi", 4);
            sg_info("'%s' has positions past 2^29, more than a .tbi index holds: its index is '%s'", o->index_of->name,
                    o->target);
        }
        if (b != 0) {
            sg_error("cannot build the tabix index of '%s': each record's lines must be together, in order "
                     "(a record name given twice?)", o->index_of->name);
            r = SG_ERR_INPUT;
        }
    }
    for (int i = 0; i < n && r == 0; i++) {
        sg_outfile_t *o = &out[i];
        if (!o->tmp) continue;
        if (rename(o->tmp, o->target) != 0) {
            sg_error("cannot put the output in place as '%s': %s", o->name, strerror(errno));
            r = SG_ERR_SYSTEM;
            break;
        }
        forget(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
    sg_outfiles_discard(out, n);
    return r;
}

void sg_outfiles_discard(sg_outfile_t *out, int n)
{
    for (int i = 0; i < n; i++) {
        sg_outfile_t *o = &out[i];
        if (o->fp) fclose(o->fp);
        o->fp = NULL;
        if (o->tmp) {
            unlink(o->tmp);
            forget(o->tmp);
        }
        free(o->tmp);
        free(o->target);
        o->tmp = o->target = NULL;
    }
}
