#!/usr/bin/env python3
"""seqgpu scc -g overlap's repeats against TRF's loci (bench/overlap_trf.sh).

  overlap_trf.py loci GENOME.trf > loci.tsv
      TRF's records (-ngs output) merged into loci: records of one sequence
      that overlap by half of the shorter are one locus, with every period
      TRF gave it (an array of diverged copies is often reported at its
      period and at twice it).
  overlap_trf.py compare --maf 'DIR/pb_*.maf' --loci loci.tsv [--planted arrays.tsv] PREFIX
      Each repeat of PREFIX.repeats.tsv, through the reads of
      PREFIX.components.tsv and where pbsim placed them, against the loci:
      one line of figures, then a line per length bin: TRF's loci, those
      found (a repeat whose reads touch the locus, its period within 3% of
      one of TRF's or of 2 to 4 times one), and the median relative error
      of the found arrays' lengths (repeats.tsv's length column).
"""
import argparse
import glob

BINS = [(0, 1000), (1000, 5000), (5000, 15000), (15000, 10 ** 12)]


def trf_records(path):
    seq = None
    for line in open(path):
        if line.startswith('@'):
            seq = line[1:].split()[0]
            continue
        f = line.split()
        if len(f) >= 5 and seq:
            yield seq, int(f[0]) - 1, int(f[1]), int(f[4]), float(f[7])


def loci(args):
    by = {}
    for seq, s, e, p, score in trf_records(args.trf):
        by.setdefault(seq, []).append((s, e, p, score))
    print('seq\tstart\tend\tperiods')
    for seq, recs in by.items():
        recs.sort()
        merged = []
        for s, e, p, score in recs:
            if merged and min(e, merged[-1][1]) - s >= 0.5 * min(e - s, merged[-1][1] - merged[-1][0]):
                m = merged[-1]
                merged[-1] = (min(m[0], s), max(m[1], e), m[2] + [p])
            else:
                merged.append((s, e, [p]))
        for s, e, ps in merged:
            print('%s\t%d\t%d\t%s' % (seq, s, e, ','.join(map(str, sorted(set(ps))))))


def maf_places(pattern):
    """read -> (sequence, start, end) from pbsim's MAF files."""
    places = {}
    for path in sorted(glob.glob(pattern)):
        lines = open(path).read().split('\n')
        for i, l in enumerate(lines):
            if l.startswith('a') and i + 2 < len(lines):
                g, r = lines[i + 1].split(), lines[i + 2].split()
                # s NAME [DESCRIPTION...] START SIZE STRAND SRCSIZE TEXT: pbsim keeps the whole header
                places[r[1]] = (g[1], int(g[-5]), int(g[-5]) + int(g[-4]))
    return places


def agrees(p, periods):
    return any(abs(p - t) <= 0.03 * t or any(abs(k * p - t) <= 0.03 * t for k in (2, 3, 4)) for t in periods)


def compare(args):
    places = maf_places(args.maf)
    loc = []
    for l in open(args.loci).read().split('\n')[1:]:
        if l:
            f = l.split('\t')
            loc.append((f[0], int(f[1]), int(f[2]), [int(x) for x in f[3].split(',')]))
    planted = set()
    if args.planted:  # satellites' arrays.tsv: the loci that overlap a planted array are the planted ones
        arr = [tuple(map(int, l.split('\t')[:2])) for l in open(args.planted).read().split('\n')[1:] if l]
        planted = {i for i, (seq, s, e, _) in enumerate(loc) if any(s < b and e > a for a, b in arr)}
    head, *rows = [l.split('\t') for l in open(args.prefix + '.repeats.tsv').read().split('\n') if l]
    col = {name: i for i, name in enumerate(head)}
    members = {}
    for l in open(args.prefix + '.components.tsv').read().split('\n')[1:]:
        if l:
            r, c = l.split('\t')
            members.setdefault(c, []).append(r)
    n_reads = len(places)
    largest = max((len(v) for v in members.values()), default=0)
    outside, found = 0, {}
    for r in rows:
        reads = members.get(r[0], [])
        touched = set()
        for x in reads:
            seq, s, e = places[x]
            touched |= {i for i, (ls, a, b, _) in enumerate(loc) if ls == seq and s < b and e > a}
        if not touched:
            outside += 1
        for i in touched:
            if int(r[col['period']]) and agrees(int(r[col['period']]), loc[i][3]):
                length = float(r[col['length']]) if 'length' in col else 0
                found.setdefault(i, length)
    print('reads\t%d\trepeats\t%d\tlargest\t%d\t%.2f%%\toutside_trf\t%d' % (
        n_reads, len(rows), largest, 100.0 * largest / max(1, n_reads), outside))
    for lo, hi in BINS:
        idx = [i for i, (seq, s, e, _) in enumerate(loc) if lo <= e - s < hi and (not planted or i in planted)]
        hit = [i for i in idx if i in found]
        err = sorted(abs(found[i] - (loc[i][2] - loc[i][1])) / (loc[i][2] - loc[i][1]) for i in hit if found[i])
        print('bin\t%s\tloci\t%d\tfound\t%d\tlength_error\t%s' % (
            '%d-%s' % (lo, hi if hi < 10 ** 12 else ''), len(idx), len(hit),
            '%.1f%%' % (100 * err[len(err) // 2]) if err else '-'))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    t = sub.add_parser('loci')
    t.add_argument('trf')
    t = sub.add_parser('compare')
    t.add_argument('--maf', required=True)
    t.add_argument('--loci', required=True)
    t.add_argument('--planted')
    t.add_argument('prefix')
    a = ap.parse_args()
    {'loci': loci, 'compare': compare}[a.cmd](a)


if __name__ == '__main__':
    main()
