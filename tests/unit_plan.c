/* The backend planner (registry.c): the choices that the H200 benches
 * measured, from the workload alone. find: cpu wins exact search of a few
 * motifs and tiny inputs, cuda mismatch search of many guides and
 * thousands of degenerate motifs, a second device only when the device
 * work is long. Then every recorded bench case (bench/results/), each with
 * its measured times on both backends: the estimate's choice must be
 * within 10% of the faster, so a change to a constant that flips a choice
 * the measurements contradict fails here. */
#include <string.h>

#include "registry.h"
#include "core/log.h"
#include "find/motif.h"
#include "unit.h"

static void add_random(sg_motif_set_t *ms, int n, int len, const char *letters)
{
    char err[256], m[64];
    size_t k = strlen(letters);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < len; j++) m[j] = letters[unit_below((int)k)];
        m[len] = 0;
        if (sg_motif_add(ms, NULL, m, err, sizeof err) < 0) CHECK(0, "%s", err);
    }
}

/* estimate for n motifs of len letters on bases with threads, PAM and mismatches */
static void plan(int n, int len, const char *letters, int mm, const char *pam, double bases, int threads, int listed,
                 sg_backend_estimate_t *e)
{
    sg_motif_set_t ms = {0};
    char err[256];
    CHECK(sg_motif_set_window(&ms, NULL, pam, mm, err, sizeof err) == 0, "%s", err);
    add_random(&ms, n, len, letters);
    sg_motif_compile(&ms, SG_STRAND_BOTH);
    sg_backend_opts_t o = {.motifs = &ms, .kernel = "auto", .n_threads = threads, .input_bases = bases};
    sg_backend_plan(&o, listed, e);
    sg_motif_set_free(&ms);
}

static void test_memory_bound_stays_on_cpu(void)
{
    sg_backend_estimate_t e;
    plan(1, 8, "ACGT", 0, NULL, 3.1e9, 16, 1, &e);
    CHECK(e.cpu_s < e.gpu_s, "one 8-mer on 3.1 Gb: cpu %.2f s, gpu %.2f s", e.cpu_s, e.gpu_s);
    plan(1, 8, "ACGT", 0, NULL, 20, 16, 1, &e);
    CHECK(e.cpu_s < 0.01 && e.gpu_s > 0.3, "20 bases: cpu %.3f s, gpu %.3f s", e.cpu_s, e.gpu_s);
    plan(1, 8, "ACGT", 0, NULL, 3.1e9, 32, 2, &e);
    CHECK(e.gpus == 1, "one motif never takes a second device (%d)", e.gpus);
}

static void test_compute_bound_goes_to_gpu(void)
{
    sg_backend_estimate_t e;
    plan(1000, 20, "ACGT", 4, "NGG", 3.1e9, 16, 1, &e);
    CHECK(e.gpu_s < 0.5 * e.cpu_s, "1000 guides <= 4 mismatches: cpu %.2f s, gpu %.2f s", e.cpu_s, e.gpu_s);
    plan(1000, 18, "ACGTRYSWKM", 0, NULL, 3.1e9, 16, 1, &e);
    CHECK(e.gpu_s < e.cpu_s, "1000 IUPAC 18-mers: cpu %.2f s, gpu %.2f s", e.cpu_s, e.gpu_s);
    plan(10, 20, "ACGT", 4, "NGG", 1e8, 2, 1, &e);
    CHECK(e.cpu_s < e.gpu_s, "10 guides on 100 Mb, 2 threads: cpu %.2f s, gpu %.2f s", e.cpu_s, e.gpu_s);
}

static void test_devices(void)
{
    sg_backend_estimate_t e;
    plan(1000, 20, "ACGT", 6, "NGG", 3.1e9, 32, 2, &e);
    int one_guides = e.gpus;
    plan(20000, 20, "ACGT", 6, "NGG", 3.1e9, 32, 4, &e);
    CHECK(e.gpus >= 2, "20000 guides on 3.1 Gb share the devices (%d of 4)", e.gpus);
    CHECK(one_guides <= e.gpus, "more device work never takes fewer devices (%d, %d)", one_guides, e.gpus);
    plan(20000, 20, "ACGT", 6, "NGG", 3.1e9, 32, 1, &e);
    CHECK(e.gpus == 1, "never more devices than listed (%d)", e.gpus);
    /* with the host's parsing the longer part, a second device only adds its start */
    for (int threads = 1; threads <= 4; threads++) {
        sg_backend_estimate_t one, two;
        plan(3000, 20, "ACGT", 4, "NGG", 3.1e9, threads, 1, &one);
        plan(3000, 20, "ACGT", 4, "NGG", 3.1e9, threads, 2, &two);
        CHECK(two.gpu_s <= one.gpu_s, "%d threads: listing a second device raised the estimate (%.2f s to %.2f s, %d devices)",
              threads, one.gpu_s, two.gpu_s, two.gpus);
    }
}

static void test_unknown_size(void)
{
    sg_backend_estimate_t a, b;
    plan(100, 20, "ACGT", 3, "NGG", -1, 8, 1, &a);
    plan(100, 20, "ACGT", 3, "NGG", 1e9, 8, 1, &b);
    CHECK(a.cpu_s == b.cpu_s && a.gpu_s == b.gpu_s, "an unknown size counts as 1e9 bases");
}

/* A bench case as recorded: the seconds of a whole run on each backend. */
typedef struct {
    const char *what;
    double cpu_s, cuda_s;
} recorded_t;

/* The estimate's choice on a recorded case is no more than 10% slower than
 * the faster backend measured. */
static void check_choice(const recorded_t *c, const sg_backend_estimate_t *e)
{
    const char *pick = sg_backend_pick(e);
    double got = strcmp(pick, "cuda") ? c->cpu_s : c->cuda_s, best = c->cpu_s < c->cuda_s ? c->cpu_s : c->cuda_s;
    CHECK(got <= 1.1 * best, "%s: estimated %.2f s on cpu, %.2f s on cuda, so %s; measured %.3f and %.3f s", c->what,
          e->cpu_s, e->gpu_s, pick, c->cpu_s, c->cuda_s);
}

/* bench/gpu_bench.sh on the H200 host (16 threads, 1 GPU; 3.1 Gb, the
 * planner's 3.2e9 bases) and the two-GPU host (32 threads),
 * bench/results/h200-2026-11-30-gpu.md and h200x2-2026-12-01-final.md */
static void test_recorded_find(void)
{
    static const struct {
        recorded_t r;
        int n, len, mm, threads;
        const char *letters, *pam;
        double bases;
    } cases[] = {
        {{"tiny", 0.005, 0.390}, 1, 8, 0, 16, "ACGT", NULL, 12},
        {{"one 8-mer", 0.219, 0.565}, 1, 8, 0, 16, "ACGT", NULL, 3.2e9},
        {{"1000 20-mers", 0.697, 0.595}, 1000, 20, 0, 16, "ACGT", NULL, 3.2e9},
        {{"1000 IUPAC 18-mers", 2.630, 0.711}, 1000, 18, 0, 16, "ACGTRYSWKM", NULL, 3.2e9},
        {{"10 guides <= 4 mismatches", 0.687, 0.581}, 10, 20, 4, 16, "ACGT", "NGG", 3.2e9},
        {{"1000 guides <= 4 mismatches", 4.028, 0.638}, 1000, 20, 4, 16, "ACGT", "NGG", 3.2e9},
        {{"tiny, 32 threads", 0.005, 0.381}, 1, 8, 0, 32, "ACGT", NULL, 12},
        {{"one 8-mer, 32 threads", 0.165, 0.589}, 1, 8, 0, 32, "ACGT", NULL, 3.2e9},
        {{"1000 20-mers, 32 threads", 0.383, 0.571}, 1000, 20, 0, 32, "ACGT", NULL, 3.2e9},
        {{"1000 guides <= 4 mismatches, 32 threads", 2.198, 0.706}, 1000, 20, 4, 32, "ACGT", "NGG", 3.2e9},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sg_backend_estimate_t e;
        plan(cases[i].n, cases[i].len, cases[i].letters, cases[i].mm, cases[i].pam, cases[i].bases, cases[i].threads, 1,
             &e);
        check_choice(&cases[i].r, &e);
    }
}

/* bench/scc_gpu_bench.sh on the H200 host: the SCC stage of edge lists,
 * end to end (bench/results/h200-2026-11-29-scc.md) */
static void test_recorded_scc(void)
{
    static const struct {
        recorded_t r;
        double vertices;
    } cases[] = {
        {{"de Bruijn graph of a 6 Mb genome", 1.601, 1.607}, 11820666},
        {{"the same compacted", 0.005, 0.432}, 378},
        {{"power-law graph", 10.260, 7.079}, 9889941},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sg_backend_estimate_t e;
        sg_scc_plan(cases[i].vertices, &e);
        check_choice(&cases[i].r, &e);
    }
}

/* bench/overlap_bench.sh (pbsim CLR, accuracy 0.85 to 0.99, mean 0.90),
 * 16 threads on the H200 hosts: 1.0 Gb of a 50 Mb genome
 * (h200-2026-12-01-overlap-chain.md), 0.4 Gb of a 20 Mb genome
 * (h200x2-2026-12-01-final.md), and the same 0.39 Gb of issue 28's table */
static void test_recorded_overlap(void)
{
    static const struct {
        recorded_t r;
        double bases;
        int threads;
    } cases[] = {
        {{"1.0 Gb of CLR reads", 4.188, 4.553}, 1.0e9, 16},
        {{"0.4 Gb of CLR reads", 6.038, 4.652}, 0.4e9, 16},
        {{"0.39 Gb of CLR reads", 5.54, 2.41}, 0.386e9, 16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sg_backend_estimate_t e;
        sg_overlap_plan(cases[i].bases, cases[i].threads, &e);
        check_choice(&cases[i].r, &e);
    }
    /* a few megabases: the device's start is most of its run */
    sg_backend_estimate_t e;
    sg_overlap_plan(5e6, 16, &e);
    CHECK(!strcmp(sg_backend_pick(&e), "cpu"), "5 Mb of long reads: cpu %.2f s, cuda %.2f s", e.cpu_s, e.gpu_s);
}

/* The de Bruijn graph build, bench/scc_bench.sh on the H200 host (16
 * threads; 10 M reads, the planner's 1.6e9 bases;
 * bench/results/h200-2026-12-02-round-scc.md): the device for the solid
 * graph and for the repeats alike (counting bound on both sides, the
 * device's host work spread as well as the cpu's); the cpu for small read
 * sets, where the device's start is most of its run; fewer threads move
 * the choice to the device. */
static void test_dbg(void)
{
    static const struct {
        recorded_t r;
        int solid;
    } cases[] = {
        {{"10 M reads, -c 5, 16 threads", 6.206, 2.842}, 1},
        {{"10 M reads, repeats, 16 threads", 4.620, 2.809}, 0},
    };
    sg_backend_estimate_t e;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sg_dbg_plan(1.6e9, 16, cases[i].solid, &e);
        check_choice(&cases[i].r, &e);
    }
    sg_dbg_plan(1.5e8, 16, 1, &e);
    CHECK(!strcmp(sg_backend_pick(&e), "cpu"), "1 M reads, -c 5, 16 threads: cpu %.2f s, cuda %.2f s", e.cpu_s, e.gpu_s);
    sg_dbg_plan(1.5e9, 16, 1, &e);
    sg_backend_estimate_t two;
    sg_dbg_plan(1.5e9, 2, 1, &two);
    CHECK(two.gpu_s / two.cpu_s < e.gpu_s / e.cpu_s, "fewer threads favour the device");
}

int main(void)
{
    sg_log_init("unit_plan", 2);
    RUN(test_memory_bound_stays_on_cpu);
    RUN(test_compute_bound_goes_to_gpu);
    RUN(test_devices);
    RUN(test_unknown_size);
    RUN(test_recorded_find);
    RUN(test_recorded_scc);
    RUN(test_recorded_overlap);
    RUN(test_dbg);
    return UNIT_SUMMARY();
}
