#!/usr/bin/env python3
"""Brute-force reference for `seqgpu find` with mismatches and PAMs, sharing
no code with seqgpu: every window of every record is compared position by
position (numpy over all starts at once).

  ref_offtarget.py find [options] IN...        seqgpu find's output (bed, tsv, count, casoffinder)
  ref_offtarget.py gen [options] OUT.fa GUIDES  a random genome with the awkward cases, and guides
                                                planted in it with mismatches ("name<TAB>guide" lines)
"""
import argparse
import gzip
import os
import random
import sys

import numpy as np

IUPAC = {'A': 'A', 'C': 'C', 'G': 'G', 'T': 'T', 'R': 'AG', 'Y': 'CT', 'S': 'CG', 'W': 'AT',
         'K': 'GT', 'M': 'AC', 'B': 'CGT', 'D': 'AGT', 'H': 'ACT', 'V': 'ACG', 'N': 'ACGT'}
COMP = {'A': 'T', 'C': 'G', 'G': 'C', 'T': 'A', 'R': 'Y', 'Y': 'R', 'S': 'S', 'W': 'W',
        'K': 'M', 'M': 'K', 'B': 'V', 'V': 'B', 'D': 'H', 'H': 'D', 'N': 'N'}
BASE_COMP = {**COMP, **{k.lower(): v.lower() for k, v in COMP.items()}}  # text letters, IUPAC too, either case


def records(path):
    """(name, sequence) of each FASTA or FASTQ record."""
    raw = open(path, 'rb').read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    lines = raw.decode('latin-1').split('\n')
    lines = [l[:-1] if l.endswith('\r') else l for l in lines]
    first = next((l for l in lines if l.strip()), '')
    if first.startswith('@'):
        body = [l for l in lines if l != '']
        for i in range(0, len(body) - 3, 4):
            yield body[i][1:].split()[0], body[i + 1]
        return
    name, seq = None, []
    for l in lines:
        if l.startswith('>'):
            if name is not None:
                yield name, ''.join(seq)
            name, seq = l[1:].split()[0], []
        elif name is not None:
            seq.append(l.rstrip(' \t'))
    if name is not None:
        yield name, ''.join(seq)


class Motif:
    """A window: letters, and which positions are PAM (exact, never counted)."""

    def __init__(self, name, window, pam, limit, query, ident=None, shown=None):
        self.name, self.window, self.pam, self.limit = name, window.upper(), pam, limit
        self.query, self.id, self.shown = query, ident, shown if shown is not None else window

    def strands(self, which):
        fwd = (self.window, self.pam)
        rev = (''.join(COMP[c] for c in reversed(self.window)), self.pam[::-1])
        if fwd == rev:
            return [('.', fwd)]
        out = []
        if which in ('both', '+'):
            out.append(('+', fwd))
        if which in ('both', '-'):
            out.append(('-', rev))
        return out


def motifs_from_args(a):
    out = []
    pam5, pam3 = (a.pam5 or '').upper(), (a.pam or '').upper()

    def add(name, seq, limit):
        window = pam5 + seq.upper() + pam3
        pam = [True] * len(pam5) + [False] * len(seq) + [True] * len(pam3)
        query = 'N' * len(pam5) + seq.upper() + 'N' * len(pam3)
        out.append(Motif(name or seq, window, pam, limit, query, shown=pam5 + seq + pam3))

    for m in a.motif or []:
        add(None, m, a.max_mismatches)
    if a.motif_file:
        for line in open(a.motif_file).read().splitlines():
            if not line.strip() or line.startswith('#'):
                continue
            f = line.split('\t')
            if len(f) == 1:
                add(None, f[0], a.max_mismatches)
            elif len(f) == 2:
                add(f[0], f[1], a.max_mismatches)
            else:
                add(f[0], f[1], int(f[2]))
    return out


def motifs_from_casoffinder(path):
    lines = [l.rstrip() for l in open(path).read().splitlines()]
    genome, pattern = lines[0], lines[1].strip().upper()
    out = []
    for l in lines[2:]:
        f = l.split()
        if not f:
            continue
        guide = f[0].upper()
        pam = [g == 'N' for g in guide]
        window = ''.join(p if is_pam else g for p, g, is_pam in zip(pattern, guide, pam))
        ident = f[2] if len(f) > 2 else None
        out.append(Motif(ident or guide, window, pam, int(f[1]), guide, ident))
    if os.path.isdir(genome):
        files = []
        for n in sorted(os.listdir(genome)):
            p = os.path.join(genome, n)
            if n.startswith('.') or not os.path.isfile(p):
                continue
            raw = open(p, 'rb').read()
            if raw[:2] == b'\x1f\x8b':
                raw = gzip.decompress(raw)
            if raw.lstrip()[:1] == b'>':
                files.append(p)
    else:
        files = [genome]
    return out, files


def hits_of(seq, pattern, pam, limit, skip_masked):
    """(start, mismatches) of every window of seq matching pattern."""
    text = seq if skip_masked else seq.upper()
    n, L = len(text), len(pattern)
    if n < L:
        return []
    arr = np.frombuffer(text.encode('latin-1'), dtype=np.uint8)
    starts = n - L + 1
    ok = np.ones(starts, dtype=bool)
    mm = np.zeros(starts, dtype=np.int32)
    for j, (letter, is_pam) in enumerate(zip(pattern, pam)):
        col = arr[j:j + starts]
        inset = np.zeros(starts, dtype=bool)
        for b in IUPAC[letter]:
            inset |= col == ord(b)  # upper case only: lower case never matches under --skip-masked
        if is_pam:
            ok &= inset
        else:
            mm += ~inset
    good = np.nonzero(ok & (mm <= limit))[0]
    return [(int(s), int(mm[s])) for s in good]


def site(text, pattern, strand, skip_masked):
    """The window in the pattern's orientation ('-': reverse complement), upper
    case, with mismatched bases in lower case."""
    out = []
    for c, letter in zip(text, pattern):
        base = c if skip_masked else c.upper()
        out.append(c.upper() if base in 'ACGT' and base in IUPAC[letter] else c.lower())
    s = ''.join(out)
    if strand == '-':
        s = ''.join(BASE_COMP.get(c, c) for c in reversed(s))
    return s


def find(a):
    if a.cas_offinder:
        motifs, inputs = motifs_from_casoffinder(a.cas_offinder)
    else:
        motifs, inputs = motifs_from_args(a), a.inputs
    approx = any(m.limit or any(m.pam) for m in motifs)
    pats = []  # (length, strand order, motif index, strand, pattern, pam)
    order = {'+': 0, '-': 1, '.': 2}
    for mi, m in enumerate(motifs):
        for strand, (p, pam) in m.strands(a.strand):
            pats.append((len(p), order[strand], mi, strand, p, pam))
    pats.sort()
    w = sys.stdout.write
    if a.format == 'tsv':
        w('seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched' + ('\tmismatches' if approx else '') + '\n')
    elif a.format == 'count':
        w('seqID\tpatternName\thits\n')
    for path in inputs:
        for rname, seq in records(path):
            hits = []
            for rank, (L, _, mi, strand, p, pam) in enumerate(pats):
                for s, mm in hits_of(seq, p, pam, motifs[mi].limit, a.skip_masked):
                    hits.append((s, rank, mi, strand, p, mm))
            hits.sort()
            if a.format == 'count':
                counts = [0] * len(motifs)
                for h in hits:
                    counts[h[2]] += 1
                for mi, m in enumerate(motifs):
                    w('%s\t%s\t%d\n' % (rname, m.name, counts[mi]))
                continue
            for s, _, mi, strand, p, mm in hits:
                m, e, t = motifs[mi], s + len(p), seq[s:s + len(p)]
                if a.format == 'bed':
                    w('%s\t%d\t%d\t%s\t%d\t%s\n' % (rname, s, e, m.name, mm, strand))
                elif a.format == 'tsv':
                    if approx:
                        matched = site(t, p, strand, a.skip_masked) + '\t%d' % mm
                    else:
                        matched = t if strand != '-' else ''.join(BASE_COMP.get(c, c) for c in reversed(t))
                    w('%s\t%s\t%s\t%s\t%d\t%d\t%s\n' % (rname, m.name, m.shown, strand, s + 1, e, matched))
                else:  # casoffinder: both strands of a palindromic window, as Cas-OFFinder gives them
                    both = [x for x in '+-' if a.strand in ('both', x)]
                    for st in (both if strand == '.' else [strand]):
                        row = [m.query, rname, str(s), site(t, p, st, a.skip_masked), st, str(mm)]
                        if m.id is not None:
                            row.append(m.id)
                        w('\t'.join(row) + '\n')


def gen(a):
    rnd = random.Random(a.seed)
    guides = [''.join(rnd.choice('ACGT') for _ in range(a.guide_len)) for _ in range(a.guides)]
    pam = a.pam or ''
    with open(a.out, 'w') as f:
        for r in range(a.records):
            n = rnd.choice([0, 5, a.guide_len + len(pam) - 1, a.length, a.length, a.length])
            s = [rnd.choice('ACGT') for _ in range(n)]
            # plant guides with 0..max mismatches, with and without a valid PAM, on both strands
            for _ in range(n // 300):
                g = list(rnd.choice(guides) + ''.join(rnd.choice(IUPAC[c]) for c in pam))
                for _ in range(rnd.randint(0, a.max_mm + 1)):
                    i = rnd.randrange(a.guide_len)
                    g[i] = rnd.choice('ACGT')
                if rnd.random() < 0.5:
                    g = [BASE_COMP[c] for c in reversed(g)]
                at = rnd.randrange(max(1, n - len(g)))
                s[at:at + len(g)] = g
                s = s[:n]
            for _ in range(n // 2000):  # N runs, IUPAC text, soft-masking
                at = rnd.randrange(max(1, n))
                kind = rnd.random()
                for i in range(at, min(n, at + rnd.randint(1, 30))):
                    s[i] = 'N' if kind < 0.4 else rnd.choice('RYKMSWN') if kind < 0.6 else s[i].lower()
            if s and rnd.random() < 0.3:  # a record that ends inside a PAM
                tail = list(rnd.choice(guides) + pam)[:a.guide_len + rnd.randrange(max(1, len(pam)))]
                s = s[:max(0, n - len(tail))] + tail
            f.write('>rec%d some description\n' % r)
            width = rnd.choice([60, 61, 1000000])
            seq = ''.join(s)
            for i in range(0, len(seq), width):
                f.write(seq[i:i + width] + '\n')
    with open(a.guides_out, 'w') as f:
        for i, g in enumerate(guides):
            f.write('g%d\t%s\n' % (i, g))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    f = sub.add_parser('find')
    f.add_argument('-m', '--motif', action='append')
    f.add_argument('-f', '--motif-file')
    f.add_argument('-M', '--max-mismatches', type=int, default=0)
    f.add_argument('--pam')
    f.add_argument('--pam-5', dest='pam5')
    f.add_argument('--cas-offinder')
    f.add_argument('-s', '--strand', default='both')
    f.add_argument('-F', '--format', default='bed')
    f.add_argument('--skip-masked', action='store_true')
    f.add_argument('inputs', nargs='*')
    g = sub.add_parser('gen')
    g.add_argument('--seed', type=int, default=1)
    g.add_argument('--records', type=int, default=8)
    g.add_argument('--length', type=int, default=20000)
    g.add_argument('--guides', type=int, default=10)
    g.add_argument('--guide-len', type=int, default=20)
    g.add_argument('--pam', default='NGG')
    g.add_argument('--max-mm', type=int, default=4)
    g.add_argument('out')
    g.add_argument('guides_out')
    a = ap.parse_args()
    find(a) if a.cmd == 'find' else gen(a)


if __name__ == '__main__':
    main()
