#define _GNU_SOURCE
#include "find/casoff.h"
#include "formats/seqio.h"
#include "formats/twobit.h"
#include "core/cli.h"
#include "core/log.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <htslib/bgzf.h>
#include <htslib/kstring.h>

/* The first byte of a file that is not white space (after gzip), -1 for an
 * empty one, or SG_ERR_INPUT with the reason in err when it cannot be read. */
static int first_byte(const char *path, char *err, size_t errsz)
{
    BGZF *fp = bgzf_open(path, "r");
    if (!fp) {
        snprintf(err, errsz, "cannot read '%s' of the genome: %s", path, strerror(errno ? errno : EIO));
        return SG_ERR_INPUT;
    }
    int c;
    while ((c = bgzf_getc(fp)) >= 0 && isspace(c)) {}
    bgzf_close(fp);
    if (c < -1) {
        snprintf(err, errsz, "cannot read '%s' of the genome (a corrupt or truncated file)", path);
        return SG_ERR_INPUT;
    }
    return c;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A file that sits beside genomes as a matter of course: an index of
 * samtools (.fai, .gzi, made by find --part too), Picard, BWA, Bowtie or
 * minimap2. Not FASTA, and no cause for a warning (nor read: it may be
 * large). */
static int is_index(const char *name)
{
    static const char *const ext[] = {".fai", ".gzi", ".dict", ".amb", ".ann", ".bwt", ".pac",
                                      ".sa",  ".bt2", ".bt2l", ".ebwt", ".mmi"};
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof ext / sizeof *ext; i++)
        if (!strcmp(dot, ext[i])) return 1;
    return 0;
}

/* The genome's files: path itself, or the FASTA and .2bit files of the folder path. */
static int list_genome(const char *path, sg_casoff_t *co, char *err, size_t errsz)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errsz, "cannot read the genome '%s': %s", path, strerror(errno));
        return SG_ERR_INPUT;
    }
    if (!S_ISDIR(st.st_mode)) {
        co->files = sg_malloc(sizeof *co->files);
        co->files[co->n_files++] = sg_strdup(path);
        return 0;
    }
    DIR *dir = opendir(path);
    if (!dir) {
        snprintf(err, errsz, "cannot read the genome folder '%s': %s", path, strerror(errno));
        return SG_ERR_INPUT;
    }
    char **names = NULL;
    size_t n = 0, m = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        if (e->d_name[0] == '.') continue;
        if (n == m) names = sg_realloc(names, (m = m ? 2 * m : 16) * sizeof *names);
        names[n++] = sg_strdup(e->d_name);
    }
    closedir(dir);
    if (n > 1) qsort(names, n, sizeof *names, cmp_str); /* names is NULL when the folder is empty */
    co->files = sg_malloc((n + 1) * sizeof *co->files);
    int r = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(path) + strlen(names[i]) + 2, nl = strlen(names[i]);
        char *file = sg_malloc(len);
        snprintf(file, len, "%s/%s", path, names[i]);
        int c = 0;
        /* a genome file that cannot be read is an error: skipping it would lose a chromosome's sites */
        if (r < 0) {
        } else if (stat(file, &st) != 0) {
            snprintf(err, errsz, "cannot read '%s' of the genome: %s", file, strerror(errno));
            r = SG_ERR_INPUT;
        } else if (!S_ISREG(st.st_mode) || is_index(names[i])) {
            c = -2; /* a subfolder, a device, an index: not part of the genome */
        } else if (sg_2bit_file(file)) {
            c = '>'; /* UCSC .2bit, as Cas-OFFinder reads it */
        } else if (nl > 5 && !strcmp(names[i] + nl - 5, ".2bit")) {
            snprintf(err, errsz, "'%s' is named .2bit but is not a .2bit file (no signature 0x1A412743)", file);
            r = SG_ERR_INPUT;
        } else if ((c = first_byte(file, err, errsz)) == SG_ERR_INPUT) {
            r = SG_ERR_INPUT;
        }
        free(names[i]);
        if (r == 0 && c == '>') {
            co->files[co->n_files++] = file;
            continue;
        }
        if (r == 0 && c != -2) sg_warn("'%s' is not FASTA or .2bit: skipped", file);
        free(file);
    }
    free(names);
    if (r < 0) return r;
    if (!co->n_files) {
        snprintf(err, errsz, "no FASTA or .2bit files in the genome folder '%s'", path);
        return SG_ERR_INPUT;
    }
    return 0;
}

/* Split line in place at spaces and tabs; the number of words (at most max). */
static int split(char *line, char **w, int max)
{
    int n = 0;
    for (char *save = NULL, *t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n == max) return max + 1;
        w[n++] = t;
    }
    return n;
}

int sg_casoff_load(const char *path, sg_motif_set_t *ms, sg_casoff_t *co, char *err, size_t errsz)
{
    memset(co, 0, sizeof *co);
    BGZF *fp = bgzf_open(path, "r");
    if (!fp) {
        snprintf(err, errsz, "cannot read the Cas-OFFinder input '%s': %s", path, strerror(errno));
        return SG_ERR_INPUT;
    }
    kstring_t line = {0}, genome = {0}, pattern = {0};
    char sub[768] = "", *w[4];
    long lineno = 0;
    int r = 0, n_guides = 0, words = 0, got;
    while (r == 0 && (got = bgzf_getline(fp, '\n', &line)) >= 0) {
        lineno++;
        while (line.l && isspace((unsigned char)line.s[line.l - 1])) line.s[--line.l] = 0;
        if (lineno == 1) {
            size_t bom = 0;
            if ((r = sg_text_start(line.s, line.l, &bom, sub, sizeof sub)) < 0) {
                char what[768];
                snprintf(what, sizeof what, "the file is %s", sub);
                snprintf(sub, sizeof sub, "%s", what);
                continue;
            }
            kputs(line.s + bom, &genome);
            if (!genome.l) snprintf(sub, sizeof sub, "the first line must name the genome folder"), r = SG_ERR_INPUT;
            continue;
        }
        int n = split(line.s, w, 3);
        if (n == 0) continue;
        if (!pattern.l) {
            /* Cas-OFFinder 3 adds the largest DNA and RNA bulges: one word or three */
            long db = 0, rb = 0;
            if (n == 2 || n > 3 || (n == 3 && (sg_parse_int(w[1], 0, SG_MAX_BULGE, &db) < 0 ||
                                               sg_parse_int(w[2], 0, SG_MAX_BULGE, &rb) < 0))) {
                snprintf(sub, sizeof sub, "expected the pattern alone, or 'pattern DNA_BULGE RNA_BULGE' with bulges "
                         "of 0 to %d bases", SG_MAX_BULGE);
                r = SG_ERR_INPUT;
            }
            co->dna_bulge = (int)db;
            co->rna_bulge = (int)rb;
            kputs(w[0], &pattern);
            continue;
        }
        long limit;
        if (n < 2 || n > 3 || sg_parse_int(w[1], 0, SG_MAX_MISMATCHES, &limit) < 0) {
            snprintf(sub, sizeof sub, "expected 'guide mismatches [id]' with 0 to %d mismatches", SG_MAX_MISMATCHES);
            r = SG_ERR_INPUT;
        } else if (words && n != words) {
            snprintf(sub, sizeof sub, "every guide needs an id when one has: this line has %d words, the first "
                     "guide's had %d", n, words);
            r = SG_ERR_INPUT;
        } else {
            words = n;
            r = sg_motif_add_guide(ms, pattern.s, w[0], (int)limit, n == 3 ? w[2] : NULL, sub, sizeof sub);
            n_guides++;
        }
    }
    if (r == 0 && got < -1) snprintf(sub, sizeof sub, "read error (truncated or corrupt file)"), r = SG_ERR_INPUT;
    if (r == 0 && !n_guides) {
        snprintf(sub, sizeof sub, "%s", pattern.l ? "no guides after the pattern" : "no pattern line");
        r = SG_ERR_INPUT;
    }
    if (r < 0) snprintf(err, errsz, "Cas-OFFinder input '%s', line %ld: %s", path, lineno, sub);
    bgzf_close(fp);
    if (r == 0) r = list_genome(genome.s, co, err, errsz);
    free(line.s);
    free(genome.s);
    free(pattern.s);
    if (r < 0) sg_casoff_free(co);
    return r;
}

void sg_casoff_free(sg_casoff_t *co)
{
    for (int i = 0; i < co->n_files; i++) free(co->files[i]);
    free(co->files);
    memset(co, 0, sizeof *co);
}
