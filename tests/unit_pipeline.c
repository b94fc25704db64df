/* The core loops (src/core/pipeline.h): sg_parallel_for takes every item
 * exactly once at any thread count and grain and hands each thread's state
 * to done; sg_parallel_start/join runs the same loop beside the caller;
 * sg_parallel_map collects in order of i, stops when collect says so and
 * runs on from there, passes the first error on, and frees every out it
 * does not keep. */
#include <stdint.h>
#include <string.h>

#include "core/log.h"
#include "core/pipeline.h"
#include "unit.h"

#define N_ITEMS 100003

typedef struct {
    unsigned char seen[N_ITEMS];
    uint64_t sum; /* of the threads' states, by done */
    int states;   /* done calls */
} loop_t;

static void visit(void *arg, void *state, uint64_t i)
{
    loop_t *l = arg;
    __atomic_add_fetch(&l->seen[i], 1, __ATOMIC_RELAXED);
    if (state) *(uint64_t *)state += i;
}

static void add_state(void *arg, void *state)
{
    loop_t *l = arg;
    l->sum += *(uint64_t *)state;
    l->states++;
}

static int each_once(const loop_t *l, uint64_t n)
{
    for (uint64_t i = 0; i < N_ITEMS; i++)
        if (l->seen[i] != (i < n)) return 0;
    return 1;
}

static void test_for_every_item_once(void)
{
    static loop_t l;
    const int threads[] = {1, 2, 3, 8, 64};
    const uint64_t grains[] = {0, 1, 7, 4096, 1000000};
    const uint64_t ns[] = {0, 1, 5, N_ITEMS};
    for (size_t a = 0; a < sizeof threads / sizeof *threads; a++)
        for (size_t b = 0; b < sizeof grains / sizeof *grains; b++)
            for (size_t c = 0; c < sizeof ns / sizeof *ns; c++) {
                memset(&l, 0, sizeof l);
                uint64_t n = ns[c];
                sg_parallel_for(threads[a], n, grains[b], visit, &l, sizeof(uint64_t), add_state);
                CHECK(each_once(&l, n), "%d threads, grain %llu, %llu items: not each once", threads[a],
                      (unsigned long long)grains[b], (unsigned long long)n);
                CHECK(l.sum == n * (n ? n - 1 : 0) / 2, "%d threads, %llu items: states sum %llu", threads[a],
                      (unsigned long long)n, (unsigned long long)l.sum);
                CHECK(l.states >= 1 && l.states <= threads[a], "%d threads: %d states", threads[a], l.states);
            }
}

static void test_for_without_state(void)
{
    static loop_t l;
    memset(&l, 0, sizeof l);
    sg_parallel_for(4, N_ITEMS, 100, visit, &l, 0, NULL);
    CHECK(each_once(&l, N_ITEMS), "no state: not each once");
}

static void test_start_join(void)
{
    static loop_t l;
    for (int t = 1; t <= 4; t++) {
        memset(&l, 0, sizeof l);
        sg_pfor_bg_t bg;
        memset(&bg, 0, sizeof bg);
        sg_parallel_start(&bg, t, N_ITEMS, 1024, visit, &l);
        sg_parallel_join(&bg);
        CHECK(each_once(&l, N_ITEMS), "start/join on %d threads: not each once", t);
        sg_parallel_join(&bg); /* a second join waits for nothing */
    }
    sg_pfor_bg_t none;
    memset(&none, 0, sizeof none);
    sg_parallel_join(&none); /* never started: nothing to wait for */
}

/* ---- sg_parallel_map ---- */

typedef struct {
    size_t next_collect; /* the i collect expects */
    int in_order;
    size_t stop_at;      /* stop_collect stops the loop after this i (SIZE_MAX: never) */
    size_t fail_at;      /* work fails at this i (SIZE_MAX: never) */
    int allocated, freed, kept;
    int *keep[64];
} map_t;

static int map_work(void *ctx, size_t i, void **out)
{
    map_t *m = ctx;
    if (i == m->fail_at) return SG_ERR_INPUT;
    int *v = sg_malloc(sizeof *v);
    *v = (int)(i * 3);
    __atomic_add_fetch(&m->allocated, 1, __ATOMIC_RELAXED);
    *out = v;
    return 0;
}

static int map_collect(void *ctx, size_t i, void *out)
{
    map_t *m = ctx;
    int *v = out;
    if (i != m->next_collect || *v != (int)(i * 3)) m->in_order = 0;
    m->next_collect = i + 1;
    if (i % 5 == 0 && m->kept < 64) { /* kept: marked so that free_out spares it */
        m->keep[m->kept++] = v;
        *v = -1;
    }
    return 0;
}

static map_t *free_ctx;

static void map_free(void *out)
{
    int *v = out;
    if (*v == -1) return;
    free_ctx->freed++;
    free(v);
}

static void release_kept(map_t *m)
{
    for (int i = 0; i < m->kept; i++) free(m->keep[i]);
}

static void test_map_in_order(void)
{
    for (int t = 1; t <= 4; t++) {
        map_t m = {0, 1, SIZE_MAX, SIZE_MAX, 0, 0, 0, {0}};
        free_ctx = &m;
        sg_pfor_t pf = {300, 0, 0, map_work, map_collect, map_free, &m};
        int r = sg_parallel_map(&pf, t);
        CHECK(r == 0, "%d threads: %d", t, r);
        CHECK(m.in_order && m.next_collect == 300, "%d threads: out of order or short (%zu)", t, m.next_collect);
        CHECK(m.freed + m.kept == m.allocated && m.allocated == 300, "%d threads: %d made, %d freed, %d kept", t,
              m.allocated, m.freed, m.kept);
        release_kept(&m);
    }
}

/* collect stops the loop at stop_at; clearing stop runs it on from there */
static sg_pfor_t *stop_pf;

static int stop_collect(void *ctx, size_t i, void *out)
{
    map_t *m = ctx;
    int r = map_collect(ctx, i, out);
    if (i == m->stop_at) __atomic_store_n(&stop_pf->stop, 1, __ATOMIC_RELAXED);
    return r;
}

static void test_map_stop_and_run_on(void)
{
    map_t m = {0, 1, 40, SIZE_MAX, 0, 0, 0, {0}};
    free_ctx = &m;
    sg_pfor_t pf = {200, 0, 0, map_work, stop_collect, map_free, &m};
    stop_pf = &pf;
    int r = sg_parallel_map(&pf, 3);
    CHECK(r == 0 && m.in_order && m.next_collect >= 41 && m.next_collect < 200, "stopped: r %d, collected to %zu", r,
          m.next_collect);
    CHECK(pf.next == m.next_collect, "stopped: next %zu after collecting %zu", pf.next, m.next_collect);
    pf.stop = 0;
    r = sg_parallel_map(&pf, 3);
    CHECK(r == 0 && m.in_order && m.next_collect == 200, "run on: r %d, collected to %zu", r, m.next_collect);
    CHECK(m.freed + m.kept == m.allocated && m.allocated == 200, "%d made, %d freed, %d kept", m.allocated, m.freed,
          m.kept);
    release_kept(&m);
}

static void test_map_error(void)
{
    map_t m = {0, 1, SIZE_MAX, 77, 0, 0, 0, {0}};
    free_ctx = &m;
    sg_pfor_t pf = {500, 0, 0, map_work, map_collect, map_free, &m};
    int r = sg_parallel_map(&pf, 4);
    CHECK(r == SG_ERR_INPUT, "a failing item: %d", r);
    CHECK(m.in_order && m.next_collect <= 77, "collected past the failure: %zu", m.next_collect);
    CHECK(m.freed + m.kept == m.allocated, "%d made, %d freed, %d kept", m.allocated, m.freed, m.kept);
    release_kept(&m);
}

int main(void)
{
    RUN(test_for_every_item_once);
    RUN(test_for_without_state);
    RUN(test_start_join);
    RUN(test_map_in_order);
    RUN(test_map_stop_and_run_on);
    RUN(test_map_error);
    return UNIT_SUMMARY();
}
