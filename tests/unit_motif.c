/* The motif compiler: IUPAC sets, errors, reverse complements, palindromes,
 * output ranks and motif files. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "find/motif.h"
#include "brute.h"
#include "unit.h"

static void test_iupac_sets(void)
{
    const char *letters = "ACGTRYSWKMBDHVN";
    const int sizes[] = {1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4};
    for (int i = 0; letters[i]; i++) {
        uint8_t m = sg_iupac_mask(letters[i]);
        CHECK(__builtin_popcount(m) == sizes[i], "%c has %d bases", letters[i], __builtin_popcount(m));
        CHECK(sg_iupac_mask(letters[i] | 0x20) == m, "lowercase %c", letters[i]);
    }
    CHECK(sg_iupac_mask('R') == (SG_BASE_A | SG_BASE_G), "R = A|G");
    CHECK(sg_iupac_mask('Y') == (SG_BASE_C | SG_BASE_T), "Y = C|T");
    CHECK(sg_iupac_mask('B') == (SG_BASE_C | SG_BASE_G | SG_BASE_T), "B = not A");
    const char *bad = "EFIJLOPQUXZ-.*0 @";
    for (int i = 0; bad[i]; i++) CHECK(sg_iupac_mask(bad[i]) == 0, "'%c' is not IUPAC", bad[i]);
    /* complement of each code is the code of the complementary letter */
    const char *pairs[] = {"AT", "CG", "RY", "SS", "WW", "KM", "BV", "DH", "NN"};
    for (int i = 0; i < 9; i++) {
        CHECK(sg_mask_complement(sg_iupac_mask(pairs[i][0])) == sg_iupac_mask(pairs[i][1]), "comp %s", pairs[i]);
        CHECK(sg_mask_complement(sg_iupac_mask(pairs[i][1])) == sg_iupac_mask(pairs[i][0]), "comp %s", pairs[i]);
    }
}

static void test_add_errors(void)
{
    sg_motif_set_t ms = {0};
    char err[256];
    CHECK(sg_motif_add(&ms, NULL, "ACGU", err, sizeof err) < 0, "U is not DNA IUPAC");
    CHECK(strstr(err, "'U'") && strstr(err, "ACGU") && strstr(err, "position 4"), "message: %s", err);
    CHECK(sg_motif_add(&ms, NULL, "", err, sizeof err) < 0, "empty motif");
    CHECK(sg_motif_add(&ms, NULL, "AC GT", err, sizeof err) < 0, "space");
    CHECK(sg_motif_add(&ms, NULL, "ACG\x01", err, sizeof err) < 0, "control byte");
    CHECK(strstr(err, "0x01") != NULL, "control byte shown in hex: %s", err);
    char *longm = malloc(SG_MOTIF_MAX_LEN + 2);
    memset(longm, 'A', SG_MOTIF_MAX_LEN + 1);
    longm[SG_MOTIF_MAX_LEN + 1] = 0;
    CHECK(sg_motif_add(&ms, NULL, longm, err, sizeof err) < 0, "too long");
    longm[SG_MOTIF_MAX_LEN] = 0;
    CHECK(sg_motif_add(&ms, NULL, longm, err, sizeof err) == 0, "longest allowed");
    free(longm);
    CHECK(ms.n_motif == 1, "only the valid motif was added (%d)", ms.n_motif);
    sg_motif_set_free(&ms);
}

static void test_palindromes_and_patterns(void)
{
    sg_motif_set_t ms = {0};
    char err[256];
    const char *m[] = {"GAATTC", "ACGTACGT", "CCWGG", "GGTCTC", "acgt", "N", "A", "RY", "AN"};
    const int pal[] = {1, 1, 1, 0, 1, 1, 0, 1, 0}; /* N is its own reverse complement */
    for (int i = 0; i < 9; i++) CHECK(sg_motif_add(&ms, NULL, m[i], err, sizeof err) == 0, "%s: %s", m[i], err);
    for (int i = 0; i < 9; i++) CHECK(ms.motif[i].palindrome == pal[i], "%s palindrome=%d", m[i], ms.motif[i].palindrome);
    CHECK(!strcmp(ms.motif[4].name, "acgt"), "name is the motif as given");
    sg_motif_compile(&ms, SG_STRAND_BOTH);
    CHECK(ms.n_pat == 6 + 2 * 3, "patterns: %d", ms.n_pat);
    CHECK(ms.min_len == 1 && ms.max_len == 8, "lengths %d..%d", ms.min_len, ms.max_len);
    /* each pattern's sets are those of the motif's letters, or of its reverse
     * complement (spelled by brute.h's own table) for '-' */
    int strands[9][3] = {{0}}; /* patterns per motif on '+', '-', '.' */
    for (int i = 0; i < ms.n_pat; i++) {
        const sg_pattern_t *p = &ms.pat[i];
        const sg_motif_t *mo = &ms.motif[p->motif];
        char *rc = brute_revcomp(mo->seq);
        const char *letters = p->strand == '-' ? rc : mo->seq;
        CHECK(p->len == mo->len, "pattern %d: length %d", i, p->len);
        for (int j = 0; j < p->len && j < mo->len; j++)
            CHECK(p->mask[j] == sg_iupac_mask(letters[j]), "pattern %d (%s, strand %c) position %d", i, mo->seq, p->strand, j);
        free(rc);
        strands[p->motif][p->strand == '+' ? 0 : p->strand == '-' ? 1 : 2]++;
    }
    for (int i = 0; i < 9; i++)
        CHECK(pal[i] ? strands[i][0] == 0 && strands[i][1] == 0 && strands[i][2] == 1
                     : strands[i][0] == 1 && strands[i][1] == 1 && strands[i][2] == 0,
              "%s: %d '+', %d '-', %d '.' patterns", m[i], strands[i][0], strands[i][1], strands[i][2]);
    /* ranks: by length, then strand (+ - .), then motif order */
    for (int i = 0; i < ms.n_pat; i++)
        for (int k = 0; k < ms.n_pat; k++) {
            const sg_pattern_t *a = &ms.pat[i], *b = &ms.pat[k];
            int before = a->len != b->len ? a->len < b->len
                         : a->strand != b->strand ? a->strand < b->strand
                                                  : a->motif < b->motif;
            if (i != k) CHECK((a->rank < b->rank) == before, "rank order %d %d", i, k);
        }
    sg_motif_compile(&ms, SG_STRAND_FWD);
    CHECK(ms.n_pat == 9 && brute_patterns_right(&ms, SG_STRAND_FWD), "forward only: one pattern per motif (%d)", ms.n_pat);
    sg_motif_compile(&ms, SG_STRAND_REV);
    int minus = 0;
    for (int i = 0; i < ms.n_pat; i++) minus += ms.pat[i].strand == '-';
    CHECK(ms.n_pat == 9 && minus == 3 && brute_patterns_right(&ms, SG_STRAND_REV), "reverse only: palindromes stay '.'");
    sg_motif_set_free(&ms);
}

static const char *write_tmp(const char *text)
{
    static char path[64];
    strcpy(path, "/tmp/sg_unit_motifXXXXXX");
    int fd = mkstemp(path);
    if (write(fd, text, strlen(text)) < 0) perror("write");
    close(fd);
    return path;
}

static void test_motif_files(void)
{
    sg_motif_set_t ms = {0};
    char err[256];
    const char *p = write_tmp("# comment\nEcoRI\tGAATTC\n\nGGATCC\r\nhinc\tGTYRAC\n");
    CHECK(sg_motif_load(&ms, p, err, sizeof err) == 3, "tab file: %s", err);
    CHECK(!strcmp(ms.motif[0].name, "EcoRI") && !strcmp(ms.motif[1].name, "GGATCC") && !strcmp(ms.motif[2].seq, "GTYRAC"),
          "names and motifs");
    unlink(p);
    p = write_tmp(">one first motif\nACGT\nNNAC\n>two\nGG\n");
    CHECK(sg_motif_load(&ms, p, err, sizeof err) == 2, "fasta file: %s", err);
    CHECK(!strcmp(ms.motif[3].name, "one") && !strcmp(ms.motif[3].seq, "ACGTNNAC"), "multi-line fasta motif");
    CHECK(!strcmp(ms.motif[4].name, "two") && ms.motif[4].len == 2, "second fasta motif");
    unlink(p);
    p = write_tmp("a\tACGT\tX\n");
    CHECK(sg_motif_load(&ms, p, err, sizeof err) < 0 && strstr(err, "line 1"), "three columns: %s", err);
    unlink(p);
    p = write_tmp("ok\tACGT\nbad\tACXT\n");
    CHECK(sg_motif_load(&ms, p, err, sizeof err) < 0 && strstr(err, "line 2") && strstr(err, "'X'"), "bad letter: %s", err);
    unlink(p);
    p = write_tmp("\n# nothing\n");
    CHECK(sg_motif_load(&ms, p, err, sizeof err) < 0 && strstr(err, "no motifs"), "empty: %s", err);
    unlink(p);
    p = write_tmp(">empty\n>full\nACGT\n");
    CHECK(sg_motif_load(&ms, p, err, sizeof err) < 0 && strstr(err, "empty motif"), "empty fasta motif: %s", err);
    unlink(p);
    CHECK(sg_motif_load(&ms, "/nonexistent/motifs", err, sizeof err) < 0 && strstr(err, "No such file"), "%s", err);
    sg_motif_set_free(&ms);
}

int main(void)
{
    RUN(test_iupac_sets);
    RUN(test_add_errors);
    RUN(test_palindromes_and_patterns);
    RUN(test_motif_files);
    return UNIT_SUMMARY();
}
