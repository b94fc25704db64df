/* DNA, the same on the host and on a CUDA device: base letters, their 2-bit
 * codes (A 0, C 1, G 2, T 3) and complements, and k-mers packed 2 bits a
 * base with the first base highest: reverse complement, canonical form (the
 * smaller of a k-mer and its reverse complement), rolling by one base, and
 * the hash of the k-mer tables. A k-mer of up to 31 bases fits 64 bits, of
 * up to 63 bases 128 bits (sg_kmer128_t). k is odd, so that no k-mer is its
 * own reverse complement. C++ code templated over the key type (the CUDA
 * k-mer table) has the same functions by one name each, at the end. */
#ifndef SG_DNA_H
#define SG_DNA_H

#include <stdint.h>

#ifdef __CUDACC__
#define SG_DNA_FN __host__ __device__ static inline
#else
#define SG_DNA_FN static inline
#endif

typedef unsigned __int128 sg_kmer128_t;

/** 2-bit code of a base letter (either case), -1 for any other byte. */
SG_DNA_FN int sg_dna_code(int c)
{
    switch (c | 0x20) {
    case 'a': return 0;
    case 'c': return 1;
    case 'g': return 2;
    case 't': return 3;
    default: return -1;
    }
}

/** Upper-case letter of a 2-bit code. */
SG_DNA_FN char sg_dna_letter(int code) { return "ACGT"[code & 3]; }

/** Complement of a base letter, IUPAC codes included (A<->T, C<->G, R<->Y,
 * K<->M, B<->V, D<->H; S, W and N are their own), in either case; any other
 * byte as it is. */
SG_DNA_FN char sg_base_complement(char c)
{
    switch (c) {
    case 'A': return 'T';
    case 'C': return 'G';
    case 'G': return 'C';
    case 'T': return 'A';
    case 'a': return 't';
    case 'c': return 'g';
    case 'g': return 'c';
    case 't': return 'a';
    case 'R': return 'Y';
    case 'Y': return 'R';
    case 'K': return 'M';
    case 'M': return 'K';
    case 'B': return 'V';
    case 'V': return 'B';
    case 'D': return 'H';
    case 'H': return 'D';
    case 'r': return 'y';
    case 'y': return 'r';
    case 'k': return 'm';
    case 'm': return 'k';
    case 'b': return 'v';
    case 'v': return 'b';
    case 'd': return 'h';
    case 'h': return 'd';
    default: return c;
    }
}

/** Complement of a base set, one bit a base (A 1, C 2, G 4, T 8): A<->T, C<->G. */
SG_DNA_FN uint8_t sg_mask_complement(uint8_t m)
{
    return (uint8_t)(((m & 1) << 3) | ((m & 8) >> 3) | ((m & 2) << 1) | ((m & 4) >> 1));
}

/** The 2-bit groups of x in reverse order. */
SG_DNA_FN uint64_t sg_dna_rev2(uint64_t x)
{
#ifdef __CUDA_ARCH__
    x = __brevll(x); /* every bit reversed: swap the two of each group back */
    return ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
#else
    x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
    return __builtin_bswap64(x);
#endif
}

/** The bits of a k-mer of k bases. */
SG_DNA_FN uint64_t sg_kmer64_mask(int k) { return ((uint64_t)1 << (2 * k)) - 1; }
SG_DNA_FN sg_kmer128_t sg_kmer128_mask(int k) { return ((sg_kmer128_t)1 << (2 * k)) - 1; }

/** Reverse complement of a k-mer of k bases. */
SG_DNA_FN uint64_t sg_kmer64_rc(uint64_t x, int k) { return sg_dna_rev2(~x) >> (64 - 2 * k); }
SG_DNA_FN sg_kmer128_t sg_kmer128_rc(sg_kmer128_t x, int k)
{
    sg_kmer128_t r = (sg_kmer128_t)sg_dna_rev2(~(uint64_t)x) << 64 | sg_dna_rev2(~(uint64_t)(x >> 64));
    return r >> (128 - 2 * k);
}

/** Canonical form: the smaller of x and its reverse complement. */
SG_DNA_FN uint64_t sg_kmer64_canon(uint64_t x, int k)
{
    uint64_t r = sg_kmer64_rc(x, k);
    return r < x ? r : x;
}
SG_DNA_FN sg_kmer128_t sg_kmer128_canon(sg_kmer128_t x, int k)
{
    sg_kmer128_t r = sg_kmer128_rc(x, k);
    return r < x ? r : x;
}

/** Rolling: the k-mer after x, base code b appended (the first base dropped). */
SG_DNA_FN uint64_t sg_kmer64_next(uint64_t x, int b, int k) { return ((x << 2) | (uint64_t)b) & sg_kmer64_mask(k); }
SG_DNA_FN sg_kmer128_t sg_kmer128_next(sg_kmer128_t x, int b, int k)
{
    return ((x << 2) | (sg_kmer128_t)b) & sg_kmer128_mask(k);
}

/** Rolling backwards: the k-mer before x, base code b prepended (the last base
 * dropped). The reverse complement of a k-mer rolls so: prev(rc, 3 - b). */
SG_DNA_FN uint64_t sg_kmer64_prev(uint64_t x, int b, int k) { return (x >> 2) | ((uint64_t)b << (2 * (k - 1))); }
SG_DNA_FN sg_kmer128_t sg_kmer128_prev(sg_kmer128_t x, int b, int k)
{
    return (x >> 2) | ((sg_kmer128_t)b << (2 * (k - 1)));
}

/** Rolling over a text: x, the k-mer ending at base letter c, and r, its
 * reverse complement, from those ending one base before; run counts the
 * A/C/G/T bases in a row, and any other byte sets it to 0.
 * @return whether x and r hold a whole k-mer (k bases in a row) */
SG_DNA_FN int sg_kmer64_roll(uint64_t *x, uint64_t *r, int *run, int c, int k)
{
    int b = sg_dna_code(c);
    if (b < 0) return *run = 0;
    *x = sg_kmer64_next(*x, b, k);
    *r = sg_kmer64_prev(*r, 3 - b, k);
    return ++*run >= k;
}
SG_DNA_FN int sg_kmer128_roll(sg_kmer128_t *x, sg_kmer128_t *r, int *run, int c, int k)
{
    int b = sg_dna_code(c);
    if (b < 0) return *run = 0;
    *x = sg_kmer128_next(*x, b, k);
    *r = sg_kmer128_prev(*r, 3 - b, k);
    return ++*run >= k;
}

/** A 64-bit mixer (murmur3's finaliser): the k-mer tables' hash. */
SG_DNA_FN uint64_t sg_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

SG_DNA_FN uint64_t sg_kmer64_hash(uint64_t x) { return sg_mix64(x); }
SG_DNA_FN uint64_t sg_kmer128_hash(sg_kmer128_t x) { return sg_mix64((uint64_t)x ^ sg_mix64((uint64_t)(x >> 64))); }

/** The part (0 to n - 1) of a k-mer whose hash is h, when the k-mers are cut
 * into n near-equal parts (scc --part, and the GPUs of --device): bits 24-55
 * of the hash scaled to n, so that part 2i of 2n and part 2i + 1 of 2n are
 * the two halves of part i of n. The other bits stay free for the tables'
 * own spreading. */
SG_DNA_FN uint32_t sg_kmer_part(uint64_t h, uint32_t n)
{
    return (uint32_t)(((h >> 24) & 0xffffffffu) * (uint64_t)n >> 32);
}

#ifdef __cplusplus
extern "C++" {
SG_DNA_FN uint64_t sg_kmer_rc(uint64_t x, int k) { return sg_kmer64_rc(x, k); }
SG_DNA_FN sg_kmer128_t sg_kmer_rc(sg_kmer128_t x, int k) { return sg_kmer128_rc(x, k); }
SG_DNA_FN uint64_t sg_kmer_canon(uint64_t x, int k) { return sg_kmer64_canon(x, k); }
SG_DNA_FN sg_kmer128_t sg_kmer_canon(sg_kmer128_t x, int k) { return sg_kmer128_canon(x, k); }
SG_DNA_FN uint64_t sg_kmer_next(uint64_t x, int b, int k) { return sg_kmer64_next(x, b, k); }
SG_DNA_FN sg_kmer128_t sg_kmer_next(sg_kmer128_t x, int b, int k) { return sg_kmer128_next(x, b, k); }
SG_DNA_FN uint64_t sg_kmer_prev(uint64_t x, int b, int k) { return sg_kmer64_prev(x, b, k); }
SG_DNA_FN sg_kmer128_t sg_kmer_prev(sg_kmer128_t x, int b, int k) { return sg_kmer128_prev(x, b, k); }
}
#endif

#endif
