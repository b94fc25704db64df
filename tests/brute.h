/* An independent brute-force motif matcher for the unit tests. It reads the
 * motif letters as given and the raw text bytes with its own IUPAC table and
 * reverse complement, never through the motif compiler's masks or the
 * encoder that it checks; the compiled patterns only name its hits (rank). */
#ifndef SG_BRUTE_H
#define SG_BRUTE_H

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "find/motif.h"

/* The bases an IUPAC letter (upper case) stands for. */
static inline const char *brute_bases(char letter)
{
    static const char *const set[] = {"A", "C", "G", "T", "AG", "CT", "CG", "AT", "GT", "AC", "CGT", "AGT", "ACT", "ACG", "ACGT"};
    const char *at = strchr("ACGTRYSWKMBDHVN", letter);
    return letter && at ? set[at - "ACGTRYSWKMBDHVN"] : "";
}

/* The reverse complement of an IUPAC motif, in upper case (malloc'd). */
static inline char *brute_revcomp(const char *m)
{
    static const char from[] = "ACGTRYSWKMBDHVN", to[] = "TGCAYRSWMKVHDBN";
    size_t n = strlen(m);
    char *r = malloc(n + 1);
    for (size_t i = 0; i < n; i++) r[i] = to[strchr(from, toupper((unsigned char)m[n - 1 - i])) - from];
    r[n] = 0;
    return r;
}

/* The letters pattern p matches in text order: its motif as given, reverse
 * complemented for strand '-' (malloc'd, upper case). */
static inline char *brute_letters(const sg_motif_set_t *ms, const sg_pattern_t *p)
{
    const char *m = ms->motif[p->motif].seq;
    if (p->strand == '-') return brute_revcomp(m);
    char *u = strdup(m);
    for (char *c = u; *c; c++) *c = (char)toupper((unsigned char)*c);
    return u;
}

/* Whether letters match text at its start: each byte an A/C/G/T (either
 * case; upper case only when skip_masked) in its letter's set. */
static inline int brute_match(const char *letters, const char *text, int skip_masked)
{
    for (; *letters; letters++, text++) {
        char t = *text;
        if (skip_masked && islower((unsigned char)t)) return 0;
        t = (char)toupper((unsigned char)t);
        if (!t || !strchr("ACGT", t) || !strchr(brute_bases(*letters), t)) return 0;
    }
    return 1;
}

/* Whether the compiled patterns are the right ones for strands: one '.' for
 * each motif equal to its reverse complement, else '+' and/or '-'. */
static inline int brute_patterns_right(const sg_motif_set_t *ms, int strands)
{
    int ok = 1;
    for (int i = 0; i < ms->n_motif; i++) {
        char *up = brute_letters(ms, &(sg_pattern_t){.motif = i, .strand = '+'});
        char *rc = brute_revcomp(up);
        int palindrome = !strcmp(up, rc), plus = 0, minus = 0, dot = 0;
        for (int p = 0; p < ms->n_pat; p++)
            if (ms->pat[p].motif == i) {
                plus += ms->pat[p].strand == '+';
                minus += ms->pat[p].strand == '-';
                dot += ms->pat[p].strand == '.';
            }
        if (palindrome) ok &= dot == 1 && plus == 0 && minus == 0;
        else ok &= dot == 0 && plus == !!(strands & SG_STRAND_FWD) && minus == !!(strands & SG_STRAND_REV);
        free(up);
        free(rc);
    }
    return ok;
}

#endif
