/* Body of the mismatch kernel's comparison (src/find/mismatch.c), included
 * once per instruction set with these defined:
 *   CMP_FN        name of the function to define
 *   CMP_ATTR      its attributes (target ISA)
 *   CMP_LANES     patterns compared per vector (16, 8 or 1)
 *   vec_t         the vector type, and
 *   V_LOAD(p)     CMP_LANES words from p       V_SET1(x)  x in every lane
 *   V_AND, V_OR   bitwise                      V_ANDNOT(a, b)  ~a & b
 *   V_LE(x, lim)  a bit per lane whose popcount(x) <= lim
 *   FINISH        the function that decides a window's lanes that may hit
 * (undefined again at its end, for the next instruction set)
 *
 * A batch of windows meets the group's patterns a vector at a time: the
 * pattern vectors stay in registers while the windows stream past, and a
 * lane is handed to finish() only when it may hit: its window's mismatches
 * are within the limit (exact), or so is a bulge variant's lower bound
 * (src/find/bulge.h), which random sequence almost never passes. */

static CMP_ATTR void CMP_FN(const mm_group_t *G, const batch_t *b, const site_ctx_t *x, sg_hits_t *out)
{
    const int n = G->n_pad;
    const uint32_t *gA = G->p32, *gC = gA + n, *gG = gC + n, *gT = gG + n, *C = gT + n;
    for (int i = 0; i < G->n_pat; i += CMP_LANES) {
        const vec_t pA = V_LOAD(gA + i), pC = V_LOAD(gC + i), pG = V_LOAD(gG + i), pT = V_LOAD(gT + i), pN = V_LOAD(C + i);
        const vec_t lim[SG_MAX_BULGE + 1] = {V_LOAD(G->limit + i), V_LOAD(G->limit + n + i), V_LOAD(G->limit + 2 * n + i)};
#define MISMATCHES(W)                                                                                         \
    V_ANDNOT(V_OR(V_OR(V_AND(V_SET1((W)[0]), pA), V_AND(V_SET1((W)[1]), pC)),                                  \
                  V_OR(V_AND(V_SET1((W)[2]), pG), V_AND(V_SET1((W)[3]), pT))),                                 \
             pN)
        for (int k = 0; k < b->n; k++) {
            const vec_t near = MISMATCHES(b->w[SLOT(0)][k]);
            unsigned maybe = V_LE(near, lim[0]);
            for (int q = 0; q < G->n_var; q++) {
                const sg_gap_t *g = &G->gap[G->var[q]];
                const vec_t far = MISMATCHES(b->w[SLOT(g->far)][k]);
                maybe |= V_LE(V_AND(near, far), lim[g->skip]);
            }
            if (__builtin_expect(maybe != 0, 0)) FINISH(G, b, k, i, maybe, x, out);
        }
#undef MISMATCHES
    }
}

#undef CMP_FN
#undef CMP_ATTR
#undef CMP_LANES
#undef FINISH
#undef vec_t
#undef V_LOAD
#undef V_SET1
#undef V_AND
#undef V_OR
#undef V_ANDNOT
#undef V_LE
