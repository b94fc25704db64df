/* The cpu k-mer table (src/scc/dbg/kmers.c), compiled once per key width: 64-bit
 * keys to k = 31, 128-bit keys to k = 63. sg_kmer_table_cpu (src/scc/backend.h)
 * opens the one for k. */
#ifndef SG_SCC_KMERS_H
#define SG_SCC_KMERS_H

#include "scc/backend.h"

int sg_kmer_table_cpu64(const sg_kmer_opts_t *o, sg_kmer_table_t **out);
int sg_kmer_table_cpu128(const sg_kmer_opts_t *o, sg_kmer_table_t **out);

#endif
