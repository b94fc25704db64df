/* seqgpu scc: repeats from the strongly connected components of a de Bruijn
 * graph of reads, or of an overlap graph of long reads (or of a GFA graph,
 * or of a plain edge list).
 *
 * reads -> k-mer counts -> coverage and threshold -> unitigs of the kept
 * k-mers (a graph builder; -g overlap: reads -> overlaps -> the graph of
 * read strands and dovetails) -> SCCs (an SCC solver) -> repeats, reported
 * once per reverse-complement twin. The builder and the solver run on the
 * backend that -b names, or that auto chooses for the size of their work
 * (registry.h). */
#define _GNU_SOURCE
#include <getopt.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scc/gfa.h"
#include "formats/json.h"
#include "formats/multiqc.h"
#include "formats/outfile.h"
#include "formats/seqio.h"
#include "formats/svg.h"
#include "registry.h"
#include "core/stage.h"
#include "core/cli.h"
#include "formats/input.h"
#include "core/log.h"
#include "core/progress.h"
#include "scc/dbg/counts.h"
#include "scc/coverage.h"
#include "scc/overlap/minimizer.h"
#include "scc/loci.h"
#include "scc/pictures.h"
#include "scc/overlap/readset.h"
#include "scc/repeats.h"
#include "core/version.h"
#include "scc/multiqc.h"

static void usage(FILE *fp)
{
    fprintf(fp,
"Usage: seqgpu scc [options] [<reads.fq|reads.fa|reads.2bit|graph.gfa>[.gz] ...]\n"
"\n"
"Find cyclic repeat structures (tandem repeats, satellites, repeat families):\n"
"build a de Bruijn graph of the repeated k-mers of the reads, compact it into\n"
"unitigs, and report its strongly connected components; or, for long reads,\n"
"the graph of their overlaps, where reads inside a tandem array close cycles.\n"
"An assembly (most k-mers seen once, no coverage peak; or --assembly) has each\n"
"copy counted once, and its repeats placed by locus (PREFIX.loci.bed).\n"
"With no input named, standard input is read (unless it is a terminal).\n"
"\n"
"Options:\n"
"  -x, --preset STR     the reads: hifi | ont | clr (-g overlap, its sketch and\n"
"                       --min-identity, as minimap2's ava presets) | sr (-g dbg)\n"
"  -g, --graph STR      dbg | overlap                          [dbg]\n"
"  -k INT               dbg: k-mer size, odd, 11 to 63         [31]\n"
"      --min-copies F   dbg: keep k-mers seen >= F x the estimated k-mer coverage\n"
"                       (an assembly: F copies)                              [3]\n"
"  -c, --min-count INT  dbg: absolute k-mer count threshold (overrides --min-copies)\n"
"      --assembly       dbg: the input is an assembly's sequence (told from the\n"
"                       k-mer counts otherwise): coverage 1, loci placed\n"
"      --bridge N       dbg: where the sequence goes from a unitig's end to another's\n"
"                       start across up to 2k k-mers under the threshold (a variant of\n"
"                       copies that breaks an array's cycle), N times or more, link them\n"
"                       through those bases; 0: never        [an assembly: 1; reads: 0]\n"
"      --overlaps FILE  overlap: take the overlaps from PAF (minimap2 -x ava-pb or\n"
"                       ava-ont), plain or gzip, instead of the own overlapper;\n"
"                       implies -g overlap\n"
"      --min-overlap INT  overlap: shortest dovetail overlap kept, bases [2000]\n"
"      --min-identity F   overlap: lowest estimated identity kept [0.8; -x hifi 0.9]\n"
"      --write-overlaps F overlap: also write as PAF every overlap found (or read)\n"
"                       of identity >= --min-identity, short and internal ones too\n"
"      --edges FILE     take a directed graph as two integer columns instead\n"
"      --write-graph F  also write the whole compacted graph as GFA\n"
"      --max-memory SIZE  hold at most SIZE in memory (1M or more, e.g. 2500M):\n"
"                       the k-mers beyond go through one file in --tmp-dir, in\n"
"                       the same one pass over the reads [3/4 of the available memory]\n"
"      --tmp-dir DIR    folder for that file              [the folder of PREFIX]\n"
"      --part I/N       count only part I of N of the k-mers (by hash) ...\n"
"      --counts-out F   ... and write them to F, a k-mer counts file: nothing else\n"
"      --counts         the inputs are the N counts files of a run's parts: the graph,\n"
"                       SCCs and report from them, the same as one run's\n"
"  -p, --prefix STR     output prefix; one ending in .gz writes every PREFIX.* file\n"
"                       BGZF-compressed, as PREFIX.repeats.tsv.gz ...  [seqgpu_scc]\n"
"  -t, --threads INT    total threads                          [the CPUs it may use]\n"
"  -b, --backend STR    auto | cpu | cuda, for graph building and SCCs [auto: cuda\n"
"                       when a device is usable and estimated faster, from the\n"
"                       input's size, -c, the threads, and the graph's vertices]\n"
"      --device I[,I]   CUDA device(s): the k-mers counted on all of them, the SCCs\n"
"                       (and the overlap index and chains) found on the first [0]\n"
"      --stats FILE     write a JSON run summary (histogram, coverage, graph sizes, stage times)\n"
"                       and the MultiQC files (below)\n"
"  -q, --quiet          no progress or summary lines on stderr\n"
"      --progress[=SEC] a progress line every SEC seconds [5], terminal or not\n"
"  -v, --verbose        also say which backend auto chose, and why\n"
"  -V, --version        print the version and exit\n"
"  -h, --help           show this help and exit\n"
"\n"
"Advanced (cuda): the SCC pipeline's virtual warps and rounds. Over the\n"
"settings tried on an H200 the SCC stage's time moved by under 20%%.\n"
"      --kw INT         threads per virtual warp (1, 2, 4, 8, 16, 32)  [4]\n"
"      --kv INT         vertices per virtual warp                      [2]\n"
"      --kt INT         second trim and coloring partition every kt rounds, 0 never [2]\n"
"\n"
"Input: reads or an assembly (FASTA/FASTQ, plain, gzip or BGZF, or .2bit; - for\n"
"stdin), or one GFA graph (S and L lines; depth from KC, km, DP or RC tags).\n"
"\n"
"Outputs (rows the longest repeat first: the most bases in all its copies):\n"
"  PREFIX.repeats.tsv     id, kind (tandem | complex), unitigs, kmers, period (bases),\n"
"                         mean_count (k-mer count), copies (mean_count / coverage), unit\n"
"                         (least rotation, either strand), length (kmers x copies, bases);\n"
"                         an assembly: copies and length its loci's summed, and loci;\n"
"                         overlap: reads, bases (theirs), period, read_coverage, copies\n"
"                         (length / period; * where the reads show no period), unit, length\n"
"                         (over the reads spanning the array, else bases / coverage + a read),\n"
"                         length_min, length_max (* when no read spans it), spanning_reads\n"
"  PREFIX.loci.bed        an assembly's loci, BED6+3: chrom, start, end, repeat id, score\n"
"                         (identity x 1000), strand of the unit, its period, copies, identity\n"
"                         between copies (. under two copies); sorted; reads: the header\n"
"  PREFIX.gfa             GFA 1.0 of the repeat components (LB/CL tags per component;\n"
"                         overlap: reads with LN and RC tags, dovetails as links)\n"
"  PREFIX.units.fa        one repeat unit per component, on one line\n"
"  PREFIX.components.tsv  node (overlap: read), component: every one of a repeat\n"
"  PREFIX.spectrum.svg    the k-mer count histogram, log-log: error trough, coverage peak and\n"
"                         estimate, threshold, the k-mers kept (a GFA input: its segments' depths;\n"
"                         overlap: not drawn)\n"
"  PREFIX.repeats.svg     a panel per repeat, the 24 longest: its period spectrum with the\n"
"                         period's multiples; a dot plot (heatmap) of its largest locus, or of\n"
"                         its longest read; or its unitigs as a cycle, up to 20\n"
"  PREFIX.landscape.svg   every repeat by period and copies (log), its area by its length\n"
"With --stats, for MultiQC: PREFIX.spectrum_mqc.json and PREFIX.repeats_mqc.tsv.\n"
"Names ending in .gz or .bgz (--write-graph, --stats) are BGZF-compressed too;\n"
"the pictures and the MultiQC files never are (PREFIX less .gz); PREFIX.loci.bed.gz\n"
"gets its tabix index, PREFIX.loci.bed.gz.tbi.\n"
"With --edges only PREFIX.components.tsv, for every node of a component with\n"
"two or more nodes or a self-loop.\n"
"\n"
"Examples:\n"
"  seqgpu scc -k 31 -p sample reads_1.fq.gz reads_2.fq.gz\n"
"  seqgpu scc -p genome genome.fa.gz\n"
"  seqgpu scc -g overlap -p sample pacbio.fq.gz\n"
"  seqgpu scc -x hifi -p sample hifi.fq.gz\n"
"\n"
SG_EXIT_STATUS_TEXT);
}

typedef struct {
    char **inputs;
    int n_inputs;
    const char *prefix, *edges, *write_graph, *stats, *backend;
    const char *graph, *overlaps, *write_overlaps; /* -g; overlap's inputs and outputs */
    const sg_read_preset_t *preset;                /* -x, or NULL */
    FILE *overlaps_out;                            /* --write-overlaps, once open */
    const char *counts_out, *tmp_dir; /* --counts-out, --tmp-dir */
    long part, n_parts;               /* --part */
    int counts;                       /* --counts: the inputs are counts files */
    size_t max_memory;
    sg_devices_t devices;
    int k, k_given, threads, quiet, verbose, kw, kv, kt;
    int assembly; /* --assembly */
    long bridge;  /* --bridge: the times the sequence shows a bridge, at least (0: none; -1: an assembly's 1, reads' 0) */
    double progress; /* --progress: seconds between lines; 0: a live line on a terminal */
    double min_copies, min_identity;
    long min_count, min_overlap;
    /* what the command line gave, for check's rules */
    const char *overlap_only;   /* an option of -g overlap that was given */
    const char *dbg_only;       /* an option of -g dbg's k-mers that was given */
    const char *max_memory_arg; /* --max-memory as given */
    int prefix_given, max_memory_given, device_given, min_overlap_given, min_identity_given;
} scc_opts_t;

typedef struct {
    const char *source;          /* reads, gfa, edges or counts */
    char *tmp_dir;               /* the folder of PREFIX, when --tmp-dir is not given */
    sg_graph_builder_t *builder; /* what built the graph of reads */
    sg_scc_solver_t *solver;     /* what found the SCCs (opened before the input is read) */
    char graph_why[256], why[256]; /* auto: the choices for the graph of reads and for the SCCs, and why */
    int device_failed;           /* under auto: one warning is enough, the rest runs on the cpu */
    uint32_t n_comp, n_nontrivial;
    uint64_t bridges;            /* added over the graph's breaks */
    double scc_s, report_s;
} scc_run_t;

/* Bytes of input per block: 4 MB, less under a --max-memory that the reads
 * in flight would take much of (an eighth of it at most), 256 kB at least. */
#define READ_BLOCK (4 << 20)
#define READ_BLOCK_MIN (256 << 10)

/* Blocks of input in flight: read, parsed and counted at once. */
static size_t in_flight(int threads) { return 2 * (size_t)threads + 4; }

static size_t read_block(const scc_opts_t *o)
{
    size_t b = o->max_memory / 8 / (2 * in_flight(o->threads));
    return b > READ_BLOCK ? READ_BLOCK : b < READ_BLOCK_MIN ? READ_BLOCK_MIN : b;
}

/* What a run takes beside its k-mer table: the program and its libraries
 * (7 MB for a few reads, measured), and the blocks in flight, raw and
 * parsed, no more than twice the inputs' bytes where they are known. */
#define BASE_MEMORY (8u << 20)
static size_t reads_memory(const scc_opts_t *o)
{
    size_t blocks = 2 * in_flight(o->threads) * read_block(o);
    double bytes = sg_input_bases(o->inputs, o->n_inputs); /* as read: compressed ones inflated */
    return BASE_MEMORY + (bytes >= 0 && 2 * bytes < (double)blocks ? (size_t)(2 * bytes) : blocks);
}

/* The least --max-memory a run of the reads' k-mers works in. */
static size_t least_memory(const scc_opts_t *o)
{
    const scc_opts_t low = {.threads = o->threads, .inputs = o->inputs, .n_inputs = o->n_inputs}; /* the smallest read blocks */
    return reads_memory(&low) + sg_kmer_table_cpu_least(o->threads);
}

/* The bases of reads the inputs hold, to plan for (a k-mer each): FASTQ's
 * bases are half its bytes, and compressed inputs inflate about threefold
 * (0: unknown, standard input). */
static uint64_t bases_expected(const scc_opts_t *o)
{
    double bytes = sg_input_bases(o->inputs, o->n_inputs);
    return bytes > 0 ? (uint64_t)(bytes / 2) : 0;
}

/* The graph vertices to expect from the inputs' sizes, before any is read:
 * one per 16 bytes of an edge list, per 200 bytes of reads or GFA, and gzip
 * holds four times its size. */
static double input_vertices(const scc_opts_t *o)
{
    double bytes = 0;
    struct stat sb;
    for (int i = -1; i < o->n_inputs; i++) {
        const char *f = i < 0 ? o->edges : o->inputs[i];
        if (!f || stat(f, &sb) != 0) continue;
        size_t len = strlen(f);
        bytes += (double)sb.st_size * (len > 3 && !strcmp(f + len - 3, ".gz") ? 4 : 1);
    }
    return bytes / (o->edges ? 16 : 200);
}

/* The backend of work on a graph of so many vertices: -b, or auto's choice (its reason into why). */
static const char *choose(const scc_opts_t *o, double vertices, char *why, size_t whysz)
{
    if (strcmp(o->backend, "auto")) return o->backend;
    sg_backend_estimate_t e;
    sg_scc_plan(vertices, &e);
    return sg_backend_auto(&e, why, whysz);
}

/* The backend of the run before any input is read: -b, or auto's choice
 * for the de Bruijn graph of the reads (their k-mers counted and compacted
 * there), else for a graph of the vertices the inputs' size suggests. */
static const char *choose_start(const scc_opts_t *o, char *why, size_t whysz)
{
    if (strcmp(o->backend, "auto") || o->edges || o->counts || strcmp(o->graph, "dbg"))
        return choose(o, input_vertices(o), why, whysz);
    sg_backend_estimate_t e;
    sg_dbg_plan((double)bases_expected(o), o->threads, o->min_count > 0, &e);
    return sg_backend_auto(&e, why, whysz);
}

static int open_solver(const scc_opts_t *o, const char *name, scc_run_t *run, char *err, size_t errsz)
{
    const sg_scc_opts_t so = {.n_threads = o->threads, .devices = &o->devices, .kw = o->kw, .kv = o->kv, .kt = o->kt};
    return sg_scc_solver_open(name, &so, &run->solver, err, errsz);
}

/* The stage of the run that auto may hand to the cpu: its reason into why. */
static sg_stage_t stage_of(const scc_opts_t *o, const char *name, const char *instead, char *why, size_t whysz)
{
    return (sg_stage_t){.backend = name, .fallback = !strcmp(o->backend, "auto"), .instead = instead, .why = why,
                        .whysz = whysz};
}

/* The k-mer table's share of --max-memory: what the reads in flight leave
 * (least_memory() keeps it above the table's least). */
static size_t table_memory(const scc_opts_t *o)
{
    size_t rest = reads_memory(o);
    return o->max_memory > rest ? o->max_memory - rest : 0;
}

static sg_graph_opts_t graph_opts(const scc_opts_t *o, scc_run_t *run)
{
    sg_graph_opts_t go = {.k = o->k, .assembly = o->assembly, .min_copies = o->min_copies, .min_count = o->min_count,
                          .n_threads = o->threads, .devices = &o->devices, .tmp_dir = o->tmp_dir,
                          .inputs = o->inputs, .n_inputs = o->n_inputs, .expect = bases_expected(o),
                          .k_given = o->k_given, .min_overlap = (uint32_t)o->min_overlap,
                          .min_identity = o->min_identity, .overlaps = o->overlaps, .overlaps_out = o->overlaps_out,
                          .sketch_k = o->preset ? o->preset->k : 0, .sketch_w = o->preset ? o->preset->w : 0,
                          .sketch_hpc = o->preset ? o->preset->hpc : 0};
    if (!go.tmp_dir) { /* beside the outputs, which need room too; not /tmp, which may be memory */
        const char *slash = strrchr(o->prefix, '/');
        free(run->tmp_dir);
        run->tmp_dir = slash ? strndup(o->prefix, slash == o->prefix ? 1 : (size_t)(slash - o->prefix)) : strdup(".");
        go.tmp_dir = run->tmp_dir;
    }
    go.max_bytes = table_memory(o);
    if (o->counts) {
        go.counts = o->inputs;
        go.n_counts = o->n_inputs;
    }
    return go;
}

/* The build of the graph of the reads, as a stage. */
typedef struct {
    const scc_opts_t *o;
    scc_run_t *run;
    const sg_graph_opts_t *go;
    const char *name;  /* the backend asked for first */
    sg_reader_t *rd;   /* the reads, until a build takes them */
    sg_graph_t *g;
    int said;          /* again: the failure is said */
} build_t;

/* The graph builder of -g on backend, and its build (an sg_stage_fn). */
static int build_on(void *arg, const char *backend, char *err, size_t errsz)
{
    build_t *b = arg;
    scc_run_t *run = b->run;
    int r = sg_graph_builder_open(b->o->graph, backend, b->go, &run->builder, err, errsz);
    if (r < 0) return r;
    sg_progress_stage(strcmp(b->o->graph, "dbg") ? "reading" : "counting k-mers",
                      sg_input_stored_bytes(b->o->inputs, b->o->n_inputs));
    r = run->builder->build(run->builder, b->rd, b->g);
    b->rd = NULL;
    if (r == SG_ERR_DEVICE) snprintf(err, errsz, "%s", run->builder->err);
    return r;
}

/* Before the cpu builds the graph: the input, read again when the device
 * took it (a pipe cannot be). */
static int build_again(void *arg, const char *err)
{
    build_t *b = arg;
    const scc_opts_t *o = b->o;
    for (int i = 0; !b->rd && i < o->n_inputs; i++)
        if (!sg_input_rereadable(o->inputs[i])) {
            sg_error("%s backend: %s; '%s' cannot be read again on the cpu", b->name, err, o->inputs[i]);
            b->said = 1;
            return SG_ERR_DEVICE;
        }
    if (!b->rd) b->rd = sg_reader_new(o->inputs, o->n_inputs, read_block(o), o->threads);
    if (b->run->builder) b->run->builder->free(b->run->builder);
    b->run->builder = NULL;
    sg_graph_free(b->g);
    return 0;
}

/* The graph of the reads of rd (freed here), by the graph builder of -g
 * on the backend name; under auto a device that fails hands the build to the
 * cpu, which reads the input again (the overlap builder, which holds the
 * reads, hands its index or chaining to the cpu itself, through the stage). */
static int graph_from_reads(const scc_opts_t *o, scc_run_t *run, const char *name, sg_reader_t *rd, sg_graph_t *g)
{
    sg_graph_opts_t go = graph_opts(o, run);
    if (!strcmp(o->backend, "auto") && !sg_graph_builder_on(o->graph, name)) {
        snprintf(run->graph_why, sizeof run->graph_why, "auto: cpu (the %s graph is built on the cpu only)", o->graph);
        name = "cpu";
    } else if (!strcmp(o->backend, "auto") && !strcmp(o->graph, "overlap") && o->overlaps) {
        snprintf(run->graph_why, sizeof run->graph_why, "auto: cpu (the overlaps are read from PAF)");
        name = "cpu";
    } else if (!strcmp(o->backend, "auto") && !strcmp(o->graph, "overlap")) {
        /* the own overlapper's index and chaining, for the bases of reads the inputs hold */
        sg_backend_estimate_t e;
        sg_overlap_plan((double)bases_expected(o), o->threads, &e);
        name = sg_backend_auto(&e, run->graph_why, sizeof run->graph_why);
    }
    if (o->verbose && run->graph_why[0]) sg_info("graph: %s", run->graph_why);
    sg_stage_t st = stage_of(o, name, "building the graph on the cpu", run->graph_why, sizeof run->graph_why);
    st.again = build_again;
    go.stage = &st;
    build_t b = {.o = o, .run = run, .go = &go, .name = name, .rd = rd, .g = g};
    int r = sg_stage_run(&st, build_on, &b);
    run->device_failed = st.fell_back;
    if (r == SG_ERR_DEVICE && !st.fell_back && !b.said) sg_error("%s backend: %s", name, st.err);
    sg_reader_free(b.rd);
    return r;
}

/* The graph of the k-mers of counts files (--counts), built on the cpu. */
static int graph_from_counts(const scc_opts_t *o, scc_run_t *run, sg_graph_t *g)
{
    const sg_graph_opts_t go = graph_opts(o, run);
    char err[512] = "";
    int r = sg_graph_builder_open("dbg", "cpu", &go, &run->builder, err, sizeof err);
    if (r < 0) {
        sg_error("%s", err);
        return r;
    }
    sg_progress_stage("reading the k-mer counts", 0);
    return run->builder->build(run->builder, NULL, g);
}

/* --part I/N --counts-out FILE: part I of the reads' k-mers into FILE, and
 * the part's figures to --stats. */
static int write_counts(const scc_opts_t *o, scc_run_t *run, const sg_outfile_t *out, FILE *stats, double t_start)
{
    sg_progress_stage("reading", 0);
    sg_reader_t *rd = sg_reader_new(o->inputs, o->n_inputs, read_block(o), o->threads);
    int fmt = sg_reader_format(rd);
    if (fmt == SG_FMT_GFA) {
        sg_error("'%s' is a GFA graph: --counts-out counts the k-mers of reads", o->inputs[0]);
        fmt = SG_ERR_INPUT;
    }
    if (fmt < 0) {
        sg_reader_free(rd);
        return fmt;
    }
    const sg_graph_opts_t go = graph_opts(o, run);
    sg_part_summary_t sum;
    sg_progress_stage("counting k-mers", sg_input_stored_bytes(o->inputs, o->n_inputs));
    int r = sg_counts_part(&go, rd, (uint32_t)o->part, (uint32_t)o->n_parts, out->fp, out->name, &sum);
    if (r == 0 && stats) {
        fprintf(stats, "{\n  \"program\": \"seqgpu\",\n  \"version\": \"%s\",\n  \"command\": \"scc\",\n  \"inputs\": [",
                SG_VERSION);
        for (int i = 0; i < o->n_inputs; i++) {
            fputs(i ? ", " : "", stats);
            sg_json_str(stats, o->inputs[i]);
        }
        fprintf(stats, "],\n  \"part\": %ld,\n  \"parts\": %ld,\n  \"k\": %d,\n  \"kmers\": %llu,\n"
                       "  \"distinct_kmers\": %llu,\n  \"stored_kmers\": %llu,\n  \"stored_min_count\": %u,\n"
                       "  \"wall_seconds\": %.4f,\n  \"cpu_seconds\": %.4f,\n  \"peak_rss_bytes\": %zu\n}\n",
                o->part, o->n_parts, o->k, (unsigned long long)sum.kmers, (unsigned long long)sum.distinct,
                (unsigned long long)sum.stored, sum.min_stored, sg_realtime() - t_start, sg_cputime(), sg_peak_rss());
    }
    return r;
}

typedef struct {
    const scc_opts_t *o;
    scc_run_t *run;
    const sg_graph_t *g;
    uint32_t *comp;
} solve_t;

/* The SCCs of the graph by the solver on backend (an sg_stage_fn). */
static int solve_on(void *arg, const char *backend, char *err, size_t errsz)
{
    const solve_t *a = arg;
    scc_run_t *run = a->run;
    int r = 0;
    if (run->solver && strcmp(run->solver->name, backend)) {
        run->solver->free(run->solver);
        run->solver = NULL;
    }
    if (!run->solver) r = open_solver(a->o, backend, run, err, errsz);
    if (r == 0 && (r = run->solver->solve(run->solver, a->g, a->comp, &run->n_comp)) < 0)
        snprintf(err, errsz, "%s", run->solver->err);
    return r;
}

/* Components of every vertex, numbered in the order of their first vertex
 * (the same numbers from either backend). */
static int find_sccs(const scc_opts_t *o, scc_run_t *run, const sg_graph_t *g, uint32_t *comp)
{
    const char *name = "cpu";
    if (run->device_failed) snprintf(run->why, sizeof run->why, "%s", run->graph_why);
    else name = choose(o, g->n_vert, run->why, sizeof run->why);
    if (o->verbose && run->why[0]) sg_info("SCCs: %s", run->why);
    sg_stage_t st = stage_of(o, name, "finding SCCs on the cpu", run->why, sizeof run->why);
    const solve_t a = {o, run, g, comp};
    int r = sg_stage_run(&st, solve_on, (void *)&a);
    if (r < 0 && !st.fell_back) sg_error("%s backend: %s", name, st.err);
    if (r == 0 && run->solver->summary[0]) sg_info("SCCs on %s", run->solver->summary);
    return r;
}

/* Characters of a prefix that ask for BGZF outputs (".gz", ".bgz"), or 0;
 * a prefix of no more (".gz", "sub/.bgz") asks for them too, and has no
 * name left. */
static size_t prefix_gz(const char *prefix)
{
    const char *dot = strrchr(prefix, '.');
    return dot && (!strcmp(dot, ".gz") || !strcmp(dot, ".bgz")) ? strlen(dot) : 0;
}

/* PREFIX + suffix; a compressing prefix goes at the end (sample.gz gives
 * sample.repeats.tsv.gz) unless plain: the pictures and the MultiQC files,
 * which browsers and MultiQC read only uncompressed (and which are small),
 * stay sample.spectrum.svg. */
static char *out_path(const char *prefix, const char *suffix, int plain)
{
    size_t n = strlen(prefix) + strlen(suffix) + 1, stem = strlen(prefix) - prefix_gz(prefix);
    char *p = sg_malloc(n);
    snprintf(p, n, "%.*s%s%s", (int)stem, prefix, suffix, plain ? "" : prefix + stem);
    return p;
}

/* The sequence a de Bruijn graph's k-mers were counted from (also when
 * they come from counts files), for the passes after the graph; NULL, with
 * a warning saying what is not done, when it cannot be read again. */
static char *const *sequence_again(const scc_opts_t *o, const scc_run_t *run, int *n_in, const char *what)
{
    char *const *in = run->builder->inputs ? run->builder->inputs : o->inputs;
    *n_in = run->builder->inputs ? run->builder->n_inputs : o->n_inputs;
    for (int i = 0; i < *n_in; i++)
        if (!sg_input_rereadable(in[i]) || (o->counts && access(in[i], R_OK) != 0)) {
            sg_warn("'%s' cannot be read again, so %s; give the sequence as a file", in[i], what);
            return NULL;
        }
    return in;
}

/* Bridges over the graph's breaks (--bridge; an assembly's by default). */
static int bridge(const scc_opts_t *o, scc_run_t *run, sg_graph_t *g)
{
    const long support = o->bridge >= 0 ? o->bridge : run->builder->assembly;
    int n_in;
    char *const *in = support ? sequence_again(o, run, &n_in, "the graph's breaks are not bridged") : NULL;
    if (!in) return 0;
    const sg_loci_opts_t lo = {.inputs = in, .n_inputs = n_in, .n_threads = o->threads, .read_block = READ_BLOCK,
                               .max_gap = 2 * (uint32_t)g->k, .min_support = (uint32_t)support};
    int64_t n = sg_bridges_add(&lo, g);
    if (n < 0) return (int)n;
    run->bridges = (uint64_t)n;
    if (n) sg_info("%lld bridges over the graph's breaks (each in the sequence %ld or more times): %u unitigs and "
                   "bridges", (long long)n, support, g->n);
    return 0;
}

/* The loci of an assembly's repeats, and the repeats as the sums of their
 * loci (report order and kind), when its sequence can be read again. */
static int place_loci(const scc_opts_t *o, const scc_run_t *run, const sg_graph_t *g, const uint32_t *comp,
                      sg_repeats_t *rp, sg_loci_t *loci)
{
    int n_in;
    char *const *in = sequence_again(o, run, &n_in,
                                     "the repeats of the assembly are not placed: PREFIX.loci.bed holds its header alone");
    if (!in) return 0;
    const sg_loci_opts_t lo = {.inputs = in, .n_inputs = n_in, .n_threads = o->threads, .read_block = READ_BLOCK,
                               .n_view = SG_PICTURE_REPEATS};
    int r = sg_loci_find(&lo, g, comp, rp, loci);
    if (r == 0) rp->kind = SG_REPEATS_ASSEMBLY;
    if (r == 0) sg_info("%zu loci of %u repeats in the assembly", loci->n, rp->n);
    return r;
}

/* The pictures, and with --stats the MultiQC files, of a run's repeats and
 * of the histogram it ends up with (reads, or a GFA graph's depths). */
static void write_pictures(const scc_opts_t *o, const scc_run_t *run, const sg_graph_t *g, const uint32_t *comp,
                           const sg_repeats_t *rp, const sg_loci_t *loci, sg_outfile_t *spectrum,
                           sg_outfile_t *pictures, sg_outfile_t *landscape, sg_outfile_t *mqc_spectrum,
                           sg_outfile_t *mqc_repeats, const char *sample)
{
    /* the reads, also when their k-mers come from counts files: a run in parts draws one run's pictures */
    char *const *in = run->builder && run->builder->inputs ? run->builder->inputs : o->inputs;
    const int n_in = run->builder && run->builder->inputs ? run->builder->n_inputs : o->n_inputs;
    /* what each panel shows: an assembly's loci, or what the graph holds */
    sg_repeat_view_t view[SG_PICTURE_REPEATS];
    uint32_t n_view = rp->n < SG_PICTURE_REPEATS ? rp->n : SG_PICTURE_REPEATS;
    sg_repeat_views(g, comp, rp, n_view, view);
    char b1[32], b2[32];
    for (uint32_t i = 0; i < n_view && i < loci->n_view; i++) {
        const sg_locus_view_t *lv = &loci->view[i];
        memcpy(view[i].spectrum, lv->spectrum, (SG_SPECTRUM_MAX + 1) * sizeof *lv->spectrum);
        view[i].cycles = 0;
        if (!lv->seq) continue;
        const sg_locus_t *l = &loci->l[lv->locus];
        view[i].seq = lv->seq;
        view[i].len = lv->len;
        snprintf(view[i].where, sizeof view[i].where, "%s:%s-%s", loci->names[l->rec], sg_svg_count(l->start + 1, b1),
                 sg_svg_count(l->end, b2));
    }
    const sg_repeat_pictures_t pics = {.g = g, .comp = comp, .view = view, .n_view = n_view};
    sg_repeats_svg(pictures->fp, rp, &pics, g->k, in, n_in);
    for (uint32_t i = 0; i < n_view; i++) free(view[i].spectrum);
    sg_landscape_svg(landscape->fp, rp, g->k, in, n_in);
    if (mqc_repeats->fp) sg_mqc_repeats(mqc_repeats->fp, sample, rp);
    if (!spectrum->fp) return; /* the overlap graph: no k-mers counted */
    sg_spectrum_t sp;
    uint64_t *graph_hist = NULL;
    if (run->builder && run->builder->spectrum) {
        run->builder->spectrum(run->builder, &sp);
    } else { /* a GFA graph, or a builder without a k-mer histogram */
        graph_hist = sg_malloc(SG_HIST_BINS * sizeof *graph_hist);
        sg_spectrum_of_graph(g, graph_hist, SG_HIST_BINS, &sp);
    }
    sg_spectrum_svg(spectrum->fp, &sp, in, n_in);
    if (mqc_spectrum->fp) sg_mqc_spectrum(mqc_spectrum->fp, sample, &sp);
    free(graph_hist);
}

static void write_stats(FILE *fp, const scc_opts_t *o, const scc_run_t *run, const sg_graph_t *g,
                        const sg_repeats_t *rp, const sg_loci_t *loci, double wall)
{
    fprintf(fp, "{\n  \"program\": \"seqgpu\",\n  \"version\": \"%s\",\n  \"command\": \"scc\",\n  \"inputs\": [", SG_VERSION);
    for (int i = 0; i < o->n_inputs; i++) {
        fputs(i ? ", " : "", fp);
        sg_json_str(fp, o->inputs[i]);
    }
    fprintf(fp, "],\n  \"source\": \"%s\",\n  \"backend\": \"%s\",\n", run->source, run->solver->name);
    if (run->why[0]) {
        fputs("  \"backend_choice\": ", fp);
        sg_json_str(fp, run->why);
        fputs(",\n", fp);
    }
    if (run->builder && run->graph_why[0]) {
        fputs("  \"graph_backend_choice\": ", fp);
        sg_json_str(fp, run->graph_why);
        fputs(",\n", fp);
    }
    fprintf(fp, "  \"threads\": %d,\n", o->threads);
    sg_read_stats_json(fp);
    if (o->preset) fprintf(fp, "  \"preset\": \"%s\",\n", o->preset->name);
    if (run->builder) run->builder->stats(run->builder, fp);
    if (run->solver->stats) {
        fprintf(fp, "  \"scc_%s\": {", run->solver->name);
        run->solver->stats(run->solver, fp);
        fputs("},\n", fp);
    }
    fprintf(fp, "  \"nodes\": %u,\n  \"edges\": %llu,\n  \"components\": %u,\n  \"nontrivial_components\": %u,\n",
            g->n, (unsigned long long)(g->oriented ? g->n_edges / 2 : g->n_edges), run->n_comp, run->n_nontrivial);
    if (rp) fprintf(fp, "  \"repeats\": %u,\n", rp->n);
    if (run->builder && !g->reads) fprintf(fp, "  \"bridges\": %llu,\n", (unsigned long long)run->bridges);
    if (loci && rp && rp->kind == SG_REPEATS_ASSEMBLY) fprintf(fp, "  \"loci\": %zu,\n", loci->n);
    const double *b = run->builder ? run->builder->sec : (const double[3]){0};
    fprintf(fp, "  \"stage_seconds\": {\"count\": %.4f, \"coverage\": %.4f, \"compact\": %.4f, \"scc\": %.4f, "
                "\"report\": %.4f},\n  \"wall_seconds\": %.4f,\n  \"cpu_seconds\": %.4f,\n  \"peak_rss_bytes\": %zu\n}\n",
            b[0], b[1], b[2], run->scc_s, run->report_s, wall, sg_cputime(), sg_peak_rss());
}

static int usage_error(const char *fmt, const char *arg)
{
    return sg_usage_error("seqgpu scc", fmt, arg);
}

static char stdin_name[] = "-";
static char *stdin_input[] = {stdin_name};

enum { OPT_MIN_COPIES = 256, OPT_EDGES, OPT_WRITE_GRAPH, OPT_STATS, OPT_DEVICE, OPT_KW, OPT_KV, OPT_KT, OPT_PROGRESS,
       OPT_OVERLAPS, OPT_MIN_OVERLAP, OPT_MIN_IDENTITY, OPT_WRITE_OVERLAPS, OPT_MAX_MEMORY, OPT_TMP_DIR, OPT_PART,
       OPT_COUNTS_OUT, OPT_COUNTS, OPT_ASSEMBLY, OPT_BRIDGE };
static const struct option lopts[] = {
    {"min-copies", required_argument, NULL, OPT_MIN_COPIES}, {"min-count", required_argument, NULL, 'c'},
    {"edges", required_argument, NULL, OPT_EDGES},           {"write-graph", required_argument, NULL, OPT_WRITE_GRAPH},
    {"prefix", required_argument, NULL, 'p'},                {"threads", required_argument, NULL, 't'},
    {"backend", required_argument, NULL, 'b'},               {"stats", required_argument, NULL, OPT_STATS},
    {"quiet", no_argument, NULL, 'q'},                       {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},                        {"device", required_argument, NULL, OPT_DEVICE},
    {"kw", required_argument, NULL, OPT_KW},                 {"kv", required_argument, NULL, OPT_KV},
    {"kt", required_argument, NULL, OPT_KT},                 {"progress", optional_argument, NULL, OPT_PROGRESS},
    {"graph", required_argument, NULL, 'g'},                 {"overlaps", required_argument, NULL, OPT_OVERLAPS},
    {"min-overlap", required_argument, NULL, OPT_MIN_OVERLAP}, {"min-identity", required_argument, NULL, OPT_MIN_IDENTITY},
    {"write-overlaps", required_argument, NULL, OPT_WRITE_OVERLAPS},
    {"max-memory", required_argument, NULL, OPT_MAX_MEMORY}, {"tmp-dir", required_argument, NULL, OPT_TMP_DIR},
    {"part", required_argument, NULL, OPT_PART},             {"counts-out", required_argument, NULL, OPT_COUNTS_OUT},
    {"counts", no_argument, NULL, OPT_COUNTS},               {"version", no_argument, NULL, 'V'},
    {"preset", required_argument, NULL, 'x'},                {"assembly", no_argument, NULL, OPT_ASSEMBLY},
    {"bridge", required_argument, NULL, OPT_BRIDGE},
    {NULL, 0, NULL, 0}};

/* parse, check and plan return this to go on, else the exit status */
#define GO_ON (-1)

/* A real number of (lo, hi], or of [lo, hi] with closed; 0 or -1. */
static int parse_real(const char *s, double lo, double hi, int closed, double *out)
{
    char *end;
    *out = strtod(s, &end);
    return end == s || *end || !(closed ? *out >= lo : *out > lo) || *out > hi ? -1 : 0;
}

/* An option's value that needs no other option to be judged, into o (and
 * which pipeline's option it is); a usage error, or GO_ON. */
static int parse_value(scc_opts_t *o, int c, const char *arg)
{
    long v;
    switch (c) {
    case 'x':
        if (!(o->preset = sg_read_preset(arg))) return usage_error("invalid preset '%s' (hifi, ont, clr or sr)", arg);
        break;
    case 'g':
        if (strcmp(arg, "dbg") && strcmp(arg, "overlap")) return usage_error("invalid graph '%s' (dbg or overlap)", arg);
        o->graph = arg;
        break;
    case OPT_MIN_OVERLAP:
        if (sg_parse_int(arg, 1, SG_READ_MAX_LEN, &v) < 0)
            return usage_error("invalid --min-overlap '%s' (bases, 1 or more)", arg);
        o->min_overlap = v;
        o->overlap_only = "--min-overlap";
        o->min_overlap_given = 1;
        break;
    case OPT_MIN_IDENTITY:
        if (parse_real(arg, 0, 1, 1, &o->min_identity) < 0) return usage_error("invalid --min-identity '%s' (0 to 1)", arg);
        o->overlap_only = "--min-identity";
        o->min_identity_given = 1;
        break;
    case 'k':
        if (sg_parse_int(arg, SG_K_MIN, SG_K_MAX, &v) < 0 || v % 2 == 0)
            return usage_error("invalid k-mer size '%s' (odd, 11 to 63)", arg);
        o->k = (int)v;
        o->k_given = 1;
        o->dbg_only = "-k";
        break;
    case OPT_MIN_COPIES:
        if (parse_real(arg, 0, 1e6, 0, &o->min_copies) < 0)
            return usage_error("invalid --min-copies '%s' (a number above 0)", arg);
        o->dbg_only = "--min-copies";
        break;
    case 'c':
        if (sg_parse_int(arg, 1, UINT32_MAX, &v) < 0) return usage_error("invalid --min-count '%s'", arg);
        o->min_count = v;
        o->dbg_only = "-c";
        break;
    case 't':
        if (sg_parse_int(arg, 1, 4096, &v) < 0) return usage_error("invalid thread count '%s'", arg);
        o->threads = (int)v;
        break;
    case 'b':
        if (strcmp(arg, "auto") && strcmp(arg, "cpu") && strcmp(arg, "cuda"))
            return usage_error("invalid backend '%s' for scc (auto, cpu or cuda)", arg);
        o->backend = arg;
        break;
    case OPT_DEVICE:
        o->device_given = 1;
        if (sg_parse_devices(arg, SG_MAX_DEVICES, &o->devices) < 0)
            return usage_error("invalid --device '%s' (device indices, each once: 0, or 0,1 to count the "
                               "k-mers on both)", arg);
        break;
    case OPT_KW:
        if (sg_parse_int(arg, 1, 32, &v) < 0 || (v & (v - 1)))
            return usage_error("invalid --kw '%s' (1, 2, 4, 8, 16 or 32)", arg);
        o->kw = (int)v;
        break;
    case OPT_KV:
        if (sg_parse_int(arg, 1, 1024, &v) < 0) return usage_error("invalid --kv '%s' (1 to 1024)", arg);
        o->kv = (int)v;
        break;
    case OPT_KT:
        if (sg_parse_int(arg, 0, 1000, &v) < 0) return usage_error("invalid --kt '%s' (0 to 1000)", arg);
        o->kt = (int)v;
        break;
    case OPT_MAX_MEMORY:
        /* below a megabyte the reads in flight alone would not fit */
        if (sg_parse_size(arg, &o->max_memory) < 0 || o->max_memory < (1 << 20))
            return usage_error("invalid --max-memory '%s' (bytes, 1M or more, e.g. 2500M or 8G)", arg);
        o->max_memory_given = 1;
        o->max_memory_arg = arg;
        break;
    case OPT_PART:
        if (sg_parse_part(arg, SG_MAX_PARTS, &o->part, &o->n_parts) < 0)
            return usage_error("invalid --part '%s' (I/N: part I of N, 1 <= I <= N <= 65536)", arg);
        break;
    case OPT_BRIDGE:
        if (sg_parse_int(arg, 0, UINT32_MAX, &v) < 0)
            return usage_error("invalid --bridge '%s' (times the sequence shows a bridge: 0 for none)", arg);
        o->bridge = v;
        o->dbg_only = "--bridge";
        break;
    case OPT_PROGRESS:
        if (sg_parse_progress(arg, &o->progress) < 0) return usage_error("invalid --progress '%s' (seconds, 0.1 or more)", arg);
        break;
    }
    return GO_ON;
}

/* The command line into o, each value checked alone; -h, -V or a usage
 * error end the run here (their exit status), else GO_ON. */
static int parse(int argc, char **argv, scc_opts_t *o)
{
    *o = (scc_opts_t){.prefix = "seqgpu_scc", .backend = "auto", .k = 31, .min_copies = 3, .kw = 4, .kv = 2, .kt = 2,
                      .min_overlap = 2000, .min_identity = 0.8, .bridge = -1};
    int c, r;
    sg_log_init("seqgpu scc", 0);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":k:c:p:t:b:g:x:qvVh", lopts, NULL)) >= 0) {
        switch (c) {
        case OPT_OVERLAPS: o->overlaps = o->overlap_only = optarg; break;
        case OPT_WRITE_OVERLAPS:
            o->write_overlaps = optarg;
            o->overlap_only = "--write-overlaps";
            break;
        case OPT_EDGES: o->edges = optarg; break;
        case OPT_WRITE_GRAPH: o->write_graph = optarg; break;
        case 'p': o->prefix = optarg, o->prefix_given = 1; break;
        case OPT_STATS: o->stats = optarg; break;
        case OPT_TMP_DIR: o->tmp_dir = optarg; break;
        case OPT_COUNTS_OUT: o->counts_out = optarg; break;
        case OPT_COUNTS: o->counts = 1; break;
        case OPT_ASSEMBLY:
            o->assembly = 1;
            o->dbg_only = "--assembly";
            break;
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
    sg_log_init("seqgpu scc", o->quiet);
    o->inputs = argv + optind;
    o->n_inputs = argc - optind;
    return GO_ON;
}

/* The rules of -x and -g: a preset's graph, and each pipeline's options
 * with its graph alone; a usage error, or GO_ON. */
static int check_graph(scc_opts_t *o)
{
    if (o->preset && o->graph && strcmp(o->graph, o->preset->graph)) {
        char why[64];
        snprintf(why, sizeof why, "-x %s is a preset of -g %s", o->preset->name, o->preset->graph);
        return usage_error("%s", why);
    }
    if (o->preset) {
        o->graph = o->preset->graph;
        if (!o->min_overlap_given && o->preset->min_overlap) o->min_overlap = o->preset->min_overlap;
        if (!o->min_identity_given && o->preset->min_identity > 0) o->min_identity = o->preset->min_identity;
    }
    if (!o->graph) o->graph = o->overlaps ? "overlap" : "dbg";
    if (o->overlap_only && strcmp(o->graph, "overlap"))
        return usage_error("%s is an option of -g overlap", o->overlap_only == o->overlaps ? "--overlaps" : o->overlap_only);
    if (o->edges && !strcmp(o->graph, "overlap"))
        return usage_error("%s", "-g overlap builds the graph of reads: --edges takes a graph");
    if (!strcmp(o->graph, "overlap") && o->dbg_only)
        return usage_error("%s is an option of -g dbg (k-mer counts); -g overlap takes --min-overlap and "
                           "--min-identity", o->dbg_only);
    if (!strcmp(o->graph, "overlap") && (o->part || o->counts_out || o->counts || o->max_memory || o->tmp_dir))
        return usage_error("%s is an option of -g dbg (k-mer counts)", o->part ? "--part" : o->counts_out ? "--counts-out"
                                                                       : o->counts ? "--counts" : o->max_memory ? "--max-memory"
                                                                                                   : "--tmp-dir");
    return GO_ON;
}

/* The rules of the inputs: edges, reads (standard input when none is
 * named and it is no terminal), counts files and parts; a usage error, or
 * GO_ON. */
static int check_inputs(scc_opts_t *o)
{
    if (o->edges && o->n_inputs) return usage_error("%s", "--edges takes the graph: give no other input");
    if (o->bridge > 0 && (o->edges || o->counts_out))
        return usage_error("%s", o->edges ? "--bridge bridges a de Bruijn graph of sequence, not a graph (--edges)"
                                          : "--bridge goes with the run that builds the graph (--counts), not a part "
                                            "(--counts-out)");
    if (o->assembly && (o->edges || o->counts_out))
        return usage_error("%s", o->edges ? "--assembly takes an assembly's sequence, not a graph (--edges)"
                                          : "--assembly goes with the run that writes the report (--counts), not a "
                                            "part (--counts-out)");
    if (!o->edges && !o->n_inputs) {
        if (isatty(STDIN_FILENO)) return usage_error("%s", "no input given (reads, a GFA graph, or --edges FILE)");
        o->inputs = stdin_input;
        o->n_inputs = 1;
    }
    if (o->part && !o->counts_out) return usage_error("%s", "--part counts a part of the k-mers for --counts-out FILE");
    if (o->counts_out && !o->part) o->part = o->n_parts = 1;
    if ((o->counts_out || o->counts) && o->edges)
        return usage_error("%s", "--counts-out and --counts take the k-mers of reads, not a graph (--edges)");
    if (o->counts_out && (o->counts || o->write_graph))
        return usage_error("%s", "--counts-out writes the part's k-mer counts and nothing else: no --counts or "
                                 "--write-graph");
    if (o->counts && !strcmp(o->inputs[0], "-"))
        return usage_error("%s", "--counts takes the counts files of a run's parts as its inputs");
    if (o->counts_out && o->prefix_given)
        return usage_error("%s", "--counts-out writes the part's k-mer counts and nothing else: no -p (the run of "
                                 "--counts writes the report)");
    if (o->counts_out && (!strcmp(o->backend, "cuda") || o->device_given))
        return usage_error("%s", "--counts-out counts a part's k-mers on the cpu: leave out -b cuda and --device");
    if (o->counts && (o->max_memory_given || o->tmp_dir))
        return usage_error("%s", "--max-memory and --tmp-dir bound the counting of reads: --counts takes k-mers "
                                 "counted already (each part bounds its own memory)");
    return GO_ON;
}

/* The file name PREFIX ends in (from *base), less a compressing suffix:
 * its length. */
static size_t prefix_stem(const char *prefix, const char **base)
{
    const char *slash = strrchr(prefix, '/');
    *base = slash ? slash + 1 : prefix;
    return strlen(*base) - prefix_gz(prefix);
}

/* The rules of the room a run has: --tmp-dir, --max-memory and the prefix;
 * an error's exit status, or GO_ON. */
static int check_room(scc_opts_t *o)
{
    if (o->tmp_dir) {
        struct stat st;
        if (stat(o->tmp_dir, &st) < 0 || !S_ISDIR(st.st_mode) || access(o->tmp_dir, W_OK | X_OK) < 0)
            return usage_error("--tmp-dir '%s' is not a folder this run can write to", o->tmp_dir);
    }
    if (o->max_memory_given && !o->edges && o->max_memory < least_memory(o)) {
        /* the reads in flight and the counting's buffers alone would not fit */
        char least[32];
        snprintf(least, sizeof least, "%zuM", (least_memory(o) >> 20) + 1);
        sg_error("--max-memory %s is below the least a run of %d threads works in: %s (the reads in flight and the "
                 "k-mer counting's buffers); give --max-memory %s or more, or fewer threads (-t)",
                 o->max_memory_arg, o->threads, least, least);
        return SG_EXIT_INPUT;
    }
    if (!o->max_memory) o->max_memory = sg_available_memory() / 4 * 3;
    const char *base;
    size_t stem = prefix_stem(o->prefix, &base);
    if (!stem || !strncmp(base, ".", stem) || !strncmp(base, "..", stem))
        return usage_error("invalid prefix '%s': it must end in a file name (PREFIX.repeats.tsv and the other outputs "
                           "would be hidden files or folders)", o->prefix);
    if (sg_outfile_fd(o->prefix) >= 0)
        return usage_error("invalid prefix '%s': PREFIX names several files (PREFIX.repeats.tsv and the others), "
                           "not standard output or another descriptor: give a file name", o->prefix);
    return GO_ON;
}

/* Every rule between options, in one place (minimap2's mm_check_opt): a
 * usage error, or GO_ON with the defaults the options leave filled in. */
static int check(scc_opts_t *o)
{
    int r = check_graph(o);
    if (r != GO_ON) return r;
    if (!o->threads) o->threads = sg_default_threads();
    if ((r = check_inputs(o)) != GO_ON) return r;
    return check_room(o);
}

enum { OUT_TSV, OUT_GFA, OUT_UNITS, OUT_COMP, OUT_SPECTRUM, OUT_PICTURES, OUT_MQC_SPECTRUM, OUT_MQC_REPEATS,
       OUT_LOCI, OUT_LANDSCAPE, OUT_LOCI_INDEX, OUT_GRAPH, OUT_STATS, OUT_COUNTS, OUT_OVERLAPS, N_OUT };
enum { N_PATHS = 11 };

/* What a run makes: its outputs' names and the files, opened before any work. */
typedef struct {
    char *sample; /* MultiQC's sample: the prefix's file name */
    char *paths[N_PATHS];
    sg_outfile_t outs[N_OUT];
} scc_plan_t;

/* The outputs a run writes, as the options ask, opened (after the checks
 * of sg_outfiles_open) before any input is read; an error's exit status, or
 * GO_ON. */
static int plan_outputs(scc_opts_t *o, scc_plan_t *p)
{
    const char *base;
    size_t stem = prefix_stem(o->prefix, &base);
    /* MultiQC's sample: the prefix's file name; its files go beside --stats */
    p->sample = sg_strdup(base);
    p->sample[stem] = 0;
    char *const paths[N_PATHS] = {out_path(o->prefix, ".repeats.tsv", 0), out_path(o->prefix, ".gfa", 0),
                                  out_path(o->prefix, ".units.fa", 0), out_path(o->prefix, ".components.tsv", 0),
                                  out_path(o->prefix, ".spectrum.svg", 1), out_path(o->prefix, ".repeats.svg", 1),
                                  sg_mqc_beside(o->stats, p->sample, ".spectrum_mqc.json"),
                                  sg_mqc_beside(o->stats, p->sample, ".repeats_mqc.tsv"),
                                  out_path(o->prefix, ".loci.bed", 0), out_path(o->prefix, ".landscape.svg", 1),
                                  out_path(o->prefix, ".loci.bed", 0)};
    memcpy(p->paths, paths, sizeof paths);
    if (prefix_gz(o->prefix)) { /* a compressed BED gets its tabix index */
        free(p->paths[OUT_LOCI_INDEX]);
        size_t len = strlen(p->paths[OUT_LOCI]) + 5;
        p->paths[OUT_LOCI_INDEX] = sg_malloc(len);
        snprintf(p->paths[OUT_LOCI_INDEX], len, "%s.tbi", p->paths[OUT_LOCI]);
    }
    const int report = !o->counts_out; /* a part's counts are all a --counts-out run writes */
    const int reads = report && !o->edges; /* outputs of a graph of reads (or a GFA graph) */
    const int overlap = !strcmp(o->graph, "overlap"); /* the overlap graph counts no k-mers: no spectrum */
    /* loci: of the sequence's k-mers (a GFA graph, found out later, writes the header alone) */
    const int with_loci = reads && !overlap;
    char **ps = p->paths;
    const sg_outfile_t outs[N_OUT] = {
        {.what = "PREFIX.repeats.tsv", .path = !reads ? NULL : ps[0]},
        {.what = "PREFIX.gfa", .path = !reads ? NULL : ps[1]},
        {.what = "PREFIX.units.fa", .path = !reads ? NULL : ps[2]},
        {.what = "PREFIX.components.tsv", .path = report ? ps[3] : NULL},
        {.what = "PREFIX.spectrum.svg", .path = !reads || overlap ? NULL : ps[4]},
        {.what = "PREFIX.repeats.svg", .path = !reads ? NULL : ps[5]},
        {.what = "PREFIX.spectrum_mqc.json", .path = !reads || overlap ? NULL : ps[6]},
        {.what = "PREFIX.repeats_mqc.tsv", .path = !reads ? NULL : ps[7]},
        {.what = "PREFIX.loci.bed", .path = with_loci ? ps[OUT_LOCI] : NULL},
        {.what = "PREFIX.landscape.svg", .path = reads ? ps[OUT_LANDSCAPE] : NULL},
        {.what = "the tabix index of PREFIX.loci.bed", .path = with_loci && prefix_gz(o->prefix) ? ps[OUT_LOCI_INDEX] : NULL,
         .threads = o->threads, .index_of = &p->outs[OUT_LOCI]},
        {.what = "--write-graph", .path = o->write_graph},
        {.what = "--stats", .path = o->stats},
        {.what = "--counts-out", .path = o->counts_out, .threads = o->threads},
        {.what = "--write-overlaps", .path = o->write_overlaps},
    };
    memcpy(p->outs, outs, sizeof outs);
    /* the inputs: the edges, or the reads and the PAF of --overlaps */
    char **inputs = sg_malloc(((size_t)o->n_inputs + 2) * sizeof *inputs);
    int n_in = 0;
    if (o->edges) inputs[n_in++] = (char *)o->edges;
    else
        while (n_in < o->n_inputs) inputs[n_in] = o->inputs[n_in], n_in++;
    if (o->overlaps) inputs[n_in++] = (char *)o->overlaps;
    /* before any input is read: an input named twice that can be read once,
     * an output on an input, an output that cannot be written */
    int r = sg_inputs_check(inputs, n_in);
    if (r == 0) r = sg_outfiles_open(p->outs, N_OUT, inputs, n_in);
    free(inputs);
    if (r < 0) return sg_exit_code(r);
    o->overlaps_out = p->outs[OUT_OVERLAPS].fp;
    return GO_ON;
}

/* The backend of the run, for the size of its input, into name; a solver
 * on a device starts now, while the input is read. */
/* The solver opened on backend (an sg_stage_fn). */
static int solver_on(void *arg, const char *backend, char *err, size_t errsz)
{
    const solve_t *a = arg;
    return open_solver(a->o, backend, a->run, err, errsz);
}

static int plan_backend(const scc_opts_t *o, scc_run_t *run, const char **name)
{
    sg_stage_t st = stage_of(o, choose_start(o, run->graph_why, sizeof run->graph_why), "using the cpu backend",
                             run->graph_why, sizeof run->graph_why);
    const char *asked = st.backend;
    const solve_t a = {.o = o, .run = run};
    int r = sg_stage_run(&st, solver_on, (void *)&a);
    run->device_failed = st.fell_back;
    *name = st.backend;
    if (r < 0 && !st.fell_back) sg_error("%s backend: %s", asked, st.err);
    return r;
}

/* What a run finds: the graph, its components and the report's tables. */
typedef struct {
    sg_graph_t g;
    uint32_t *comp, *node_comp;
    double coverage; /* the k-mers' (1: unknown) */
    sg_repeats_t rp;
    sg_loci_t loci;
} scc_found_t;

/* The graph of the inputs: the edges, counts files, one GFA graph or the
 * reads (the format from the stream that is then read: a pipe is read
 * once), by the graph builder on the backend name. */
static int read_graph(const scc_opts_t *o, scc_run_t *run, const char *name, scc_found_t *f)
{
    int r;
    if (o->edges) {
        run->source = "edges";
        sg_progress_stage("reading the edges", 0);
        return sg_edges_read(o->edges, &f->g);
    }
    if (o->counts) {
        run->source = "counts";
        if ((r = graph_from_counts(o, run, &f->g)) == 0) f->coverage = run->builder->coverage;
        return r == 0 ? bridge(o, run, &f->g) : r;
    }
    sg_progress_stage("reading", 0);
    sg_reader_t *rd = sg_reader_new(o->inputs, o->n_inputs, read_block(o), o->threads);
    int fmt = sg_reader_format(rd);
    if (fmt < 0 || fmt == SG_FMT_GFA) {
        r = fmt;
        if (fmt == SG_FMT_GFA) {
            run->source = "gfa";
            sg_progress_stage("reading the graph", 0);
            if (!strcmp(o->graph, "overlap") || o->assembly || o->bridge > 0) {
                sg_error("%s: '%s' is a GFA graph", o->assembly ? "--assembly takes an assembly's sequence"
                                                    : o->bridge > 0 ? "--bridge bridges a de Bruijn graph of sequence"
                                                                    : "-g overlap builds the graph of reads",
                         o->inputs[0]);
                r = SG_ERR_INPUT;
            } else if (o->n_inputs > 1) {
                sg_error("a GFA graph is read alone: give one input");
                r = SG_ERR_INPUT;
            } else if ((r = sg_gfa_parse(rd, &f->g)) == 0) {
                f->coverage = sg_coverage_of_graph(&f->g);
            }
        }
        sg_reader_free(rd);
        return r;
    }
    run->source = "reads";
    if ((r = graph_from_reads(o, run, name, rd, &f->g)) == 0) f->coverage = run->builder->coverage;
    if (r == 0 && !f->g.reads) r = bridge(o, run, &f->g);
    return r;
}

/* The report of the components: the repeats' tables, sequences, loci and
 * pictures of a graph of sequence, else the components of a plain graph. */
static int write_report(const scc_opts_t *o, scc_plan_t *p, scc_run_t *run, scc_found_t *f)
{
    sg_graph_t *g = &f->g;
    sg_outfile_t *outs = p->outs;
    int r = 0;
    if (o->write_graph) sg_gfa_write(outs[OUT_GRAPH].fp, g, NULL, NULL);
    if (!g->oriented) {
        f->node_comp = sg_malloc(((size_t)g->n + 1) * sizeof *f->node_comp);
        run->n_nontrivial = sg_components_plain(g, f->comp, run->n_comp, f->node_comp);
        sg_components_write(outs[OUT_COMP].fp, g, f->node_comp);
        return 0;
    }
    sg_repeats_t *rp = &f->rp;
    if (run->builder && run->builder->repeats) r = run->builder->repeats(run->builder, g, f->comp, run->n_comp, rp);
    else sg_repeats_find(g, f->comp, run->n_comp, f->coverage, rp);
    if (r < 0) return r;
    rp->kind = g->reads ? SG_REPEATS_READS : SG_REPEATS_DBG;
    if (run->builder && run->builder->assembly && (r = place_loci(o, run, g, f->comp, rp, &f->loci)) < 0) return r;
    run->n_nontrivial = rp->n;
    if (outs[OUT_LOCI].fp) sg_loci_write_bed(outs[OUT_LOCI].fp, &f->loci);
    uint8_t *keep = sg_calloc((size_t)g->n + 1, 1);
    for (uint32_t i = 0; i < g->n; i++) keep[i] = rp->node_repeat[i] != 0;
    sg_repeats_write_tsv(outs[OUT_TSV].fp, rp);
    sg_gfa_write(outs[OUT_GFA].fp, g, keep, rp->node_repeat);
    sg_repeats_write_units(outs[OUT_UNITS].fp, rp);
    sg_components_write(outs[OUT_COMP].fp, g, rp->node_repeat);
    write_pictures(o, run, g, f->comp, rp, &f->loci, &outs[OUT_SPECTRUM], &outs[OUT_PICTURES], &outs[OUT_LANDSCAPE],
                   &outs[OUT_MQC_SPECTRUM], &outs[OUT_MQC_REPEATS], p->sample);
    free(keep);
    return 0;
}

/* The last lines of a run: what it found and wrote, and its time. */
static void say_done(const scc_plan_t *p, const scc_run_t *run, const scc_found_t *f, double t_start)
{
    char *const *paths = p->paths;
    const sg_outfile_t *outs = p->outs;
    if (f->g.oriented) {
        uint32_t tandem = 0;
        for (uint32_t i = 0; i < f->rp.n; i++) tandem += f->rp.r[i].tandem;
        const int sp = outs[OUT_SPECTRUM].path != NULL, mqc = outs[OUT_MQC_REPEATS].path != NULL;
        const int lb = outs[OUT_LOCI].path != NULL;
        sg_info("%u repeats (%u tandem) in %u components; wrote %s, %s, %s, %s%s%s; pictures %s%s%s, %s%s%s%s%s",
                f->rp.n, tandem, run->n_comp, paths[0], paths[1], paths[2], paths[3], lb ? ", " : "",
                lb ? paths[OUT_LOCI] : "", sp ? paths[4] : "", sp ? ", " : "", paths[5], paths[OUT_LANDSCAPE],
                mqc ? "; for MultiQC " : "", mqc && sp ? paths[6] : "", mqc && sp ? ", " : "", mqc ? paths[7] : "");
    } else {
        sg_info("%u strongly connected components, %u with two or more nodes or a self-loop; wrote %s",
                run->n_comp, run->n_nontrivial, paths[3]);
    }
    sg_info("real %.3f s, cpu %.3f s, peak RSS %.1f MB", sg_realtime() - t_start, sg_cputime(),
            sg_peak_rss() / 1048576.0);
}

/* A run that writes the report: the backend, the graph, its SCCs, the
 * report and --stats, the outputs closed. */
static int report(const scc_opts_t *o, scc_plan_t *p, scc_run_t *run, scc_found_t *f, double t_start)
{
    const char *name;
    int r = plan_backend(o, run, &name);
    if (r < 0) return r;
    sg_progress_start("seqgpu scc", o->quiet, o->progress);
    if ((r = read_graph(o, run, name, f)) < 0) return r;
    const sg_graph_t *g = &f->g;
    sg_info("graph: %u %s, %llu links", g->n, g->reads ? "reads" : g->oriented ? "unitigs" : "nodes",
            (unsigned long long)(g->oriented ? g->n_edges / 2 : g->n_edges));
    double t0 = sg_realtime();
    sg_progress_stage("finding SCCs", 0);
    f->comp = sg_malloc(((size_t)g->n_vert + 1) * sizeof *f->comp);
    if ((r = find_sccs(o, run, g, f->comp)) < 0) return r;
    run->scc_s = sg_realtime() - t0;
    t0 = sg_realtime();
    sg_progress_stage("writing", 0);
    if ((r = write_report(o, p, run, f)) < 0) return r;
    run->report_s = sg_realtime() - t0;
    if (o->stats)
        write_stats(p->outs[OUT_STATS].fp, o, run, g, g->oriented ? &f->rp : NULL, &f->loci, sg_realtime() - t_start);
    r = sg_outfiles_close(p->outs, N_OUT);
    sg_progress_stop();
    if (r == 0) say_done(p, run, f, t_start);
    return r;
}

/* The planned run: a part's k-mer counts (--counts-out), or the report; on
 * an error the outputs are discarded. Its exit status. */
static int run_plan(const scc_opts_t *o, scc_plan_t *p, double t_start)
{
    scc_run_t *run = sg_calloc(1, sizeof *run);
    scc_found_t f = {.coverage = 1};
    int r;
    if (o->counts_out) {
        sg_progress_start("seqgpu scc", o->quiet, o->progress);
        if ((r = write_counts(o, run, &p->outs[OUT_COUNTS], p->outs[OUT_STATS].fp, t_start)) == 0)
            r = sg_outfiles_close(p->outs, N_OUT);
    } else {
        r = report(o, p, run, &f, t_start);
    }
    sg_progress_stop();
    if (r < 0) sg_outfiles_discard(p->outs, N_OUT);
    free(run->tmp_dir);
    free(f.comp);
    free(f.node_comp);
    sg_repeats_free(&f.rp);
    sg_loci_free(&f.loci);
    sg_graph_free(&f.g);
    if (run->builder) run->builder->free(run->builder);
    if (run->solver) run->solver->free(run->solver);
    free(run);
    return sg_exit_code(r);
}

int main_scc(int argc, char **argv)
{
    scc_opts_t o;
    scc_plan_t p = {0};
    double t_start = sg_realtime();
    int ret = parse(argc, argv, &o);
    if (ret == GO_ON) ret = check(&o);
    if (ret == GO_ON && (ret = plan_outputs(&o, &p)) == GO_ON) ret = run_plan(&o, &p, t_start);
    for (int i = 0; i < N_PATHS; i++) free(p.paths[i]);
    free(p.sample);
    return ret;
}
