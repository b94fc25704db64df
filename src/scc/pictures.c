#define _GNU_SOURCE
#include "scc/pictures.h"
#include "formats/svg.h"
#include "core/dna.h"
#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Average advance of a character of DejaVu Sans (and of the mono font), in
 * em: what the layouts reserve so that labels do not run into each other. */
#define CHAR_EM 0.62

static double text_width(const char *s, double px) { return (double)sg_svg_chars(s) * CHAR_EM * px; }

/* The titles' font size (the style sheets' .title), and how much wider
 * their bold letters run. */
#define TITLE_PX 17.0
#define BOLD 1.1

/* A title of width w (pixels) at TITLE_PX into out: before, the inputs'
 * base names (", "-separated, cut to what fits), after. */
static void title_of(const char *before, char *const *inputs, int n, const char *after, double w, char *out,
                     size_t outsz)
{
    char *all = NULL, names[1024];
    size_t len = 0;
    FILE *fp = open_memstream(&all, &len);
    if (!fp) {
        sg_error("out of memory");
        exit(SG_EXIT_SYSTEM);
    }
    for (int i = 0; i < n; i++) {
        const char *slash = strrchr(inputs[i], '/');
        fprintf(fp, "%s%s", i ? ", " : "", !strcmp(inputs[i], "-") ? "standard input" : slash ? slash + 1 : inputs[i]);
    }
    fclose(fp);
    double room = w / (CHAR_EM * BOLD * TITLE_PX) - (double)sg_svg_chars(before) - (double)sg_svg_chars(after);
    sg_svg_fit(all, room > 8 ? (size_t)room : 8, names, sizeof names);
    snprintf(out, outsz, "%s%s%s", before, names, after);
    free(all);
}

/* A number of k-mers for a line of text: exact below a million, else to
 * three digits (90.3G), so that the line fits whatever the input. */
static const char *short_count(uint64_t x, char buf[32])
{
    static const char suffix[] = "kMGTPE";
    if (x < 1000000) return sg_svg_count(x, buf);
    double v = (double)x;
    int s = -1;
    while (v >= 999.5 && s < 5) v /= 1000, s++;
    snprintf(buf, 32, "%.*f%c", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, v, suffix[s]);
    return buf;
}

/* ---- the spectrum ---- */

#define SPEC_W 800
#define SPEC_H 500
/* the plot area */
#define PX0 86.0
#define PX1 762.0
#define PY0 72.0
#define PY1 432.0

typedef struct {
    double lx0, lx1, ly0, ly1; /* the axes' ends, log10 */
} axes_t;

static double xpos(const axes_t *a, double count) { return PX0 + (log10(count) - a->lx0) / (a->lx1 - a->lx0) * (PX1 - PX0); }
static double ypos(const axes_t *a, double kmers) { return PY1 - (log10(kmers) - a->ly0) / (a->ly1 - a->ly0) * (PY1 - PY0); }

/* The least of 1, 2, 5 x 10^d at or above x, as its log10. */
static double nice_above(double x)
{
    double d = floor(log10(x)), m = x / pow(10, d);
    return d + (m <= 1 + 1e-9 ? 0 : m <= 2 + 1e-9 ? log10(2) : m <= 5 + 1e-9 ? log10(5) : 1);
}

/* An axis label: 1,000 on the counts, 10k and 1M on the k-mers. */
static const char *tick_label(double v, int si, char buf[32])
{
    static const char *suffix[] = {"", "k", "M", "G", "T", "P"};
    if (!si || v < 1000) return sg_svg_count((uint64_t)llround(v), buf);
    int s = 0;
    while (v >= 1000 && s < 5) v /= 1000, s++;
    snprintf(buf, 32, "%.0f%s", v, suffix[s]);
    return buf;
}

/* Ticks of a log axis from 10^lo to 10^hi: a labelled line at every power
 * of ten, short ones at 2..9 times it, labelled at 2 and 5 when the axis
 * spans few decades. */
static void log_ticks(FILE *fp, const axes_t *a, int vertical)
{
    double lo = vertical ? a->ly0 : a->lx0, hi = vertical ? a->ly1 : a->lx1;
    int few = hi - lo < 2.2;
    char b[32];
    for (int d = (int)floor(lo); d <= (int)ceil(hi); d++)
        for (int m = 1; m <= 9; m++) {
            double v = m * pow(10, d), l = log10(v);
            if (l < lo - 1e-9 || l > hi + 1e-9) continue;
            int major = m == 1, label = major || (few && (m == 2 || m == 5));
            if (vertical) {
                double y = ypos(a, v);
                if (major) fprintf(fp, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", PX0, y, PX1, y);
                fprintf(fp, "<line class=\"axis\" data-y=\"%g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", v,
                        PX0 - (major ? 6 : 3), y, PX0, y);
                if (label) sg_svg_text(fp, PX0 - 9, y + 4.5, "ytick end", "%s", tick_label(v, 1, b));
            } else {
                double x = xpos(a, v);
                if (major) fprintf(fp, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, PY0, x, PY1);
                fprintf(fp, "<line class=\"axis\" data-x=\"%g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", v, x,
                        PY1, x, PY1 + (major ? 6 : 3));
                /* a long last label ends at the picture's edge rather than past it */
                if (label && x + text_width(tick_label(v, 0, b), 13) / 2 > SPEC_W - 3)
                    sg_svg_text(fp, SPEC_W - 3, PY1 + 21, "xtick end", "%s", b);
                else if (label) sg_svg_text(fp, x, PY1 + 21, "xtick mid", "%s", b);
            }
        }
}

/* The histogram's bins as a line through each run of counts seen, and a
 * dot for a count whose neighbours were not: in pixels, a point that adds
 * nothing to the one before it (the same column, within the heights drawn
 * there) is left out, so a dense tail of 65,000 counts stays a small file. */
static void draw_curve(FILE *fp, const axes_t *a, const uint64_t *hist, int last)
{
    for (int c = 1; c <= last;) {
        if (!hist[c]) {
            c++;
            continue;
        }
        int end = c;
        while (end < last && hist[end + 1]) end++;
        if (end == c) {
            fprintf(fp, "<circle class=\"bin\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.4\"/>\n", xpos(a, c), ypos(a, (double)hist[c]));
        } else {
            fputs("<polyline class=\"curve\" points=\"", fp);
            double col = -1, lo = 0, hi = 0;
            for (int b = c; b <= end; b++) {
                double x = round(xpos(a, b) * 10) / 10, y = round(ypos(a, (double)hist[b]) * 10) / 10;
                if (b > c && b < end && x - col < 0.5 && y >= lo && y <= hi) continue;
                if (x - col >= 0.5) col = x, lo = hi = y;
                lo = fmin(lo, y), hi = fmax(hi, y);
                fprintf(fp, "%s%.1f,%.1f", b > c ? " " : "", x, y);
            }
            fputs("\"/>\n", fp);
        }
        c = end + 1;
    }
}

typedef struct {
    const char *cls; /* the swatch's class; NULL: none */
    int line;        /* a line; else a box */
    char text[160];
} legend_t;

/* Curve points of bins [1, last] inside the box: where a legend would hide the most. */
static int points_inside(const axes_t *a, const uint64_t *hist, int last, double x0, double y0, double x1, double y1)
{
    int n = 0;
    for (int c = 1; c <= last; c++) {
        if (!hist[c]) continue;
        double x = xpos(a, c), y = ypos(a, (double)hist[c]);
        n += x >= x0 && x <= x1 && y >= y0 && y <= y1;
    }
    return n;
}

/* The legend in the corner of the plot where it hides the fewest points. */
static void draw_legend(FILE *fp, const axes_t *a, const uint64_t *hist, int last, const legend_t *e, int n)
{
    double w = 0, row = 19, h = n * row + 12;
    for (int i = 0; i < n; i++) w = fmax(w, text_width(e[i].text, 12));
    w += 48;
    const double corner[4][2] = {{PX1 - w - 8, PY0 + 8}, {PX1 - w - 8, PY1 - h - 8}, {PX0 + 8, PY1 - h - 8}, {PX0 + 8, PY0 + 8}};
    int best = 0, best_n = -1;
    for (int i = 0; i < 4; i++) {
        int k = points_inside(a, hist, last, corner[i][0], corner[i][1], corner[i][0] + w, corner[i][1] + h);
        if (best_n < 0 || k < best_n) best = i, best_n = k;
    }
    double x = corner[best][0], y = corner[best][1];
    fprintf(fp, "<rect class=\"legend\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"4\"/>\n", x, y, w, h);
    for (int i = 0; i < n; i++) {
        double cy = y + 6 + row * i + row / 2;
        if (e[i].cls && e[i].line)
            fprintf(fp, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", e[i].cls, x + 10, cy,
                    x + 34, cy);
        else if (e[i].cls)
            fprintf(fp, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"11\"/>\n", e[i].cls, x + 10,
                    cy - 5.5);
        sg_svg_text(fp, x + 42, cy + 4.5, "legendtext", "%s", e[i].text);
    }
}

static const char spectrum_css[] =
    ".title { font-size: 17px; font-weight: bold; } .sub { font-size: 13px; fill: #444; }\n"
    ".xtick, .ytick { font-size: 13px; } .axislabel { font-size: 14px; } .legendtext { font-size: 12px; }\n"
    ".axis { stroke: #222; stroke-width: 1; } .grid { stroke: #e4e4e4; stroke-width: 1; }\n"
    ".curve { fill: none; stroke: #1f4e79; stroke-width: 1.6; stroke-linejoin: round; } .bin { fill: #1f4e79; }\n"
    ".errors { fill: #9e9e9e; fill-opacity: 0.22; } .kept { fill: #f5a623; fill-opacity: 0.22; }\n"
    ".trough { stroke: #616161; stroke-width: 1.5; stroke-dasharray: 2 3; }\n"
    ".coverage { stroke: #2e7d32; stroke-width: 1.6; stroke-dasharray: 7 4; } .peak { fill: #2e7d32; stroke: #fff; stroke-width: 1.5; }\n"
    ".threshold { stroke: #c62828; stroke-width: 1.8; }\n"
    ".legend { fill: #fff; fill-opacity: 0.92; stroke: #bbb; }\n";

void sg_spectrum_svg(FILE *fp, const sg_spectrum_t *sp, char *const *inputs, int n_inputs)
{
    const uint64_t *h = sp->hist;
    const sg_coverage_t *cov = &sp->cov;
    int last = sp->n - 2; /* the last bin, n - 1, holds the counts beyond: not on the axis */
    while (last > 0 && !h[last]) last--;
    uint64_t top = 1;
    for (int c = 1; c <= last; c++) top = h[c] > top ? h[c] : top;
    int errors = !sp->graph && cov->clear && cov->trough > 1;
    double xmax = fmax(fmax(last, 10), 1.3 * cov->coverage);
    if (sp->threshold) xmax = fmax(xmax, 1.3 * sp->threshold);
    /* a k-mer seen once sits above the axis, not on it */
    axes_t a = {0, nice_above(xmax), log10(0.5), nice_above(2 * (double)top)};

    char b1[32], b2[32], b3[32], title[1200], sub[512];
    char kbuf[24] = "";
    if (sp->k > 1) snprintf(kbuf, sizeof kbuf, ", k = %d", sp->k); /* a GFA graph without overlaps has none */
    title_of(sp->graph ? "k-mer depths of the graph " : "k-mer spectrum of ", inputs, n_inputs, kbuf, SPEC_W - PX0 - 8,
             title, sizeof title);
    if (sp->graph) {
        snprintf(sub, sizeof sub, "%s k-mers in the segments; coverage %.1f, their median depth",
                 short_count(sp->distinct, b1), cov->coverage);
    } else {
        int n = snprintf(sub, sizeof sub, "%s k-mers, %s distinct; ", short_count(sp->total, b1),
                         short_count(sp->distinct, b2));
        if (cov->clear) n += snprintf(sub + n, sizeof sub - n, "coverage %.1f; ", cov->coverage);
        else if (cov->assembly) n += snprintf(sub + n, sizeof sub - n, "an assembly; ");
        else n += snprintf(sub + n, sizeof sub - n, "no coverage peak; ");
        snprintf(sub + n, sizeof sub - n, "%s kept (seen %s+ times)", short_count(sp->kept, b3),
                 sg_svg_count(sp->threshold, b1));
    }
    sg_svg_begin(fp, SPEC_W, SPEC_H, title, spectrum_css);
    sg_svg_text(fp, PX0, 28, "title", "%s", title);
    sg_svg_text(fp, PX0, 51, "sub", "%s", sub);

    /* bands under the curve: the error k-mers, the kept ones */
    if (errors)
        fprintf(fp, "<rect class=\"errors\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", PX0, PY0,
                xpos(&a, cov->trough) - PX0, PY1 - PY0);
    if (sp->threshold)
        fprintf(fp, "<rect class=\"kept\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
                xpos(&a, sp->threshold), PY0, PX1 - xpos(&a, sp->threshold), PY1 - PY0);
    log_ticks(fp, &a, 0);
    log_ticks(fp, &a, 1);
    fprintf(fp, "<polyline class=\"axis\" fill=\"none\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n", PX0, PY0, PX0, PY1,
            PX1, PY1);
    sg_svg_text(fp, (PX0 + PX1) / 2, PY1 + 45, "axislabel mid", "%s",
                sp->graph ? "mean k-mer count of a segment" : "k-mer count (times seen)");
    fprintf(fp, "<text class=\"axislabel mid\" transform=\"translate(22 %.1f) rotate(-90)\">%s</text>\n",
            (PY0 + PY1) / 2, sp->graph ? "k-mers" : "distinct k-mers");
    legend_t e[6];
    int n = 0;
    e[n] = (legend_t){.cls = "curve", .line = 1};
    snprintf(e[n++].text, sizeof e->text, "%s at each count", sp->graph ? "k-mers" : "distinct k-mers");
    if (errors) {
        fprintf(fp, "<line class=\"trough\" data-count=\"%d\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                cov->trough, xpos(&a, cov->trough), PY0, xpos(&a, cov->trough), PY1);
        e[n] = (legend_t){.cls = "errors"};
        snprintf(e[n++].text, sizeof e->text, "errors: counts up to the trough at %d", cov->trough);
    }
    if (cov->clear) {
        double x = xpos(&a, cov->coverage);
        fprintf(fp, "<line class=\"coverage\" data-count=\"%.3f\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                cov->coverage, x, PY0, x, PY1);
        e[n] = (legend_t){.cls = "coverage", .line = 1};
        if (sp->graph) snprintf(e[n++].text, sizeof e->text, "coverage %.1f (median depth)", cov->coverage);
        else snprintf(e[n++].text, sizeof e->text, "coverage %.1f (Poisson fit; peak at %d)", cov->coverage, cov->peak);
    } else {
        e[n] = (legend_t){0};
        snprintf(e[n++].text, sizeof e->text, "%s", cov->assembly ? "an assembly: each copy counted once"
                                                                  : "no single-copy peak: coverage taken as 1");
    }
    if (sp->threshold) {
        double x = xpos(&a, sp->threshold);
        fprintf(fp, "<line class=\"threshold\" data-count=\"%u\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                sp->threshold, x, PY0, x, PY1);
        e[n] = (legend_t){.cls = "threshold", .line = 1};
        if (sp->min_copies > 0 && cov->assembly)
            snprintf(e[n++].text, sizeof e->text, "threshold %u (--min-copies)", sp->threshold);
        else if (sp->min_copies > 0)
            snprintf(e[n++].text, sizeof e->text, "threshold %u (%g \xc3\x97 coverage)", sp->threshold, sp->min_copies);
        else snprintf(e[n++].text, sizeof e->text, "threshold %u (-c)", sp->threshold);
        e[n] = (legend_t){.cls = "kept"};
        snprintf(e[n++].text, sizeof e->text, "kept as repeats: %s distinct k-mers", sg_svg_count(sp->kept, b1));
    }
    if (h[sp->n - 1]) {
        e[n] = (legend_t){0};
        snprintf(e[n++].text, sizeof e->text, "%s seen %s+ times (off the axis)", sg_svg_count(h[sp->n - 1], b1),
                 sg_svg_count((uint64_t)sp->n - 1, b2));
    }
    /* the data over the marker lines, the peak's dot over the data, the legend over all */
    draw_curve(fp, &a, h, last);
    if (cov->clear && cov->peak > 0 && cov->peak <= last && h[cov->peak])
        fprintf(fp, "<circle class=\"peak\" data-count=\"%d\" data-kmers=\"%llu\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\"/>\n",
                cov->peak, (unsigned long long)h[cov->peak], xpos(&a, cov->peak), ypos(&a, (double)h[cov->peak]));
    draw_legend(fp, &a, h, last, e, n);
    sg_svg_end(fp);
}

/* ---- the repeats ---- */

#define REP_W 1200
#define COLS 3
#define MARGIN 10.0
#define GAP 8.0
#define PANEL_H 292.0
#define HEAD_H 82.0
/* inside a panel: the spectrum's box, and the heatmap's (or cycle's) square */
#define SPEC_X 8.0
#define SPEC_BOX_W 222.0
#define BOX_Y 50.0
#define BOX_H 168.0
#define SQ 136.0
/* most cycle vertices labelled */
#define MAX_LABELLED 10

static const char *const palette[] = {"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00"};

/* Arrowheads of a fixed size: one over the thick arcs, one for the thin links. */
static const char arrow_defs[] =
    "<defs><marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"5\" refY=\"5\" markerWidth=\"13\" markerHeight=\"13\" "
    "markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\"/></marker>\n"
    "<marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
    "markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\"/></marker></defs>\n";

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The vertices of repeat r's component (one twin; the other is its mirror
 * image), ascending; *n of them. */
static uint32_t *twin_vertices(const sg_graph_t *g, const uint32_t *comp, const sg_repeat_t *r, uint32_t *n)
{
    (void)g;
    uint32_t c = comp[sg_vert(r->nodes[0], 0)], nv = 0;
    uint32_t *v = sg_malloc(2 * ((size_t)r->n_nodes + 1) * sizeof *v);
    for (uint32_t j = 0; j < r->n_nodes; j++)
        for (int o = 0; o < 2; o++)
            if (comp[sg_vert(r->nodes[j], o)] == c) v[nv++] = sg_vert(r->nodes[j], o);
    *n = nv;
    return v;
}

static double arc_x(double cx, double r, double t) { return cx + r * sin(t); }
static double arc_y(double cy, double r, double t) { return cy - r * cos(t); }

/* A small component as a circle of arcs in the order of the cycle, each as
 * long as its k-mers (reads: bases), and the links that leave that order as
 * chords bundled through the middle, in the square at (x, y) of side w. */
static void draw_cycle(FILE *fp, const sg_graph_t *g, const uint32_t *comp, const sg_repeat_t *r, double x, double y,
                       double w)
{
    uint32_t nv;
    uint32_t *v = twin_vertices(g, comp, r, &nv);
    /* circle order: depth first along the links from the first vertex, so
     * that a simple cycle is drawn in its own order */
    uint32_t *order = sg_malloc(((size_t)nv + 1) * sizeof *order), *pos = sg_malloc(((size_t)nv + 1) * sizeof *pos);
    uint32_t *stack = sg_malloc(((size_t)nv + 1) * sizeof *stack), n_order = 0, n_stack = 0;
    uint64_t *next = sg_calloc((size_t)nv + 1, sizeof *next);
    for (uint32_t j = 0; j < nv; j++) pos[j] = UINT32_MAX;
    pos[0] = n_order++;
    order[0] = 0;
    stack[n_stack++] = 0;
    while (n_stack) {
        uint32_t u = stack[n_stack - 1], vu = v[u];
        uint64_t j = g->off[vu] + next[u];
        if (j >= g->off[vu + 1]) {
            n_stack--;
            continue;
        }
        next[u]++;
        const uint32_t *f = bsearch(&g->adj[j], v, nv, sizeof *v, cmp_u32);
        if (!f || pos[f - v] != UINT32_MAX) continue;
        uint32_t t = (uint32_t)(f - v);
        pos[t] = n_order;
        order[n_order++] = t;
        stack[n_stack++] = t;
    }
    const uint32_t drawn = n_order;
    const int labelled = drawn <= MAX_LABELLED;
    double total = 0, cx = x + w / 2, cy = y + w / 2, rad = w / 2 - (labelled ? 18 : 8);
    for (uint32_t j = 0; j < drawn; j++) total += (double)(g->kmers[v[order[j]] >> 1] + 1);
    double *t0 = sg_malloc(((size_t)drawn + 1) * sizeof *t0), gap = drawn > 1 ? fmin(0.1, 1.2 / drawn) : 0.25, at = 0;
    for (uint32_t j = 0; j <= drawn; j++) {
        t0[j] = at;
        if (j < drawn)
            at += (2 * M_PI - drawn * gap) * (0.6 * (g->kmers[v[order[j]] >> 1] + 1) / total + 0.4 / drawn) + gap;
    }
    char nb[32];
    for (uint32_t j = 0; j < drawn; j++) {
        double a0 = t0[j] + gap / 2, a1 = t0[j + 1] - gap / 2, mid = (a0 + a1) / 2;
        uint32_t vj = v[order[j]];
        fputs("<path class=\"unitig\" data-node=\"", fp);
        sg_xml_str(fp, sg_graph_name(g, vj >> 1, nb, sizeof nb));
        fprintf(fp, "%c\" stroke=\"%s\" d=\"M%.1f,%.1f A%.1f,%.1f 0 %d 1 %.1f,%.1f\" marker-end=\"url(#head)\"/>\n",
                vj & 1 ? '-' : '+', palette[j % 6], arc_x(cx, rad, a0), arc_y(cy, rad, a0), rad, rad, a1 - a0 > M_PI,
                arc_x(cx, rad, a1), arc_y(cy, rad, a1));
        if (labelled) {
            double s = sin(mid);
            char name[24];
            sg_svg_fit(sg_graph_name(g, vj >> 1, nb, sizeof nb), 5, name, sizeof name);
            sg_svg_text(fp, arc_x(cx, rad + 11, mid), arc_y(cy, rad + 11, mid) + 3.5,
                        s > 0.3 ? "node" : s < -0.3 ? "node end" : "node mid", "%s%c", name, vj & 1 ? '-' : '+');
        }
    }
    /* the links that do not go on to the next arc: chords through the middle */
    for (uint32_t j = 0; j < drawn; j++) {
        uint32_t vj = v[order[j]];
        for (uint64_t e = g->off[vj]; e < g->off[vj + 1]; e++) {
            const uint32_t *f = bsearch(&g->adj[e], v, nv, sizeof *v, cmp_u32);
            if (!f || pos[f - v] >= drawn || pos[f - v] == (j + 1) % drawn) continue;
            double a0 = t0[j + 1] - gap / 2, a1 = t0[pos[f - v]] + gap / 2;
            fprintf(fp, "<path class=\"link\" d=\"M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f\" marker-end=\"url(#arrow)\"/>\n",
                    arc_x(cx, rad - 4, a0), arc_y(cy, rad - 4, a0), cx, cy, arc_x(cx, rad - 4, a1), arc_y(cy, rad - 4, a1));
        }
    }
    free(t0);
    free(next);
    free(stack);
    free(pos);
    free(order);
    free(v);
}

/* ---- the period spectrum ---- */

/* A linear axis's tick step for a span: 1, 2 or 5 x 10^d, 2 to 5 ticks after 0. */
static double tick_step(double span)
{
    double d = pow(10, floor(log10(span / 2.5))), m = span / 2.5 / d;
    return d * (m < 2 ? 1 : m < 5 ? 2 : 5);
}

/* A distance on an axis: 250, 1,500, 12k, 2.5k. */
static const char *axis_bp(double x, char buf[32])
{
    if (x < 1000 || fmod(x, 100) != 0) return sg_svg_count((uint64_t)llround(x), buf);
    snprintf(buf, 32, "%gk", x / 1000);
    return buf;
}

/* The bases of a length, short: 171, 1,368, 12.5k, 3.10M. */
static const char *short_bp(double x, char buf[32])
{
    if (x < 10000) return sg_svg_count((uint64_t)llround(x), buf);
    return short_count((uint64_t)llround(x), buf);
}

/* The spectrum of view v in the box at (x, y), w x h: bars of the distances
 * (or cycle lengths) up to 4.5 periods, or to where 99% of them end, and a
 * dashed line at each multiple of the period. */
static void draw_spectrum(FILE *fp, const sg_repeat_view_t *v, uint64_t period, double x, double y, double w, double h)
{
    const uint64_t *sp = v->spectrum;
    uint64_t total = 0, acc = 0;
    for (uint32_t d = 1; d <= SG_SPECTRUM_MAX; d++) total += sp[d];
    const double px0 = x + 4, px1 = x + w - 6, py0 = y + 6, py1 = y + h - 34;
    if (!total) {
        sg_svg_text(fp, (px0 + px1) / 2, (py0 + py1) / 2, "small mid", "%s",
                    v->cycles ? "no cycle measured" : "no k-mer seen twice");
        return;
    }
    /* up to 4.5 periods, and the spectrum's highest distance beyond them;
     * without a period, up to where 99% of the distances end */
    uint32_t q = 1, mode = 1;
    for (uint32_t d = 1; d <= SG_SPECTRUM_MAX; d++) mode = sp[d] > sp[mode] ? d : mode;
    for (; q < SG_SPECTRUM_MAX && (acc += sp[q]) < 0.99 * (double)total; q++) {}
    double xmax = period ? fmax(4.5 * (double)period, 1.2 * mode) : 1.05 * q;
    xmax = fmax(xmax, 10);
    if (xmax > SG_SPECTRUM_MAX) xmax = SG_SPECTRUM_MAX;
    double step = tick_step(xmax);
    xmax = ceil(xmax / step) * step;
    /* bars: distances binned to a pixel and a half or more */
    int nb = (int)fmin(xmax, (px1 - px0) / 1.5);
    double bw = xmax / nb, top = 0;
    double *bar = sg_calloc((size_t)nb + 1, sizeof *bar);
    for (uint32_t d = 1; d <= (uint32_t)xmax && d <= SG_SPECTRUM_MAX; d++) {
        int b = (int)((d - 0.5) / bw);
        bar[b < nb ? b : nb - 1] += (double)sp[d];
    }
    for (int b = 0; b < nb; b++) top = fmax(top, bar[b]);
    fprintf(fp, "<g class=\"spectrum\" data-max=\"%g\">\n", xmax);
    /* the multiples of the period, under the bars */
    for (uint64_t m = 1; period && m * period <= xmax && m <= 10; m++) {
        double mx = px0 + (double)(m * period) / xmax * (px1 - px0);
        fprintf(fp, "<line class=\"multiple%s\" data-d=\"%llu\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                m == 1 ? " first" : "", (unsigned long long)(m * period), mx, py0, mx, py1);
    }
    fputs("<path class=\"bars\" d=\"", fp);
    for (int b = 0; b < nb; b++) {
        if (bar[b] <= 0) continue;
        /* bar b holds the distances from b bw + 0.5 to (b + 1) bw + 0.5: each at its place */
        double bx = px0 + (b * bw + 0.5) / xmax * (px1 - px0), bh = fmax(1, bar[b] / top * (py1 - py0));
        fprintf(fp, "M%.1f,%.1fh%.2fv%.1fh%.2fz", bx, py1, bw / xmax * (px1 - px0), -bh, -bw / xmax * (px1 - px0));
    }
    fputs("\"/>\n", fp);
    free(bar);
    /* the axis */
    fprintf(fp, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", px0, py1, px1, py1);
    char b[32];
    for (double t = 0; t <= xmax + 1e-9; t += step) {
        double tx = px0 + t / xmax * (px1 - px0);
        fprintf(fp, "<line class=\"axis\" data-x=\"%g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", t, tx, py1,
                tx, py1 + 4);
        sg_svg_text(fp, tx, py1 + 14, "tick mid", "%s", axis_bp(t, b));
    }
    sg_svg_text(fp, (px0 + px1) / 2, py1 + 28, "tick mid", "%s",
                v->cycles ? "shortest cycle through a k-mer, bp" : "distance to a k-mer's last copy, bp");
    fputs("</g>\n", fp);
}

/* ---- the dot plot, and the self-identity heatmap ---- */

/* an array up to this long is drawn as a dot plot, a longer one as a heatmap of windows */
#define DOT_MAX 30000
#define DOT_CELLS 136
#define HEAT_WINDOWS 48
/* the classes of identity, from the top, and their colours (dark: alike) */
static const double heat_level[] = {0.995, 0.99, 0.98, 0.97, 0.95, 0.90, 0.80, 0};
static const char *const heat_colour[] = {"#7f0000", "#b30000", "#d7301f", "#ef6548",
                                          "#fc8d59", "#fdbb84", "#fdd49e", "#f4f4f4"};
#define N_HEAT 8

/* The distinct SG_SPECTRUM_K-mers of s[0..n), sorted; *m of them. */
static uint32_t *window_kmers(const char *s, uint64_t n, uint32_t *m)
{
    uint32_t *k = sg_malloc((n + 1) * sizeof *k), c = 0;
    uint64_t fw = 0, rc = 0;
    int run = 0;
    for (uint64_t i = 0; i < n; i++)
        if (sg_kmer64_roll(&fw, &rc, &run, (unsigned char)s[i], SG_SPECTRUM_K)) k[c++] = (uint32_t)fw;
    qsort(k, c, sizeof *k, cmp_u32);
    uint32_t u = 0;
    for (uint32_t i = 0; i < c; i++)
        if (!u || k[i] != k[u - 1]) k[u++] = k[i];
    *m = u;
    return k;
}

/* The identity of two windows from their shared k-mers (as Mash reads a
 * containment): C^(1/k); -1 when one has none. */
static double window_identity(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
    if (!na || !nb) return -1;
    uint32_t i = 0, j = 0, shared = 0;
    while (i < na && j < nb) {
        if (a[i] < b[j]) i++;
        else if (a[i] > b[j]) j++;
        else shared++, i++, j++;
    }
    return pow((double)shared / (na < nb ? na : nb), 1.0 / SG_SPECTRUM_K);
}

static int heat_class(double id)
{
    int c = 0;
    while (c < N_HEAT - 1 && id < heat_level[c]) c++;
    return c;
}

/* Cells of an n x n grid in rows, runs of one class in a row one
 * rectangle of that class's fill (class < 0: none), in the square at (x, y)
 * of side w. */
static void draw_cells(FILE *fp, const int *cls, uint32_t n, const char *const *fill, double x, double y, double w)
{
    double cell = w / n;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n;) {
            uint32_t e = j;
            while (e + 1 < n && cls[(size_t)i * n + e + 1] == cls[(size_t)i * n + j]) e++;
            int c = cls[(size_t)i * n + j];
            if (c >= 0)
                fprintf(fp, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n", x + j * cell,
                        y + i * cell, (e - j + 1) * cell + 0.05, cell + 0.05, fill[c]);
            j = e + 1;
        }
}

typedef struct {
    uint32_t kmer, cell;
} kcell_t;

static int cmp_kcell(const void *a, const void *b)
{
    const kcell_t *x = a, *y = b;
    if (x->kmer != y->kmer) return x->kmer < y->kmer ? -1 : 1;
    return (x->cell > y->cell) - (x->cell < y->cell);
}

/* The dot plot of s[0..len) against itself: a cell is dark where a
 * SG_SPECTRUM_K-mer of its row comes back in its column on the same
 * strand, red where its reverse complement does (an inverted copy). */
static void draw_dotplot(FILE *fp, const char *s, uint64_t len, double x, double y, double w)
{
    /* cells of the k-mers' starts */
    const uint64_t starts = len - SG_SPECTRUM_K + 1;
    const uint32_t n = starts < DOT_CELLS ? (uint32_t)starts : DOT_CELLS;
    /* the k-mers and the cell of each place; then of each k-mer, every pair of its cells */
    kcell_t *kc = sg_malloc((2 * len + 1) * sizeof *kc);
    uint64_t m = 0, fw = 0, rc = 0;
    int run = 0;
    for (uint64_t i = 0; i < len; i++) {
        if (!sg_kmer64_roll(&fw, &rc, &run, (unsigned char)s[i], SG_SPECTRUM_K)) continue;
        uint32_t cell = (uint32_t)((i + 1 - SG_SPECTRUM_K) * n / starts);
        kc[m++] = (kcell_t){(uint32_t)fw << 1, cell};
        if (rc != fw) kc[m++] = (kcell_t){(uint32_t)rc << 1 | 1, cell}; /* the place of the k-mer's reverse complement */
    }
    qsort(kc, m, sizeof *kc, cmp_kcell);
    int *cls = sg_malloc(((size_t)n * n + 1) * sizeof *cls);
    for (size_t i = 0; i < (size_t)n * n; i++) cls[i] = -1;
    /* each k-mer's cells where it is (f: sorted, unique), then where its reverse complement is (r) */
    uint32_t *f = sg_malloc(((size_t)n + 1) * sizeof *f), *r = sg_malloc(((size_t)n + 1) * sizeof *r);
    for (uint64_t a = 0; a < m;) {
        uint32_t nf = 0, nr = 0, v = kc[a].kmer >> 1;
        for (; a < m && kc[a].kmer >> 1 == v; a++) {
            uint32_t *to = kc[a].kmer & 1 ? r : f, *cnt = kc[a].kmer & 1 ? &nr : &nf;
            if (!*cnt || to[*cnt - 1] != kc[a].cell) to[(*cnt)++] = kc[a].cell;
        }
        for (uint32_t i = 0; i < nf; i++) {
            for (uint32_t j = 0; j < nf; j++) cls[(size_t)f[i] * n + f[j]] = 0;
            for (uint32_t j = 0; j < nr; j++)
                if (cls[(size_t)f[i] * n + r[j]] < 0) cls[(size_t)f[i] * n + r[j]] = 1;
        }
    }
    free(f);
    free(r);
    static const char *const dots[] = {"#1a1a1a", "#c62828"};
    fprintf(fp, "<g class=\"dotplot\" data-cells=\"%u\" data-bases=\"%llu\">\n", n, (unsigned long long)len);
    fprintf(fp, "<rect class=\"heatframe\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", x, y, w, w);
    draw_cells(fp, cls, n, dots, x, y, w);
    fputs("</g>\n", fp);
    free(kc);
    free(cls);
}

/* The self-identity of s[0..len) in windows of whole periods, as
 * StainedGlass draws an array's: cell (i, j) the identity of windows i and
 * j, in the square at (x, y) of side w. */
static void draw_heatmap(FILE *fp, const char *s, uint64_t len, uint64_t period, double x, double y, double w)
{
    uint64_t win = (len + HEAT_WINDOWS - 1) / HEAT_WINDOWS;
    if (period) win = (win + period - 1) / period * period;
    uint32_t n = (uint32_t)(len / win);
    uint32_t **k = sg_malloc(((size_t)n + 1) * sizeof *k), *nk = sg_malloc(((size_t)n + 1) * sizeof *nk);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t a = win * i, b = i + 1 < n ? win * (i + 1) : len;
        k[i] = window_kmers(s + a, b - a, &nk[i]);
    }
    int *cls = sg_malloc(((size_t)n * n + 1) * sizeof *cls);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i; j < n; j++) {
            double id = window_identity(k[i], nk[i], k[j], nk[j]);
            cls[(size_t)i * n + j] = cls[(size_t)j * n + i] = id < 0 ? -1 : heat_class(id);
        }
    fprintf(fp, "<g class=\"heatmap\" data-windows=\"%u\" data-bases=\"%llu\">\n", n, (unsigned long long)len);
    fprintf(fp, "<rect class=\"heatframe\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", x, y, w, w);
    draw_cells(fp, cls, n, heat_colour, x, y, w);
    fputs("</g>\n", fp);
    for (uint32_t i = 0; i < n; i++) free(k[i]);
    free(k);
    free(nk);
    free(cls);
}

/* The keys of the dot plots and of the heatmaps (either or both), from (x, y) to the right. */
static void heat_key(FILE *fp, int dots, int heat, double x, double y)
{
    if (dots) {
        static const char what[] = "dot plot of an array (up to 30 kb): its 12-mers seen again (dark), inverted (red)";
        fprintf(fp, "<rect class=\"key\" x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"#1a1a1a\"/>\n", x, y);
        fprintf(fp, "<rect class=\"key\" x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"#c62828\"/>\n",
                x + 15, y);
        sg_svg_text(fp, x + 34, y + 10, "small", "%s", what);
        x += 34 + text_width(what, 11) + 24;
    }
    if (!heat) return;
    static const char what[] = "identity of a longer array's windows:";
    sg_svg_text(fp, x, y + 10, "small", "%s", what);
    x += text_width(what, 11) + 8;
    for (int c = 0; c < N_HEAT; c++) {
        fprintf(fp, "<rect class=\"key\" x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x, y,
                heat_colour[c]);
        char label[16];
        if (c < N_HEAT - 1) snprintf(label, sizeof label, "%g%%", 100 * heat_level[c]);
        else snprintf(label, sizeof label, "less");
        sg_svg_text(fp, x + 15, y + 10, "small", "%s", label);
        x += 15 + text_width(label, 11) + 8;
    }
}

/* ---- the panels ---- */

static const char repeats_css[] =
    ".title { font-size: 17px; font-weight: bold; } .sub { font-size: 13px; fill: #444; }\n"
    ".panel { fill: #fafafa; stroke: #d0d0d0; } .head { font-size: 14px; font-weight: bold; }\n"
    ".nums { font-size: 12.5px; } .unit { font-size: 11.5px; } .small { font-size: 11px; fill: #555; }\n"
    ".tick { font-size: 10px; fill: #444; } .note { font-size: 11px; fill: #777; }\n"
    ".node { font-size: 10px; fill: #333; }\n"
    ".unitig { fill: none; stroke-width: 6; } .link { fill: none; stroke: #555; stroke-width: 1.1; }\n"
    ".bars { fill: #1f4e79; } .axis { stroke: #222; stroke-width: 1; }\n"
    ".multiple { stroke: #c62828; stroke-width: 1; stroke-dasharray: 3 3; } .first { stroke-dasharray: none; }\n"
    ".heatframe { fill: #fff; stroke: #bbb; } .key { stroke: #999; stroke-width: 0.5; }\n"
    "marker path { fill: #333; }\n";

/* The unit on up to two lines of width w from (x, y); a longer one cut,
 * with its length. */
static void draw_unit(FILE *fp, const sg_repeat_t *r, double x, double y, double w)
{
    size_t fit = (size_t)(w / (CHAR_EM * 11.5)), len = strlen(r->unit);
    char line[256], more[48], b[32];
    if (!len) {
        sg_svg_text(fp, x, y, "unit", "unit unknown (segments without sequence)");
        return;
    }
    sg_svg_text(fp, x, y, "unit mono", "%.*s", (int)(len < fit ? len : fit), r->unit);
    if (len <= fit) return;
    if (len <= 2 * fit) {
        sg_svg_text(fp, x, y + 14, "unit mono", "%s", r->unit + fit);
        return;
    }
    int n = snprintf(more, sizeof more, " (%s bp)", sg_svg_count(r->period, b));
    sg_svg_fit(r->unit + fit, fit - (size_t)n, line, sizeof line - sizeof more);
    sg_svg_text(fp, x, y + 14, "unit mono", "%s%s", line, more);
}

/* The numbers of a repeat: nodes and bases as its graph counts them. */
static void draw_sizes(FILE *fp, const sg_repeats_t *rp, const sg_repeat_t *r, double x, double y)
{
    char b1[32], b2[32];
    if (rp->kind == SG_REPEATS_READS)
        sg_svg_text(fp, x, y, "small", "%s read%s \xc2\xb7 %s bases", sg_svg_count(r->n_nodes, b2),
                    r->n_nodes > 1 ? "s" : "", sg_svg_count(r->kmers, b1));
    else
        sg_svg_text(fp, x, y, "small", "%s unitig%s \xc2\xb7 %s k-mer%s", sg_svg_count(r->n_nodes, b2),
                    r->n_nodes > 1 ? "s" : "", sg_svg_count(r->kmers, b1), r->kmers > 1 ? "s" : "");
}

static void draw_panel(FILE *fp, const sg_repeats_t *rp, const sg_repeat_pictures_t *pics, uint32_t i, double x,
                       double y, double pw)
{
    const sg_repeat_t *r = &rp->r[i];
    const sg_repeat_view_t *v = i < pics->n_view ? &pics->view[i] : NULL;
    char b1[32], b2[32];
    fprintf(fp, "<g class=\"repeat\" data-id=\"repeat%u\" data-period=\"%llu\" data-copies=\"%.2f\" data-length=\"%.0f\">\n",
            i + 1, (unsigned long long)r->period, r->copies, r->length);
    fprintf(fp, "<rect class=\"panel\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"5\"/>\n", x, y, pw, PANEL_H);
    sg_svg_text(fp, x + 10, y + 21, "head", "repeat%u \xc2\xb7 %s", i + 1, r->tandem ? "tandem" : "complex");
    if (rp->kind == SG_REPEATS_ASSEMBLY)
        sg_svg_text(fp, x + pw - 10, y + 21, "small end", "%s loc%s", sg_svg_count(r->loci, b1), r->loci == 1 ? "us" : "i");
    sg_svg_text(fp, x + 10, y + 40, "nums", "period %s bp \xc2\xb7 %.1f copies \xc2\xb7 %s bp", sg_svg_count(r->period, b1),
                r->copies, short_bp(r->length, b2));
    const double sq_x = x + pw - SQ - 10, sq_y = y + BOX_Y;
    if (v && v->spectrum) draw_spectrum(fp, v, r->period, x + SPEC_X, y + BOX_Y, SPEC_BOX_W, BOX_H);
    if (v && v->seq) {
        if (v->len <= DOT_MAX) draw_dotplot(fp, v->seq, v->len, sq_x, sq_y, SQ);
        else draw_heatmap(fp, v->seq, v->len, r->period, sq_x, sq_y, SQ);
        /* where it is, on two lines: "chrom" and "start-end", or "read" and its name */
        char where[96];
        const size_t fit = (size_t)((SQ + 16) / (CHAR_EM * 11));
        const char *colon = strrchr(v->where, ':'), *space = strchr(v->where, ' ');
        const char *cut = colon ? colon : space;
        if (cut) {
            snprintf(where, sizeof where, "%.*s", (int)(cut - v->where < 80 ? cut - v->where : 80), v->where);
            char line[96];
            sg_svg_text(fp, sq_x + SQ / 2, sq_y + SQ + 13, "small mid", "%s", sg_svg_fit(where, fit, line, sizeof line));
            sg_svg_text(fp, sq_x + SQ / 2, sq_y + SQ + 26, "small mid", "%s", sg_svg_fit(cut + 1, fit, line, sizeof line));
        } else {
            sg_svg_text(fp, sq_x + SQ / 2, sq_y + SQ + 13, "small mid", "%s", sg_svg_fit(v->where, fit, where, sizeof where));
        }
    } else if (v && v->draw_cycle && pics->g) {
        draw_cycle(fp, pics->g, pics->comp, r, sq_x, sq_y, SQ);
        if (r->tandem)
            sg_svg_text(fp, sq_x + SQ / 2, sq_y + SQ + 14, "small mid", "one cycle of %s bp", sg_svg_count(r->period, b1));
    } else {
        const char *what = rp->kind == SG_REPEATS_READS ? "reads" : "unitigs";
        sg_svg_text(fp, sq_x + SQ / 2, sq_y + SQ / 2 - 6, "note mid", "%s %s:", sg_svg_count(r->n_nodes, b1), what);
        sg_svg_text(fp, sq_x + SQ / 2, sq_y + SQ / 2 + 10, "note mid", "see PREFIX.gfa");
    }
    draw_unit(fp, r, x + 10, y + 244, pw - 20);
    draw_sizes(fp, rp, r, x + 10, y + 280);
    fputs("</g>\n", fp);
}

void sg_repeats_svg(FILE *fp, const sg_repeats_t *rp, const sg_repeat_pictures_t *pics, int k, char *const *inputs,
                    int n_inputs)
{
    const uint32_t n = rp->n < SG_PICTURE_REPEATS ? rp->n : SG_PICTURE_REPEATS;
    const double pw = (REP_W - 2 * MARGIN - (COLS - 1) * GAP) / COLS;
    int dots = 0, heat = 0;
    for (uint32_t i = 0; i < n && i < pics->n_view; i++) {
        dots |= pics->view[i].seq && pics->view[i].len <= DOT_MAX;
        heat |= pics->view[i].seq && pics->view[i].len > DOT_MAX;
    }
    /* a line for the keys of the dot plots and heatmaps, when there are some */
    const double head = dots || heat ? HEAD_H : HEAD_H - 20;
    int height = (int)(head + (n + COLS - 1) / COLS * (PANEL_H + GAP) + MARGIN);
    char title[1200], sub[256], kbuf[24] = "", b1[32];
    if (k > 1) snprintf(kbuf, sizeof kbuf, ", k = %d", k);
    title_of("Repeats of ", inputs, n_inputs, kbuf, REP_W - 2 * MARGIN - 8, title, sizeof title);
    if (!n) snprintf(sub, sizeof sub, "no repeats: no cycle among the %s",
                     rp->kind == SG_REPEATS_READS ? "reads' overlaps" : "kept k-mers");
    else if (n == rp->n) snprintf(sub, sizeof sub, "%u repeat%s, the longest (most bases in all copies) first", n,
                                  n > 1 ? "s" : "");
    else snprintf(sub, sizeof sub, "the %u longest of %s repeats: PREFIX.repeats.tsv lists them all, "
                                   "PREFIX.landscape.svg places them all", n, sg_svg_count(rp->n, b1));
    sg_svg_begin(fp, REP_W, height, title, repeats_css);
    fputs(arrow_defs, fp);
    sg_svg_text(fp, MARGIN + 4, 26, "title", "%s", title);
    sg_svg_text(fp, MARGIN + 4, 47, "sub", "%s", sub);
    if (dots || heat) heat_key(fp, dots, heat, MARGIN + 4, 58);
    for (uint32_t p = 0; p < n; p++)
        draw_panel(fp, rp, pics, p, MARGIN + (p % COLS) * (pw + GAP), head + (p / COLS) * (PANEL_H + GAP), pw);
    sg_svg_end(fp);
}

void sg_repeat_views(const sg_graph_t *g, const uint32_t *comp, const sg_repeats_t *rp, uint32_t n,
                     sg_repeat_view_t *view)
{
    if (n > rp->n) n = rp->n;
    uint64_t **sp = sg_malloc(((size_t)n + 1) * sizeof *sp);
    for (uint32_t i = 0; i < n; i++) {
        const sg_repeat_t *r = &rp->r[i];
        view[i] = (sg_repeat_view_t){.spectrum = sg_calloc(SG_SPECTRUM_MAX + 1, sizeof *view[i].spectrum)};
        sp[i] = view[i].spectrum;
        uint32_t nv;
        free(twin_vertices(g, comp, r, &nv));
        view[i].draw_cycle = nv <= SG_CYCLE_DRAWN;
        if (!g->reads) continue;
        /* the reads' distances (up to SG_LOCUS_SEQ_MAX bases of them), the longest read's self-identity */
        uint64_t seen = 0, longest = 0;
        for (uint32_t j = 0; j < r->n_nodes && seen < SG_LOCUS_SEQ_MAX; j++) {
            uint32_t u = r->nodes[j];
            uint64_t len = g->seq_off[u + 1] - g->seq_off[u];
            if (!len) continue; /* a read whose bases are not held */
            sg_distance_spectrum(g->seq + g->seq_off[u], len, view[i].spectrum);
            seen += len;
            if (len > longest) {
                char nb[32];
                longest = len;
                view[i].seq = g->seq + g->seq_off[u];
                view[i].len = len < SG_LOCUS_SEQ_MAX ? len : SG_LOCUS_SEQ_MAX;
                snprintf(view[i].where, sizeof view[i].where, "read %s", sg_graph_name(g, u, nb, sizeof nb));
            }
        }
    }
    if (!g->reads) {
        sg_repeats_cycle_spectra(g, comp, rp, n, sp, SG_SPECTRUM_MAX);
        for (uint32_t i = 0; i < n; i++) view[i].cycles = 1;
    }
    free(sp);
}

/* ---- the landscape ---- */

#define LAND_W 900
#define LAND_H 620
#define LX0 86.0
#define LX1 700.0
#define LY0 70.0
#define LY1 550.0
#define LAND_LABELLED 12
#define R_MAX 22.0

static const char landscape_css[] =
    ".title { font-size: 17px; font-weight: bold; } .sub { font-size: 13px; fill: #444; }\n"
    ".xtick, .ytick { font-size: 12px; } .axislabel { font-size: 14px; } .legendtext { font-size: 12px; }\n"
    ".label { font-size: 11px; fill: #222; } .axis { stroke: #222; stroke-width: 1; } .grid { stroke: #e8e8e8; }\n"
    ".tandem { fill: #0072b2; } .complex { fill: #e69f00; }\n"
    ".point { fill-opacity: 0.55; stroke: #333; stroke-width: 0.6; } .size { fill: none; stroke: #555; }\n";

typedef struct {
    double x0, y0, x1, y1;
} box_t;

static int boxes_meet(box_t a, box_t b) { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1; }

/* A log axis for values lo..hi: the decades around them. */
static void log_range(double lo, double hi, double *l0, double *l1)
{
    *l0 = floor(log10(lo));
    *l1 = ceil(log10(hi));
    if (*l1 - *l0 < 1) *l1 = *l0 + 1;
}

void sg_landscape_svg(FILE *fp, const sg_repeats_t *rp, int k, char *const *inputs, int n_inputs)
{
    char title[1200], sub[320], kbuf[24] = "", b1[32], b2[32];
    if (k > 1) snprintf(kbuf, sizeof kbuf, ", k = %d", k);
    title_of("Repeat landscape of ", inputs, n_inputs, kbuf, LAND_W - LX0 - 8, title, sizeof title);
    double pmin = HUGE_VAL, pmax = 0, cmin = HUGE_VAL, cmax = 0, lmax = 0;
    uint32_t shown = 0;
    for (uint32_t i = 0; i < rp->n; i++) {
        const sg_repeat_t *r = &rp->r[i];
        if (!r->period || !(r->copies > 0)) continue;
        shown++;
        pmin = fmin(pmin, (double)r->period), pmax = fmax(pmax, (double)r->period);
        cmin = fmin(cmin, r->copies), cmax = fmax(cmax, r->copies), lmax = fmax(lmax, r->length);
    }
    int n = snprintf(sub, sizeof sub, "%s repeat%s by period and copies; area by length (bases in all copies)",
                     sg_svg_count(shown, b1), shown == 1 ? "" : "s");
    if (shown < rp->n)
        snprintf(sub + n, sizeof sub - n, "; %s without a period not shown", sg_svg_count(rp->n - shown, b2));
    sg_svg_begin(fp, LAND_W, LAND_H, title, landscape_css);
    sg_svg_text(fp, LX0, 28, "title", "%s", title);
    sg_svg_text(fp, LX0, 50, "sub", "%s", sub);
    if (!shown) {
        pmin = 1, pmax = 10, cmin = 1, cmax = 10;
        sg_svg_text(fp, (LX0 + LX1) / 2, (LY0 + LY1) / 2, "legendtext mid", "no repeats");
    }
    axes_t a;
    log_range(pmin, pmax, &a.lx0, &a.lx1);
    log_range(cmin, cmax, &a.ly0, &a.ly1);
    /* the axes: a labelled line at each power of ten */
    for (int d = (int)a.lx0; d < (int)a.lx1; d++) /* 2 to 9 times each power of ten */
        for (int m = 2; m <= 9; m++) {
            double x = LX0 + (d + log10(m) - a.lx0) / (a.lx1 - a.lx0) * (LX1 - LX0);
            fprintf(fp, "<line class=\"axis\" data-x=\"%g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                    m * pow(10, d), x, LY1, x, LY1 + 3);
        }
    for (int d = (int)a.ly0; d < (int)a.ly1; d++)
        for (int m = 2; m <= 9; m++) {
            double y = LY1 - (d + log10(m) - a.ly0) / (a.ly1 - a.ly0) * (LY1 - LY0);
            fprintf(fp, "<line class=\"axis\" data-y=\"%g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                    m * pow(10, d), LX0 - 3, y, LX0, y);
        }
    for (int d = (int)a.lx0; d <= (int)a.lx1; d++) {
        double x = LX0 + (d - a.lx0) / (a.lx1 - a.lx0) * (LX1 - LX0);
        fprintf(fp, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, LY0, x, LY1);
        fprintf(fp, "<line class=\"axis\" data-x=\"%g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", pow(10, d), x,
                LY1, x, LY1 + 6);
        sg_svg_text(fp, x, LY1 + 21, "xtick mid", "%s", tick_label(pow(10, d), 1, b1));
    }
    for (int d = (int)a.ly0; d <= (int)a.ly1; d++) {
        double y = LY1 - (d - a.ly0) / (a.ly1 - a.ly0) * (LY1 - LY0);
        fprintf(fp, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", LX0, y, LX1, y);
        fprintf(fp, "<line class=\"axis\" data-y=\"%g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", pow(10, d),
                LX0 - 6, y, LX0, y);
        if (d >= 0) sg_svg_text(fp, LX0 - 9, y + 4.5, "ytick end", "%s", tick_label(pow(10, d), 1, b1));
        else sg_svg_text(fp, LX0 - 9, y + 4.5, "ytick end", "%g", pow(10, d));
    }
    fprintf(fp, "<polyline class=\"axis\" fill=\"none\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n", LX0, LY0, LX0, LY1,
            LX1, LY1);
    sg_svg_text(fp, (LX0 + LX1) / 2, LY1 + 45, "axislabel mid", "period (bp)");
    fprintf(fp, "<text class=\"axislabel mid\" transform=\"translate(24 %.1f) rotate(-90)\">copies</text>\n",
            (LY0 + LY1) / 2);
    /* the discs, the longest under the others; their places for the labels */
    box_t *disc = sg_malloc(((size_t)rp->n + 1) * sizeof *disc);
    double *cx = sg_malloc(((size_t)rp->n + 1) * sizeof *cx), *cy = sg_malloc(((size_t)rp->n + 1) * sizeof *cy);
    for (uint32_t i = 0; i < rp->n; i++) {
        const sg_repeat_t *r = &rp->r[i];
        disc[i] = (box_t){0, 0, 0, 0};
        if (!r->period || !(r->copies > 0)) continue;
        double x = LX0 + (log10((double)r->period) - a.lx0) / (a.lx1 - a.lx0) * (LX1 - LX0);
        double y = LY1 - (log10(r->copies) - a.ly0) / (a.ly1 - a.ly0) * (LY1 - LY0);
        double rad = fmax(2.0, R_MAX * sqrt(lmax > 0 ? r->length / lmax : 0));
        cx[i] = x, cy[i] = y;
        disc[i] = (box_t){x - rad, y - rad, x + rad, y + rad};
        fprintf(fp, "<circle class=\"point %s\" data-id=\"repeat%u\" data-period=\"%llu\" data-copies=\"%.2f\" "
                    "data-length=\"%.0f\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/>\n",
                r->tandem ? "tandem" : "complex", i + 1, (unsigned long long)r->period, r->copies, r->length, x, y, rad);
    }
    /* labels of the longest: right, left, above or below their disc, clear
     * of the other labels and of the discs of the labelled */
    box_t placed[LAND_LABELLED];
    int n_placed = 0;
    for (uint32_t i = 0; i < rp->n && i < LAND_LABELLED; i++) {
        const sg_repeat_t *r = &rp->r[i];
        if (disc[i].x1 <= disc[i].x0) continue;
        char label[64], unit[48];
        if (r->unit[0] && strlen(r->unit) <= 12) snprintf(label, sizeof label, "repeat%u %s", i + 1, r->unit);
        else if (r->unit[0]) snprintf(label, sizeof label, "repeat%u %s", i + 1, sg_svg_fit(r->unit, 9, unit, sizeof unit));
        else snprintf(label, sizeof label, "repeat%u", i + 1);
        double w = text_width(label, 11), h = 11, rad = (disc[i].x1 - disc[i].x0) / 2;
        const double tx[4] = {cx[i] + rad + 3, cx[i] - rad - 3 - w, cx[i] - w / 2, cx[i] - w / 2};
        const double ty[4] = {cy[i] + 4, cy[i] + 4, cy[i] - rad - 4, cy[i] + rad + 12};
        for (int c = 0; c < 4; c++) {
            box_t b = {tx[c], ty[c] - 0.8 * h, tx[c] + w, ty[c] + 0.2 * h};
            int ok = b.x0 >= LX0 + 2 && b.x1 <= LX1 - 2 && b.y0 >= LY0 && b.y1 <= LY1 - 2;
            for (int j = 0; ok && j < n_placed; j++) ok = !boxes_meet(b, placed[j]);
            for (uint32_t j = 0; ok && j < rp->n && j < LAND_LABELLED; j++) ok = j == i || !boxes_meet(b, disc[j]);
            if (!ok) continue;
            placed[n_placed++] = b;
            fprintf(fp, "<text class=\"label\" data-id=\"repeat%u\" x=\"%.1f\" y=\"%.1f\">", i + 1, tx[c], ty[c]);
            sg_xml_str(fp, label);
            fputs("</text>\n", fp);
            break;
        }
    }
    /* the legend: the kinds, and discs of three lengths */
    double lx = LX1 + 24, ly = LY0 + 8;
    const char *kinds[2] = {"tandem", "complex"};
    for (int c = 0; c < 2; c++, ly += 22) {
        fprintf(fp, "<circle class=\"%s\" fill-opacity=\"0.55\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\"/>\n", kinds[c], lx + 6, ly);
        sg_svg_text(fp, lx + 18, ly + 4, "legendtext", "%s", kinds[c]);
    }
    ly += 14;
    sg_svg_text(fp, lx, ly, "legendtext", "length (bases)");
    ly += 10;
    for (int c = 0; c < 3 && lmax > 0; c++) {
        double len = lmax / pow(10, c), rad = fmax(2.0, R_MAX * sqrt(len / lmax));
        fprintf(fp, "<circle class=\"size\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/>\n", lx + R_MAX, ly + rad, rad);
        sg_svg_text(fp, lx + 2 * R_MAX + 8, ly + rad + 4, "legendtext", "%s", short_bp(len, b1));
        ly += 2 * rad + 8;
    }
    free(disc);
    free(cx);
    free(cy);
    sg_svg_end(fp);
}
