#define _GNU_SOURCE
#include "motif.h"
#include "log.h"
#include "../formats/seqio.h"

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

int sg_motif_add(sg_motif_set_t *ms, const char *name, const char *seq, char *err, size_t errsz)
{
    size_t len = strlen(seq);
    if (len == 0) {
        snprintf(err, errsz, "empty motif%s%s", name ? " " : "", name ? name : "");
        return SG_ERR_INPUT;
    }
    if (len > SG_MOTIF_MAX_LEN) {
        snprintf(err, errsz, "motif '%.20s...' is %zu bases long; the longest allowed is %d",
                 seq, len, SG_MOTIF_MAX_LEN);
        return SG_ERR_INPUT;
    }
    uint8_t *mask = sg_malloc(len);
    for (size_t i = 0; i < len; i++) {
        mask[i] = sg_iupac_mask((unsigned char)seq[i]);
        if (!mask[i]) {
            char what[16];
            describe_char((unsigned char)seq[i], what, sizeof what);
            snprintf(err, errsz, "invalid letter %s at position %zu of motif '%s' (IUPAC DNA codes are ACGTRYSWKMBDHVN)",
                     what, i + 1, seq);
            free(mask);
            return SG_ERR_INPUT;
        }
    }
    if (ms->n_motif == ms->m_motif) {
        ms->m_motif = ms->m_motif ? 2 * ms->m_motif : 8;
        ms->motif = sg_realloc(ms->motif, ms->m_motif * sizeof *ms->motif);
    }
    sg_motif_t *m = &ms->motif[ms->n_motif++];
    m->seq = sg_strdup(seq);
    m->name = sg_strdup(name && *name ? name : seq);
    m->mask = mask;
    m->len = (int)len;
    m->palindrome = 1;
    for (size_t i = 0; i < len; i++)
        if (mask[i] != sg_mask_complement(mask[len - 1 - i])) m->palindrome = 0;
    return 0;
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
            char *tab = strchr(line.s, '\t');
            if (tab && strchr(tab + 1, '\t')) {
                snprintf(sub, sizeof sub, "expected '[name<TAB>]motif', found more than two columns");
                ret = SG_ERR_INPUT;
                break;
            }
            if (tab) *tab = 0;
            if ((ret = sg_motif_add(ms, tab ? line.s : NULL, tab ? tab + 1 : line.s, sub, sizeof sub)) < 0) break;
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

static int cmp_rank(const void *a, const void *b)
{
    const sg_pattern_t *x = *(sg_pattern_t *const *)a, *y = *(sg_pattern_t *const *)b;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    if (x->strand != y->strand) return x->strand < y->strand ? -1 : 1; /* '+' < '-' < '.' */
    return (x->motif > y->motif) - (x->motif < y->motif);
}

void sg_motif_compile(sg_motif_set_t *ms, int strands)
{
    size_t total = 0;
    for (int i = 0; i < ms->n_motif; i++) total += ms->motif[i].len;
    free(ms->pat);
    free(ms->rc);
    ms->pat = sg_calloc(2 * (size_t)ms->n_motif, sizeof *ms->pat);
    ms->rc = sg_malloc(total);
    ms->n_pat = 0;
    ms->min_len = ms->n_motif ? SG_MOTIF_MAX_LEN : 0;
    ms->max_len = 0;
    uint8_t *rc = ms->rc;
    for (int i = 0; i < ms->n_motif; i++) {
        sg_motif_t *m = &ms->motif[i];
        if (m->len < ms->min_len) ms->min_len = m->len;
        if (m->len > ms->max_len) ms->max_len = m->len;
        for (int j = 0; j < m->len; j++) rc[j] = sg_mask_complement(m->mask[m->len - 1 - j]);
        if (m->palindrome) {
            ms->pat[ms->n_pat++] = (sg_pattern_t){m->mask, m->len, i, '.', 0};
        } else {
            if (strands & SG_STRAND_FWD) ms->pat[ms->n_pat++] = (sg_pattern_t){m->mask, m->len, i, '+', 0};
            if (strands & SG_STRAND_REV) ms->pat[ms->n_pat++] = (sg_pattern_t){rc, m->len, i, '-', 0};
        }
        rc += m->len;
    }
    sg_pattern_t **order = sg_malloc((ms->n_pat + 1) * sizeof *order);
    for (int i = 0; i < ms->n_pat; i++) order[i] = &ms->pat[i];
    qsort(order, ms->n_pat, sizeof *order, cmp_rank);
    for (int i = 0; i < ms->n_pat; i++) order[i]->rank = (uint32_t)i;
    free(order);
}

void sg_motif_set_free(sg_motif_set_t *ms)
{
    for (int i = 0; i < ms->n_motif; i++) {
        free(ms->motif[i].name);
        free(ms->motif[i].seq);
        free(ms->motif[i].mask);
    }
    free(ms->motif);
    free(ms->pat);
    free(ms->rc);
    memset(ms, 0, sizeof *ms);
}
