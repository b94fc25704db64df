/* seqgpu find: exact IUPAC motif search over FASTA/FASTQ on both strands.
 *
 * read (1 thread) -> parse (all) -> chunk (ordered) -> scan+format (all, or
 * as many as the backend takes) -> write (ordered). */
#define _GNU_SOURCE
#include <getopt.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/json.h"
#include "find/multiqc.h"
#include "find/output.h"
#include "registry.h"
#include "find/casoff.h"
#include "find/part.h"
#include "find/scan.h"
#include "core/cli.h"
#include "formats/input.h"
#include "core/log.h"
#include "find/motif.h"
#include "core/pipeline.h"
#include "core/progress.h"
#include "core/version.h"

static void usage(FILE *fp)
{
    fprintf(fp,
"Usage: seqgpu find [options] [<in.fa|in.fq|in.2bit|->[.gz] ...]\n"
"       seqgpu find [options] --cas-offinder input.txt\n"
"\n"
"Find every occurrence of IUPAC DNA motifs in FASTA/FASTQ/.2bit records, on both\n"
"strands, exactly or within a number of mismatches and next to a PAM, on a\n"
"GPU when there is one and on all CPU cores when not. Output is BED6 by\n"
"default, identical from every backend and thread count. With no input named,\n"
"standard input is read (unless it is a terminal).\n"
"\n"
"Options:\n"
"  -m, --motif SEQ        IUPAC DNA motif (ACGTRYSWKMBDHVN); repeatable\n"
"  -f, --motif-file FILE  FASTA (name = first word of header) or lines\n"
"                         \"[name<TAB>]motif\" or \"name<TAB>motif<TAB>max_mismatches\"\n"
"  -M, --max-mismatches INT  windows within INT mismatches of the motif (0 to 8)  [0]\n"
"      --pam SEQ          IUPAC PAM on the 3' side of every motif, matched exactly,\n"
"                         never counted (SpCas9: NGG)\n"
"      --pam-5 SEQ        IUPAC PAM on the 5' side of every motif (Cas12a: TTTV)\n"
"      --cas-offinder FILE  take the genome folder, the pattern (and Cas-OFFinder 3's bulge\n"
"                         sizes) and the guides (each with its own limit and id) from a\n"
"                         Cas-OFFinder input file\n"
"      --guides-include-pam  the guides are given with their PAM (as CRISPOR lists them): cut it off\n"
"      --dna-bulge INT    also sites with a DNA bulge of up to INT bases (0 to 2): extra DNA\n"
"                         bases, a gap in the guide                            [0]\n"
"      --rna-bulge INT    also sites with an RNA bulge of up to INT bases (0 to 2): unpaired\n"
"                         guide bases, a gap in the DNA                        [0]\n"
"      --all-alignments   every placement of a site's gap (tsv, casoffinder3), not the best only\n"
"      --score LIST       each site's off-target scores: cfd, mit or cfd,mit (20-nt guides, 3' PAM\n"
"                         of 3 bases; MIT for sites without a bulge)\n"
"      --guide-summary FILE  a TSV of each guide's sites by bulge type and mismatches, and its MIT\n"
"                         and CFD specificities as CRISPOR gives them (MultiQC custom content)\n"
"  -s, --strand STR       both | + | -                      [both]\n"
"  -o, --output FILE      output file; FILE.gz or FILE.bgz is BGZF-compressed  [-]\n"
"      --index, --write-index  also write a tabix index, FILE.gz.tbi (bed, -o FILE.gz)\n"
"  -F, --format STR       bed | tsv | count | casoffinder | casoffinder3   [bed]\n"
"      --by-file          -F count: a row per input file and motif, not per record\n"
"                         (the hits of a FASTQ file rather than of each read)\n"
"  -t, --threads INT      total threads                     [the CPUs it may use]\n"
"  -b, --backend STR      auto | cpu | cuda | opencl        [auto: the fastest by estimate]\n"
"      --device INT[,INT] GPU index(es)                     [0]\n"
"      --skip-masked      lowercase (soft-masked) bases never match\n"
"      --stats FILE       write a JSON run summary (bases, hits per motif, backend, stage times),\n"
"                         and FILE less .json as FILE_mqc.json for MultiQC (hits per motif; the\n"
"                         sample is FILE's name less .json, so each run is a sample)\n"
"      --summary          with -F count or --stats: tables of hits per motif and strand (and per\n"
"                         record, up to 20 records) on standard error, -q or not\n"
"      --kernel STR       exact motifs: auto | sunday | vector | qgram (opencl: no sunday)  [auto]\n"
"      --chunk-size SIZE  bytes of input per chunk, e.g. 4M  [backend's choice]\n"
"      --part I/N         scan only the I-th of N near-equal ranges of the bases (FASTA,\n"
"                         plain or BGZF, through its .fai/.gzi: made if missing); the\n"
"                         outputs of parts 1..N, concatenated, are one run's\n"
"  -q, --quiet            no progress or summary lines on stderr\n"
"      --progress[=SEC]   a progress line every SEC seconds [5], terminal or not\n"
"  -v, --verbose          also say which backend auto chose, and why\n"
"  -V, --version          print the version and exit\n"
"  -h, --help             show this help and exit\n"
"\n"
"Matching is case-insensitive; text bases other than A/C/G/T never match and a\n"
"motif N matches any of A/C/G/T. A minus-strand hit is a match of the motif's\n"
"reverse complement, reported in forward coordinates; a motif equal to its own\n"
"reverse complement is searched once and reported with strand '.'.\n"
"With a PAM, the window is 5' PAM + motif + 3' PAM: PAM positions must match\n"
"exactly, a motif position whose text base is not A/C/G/T or not in the letter's\n"
"set is a mismatch, and a window with at most -M mismatches is a hit. With bulges,\n"
"a site is the window aligned with one gap, never in the PAM nor at the guide's\n"
"PAM-distal end; its mismatches do not count the bulge. Each site (guide, strand,\n"
"bulge type and size, span) is reported once, with its best alignment: fewest\n"
"mismatches, then the gap farthest from the PAM.\n"
"\n"
"Formats:\n"
"  bed          chrom, start (0-based), end, name, mismatches, strand (with bulges: and the\n"
"               bulge type X, DNA or RNA, and its size)\n"
"  tsv          seqID, patternName, pattern, strand, start (1-based), end, matched (seqkit\n"
"               locate); with -M or a PAM, matched is upper case with mismatched bases\n"
"               in lower case, and a mismatches column follows (with bulges: the bulge type\n"
"               and size, and the guide's row of the alignment; gaps are '-')\n"
"  count        seqID, patternName, hits: one row per record and motif\n"
"               (--by-file: file, patternName, hits: one row per input file and motif)\n"
"  casoffinder  query, record, start (0-based), site, strand, mismatches[, id]\n"
"               (Cas-OFFinder 2.4)\n"
"  casoffinder3 id, bulge type, crRNA, DNA, record, start (0-based), strand, mismatches,\n"
"               bulge size (Cas-OFFinder 3)\n"
"  --score adds cfd and mit columns (NA where a score is not defined)\n"
"\n"
"Examples:\n"
"  seqgpu find -m GAATTC -m GGATCC genome.fa.gz > sites.bed\n"
"  seqgpu find -f guides.txt -M 4 --pam NGG genome.fa > offtargets.bed\n"
"  seqgpu find -f guides.txt -M 4 --pam NGG --dna-bulge 1 --rna-bulge 1 --score cfd,mit \\\n"
"      --guide-summary guides_mqc.tsv -F tsv genome.fa > offtargets.tsv\n"

"\n"
SG_EXIT_STATUS_TEXT);
}

typedef struct {
    sg_input_t in; /* first: the input steps take the context as theirs */
    sg_backend_t *backend;
    sg_formatter_t fmt;
    sg_writer_t writer;
    const sg_motif_set_t *ms;
    uint64_t bases;
    size_t max_hits;  /* hits held by a scan call at once */
    size_t max_text;  /* bytes of text a chunk holds before the writer takes them */
    size_t window;    /* starts per scan call, as the hits' density allows (sg_scan_hits) */
} find_ctx_t;

/* A chunk's output: its text so far, and where its scan has got to. */
typedef struct {
    sg_chunk_text_t text;
    sg_scan_at_t at;
} chunk_out_t;

static void out_free(void *p)
{
    sg_chunk_text_free(&((chunk_out_t *)p)->text);
    free(p);
}

typedef struct {
    find_ctx_t *ctx;
    const sg_chunk_t *c;
    chunk_out_t *o;
} batch_t;

static int format_batch(void *arg, const sg_hits_t *h, size_t upto, size_t *taken)
{
    batch_t *b = arg;
    return sg_format_hits(&b->ctx->fmt, b->c, h, upto, b->ctx->max_text, &b->o->text, taken);
}

/* Scan and format chunk c on, until its text is full or it is done. */
static int format_more(find_ctx_t *ctx, const sg_chunk_t *c, chunk_out_t *o)
{
    sg_hits_t hits = {.max = ctx->max_hits};
    batch_t b = {ctx, c, o};
    int r = sg_scan_hits(ctx->backend, c, &o->at, &hits, &ctx->window, format_batch, &b);
    sg_hits_free(&hits);
    return r < 0 ? r : 0;
}

static int step_scan(void *vctx, void *item, sg_emit_t *emit)
{
    (void)emit;
    sg_chunk_t *c = item;
    c->out = sg_calloc(1, sizeof(chunk_out_t));
    c->out_free = out_free;
    return format_more(vctx, c, c->out);
}

/* A chunk whose text outgrew what it may hold goes on here, in order, a
 * piece at a time: memory stays bounded however many hits it has. */
static int step_write(void *vctx, void *item, sg_emit_t *emit)
{
    find_ctx_t *ctx = vctx;
    sg_chunk_t *c = item;
    if (!c) return 0;
    for (int i = 0; i < c->n_seg; i++) ctx->bases += c->seg[i].len;
    chunk_out_t *o = c->out;
    int r = sg_writer_put(&ctx->writer, c, &o->text);
    while (r == 0 && !o->text.done) {
        r = format_more(ctx, c, o);
        if (r == 0 && !o->text.done && !sg_chunk_text_held(&o->text)) { /* it stops only with something to write */
            sg_error("internal error: chunk %llu formats no further", (unsigned long long)c->id);
            r = SG_ERR_SYSTEM;
        }
        if (r == 0) r = sg_writer_put(&ctx->writer, c, &o->text);
    }
    sg_emit(emit, c);
    return r;
}

enum { STEP_READ, STEP_PARSE, STEP_CHUNK, STEP_SCAN, STEP_WRITE, N_STEPS };
static const char *step_names[N_STEPS] = {"read", "parse", "chunk", "scan", "write"};

typedef struct {
    char **inputs;
    int n_inputs;
    const char *output, *stats, *backend, *kernel, *pam3, *pam5, *casoff, *guide_summary;
    sg_devices_t devices;
    int threads, skip_masked, quiet, verbose, strands, max_mm, index, summary, by_file;
    int dna_bulge, rna_bulge, bulge_set, all_alignments, scores, with_pam;
    double progress; /* --progress: seconds between lines; 0: a live line on a terminal */
    sg_outfmt_t format;
    size_t chunk_size;
    long part, n_parts; /* --part I/N; 0: the whole input */
    char **mopt, **fopt; /* -m and -f as given: the motifs are compiled after all options */
    int n_m, n_f;
} find_opts_t;

static void write_stats(FILE *fp, const find_opts_t *o, const find_ctx_t *ctx, const double *busy, double wall)
{
    const sg_motif_set_t *ms = ctx->ms;
    uint64_t total = 0;
    fprintf(fp, "{\n  \"program\": \"seqgpu\",\n  \"version\": \"%s\",\n  \"command\": \"find\",\n  \"inputs\": [",
            SG_VERSION);
    for (int i = 0; i < o->n_inputs; i++) {
        fputs(i ? ", " : "", fp);
        sg_json_str(fp, o->inputs[i]);
    }
    fprintf(fp, "],\n  \"backend\": \"%s\",\n  \"backend_detail\": ", ctx->backend->name);
    sg_json_str(fp, ctx->backend->desc);
    if (ctx->backend->why[0]) {
        fputs(",\n  \"backend_choice\": ", fp);
        sg_json_str(fp, ctx->backend->why);
    }
    fprintf(fp, ",\n  \"threads\": %d,\n  \"dna_bulge\": %d,\n  \"rna_bulge\": %d,\n  \"input_bytes\": %llu,\n"
                "  \"records\": %lld,\n  \"bases\": %llu,\n",
            o->threads, ms->dna_bulge, ms->rna_bulge, (unsigned long long)sg_reader_bytes(ctx->in.reader), (long long)ctx->in.chunker.n_rec,
            (unsigned long long)ctx->bases);
    fputs("  \"motifs\": [\n", fp);
    for (int m = 0; m < ms->n_motif; m++) {
        fputs("    {\"name\": ", fp);
        sg_json_str(fp, ms->motif[m].name);
        fputs(", \"motif\": ", fp);
        sg_json_str(fp, ms->motif[m].seq);
        fputs(", \"window\": ", fp);
        sg_json_str(fp, ms->motif[m].window);
        fprintf(fp, ", \"length\": %d, \"max_mismatches\": %d, \"palindrome\": %s, \"hits\": %llu}%s\n",
                ms->motif[m].len, ms->motif[m].max_mm, ms->motif[m].palindrome ? "true" : "false",
                (unsigned long long)ctx->writer.total[m], m + 1 < ms->n_motif ? "," : "");
        total += ctx->writer.total[m];
    }
    fprintf(fp, "  ],\n  \"hits\": %llu,\n", (unsigned long long)total);
    if (ctx->backend->stats) ctx->backend->stats(ctx->backend, fp);
    sg_read_stats_json(fp);
    fputs("  \"stage_seconds\": {", fp);
    for (int s = 0; s < N_STEPS; s++) fprintf(fp, "%s\"%s\": %.4f", s ? ", " : "", step_names[s], busy[s]);
    fprintf(fp, "},\n  \"wall_seconds\": %.4f,\n  \"cpu_seconds\": %.4f,\n  \"peak_rss_bytes\": %zu\n}\n", wall,
            sg_cputime(), sg_peak_rss());
}

/* Before any input is read (motif files included): no input named twice
 * that can be read once, no output that is an input, every output created. */
static int open_outputs(const find_opts_t *o, char *const *motif_files, int n_f, sg_outfile_t *outs, int n_outs)
{
    char **files = sg_malloc(((size_t)n_f + o->n_inputs) * sizeof *files);
    memcpy(files, motif_files, n_f * sizeof *files);
    memcpy(files + n_f, o->inputs, o->n_inputs * sizeof *files);
    int r = sg_inputs_check(files, n_f + o->n_inputs);
    if (r == 0) r = sg_outfiles_open(outs, n_outs, files, n_f + o->n_inputs);
    free(files);
    return r;
}

/* -o, --stats, --index, the MultiQC file, --guide-summary */
enum { N_OUTS = 5 };

/* --score: every motif can be scored; else the first that cannot, in err. */
static int scoreable(const sg_motif_set_t *ms, char *err, size_t errsz)
{
    for (int m = 0; m < ms->n_motif; m++)
        if (!sg_score_applies(&ms->motif[m], err, errsz)) return 0;
    return 1;
}

/* A limit lowered by the environment variable name, if it is set. */
static void limit_env(const char *name, size_t *limit)
{
    const char *env = getenv(name);
    size_t v;
    if (!env) return;
    if (sg_parse_size(env, &v) == 0 && v) *limit = v < *limit ? v : *limit;
    else sg_warn("%s='%s' is not a size (1 or more, e.g. 64K): ignored", name, env);
}

/* What a chunk may hold at once, whatever the density of its hits: hits of
 * a scan call (8 bytes each, and as many to sort them) about the chunk's own
 * bytes, and text as much; at least one start's hits (every pattern's
 * every bulge variant: a rank each).
 * SEQGPU_FIND_HITS and SEQGPU_FIND_TEXT set them lower (tests: every chunk
 * in pieces). */
static void set_limits(find_ctx_t *ctx, size_t chunk)
{
    ctx->max_hits = chunk / 8 > (1 << 16) ? chunk / 8 : 1 << 16;
    ctx->max_text = chunk > (1 << 20) ? chunk : 1 << 20;
    limit_env("SEQGPU_FIND_HITS", &ctx->max_hits);
    limit_env("SEQGPU_FIND_TEXT", &ctx->max_text);
    if (ctx->max_hits <= (size_t)ctx->ms->n_rank) ctx->max_hits = (size_t)ctx->ms->n_rank + 1;
}

static char stdin_name[] = "-";
static char *stdin_input[] = {stdin_name};

static int usage_error(const char *fmt, const char *arg)
{
    return sg_usage_error("seqgpu find", fmt, arg);
}

enum { OPT_DEVICE = 256, OPT_SKIP_MASKED, OPT_STATS, OPT_KERNEL, OPT_CHUNK, OPT_PAM, OPT_PAM5, OPT_CASOFF, OPT_INDEX,
       OPT_PROGRESS, OPT_SUMMARY, OPT_PART, OPT_BY_FILE, OPT_DNA_BULGE, OPT_RNA_BULGE, OPT_ALL_ALN, OPT_SCORE,
       OPT_GUIDE_SUMMARY, OPT_WITH_PAM };
static const struct option lopts[] = {
    {"motif", required_argument, NULL, 'm'},     {"motif-file", required_argument, NULL, 'f'},
    {"strand", required_argument, NULL, 's'},    {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, 'F'},    {"threads", required_argument, NULL, 't'},
    {"backend", required_argument, NULL, 'b'},   {"device", required_argument, NULL, OPT_DEVICE},
    {"skip-masked", no_argument, NULL, OPT_SKIP_MASKED}, {"stats", required_argument, NULL, OPT_STATS},
    {"kernel", required_argument, NULL, OPT_KERNEL}, {"chunk-size", required_argument, NULL, OPT_CHUNK},
    {"max-mismatches", required_argument, NULL, 'M'}, {"pam", required_argument, NULL, OPT_PAM},
    {"pam-5", required_argument, NULL, OPT_PAM5}, {"cas-offinder", required_argument, NULL, OPT_CASOFF},
    {"index", no_argument, NULL, OPT_INDEX},     {"progress", optional_argument, NULL, OPT_PROGRESS},
    {"write-index", no_argument, NULL, OPT_INDEX}, {"by-file", no_argument, NULL, OPT_BY_FILE},
    {"summary", no_argument, NULL, OPT_SUMMARY},
    {"quiet", no_argument, NULL, 'q'},           {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},            {"part", required_argument, NULL, OPT_PART},
    {"version", no_argument, NULL, 'V'},
    {"dna-bulge", required_argument, NULL, OPT_DNA_BULGE}, {"rna-bulge", required_argument, NULL, OPT_RNA_BULGE},
    {"all-alignments", no_argument, NULL, OPT_ALL_ALN}, {"score", required_argument, NULL, OPT_SCORE},
    {"guide-summary", required_argument, NULL, OPT_GUIDE_SUMMARY},
    {"guides-include-pam", no_argument, NULL, OPT_WITH_PAM},
    {NULL, 0, NULL, 0}};

/* parse, check and plan return this to go on, else the exit status */
#define GO_ON (-1)

/* An option's value that needs no other option to be judged, into o; a
 * usage error, or GO_ON. */
static int parse_value(find_opts_t *o, int c, const char *arg)
{
    long v;
    switch (c) {
    case 's':
        if (!strcmp(arg, "both")) o->strands = SG_STRAND_BOTH;
        else if (!strcmp(arg, "+")) o->strands = SG_STRAND_FWD;
        else if (!strcmp(arg, "-")) o->strands = SG_STRAND_REV;
        else return usage_error("invalid strand '%s' (both, + or -)", arg);
        break;
    case 'M':
        if (sg_parse_int(arg, 0, SG_MAX_MISMATCHES, &v) < 0) return usage_error("invalid mismatch limit '%s' (0 to 8)", arg);
        o->max_mm = (int)v;
        break;
    case OPT_DNA_BULGE:
    case OPT_RNA_BULGE:
        if (sg_parse_int(arg, 0, SG_MAX_BULGE, &v) < 0) return usage_error("invalid bulge size '%s' (0 to 2)", arg);
        *(c == OPT_DNA_BULGE ? &o->dna_bulge : &o->rna_bulge) = (int)v;
        o->bulge_set = 1;
        break;
    case OPT_SCORE:
        if ((o->scores = sg_score_parse(arg)) < 0) return usage_error("invalid --score '%s' (cfd, mit or cfd,mit)", arg);
        break;
    case 'F':
        if (sg_outfmt_parse(arg) < 0)
            return usage_error("invalid format '%s' (bed, tsv, count, casoffinder or casoffinder3)", arg);
        o->format = sg_outfmt_parse(arg);
        break;
    case 't':
        if (sg_parse_int(arg, 1, 4096, &v) < 0) return usage_error("invalid thread count '%s'", arg);
        o->threads = (int)v;
        break;
    case OPT_DEVICE:
        if (sg_parse_devices(arg, SG_MAX_DEVICES, &o->devices) < 0)
            return usage_error("invalid --device '%s' (GPU indices such as 0 or 0,1, each once)", arg);
        break;
    case OPT_CHUNK:
        if (sg_parse_size(arg, &o->chunk_size) < 0 || o->chunk_size > (1u << 30))
            return usage_error("invalid chunk size '%s' (1 to 1G bytes, e.g. 4M)", arg);
        break;
    case OPT_PART:
        if (sg_parse_part(arg, 1L << 30, &o->part, &o->n_parts) < 0)
            return usage_error("invalid --part '%s' (I/N: part I of N, 1 <= I <= N)", arg);
        break;
    case OPT_PROGRESS:
        if (sg_parse_progress(arg, &o->progress) < 0)
            return usage_error("invalid --progress '%s' (seconds, 0.1 or more)", arg);
        break;
    }
    return GO_ON;
}

/* The command line into o, each value checked alone; -h, -V or a usage
 * error end the run here (their exit status), else GO_ON. */
static int parse(int argc, char **argv, find_opts_t *o)
{
    *o = (find_opts_t){.output = "-", .backend = "auto", .kernel = "auto", .strands = SG_STRAND_BOTH,
                       .format = SG_OUT_BED};
    sg_log_init("seqgpu find", 0);
    /* the Cas-OFFinder file joins the motif files as an input: room for it */
    o->mopt = sg_malloc(argc * sizeof *o->mopt);
    o->fopt = sg_malloc(argc * sizeof *o->fopt);
    int c, r;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":m:f:M:s:o:F:t:b:qvVh", lopts, NULL)) >= 0) {
        switch (c) {
        case 'm': o->mopt[o->n_m++] = optarg; break;
        case 'f': o->fopt[o->n_f++] = optarg; break;
        case 'o': o->output = optarg; break;
        case OPT_ALL_ALN: o->all_alignments = 1; break;
        case OPT_GUIDE_SUMMARY: o->guide_summary = optarg; break;
        case OPT_WITH_PAM: o->with_pam = 1; break;
        case OPT_PAM: o->pam3 = optarg; break;
        case OPT_PAM5: o->pam5 = optarg; break;
        case OPT_CASOFF: o->casoff = optarg; break;
        case 'b': o->backend = optarg; break;
        case OPT_SKIP_MASKED: o->skip_masked = 1; break;
        case OPT_STATS: o->stats = optarg; break;
        case OPT_KERNEL: o->kernel = optarg; break;
        case OPT_INDEX: o->index = 1; break;
        case OPT_SUMMARY: o->summary = 1; break;
        case OPT_BY_FILE: o->by_file = 1; break;
        case 'q': o->quiet = 1; break;
        case 'v': o->verbose = 1; break;
        case 'h': usage(stdout); return SG_EXIT_OK;
        case 'V': return sg_version();
        case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
        case '?': return usage_error("unknown option '%s'", argv[optind - 1]);
        default:
            if ((r = parse_value(o, c, optarg)) != GO_ON) return r;
        }
    }
    sg_log_init("seqgpu find", o->quiet);
    if (!o->threads) o->threads = sg_default_threads();
    o->inputs = argv + optind;
    o->n_inputs = argc - optind;
    return GO_ON;
}

/* What a run is given and makes, from the options before any work. */
typedef struct {
    sg_motif_set_t ms;
    sg_casoff_t co;
    sg_find_part_t part;
    char *index_path, *mqc, *sample;
    sg_outfile_t outs[N_OUTS];
    sg_backend_t *backend;
} find_plan_t;

/* Every rule between options, in one place: a usage error, or GO_ON. A
 * Cas-OFFinder input file is read here, as the options it gives (the
 * genome, the pattern, the bulges, the guides), for the rules after it. */
static int check(find_opts_t *o, find_plan_t *p)
{
    char err[1024];
    if (o->casoff) {
        /* the file names the genome, the pattern, the guides and their limits */
        if (o->n_m + o->n_f || o->n_inputs || o->pam3 || o->pam5 || o->max_mm || o->bulge_set || o->with_pam)
            return usage_error("%s", "--cas-offinder gives the genome, the PAM, the bulges, the guides and their "
                                     "limits: use it without -m, -f, -M, --pam, --pam-5, --dna-bulge, --rna-bulge, "
                                     "--guides-include-pam and input files");
        if (sg_casoff_load(o->casoff, &p->ms, &p->co, err, sizeof err) < 0) {
            sg_error("%s", err);
            return SG_EXIT_INPUT;
        }
        o->inputs = p->co.files;
        o->n_inputs = p->co.n_files;
        o->dna_bulge = p->co.dna_bulge;
        o->rna_bulge = p->co.rna_bulge;
    }
    if (o->n_m + o->n_f + !!o->casoff == 0) return usage_error("%s", "no motif given: use -m SEQ or -f FILE");
    if (o->n_inputs == 0) {
        /* as seqkit: a pipe or a file on stdin is the input; a terminal is a user who forgot one */
        if (isatty(STDIN_FILENO)) return usage_error("%s", "no input file given (use - for standard input)");
        o->inputs = stdin_input;
        o->n_inputs = 1;
    }
    if (o->by_file && o->format != SG_OUT_COUNT) return usage_error("%s", "--by-file goes with -F count");
    if (o->part && o->format == SG_OUT_COUNT)
        return usage_error("%s", "-F count cannot be cut into parts (a record may lie in several): take -F bed and "
                                 "count the gathered rows (cut -f1,4 | sort | uniq -c)");
    if (o->part && o->index)
        return usage_error("%s", "--index: a part's index is no index of the whole; index the gathered BED "
                                 "(tabix -p bed) instead");
    if (o->index && (o->format != SG_OUT_BED || !sg_outfile_compressed(o->output)))
        return usage_error("%s", "--index needs BED output to a BGZF file: -F bed -o FILE.gz (or FILE.bgz)");
    if (o->summary && o->format != SG_OUT_COUNT && !o->stats)
        return usage_error("%s", "--summary goes with -F count or --stats");
    if (o->format == SG_OUT_CASOFFINDER && (o->dna_bulge || o->rna_bulge || o->scores))
        return usage_error("%s", "-F casoffinder (Cas-OFFinder 2.4's columns) has no bulge or score columns: "
                                 "take -F casoffinder3, tsv or bed");
    if (o->all_alignments && o->format != SG_OUT_TSV && o->format != SG_OUT_CASOFFINDER3)
        return usage_error("%s", "--all-alignments goes with -F tsv or -F casoffinder3 (the formats that show the "
                                 "alignment); bed and count give each site once");
    if (o->scores && o->format == SG_OUT_COUNT)
        return usage_error("%s", "--score adds columns to the sites: take -F bed, tsv or casoffinder3");
    if (o->guide_summary && o->part)
        return usage_error("%s", "--guide-summary: a part's summary is no summary of the whole; run it without --part");
    if (o->with_pam && !o->pam3 && !o->pam5)
        return usage_error("%s", "--guides-include-pam needs the PAM the guides carry: --pam or --pam-5");
    return GO_ON;
}

/* The outputs, opened before any input is read (motif files included), and
 * the motifs they will hold; an error's exit status, or GO_ON. */
static int plan_outputs(find_opts_t *o, find_plan_t *p)
{
    char err[1024];
    if (sg_motif_set_window(&p->ms, o->pam5, o->pam3, o->max_mm, err, sizeof err) < 0) {
        sg_error("%s", err);
        return SG_EXIT_INPUT;
    }
    p->ms.guides_include_pam = o->with_pam;
    /* the Cas-OFFinder file counts as an input, like the motif files */
    if (o->casoff) o->fopt[o->n_f] = (char *)o->casoff;
    if (o->index) {
        p->index_path = sg_malloc(strlen(o->output) + 5);
        sprintf(p->index_path, "%s.tbi", o->output);
    }
    /* MultiQC's sample: the run, named as --stats (two runs over one genome,
     * whose files must differ to sit in one folder, are two samples) */
    p->sample = o->stats ? sg_mqc_run_name(o->stats) : NULL;
    p->mqc = sg_mqc_beside(o->stats, p->sample, "_mqc.json");
    const sg_outfile_t outs[N_OUTS] = {
        {.what = "-o", .path = o->output, .threads = o->threads},
        {.what = "--stats", .path = o->stats},
        {.what = "--index", .path = p->index_path, .threads = o->threads, .index_of = &p->outs[0]},
        {.what = "the MultiQC file of --stats", .path = p->mqc},
        {.what = "--guide-summary", .path = o->guide_summary}};
    memcpy(p->outs, outs, sizeof outs);
    int r = sg_exit_code(open_outputs(o, o->fopt, o->n_f + !!o->casoff, p->outs, N_OUTS));
    return r == SG_EXIT_OK ? GO_ON : r;
}

/* The motifs compiled, the part's range and the backend (whose device
 * starts now, while the input is read); on an error the outputs are
 * discarded and its exit status returned, else GO_ON. */
static int plan_work(const find_opts_t *o, find_plan_t *p)
{
    sg_motif_set_t *ms = &p->ms;
    char err[1024];
    int r = 0;
    for (int i = 0; i < o->n_m && r >= 0; i++) r = sg_motif_add(ms, NULL, o->mopt[i], err, sizeof err);
    for (int i = 0; i < o->n_f && r >= 0; i++) r = sg_motif_load(ms, o->fopt[i], err, sizeof err);
    if (r >= 0 && (sg_motif_set_bulges(ms, o->dna_bulge, o->rna_bulge, err, sizeof err) < 0 ||
                   (o->scores && !scoreable(ms, err, sizeof err))))
        r = -1;
    if (r < 0) {
        sg_error("%s", err);
        return SG_EXIT_INPUT;
    }
    if (!o->with_pam && !o->casoff && sg_motif_guides_carry_pam(ms))
        sg_warn("every guide %s with a match of the PAM %s: if the guides are given with their PAM, add "
                "--guides-include-pam (as they are, each window is the guide, its PAM and the PAM again)",
                ms->pam3 ? "ends" : "begins", ms->pam3 ? ms->pam3 : ms->pam5);
    sg_motif_compile(ms, o->strands);
    if (o->part && (r = sg_find_part_plan(o->inputs, o->n_inputs, o->part, o->n_parts, ms->max_len - 1, &p->part)) < 0)
        return sg_exit_code(r); /* 1 for the input, 2 when its index cannot be written */
    if (o->part)
        sg_info("part %ld/%ld: bases %llu to %llu of %llu", o->part, o->n_parts, (unsigned long long)p->part.beg,
                (unsigned long long)p->part.end, (unsigned long long)p->part.total);
    sg_backend_opts_t bo = {.motifs = ms, .skip_masked = o->skip_masked, .kernel = o->kernel,
                            .n_threads = o->threads, .devices = &o->devices,
                            .input_bases = sg_input_bases(o->inputs, o->n_inputs)};
    sg_progress_start("seqgpu find", o->quiet, o->progress);
    if ((r = sg_backend_open(o->backend, &bo, &p->backend)) < 0) return sg_exit_code(r);
    if (o->verbose && p->backend->why[0]) sg_info("%s", p->backend->why);
    return GO_ON;
}

/* The planned run: the pipeline, then the outputs closed (or discarded) and
 * the summary; its exit status. */
static int run_plan(const find_opts_t *o, find_plan_t *p, double t0)
{
    const sg_motif_set_t *ms = &p->ms;
    find_ctx_t ctx = {.ms = ms, .backend = p->backend};
    sg_formatter_init(&ctx.fmt, o->by_file ? SG_OUT_COUNT_FILE : o->format, ms, o->skip_masked);
    ctx.fmt.all_alignments = o->all_alignments;
    ctx.fmt.scores = o->scores;
    ctx.fmt.tally = o->guide_summary != NULL;
    int r = sg_writer_open(&ctx.writer, &p->outs[0], &ctx.fmt, o->part <= 1, o->n_inputs);
    size_t chunk = o->chunk_size ? o->chunk_size : ctx.backend->chunk_size;
    set_limits(&ctx, chunk);
    sg_input_init(&ctx.in, sg_reader_new(o->inputs, o->n_inputs, chunk, o->threads), ms->max_len - 1);
    if (o->part) {
        const sg_find_part_t *part = &p->part;
        sg_reader_set_part(ctx.in.reader, &part->range);
        if (part->range.first < o->n_inputs)
            sg_chunker_resume(&ctx.in.chunker, part->range.first, part->rid, part->file_rid0, part->name,
                              (int64_t)part->rec_pos);
    }
    const sg_step_t steps[N_STEPS] = {
        {step_names[STEP_READ], sg_input_read, 1, 0},
        {step_names[STEP_PARSE], sg_input_parse, 0, 0},
        {step_names[STEP_CHUNK], sg_input_chunk, 1, 0},
        {step_names[STEP_SCAN], step_scan, 0, ctx.backend->max_par},
        {step_names[STEP_WRITE], step_write, 1, 0},
    };
    double busy[N_STEPS] = {0};
    sg_pipeline_opts_t po = {.n_threads = o->threads, .max_items = 2 * o->threads + 4,
                             .free_item = sg_input_free_chunk, .busy = busy};
    sg_progress_stage("scanning", o->part ? 0 : sg_input_stored_bytes(o->inputs, o->n_inputs));
    if (r == 0) r = sg_pipeline_run(steps, N_STEPS, &ctx, &po);
    sg_progress_stop();
    double wall = sg_realtime() - t0;
    sg_outfile_t *outs = p->outs;
    if (r == 0 && o->by_file) r = sg_writer_files(&ctx.writer, o->inputs);
    if (r == 0 && o->stats) write_stats(outs[1].fp, o, &ctx, busy, wall);
    if (r == 0 && p->mqc) sg_mqc_find(outs[3].fp, ms, ctx.writer.file_total, o->n_inputs, p->sample);
    if (r == 0 && o->guide_summary) sg_mqc_guides(outs[4].fp, ms, ctx.writer.tally, ctx.fmt.scored);
    if (r == 0) r = sg_outfiles_close(outs, N_OUTS);
    else sg_outfiles_discard(outs, N_OUTS);
    if (r == 0) {
        uint64_t hits = 0;
        for (int m = 0; m < ms->n_motif; m++) hits += ctx.writer.total[m];
        sg_info("%lld records, %llu bases, %d motifs, %llu hits; backend %s; real %.3f s, cpu %.3f s, peak RSS %.1f MB",
                (long long)ctx.in.chunker.n_rec, (unsigned long long)ctx.bases, ms->n_motif, (unsigned long long)hits,
                ctx.backend->desc, wall, sg_cputime(), sg_peak_rss() / 1048576.0);
        if (o->summary) sg_writer_summary(&ctx.writer, ctx.in.chunker.n_rec, stderr);
    }
    sg_writer_free(&ctx.writer);
    sg_input_free(&ctx.in);
    sg_formatter_free(&ctx.fmt);
    return sg_exit_code(r);
}

int main_find(int argc, char **argv)
{
    find_opts_t o;
    find_plan_t p = {0};
    double t0 = sg_realtime();
    int ret = parse(argc, argv, &o);
    if (ret == GO_ON) ret = check(&o, &p);
    if (ret == GO_ON && (ret = plan_outputs(&o, &p)) == GO_ON) {
        if ((ret = plan_work(&o, &p)) == GO_ON) ret = run_plan(&o, &p, t0);
        else sg_outfiles_discard(p.outs, N_OUTS);
    }
    sg_progress_stop();
    if (p.backend) p.backend->free(p.backend);
    sg_find_part_free(&p.part);
    free(p.index_path);
    free(p.mqc);
    free(p.sample);
    sg_motif_set_free(&p.ms);
    sg_casoff_free(&p.co);
    free(o.mopt);
    free(o.fopt);
    return ret;
}
