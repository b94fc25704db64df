/* libFuzzer: the .2bit reader (formats/twobit.h) on any bytes. A file it
 * takes must hold every record it declares: each record's text, whole
 * and in any stretch, is of A C G T N (lower case where masked), the
 * stretches agree with the whole, and the FASTA/FASTQ reader's blocks of
 * the file (as seqgpu reads it) put the same records together. Anything
 * else is an error, never a read outside the file. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "formats/seqio.h"
#include "formats/twobit.h"
#include "fuzz_util.h"

typedef struct {
    const sg_2bit_t *tb;
    char **text;
    int rec;         /* the record the pieces are in */
    uint64_t at;     /* its bases so far */
} sink_t;

static void take(void *arg, sg_chunk_t *c)
{
    sink_t *s = arg;
    for (int i = 0; i < c->n_seg; i++) {
        const sg_seg_t *g = &c->seg[i];
        if (g->first) s->rec++, s->at = 0;
        if (s->rec < 0 || s->rec >= s->tb->n) fuzz_fail("a piece of record %d of %d", s->rec, s->tb->n);
        if (strcmp(sg_chunk_name(c, g), s->tb->rec[s->rec].name)) fuzz_fail("a piece named '%s'", sg_chunk_name(c, g));
        if (s->at + g->len > s->tb->rec[s->rec].len || memcmp(c->seq + g->off, s->text[s->rec] + s->at, g->len))
            fuzz_fail("record %d's bases from the reader differ", s->rec);
        s->at += g->len;
    }
    sg_chunk_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sg_2bit_t tb;
    char err[256];
    if (sg_2bit_parse(data, size, &tb, err, sizeof err) < 0) {
        if (!err[0]) fuzz_fail("an error without a reason");
        sg_2bit_free(&tb);
        return 0;
    }
    char **text = calloc((size_t)tb.n + 1, sizeof *text);
    uint64_t seed = size;
    for (int r = 0; r < tb.n; r++) {
        uint32_t len = tb.rec[r].len;
        if (len > 4 * size) fuzz_fail("record %d of %u bases in %zu bytes", r, len, size);
        text[r] = malloc((size_t)len + 1);
        sg_2bit_text(&tb, r, 0, len, text[r]);
        for (uint32_t i = 0; i < len; i++)
            if (!strchr("ACGTNacgtn", text[r][i]) || !text[r][i]) fuzz_fail("record %d: byte 0x%02x", r, (unsigned char)text[r][i]);
        char piece[64];
        for (int k = 0; k < 8 && len; k++) { /* stretches of up to 64 bases */
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t b0 = (uint32_t)((seed >> 33) % len), n = (uint32_t)((seed >> 20) % 64) + 1;
            if (n > len - b0) n = len - b0;
            sg_2bit_text(&tb, r, b0, b0 + n, piece);
            if (memcmp(piece, text[r] + b0, n)) fuzz_fail("record %d: bases %u..%u differ from the whole", r, b0, b0 + n);
        }
    }
    /* through the reader, in blocks of 13 bases */
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd >= 0) {
        char *paths[] = {path};
        sg_reader_t *rd = sg_reader_new(paths, 1, 13, 1);
        sg_chunker_t ck;
        sg_chunker_init(&ck, 4);
        sink_t s = {&tb, text, -1, 0};
        sg_chunk_t *c;
        int r;
        while ((r = sg_reader_next(rd, &c)) > 0) {
            if (sg_parse_block(c) < 0) fuzz_fail("a block of a file the parser took does not parse");
            sg_chunker_push(&ck, c, take, &s);
        }
        if (r < 0) fuzz_fail("the reader refused a file the parser took");
        sg_chunker_push(&ck, NULL, take, &s);
        if (s.rec != tb.n - 1) fuzz_fail("%d records read of %d", s.rec + 1, tb.n);
        sg_chunker_free(&ck);
        sg_reader_free(rd);
        close(fd);
    }
    for (int r = 0; r < tb.n; r++) free(text[r]);
    free(text);
    sg_2bit_free(&tb);
    return 0;
}
