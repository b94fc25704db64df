/* seqgpu find on OpenCL 1.2 (embedded in the binary at build time).
 *
 * Work-group text scanning, extended to IUPAC motifs on both strands: the constants
 * (lengths, ranges, the case fold) are kernel arguments, held in private
 * memory; each work-group copies the patterns into local memory behind a
 * barrier, scans one range of the text, and places each hit through a
 * global atomic counter. A text byte matches a pattern position with base
 * set m when its one-hot class (A 1, C 2, G 4, T 8; 0 for anything else, and
 * for lowercase when fold keeps the case) shares a bit with m.
 *
 * MASKS is the address space the patterns are read from: __local when they
 * fit in local memory, else __global (the kernels are compiled once each way). */

inline uint base_class(uint b, uint fold)
{
    uint u = b & fold;
    return (uint)(u == 'A') | (uint)(u == 'C') << 1 | (uint)(u == 'G') << 2 | (uint)(u == 'T') << 3;
}

/* Once the buffer is full, the count stops soon after its size (at most one
 * increment more per work-item in flight), so that a window of more than
 * 2^32 hits cannot wrap it: the host sees an overflow and scans less. */
inline void put_hit(__global ulong *hits, volatile __global uint *count, uint cap, ulong start, uint rank)
{
    if (*count > cap) return;
    uint i = atomic_inc(count);
    if (i < cap) hits[i] = start << 32 | rank;
}

/* pats: (offset into masks, length, rank) per pattern; ids: the patterns to scan */
__kernel void find_ranges(__global const uchar *text, const ulong n_start, const ulong range,
                          __global const uchar *masks_g, const uint masks_len,
                          __global const uint *pats_g, __global const uint *ids, const uint n_ids,
                          const uint fold, __global ulong *hits, volatile __global uint *count, const uint cap,
                          __local uchar *masks_l, __local uint *pats)
{
    const uint lid = get_local_id(0), lsize = get_local_size(0);
#if MASKS_IN_LOCAL
    for (uint i = lid; i < masks_len; i += lsize) masks_l[i] = masks_g[i];
    __local const uchar *masks = masks_l;
#else
    __global const uchar *masks = masks_g;
#endif
    for (uint i = lid; i < 3 * n_ids; i += lsize) pats[i] = pats_g[3 * ids[i / 3] + i % 3];
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong begin = get_group_id(0) * range;
    const ulong end = min(begin + range, n_start);
    for (ulong pos = begin + lid; pos < end; pos += lsize) {
        for (uint k = 0; k < n_ids; k++) {
            const uint off = pats[3 * k], len = pats[3 * k + 1];
            uint j = 0;
            while (j < len && (base_class(text[pos + j], fold) & masks[off + j])) j++;
            if (j == len) put_hit(hits, count, cap, pos, pats[3 * k + 2]);
        }
    }
}

/* The q-gram filter (src/find/kernels.h, sg_qgram_view_t): 64 windows per
 * work-item, a rolling 2-bit key ((b >> 1 ^ b >> 2) & 3 maps A C G T, either
 * case, to 0 1 2 3), a bit test, and verification of the few candidates. */
__kernel void find_qgram(__global const uchar *text, const ulong n_start, const uint q, const uint max_off,
                         __global const ulong *bits_g, const uint bits_words,
                         __global const uint *slot_key, __global const uint *slot_start, __global const uint *slot_n,
                         const uint slot_mask, __global const uint *ent,
                         __global const uchar *masks, __global const uint *pats,
                         const uint fold, __global ulong *hits, volatile __global uint *count, const uint cap,
                         __local ulong *bits_l)
{
#if BITS_IN_LOCAL
    for (uint i = get_local_id(0); i < bits_words; i += get_local_size(0)) bits_l[i] = bits_g[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    __local const ulong *bits = bits_l;
#else
    __global const ulong *bits = bits_g;
#endif
    const uint kmask = (uint)((1ul << (2 * q)) - 1), qmask = (1u << q) - 1;
    const ulong n_win = n_start + max_off;
    const ulong w0 = get_global_id(0) * 64;
    if (w0 >= n_win) return;
    const ulong w1 = min(w0 + 64, n_win);
    uint key = 0, bad = ~0u;
    for (ulong i = w0; i < w1 + q - 1; i++) {
        const uint b = text[i];
        key = ((key << 2) | ((b >> 1 ^ b >> 2) & 3)) & kmask;
        bad = (bad << 1) | (uint)(base_class(b, fold) == 0);
        const ulong s = i + 1 - q;
        if (i + 1 < w0 + q || (bad & qmask) || !((bits[key >> 6] >> (key & 63)) & 1)) continue;
        uint h = (key * 2654435761u ^ key >> 15) & slot_mask;
        while (slot_key[h] != key) h = (h + 1) & slot_mask;
        __global const uint *e = ent + 3 * slot_start[h];
        for (uint k = 0; k < slot_n[h]; k++, e += 3) {
            const uint off = e[2];
            if (s < off || s - off >= n_start) continue;
            const ulong start = s - off;
            const uint poff = pats[3 * e[1]], len = pats[3 * e[1] + 1];
            uint j = 0;
            while (j < len && (base_class(text[start + j], fold) & masks[poff + j])) j++;
            if (j == len) put_hit(hits, count, cap, start, pats[3 * e[1] + 2]);
        }
    }
}

/* Mismatch search, one work-item per start: mm_pats holds (offset into
 * masks and pam, length, rank, mismatches allowed) per pattern; a PAM
 * position (pam 1) must match, any other position that does not is one
 * mismatch, and no window spans a separator ('\n': between records, and
 * after the text). */
__kernel void find_mismatch(__global const uchar *text, const ulong n_start, __global const uchar *masks,
                            __global const uchar *pam, __global const uint *mm_pats, const uint n_mm,
                            const uint fold, __global ulong *hits, volatile __global uint *count, const uint cap)
{
    const ulong pos = get_global_id(0);
    if (pos >= n_start) return;
    for (uint k = 0; k < n_mm; k++) {
        const uint off = mm_pats[4 * k], len = mm_pats[4 * k + 1], lim = mm_pats[4 * k + 3];
        /* the PAM first: most windows fail it */
        uint mm = 0;
        for (uint j = 0; j < len && !mm; j++)
            if (pam[off + j] && !(base_class(text[pos + j], fold) & masks[off + j])) mm = lim + 1;
        for (uint j = 0; j < len && mm <= lim; j++) {
            const uchar b = text[pos + j];
            if (!pam[off + j] && !(base_class(b, fold) & masks[off + j])) mm += b == '\n' ? lim + 1 : 1;
        }
        if (mm <= lim) put_hit(hits, count, cap, pos, mm_pats[4 * k + 2]);
    }
}

/* The text byte at i, a separator before the window's first one. */
inline uchar text_at(__global const uchar *text, long i)
{
    return i < 0 ? (uchar)'\n' : text[i];
}

/* Mismatch bits of pattern (off, len) against the window at a: bit k is a
 * counted position whose text base is not in its set. */
inline uint window_mismatches(__global const uchar *text, long a, __global const uchar *masks, __global const uchar *pam,
                              uint off, uint len, uint fold)
{
    uint m = 0;
    for (uint k = 0; k < len; k++)
        if (!pam[off + k] && !(base_class(text_at(text, a + (long)k), fold) & masks[off + k])) m |= 1u << k;
    return m;
}

/* Bulge search (src/find/bulge.h), one work-item per anchor (the start of
 * the window whose PAM is the site's), from back bases before the window's
 * first base on, as a site there may start in the window. pats: per pattern
 * its offset into masks and pam, its length and its limit, then for each of
 * the 5 variants (X, DNA 1 and 2, RNA 1 and 2) its rank (-1: not searched),
 * the far window's shift and the site's start from the anchor, the site's
 * length less the window's, the unpaired guide bases, the cuts lo..hi, and
 * whether the PAM is on the left. A variant's mismatches at cut c are
 * popcount(low & below(c)) + popcount(high >> (c + skip)), at least
 * popcount(near & far) - skip; a site whose best cut is within the limit,
 * starting in [0, n_start), is a hit. */
__kernel void find_bulges(__global const uchar *text, const ulong n_start, const ulong n_anchor, const uint back,
                          __global const uchar *masks, __global const uchar *pam, __global const int *pats,
                          const uint n_pats, const uint fold, __global ulong *hits, volatile __global uint *count,
                          const uint cap)
{
    if (get_global_id(0) >= n_anchor) return;
    const long a = (long)get_global_id(0) - (long)back;
    for (uint p = 0; p < n_pats; p++) {
        __global const int *P = pats + 44 * p;
        const uint off = (uint)P[0], len = (uint)P[1], lim = (uint)P[2];
        uint j = 0;
        while (j < len && (!pam[off + j] || (base_class(text_at(text, a + (long)j), fold) & masks[off + j]))) j++;
        if (j < len) continue; /* the PAM does not match here */
        const uint near = window_mismatches(text, a, masks, pam, off, len, fold);
        for (uint v = 0; v < 5; v++) {
            __global const int *V = P + 4 + 8 * v;
            const long t = a + V[2];
            if (V[0] < 0 || t < 0 || t >= (long)n_start) continue;
            const uint far = window_mismatches(text, a + V[1], masks, pam, off, len, fold);
            if ((int)popcount(near & far) - V[4] > (int)lim) continue; /* the lower bound of every cut */
            const uint low = V[7] ? near : far, high = V[7] ? far : near;
            uint best = lim + 1;
            for (int c = V[5]; c <= V[6]; c++) {
                const uint s = (uint)(c + V[4]);
                best = min(best, popcount(low & (c >= 32 ? ~0u : (1u << c) - 1)) + (s >= 32 ? 0u : popcount(high >> s)));
            }
            if (best > lim) continue;
            const long site = (long)len + V[3];
            long k = 0;
            while (k < site && text[t + k] != '\n') k++; /* no site spans two records */
            if (k == site) put_hit(hits, count, cap, (ulong)t, (uint)V[0]);
        }
    }
}
