/* Reads for benchmarks, fast: uniform starts over the records of a FASTA
 * file, either strand, substitution errors.
 *
 *   sim_reads genome.fa COVERAGE [READ_LEN [ERROR_RATE [SEED]]] > reads.fq
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state = 0x853c49e6748fea9bull;
static inline uint64_t rnd(void)
{
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 2685821657736338717ull;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: sim_reads genome.fa COVERAGE [READ_LEN [ERROR_RATE [SEED]]] > reads.fq\n");
        return 1;
    }
    double cov = atof(argv[2]), err = argc > 4 ? atof(argv[4]) : 0.005;
    int len = argc > 3 ? atoi(argv[3]) : 150;
    if (argc > 5) state ^= strtoull(argv[5], NULL, 10) * 0x9e3779b97f4a7c15ull;
    FILE *fp = fopen(argv[1], "r");
    if (!fp) {
        perror(argv[1]);
        return 1;
    }
    size_t cap = 1 << 20, n = 0;
    char *g = malloc(cap), line[1 << 16];
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '>') {
            if (n + 1 > cap) g = realloc(g, cap *= 2);
            g[n++] = 'N'; /* no read spans two records */
            continue;
        }
        size_t l = strcspn(line, "\r\n");
        while (n + l > cap) g = realloc(g, cap *= 2);
        for (size_t i = 0; i < l; i++) g[n++] = line[i] & ~0x20;
    }
    fclose(fp);
    if (n < (size_t)len) return 1;
    uint64_t reads = (uint64_t)(n * cov / len), thresh = (uint64_t)(err * 4294967296.0);
    char *r = malloc(len + 1), *q = malloc(len + 1);
    memset(q, 'I', len);
    q[len] = r[len] = 0;
    static const char comp[256] = {['A'] = 'T', ['C'] = 'G', ['G'] = 'C', ['T'] = 'A', ['N'] = 'N'};
    static char obuf[1 << 22];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    for (uint64_t i = 0; i < reads; i++) {
        uint64_t p = rnd() % (n - len + 1), x = rnd();
        int rev = x & 1;
        for (int j = 0; j < len; j++) {
            char b = rev ? comp[(unsigned char)g[p + len - 1 - j]] : g[p + j];
            if (!b) b = 'N';
            if ((rnd() & 0xffffffffu) < thresh && b != 'N') b = "ACGT"[(strchr("ACGT", b) - "ACGT" + 1 + rnd() % 3) % 4];
            r[j] = b;
        }
        printf("@r%llu\n%s\n+\n%s\n", (unsigned long long)i, r, q);
    }
    return fflush(stdout) != 0;
}
