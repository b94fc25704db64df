#!/usr/bin/env python3
"""seqgpu scc's loci of an assembly (PREFIX.loci.bed) against TRF's arrays
(trf ... -h -ngs, its .dat lines under @name headers).

TRF reports one array several times (at a period and its multiples, or
overlapping stretches): overlapping TRF lines are one array, described by
the line of the highest score. An array is recalled when scc's loci cover
half of its bases or more; its period agrees when the locus that covers
most of it has TRF's period (or consensus length) within 3%, and is a
multiple when it is 2 to 10 times one of them within 3%.

Prints, per length class of the arrays, TRF's arrays, those recalled and
the share, and the same for the arrays a k-mer threshold can see: with
--fasta (the genome), those that hold a cycle of the de Bruijn graph at the
threshold (p + 1 k-mers in a row, each seen --min-copies times or more in
the genome, the last the first again: p = TRF's period or consensus
length), which the method sees by construction; without it, those whose
TRF copies are at least --min-copies + (k - 1) / period at --min-matches %
or more. Then the period agreement of those recalled, the recall by TRF's
matches (identity), and the loci scc reports of two copies or more that no
TRF array overlaps: those whose copies are 70% alike or more (an array TRF
does not report), and the others (alike no more than unrelated sequence,
about 50%: copies of a family in one locus, no array).
"""
import argparse
import collections
import sys

BINS = [(25, 100), (100, 300), (300, 1000), (1000, 10 ** 12)]


def trf_arrays(path):
    """{chrom: [(start, end, period, consensus, copies, matches), ...]}, one per group of overlapping lines."""
    by_chrom = collections.defaultdict(list)
    chrom = None
    for line in open(path):
        if line.startswith('@'):
            chrom = line[1:].split()[0]
            continue
        f = line.split()
        if len(f) < 14 or chrom is None:
            continue
        s, e = int(f[0]) - 1, int(f[1])
        by_chrom[chrom].append((s, e, int(f[2]), int(f[4]), float(f[3]), int(f[5]), int(f[7])))
    out = {}
    for chrom, lines in by_chrom.items():
        lines.sort()
        groups = []
        for x in lines:
            if groups and x[0] < groups[-1][1]:
                g = groups[-1]
                best = g[2] if g[2][6] >= x[6] else x
                groups[-1] = (g[0], max(g[1], x[1]), best)
            else:
                groups.append((x[0], x[1], x))
        out[chrom] = [(s, e, b[2], b[3], b[4], b[5]) for s, e, b in groups]
    return out


def scc_loci(path):
    out = collections.defaultdict(list)
    for line in open(path):
        if line.startswith('#'):
            continue
        f = line.rstrip('\n').split('\t')
        out[f[0]].append((int(f[1]), int(f[2]), int(f[6]), float(f[7]), f[8]))
    for v in out.values():
        v.sort()
    return out


COMP = str.maketrans('ACGT', 'TGCA')


def canon(x):
    r = x.translate(COMP)[::-1]
    return min(x, r)


def records(path):
    name, seq = None, []
    for line in open(path):
        if line.startswith('>'):
            if name is not None:
                yield name, ''.join(seq).upper()
            name, seq = line[1:].split()[0], []
        else:
            seq.append(line.strip())
    if name is not None:
        yield name, ''.join(seq).upper()


def cycles_seen(genome, trf, k, t):
    """{(chrom, start): whether the array holds a cycle of k-mers each seen t times or more}."""
    seqs = dict(records(genome))
    want = {}
    for chrom, arrays in trf.items():
        for s, e, p, cons, _, _ in arrays:
            a = seqs[chrom][s:e]
            want[(chrom, s)] = (a, {p, cons})
    counts = {}
    for a, _ in want.values():
        for i in range(len(a) - k + 1):
            counts[canon(a[i:i + k])] = 0
    for seq in seqs.values():
        for i in range(len(seq) - k + 1):
            x = canon(seq[i:i + k])
            if x in counts:
                counts[x] += 1
    out = {}
    for key, (a, periods) in want.items():
        ok = [counts.get(canon(a[i:i + k]), 0) >= t and 'N' not in a[i:i + k] for i in range(len(a) - k + 1)]
        seen = False
        for p in periods:
            run = 0
            for i in range(len(ok)):
                run = run + 1 if ok[i] else 0
                if run > p and a[i - p:i - p + k] == a[i:i + k]:
                    seen = True
                    break
        out[key] = seen
    return out


def near(a, b):
    return abs(a - b) <= 0.03 * b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--trf', required=True)
    ap.add_argument('--loci', required=True)
    ap.add_argument('-k', type=int, default=31)
    ap.add_argument('--min-copies', type=float, default=3)
    ap.add_argument('--min-matches', type=int, default=95)
    ap.add_argument('--fasta', help='the genome: the arrays that hold a cycle at the threshold are the visible ones')
    ap.add_argument('--label', default='')
    a = ap.parse_args()
    trf, loci = trf_arrays(a.trf), scc_loci(a.loci)
    seen = cycles_seen(a.fasta, trf, a.k, a.min_copies) if a.fasta else None
    rows = collections.OrderedDict((b, [0, 0, 0, 0]) for b in BINS)
    agree = collections.Counter()
    by_matches = collections.OrderedDict((m, [0, 0]) for m in ('>=98%', '90-97%', '<90%'))
    for chrom, arrays in trf.items():
        ls = loci.get(chrom, [])
        for s, e, p, cons, copies, matches in arrays:
            b = next((b for b in BINS if b[0] <= e - s < b[1]), None)
            if b is None:
                continue
            cover = [0] * (e - s)
            best, best_n = None, 0
            for ls_, le, lp, _, _ in ls:
                if le <= s or ls_ >= e:
                    continue
                n = min(e, le) - max(s, ls_)
                for i in range(max(s, ls_) - s, min(e, le) - s):
                    cover[i] = 1
                if n > best_n:
                    best, best_n = lp, n
            hit = sum(cover) * 2 >= e - s
            if seen is not None:
                visible = seen[(chrom, s)]
            else:
                visible = copies >= a.min_copies + (a.k - 1) / p and matches >= a.min_matches
            m = by_matches['>=98%' if matches >= 98 else '90-97%' if matches >= 90 else '<90%']
            m[0] += 1
            m[1] += hit
            r = rows[b]
            r[0] += 1
            r[1] += hit
            r[2] += visible
            r[3] += hit and visible
            if hit:
                if near(best, p) or near(best, cons):
                    agree['the same'] += 1
                elif any(near(best, m * x) for m in range(2, 11) for x in (p, cons)):
                    agree['a multiple'] += 1
                elif any(near(best * m, x) for m in range(2, 11) for x in (p, cons)):
                    agree['a divisor'] += 1
                else:
                    agree['other'] += 1
    outside = [0, 0]
    for chrom, ls in loci.items():
        arrays = trf.get(chrom, [])
        for s, e, p, copies, ident in ls:
            if copies >= 2 and ident != '.' and not any(x[0] < e and x[1] > s for x in arrays):
                outside[float(ident) < 0.7] += 1
    pct = lambda x, n: '%d/%d (%.0f%%)' % (x, n, 100.0 * x / n) if n else '0/0'
    label = a.label + ' ' if a.label else ''
    print('%sarray length\tTRF arrays recalled\tarrays a k-mer threshold can see, recalled' % label)
    tot = [0, 0, 0, 0]
    for (lo, hi), r in rows.items():
        print('%s%s\t%s\t%s' % (label, '%d-%d' % (lo, hi) if hi < 10 ** 12 else '>=%d' % lo, pct(r[1], r[0]),
                                pct(r[3], r[2])))
        tot = [x + y for x, y in zip(tot, r)]
    print('%sall\t%s\t%s' % (label, pct(tot[1], tot[0]), pct(tot[3], tot[2])))
    print('%speriod of the recalled: %s' % (label, ', '.join('%s %d' % (k, v) for k, v in agree.most_common())))
    print('%sby TRF matches: %s' % (label, ', '.join('%s %s' % (m, pct(r[1], r[0])) for m, r in by_matches.items())))
    print('%sscc loci of 2+ copies outside every TRF array: %d (and %d whose copies are under 70%% alike)' %
          (label, outside[0], outside[1]))


if __name__ == '__main__':
    sys.exit(main())
