/* A synthetic hg38-like genome for benchmarks, fast enough for 3.1 Gb:
 * chromosomes of decreasing size plus small unplaced contigs, 60-column
 * lines except one unwrapped chromosome, interspersed repeat families
 * (mutated copies, soft-masked like RepeatMasker output), tandem repeats of
 * 1-200 bp units, N runs (gaps and chromosome-end blocks), and extra
 * lowercase stretches to make about half of the bases lowercase.
 *
 *   gen_genome SIZE [SEED] > genome.fa      SIZE in bases, suffix K, M or G
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

static const char ACGT[4] = {'A', 'C', 'G', 'T'};

/* random bases: 32 per random word */
static void random_bases(char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint64_t x = rnd();
        for (int k = 0; k < 32 && i < n; k++, x >>= 2) s[i++] = ACGT[x & 3];
    }
}

#define N_FAMILIES 24
static char *family[N_FAMILIES];
static size_t family_len[N_FAMILIES];

/* Fill s[0..n) with sequence; returns nothing, writes case and Ns too. */
static void fill(char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint64_t ev = below(1000);
        size_t len;
        if (ev < 6) { /* interspersed repeat copy, mutated, soft-masked */
            int f = (int)below(N_FAMILIES);
            size_t from = below(family_len[f] / 2);
            len = family_len[f] - from;
            if (len > n - i) len = n - i;
            memcpy(s + i, family[f] + from, len);
            for (size_t k = 0; k < len; k++) {
                if (below(10) == 0) s[i + k] = ACGT[below(4)];
                s[i + k] |= 0x20;
            }
        } else if (ev < 8) { /* tandem repeat */
            size_t unit = 1 + (below(4) == 0 ? below(200) : below(12));
            char u[200];
            random_bases(u, unit);
            len = unit * (5 + below(120));
            if (len > n - i) len = n - i;
            for (size_t k = 0; k < len; k++) s[i + k] = u[k % unit] | (below(3) ? 0x20 : 0);
        } else if (ev < 9) { /* N gap */
            len = 10 + below(below(10) == 0 ? 50000 : 500);
            if (len > n - i) len = n - i;
            memset(s + i, 'N', len);
        } else { /* unique sequence, half of it soft-masked */
            len = 100 + below(4000);
            if (len > n - i) len = n - i;
            random_bases(s + i, len);
            if (below(2) == 0)
                for (size_t k = 0; k < len; k++) s[i + k] |= 0x20;
        }
        i += len;
    }
}

static void write_record(FILE *out, const char *name, const char *s, size_t n, size_t width, char *line)
{
    fprintf(out, ">%s\n", name);
    if (!width) {
        fwrite(s, 1, n, out);
        fputc('\n', out);
        return;
    }
    /* 61 bytes per 60 bases, built in a buffer: fwrite per line is slow */
    const size_t per = 4096;
    for (size_t i = 0; i < n; i += per * width) {
        size_t k = 0;
        for (size_t j = i; j < n && j < i + per * width; j += width) {
            size_t w = n - j < width ? n - j : width;
            memcpy(line + k, s + j, w);
            k += w;
            line[k++] = '\n';
        }
        fwrite(line, 1, k, out);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gen_genome SIZE[K|M|G] [SEED] > genome.fa\n");
        return 1;
    }
    char *end;
    double size = strtod(argv[1], &end);
    if (*end == 'k' || *end == 'K') size *= 1e3;
    else if (*end == 'm' || *end == 'M') size *= 1e6;
    else if (*end == 'g' || *end == 'G') size *= 1e9;
    if (argc > 2) rng_state ^= strtoull(argv[2], NULL, 10) * 0x2545F4914F6CDD1Dull;
    uint64_t total = (uint64_t)size;
    for (int f = 0; f < N_FAMILIES; f++) {
        family_len[f] = 300 + below(6000);
        family[f] = malloc(family_len[f]);
        random_bases(family[f], family_len[f]);
    }
    /* 24 chromosomes with weights like hg38's (decreasing), 3% in small contigs */
    double w[24], wsum = 0;
    for (int c = 0; c < 24; c++) wsum += w[c] = 250.0 - 9.0 * c;
    uint64_t contigs = total * 3 / 100, chrom_total = total - contigs;
    size_t max_len = (size_t)(chrom_total * (w[0] / wsum)) + 1;
    char *s = malloc(max_len + 1), *line = malloc(4096 * 61 + 64), name[32];
    static char obuf[1 << 22];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    uint64_t done = 0;
    for (int c = 0; c < 24 && done < chrom_total; c++) {
        size_t n = (size_t)(chrom_total * (w[c] / wsum));
        if (n > chrom_total - done) n = chrom_total - done;
        size_t tel = n / 200; /* N blocks at both ends */
        memset(s, 'N', tel);
        fill(s + tel, n - 2 * tel);
        memset(s + n - tel, 'N', tel);
        snprintf(name, sizeof name, c < 22 ? "chr%d" : c == 22 ? "chrX" : "chrY", c + 1);
        write_record(stdout, name, s, n, c == 20 ? 0 : 60, line); /* chr21 unwrapped */
        done += n;
    }
    for (int k = 0; done < total; k++) {
        size_t n = 1000 + below(100000);
        if (n > total - done) n = total - done;
        fill(s, n);
        snprintf(name, sizeof name, "chrUn_contig%d", k);
        write_record(stdout, name, s, n, 60, line);
        done += n;
    }
    if (fflush(stdout) != 0) {
        perror("gen_genome");
        return 1;
    }
    return 0;
}
