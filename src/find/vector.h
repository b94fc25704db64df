/* Body of the vector kernel (see sg_scan_vector in find_kernels.h). src/find/kernels.c
 * includes it once per instruction set, with these defined:
 *   VEC_FN      name of the function to define
 *   VEC_ATTR    its attributes (target ISA)
 *   VEC_W       bytes per vector (16 or 32)
 *   VEC_MASK(v) one bit per byte lane of v that has its top bit set
 *
 * A pattern is tried at VEC_W starts at once. Its first four positions read
 * the same four vectors whatever the pattern, so they are loaded once per
 * step; a lane "misses" when a position's base set and the text share no
 * base. Random DNA leaves about one lane in 256 per pattern alive after four
 * positions, and those are finished one by one. */

static VEC_ATTR void VEC_FN(const uint8_t *enc, size_t n, const sg_pattern_t *pat, const int *ids, int n_ids,
                            uint32_t base, sg_hits_t *out)
{
    typedef uint8_t vu __attribute__((vector_size(VEC_W), aligned(VEC_W)));
    typedef uint8_t vu_unaligned __attribute__((vector_size(VEC_W), aligned(1)));
    /* the base sets of every pattern's first four positions, one per lane;
     * positions past a short pattern's end match anything */
    vu *first = aligned_alloc(VEC_W, 4 * (size_t)(n_ids ? n_ids : 1) * sizeof(vu));
    if (!first) sg_malloc((size_t)-1); /* reports out of memory */
    for (int k = 0; k < n_ids; k++)
        for (int j = 0; j < 4; j++) {
            const sg_pattern_t *p = &pat[ids[k]];
            vu v = {0};
            first[4 * k + j] = v + (uint8_t)(j < p->len ? p->mask[j] : 0xff);
        }
    for (size_t i = 0; i < n; i += VEC_W) {
        vu x0 = *(const vu_unaligned *)(enc + i), x1 = *(const vu_unaligned *)(enc + i + 1);
        vu x2 = *(const vu_unaligned *)(enc + i + 2), x3 = *(const vu_unaligned *)(enc + i + 3);
        uint64_t lanes = ((uint64_t)1 << (n - i >= VEC_W ? VEC_W : n - i)) - 1;
        for (int k = 0; k < n_ids; k++) {
            const vu *f = first + 4 * k;
            vu miss = (vu)((x0 & f[0]) == 0) | (vu)((x1 & f[1]) == 0) | (vu)((x2 & f[2]) == 0) |
                      (vu)((x3 & f[3]) == 0);
            uint64_t live = ~(uint64_t)VEC_MASK(miss) & lanes;
            if (__builtin_expect(live == 0, 1)) continue;
            const sg_pattern_t *p = &pat[ids[k]];
            for (; live; live &= live - 1) {
                size_t s = i + __builtin_ctzll(live);
                int j = 4;
                while (j < p->len && (enc[s + j] & p->mask[j])) j++;
                if (j >= p->len) sg_hits_push(out, sg_hit_key(base + s, p->rank));
            }
        }
    }
    free(first);
}
