#define _GNU_SOURCE
#include "find/motif.h"
#include "core/cli.h"
#include "core/log.h"
#include "formats/seqio.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/bgzf.h>
#include <htslib/kstring.h>

uint8_t sg_iupac_mask(int c)
{
    switch (toupper(c)) {
    case 'A': return SG_BASE_A;
    case 'C': return SG_BASE_C;
    case 'G': return SG_BASE_G;
    case 'T': return SG_BASE_T;
    case 'R': return SG_BASE_A | SG_BASE_G;
    case 'Y': return SG_BASE_C | SG_BASE_T;
    case 'S': return SG_BASE_C | SG_BASE_G;
    case 'W': return SG_BASE_A | SG_BASE_T;
    case 'K': return SG_BASE_G | SG_BASE_T;
    case 'M': return SG_BASE_A | SG_BASE_C;
    case 'B': return SG_BASE_C | SG_BASE_G | SG_BASE_T;
    case 'D': return SG_BASE_A | SG_BASE_G | SG_BASE_T;
    case 'H': return SG_BASE_A | SG_BASE_C | SG_BASE_T;
    case 'V': return SG_BASE_A | SG_BASE_C | SG_BASE_G;
    case 'N': return SG_BASE_A | SG_BASE_C | SG_BASE_G | SG_BASE_T;
    default: return 0;
    }
}

static void describe_char(int c, char *out, size_t n)
{
    if (isgraph(c)) snprintf(out, n, "'%c'", c);
    else snprintf(out, n, "byte 0x%02x", (unsigned char)c);
}

/* Base sets of an IUPAC string; 0, or SG_ERR_INPUT naming the bad letter. */
static int parse_iupac(const char *what, const char *seq, uint8_t *mask, char *err, size_t errsz)
{
    for (size_t i = 0; seq[i]; i++) {
        mask[i] = sg_iupac_mask((unsigned char)seq[i]);
        if (!mask[i]) {
            char c[16];
            describe_char((unsigned char)seq[i], c, sizeof c);
            snprintf(err, errsz, "invalid letter %s at position %zu of %s '%s' (IUPAC DNA codes are ACGTRYSWKMBDHVN)", c,
                     i + 1, what, seq);
            return SG_ERR_INPUT;
        }
    }
    return 0;
}

int sg_motif_set_window(sg_motif_set_t *ms, const char *pam5, const char *pam3, int max_mm, char *err, size_t errsz)
{
    const char *pam[2] = {pam5 ? pam5 : "", pam3 ? pam3 : ""};
    for (int i = 0; i < 2; i++) {
        uint8_t mask[64];
        if (strlen(pam[i]) > sizeof mask - 1) {
            snprintf(err, errsz, "PAM '%.20s...' is longer than %zu bases", pam[i], sizeof mask - 1);
            return SG_ERR_INPUT;
        }
        if (parse_iupac("PAM", pam[i], mask, err, errsz) < 0) return SG_ERR_INPUT;
    }
    if (max_mm < 0 || max_mm > SG_MAX_MISMATCHES) {
        snprintf(err, errsz, "invalid mismatch limit %d (0 to %d)", max_mm, SG_MAX_MISMATCHES);
        return SG_ERR_INPUT;
    }
    free(ms->pam5);
    free(ms->pam3);
    ms->pam5 = *pam[0] ? sg_strdup(pam[0]) : NULL;
    ms->pam3 = *pam[1] ? sg_strdup(pam[1]) : NULL;
    ms->max_mm = max_mm;
    return 0;
}

/* Take a window whose masks, PAM flags (or NULL) and strings are already
 * checked and allocated; check the limit against the counted positions. */
static int add_window(sg_motif_set_t *ms, sg_motif_t *w, char *err, size_t errsz)
{
    int counted = 0;
    for (int i = 0; i < w->len; i++) counted += !(w->pam && w->pam[i]);
    int bad_limit = counted > 0 && w->max_mm > 0 && w->max_mm >= counted;
    if (bad_limit || counted == 0) {
        if (bad_limit)
            snprintf(err, errsz, "motif '%s' allows %d mismatches; a limit must be below the motif's %d bases", w->seq,
                     w->max_mm, counted);
        else
            snprintf(err, errsz, "motif '%s' has no base outside its PAM", w->window);
        free(w->name);
        free(w->seq);
        free(w->window);
        free(w->query);
        free(w->id);
        free(w->mask);
        free(w->pam);
        return SG_ERR_INPUT;
    }
    w->palindrome = 1;
    for (int i = 0; i < w->len; i++) {
        int j = w->len - 1 - i;
        if (w->mask[i] != sg_mask_complement(w->mask[j]) || (w->pam && w->pam[i] != w->pam[j])) w->palindrome = 0;
    }
    if (ms->n_motif == ms->m_motif) {
        ms->m_motif = ms->m_motif ? 2 * ms->m_motif : 8;
        ms->motif = sg_realloc(ms->motif, ms->m_motif * sizeof *ms->motif);
    }
    ms->motif[ms->n_motif++] = *w;
    return 0;
}

/* The window with N at the PAM positions, upper case. */
static char *make_query(const char *window, const uint8_t *pam, int len)
{
    char *q = sg_malloc(len + 1);
    for (int i = 0; i < len; i++) q[i] = pam && pam[i] ? 'N' : (char)toupper((unsigned char)window[i]);
    q[len] = 0;
    return q;
}

/* Whether every letter of the PAM-long start (at_end 0) or end of seq is
 * one the PAM allows there: a guide given with its PAM. */
static int carries_pam(const char *seq, const char *pam, int at_end)
{
    size_t n = strlen(seq), k = strlen(pam);
    if (n <= k) return 0;
    const char *s = at_end ? seq + n - k : seq;
    for (size_t i = 0; i < k; i++) {
        uint8_t g = sg_iupac_mask((unsigned char)s[i]), p = sg_iupac_mask((unsigned char)pam[i]);
        if (!g || (g & ~p)) return 0;
    }
    return 1;
}

static int add_limited(sg_motif_set_t *ms, const char *name, const char *seq, int max_mm, char *err, size_t errsz)
{
    size_t len = strlen(seq);
    size_t l5 = ms->pam5 ? strlen(ms->pam5) : 0, l3 = ms->pam3 ? strlen(ms->pam3) : 0;
    if (len == 0) {
        sg_name_buf_t nb;
        snprintf(err, errsz, "empty motif%s%s", name ? " " : "", name ? sg_name_shown(name, &nb) : "");
        return SG_ERR_INPUT;
    }
    char *given = NULL;
    if (ms->guides_include_pam) {
        /* the guide as given carries its PAM: cut it off (the window puts the PAM back, as a pattern) */
        sg_name_buf_t nb;
        if (len <= l5 + l3) {
            snprintf(err, errsz, "guide '%s' has %zu bases, no more than its PAM%s (%zu): nothing is left of it once "
                     "--guides-include-pam cuts the PAM off", sg_name_shown(seq, &nb), len, l5 && l3 ? "s" : "", l5 + l3);
            return SG_ERR_INPUT;
        }
        for (int at_end = 0; at_end < 2; at_end++) {
            const char *pam = at_end ? ms->pam3 : ms->pam5;
            if (pam && !carries_pam(seq, pam, at_end)) {
                snprintf(err, errsz, "guide '%s' does not %s with a match of the PAM %s (--guides-include-pam: every "
                         "guide is given with its PAM)", sg_name_shown(seq, &nb), at_end ? "end" : "begin", pam);
                return SG_ERR_INPUT;
            }
        }
        given = sg_strdup(seq);
        given[len - l3] = 0;
        len -= l5 + l3;
        if (!name || !*name) name = seq;
        seq = given + l5;
    }
    if (len + l5 + l3 > SG_MOTIF_MAX_LEN) {
        snprintf(err, errsz, "motif '%.20s...' is %zu bases long%s; the longest allowed is %d", seq, len + l5 + l3,
                 l5 + l3 ? " with its PAMs" : "", SG_MOTIF_MAX_LEN);
        free(given);
        return SG_ERR_INPUT;
    }
    if ((l5 || l3) && ms->n_motif && len != strlen(ms->motif[0].seq)) {
        /* a run mixing guides with and without their PAM would search windows of both lengths in silence */
        sg_name_buf_t nb, nb0;
        snprintf(err, errsz, "guide '%s' has %zu bases where the first guide ('%s') has %zu: guides next to a PAM "
                 "must all be one length (search each length in a run of its own)", sg_name_shown(seq, &nb), len,
                 sg_name_shown(ms->motif[0].seq, &nb0), strlen(ms->motif[0].seq));
        free(given);
        return SG_ERR_INPUT;
    }
    sg_motif_t w = {.len = (int)(l5 + len + l3), .max_mm = max_mm};
    w.mask = sg_malloc(w.len);
    if (parse_iupac("motif", seq, w.mask + l5, err, errsz) < 0) {
        free(w.mask);
        free(given);
        return SG_ERR_INPUT;
    }
    w.seq = sg_strdup(seq);
    w.name = sg_strdup(name && *name ? name : seq);
    free(given);
    seq = w.seq;
    if (l5 + l3) {
        /* cannot fail: sg_motif_set_window checked the PAMs */
        parse_iupac("PAM", ms->pam5 ? ms->pam5 : "", w.mask, err, errsz);
        parse_iupac("PAM", ms->pam3 ? ms->pam3 : "", w.mask + l5 + len, err, errsz);
        w.pam = sg_calloc(w.len, 1);
        memset(w.pam, 1, l5);
        memset(w.pam + l5 + len, 1, l3);
        w.window = sg_malloc(w.len + 1);
        snprintf(w.window, w.len + 1, "%s%s%s", ms->pam5 ? ms->pam5 : "", seq, ms->pam3 ? ms->pam3 : "");
    } else {
        w.window = sg_strdup(seq);
    }
    w.query = make_query(w.window, w.pam, w.len);
    return add_window(ms, &w, err, errsz);
}

int sg_motif_add(sg_motif_set_t *ms, const char *name, const char *seq, char *err, size_t errsz)
{
    return add_limited(ms, name, seq, ms->max_mm, err, errsz);
}

int sg_motif_add_guide(sg_motif_set_t *ms, const char *pattern, const char *guide, int max_mm, const char *id,
                       char *err, size_t errsz)
{
    size_t len = strlen(guide);
    if (len != strlen(pattern)) {
        snprintf(err, errsz, "guide '%s' has %zu bases where the pattern '%s' has %zu", guide, len, pattern,
                 strlen(pattern));
        return SG_ERR_INPUT;
    }
    if (len == 0 || len > SG_MOTIF_MAX_LEN) {
        snprintf(err, errsz, "a guide must have 1 to %d bases", SG_MOTIF_MAX_LEN);
        return SG_ERR_INPUT;
    }
    if (max_mm < 0 || max_mm > SG_MAX_MISMATCHES) {
        snprintf(err, errsz, "guide '%s': invalid mismatch limit %d (0 to %d)", guide, max_mm, SG_MAX_MISMATCHES);
        return SG_ERR_INPUT;
    }
    uint8_t *pm = sg_malloc(len + 1), *gm = sg_malloc(len + 1);
    int r = parse_iupac("pattern", pattern, pm, err, errsz);
    if (r == 0) r = parse_iupac("guide", guide, gm, err, errsz);
    for (size_t i = 0; r == 0 && i < len; i++)
        if (gm[i] != 0xf && pm[i] != 0xf) {
            snprintf(err, errsz, "position %zu is '%c' in the pattern and '%c' in guide '%s': the pattern must be N "
                     "wherever the guides have a base", i + 1, pattern[i], guide[i], guide);
            r = SG_ERR_INPUT;
        }
    if (r < 0) {
        free(pm);
        free(gm);
        return r;
    }
    sg_motif_t w = {.len = (int)len, .max_mm = max_mm, .mask = gm, .pam = sg_calloc(len, 1)};
    w.window = sg_malloc(len + 1);
    w.seq = sg_malloc(len + 1);
    for (size_t i = 0; i < len; i++) {
        w.seq[i] = (char)toupper((unsigned char)guide[i]);
        w.pam[i] = gm[i] == 0xf; /* an N in the guide: the pattern's letter, matched exactly */
        if (w.pam[i]) gm[i] = pm[i];
        w.window[i] = (char)toupper((unsigned char)(w.pam[i] ? pattern[i] : guide[i]));
    }
    w.seq[len] = w.window[len] = 0;
    free(pm);
    w.query = make_query(w.window, w.pam, w.len);
    w.id = id ? sg_strdup(id) : NULL;
    w.name = sg_strdup(id ? id : w.query);
    return add_window(ms, &w, err, errsz);
}

/* Strip trailing CR, spaces and tabs. */
static void chomp(kstring_t *s)
{
    while (s->l && (s->s[s->l - 1] == '\r' || s->s[s->l - 1] == ' ' || s->s[s->l - 1] == '\t'))
        s->s[--s->l] = 0;
}

int sg_motif_load(sg_motif_set_t *ms, const char *path, char *err, size_t errsz)
{
    BGZF *fp = bgzf_open(path, "r");
    if (!fp) {
        snprintf(err, errsz, "cannot read motif file '%s': %s", path, strerror(errno));
        return SG_ERR_INPUT;
    }
    kstring_t line = {0}, name = {0}, seq = {0};
    int n = 0, ret = 0, fasta = -1, r;
    long lineno = 0;
    char sub[512];
    while ((r = bgzf_getline(fp, '\n', &line)) >= 0) {
        if (++lineno == 1) { /* a UTF-8 byte-order mark is no part of a name */
            size_t bom;
            char z[256];
            if ((ret = sg_text_start(line.s, line.l, &bom, z, sizeof z)) < 0) {
                snprintf(sub, sizeof sub, "the file is %s", z);
                break;
            }
            memmove(line.s, line.s + bom, line.l - bom + 1);
            line.l -= bom;
        }
        chomp(&line);
        if (line.l == 0 || (fasta != 1 && line.s[0] == '#')) continue;
        if (fasta < 0) fasta = line.s[0] == '>';
        if (fasta) {
            if (line.s[0] == '>') {
                if (name.l || seq.l) {
                    if ((ret = sg_motif_add(ms, name.s, seq.l ? seq.s : "", sub, sizeof sub)) < 0) break;
                    n++;
                }
                name.l = seq.l = 0;
                size_t w = strcspn(line.s + 1, " \t");
                kputsn(line.s + 1, w, &name);
                kputs("", &seq);
            } else {
                kputsn(line.s, line.l, &seq);
            }
        } else {
            char *tab = strchr(line.s, '\t'), *tab2 = tab ? strchr(tab + 1, '\t') : NULL;
            long limit = ms->max_mm;
            if (tab2 && (strchr(tab2 + 1, '\t') || sg_parse_int(tab2 + 1, 0, SG_MAX_MISMATCHES, &limit) < 0)) {
                snprintf(sub, sizeof sub, "expected '[name<TAB>]motif' or 'name<TAB>motif<TAB>max_mismatches' "
                         "(0 to %d)", SG_MAX_MISMATCHES);
                ret = SG_ERR_INPUT;
                break;
            }
            if (tab) *tab = 0;
            if (tab2) *tab2 = 0;
            if ((ret = add_limited(ms, tab ? line.s : NULL, tab ? tab + 1 : line.s, (int)limit, sub, sizeof sub)) < 0)
                break;
            n++;
        }
    }
    if (ret == 0 && r < -1) {
        snprintf(sub, sizeof sub, "read error (truncated or corrupt file)");
        ret = SG_ERR_INPUT;
    }
    if (ret == 0 && fasta == 1 && (name.l || seq.l)) {
        if ((ret = sg_motif_add(ms, name.s, seq.l ? seq.s : "", sub, sizeof sub)) == 0) n++;
    }
    if (ret == 0 && n == 0) {
        snprintf(sub, sizeof sub, "no motifs in the file");
        ret = SG_ERR_INPUT;
    }
    if (ret < 0) snprintf(err, errsz, "motif file '%s', line %ld: %s", path, lineno, sub);
    bgzf_close(fp);
    free(line.s);
    free(name.s);
    free(seq.s);
    return ret < 0 ? ret : n;
}

int sg_motif_set_bulges(sg_motif_set_t *ms, int dna, int rna, char *err, size_t errsz)
{
    if (dna < 0 || dna > SG_MAX_BULGE || rna < 0 || rna > SG_MAX_BULGE) {
        snprintf(err, errsz, "invalid bulge sizes %d (DNA) and %d (RNA): 0 to %d each", dna, rna, SG_MAX_BULGE);
        return SG_ERR_INPUT;
    }
    for (int i = 0; (dna || rna) && i < ms->n_motif; i++) {
        const sg_motif_t *m = &ms->motif[i];
        int lead = 0, trail = 0, inside = 0;
        while (m->pam && lead < m->len && m->pam[lead]) lead++;
        while (m->pam && trail < m->len - lead && m->pam[m->len - 1 - trail]) trail++;
        for (int j = lead; m->pam && j < m->len - trail; j++) inside += m->pam[j];
        sg_name_buf_t nb, nw;
        if (m->len > SG_BULGE_MAX_WINDOW) {
            snprintf(err, errsz, "motif '%s': bulges are searched in windows (motif and PAM) of up to %d bases; "
                     "this one has %d", sg_name_shown(m->seq, &nb), SG_BULGE_MAX_WINDOW, m->len);
            return SG_ERR_INPUT;
        }
        if (inside || (lead && trail)) {
            snprintf(err, errsz, "motif '%s' (window %s): bulges need the PAM at one end of the window, %s",
                     sg_name_shown(m->seq, &nb), sg_name_shown(m->window, &nw), inside ? "not inside it (a Cas-OFFinder guide has N only over the PAM)"
                                       : "not at both (a 5' or a 3' PAM)");
            return SG_ERR_INPUT;
        }
    }
    ms->dna_bulge = dna;
    ms->rna_bulge = rna;
    return 0;
}

int sg_motif_guides_carry_pam(const sg_motif_set_t *ms)
{
    /* a PAM of N only (NNN) is carried by any guide: no sign of a mistake */
    int telling = (ms->pam5 && ms->pam5[strspn(ms->pam5, "Nn")]) || (ms->pam3 && ms->pam3[strspn(ms->pam3, "Nn")]);
    if (!ms->n_motif || !telling) return 0;
    for (int i = 0; i < ms->n_motif; i++)
        if ((ms->pam5 && !carries_pam(ms->motif[i].seq, ms->pam5, 0)) || (ms->pam3 && !carries_pam(ms->motif[i].seq, ms->pam3, 1)))
            return 0;
    return 1;
}

/* The variants of pattern p searched with bulges of up to dna and rna
 * bases, and their geometry: the guide is the counted run between the
 * PAM positions, on the side where the PAM is in text order (a window
 * without one is anchored at its motif's 3' end). */
static void pattern_gaps(sg_pattern_t *p, int dna, int rna)
{
    int b0 = 0, b1 = p->len;
    while (p->pam && b0 < p->len && p->pam[b0]) b0++;
    while (p->pam && b1 > b0 && p->pam[b1 - 1]) b1--;
    int has_pam = b0 > 0 || b1 < p->len, left = has_pam ? b0 > 0 : p->strand == '-';
    for (int v = 0; v < SG_VARIANTS; v++) {
        int size = sg_variant_size(v), limit = sg_variant_type(v) == SG_BULGE_DNA ? dna : rna;
        p->gap[v] = sg_gap_make(v, b0, b1, left, has_pam);
        p->vrank[v] = (v == 0 || size <= limit) && p->gap[v].ok ? 0 : SG_NO_RANK;
    }
}

/* A variant of a pattern, for the ranking of its sites. */
typedef struct {
    sg_pattern_t *p;
    int v, len; /* the site's length */
} ranked_t;

static int cmp_rank(const void *a, const void *b)
{
    const ranked_t *x = a, *y = b;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    if (x->p->strand != y->p->strand) return x->p->strand < y->p->strand ? -1 : 1; /* '+' < '-' < '.' */
    if (x->p->motif != y->p->motif) return x->p->motif < y->p->motif ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

void sg_motif_compile(sg_motif_set_t *ms, int strands)
{
    size_t total = 0;
    for (int i = 0; i < ms->n_motif; i++) total += 2 * (size_t)ms->motif[i].len;
    free(ms->pat);
    free(ms->rc);
    ms->pat = sg_calloc(2 * (size_t)ms->n_motif, sizeof *ms->pat);
    ms->rc = sg_malloc(total + 1);
    ms->n_pat = 0;
    ms->min_len = ms->n_motif ? SG_MOTIF_MAX_LEN : 0;
    ms->max_len = 0;
    ms->approx = 0;
    ms->strands = strands;
    uint8_t *rc = ms->rc;
    for (int i = 0; i < ms->n_motif; i++) {
        sg_motif_t *m = &ms->motif[i];
        if (m->len < ms->min_len) ms->min_len = m->len;
        if (m->len + ms->dna_bulge > ms->max_len) ms->max_len = m->len + ms->dna_bulge;
        if (m->max_mm || m->pam) ms->approx = 1;
        /* the minus strand: the reverse complement of the whole window, PAM flags reversed */
        uint8_t *rc_mask = rc, *rc_pam = m->pam ? rc + m->len : NULL;
        for (int j = 0; j < m->len; j++) {
            rc_mask[j] = sg_mask_complement(m->mask[m->len - 1 - j]);
            if (rc_pam) rc_pam[j] = m->pam[m->len - 1 - j];
        }
        sg_pattern_t fwd = {.mask = m->mask, .pam = m->pam, .len = m->len, .max_mm = m->max_mm, .motif = i, .strand = '+'};
        sg_pattern_t rev = {.mask = rc_mask, .pam = rc_pam, .len = m->len, .max_mm = m->max_mm, .motif = i, .strand = '-'};
        if (m->palindrome) {
            fwd.strand = '.';
            ms->pat[ms->n_pat++] = fwd;
        } else {
            if (strands & SG_STRAND_FWD) ms->pat[ms->n_pat++] = fwd;
            if (strands & SG_STRAND_REV) ms->pat[ms->n_pat++] = rev;
        }
        rc += 2 * (size_t)m->len;
    }
    ranked_t *order = sg_malloc((SG_VARIANTS * (size_t)ms->n_pat + 1) * sizeof *order);
    size_t n = 0;
    for (int i = 0; i < ms->n_pat; i++) {
        sg_pattern_t *p = &ms->pat[i];
        pattern_gaps(p, ms->dna_bulge, ms->rna_bulge);
        for (int v = 0; v < SG_VARIANTS; v++)
            if (p->vrank[v] != SG_NO_RANK) order[n++] = (ranked_t){p, v, p->len + p->gap[v].delta};
    }
    qsort(order, n, sizeof *order, cmp_rank);
    for (size_t k = 0; k < n; k++) order[k].p->vrank[order[k].v] = (uint32_t)k;
    for (int i = 0; i < ms->n_pat; i++) ms->pat[i].rank = ms->pat[i].vrank[0];
    ms->n_rank = (int)n;
    free(order);
}

void sg_motif_set_free(sg_motif_set_t *ms)
{
    for (int i = 0; i < ms->n_motif; i++) {
        sg_motif_t *m = &ms->motif[i];
        free(m->name);
        free(m->seq);
        free(m->window);
        free(m->query);
        free(m->id);
        free(m->mask);
        free(m->pam);
    }
    free(ms->motif);
    free(ms->pam5);
    free(ms->pam3);
    free(ms->pat);
    free(ms->rc);
    memset(ms, 0, sizeof *ms);
}
