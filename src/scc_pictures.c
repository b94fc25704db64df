#define _GNU_SOURCE
#include "scc_pictures.h"
#include "../formats/svg.h"
#include "log.h"

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
        snprintf(e[n++].text, sizeof e->text, "no single-copy peak: coverage taken as 1");
    }
    if (sp->threshold) {
        double x = xpos(&a, sp->threshold);
        fprintf(fp, "<line class=\"threshold\" data-count=\"%u\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                sp->threshold, x, PY0, x, PY1);
        e[n] = (legend_t){.cls = "threshold", .line = 1};
        if (sp->min_copies > 0)
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

#define REP_W 800
#define COLS 3
#define MARGIN 10.0
#define GAP 8.0
#define PANEL_H 250.0
#define HEAD_H 58.0
/* most vertices drawn in one panel, and labelled */
#define MAX_DRAWN 120
#define MAX_LABELLED 10

static const char *const palette[] = {"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00"};
/* a ring of many unitigs: two shades, so that their ends show without confetti */
static const char *const shades[] = {"#0072b2", "#56b4e9"};

/* Arrowheads of a fixed size: one over the thick arcs, one for the thin links. */
static const char arrow_defs[] =
    "<defs><marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"5\" refY=\"5\" markerWidth=\"15\" markerHeight=\"15\" "
    "markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\"/></marker>\n"
    "<marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" "
    "markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\"/></marker></defs>\n";

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static double arc_x(double cx, double r, double t) { return cx + r * sin(t); }
static double arc_y(double cy, double r, double t) { return cy - r * cos(t); }

void sg_draw_unitigs(const sg_repeat_drawing_t *d, FILE *fp, const sg_repeats_t *rp, uint32_t i, double x, double y,
                     double w, double h)
{
    const sg_graph_t *g = d->g;
    const sg_repeat_t *r = &rp->r[i];
    /* the component of one of the two twins (the other is its mirror image) */
    uint32_t c = d->comp[sg_vert(r->nodes[0], 0)], nv = 0;
    uint32_t *v = sg_malloc(2 * ((size_t)r->n_nodes + 1) * sizeof *v);
    for (uint32_t j = 0; j < r->n_nodes; j++)
        for (int o = 0; o < 2; o++)
            if (d->comp[sg_vert(r->nodes[j], o)] == c) v[nv++] = sg_vert(r->nodes[j], o);
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
    uint32_t drawn = n_order < MAX_DRAWN ? n_order : MAX_DRAWN;
    if (drawn < n_order) { /* a line under the ring says so */
        sg_svg_text(fp, x + w / 2, y + h - 2, "small mid", "%u of %u unitigs drawn", drawn, n_order);
        h -= 16;
    }
    /* arcs as long as their k-mers, and none too short to see */
    double total = 0, cx = x + w / 2, cy = y + h / 2, rad = fmin(w, h) / 2 - (drawn <= MAX_LABELLED ? 20 : 8);
    for (uint32_t j = 0; j < drawn; j++) total += (double)(g->kmers[v[order[j]] >> 1] + 1);
    double *t0 = sg_malloc(((size_t)drawn + 1) * sizeof *t0), gap = drawn > 1 ? fmin(0.08, 1.2 / drawn) : 0.25, at = 0;
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
        fprintf(fp, "%c\" stroke=\"%s\" d=\"M%.1f,%.1f A%.1f,%.1f 0 %d 1 %.1f,%.1f\"%s/>\n", vj & 1 ? '-' : '+',
                drawn <= 24 ? palette[j % 6] : shades[j % 2], arc_x(cx, rad, a0), arc_y(cy, rad, a0), rad, rad,
                a1 - a0 > M_PI, arc_x(cx, rad, a1), arc_y(cy, rad, a1), drawn <= 24 ? " marker-end=\"url(#head)\"" : "");
        if (drawn <= MAX_LABELLED) {
            double s = sin(mid);
            sg_svg_text(fp, arc_x(cx, rad + 13, mid), arc_y(cy, rad + 13, mid) + 4, s > 0.3 ? "node" : s < -0.3 ? "node end" : "node mid",
                        "%s%c", sg_graph_name(g, vj >> 1, nb, sizeof nb), vj & 1 ? '-' : '+');
        }
    }
    /* the links that do not go on to the next arc, as chords through the middle */
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
    if (r->tandem) sg_svg_text(fp, cx, cy + 6, "centre mid", "%llu bp", (unsigned long long)r->period);
    free(t0);
    free(next);
    free(stack);
    free(pos);
    free(order);
    free(v);
}

static const char repeats_css[] =
    ".title { font-size: 17px; font-weight: bold; } .sub { font-size: 13px; fill: #444; }\n"
    ".panel { fill: #fafafa; stroke: #d0d0d0; } .head { font-size: 14px; font-weight: bold; }\n"
    ".nums { font-size: 12.5px; } .unit { font-size: 11.5px; } .small { font-size: 11px; fill: #555; }\n"
    ".node { font-size: 10.5px; fill: #333; } .centre { font-size: 15px; font-weight: bold; fill: #444; }\n"
    ".unitig { fill: none; stroke-width: 7; } .link { fill: none; stroke: #555; stroke-width: 1.2; }\n"
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

void sg_repeats_svg(FILE *fp, const sg_repeats_t *rp, const sg_repeat_drawing_t *d, int k, char *const *inputs,
                    int n_inputs)
{
    uint32_t *idx = sg_malloc((SG_PICTURE_REPEATS + 1) * sizeof *idx), n = sg_repeats_by_copies(rp, SG_PICTURE_REPEATS, idx);
    const double pw = (REP_W - 2 * MARGIN - (COLS - 1) * GAP) / COLS;
    int height = (int)(HEAD_H + (n + COLS - 1) / COLS * (PANEL_H + GAP) + MARGIN);
    char title[1200], sub[256], kbuf[24] = "", b1[32], b2[32];
    if (k > 1) snprintf(kbuf, sizeof kbuf, ", k = %d", k);
    title_of("Repeats of ", inputs, n_inputs, kbuf, REP_W - 2 * MARGIN - 8, title, sizeof title);
    if (!n) snprintf(sub, sizeof sub, "no repeats: no cycle among the kept k-mers");
    else if (n == rp->n) snprintf(sub, sizeof sub, "%u repeat%s, the most copies first", n, n > 1 ? "s" : "");
    else snprintf(sub, sizeof sub, "the %u with the most copies of %s repeats (.repeats.tsv lists all)", n, sg_svg_count(rp->n, b1));
    sg_svg_begin(fp, REP_W, height, title, repeats_css);
    fputs(arrow_defs, fp);
    sg_svg_text(fp, MARGIN + 4, 26, "title", "%s", title);
    sg_svg_text(fp, MARGIN + 4, 47, "sub", "%s", sub);
    for (uint32_t p = 0; p < n; p++) {
        const sg_repeat_t *r = &rp->r[idx[p]];
        double x = MARGIN + (p % COLS) * (pw + GAP), y = HEAD_H + (p / COLS) * (PANEL_H + GAP);
        fprintf(fp, "<g class=\"repeat\" data-id=\"repeat%u\" data-period=\"%llu\" data-copies=\"%.2f\">\n", idx[p] + 1,
                (unsigned long long)r->period, r->copies);
        fprintf(fp, "<rect class=\"panel\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"5\"/>\n", x, y, pw, PANEL_H);
        sg_svg_text(fp, x + 10, y + 21, "head", "repeat%u \xc2\xb7 %s", idx[p] + 1, r->tandem ? "tandem" : "complex");
        sg_svg_text(fp, x + 10, y + 40, "nums", "period %s bp \xc2\xb7 %.1f copies", sg_svg_count(r->period, b1), r->copies);
        d->draw(d, fp, rp, idx[p], x + 8, y + 46, pw - 16, 150);
        draw_unit(fp, r, x + 10, y + 212, pw - 20);
        sg_svg_text(fp, x + 10, y + 242, "small", "%s unitig%s \xc2\xb7 %s k-mer%s", sg_svg_count(r->n_nodes, b2),
                    r->n_nodes > 1 ? "s" : "", sg_svg_count(r->kmers, b1), r->kmers > 1 ? "s" : "");
        fputs("</g>\n", fp);
    }
    sg_svg_end(fp);
    free(idx);
}
