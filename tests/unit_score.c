/* The off-target scores (src/find/score.c) against published worked
 * examples (the doctests of CRISPOR's calcCfdScore, computed with its
 * transcription of Doench et al. 2016's table; the example of the gap-aware
 * CFD calculator), cases computed by hand from the tables and from Hsu et
 * al. 2013's formula, and CRISPOR's aggregation into guide specificities. */
#include "find/score.h"
#include "core/log.h"
#include "unit.h"

#include <math.h>

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1); }

/* CFD of a 23-base guide and site without bulges, as CRISPOR's calcCfdScore takes them */
static double cfd23(const char *guide, const char *site) { return sg_cfd(guide, site, 20, site + 21); }

static void test_cfd_crispor(void)
{
    /* crispor.py, calcCfdScore's doctests */
    CHECK(near(cfd23("GGGGGGGGGGGGGGGGGGGGGGG", "GGGGGGGGGGGGGGGGGAAAGGG"), 0.4635989007074176), "%.16f",
          cfd23("GGGGGGGGGGGGGGGGGGGGGGG", "GGGGGGGGGGGGGGGGGAAAGGG"));
    CHECK(near(cfd23("GGGGGGGGGGGGGGGGGGGGGGG", "GGGGGGGGGGGGGGGGGGGGGGG"), 1.0), "identity");
    CHECK(near(cfd23("GGGGGGGGGGGGGGGGGGGGGGG", "aaaaGaGaGGGGGGGGGGGGGGG"), 0.5140384614450001), "lower case");
    CHECK(near(cfd23("ATGGTCGGACTCCCTGCCAGAGG", "ATGGTGGGACTCCCTGCCAGAGG"), 0.5), "one mismatch");
    CHECK(near(cfd23("ATGGTCGGACTCCCTGCCAGAGG", "ATGATCCAAATCCCTGCCAGAGG"), 0.53625000020625), "four mismatches");
    CHECK(near(cfd23("ATGTGGAGATTGCCACCTACCGG", "ATCTGGAGATTGCCACCTACAGG"), 0.384615385), "a mismatch, and one at the PAM's N (AGG)");
    /* the PAM table: NGG 1, NAG 0.259259259, NGA 0.069444444, NTG 0.038961039, NCC 0 */
    CHECK(near(sg_cfd("ACGTACGTACGTACGTACGT", "ACGTACGTACGTACGTACGT", 20, "AG"), 0.259259259), "NAG");
    CHECK(near(sg_cfd("ACGTACGTACGTACGTACGT", "ACGTACGTACGTACGTACGT", 20, "GA"), 0.069444444), "NGA");
    CHECK(near(sg_cfd("ACGTACGTACGTACGTACGT", "ACGTACGTACGTACGTACGT", 20, "TG"), 0.038961039), "NTG");
    CHECK(sg_cfd("ACGTACGTACGTACGTACGT", "ACGTACGTACGTACGTACGT", 20, "CC") == 0, "NCC");
    /* undefined: a base other than A/C/G/T, too few columns */
    CHECK(sg_cfd("ACGTACGTACGTACGTACGT", "ACGTACGTACNTACGTACGT", 20, "GG") < 0, "N in the site");
    CHECK(sg_cfd("ACGTACGTACGTACGTACGT", "ACGTACGTACGTACGTACGT", 20, "NG") < 0, "N in the PAM");
    CHECK(sg_cfd("ACGTACGTACGTACGTACG", "ACGTACGTACGTACGTACG", 19, "GG") < 0, "19 columns");
}

static void test_cfd_bulges(void)
{
    /* the gap-aware calculator's example: rC:dA,1 (1), rA:d-,3 (0.888888889), rU:dG,8 (1), rU:dT,12 (0.8) */
    CHECK(near(sg_cfd("CTAACAGTTGCTTTTATCAC", "tT-ACAGcTGCaTTTATCAC", 20, "GG"), 0.888888889 * 0.8), "%.12f",
          sg_cfd("CTAACAGTTGCTTTTATCAC", "tT-ACAGcTGCaTTTATCAC", 20, "GG"));
    /* an RNA bulge alone: rA:d-,5 is 0.328125; rG:d-,20 0.09375 */
    CHECK(near(sg_cfd("ACGTACGTACGTACGTACGT", "ACGT-CGTACGTACGTACGT", 20, "GG"), 0.328125), "rA:d-,5");
    CHECK(near(sg_cfd("ACGTACGTACGTACGTACGG", "ACGTACGTACGTACGTACG-", 20, "AG"), 0.09375 * 0.259259259), "rG:d-,20 NAG");
    /* DNA bulges: the extra base's complement keys them: an extra T at column 10 is r-:dA,10 (0.4),
     * an extra G at column 2 r-:dC,2 (0.714285714) */
    CHECK(near(sg_cfd("CGTACGTAC-GTACGTACGT", "CGTACGTACTGTACGTACGT", 20, "GG"), 0.4), "r-:dA,10");
    CHECK(near(sg_cfd("A-GTACGTACGTACGTACGT", "AGGTACGTACGTACGTACGT", 20, "GG"), 0.714285714), "r-:dC,2");
    /* a gap in column 1, which the table lacks, costs nothing; of 21 columns the last 20 count */
    CHECK(near(sg_cfd("-CGTACGTACGTACGTACGT", "TCGTACGTACGTACGTACGT", 20, "GG"), 1), "a gap in column 1");
    CHECK(near(sg_cfd("AC-GTACGTACGTACGTACGT", "TCAGTACGTACGTACGTACGT", 21, "GG"), 0.727272727), "21 columns: r-:dT,2");
    /* two unpaired bases multiply: rA:d-,6 (0.276923077) and rC:d-,7 (0.569230769) */
    CHECK(near(sg_cfd("ACGTCACGTACGTACGTACG", "ACGTC--GTACGTACGTACG", 20, "GG"), 0.276923077 * 0.569230769), "RNA 2");
}

static void test_mit(void)
{
    const char *g = "ACGTACGTACGTACGTACGT";
    CHECK(near(sg_mit(g, g), 100), "no mismatch");
    CHECK(near(sg_mit(g, "ACGTACGTACGTACGTACGA"), 100 * (1 - 0.583)), "position 20: %f", sg_mit(g, "ACGTACGTACGTACGTACGA"));
    CHECK(near(sg_mit(g, "TCGTACGTACGTACGTACGT"), 100), "position 1 weighs 0");
    CHECK(near(sg_mit(g, "ACGTACGTACGTACGTAcGt"), 100), "case does not count");
    /* positions 19 and 20: (1 - 0.685)(1 - 0.583), mean distance 1, two mismatches */
    double two = (1 - 0.685) * (1 - 0.583) / ((19 - 1.0) / 19 * 4 + 1) / 4 * 100;
    CHECK(near(sg_mit(g, "ACGTACGTACGTACGTACCA"), two), "19 and 20: %f vs %f", sg_mit(g, "ACGTACGTACGTACGTACCA"), two);
    /* positions 1, 10, 20: weights 0, 0.079, 0.583, mean distance 19 / 2 */
    double three = (1 - 0.079) * (1 - 0.583) / ((19 - 9.5) / 19 * 4 + 1) / 9 * 100;
    CHECK(near(sg_mit(g, "TCGTACGTAGGTACGTACGA"), three), "1, 10, 20: %f vs %f", sg_mit(g, "TCGTACGTAGGTACGTACGA"), three);
    CHECK(near(sg_mit(g, "ACGTACGTACNTACGTACGT"), 100 * (1 - 0.445)), "an N mismatches");
}

static void test_specificity(void)
{
    CHECK(sg_specificity(0) == 100 && sg_specificity(100) == 50, "0 and 100");
    /* CRISPOR rounds as Python 3 does, a half to even: 62.5 -> 62, 12.5 -> 12 */
    CHECK(sg_specificity(60) == 62 && sg_specificity(700) == 12, "halves: %d %d", sg_specificity(60), sg_specificity(700));
    CHECK(sg_specificity(1e9) == 0, "many off-targets");
}

static void test_tally(void)
{
    /* chunk 1: a 1-mismatch NGG site, a bulge site, a perfect site next to TT (which CRISPOR
     * never finds: no on-target, not counted); chunk 2: the first perfect site it finds (the
     * on-target), an NAG site of MIT 50 (weight 0.2), one of MIT 0.5 and one of MIT 1 (dropped:
     * CRISPOR keeps an alternative PAM's hit above 1), a 5-mismatch NTG site (not counted);
     * chunk 3: a second perfect site, an off-target */
    sg_guide_tally_t run, c[3];
    memset(&run, 0, sizeof run);
    memset(c, 0, sizeof c);
    sg_tally_site(&c[0], SG_BULGE_X, 1, 41.7, 0.6, "GG");
    sg_tally_site(&c[0], SG_BULGE_RNA, 0, -1, 0.2, "GG");
    sg_tally_site(&c[0], SG_BULGE_X, 0, 100, 0, "TT");
    sg_tally_site(&c[1], SG_BULGE_X, 0, 100, 1, "GG");
    sg_tally_site(&c[1], SG_BULGE_X, 2, 50, 0.1, "AG");
    sg_tally_site(&c[1], SG_BULGE_X, 3, 0.5, 0.05, "GA");
    sg_tally_site(&c[1], SG_BULGE_X, 4, 1.0, 0.02, "AG");
    sg_tally_site(&c[1], SG_BULGE_X, 5, 20, 0.01, "TG");
    sg_tally_site(&c[2], SG_BULGE_X, 0, 100, 0.3, "AG");
    for (int i = 0; i < 3; i++) sg_tally_merge(&run, &c[i]);
    CHECK(run.sites[SG_BULGE_X][0] == 3 && run.sites[SG_BULGE_X][1] == 1 && run.sites[SG_BULGE_RNA][0] == 1 &&
              run.sites[SG_BULGE_X][4] == 1 && run.sites[SG_BULGE_X][5] == 1, "sites by type and mismatches");
    CHECK(run.counted == 3, "counted %llu", (unsigned long long)run.counted);
    CHECK(near(run.mit_sum, 41.7 + 0.2 * 50 + 0.2 * 100), "MIT sum %f", run.mit_sum);
    CHECK(near(run.cfd_sum, 0.6 + 0.1 + 0.3), "CFD sum %f", run.cfd_sum);
    for (int i = 0; i < 3; i++) sg_tally_free(&c[i]);
}

/* the sums are the sites' scores added in output order, wherever the chunks end
 * (0.1 + (0.2 + 0.3) is not (0.1 + 0.2) + 0.3 in double precision) */
static void test_tally_order(void)
{
    static const double mit[] = {0.1, 0.2, 0.3, 7.7, 0.01, 33.3};
    const int n = (int)(sizeof mit / sizeof *mit);
    double want = 0;
    for (int i = 0; i < n; i++) want += mit[i];
    for (int cut = 0; cut <= n; cut++)
        for (int cut2 = cut; cut2 <= n; cut2++) {
            sg_guide_tally_t run, c[3];
            memset(&run, 0, sizeof run);
            memset(c, 0, sizeof c);
            for (int i = 0; i < n; i++) sg_tally_site(&c[i < cut ? 0 : i < cut2 ? 1 : 2], SG_BULGE_X, 1, mit[i], mit[i], "GG");
            for (int k = 0; k < 3; k++) {
                sg_tally_merge(&run, &c[k]);
                sg_tally_free(&c[k]);
            }
            CHECK(!memcmp(&run.mit_sum, &want, sizeof want) && !memcmp(&run.cfd_sum, &want, sizeof want),
                  "chunks cut at %d and %d: %.17g and %.17g, in order %.17g", cut, cut2, run.mit_sum, run.cfd_sum, want);
        }    /* one chunk written in pieces (find's memory bound): each piece's sites merged as it goes, the list emptied */
    for (int cut = 0; cut <= n; cut++) {
        sg_guide_tally_t run, c;
        memset(&run, 0, sizeof run);
        memset(&c, 0, sizeof c);
        for (int i = 0; i < n; i++) {
            if (i == cut) sg_tally_merge(&run, &c);
            sg_tally_site(&c, SG_BULGE_X, 1, mit[i], mit[i], "GG");
        }
        sg_tally_merge(&run, &c);
        CHECK(c.n_hit == 0 && c.sites[SG_BULGE_X][1] == 0, "a merged chunk is emptied");
        CHECK(run.sites[SG_BULGE_X][1] == (uint64_t)n && run.counted == (uint64_t)n, "pieces cut at %d: %llu sites",
              cut, (unsigned long long)run.counted);
        CHECK(!memcmp(&run.mit_sum, &want, sizeof want), "pieces cut at %d: %.17g, in order %.17g", cut, run.mit_sum,
              want);
        sg_tally_free(&c);
    }
}

static void test_applies(void)
{
    sg_motif_set_t ms = {0};
    char err[256];
    CHECK(sg_motif_set_window(&ms, NULL, "NGG", 3, err, sizeof err) == 0, "%s", err);
    CHECK(sg_motif_add(&ms, NULL, "ACGTACGTACGTACGTACGT", err, sizeof err) == 0, "%s", err);
    CHECK(sg_score_applies(&ms.motif[0], err, sizeof err), "20 + NGG");
    sg_motif_set_free(&ms);
    const char *bad[][2] = {{"ACGTACGTACGTACGTACG", "NGG"}, {"ACGTACGTACGTACGTACGN", "NGG"}, {"ACGTACGTACGTACGTACGT", "NGGT"}};
    for (int i = 0; i < 3; i++) {
        CHECK(sg_motif_set_window(&ms, NULL, bad[i][1], 3, err, sizeof err) == 0, "%s", err);
        CHECK(sg_motif_add(&ms, NULL, bad[i][0], err, sizeof err) == 0, "%s", err);
        CHECK(!sg_score_applies(&ms.motif[0], err, sizeof err) && strstr(err, "SpCas9"), "%s + %s", bad[i][0], bad[i][1]);
        sg_motif_set_free(&ms);
    }
    CHECK(sg_motif_set_window(&ms, "TTTV", NULL, 3, err, sizeof err) == 0, "%s", err);
    CHECK(sg_motif_add(&ms, NULL, "ACGTACGTACGTACGTACGT", err, sizeof err) == 0, "%s", err);
    CHECK(!sg_score_applies(&ms.motif[0], err, sizeof err), "a 5' PAM");
    sg_motif_set_free(&ms);
    CHECK(sg_score_parse("cfd") == SG_SCORE_CFD && sg_score_parse("mit,cfd") == (SG_SCORE_CFD | SG_SCORE_MIT) &&
              sg_score_parse("cfd,") < 0 && sg_score_parse("") < 0, "--score lists");
}

int main(void)
{
    sg_log_init("unit_score", 1);
    RUN(test_cfd_crispor);
    RUN(test_cfd_bulges);
    RUN(test_mit);
    RUN(test_specificity);
    RUN(test_tally);
    RUN(test_tally_order);
    RUN(test_applies);
    return UNIT_SUMMARY();
}
