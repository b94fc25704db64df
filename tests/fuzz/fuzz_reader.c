/* libFuzzer: the FASTA/FASTQ reader, parser and chunker on any bytes, at a
 * few block sizes; the pieces must cover each record exactly. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../../formats/seqio.h"
#include "../../src/scc_backend.h"
#include "fuzz_util.h"

typedef struct {
    uint64_t bases;
    sg_kmer_table_t *kmers;
} sink_t;

static void take(void *arg, sg_chunk_t *c)
{
    sink_t *s = arg;
    for (int i = 0; i < c->n_seg; i++) {
        if (c->seg[i].off + c->seg[i].len > c->len) abort(); /* a piece outside its chunk */
        s->bases += c->seg[i].len;
    }
    if (c->len + c->ov >= 11 && s->kmers->add(s->kmers, c) < 0) abort();
    sg_chunk_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0) return 0;
    static const size_t blocks[] = {1, 13, 4096};
    uint64_t bases[3];
    int ok[3];
    for (int b = 0; b < 3; b++) {
        char *paths[] = {path};
        sg_reader_t *rd = sg_reader_new(paths, 1, blocks[b], 1);
        sg_chunker_t ck;
        sg_chunker_init(&ck, 10);
        sink_t s = {0, NULL};
        const sg_kmer_opts_t ko = {.k = 11, .n_threads = 1};
        if (sg_kmer_table_cpu(&ko, &s.kmers, NULL, 0) < 0) abort();
        sg_chunk_t *c;
        int r;
        while ((r = sg_reader_next(rd, &c)) > 0) {
            if (sg_parse_block(c) < 0) {
                sg_chunk_free(c);
                r = -1;
                break;
            }
            sg_chunker_push(&ck, c, take, &s);
        }
        if (r == 0) sg_chunker_push(&ck, NULL, take, &s);
        sg_chunker_free(&ck);
        sg_reader_free(rd);
        s.kmers->free(s.kmers);
        bases[b] = s.bases;
        ok[b] = r == 0;
    }
    /* the block size changes nothing: the same records, or the same failure */
    if (ok[0] != ok[1] || ok[1] != ok[2] || (ok[0] && (bases[0] != bases[1] || bases[1] != bases[2]))) abort();
    close(fd);
    return 0;
}
