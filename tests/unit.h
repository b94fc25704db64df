/* A minimal unit-test harness: TEST functions, CHECK inside them, and a
 * last line "N passed, N failed, N skipped" counting tests, which
 * tests/run.sh reads. */
#ifndef SG_UNIT_H
#define SG_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_failed_checks, unit_passed, unit_failed, unit_skipped;

/* Set by unit_needs(): why the backend the tests need is not there ("" when
 * it is), and whether SEQGPU_REQUIRE names it. */
static char unit_absent[256];
static int unit_required;

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (!(cond)) {                                                           \
            unit_failed_checks++;                                                \
            fprintf(stderr, "  check failed at %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
        }                                                                        \
    } while (0)

/* A test that cannot run: skipped when its backend is absent, failed when
 * SEQGPU_REQUIRE names that backend. */
static inline void unit_not_run(const char *name)
{
    if (unit_required) {
        unit_failed++;
        printf("not ok - %s # the backend is required (SEQGPU_REQUIRE) but %s\n", name, unit_absent);
    } else {
        unit_skipped++;
        printf("ok - %s # skip %s\n", name, unit_absent);
    }
}

#define RUN(fn)                                                                  \
    do {                                                                         \
        if (unit_absent[0]) {                                                    \
            unit_not_run(#fn);                                                   \
            break;                                                               \
        }                                                                        \
        int before_ = unit_failed_checks;                                        \
        fn();                                                                    \
        if (unit_failed_checks == before_) {                                     \
            unit_passed++;                                                       \
            printf("ok - %s\n", #fn);                                            \
        } else {                                                                 \
            unit_failed++;                                                       \
            printf("not ok - %s\n", #fn);                                        \
        }                                                                        \
    } while (0)

/* For a build without the backend, where the test functions do not exist. */
#define NOT_RUN(fn) unit_not_run(#fn)

#define UNIT_SUMMARY()                                                           \
    (printf("%d passed, %d failed, %d skipped\n", unit_passed, unit_failed, unit_skipped), unit_failed != 0)

/* The tests that follow need backend `name`; `absent` says why it is not
 * there, or is NULL when it is. Absent and not named in SEQGPU_REQUIRE (a
 * comma-separated list such as "cuda,opencl"): the tests are skipped.
 * Absent and required: they fail. */
static inline void unit_needs(const char *name, const char *absent)
{
    const char *req = getenv("SEQGPU_REQUIRE");
    size_t n = strlen(name);
    snprintf(unit_absent, sizeof unit_absent, "%s", absent ? absent : "");
    unit_required = 0;
    for (const char *p = req; p && *p; p += strcspn(p, ","), p += *p == ',')
        if (strcspn(p, ",") == n && !strncmp(p, name, n)) unit_required = 1;
}

#ifdef SG_HAVE_CUDA
#include <cuda_runtime_api.h>

/* Why CUDA is absent here (no driver, no device), or NULL. Any other error
 * means a device is there and the tests must find out what is wrong. */
static inline const char *unit_cuda_absent(void)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) return cudaGetErrorString(e);
    if (e == cudaSuccess && count == 0) return "no CUDA device";
    return NULL;
}
#endif

/* xorshift64*: reproducible random numbers for tests */
static unsigned long long unit_rng = 88172645463325252ull;
static inline unsigned long long unit_rand(void)
{
    unit_rng ^= unit_rng >> 12;
    unit_rng ^= unit_rng << 25;
    unit_rng ^= unit_rng >> 27;
    return unit_rng * 2685821657736338717ull;
}
static inline int unit_below(int n) { return (int)(unit_rand() % (unsigned long long)n); }

#endif
