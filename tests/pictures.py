#!/usr/bin/env python3
"""Checks of seqgpu scc's pictures, read as a reader reads them: positions
against the axes' own ticks, labels against each other. Shares no code with
seqgpu. Prints 'ok' or the first thing wrong (exit 1).

  pictures.py spectrum SVG STATS.json   the k-mer spectrum
  pictures.py repeats SVG REPEATS.tsv   the repeat panels
  pictures.py landscape SVG REPEATS.tsv the landscape of all repeats
"""
import json
import math
import re
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'
CHAR_EM = 0.62  # the widths seqgpu reserves; DejaVu Sans averages under it


def fail(msg):
    print(msg)
    sys.exit(1)


def classes(e):
    return (e.get('class') or '').split()


def font_sizes(root):
    """Font size of each class, from the style sheet."""
    css = ''.join(e.text or '' for e in root.iter(NS + 'style'))
    sizes = {}
    for sel, body in re.findall(r'([^{}]+)\{([^}]*)\}', css):
        m = re.search(r'font-size:\s*([\d.]+)px', body)
        if m:
            for c in re.findall(r'\.([\w-]+)', sel):
                sizes[c] = float(m.group(1))
    return sizes


def text_boxes(root):
    """(x0, y0, x1, y1, text) of every text, from its anchor, size and characters."""
    sizes, boxes = font_sizes(root), []
    for e in root.iter(NS + 'text'):
        if e.get('transform'):  # the rotated axis label: alone at the left edge
            continue
        size = max([sizes[c] for c in classes(e) if c in sizes] or [13])  # 13 px: the style sheet's text
        w = len(e.text or '') * CHAR_EM * size
        x, y = float(e.get('x')), float(e.get('y'))
        x0 = x - w / 2 if 'mid' in classes(e) else x - w if 'end' in classes(e) else x
        boxes.append((x0, y - 0.8 * size, x0 + w, y + 0.2 * size, e.text))
    return boxes


def no_overlaps(root):
    """No two labels overlap, and all are inside the picture."""
    W, H = float(root.get('width')), float(root.get('height'))
    b = text_boxes(root)
    for i, (x0, y0, x1, y1, t) in enumerate(b):
        if x0 < -0.5 or y0 < -0.5 or x1 > W + 0.5 or y1 > H + 0.5:
            fail(f'label {t!r} runs out of the picture: {x0:.0f},{y0:.0f} to {x1:.0f},{y1:.0f}')
        for u0, v0, u1, v1, s in b[i + 1:]:
            if min(x1, u1) - max(x0, u0) > 1 and min(y1, v1) - max(y0, v0) > 1:
                fail(f'labels {t!r} and {s!r} overlap')


def fit(pairs):
    """Least squares pos = a + b log10(value) over the ticks; every tick within 0.1 px."""
    xs = [math.log10(v) for v, _ in pairs]
    ys = [p for _, p in pairs]
    n, mx, my = len(xs), sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    a = my - b * mx
    for (v, p), x in zip(pairs, xs):
        if abs(a + b * x - p) > 0.1:
            fail(f'tick {v} at {p}, not on a log scale ({a + b * x:.2f})')
    return lambda v: a + b * math.log10(v), lambda p: 10 ** ((p - a) / b)


def label_value(t):
    t = t.replace(',', '')
    mult = {'k': 1e3, 'M': 1e6, 'G': 1e9, 'T': 1e12}
    return float(t[:-1]) * mult[t[-1]] if t[-1] in mult else float(t)


def spectrum(svg, stats_path):
    root = ET.parse(svg).getroot()
    s = json.load(open(stats_path))
    h = s['histogram']
    if (root.get('width'), root.get('height')) != ('800', '500'):
        fail(f'size {root.get("width")} x {root.get("height")}')
    no_overlaps(root)
    lines = list(root.iter(NS + 'line'))
    xt = [(float(e.get('data-x')), float(e.get('x1'))) for e in lines if e.get('data-x')]
    yt = [(float(e.get('data-y')), float(e.get('y1'))) for e in lines if e.get('data-y')]
    if len(xt) < 3 or len(yt) < 3:
        fail('too few ticks')
    X, Xinv = fit(xt)
    Y, _ = fit(yt)
    # every label names its tick
    texts = list(root.iter(NS + 'text'))
    for e in texts:
        if 'xtick' in classes(e) and 'mid' in classes(e):
            v = label_value(e.text)
            if not any(abs(tv - v) < 1e-6 * v and abs(tx - float(e.get('x'))) < 0.1 for tv, tx in xt):
                fail(f'x label {e.text} is not at its tick')
        if 'ytick' in classes(e):
            v = label_value(e.text)
            if not any(abs(tv - v) < 1e-6 * v and abs(ty + 4.5 - float(e.get('y'))) < 0.1 for tv, ty in yt):
                fail(f'y label {e.text} is not at its tick')
    if sum('xtick' in classes(e) for e in texts) < 2 or sum('ytick' in classes(e) for e in texts) < 2:
        fail('fewer than two labelled ticks on an axis')

    def marker(cls):
        m = [e for e in root.iter() if cls in classes(e) and e.get('data-count')]
        return m[0] if m else None

    def at(e, attr, want, what):
        if abs(float(e.get(attr)) - want) > 0.1:
            fail(f'{what} at {e.get(attr)}, its count at {want:.1f}')

    clear = s['error_trough'] > 0  # a clear peak: the errors end somewhere (else trough 0, coverage 1)
    if s['error_trough'] > 1:
        t = marker('trough')
        if t is None or int(t.get('data-count')) != s['error_trough']:
            fail('no error trough marked, or not the one of --stats')
        at(t, 'x1', X(s['error_trough']), 'the trough')
        errors = [e for e in root.iter(NS + 'rect') if 'errors' in classes(e)][0]
        at(errors, 'width', X(s['error_trough']) - X(1), 'the error band')
    elif marker('trough') is not None:
        fail('a trough marked where --stats has none')
    if clear:
        c = marker('coverage')
        if c is None or abs(float(c.get('data-count')) - s['coverage']) > 1e-3:
            fail('no coverage marked, or not the one of --stats')
        at(c, 'x1', X(s['coverage']), 'the coverage')
    elif marker('coverage') is not None:
        fail('a coverage marked without a peak')
    peak = s['coverage_peak']
    if clear and peak < len(h) and h[peak]:  # the dot sits on its bin: none on an empty one
        p = marker('peak')
        if p is None or int(p.get('data-count')) != peak or int(p.get('data-kmers')) != h[peak]:
            fail('no peak marked, or not the one of --stats')
        at(p, 'cx', X(peak), 'the peak')
        at(p, 'cy', Y(h[peak]), 'the peak')
    elif marker('peak') is not None:
        fail('a peak marked on an empty bin')
    th = marker('threshold')
    if th is None or int(th.get('data-count')) != s['threshold']:
        fail('no threshold marked, or not the one of --stats')
    at(th, 'x1', X(s['threshold']), 'the threshold')
    kept = [e for e in root.iter(NS + 'rect') if 'kept' in classes(e)][0]
    at(kept, 'x', X(s['threshold']), 'the kept band')
    # the data: every point drawn is a bin's, at its count and height; every
    # bin a pixel or more from the next is drawn exactly
    # (--stats stops at the last count seen; the bin of 65,536 and more is not on the axis)
    h = h[:65536]
    last = max(c for c in range(1, len(h)) if h[c] or c == 1)
    drawn = []
    for e in root.iter():
        if 'curve' in classes(e) and e.get('points'):
            drawn += [tuple(map(float, p.split(','))) for p in e.get('points').split()]
        if 'bin' in classes(e):
            drawn.append((float(e.get('cx')), float(e.get('cy'))))
    # (ticks and points are printed to 0.1 px: 0.12 px apart is the same place)
    tol = 0.12
    for x, y in drawn:
        lo, hi = math.floor(Xinv(x - tol)), math.ceil(Xinv(x + tol))
        if not any(0 < c < len(h) and h[c] and abs(X(c) - x) <= tol and abs(Y(h[c]) - y) <= tol
                   for c in range(lo, hi + 1)):
            fail(f'a point at {x},{y} is no bin of the histogram')
    columns = {}
    for x, y in drawn:
        columns.setdefault(round(x), []).append((x, y))
    for c in range(1, last + 1):
        if h[c] and X(c + 1) - X(c) >= 1 and not any(
                abs(x - X(c)) <= tol and abs(y - Y(h[c])) <= tol for k in (-1, 0, 1)
                for x, y in columns.get(round(X(c)) + k, [])):
            fail(f'the bin of count {c} ({h[c]} k-mers) is not drawn')
    # the title names the input, k and the numbers
    title = ' '.join(e.text for e in texts if 'title' in classes(e) or 'sub' in classes(e))
    want = [f"k = {s['k']}", f"seen {s['threshold']:,}+ times"]
    want += [f"{s['kept_kmers']:,} kept"] if s['kept_kmers'] < 1e6 else []  # (above, to three digits)
    want += [s['inputs'][0].split('/')[-1][:20]] if s['inputs'][0] != '-' else []  # (long lists are cut)
    want += [f"coverage {s['coverage']:.1f}"] if clear else []
    for w in want:
        if w not in title:
            fail(f'the title does not say {w!r}: {title}')
    print('ok')


def linear_fit(pairs, what):
    """pos = a + b value over the ticks; every tick within 0.1 px."""
    n = len(pairs)
    mx, my = sum(v for v, _ in pairs) / n, sum(p for _, p in pairs) / n
    b = sum((v - mx) * (p - my) for v, p in pairs) / sum((v - mx) ** 2 for v, _ in pairs)
    a = my - b * mx
    for v, p in pairs:
        if abs(a + b * v - p) > 0.1:
            fail(f'{what}: tick {v} at {p}, not on a linear scale ({a + b * v:.2f})')
    return lambda v: a + b * v


def rows_of(tsv):
    lines = [l.rstrip('\n').split('\t') for l in open(tsv)]
    return lines[0], lines[1:]


def inside(e, box, what):
    x0, y0, x1, y1 = box
    for t in e.iter(NS + 'text'):
        if not (x0 <= float(t.get('x')) <= x1 and y0 <= float(t.get('y')) <= y1):
            fail(f'{t.text!r} is outside {what}')
    for r in e.iter(NS + 'rect'):
        rx, ry = float(r.get('x')), float(r.get('y'))
        if rx < x0 - 0.5 or ry < y0 - 0.5 or rx + float(r.get('width')) > x1 + 0.5 or ry + float(r.get('height')) > y1 + 0.5:
            fail(f'a rectangle at {rx},{ry} is outside {what}')


def repeats(svg, tsv):
    """The panels: the first 24 rows of the tsv in its order (the longest
    first), each with its numbers, its spectrum (ticks on a linear scale,
    the period's multiples on their distances, a tandem repeat's cycle its
    tallest bar), its dot plot, heatmap or cycle inside its square."""
    root = ET.parse(svg).getroot()
    head, rows = rows_of(tsv)
    by_id = {r[0]: r for r in rows}
    col = {c: i for i, c in enumerate(head)}
    if root.get('width') != '1200':
        fail(f'width {root.get("width")}')
    no_overlaps(root)
    panels = [g for g in root.iter(NS + 'g') if 'repeat' in classes(g)]
    if len(panels) != min(24, len(rows)):
        fail(f'{len(panels)} panels for {len(rows)} repeats')
    if [g.get('data-id') for g in panels] != [r[0] for r in rows[:24]]:
        fail('the panels are not the first rows of the table, in its order')
    lengths = [float(r[col['length']]) for r in rows]
    if lengths != sorted(lengths, reverse=True):
        fail(f'the table is not by length, the longest first: {lengths[:10]}')
    if len(rows) > 24 and 'PREFIX.repeats.tsv lists them all' not in ''.join(t.text for t in root.iter(NS + 'text')):
        fail('more repeats than panels, and no pointer to the table')
    reads = head[2] == 'reads'
    for g in panels:
        r = by_id[g.get('data-id')]
        period = int(r[col['period']])
        if g.get('data-period') != r[col['period']] or g.get('data-copies') != r[col['copies']]:
            fail(f'panel {r[0]}: period {g.get("data-period")}, copies {g.get("data-copies")}; tsv: {r}')
        rect = g.find(NS + 'rect')
        x0, y0 = float(rect.get('x')), float(rect.get('y'))
        box = (x0, y0, x0 + float(rect.get('width')), y0 + float(rect.get('height')))
        inside(g, box, f'the panel of {r[0]}')
        text = ' '.join(e.text for e in g.iter(NS + 'text'))
        unit = ''.join(e.text for e in g.iter(NS + 'text') if 'unit' in classes(e))
        for w in [f'{r[0]} \u00b7 {r[1]}', f'period {period:,} bp', f'{int(r[2]):,} {"read" if reads else "unitig"}']:
            if w not in text:
                fail(f'panel {r[0]} does not say {w!r}: {text}')
        m = re.search(r'([\d.]+) copies', text)  # to 0.1, the tsv to 0.01
        if not m or abs(float(m.group(1)) - float(r[col['copies']])) > 0.051:
            fail(f'panel {r[0]}: copies {m and m.group(1)}, tsv {r[col["copies"]]}')
        u = r[col['unit']]
        if u != '*' and not (unit == u or (unit.startswith(u[:40]) and f'({period:,} bp)' in unit)):
            fail(f'panel {r[0]}: unit {unit!r}, tsv {u}')
        spec = [e for e in g.iter(NS + 'g') if 'spectrum' in classes(e)]
        if spec:
            sp = spec[0]
            ticks = [(float(e.get('data-x')), float(e.get('x1'))) for e in sp.iter(NS + 'line') if e.get('data-x')]
            if len(ticks) < 2:
                fail(f'panel {r[0]}: a spectrum with fewer than two ticks')
            X = linear_fit(ticks, f'the spectrum of {r[0]}')
            mult = [(int(e.get('data-d')), float(e.get('x1'))) for e in sp.iter(NS + 'line') if e.get('data-d')]
            if period and (not mult or [d for d, _ in mult] != [period * (i + 1) for i in range(len(mult))]):
                fail(f'panel {r[0]}: multiples {[d for d, _ in mult]} of a period of {period}')
            for d, x in mult:
                if abs(X(d) - x) > 0.1:
                    fail(f'panel {r[0]}: the multiple {d} at {x}, its distance at {X(d):.1f}')
            bars = [tuple(float(v) for v in re.findall(r'-?[\d.]+', b))
                    for b in re.findall(r'M[^z]*z', sp.find(NS + 'path').get('d'))]
            tallest = max(bars, key=lambda b: -b[3])  # (x, y, width, -height, -width)
            if r[1] == 'tandem' and not reads and head[-1] != 'loci' and \
                    not tallest[0] - 0.1 <= X(period) <= tallest[0] + tallest[2] + 0.1:
                fail(f'panel {r[0]}: its one cycle of {period} is not its tallest bar')
        arcs = [p for p in g.iter(NS + 'path') if 'unitig' in classes(p)]
        pics = [e for e in g.iter(NS + 'g') if {'dotplot', 'heatmap'} & set(classes(e))]
        if arcs and pics:
            fail(f'panel {r[0]}: a cycle and a dot plot')
        if arcs and not (len(arcs) in (int(r[2]), 2 * int(r[2])) and len(arcs) <= 20):
            fail(f'panel {r[0]}: {len(arcs)} arcs for {r[2]} unitigs')
        if not arcs and not pics and 'see PREFIX.gfa' not in text:
            fail(f'panel {r[0]}: no cycle, no dot plot and no pointer')
        for e in pics:
            f = e.find(NS + 'rect')
            fx, fy = float(f.get('x')), float(f.get('y'))
            inside(e, (fx, fy, fx + float(f.get('width')), fy + float(f.get('height'))), f'the square of {r[0]}')
    print('ok')


def landscape(svg, tsv):
    """Every repeat with a period a disc at its period and copies on the
    log axes' own ticks, its area by its length; the longest labelled
    (some), labels apart and clear of the labelled discs."""
    root = ET.parse(svg).getroot()
    head, rows = rows_of(tsv)
    col = {c: i for i, c in enumerate(head)}
    if (root.get('width'), root.get('height')) != ('900', '620'):
        fail(f'size {root.get("width")} x {root.get("height")}')
    no_overlaps(root)
    lines = list(root.iter(NS + 'line'))
    xt = [(float(e.get('data-x')), float(e.get('x1'))) for e in lines if e.get('data-x')]
    yt = [(float(e.get('data-y')), float(e.get('y1'))) for e in lines if e.get('data-y')]
    X, _ = fit(xt)
    Y, _ = fit(yt)
    discs = {e.get('data-id'): e for e in root.iter(NS + 'circle') if 'point' in classes(e)}
    want = [r for r in rows if int(r[col['period']]) > 0 and float(r[col['copies']]) > 0]
    if sorted(discs) != sorted(r[0] for r in want):
        fail(f'{len(discs)} discs for {len(want)} repeats with a period')
    lmax = max([float(r[col['length']]) for r in want] or [1])
    for r in want:
        e = discs[r[0]]
        cx, cy, rad = float(e.get('cx')), float(e.get('cy')), float(e.get('r'))
        c = float(r[col['copies']])  # to 0.01: the disc lies between the places of c -/+ 0.005
        ylo, yhi = sorted((Y(max(c - 0.005, 1e-9)), Y(c + 0.005)))
        if abs(cx - X(int(r[col['period']]))) > 0.1 or not ylo - 0.1 <= cy <= yhi + 0.1:
            fail(f'{r[0]} at {cx},{cy}, its period and copies at {X(int(r[col["period"]])):.1f},'
                 f'{Y(float(r[col["copies"]])):.1f}')
        if r[1] not in classes(e):
            fail(f'{r[0]}: not drawn as {r[1]}')
        want_r = max(2.0, 22 * math.sqrt(float(r[col['length']]) / lmax)) if lmax > 0 else 2
        if abs(rad - want_r) > 0.06:
            fail(f'{r[0]}: radius {rad}, its length gives {want_r:.2f}')
    labels = [e for e in root.iter(NS + 'text') if 'label' in classes(e)]
    if want and not labels:
        fail('no repeat labelled')
    top = [r[0] for r in want[:12]]
    boxes = {b[4]: b for b in text_boxes(root)}
    for e in labels:
        if e.get('data-id') not in top:
            fail(f'{e.get("data-id")} labelled, not one of the longest')
        x0, y0, x1, y1, _ = boxes[e.text]
        for i in top:
            d = discs[i]
            cx, cy, rad = float(d.get('cx')), float(d.get('cy')), float(d.get('r'))
            if x0 < cx + rad - 0.5 and cx - rad + 0.5 < x1 and y0 < cy + rad - 0.5 and cy - rad + 0.5 < y1:
                fail(f'the label {e.text!r} covers the disc of {i}')
    print('ok')


if __name__ == '__main__':
    {'spectrum': spectrum, 'repeats': repeats, 'landscape': landscape}[sys.argv[1]](*sys.argv[2:])
