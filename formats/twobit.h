/* UCSC .2bit files (https://genome.ucsc.edu/FAQ/FAQformat.html#format7):
 * a header (signature 0x1A412743 in the writer's byte order, version 0
 * with 32-bit or 1 with 64-bit offsets, the record count), an index of
 * names and offsets, and per record its length, its runs of N, its
 * soft-masked runs and its bases packed four to a byte (T C A G = 0 1 2
 * 3, the first base in the high bits). The file is mapped and read in
 * place; every offset and count is checked against the file's size when
 * it is opened, so that any bytes give an error or records, never a read
 * out of bounds. */
#ifndef SG_TWOBIT_H
#define SG_TWOBIT_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *name;
    uint32_t len;              /* bases */
    uint32_t n_n, n_mask;      /* runs of N, soft-masked runs */
    const uint8_t *n_run;      /* n_n starts, then n_n sizes (32-bit, the file's byte order) */
    const uint8_t *mask_run;   /* n_mask starts, then n_mask sizes */
    const uint8_t *dna;        /* (len + 3) / 4 bytes */
} sg_2bit_rec_t;

typedef struct {
    const uint8_t *map;
    size_t size;
    int swap;                  /* the file's byte order is not this machine's */
    int n;
    sg_2bit_rec_t *rec;
    uint64_t bases;            /* of all records */
} sg_2bit_t;

/** Whether d[0..n) starts with the .2bit signature, in either byte order. */
int sg_2bit_magic(const void *d, size_t n);
/** Whether the file path starts with it. */
int sg_2bit_file(const char *path);

/**
 * Read the header, index and records of the .2bit file d[0..n) (mapped;
 * it must outlive tb) and check them: the signature, version 0 or 1, every
 * offset and count within the file, runs within their record and in
 * order, names of 1 to 255 bytes with no space or control character.
 * @return 0, or -1 with the reason in err ("record 3 ('chr2'): its runs of
 *         N end past the record")
 */
int sg_2bit_parse(const void *d, size_t n, sg_2bit_t *tb, char *err, size_t errsz) __attribute__((warn_unused_result));
void sg_2bit_free(sg_2bit_t *tb);

/** Bases [b0, b1) of record r as text into out: A C G T and N, in lower
 * case where soft-masked (as twoBitToFa writes them). */
void sg_2bit_text(const sg_2bit_t *tb, int r, uint32_t b0, uint32_t b1, char *out);

#endif
