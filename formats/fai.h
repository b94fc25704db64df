/* A FASTA file's index as samtools faidx writes it (FILE.fai, and FILE.gzi
 * for BGZF): where each record's bases are, to seek to any base without
 * reading what is before it (find --part). A missing index is made here,
 * as samtools faidx makes it (htslib 1.16's fai_build3 fails on a last
 * record with no bases): beside the FASTA file when its folder is writable
 * (written under a temporary name and linked into place, never replacing a
 * file), else in a temporary file that is removed at the end. */
#ifndef SG_FAI_H
#define SG_FAI_H

#include <stdint.h>

#include <htslib/bgzf.h>

typedef struct {
    char *name;
    uint64_t len;        /* bases */
    uint64_t off;        /* (uncompressed) offset of the first base */
    uint64_t line_bases; /* bases of a full line */
    uint64_t line_bytes; /* bytes of a full line, its end included */
} sg_fai_rec_t;

typedef struct {
    sg_fai_rec_t *rec;
    int64_t n;
    uint64_t bases;      /* of all records */
    char *gzi;           /* BGZF: the .gzi to seek with (bgzf_index_load(fp, gzi, NULL)), else NULL */
    char *gzi_tmp;       /* the same when it is a temporary (removed by sg_fai_free) */
} sg_fai_t;

/**
 * The index of FASTA file path (plain or BGZF): read from path.fai (and
 * path.gzi), or made. Refused, saying what would work: a file that is not a
 * regular file, gzip that is not BGZF, FASTQ, an index that does not parse
 * or does not fit the file.
 * @param why  for messages: what needs the index ("--part")
 * @return 0, or SG_ERR_INPUT with the message printed
 */
int sg_fai_load(const char *path, const char *why, sg_fai_t *idx) __attribute__((warn_unused_result));
void sg_fai_free(sg_fai_t *idx);

/**
 * Check the index against the file where a part starts or ends: record
 * rec's header line is just before its first base, and the line holding
 * its base pos has the bases and line end the index says. An index of
 * another version of the file is an error, never a wrong result.
 * @return 0, or SG_ERR_INPUT with the message printed (naming samtools faidx)
 */
int sg_fai_check(const char *path, const sg_fai_t *idx, int64_t rec, uint64_t pos) __attribute__((warn_unused_result));

/**
 * Seek fp, open on FASTA file path, to uncompressed offset at: through the
 * BGZF index gzi when it is not NULL, after checking it against the file
 * where the seek goes (htslib would abort on a damaged one).
 * @return 0, or SG_ERR_INPUT with the message printed (naming the .gzi and
 *         how to make it again)
 */
int sg_gzi_seek(BGZF *fp, const char *gzi, const char *path, uint64_t at) __attribute__((warn_unused_result));

/** The (uncompressed) offset of base pos (< len) of record r. */
static inline uint64_t sg_fai_offset(const sg_fai_rec_t *r, uint64_t pos)
{
    return r->off + pos / r->line_bases * r->line_bytes + pos % r->line_bases;
}

#endif
