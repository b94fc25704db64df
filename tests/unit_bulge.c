/* The one-gap aligner (src/find/bulge.h, src/find/align.c) and the cpu
 * mismatch kernel with bulges, against a brute force that states the gap
 * rules in its own terms: a gap's neighbours. A DNA bulge (extra text bases
 * between pattern positions g - 1 and g) needs both neighbours, not both in
 * the PAM; an RNA bulge (pattern positions g .. g + i - 1 unpaired, all of
 * the guide) needs a neighbour on each side. So no gap is in the PAM, none
 * at the guide's end away from the PAM, and a window without a PAM has no
 * gap at either end. Every gap position, both bulge types, PAMs on the
 * left, the right and none, IUPAC letters, N and lowercase text. */
#include "registry.h"
#include "core/chunk.h"
#include "find/align.h"
#include "find/kernels.h"
#include "core/log.h"
#include "brute.h"
#include "unit.h"
#ifdef SG_HAVE_CUDA
#include "cuda/find/backend.h"
#endif
#ifdef SG_HAVE_OPENCL
#include "opencl/find/backend.h"
#endif

#include <ctype.h>
#include <stdint.h>

/* Whether text byte t matches the IUPAC letter (upper case) of a pattern position. */
static int brute_base(char letter, char t, int skip_masked)
{
    if (skip_masked && islower((unsigned char)t)) return 0;
    t = (char)toupper((unsigned char)t);
    return t && strchr("ACGT", t) && strchr(brute_bases(letter), t);
}

/* A pattern in text order as the brute force sees it: letters and PAM flags. */
typedef struct {
    char letter[40];
    uint8_t pam[40];
    int len;
} brute_pat_t;

/* The mismatches of one placement of variant v with gap g against text t,
 * or -1 when the placement breaks a rule or a PAM position does not match
 * (check_pam). */
static int brute_placement(const brute_pat_t *b, int v, int g, const char *t, int check_pam, int skip_masked)
{
    int type = sg_variant_type(v), i = sg_variant_size(v), len = b->len;
    if (type == SG_BULGE_DNA) {
        if (g - 1 < 0 || g > len - 1 || (b->pam[g - 1] && b->pam[g])) return -1;
    } else if (type == SG_BULGE_RNA) {
        if (g - 1 < 0 || g + i > len - 1) return -1;
        for (int k = g; k < g + i; k++)
            if (b->pam[k]) return -1;
    } else if (g) {
        return -1;
    }
    int mm = 0;
    for (int k = 0, off = 0; k < len; k++) {
        if (type == SG_BULGE_DNA && k == g) off += i;       /* the extra text bases */
        if (type == SG_BULGE_RNA && k >= g && k < g + i) {  /* unpaired */
            off--;
            continue;
        }
        int ok = brute_base(b->letter[k], t[k + off], skip_masked);
        if (b->pam[k] && !ok && check_pam) return -1;
        if (!b->pam[k]) mm += !ok;
    }
    return mm;
}

/* Which side the PAM is on in text order: 1 left, 0 right or none. */
static int brute_left(const brute_pat_t *b, char strand)
{
    int any = 0;
    for (int k = 0; k < b->len; k++) any |= b->pam[k];
    return any ? b->pam[0] : strand == '-';
}

/* The best placement (fewest mismatches, then the gap farthest from the
 * PAM) within lim; its gap to *gap. -1: none. */
static int brute_best(const brute_pat_t *b, int v, const char *t, int lim, int check_pam, char strand, int *gap)
{
    int best = -1, left = brute_left(b, strand);
    for (int g = 0; g <= b->len; g++) {
        int mm = brute_placement(b, v, g, t, check_pam, 0);
        if (mm < 0 || mm > lim) continue;
        if (best < 0 || mm < best || (mm == best && left)) best = mm, *gap = g;
    }
    return best;
}

static void random_pattern(brute_pat_t *b, int len, int side)
{
    static const char letters[] = "ACGTACGTACGTRYSWKMBDHVN";
    b->len = len;
    int p = side ? 1 + (int)unit_below(len > 4 ? 4 : len - 1) : 0;
    for (int k = 0; k < len; k++) {
        b->letter[k] = letters[unit_below(sizeof letters - 1)];
        b->pam[k] = side == 1 ? k < p : side == 2 ? k >= len - p : 0;
    }
    b->letter[len] = 0;
}

/* A compiled pattern of b's letters and flags, as the motif compiler makes one in text order. */
static void compile_one(const brute_pat_t *b, char strand, int dna, int rna, sg_pattern_t *p, uint8_t *mask)
{
    memset(p, 0, sizeof *p);
    for (int k = 0; k < b->len; k++) mask[k] = sg_iupac_mask(b->letter[k]);
    p->mask = mask;
    p->pam = b->pam;
    p->len = b->len;
    p->strand = strand;
    int b0 = 0, b1 = b->len, any = 0;
    for (int k = 0; k < b->len; k++) any |= b->pam[k];
    while (b0 < b->len && b->pam[b0]) b0++;
    while (b1 > b0 && b->pam[b1 - 1]) b1--;
    for (int v = 0; v < SG_VARIANTS; v++) {
        p->gap[v] = sg_gap_make(v, b0, b1, brute_left(b, strand), any);
        int limit = sg_variant_type(v) == SG_BULGE_DNA ? dna : rna;
        p->vrank[v] = (v == 0 || sg_variant_size(v) <= limit) && p->gap[v].ok ? (uint32_t)v : SG_NO_RANK;
    }
}

static void random_text(char *t, int n)
{
    static const char bases[] = "ACGTACGTACGTACGTacgtNR";
    for (int i = 0; i < n; i++) t[i] = bases[unit_below(sizeof bases - 1)];
}

/* every window length, PAM side and variant: the aligner's best and all
 * alignments equal the brute force's, on random and on planted sites */
static void test_aligner(void)
{
    uint8_t enc[256], mask[40];
    sg_encode_table(enc, 0);
    for (int len = 2; len <= SG_BULGE_MAX_WINDOW; len++)
        for (int side = 0; side < 3; side++)
            for (int round = 0; round < 40; round++) {
                brute_pat_t b;
                random_pattern(&b, len, side);
                char strand = unit_below(2) ? '+' : '-';
                sg_pattern_t p;
                compile_one(&b, strand, SG_MAX_BULGE, SG_MAX_BULGE, &p, mask);
                for (int v = 0; v < SG_VARIANTS; v++) {
                    char t[64];
                    random_text(t, (int)sizeof t);
                    if (round & 1) /* a site of the pattern's letters, so that cuts compete on few mismatches */
                        for (int k = 0; k < len; k++) t[k] = brute_bases(b.letter[k])[0];
                    int lim = (int)unit_below(4);
                    int gap = -1, want = brute_best(&b, v, t, lim, 0, strand, &gap), n_valid = 0;
                    for (int g = 0; g <= len; g++) {
                        int mm = brute_placement(&b, v, g, t, 0, 0);
                        n_valid += mm >= 0 && mm <= lim;
                    }
                    if (p.vrank[v] == SG_NO_RANK) {
                        /* no cut: the brute force has no placement at all either */
                        int any = 0;
                        for (int g = 0; g <= len; g++) any |= brute_placement(&b, v, g, t, 0, 0) >= 0;
                        CHECK(!any, "len %d side %d v %d: the brute force places a gap the aligner has none for", len, side, v);
                        continue;
                    }
                    sg_aln_t a[SG_MAX_ALIGNMENTS];
                    int n = sg_site_align(&p, v, lim, t, enc, 0, a);
                    CHECK((n > 0) == (want >= 0), "len %d side %d v %d lim %d: aligner %d, brute %d", len, side, v, lim,
                          n ? a[0].mm : -1, want);
                    if (n && want >= 0) {
                        /* the cut is the gap's position in text order: before pattern position cut */
                        CHECK(a[0].mm == want && a[0].cut == gap, "len %d side %d v %d: mm %d cut %d, brute %d gap %d", len,
                              side, v, a[0].mm, a[0].cut, want, gap);
                    }
                    int all = sg_site_align(&p, v, lim, t, enc, 1, a);
                    CHECK(all == n_valid, "len %d side %d v %d: %d alignments, brute %d", len, side, v, all, n_valid);
                    for (int k = 0; k < all; k++) {
                        int mm = brute_placement(&b, v, a[k].cut, t, 0, 0);
                        CHECK(mm == a[k].mm, "len %d v %d cut %d: mm %d, brute %d", len, v, a[k].cut, a[k].mm, mm);
                        if (k) CHECK(strand == '-' ? a[k].cut < a[k - 1].cut : a[k].cut > a[k - 1].cut, "cut order");
                    }
                }
            }
}

/* the gaps at the guide's ends and next to the PAM, one by one */
static void test_gap_ends(void)
{
    /* a 3' PAM (text order: guide, PAM): DNA cuts 1..b1, RNA cuts 1..b1 - i */
    brute_pat_t b = {.len = 10};
    memcpy(b.letter, "ACGTACGNGG", 11);
    memset(b.pam + 7, 1, 3);
    sg_pattern_t p;
    uint8_t mask[40];
    compile_one(&b, '+', 2, 2, &p, mask);
    CHECK(p.gap[1].lo == 1 && p.gap[1].hi == 7 && !p.gap[1].left, "DNA 1, 3' PAM: %d..%d", p.gap[1].lo, p.gap[1].hi);
    CHECK(p.gap[3].lo == 1 && p.gap[3].hi == 6, "RNA 1, 3' PAM: %d..%d", p.gap[3].lo, p.gap[3].hi);
    CHECK(p.gap[4].lo == 1 && p.gap[4].hi == 5, "RNA 2, 3' PAM: %d..%d", p.gap[4].lo, p.gap[4].hi);
    /* the same window on the minus strand: PAM on the left, cuts b0..b1 - 1 (- i) */
    brute_pat_t r = {.len = 10};
    memcpy(r.letter, "CCNCGTACGT", 11);
    memset(r.pam, 1, 3);
    compile_one(&r, '-', 2, 2, &p, mask);
    CHECK(p.gap[2].lo == 3 && p.gap[2].hi == 9 && p.gap[2].left, "DNA 2, 5' PAM: %d..%d", p.gap[2].lo, p.gap[2].hi);
    CHECK(p.gap[4].lo == 3 && p.gap[4].hi == 7, "RNA 2, 5' PAM: %d..%d", p.gap[4].lo, p.gap[4].hi);
    /* no PAM: no gap at either end; a guide too short for an RNA bulge of 2 has none */
    brute_pat_t n = {.len = 4};
    memcpy(n.letter, "ACGT", 5);
    compile_one(&n, '+', 2, 2, &p, mask);
    CHECK(p.gap[1].lo == 1 && p.gap[1].hi == 3, "DNA 1, no PAM: %d..%d", p.gap[1].lo, p.gap[1].hi);
    CHECK(p.gap[3].lo == 1 && p.gap[3].hi == 2 && p.gap[3].ok, "RNA 1, no PAM");
    CHECK(p.gap[4].ok && p.gap[4].lo == 1 && p.gap[4].hi == 1, "RNA 2, no PAM: one cut");
    n.len = 3;
    n.letter[3] = 0;
    compile_one(&n, '+', 2, 2, &p, mask);
    CHECK(!p.gap[4].ok && p.vrank[4] == SG_NO_RANK, "RNA 2 in a 3-base window");
}

/* the rows of an alignment: extra DNA bases under '-' in the guide's row,
 * unpaired guide bases over '-' in the DNA's, mismatches in lower case, and
 * the minus strand reversed and complemented */
static void test_rows(void)
{
    uint8_t enc[256], mask[40];
    sg_encode_table(enc, 0);
    brute_pat_t b = {.len = 10};
    memcpy(b.letter, "ACGTACGNGG", 11);
    memset(b.pam + 7, 1, 3);
    sg_pattern_t p;
    compile_one(&b, '+', 2, 2, &p, mask);
    char rna[64], dna[64];
    sg_aln_t a = {2, 3, 1};
    int n = sg_aln_rows(&p, &a, "ACGTTTCCGAGG", enc, "ACGTACGNGG", 0, rna, dna);
    CHECK(n == 12 && !memcmp(rna, "ACG--TACGNGG", 12) && !memcmp(dna, "ACGTTTcCGAGG", 12), "DNA bulge: %.*s / %.*s", n,
          rna, n, dna);
    a = (sg_aln_t){3, 2, 0};
    n = sg_aln_rows(&p, &a, "ACTACGTGG", enc, "ACGTACGNGG", 0, rna, dna);
    CHECK(n == 10 && !memcmp(rna, "ACGTACGNGG", 10) && !memcmp(dna, "AC-TACGTGG", 10), "RNA bulge: %.*s / %.*s", n, rna,
          n, dna);
    /* minus: the same site read on the other strand */
    brute_pat_t r = {.len = 10};
    memcpy(r.letter, "CCNCGTACGT", 11);
    memset(r.pam, 1, 3);
    compile_one(&r, '-', 2, 2, &p, mask);
    a = (sg_aln_t){3, 7, 0};
    n = sg_aln_rows(&p, &a, "CCACGTAGT", enc, "ACGTACGNGG", 1, rna, dna);
    CHECK(n == 10 && !memcmp(rna, "ACGTACGNGG", 10) && !memcmp(dna, "AC-TACGTGG", 10), "minus RNA bulge: %.*s / %.*s",
          n, rna, n, dna);
}

/* The hits the brute force finds in raw text of records separated by
 * SG_SEP, as keys (start, rank), sorted. */
static void brute_hits(const sg_motif_set_t *ms, const brute_pat_t *bp, const char *raw, size_t n, size_t total,
                       int skip_masked, sg_hits_t *out)
{
    for (int i = 0; i < ms->n_pat; i++) {
        const sg_pattern_t *p = &ms->pat[i];
        for (int v = 0; v < SG_VARIANTS; v++) {
            if (p->vrank[v] == SG_NO_RANK) continue;
            int site = p->len + p->gap[v].delta;
            for (size_t s = 0; s < n && s + (size_t)site <= total; s++) {
                if (memchr(raw + s, SG_SEP, (size_t)site)) continue;
                int best = -1;
                for (int g = 0; g <= p->len; g++) {
                    int mm = brute_placement(&bp[i], v, g, raw + s, 1, skip_masked);
                    if (mm >= 0 && mm <= p->max_mm && (best < 0 || mm < best)) best = mm;
                }
                if (best >= 0) sg_hits_push(out, sg_hit_key(s, p->vrank[v]));
            }
        }
    }
    sg_hits_sort(out);
}

/* A random case of the kernels with bulges: a motif set with a 3', a 5' or
 * no PAM, each pattern as the brute force sees it, and text of records
 * separated by SG_SEP with N runs, IUPAC bases, lowercase and sites planted
 * next to their PAMs, whose first n bases own the sites (total in all); the
 * brute force's hits in want. */
typedef struct {
    sg_motif_set_t ms;
    brute_pat_t bp[12];
    char *raw;
    size_t n, total;
    int side, len, skip;
    sg_hits_t want;
} bulge_case_t;

static void case_make(bulge_case_t *bc, int round, size_t n)
{
    memset(bc, 0, sizeof *bc);
    sg_motif_set_t *ms = &bc->ms;
    char err[256];
    /* windows up to SG_BULGE_MAX_WINDOW bases: the guide and a 3-base PAM, or the guide alone */
    int side = round % 3, len = 8 + (int)unit_below(side ? 22 : 25), skip = round % 5 == 4;
    const char *pam5 = side == 1 ? "TTV" : NULL, *pam3 = side == 2 ? "NGG" : NULL;
    CHECK(sg_motif_set_window(ms, pam5, pam3, (int)unit_below(3), err, sizeof err) == 0, "%s", err);
    char guides[6][40];
    int n_guides = 1 + (int)unit_below(5);
    for (int g = 0; g < n_guides; g++) {
        for (int k = 0; k < len; k++) guides[g][k] = "ACGTACGTACGTRN"[unit_below(14)];
        guides[g][len] = 0;
        CHECK(sg_motif_add(ms, NULL, guides[g], err, sizeof err) == 0, "%s", err);
    }
    CHECK(sg_motif_set_bulges(ms, (int)unit_below(3), 1 + (int)unit_below(2), err, sizeof err) == 0, "%s", err);
    sg_motif_compile(ms, SG_STRAND_BOTH);
    /* the brute force's own view of each pattern: the motif's letters, reverse complemented on '-' */
    brute_pat_t *bp = bc->bp;
    for (int i = 0; i < ms->n_pat; i++) {
        const sg_pattern_t *p = &ms->pat[i];
        char window[48];
        snprintf(window, sizeof window, "%s%s%s", pam5 ? pam5 : "", ms->motif[p->motif].seq, pam3 ? pam3 : "");
        char *w = p->strand == '-' ? brute_revcomp(window) : strdup(window);
        bp[i].len = p->len;
        memcpy(bp[i].letter, w, (size_t)p->len + 1);
        for (int k = 0; k < p->len; k++) bp[i].pam[k] = p->pam ? p->pam[k] : 0;
        free(w);
    }
    size_t total = n + ms->max_len + 8;
    char *raw = sg_malloc(total + 1);
    random_text(raw, (int)total);
    for (size_t s = 0; s + 40 < n; s += 13 + unit_below(60)) {
        /* a planted site: a pattern's letters, a base dropped or two added */
        const brute_pat_t *b = &bp[unit_below((int)ms->n_pat)];
        size_t o = s;
        int cut = (int)unit_below((int)b->len), kind = (int)unit_below(3);
        for (int k = 0; k < b->len && o < total; k++) {
            if (kind == 1 && k == cut) raw[o++] = "ACGT"[unit_below(4)];
            if (kind == 2 && k == cut) continue;
            raw[o++] = brute_bases(b->letter[k])[unit_below((int)strlen(brute_bases(b->letter[k])))];
        }
    }
    for (size_t s = unit_below(200); s < total; s += 100 + unit_below(400)) raw[s] = SG_SEP;
    raw[total] = 0;
    bc->raw = raw;
    bc->n = n;
    bc->total = total;
    bc->side = side;
    bc->len = len;
    bc->skip = skip;
    /* the brute force over small texts only (larger ones are compared with the cpu backend) */
    if (n <= 1u << 16) brute_hits(&bc->ms, bc->bp, raw, n, total, skip, &bc->want);
}

static void case_free(bulge_case_t *k)
{
    free(k->raw);
    sg_hits_free(&k->want);
    sg_motif_set_free(&k->ms);
}

static int same_hits(const sg_hits_t *a, const sg_hits_t *b)
{
    return a->n == b->n && (!a->n || !memcmp(a->a, b->a, a->n * sizeof *a->a));
}

/* sg_mm_scan with bulges at every instruction set, against the brute force */
static void test_kernel(void)
{
    static const char *const simd[] = {"none", "avx2", "avx512"};
    for (int round = 0; round < 36; round++) {
        bulge_case_t k;
        case_make(&k, round, 300 + unit_below(2000));
        uint8_t *enc = sg_malloc(k.total + SG_ENC_PAD + 64);
        sg_encode(k.skip, k.raw, k.total, enc);
        memset(enc + k.total, SG_ENC_INVALID, SG_ENC_PAD + 64);
        int *ids = sg_malloc((size_t)k.ms.n_pat * sizeof *ids);
        for (int i = 0; i < k.ms.n_pat; i++) ids[i] = i;
        for (int l = 0; l < 3; l++) {
            setenv("SEQGPU_CPU_SIMD", simd[l], 1);
            sg_mm_t *mm = sg_mm_build(k.ms.pat, ids, k.ms.n_pat);
            sg_hits_t got = {0};
            sg_mm_scan(mm, enc, k.raw, k.total, k.n, 0, &got);
            sg_hits_sort(&got);
            CHECK(same_hits(&got, &k.want), "round %d (%s, PAM side %d, len %d): %zu hits, brute %zu", round, simd[l],
                  k.side, k.len, got.n, k.want.n);
            sg_hits_free(&got);
            sg_mm_free(mm);
        }
        unsetenv("SEQGPU_CPU_SIMD");
        CHECK(k.want.n > 0 || round % 6, "round %d: no site at all", round);
        free(ids);
        free(enc);
        case_free(&k);
    }
}

/* The case as one chunk: its text, the first n bases owned. */
static sg_chunk_t *case_chunk(const bulge_case_t *k)
{
    sg_chunk_t *c = sg_chunk_new(k->total + 1);
    memcpy(c->seq, k->raw, k->total);
    c->len = k->n;
    c->ov = k->total - k->n;
    return c;
}

static sg_backend_t *open_backend(sg_backend_ctor ctor, const bulge_case_t *k)
{
    char err[1024] = "";
    sg_backend_opts_t o = {.motifs = &k->ms, .skip_masked = k->skip, .kernel = "auto", .n_threads = 1, .input_bases = -1};
    sg_backend_t *be = NULL;
    int r = ctor(&o, &be, err, sizeof err);
    CHECK(r == 0, "the backend does not start: %s", err);
    return r == 0 ? be : NULL;
}

/* The chunk's hits, scanned in three ranges of starts cut at random (as
 * find's memory bound scans a chunk): a site belongs to the range that
 * holds its start, whatever its anchor. */
static void scan_chunk(sg_backend_t *be, const sg_chunk_t *c, sg_hits_t *out)
{
    size_t a = (size_t)unit_below((int)c->len + 1), b = (size_t)unit_below((int)c->len + 1);
    const size_t cut[4] = {0, a < b ? a : b, a < b ? b : a, c->len};
    for (int i = 0; i < 3; i++)
        CHECK(be->scan(be, c, cut[i], cut[i + 1], out) == 0, "%s: the scan of %zu-%zu failed", be->name, cut[i],
              cut[i + 1]);
    sg_hits_sort(out);
}

/* A backend's bulge sites, chunk by chunk, against the brute force's
 * (the cases of test_kernel), and over big chunks of 2.5 Mb against the cpu
 * backend's (cuda: device windows of 1 Mb, with SEQGPU_CUDA_MEM_LIMIT, so
 * that sites lie across their seams) */
static void device_rounds(sg_backend_ctor ctor, int rounds, int big)
{
    for (int round = 0; round < rounds; round++) {
        bulge_case_t k;
        case_make(&k, round, 300 + unit_below(4000));
        sg_backend_t *be = open_backend(ctor, &k);
        if (be) {
            sg_chunk_t *c = case_chunk(&k);
            sg_hits_t got = {0};
            scan_chunk(be, c, &got);
            CHECK(same_hits(&got, &k.want), "round %d (%s, PAM side %d, len %d): %zu hits, brute %zu", round, be->name,
                  k.side, k.len, got.n, k.want.n);
            sg_hits_free(&got);
            sg_chunk_free(c);
            be->free(be);
        }
        case_free(&k);
    }
    setenv("SEQGPU_CUDA_MEM_LIMIT", "8M", 1);
    for (int round = 0; round < big; round++) {
        bulge_case_t k;
        case_make(&k, round, (size_t)5 << 19); /* 2.5 Mb: windows end at 1 Mb and 2 Mb */
        sg_backend_t *be = open_backend(ctor, &k), *cpu = open_backend(sg_backend_cpu, &k);
        if (be && cpu) {
            sg_chunk_t *c = case_chunk(&k);
            sg_hits_t got = {0}, want = {0};
            scan_chunk(be, c, &got);
            scan_chunk(cpu, c, &want);
            CHECK(same_hits(&got, &want) && want.n, "big round %d (%s, PAM side %d): %zu hits, cpu %zu", round,
                  be->name, k.side, got.n, want.n);
            sg_hits_free(&got);
            sg_hits_free(&want);
            sg_chunk_free(c);
        }
        if (be) be->free(be);
        if (cpu) cpu->free(cpu);
        case_free(&k);
    }
    unsetenv("SEQGPU_CUDA_MEM_LIMIT");
}

/* the cpu backend's, its chunks scanned in ranges */
static void test_cpu_ranges(void) { device_rounds(sg_backend_cpu, 24, 0); }

#ifdef SG_HAVE_CUDA
static void test_cuda(void) { device_rounds(sg_backend_cuda, 24, 3); }
#endif
#ifdef SG_HAVE_OPENCL
static void test_opencl(void) { device_rounds(sg_backend_opencl, 12, 0); }

/* Why the OpenCL backend cannot start here, or NULL. */
static const char *opencl_absent(void)
{
    static char why[512];
    sg_motif_set_t ms = {0};
    char err[256];
    sg_backend_t *be = NULL;
    if (sg_motif_add(&ms, NULL, "ACGT", err, sizeof err) < 0) return "no motif";
    sg_motif_compile(&ms, SG_STRAND_BOTH);
    sg_backend_opts_t o = {.motifs = &ms, .kernel = "auto", .n_threads = 1, .input_bases = -1};
    int r = sg_backend_opencl(&o, &be, why, sizeof why);
    if (r == 0) be->free(be);
    sg_motif_set_free(&ms);
    return r == 0 ? NULL : why;
}
#endif

int main(void)
{
    sg_log_init("unit_bulge", 1);
    RUN(test_gap_ends);
    RUN(test_rows);
    RUN(test_aligner);
    RUN(test_kernel);
    RUN(test_cpu_ranges);
#ifdef SG_HAVE_CUDA
    unit_needs("cuda", unit_cuda_absent());
    RUN(test_cuda);
#else
    unit_needs("cuda", "this build has no CUDA");
    NOT_RUN(test_cuda);
#endif
#ifdef SG_HAVE_OPENCL
    unit_needs("opencl", opencl_absent());
    RUN(test_opencl);
#else
    unit_needs("opencl", "this build has no OpenCL");
    NOT_RUN(test_opencl);
#endif
    return UNIT_SUMMARY();
}
