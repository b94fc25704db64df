/* The backend planner (sg_backend_plan): the choices that the H200 bench
 * measured, from the workload alone. cpu wins exact search of a few motifs
 * and tiny inputs; cuda wins mismatch search of many guides and thousands
 * of degenerate motifs; a second device only when the device work is long. */
#include <string.h>

#include "../src/backend.h"
#include "../src/log.h"
#include "../src/find_motif.h"
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

int main(void)
{
    sg_log_init("unit_plan", 2);
    RUN(test_memory_bound_stays_on_cpu);
    RUN(test_compute_bound_goes_to_gpu);
    RUN(test_devices);
    RUN(test_unknown_size);
    return UNIT_SUMMARY();
}
