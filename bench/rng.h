/* The benchmark generators' random numbers: xorshift64*, reproducible from a seed. */
#ifndef SG_BENCH_RNG_H
#define SG_BENCH_RNG_H

#include <stdint.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static inline uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 2685821657736338717ull;
}

static inline uint64_t below(uint64_t n) { return rnd() % n; }

#endif
