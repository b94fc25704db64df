/* FASTA/FASTQ reading: line ends, empty records, compression, several
 * files, and the error each malformed input gets. */
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <htslib/bgzf.h>

#include "formats/seqio.h"
#include "unit.h"

enum { PLAIN, GZIP, BGZF_Z };

static char path[64];

static const char *write_file(const char *text, size_t n, int how)
{
    strcpy(path, "/tmp/sg_unit_seqioXXXXXX");
    int fd = mkstemp(path);
    close(fd);
    if (how == PLAIN) {
        FILE *fp = fopen(path, "w");
        fwrite(text, 1, n, fp);
        fclose(fp);
    } else if (how == GZIP) {
        gzFile gz = gzopen(path, "wb");
        gzwrite(gz, text, (unsigned)n);
        gzclose(gz);
    } else {
        BGZF *b = bgzf_open(path, "w");
        if (bgzf_write(b, text, n) < 0) fprintf(stderr, "bgzf_write failed\n");
        bgzf_close(b);
    }
    return path;
}

typedef struct {
    char seq[8][256];
    char name[8][64];
    int n;
    char err[512];
} parsed_t;

/* Append the pieces of a chunk to the records they belong to. */
static void take_chunk(void *arg, sg_chunk_t *c)
{
    parsed_t *out = arg;
    for (int i = 0; i < c->n_seg; i++) {
        sg_seg_t *s = &c->seg[i];
        if (s->rid >= 8) continue;
        if (s->first) snprintf(out->name[s->rid], 64, "%s", sg_chunk_name(c, s));
        strncat(out->seq[s->rid], c->seq + s->off, s->len);
        if (s->rid + 1 > out->n) out->n = (int)s->rid + 1;
    }
    sg_chunk_free(c);
}

/* Read everything in blocks of `block` bytes into whole records. */
static int read_all(char **paths, int n_paths, size_t block, parsed_t *out)
{
    memset(out, 0, sizeof *out);
    sg_reader_t *rd = sg_reader_new(paths, n_paths, block, 2);
    sg_chunker_t ck;
    sg_chunker_init(&ck, 0);
    sg_chunk_t *c;
    int r;
    while ((r = sg_reader_next(rd, &c)) > 0) {
        if (sg_parse_block(c) < 0) {
            int64_t recno;
            const char *name;
            sg_chunker_locate(&ck, c, c->err_seg, &recno, &name);
            snprintf(out->err, sizeof out->err, "record %lld (%s): %s", (long long)recno, name ? name : "?", c->err);
            sg_chunk_free(c);
            r = -1;
            break;
        }
        sg_chunker_push(&ck, c, take_chunk, out);
    }
    if (r == 0) sg_chunker_push(&ck, NULL, take_chunk, out);
    sg_chunker_free(&ck);
    sg_reader_free(rd);
    return r;
}

static void test_fasta_shapes(void)
{
    const char *text = "\n\n>a desc\r\nAC\r\nGT\r\n>empty\n>b\nNNNN\nacgt\n\n>c\nT";
    for (int how = PLAIN; how <= BGZF_Z; how++) {
        char *p[] = {(char *)write_file(text, strlen(text), how)};
        for (size_t block = 1; block < 50; block++) {
            parsed_t r;
            int ret = read_all(p, 1, block, &r);
            CHECK(ret == 0 && r.n == 4, "how %d block %zu: %d records (%s)", how, block, r.n, r.err);
            CHECK(!strcmp(r.name[0], "a") && !strcmp(r.seq[0], "ACGT"), "a: '%s'", r.seq[0]);
            CHECK(!strcmp(r.name[1], "empty") && !strcmp(r.seq[1], ""), "empty record");
            CHECK(!strcmp(r.seq[2], "NNNNacgt"), "b: '%s'", r.seq[2]);
            CHECK(!strcmp(r.seq[3], "T"), "c without final newline: '%s'", r.seq[3]);
        }
        unlink(p[0]);
    }
}

static void test_fastq_shapes(void)
{
    const char *text = "@r1 x\r\nACGT\r\n+\r\nIIII\r\n@r2\nA\n+r2\n#\n\n";
    for (int how = PLAIN; how <= BGZF_Z; how++) {
        char *p[] = {(char *)write_file(text, strlen(text), how)};
        for (size_t block = 1; block < 40; block++) {
            parsed_t r;
            int ret = read_all(p, 1, block, &r);
            CHECK(ret == 0 && r.n == 2 && !strcmp(r.seq[0], "ACGT") && !strcmp(r.seq[1], "A") && !strcmp(r.name[0], "r1"),
                  "how %d block %zu: %d records (%s)", how, block, r.n, r.err);
        }
        unlink(p[0]);
    }
}

static void test_several_files(void)
{
    char *p[3];
    p[0] = strdup(write_file(">x\nAAAA\n", 8, PLAIN));
    p[1] = strdup(write_file("@y\nCC\n+\nII\n", 11, GZIP));
    p[2] = strdup(write_file(">z\nGG", 5, BGZF_Z));
    parsed_t r;
    CHECK(read_all(p, 3, 3, &r) == 0 && r.n == 3, "three files: %d (%s)", r.n, r.err);
    CHECK(!strcmp(r.seq[0], "AAAA") && !strcmp(r.seq[1], "CC") && !strcmp(r.seq[2], "GG"), "records do not run across files");
    for (int i = 0; i < 3; i++) {
        unlink(p[i]);
        free(p[i]);
    }
}

static void expect_error(const char *text, const char *want, int record)
{
    char *p[] = {(char *)write_file(text, strlen(text), PLAIN)};
    for (size_t block = 1; block < 64; block += 7) {
        parsed_t r;
        int ret = read_all(p, 1, block, &r);
        char rec[32];
        snprintf(rec, sizeof rec, "record %d ", record);
        CHECK(ret < 0 && strstr(r.err, want) && (record == 0 || strstr(r.err, rec)), "block %zu: got '%s', want '%s' in %s",
              block, r.err, want, rec);
    }
    unlink(p[0]);
}

static void test_errors(void)
{
    expect_error(">a\nACGT\n>b\nAC>GT\n", "invalid character '>'", 2);
    expect_error(">a\nAC GT\n", "invalid character byte 0x20", 1);
    expect_error(">a\nAC\x01GT\n", "byte 0x01", 1);
    expect_error("@a\nACGT\n+\nIII\n", "quality length 3 differs from sequence length 4", 1);
    expect_error("@a\nACGT\n+\nIIII\n@b\nAC\nGT\n+\nII\nII\n", "multi-line FASTQ", 2);
    expect_error("@a\nACGT\n+\nIIII\n@b\nAC\n", "truncated FASTQ record", 2);
    expect_error("@a\nACGT\n+\nII I\n", "invalid quality character", 1);
    expect_error("@a\nACGT\n+\nIIII\n\n@b\nA\n+\nI\n", "blank line", 2);
}

int truncate_file(const char *p, long size);
static void reader_fails(const char *text, size_t n, int how, int truncate)
{
    char *p[] = {(char *)write_file(text, n, how)};
    if (truncate) {
        FILE *fp = fopen(p[0], "r+");
        fseek(fp, 0, SEEK_END);
        long sz = ftell(fp);
        fclose(fp);
        if (truncate > sz) truncate = (int)sz / 2;
        CHECK(truncate_file(p[0], sz - truncate) == 0, "truncate");
    }
    parsed_t r;
    CHECK(read_all(p, 1, 1 << 16, &r) < 0, "reading should fail (how %d, truncate %d)", how, truncate);
    unlink(p[0]);
}

int truncate_file(const char *p, long size) { return truncate(p, size); }

static void test_bad_files(void)
{
    char big[20000];
    memcpy(big, ">a\n", 3);
    for (int i = 3; i < 19999; i++) big[i] = "ACGT\n"[unit_below(5)];
    big[19999] = '\n';
    fprintf(stderr, "  (the error lines below are expected)\n");
    parsed_t none; /* empty and blank files have no records, which is no error */
    CHECK(read_all((char *[]){(char *)write_file("", 0, PLAIN)}, 1, 100, &none) == 0 && none.n == 0, "empty");
    unlink(path);
    CHECK(read_all((char *[]){(char *)write_file("\n\n  \n", 5, PLAIN)}, 1, 100, &none) == 0 && none.n == 0, "blank");
    unlink(path);
    reader_fails("\x7f" "ELF\x02\x01", 6, PLAIN, 0); /* binary (6 bytes with the final NUL) */
    reader_fails("ACGT\n", 5, PLAIN, 0);           /* no header */
    reader_fails(big, sizeof big, GZIP, 10);       /* truncated gzip */
    reader_fails(big, sizeof big, BGZF_Z, 40);     /* truncated BGZF */
    char *missing[] = {"/nonexistent/x.fa"};
    parsed_t r;
    CHECK(read_all(missing, 1, 100, &r) < 0, "missing file");
}

int main(void)
{
    RUN(test_fasta_shapes);
    RUN(test_fastq_shapes);
    RUN(test_several_files);
    RUN(test_errors);
    RUN(test_bad_files);
    return UNIT_SUMMARY();
}
