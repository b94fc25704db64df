#define _GNU_SOURCE
#include "core/progress.h"
#include "core/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* A live line appears only once a run has taken this long, so that short
 * runs leave a clean terminal, and is then redrawn this often. */
#define LIVE_DELAY 1.0
#define LIVE_TICK 0.25

static struct {
    pthread_mutex_t mu; /* everything below but done; held while stderr is written */
    pthread_cond_t cv;
    pthread_t thread;
    int running, stop;
    int live;           /* 1: one self-updating line; 0: a plain line every `every` seconds */
    size_t shown;       /* characters of the live line now on the terminal */
    double every;
    const char *prefix;
    char stage[64];
    uint64_t total;
    int bases;          /* the stage counts bases, not bytes */
    double t_stage;
    _Atomic uint64_t done;
} P = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* Decimal units, as file managers and `ls -h --si` show sizes (bases: as
 * genomes are sized). */
static int put_size(char *s, size_t n, double x)
{
    static const char *unit[2][6] = {{"B", "kB", "MB", "GB", "TB", "PB"}, {"b", "kb", "Mb", "Gb", "Tb", "Pb"}};
    int u = 0;
    while (x >= 1000 && u < 5) x /= 1000, u++;
    return snprintf(s, n, u ? "%.1f %s" : "%.0f %s", x, unit[P.bases][u]);
}

static int put_time(char *s, size_t n, double t)
{
    long x = (long)(t + 0.5);
    if (x < 60) return snprintf(s, n, "%ld s", x);
    if (x < 3600) return snprintf(s, n, "%ldm%02lds", x / 60, x % 60);
    return snprintf(s, n, "%ldh%02ldm", x / 3600, x / 60 % 60);
}

/* The line, under P.mu: "[prefix] stage: done of total (p%), rate/s, ETA t",
 * or "[prefix] stage: elapsed" when the stage counts nothing. */
static size_t compose(char *s, size_t n)
{
    double el = sg_realtime() - P.t_stage;
    uint64_t done = atomic_load(&P.done);
    size_t k = (size_t)snprintf(s, n, "[%s] %s: ", P.prefix, P.stage);
#define ROOM (k < n ? n - k : 0)
    if (!done && !P.total) {
        k += (size_t)put_time(s + k, ROOM, el);
        return k < n ? k : n - 1;
    }
    k += (size_t)put_size(s + k, ROOM, (double)done);
    if (P.total) {
        k += (size_t)snprintf(s + k, ROOM, " of ");
        k += (size_t)put_size(s + k, ROOM, (double)P.total);
        k += (size_t)snprintf(s + k, ROOM, " (%.0f%%)", done >= P.total ? 100.0 : 100.0 * done / P.total);
    }
    if (done && el > 0) {
        double rate = done / el;
        k += (size_t)snprintf(s + k, ROOM, ", ");
        k += (size_t)put_size(s + k, ROOM, rate);
        k += (size_t)snprintf(s + k, ROOM, "/s");
        if (P.total > done) {
            k += (size_t)snprintf(s + k, ROOM, ", ETA ");
            k += (size_t)put_time(s + k, ROOM, (P.total - done) / rate);
        }
    }
#undef ROOM
    return k < n ? k : n - 1;
}

/* Blank out the live line: spaces rather than terminal escapes, which a
 * dumb terminal or a log viewer would show as junk. */
static void erase(void)
{
    if (!P.shown) return;
    fprintf(stderr, "\r%*s\r", (int)P.shown, "");
    P.shown = 0;
}

static void draw(void)
{
    char line[512];
    size_t n = compose(line, sizeof line);
    if (!P.live) {
        fprintf(stderr, "%s\n", line);
        return;
    }
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && n >= ws.ws_col) n = ws.ws_col - 1; /* no wrap */
    fprintf(stderr, "\r%.*s%*s", (int)n, line, P.shown > n ? (int)(P.shown - n) : 0, "");
    P.shown = n;
}

static void *run(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&P.mu);
    double next = sg_realtime() + (P.live ? LIVE_DELAY : P.every);
    while (!P.stop) {
        if (sg_realtime() >= next) {
            draw();
            next = sg_realtime() + (P.live ? LIVE_TICK : P.every);
            continue;
        }
        struct timespec ts = {(time_t)next, (long)((next - (double)(time_t)next) * 1e9)};
        pthread_cond_timedwait(&P.cv, &P.mu, &ts);
    }
    erase();
    pthread_mutex_unlock(&P.mu);
    return NULL;
}

void sg_progress_start(const char *prefix, int quiet, double every)
{
    int live = every <= 0;
    if (P.running || (live && (quiet || !isatty(STDERR_FILENO)))) return;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* sg_realtime's clock */
    pthread_cond_init(&P.cv, &ca);
    pthread_condattr_destroy(&ca);
    P.prefix = prefix;
    P.live = live;
    P.every = every;
    P.stop = 0;
    P.t_stage = sg_realtime();
    snprintf(P.stage, sizeof P.stage, "starting");
    if (pthread_create(&P.thread, NULL, run, NULL) != 0) {
        pthread_cond_destroy(&P.cv);
        return; /* progress is a courtesy: the run goes on without it */
    }
    P.running = 1;
}

static void stage(const char *name, uint64_t total, int bases)
{
    pthread_mutex_lock(&P.mu);
    snprintf(P.stage, sizeof P.stage, "%s", name);
    P.total = total;
    P.bases = bases;
    P.t_stage = sg_realtime();
    atomic_store(&P.done, 0);
    pthread_mutex_unlock(&P.mu);
}

void sg_progress_stage(const char *name, uint64_t total) { stage(name, total, 0); }
void sg_progress_stage_bases(const char *name, uint64_t total) { stage(name, total, 1); }

void sg_progress_set(uint64_t done) { atomic_store_explicit(&P.done, done, memory_order_relaxed); }
void sg_progress_add(uint64_t done) { atomic_fetch_add_explicit(&P.done, done, memory_order_relaxed); }

void sg_progress_stop(void)
{
    if (!P.running) return;
    pthread_mutex_lock(&P.mu);
    P.stop = 1;
    pthread_cond_signal(&P.cv);
    pthread_mutex_unlock(&P.mu);
    pthread_join(P.thread, NULL);
    pthread_cond_destroy(&P.cv);
    P.running = 0;
}

void sg_progress_hold(void)
{
    pthread_mutex_lock(&P.mu);
    erase();
}

void sg_progress_release(void) { pthread_mutex_unlock(&P.mu); }
