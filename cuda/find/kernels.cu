// Kernels of seqgpu find. A text byte matches a pattern position whose base
// set is m when its one-hot class (A 1, C 2, G 4, T 8; 0 for anything that
// is not A/C/G/T, and for lowercase under --skip-masked) shares a bit with m.
#include "cuda/find/kernels.h"

#include <stdint.h>

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ uint32_t base_class(uint32_t b, uint32_t fold)
{
    uint32_t u = b & fold; // fold 0xdf folds lowercase onto uppercase
    return (u == 'A') | (u == 'C') << 1 | (u == 'G') << 2 | (u == 'T') << 3;
}

__device__ __forceinline__ void emit(const sg_dscan_t &a, uint64_t start, uint32_t rank)
{
    unsigned long long i = atomicAdd(a.n_hits, 1ull);
    if (i < a.cap) a.hits[i] = start << 32 | rank;
}

// Hits of one pattern at the starts s0 + bit for each bit of live.
__device__ __forceinline__ void emit_bits(const sg_dscan_t &a, uint64_t s0, uint64_t live, uint32_t rank)
{
    unsigned long long i = atomicAdd(a.n_hits, (unsigned long long)__popcll(live));
    for (; live; live &= live - 1, i++)
        if (i < a.cap) a.hits[i] = (s0 + (__ffsll(live) - 1)) << 32 | rank;
}

// ---- Sunday search on the GPU ---------------------------------------------
// The text is cut into 64-byte segments, one per thread, each reading the
// next m-1 bytes as redundant overlap; the patterns and their shift tables
// sit in shared memory; hits are shifted back to chunk coordinates.
constexpr int kSundaySegment = 64;

__global__ void __launch_bounds__(kThreads) k_sunday(const sg_dscan_t a)
{
    extern __shared__ uint8_t smem[];
    uint8_t *masks = smem;                                          // all patterns' base sets
    uint16_t *shift = (uint16_t *)(smem + ((a.masks_len + 15) & ~15u)); // 16 per Sunday pattern
    __shared__ uint8_t cls[256];
    const uint32_t fold = a.skip_masked ? 0xff : 0xdf;
    for (uint32_t i = threadIdx.x; i < a.masks_len; i += blockDim.x) masks[i] = a.masks[i];
    for (uint32_t i = threadIdx.x; i < 256; i += blockDim.x) cls[i] = (uint8_t)base_class(i, fold);
    for (uint32_t i = threadIdx.x; i < 16u * a.n_sunday; i += blockDim.x) {
        const sg_dpat_t p = a.pats[a.sunday_ids[i / 16]];
        uint32_t c = i % 16, s = p.len + 1;
        for (uint32_t j = 0; j < p.len; j++)
            if (c & a.masks[p.off + j]) s = p.len - j; // rightmost position that can match c
        shift[i] = (uint16_t)s;
    }
    __syncthreads();
    const uint64_t n_seg = (a.n_start + kSundaySegment - 1) / kSundaySegment;
    for (uint64_t seg = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; seg < n_seg;
         seg += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t s0 = seg * kSundaySegment;
        const uint64_t s1 = min(s0 + kSundaySegment, a.n_start);
        for (int k = 0; k < a.n_sunday; k++) {
            const sg_dpat_t p = a.pats[a.sunday_ids[k]];
            const uint8_t *m = masks + p.off;
            const uint16_t *sh = shift + 16 * k;
            for (uint64_t i = s0; i < s1;) {
                uint32_t j = 0;
                while (j < p.len && (cls[a.text[i + j]] & m[j])) j++;
                if (j == p.len) emit(a, i, p.rank);
                i += sh[cls[a.text[i + p.len]]];
            }
        }
    }
}

// ---- one-hot base bitmaps: 64 starts per thread ---------------------------
// Each lane classifies 64 text bytes into four 64-bit bitmaps (bit i: base i
// is A, C, G or T); a pattern position j with base set m keeps the starts
// whose base j bytes on is in m: AND over j of (bitmap(m) >> j), over 128
// bits, the upper 64 coming from the next lane by a shuffle. Lane 31 only
// supplies those upper bits, so a warp owns 31 x 64 starts.
constexpr int kLanesOwning = 31;
constexpr int kWarpStarts = kLanesOwning * 64;

struct bitmaps {
    unsigned long long b[4]; // A, C, G, T
};

__device__ __forceinline__ bitmaps classify64(const uint8_t *p, uint32_t fold)
{
    bitmaps r = {{0, 0, 0, 0}};
    const uint4 *v = (const uint4 *)p; // p is 64-byte aligned
#pragma unroll
    for (int q = 0; q < 4; q++) {
        uint4 x = __ldg(v + q);
        uint32_t w[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
        for (int k = 0; k < 16; k++) {
            uint32_t c = base_class((w[k >> 2] >> (8 * (k & 3))) & 0xff, fold);
            unsigned long long bit = 1ull << (16 * q + k);
            r.b[0] |= (c & 1) ? bit : 0;
            r.b[1] |= (c & 2) ? bit : 0;
            r.b[2] |= (c & 4) ? bit : 0;
            r.b[3] |= (c & 8) ? bit : 0;
        }
    }
    return r;
}

__device__ __forceinline__ unsigned long long select_set(const bitmaps &x, uint32_t m)
{
    return ((m & 1) ? x.b[0] : 0) | ((m & 2) ? x.b[1] : 0) | ((m & 4) ? x.b[2] : 0) | ((m & 8) ? x.b[3] : 0);
}

__global__ void __launch_bounds__(kThreads) k_vector(const sg_dscan_t a)
{
    const uint32_t fold = a.skip_masked ? 0xff : 0xdf;
    const int lane = threadIdx.x & 31;
    const uint64_t warps = (uint64_t)gridDim.x * (blockDim.x / 32);
    const uint64_t n_warp_tiles = (a.n_start + kWarpStarts - 1) / kWarpStarts;
    for (uint64_t w = (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) / 32; w < n_warp_tiles; w += warps) {
        const uint64_t s0 = w * kWarpStarts + 64ull * lane;
        bitmaps lo = classify64(a.text + s0, fold), hi;
#pragma unroll
        for (int c = 0; c < 4; c++) hi.b[c] = __shfl_down_sync(0xffffffffu, lo.b[c], 1);
        if (lane == kLanesOwning || s0 >= a.n_start) continue;
        const unsigned long long owned = a.n_start - s0 >= 64 ? ~0ull : (1ull << (a.n_start - s0)) - 1;
        for (int k = 0; k < a.n_vector; k++) {
            const sg_dpat_t p = a.pats[a.vector_ids[k]];
            const uint8_t *m = a.masks + p.off;
            unsigned long long live = owned;
            const uint32_t in_words = min(p.len, 65u);
            for (uint32_t j = 0; j < in_words && live; j++) {
                const uint32_t set = __ldg(m + j);
                unsigned long long l = select_set(lo, set), h = select_set(hi, set);
                live &= j == 0 ? l : j == 64 ? h : (l >> j) | (h << (64 - j));
            }
            // positions past 64 bases on (patterns longer than 65) are checked byte by byte
            for (unsigned long long rest = p.len > 65 ? live : 0; rest; rest &= rest - 1) {
                const int bit = __ffsll(rest) - 1;
                for (uint32_t j = 65; j < p.len; j++)
                    if (!(base_class(a.text[s0 + bit + j], fold) & m[j])) {
                        live &= ~(1ull << bit);
                        break;
                    }
            }
            if (live) emit_bits(a, s0, live, p.rank);
        }
    }
}

// ---- q-gram filter --------------------------------------------------------
// Each thread takes 64 windows: a rolling 2-bit key per window (code =
// (b >> 1 ^ b >> 2) & 3 maps A C G T, either case, to 0 1 2 3), a bit test in
// the table (in shared memory when it fits), and verification of the few
// candidates through the hash table; a pattern starts off bases before the
// window that indexes it, so each (start, pattern) is met once.
template <bool kShared>
__global__ void __launch_bounds__(kThreads) k_qgram(const sg_dscan_t a)
{
    extern __shared__ unsigned long long sbits[];
    const unsigned long long *bits = a.qbits;
    if (kShared) {
        for (size_t i = threadIdx.x; i < a.qbits_words; i += blockDim.x) sbits[i] = a.qbits[i];
        __syncthreads();
        bits = sbits;
    }
    const uint32_t fold = a.skip_masked ? 0xff : 0xdf;
    const int q = a.q;
    const uint32_t kmask = (uint32_t)((1ull << (2 * q)) - 1), qmask = (1u << q) - 1;
    const uint64_t n_win = a.n_start + a.max_off;
    for (uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; t * 64 < n_win;
         t += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t w0 = t * 64, w1 = min(w0 + 64, n_win);
        uint32_t key = 0, bad = ~0u;
        for (uint64_t i = w0; i < w1 + q - 1; i++) {
            const uint32_t b = a.text[i];
            key = ((key << 2) | ((b >> 1 ^ b >> 2) & 3)) & kmask;
            bad = (bad << 1) | (base_class(b, fold) == 0);
            const uint64_t s = i + 1 - q; // the window ending at i
            if (s < w0 || (bad & qmask) || !((bits[key >> 6] >> (key & 63)) & 1)) continue;
            uint32_t h = (key * 2654435761u ^ key >> 15) & a.slot_mask;
            while (a.slot_key[h] != key) h = (h + 1) & a.slot_mask;
            const uint32_t *e = a.ent + 3ull * a.slot_start[h];
            for (uint32_t k = 0; k < a.slot_n[h]; k++, e += 3) {
                const uint32_t off = e[2];
                if (s < off || s - off >= a.n_start) continue;
                const uint64_t start = s - off;
                const sg_dpat_t p = a.pats[e[1]];
                uint32_t j = 0;
                while (j < p.len && (base_class(a.text[start + j], fold) & a.masks[p.off + j])) j++;
                if (j == p.len) emit(a, start, p.rank);
            }
        }
    }
}

// ---- mismatch search: PAM groups of windows up to 32 bases ---------------
// A block takes tiles of 32 starts per thread. Its text becomes four base
// bitmaps in shared memory (a warp ballot per 32 bytes). Per PAM group, each
// thread ANDs the shifted bitmaps of the PAM positions over its 32 starts; a
// block-wide prefix sum places the windows that pass in a shared list, with
// their bit planes; then every thread takes one pattern (in registers) and
// runs down the list: mismatches = popc(C & ~((W_A & G_A) | ... )).
constexpr int kMMTile = 32 * kThreads;         // starts per tile
constexpr int kMMPlaneWords = kMMTile / 32 + 2; // the tile, the 32 bases a window reaches past it, and one for the funnel
constexpr int kMMCap = 2048;                   // windows listed at once

// 32 bits of a shared bitmap from bit 32 * word + off on
__device__ __forceinline__ uint32_t plane_bits(const uint32_t *p, int word, uint32_t off)
{
    return __funnelshift_r(p[word + (off >> 5)], p[word + (off >> 5) + 1], off & 31);
}

// The base bitmaps (A, C, G, T, and separators: '\n' and every byte outside
// [0, n_text)) of W words of text from position first on, a warp per word.
template <int W>
__device__ __forceinline__ void load_planes(const uint8_t *text, uint64_t n_text, int64_t first, uint32_t fold,
                                            uint32_t (&plane)[5][W])
{
    const int lane = threadIdx.x & 31;
    for (int wd = threadIdx.x >> 5; wd < W; wd += blockDim.x >> 5) {
        const int64_t i = first + 32ll * wd + lane;
        const uint32_t b = i >= 0 && (uint64_t)i < n_text ? text[i] : '\n', c = base_class(b, fold);
        const uint32_t bA = __ballot_sync(0xffffffffu, c & 1), bC = __ballot_sync(0xffffffffu, c & 2);
        const uint32_t bG = __ballot_sync(0xffffffffu, c & 4), bT = __ballot_sync(0xffffffffu, c & 8);
        const uint32_t bS = __ballot_sync(0xffffffffu, b == '\n');
        if (lane == 0) {
            plane[0][wd] = bA;
            plane[1][wd] = bC;
            plane[2][wd] = bG;
            plane[3][wd] = bT;
            plane[4][wd] = bS;
        }
    }
}

// The starts among the 32 of word wd (bits `live`) where the group's PAM is;
// the base bitmaps are stride words apart from plane on.
__device__ __forceinline__ uint32_t pam_pass(const sg_dscan_t &a, const sg_dmm_group_t &G, const uint32_t *plane,
                                             int stride, int wd, uint32_t live)
{
    for (uint32_t k = 0; k < G.n_pam && live; k++) {
        const uint32_t pos = a.mm_pam_pos[G.pam_off + k], set = a.mm_pam_set[G.pam_off + k];
        uint32_t in = 0;
#pragma unroll
        for (int b = 0; b < 4; b++)
            if (set >> b & 1) in |= plane_bits(plane + b * stride, wd, pos);
        live &= in;
    }
    return live;
}

// Where a thread's cnt entries go in the block's list: an exclusive prefix
// sum over the block (every thread calls it); the block's total to *total.
__device__ __forceinline__ uint32_t block_first(uint32_t cnt, uint32_t *warp_sum, uint32_t *total)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, n_warps = blockDim.x >> 5;
    uint32_t incl = cnt;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const uint32_t y = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= d) incl += y;
    }
    if (lane == 31) warp_sum[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        uint32_t v = lane < n_warps ? warp_sum[lane] : 0, x = v;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const uint32_t y = __shfl_up_sync(0xffffffffu, x, d);
            if (lane >= d) x += y;
        }
        if (lane < n_warps) warp_sum[lane] = x - v;
        if (lane == n_warps - 1) warp_sum[kThreads / 32] = x;
    }
    __syncthreads();
    *total = warp_sum[kThreads / 32];
    return warp_sum[warp] + incl - cnt;
}

// This thread's list entries first .. first + cnt - 1 (one per bit of pass)
// that fall in the round of kCap from r0 on: put(entry in the round, bit).
template <uint32_t kCap, typename Put>
__device__ __forceinline__ void list_round(uint32_t pass, uint32_t first, uint32_t cnt, uint32_t r0, Put put)
{
    if (!cnt || first >= r0 + kCap || first + cnt <= r0) return;
    uint32_t idx = first;
    for (uint32_t b = pass; b; b &= b - 1, idx++)
        if (idx >= r0 && idx < r0 + kCap) put(idx - r0, (uint32_t)__ffs(b) - 1);
}

__device__ __forceinline__ uint32_t mismatches(uint4 w, uint32_t gA, uint32_t gC, uint32_t gG, uint32_t gT, uint32_t C)
{
    return C & ~((w.x & gA) | (w.y & gC) | (w.z & gG) | (w.w & gT));
}

__global__ void __launch_bounds__(kThreads) k_mm32(const sg_dscan_t a)
{
    __shared__ uint32_t plane[5][kMMPlaneWords]; // A, C, G, T, separator (or past the text)
    __shared__ uint32_t cand_start[kMMCap];
    __shared__ uint4 cand_w[kMMCap];
    __shared__ uint32_t warp_sum[kThreads / 32 + 1];
    const uint32_t fold = a.skip_masked ? 0xff : 0xdf;
    const uint64_t n_tiles = (a.n_start + kMMTile - 1) / kMMTile;
    for (uint64_t tile = blockIdx.x; tile < n_tiles; tile += gridDim.x) {
        const uint64_t t0 = tile * kMMTile;
        load_planes(a.text, a.n_text, (int64_t)t0, fold, plane);
        __syncthreads();
        const int wd = threadIdx.x;
        const uint64_t s0 = t0 + 32ull * wd;
        for (int g = 0; g < a.n_mm_groups; g++) {
            const sg_dmm_group_t G = a.mm_groups[g];
            uint32_t pass = 0;
            if (s0 < a.n_start) {
                pass = pam_pass(a, G, &plane[0][0], kMMPlaneWords, wd,
                                a.n_start - s0 >= 32 ? ~0u : (1u << (a.n_start - s0)) - 1);
                const uint32_t span = G.len >= 32 ? ~0u : (1u << G.len) - 1;
                for (uint32_t b = pass; b; b &= b - 1) { // no window spans a separator
                    const uint32_t k = __ffs(b) - 1;
                    if (plane_bits(plane[4], wd, k) & span) pass &= ~(1u << k);
                }
            }
            // where this thread's windows go in the block's list
            const uint32_t cnt = __popc(pass);
            uint32_t total;
            const uint32_t first = block_first(cnt, warp_sum, &total);
            const uint32_t keep = G.len >= 32 ? ~0u : (1u << G.len) - 1;
            const uint32_t *pl = a.mm_planes + G.plane_off;
            for (uint32_t r0 = 0; r0 < total; r0 += kMMCap) {
                list_round<kMMCap>(pass, first, cnt, r0, [&](uint32_t at, uint32_t k) {
                    cand_start[at] = 32 * wd + k;
                    cand_w[at] = make_uint4(plane_bits(plane[0], wd, k) & keep, plane_bits(plane[1], wd, k) & keep,
                                            plane_bits(plane[2], wd, k) & keep, plane_bits(plane[3], wd, k) & keep);
                });
                __syncthreads();
                const uint32_t n_c = min(total - r0, (uint32_t)kMMCap);
                for (uint32_t g0 = 0; g0 < G.n_pat; g0 += blockDim.x) {
                    const uint32_t gw = min(G.n_pat - g0, blockDim.x), per = blockDim.x / gw;
                    if (threadIdx.x >= per * gw) continue;
                    const uint32_t i = g0 + threadIdx.x % gw, n = G.n_pad;
                    const uint32_t gA = pl[i], gC = pl[n + i], gG = pl[2 * n + i], gT = pl[3 * n + i];
                    const uint32_t C = pl[4 * n + i], lim = pl[5 * n + i], rank = pl[6 * n + i];
                    for (uint32_t c = threadIdx.x / gw; c < n_c; c += per)
                        if ((uint32_t)__popc(mismatches(cand_w[c], gA, gC, gG, gT, C)) <= lim)
                            emit(a, t0 + cand_start[c], rank);
                }
                __syncthreads();
            }
            __syncthreads(); // warp_sum and the planes are read no more
        }
    }
}

// ---- mismatch search with bulges (src/find/bulge.h) ------------------------
// The same tiles, over anchors (the windows whose PAM is a site's) in the
// text from SG_DEV_FRONT bytes before the window: the planes start a word
// before the tile, and each anchor's list entry holds the planes of the
// windows at shifts -SG_MAX_BULGE..SG_MAX_BULGE. Patterns go to whole warps,
// so that a warp's lanes walk the list together: each lane's near window and
// each variant's lower bound popc(near & far) - skip; a lane within it is
// decided by the whole warp, one cut per lane and a ballot. Sites are
// checked for separators and ownership when they hit, as their spans
// differ from the anchor's window.
constexpr int kBulgeCap = 512; // anchors listed at once
constexpr int kSlots = 2 * SG_MAX_BULGE + 1;

// Whether the site [t, t + len) (t in tile coordinates from the planes' first bit) lies in one record.
__device__ __forceinline__ bool span_clear(const uint32_t *sep, uint32_t t, uint32_t len)
{
    const uint32_t lo = len >= 32 ? ~0u : (1u << len) - 1, hi = len > 32 ? (1u << (len - 32)) - 1 : 0;
    return !(plane_bits(sep, 0, t) & lo) && !(plane_bits(sep, 0, t + 32) & hi);
}

__global__ void __launch_bounds__(kThreads) k_mm32_bulge(const sg_dscan_t a)
{
    __shared__ uint32_t plane[5][kMMPlaneWords + 2]; // from 32 bases before the tile, and a word for the funnel
    __shared__ uint32_t cand_start[kBulgeCap];
    __shared__ uint4 cand_w[kBulgeCap][kSlots];
    __shared__ uint32_t warp_sum[kThreads / 32 + 1];
    const uint32_t fold = a.skip_masked ? 0xff : 0xdf;
    const int lane = threadIdx.x & 31;
    const uint64_t n_tiles = (a.n_anchor + kMMTile - 1) / kMMTile;
    for (uint64_t tile = blockIdx.x; tile < n_tiles; tile += gridDim.x) {
        const uint64_t t0 = tile * kMMTile;
        load_planes(a.btext, a.n_btext, (int64_t)t0 - 32, fold, plane);
        __syncthreads();
        const int wd = threadIdx.x;
        const uint64_t s0 = t0 + 32ull * wd;
        for (int g = 0; g < a.n_mm_groups; g++) {
            const sg_dmm_group_t G = a.mm_groups[g];
            sg_gap_t gap[SG_VARIANTS];
#pragma unroll
            for (int v = 0; v < SG_VARIANTS; v++) gap[v] = a.mm_gaps[g * SG_VARIANTS + v];
            const uint32_t pass = s0 < a.n_anchor ? pam_pass(a, G, &plane[0][0], kMMPlaneWords + 2, wd + 1,
                                                             a.n_anchor - s0 >= 32 ? ~0u : (1u << (a.n_anchor - s0)) - 1)
                                                  : 0;
            const uint32_t cnt = __popc(pass);
            uint32_t total;
            const uint32_t first = block_first(cnt, warp_sum, &total);
            const uint32_t *pl = a.mm_planes + G.plane_off;
            for (uint32_t r0 = 0; r0 < total; r0 += kBulgeCap) {
                list_round<kBulgeCap>(pass, first, cnt, r0, [&](uint32_t at, uint32_t k) {
                    cand_start[at] = 32 * wd + k;
#pragma unroll
                    for (int sl = 0; sl < kSlots; sl++) {
                        const uint32_t off = 32 + k + sl - SG_MAX_BULGE; // the window at anchor + shift
                        cand_w[at][sl] = make_uint4(plane_bits(plane[0], wd, off), plane_bits(plane[1], wd, off),
                                                    plane_bits(plane[2], wd, off), plane_bits(plane[3], wd, off));
                    }
                });
                __syncthreads();
                const uint32_t n_c = min(total - r0, (uint32_t)kBulgeCap), n_pat32 = (G.n_pat + 31) & ~31u;
                for (uint32_t g0 = 0; g0 < n_pat32; g0 += blockDim.x) {
                    const uint32_t gw = min(n_pat32 - g0, blockDim.x), per = blockDim.x / gw;
                    if (threadIdx.x >= per * gw) continue; // whole warps: gw is a multiple of 32
                    const uint32_t i = g0 + threadIdx.x % gw, n = G.n_pad;
                    const bool real = i < G.n_pat;
                    const uint32_t gA = real ? pl[i] : 0, gC = real ? pl[n + i] : 0, gG = real ? pl[2 * n + i] : 0;
                    const uint32_t gT = real ? pl[3 * n + i] : 0, C = real ? pl[4 * n + i] : ~0u;
                    const uint32_t lim = real ? pl[5 * n + i] : 0;
                    uint32_t rank[SG_VARIANTS];
#pragma unroll
                    for (int v = 0; v < SG_VARIANTS; v++) rank[v] = real ? pl[(v ? 6 + v : 6) * n + i] : 0;
                    for (uint32_t c = threadIdx.x / gw; c < n_c; c += per) { // the same c in every lane of a warp
                        const uint32_t near = mismatches(cand_w[c][SG_MAX_BULGE], gA, gC, gG, gT, C);
                        uint32_t maybe = (uint32_t)__popc(near) <= lim, far[SG_VARIANTS];
#pragma unroll
                        for (int v = 1; v < SG_VARIANTS; v++) {
                            far[v] = 0;
                            if (!(G.var_mask >> v & 1)) continue;
                            far[v] = mismatches(cand_w[c][SG_MAX_BULGE + gap[v].far], gA, gC, gG, gT, C);
                            if (sg_gap_bound(&gap[v], near, far[v]) <= (int)lim) maybe |= 1u << v;
                        }
                        const uint64_t anchor = t0 + cand_start[c]; // in the btext coordinates
                        for (uint32_t who = __ballot_sync(0xffffffffu, maybe); who; who &= who - 1) {
                            const int src = __ffs(who) - 1;
                            const uint32_t m = __shfl_sync(0xffffffffu, maybe, src), bl = __shfl_sync(0xffffffffu, lim, src);
                            const uint32_t bn = __shfl_sync(0xffffffffu, near, src);
                            if ((m & 1) && lane == src && anchor >= a.own_lo && anchor < a.own_hi &&
                                span_clear(plane[4], (uint32_t)(anchor - t0 + 32), G.len))
                                emit(a, anchor - a.own_lo, rank[0]);
#pragma unroll
                            for (int v = 1; v < SG_VARIANTS; v++) {
                                if (!(G.var_mask >> v & 1)) continue;
                                const uint32_t bf = __shfl_sync(0xffffffffu, far[v], src);
                                if (!(m >> v & 1)) continue;
                                const uint32_t low = gap[v].left ? bn : bf, high = gap[v].left ? bf : bn;
                                const int cut = gap[v].lo + lane; // a cut per lane: hi - lo < 32
                                const bool hit = __ballot_sync(0xffffffffu, cut <= gap[v].hi &&
                                                                                sg_gap_cost(&gap[v], low, high, cut) <= (int)bl);
                                const int64_t t = (int64_t)anchor + gap[v].start;
                                if (hit && lane == src && t >= (int64_t)a.own_lo && t < (int64_t)a.own_hi &&
                                    span_clear(plane[4], (uint32_t)(t - (int64_t)t0 + 32), G.len + gap[v].delta))
                                    emit(a, (uint64_t)t - a.own_lo, rank[v]);
                            }
                        }
                    }
                }
                __syncthreads();
            }
            __syncthreads(); // warp_sum and the planes are read no more
        }
    }
}

// ---- mismatch search: any window, one pattern at a time -------------------
__global__ void __launch_bounds__(kThreads) k_mm_any(const sg_dscan_t a)
{
    const uint32_t fold = a.skip_masked ? 0xff : 0xdf;
    for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < a.n_start;
         s += (uint64_t)gridDim.x * blockDim.x) {
        for (int k = 0; k < a.n_mm_ids; k++) {
            const sg_dpat_t p = a.pats[a.mm_ids[k]];
            uint32_t mm = 0;
            for (uint32_t j = 0; j < p.len && mm <= p.max_mm; j++) {
                const uint32_t b = a.text[s + j];
                // a PAM position must match, and no window spans a separator
                if (!(base_class(b, fold) & a.masks[p.off + j])) mm += a.pam[p.off + j] || b == '\n' ? p.max_mm + 1 : 1;
            }
            if (mm <= p.max_mm) emit(a, s, p.rank);
        }
    }
}

size_t qgram_smem(const sg_dscan_t *a) { return a->qbits_words * sizeof(unsigned long long); }

unsigned grid_for(uint64_t work_items, const sg_dlimits_t *lim)
{
    uint64_t blocks = (work_items + kThreads - 1) / kThreads;
    uint64_t most = 8ull * lim->n_sm;
    return (unsigned)(blocks < 1 ? 1 : blocks > most ? most : blocks);
}

} // namespace

// The dynamic shared memory a kernel may ask for: the block's limit less its static shared memory.
template <typename K>
cudaError_t raise_smem(K kernel, size_t optin, size_t *dynamic)
{
    cudaFuncAttributes fa;
    cudaError_t e = cudaFuncGetAttributes(&fa, kernel);
    if (e != cudaSuccess) return e;
    *dynamic = optin > fa.sharedSizeBytes ? optin - fa.sharedSizeBytes : 0;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)*dynamic);
}

extern "C" cudaError_t sg_cuda_prepare(sg_dlimits_t *lim)
{
    cudaError_t e = raise_smem(k_sunday, lim->smem_optin, &lim->sunday_smem);
    if (e == cudaSuccess) e = raise_smem(k_qgram<true>, lim->smem_optin, &lim->qgram_smem);
    return e;
}

extern "C" cudaError_t sg_cuda_scan(const sg_dscan_t *a, const sg_dlimits_t *lim, cudaStream_t s)
{
    if (a->n_start == 0) return cudaSuccess;
    if (a->n_sunday) {
        size_t smem = sg_cuda_sunday_smem(a->masks_len, a->n_sunday);
        if (smem > lim->sunday_smem) return cudaErrorInvalidConfiguration;
        k_sunday<<<grid_for((a->n_start + kSundaySegment - 1) / kSundaySegment, lim), kThreads, smem, s>>>(*a);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    if (a->n_vector) {
        uint64_t threads = (a->n_start + kWarpStarts - 1) / kWarpStarts * 32;
        k_vector<<<grid_for(threads, lim), kThreads, 0, s>>>(*a);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    if (a->n_mm_groups && a->bulges) {
        k_mm32_bulge<<<grid_for((a->n_anchor + 31) / 32, lim), kThreads, 0, s>>>(*a);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    } else if (a->n_mm_groups) {
        k_mm32<<<grid_for((a->n_start + 31) / 32, lim), kThreads, 0, s>>>(*a);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    if (a->n_mm_ids) {
        k_mm_any<<<grid_for(a->n_start, lim), kThreads, 0, s>>>(*a);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    if (a->q) {
        uint64_t threads = (a->n_start + a->max_off + 63) / 64;
        size_t smem = qgram_smem(a);
        if (smem <= lim->qgram_smem) k_qgram<true><<<grid_for(threads, lim), kThreads, smem, s>>>(*a);
        else k_qgram<false><<<grid_for(threads, lim), kThreads, 0, s>>>(*a);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}
