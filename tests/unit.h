/* A minimal unit-test harness: TEST functions, CHECK inside them, and a
 * last line "N passed, N failed" counting tests. */
#ifndef SG_UNIT_H
#define SG_UNIT_H

#include <stdio.h>
#include <stdlib.h>

static int unit_failed_checks, unit_passed, unit_failed;

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (!(cond)) {                                                           \
            unit_failed_checks++;                                                \
            fprintf(stderr, "  check failed at %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
        }                                                                        \
    } while (0)

#define RUN(fn)                                                                  \
    do {                                                                         \
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

#define UNIT_SUMMARY()                                                           \
    (printf("%d passed, %d failed\n", unit_passed, unit_failed), unit_failed != 0)

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
