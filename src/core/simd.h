/* Building hot loops for more than one instruction set. */
#ifndef SG_SIMD_H
#define SG_SIMD_H

/* A loop the compiler vectorises, built for the baseline CPU and for AVX2
 * and chosen when the program loads (GCC on x86-64). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(SG_NO_CLONES)
#define SG_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SG_CLONES
#endif

#endif
