#!/usr/bin/env python3
"""Brute-force reference for `seqgpu find` with mismatches, PAMs and bulges,
sharing no code with seqgpu: every window of every record is compared position
by position (numpy over all starts at once). With bulges, every alignment shape
of a guide (where its gap is, in the guide's orientation) is a template of its
own, scanned the same way; CFD and MIT scores and CRISPOR's guide
specificities are computed from the alignments found.

  ref_offtarget.py find [options] IN...        seqgpu find's output (bed, tsv, count, casoffinder,
                                                casoffinder3; --score, --guide-summary, --all-alignments)
  ref_offtarget.py gen [options] OUT.fa GUIDES  a random genome with the awkward cases, and guides
                                                planted in it with mismatches and bulges
                                                ("name<TAB>guide" lines)
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
        if a.guides_include_pam:
            name, seq = name or seq, seq[len(pam5):len(seq) - len(pam3)]
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
    words = lines[1].split()
    genome, pattern = lines[0], words[0].upper()
    bulges = (int(words[1]), int(words[2])) if len(words) == 3 else (0, 0)
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
    return out, files, bulges


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
        motifs, inputs, bulges = motifs_from_casoffinder(a.cas_offinder)
        a.dna_bulge, a.rna_bulge = bulges
    else:
        motifs, inputs = motifs_from_args(a), a.inputs
    if a.dna_bulge or a.rna_bulge or a.score or a.guide_summary or a.format == 'casoffinder3':
        return find_bulges(a, motifs, inputs)
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



# ---- bulges and scores ----

TYPES = ('X', 'DNA', 'RNA')
# Doench et al. 2016, Supplementary Table 19: 'rX:dY' -> the activity at positions 1..20; 'r-:dY' and
# 'rX:d-' (DNA and RNA bulges) -> positions 2..20; PAMs by their last two bases
CFD_TABLE = {
    'rA:dA': '1 0.727272727 0.705882353 0.636363636 0.363636364 0.714285714 0.4375 0.428571429 0.6 0.882352941 0.307692308 0.333333333 0.3 0.533333333 0.2 0 0.133333333 0.5 0.538461538 0.6',
    'rA:dC': '1 0.8 0.611111111 0.625 0.72 0.714285714 0.705882353 0.733333333 0.666666667 0.555555556 0.65 0.722222222 0.652173913 0.466666667 0.65 0.192307692 0.176470588 0.4 0.375 0.764705882',
    'rA:dG': '0.857142857 0.785714286 0.428571429 0.352941176 0.5 0.454545455 0.4375 0.428571429 0.571428571 0.333333333 0.4 0.263157895 0.210526316 0.214285714 0.272727273 0 0.176470588 0.19047619 0.206896552 0.227272727',
    'rC:dA': '1 0.909090909 0.6875 0.8 0.636363636 0.928571429 0.8125 0.875 0.875 0.941176471 0.307692308 0.538461538 0.7 0.733333333 0.066666667 0.307692308 0.466666667 0.642857143 0.461538462 0.3',
    'rC:dC': '0.913043478 0.695652174 0.5 0.5 0.6 0.5 0.470588235 0.642857143 0.619047619 0.388888889 0.25 0.444444444 0.136363636 0 0.05 0.153846154 0.058823529 0.133333333 0.125 0.058823529',
    'rC:dT': '1 0.727272727 0.866666667 0.842105263 0.571428571 0.928571429 0.75 0.65 0.857142857 0.866666667 0.75 0.714285714 0.384615385 0.35 0.222222222 1 0.466666667 0.538461538 0.428571429 0.5',
    'rG:dA': '1 0.636363636 0.5 0.363636364 0.3 0.666666667 0.571428571 0.625 0.533333333 0.8125 0.384615385 0.384615385 0.3 0.266666667 0.142857143 0 0.25 0.666666667 0.666666667 0.7',
    'rG:dG': '0.714285714 0.692307692 0.384615385 0.529411765 0.785714286 0.681818182 0.6875 0.615384615 0.538461538 0.4 0.428571429 0.529411765 0.421052632 0.428571429 0.272727273 0 0.235294118 0.476190476 0.448275862 0.428571429',
    'rG:dT': '0.9 0.846153846 0.75 0.9 0.866666667 1 1 1 0.642857143 0.933333333 1 0.933333333 0.923076923 0.75 0.941176471 1 0.933333333 0.692307692 0.714285714 0.9375',
    'rU:dC': '0.956521739 0.84 0.5 0.625 0.64 0.571428571 0.588235294 0.733333333 0.619047619 0.5 0.4 0.5 0.260869565 0 0.05 0.346153846 0.117647059 0.333333333 0.25 0.176470588',
    'rU:dG': '0.857142857 0.857142857 0.428571429 0.647058824 1 0.909090909 0.6875 1 0.923076923 0.533333333 0.666666667 0.947368421 0.789473684 0.285714286 0.272727273 0.666666667 0.705882353 0.428571429 0.275862069 0.090909091',
    'rU:dT': '1 0.846153846 0.714285714 0.476190476 0.5 0.866666667 0.875 0.8 0.928571429 0.857142857 0.75 0.8 0.692307692 0.619047619 0.578947368 0.909090909 0.533333333 0.666666667 0.285714286 0.5625',
    'r-:dA': '0.692307692 0.4375 0.15 0.133333333 0.066666667 0 0 0.142857143 0.4 0.3125 0.071428571 0.076923077 0.047619048 0.052631579 0 0 0.153846154 0.142857143 0.6',
    'r-:dC': '0.714285714 0.461538462 0.176470588 0.071428571 0 0 0 0 0.133333333 0.133333333 0 0 0 0 0 0.058823529 0.142857143 0.035714286 0.045454545',
    'r-:dG': '0.96 0.666666667 0.375 0.24 0.142857143 0.058823529 0.133333333 0.238095238 0.333333333 0.1 0.055555556 0.043478261 0 0 0 0 0.2 0.4375 0.529411765',
    'r-:dT': '0.727272727 0.6 0.1 0 0.083333333 0 0.0625 0.1875 0.25 0.076923077 0.076923077 0 0 0 0 0 0 0.307692308 0.6',
    'rA:d-': '0.969230769 0.888888889 0.580645161 0.328125 0.276923077 0.430769231 0.234375 0.276923077 0.569230769 0.276923077 0.061538462 0.03125 0.046153846 0.03125 0.015384615 0 0 0 0.061538462',
    'rC:d-': '0.96875 0.933333333 0.682539683 0.365079365 0.4375 0.569230769 0.123076923 0.415384615 0.615384615 0.169230769 0.046875 0 0.046153846 0 0 0 0 0 0.03125',
    'rG:d-': '0.921875 0.822580645 0.523076923 0.296875 0.390625 0.492063492 0.301587302 0.328125 0.587301587 0.25 0.125 0.046875 0.063492063 0 0 0 0 0.063492063 0.09375',
    'rU:d-': '0.953125 0.921875 0.65625 0.215384615 0.446153846 0.553846154 0.296875 0.609375 0.650793651 0.323076923 0.030769231 0 0.061538462 0 0 0 0 0 0',
}
CFD_PAM = {'AA': 0, 'AC': 0, 'AG': 0.259259259, 'AT': 0, 'CA': 0, 'CC': 0, 'CG': 0.107142857, 'CT': 0, 'GA': 0.069444444, 'GC': 0.022222222, 'GG': 1, 'GT': 0.016129032, 'TA': 0, 'TC': 0, 'TG': 0.038961039, 'TT': 0}
MIT_WEIGHT = [0, 0, 0.014, 0, 0, 0.395, 0.317, 0, 0.389, 0.079, 0.445, 0.508, 0.613, 0.851, 0.732, 0.828, 0.615,
              0.804, 0.685, 0.583]
TARGET = {'A': 'T', 'C': 'G', 'G': 'C', 'T': 'A', 'U': 'A'}


def variant_type(v):
    return 0 if v == 0 else 1 if v <= 2 else 2


def variant_size(v):
    return 0 if v == 0 else v if v <= 2 else v - 2


def shapes(glen, side, db, rb):
    """(variant, j) of every alignment shape of a guide of glen bases with its PAM on side 3, 5 or 0 (none):
    a DNA bulge of size i puts i extra DNA bases before guide position j, an RNA bulge leaves guide
    positions j..j+i-1 unpaired. No gap at the guide's PAM-distal end; one may touch the PAM."""
    out = [(0, 0)]
    for i in range(1, db + 1):
        js = range(1, glen + 1) if side == 3 else range(0, glen) if side == 5 else range(1, glen)
        out += [(i, j) for j in js]
    for i in range(1, rb + 1):
        first, last = (0, glen - 1) if side == 5 else (1, glen if side == 3 else glen - 1)
        out += [(2 + i, j) for j in range(first, glen) if j + i <= last]
    return out


def columns(m, v, j):
    """The alignment columns of shape (v, j) in the guide's orientation: (window position or None over an extra
    DNA base, kind of the DNA base: 'P' PAM, 'G' guide, 'X' extra, or None under an unpaired guide base)."""
    g0, glen = m.pam.index(False), m.pam.count(False)
    kind, size = variant_type(v), variant_size(v)
    cols = []
    for k in range(len(m.window)):
        gk = k - g0
        if kind == 1 and gk == j and (not m.pam[k] or j == glen):  # extra DNA bases before guide position j
            cols += [(None, 'X')] * size
        unpaired = not m.pam[k] and kind == 2 and j <= gk < j + size
        cols.append((k, None if unpaired else 'P' if m.pam[k] else 'G'))
    return cols


def scan(arr, skip_masked, letters, kinds):
    """(ok, mm) over every start of arr for a template of letters (IUPAC, in text order) and kinds (P exact,
    G counted, X anything)."""
    n = len(letters)
    starts = len(arr) - n + 1
    ok = np.ones(starts, dtype=bool)
    mm = np.zeros(starts, dtype=np.int32)
    for t, (letter, kind) in enumerate(zip(letters, kinds)):
        if kind == 'X':
            continue
        col = arr[t:t + starts]
        inset = np.zeros(starts, dtype=bool)
        for b in IUPAC[letter]:
            inset |= col == ord(b)
        if kind == 'P':
            ok &= inset
        else:
            mm += ~inset
    return ok, mm


def rows(m, cols, text, strand, letters, skip_masked):
    """The crRNA and DNA rows of an alignment in the guide's orientation (text: the site's forward bases)."""
    bases = text if strand != '-' else ''.join(BASE_COMP.get(c, c) for c in reversed(text))
    rna, dna, t = [], [], 0
    for k, kind in cols:
        rna.append('-' if k is None else letters[k])
        if kind is None:
            dna.append('-')
            continue
        c = bases[t]
        t += 1
        base = c if skip_masked else c.upper()
        bad = kind == 'G' and not (base in 'ACGT' and base in IUPAC[m.window[k]])
        dna.append(c.lower() if bad else c.upper())
    return ''.join(rna), ''.join(dna)


def cfd(rna, dna):
    """The CFD score of rows ending in a 3-base PAM: the last 20 columns before it, by column."""
    pam2 = dna[-2:].upper()
    if any(c not in 'ACGT' for c in pam2):
        return None
    rna, dna = rna[:-3][-20:], dna[:-3][-20:].upper()
    if len(rna) < 20:
        return None
    score = 1.0
    for i, (r, d) in enumerate(zip(rna.upper().replace('T', 'U'), dna)):
        if (r != '-' and r not in 'ACGU') or (d != '-' and d not in 'ACGT'):
            return None
        if r == '-' or d == '-':
            if i == 0:
                continue
            key = 'r-:d' + TARGET[d] if r == '-' else 'r' + r + ':d-'
            score *= float(CFD_TABLE[key].split()[i - 1])
        elif r != d.replace('T', 'U'):
            score *= float(CFD_TABLE['r' + r + ':d' + TARGET[d]].split()[i])
    return score * CFD_PAM[pam2]


def mit(guide, site):
    mms = [i for i in range(20) if guide[i].upper() != site[i].upper()]
    s1 = 1.0
    for i in mms:
        s1 *= 1 - MIT_WEIGHT[i]
    s2 = 1.0 if len(mms) < 2 else 1.0 / ((19 - (mms[-1] - mms[0]) / (len(mms) - 1)) / 19.0 * 4 + 1)
    s3 = 1.0 / len(mms) ** 2 if mms else 1.0
    return s1 * s2 * s3 * 100


def fmt_score(x):
    return '\tNA' if x is None else '\t%.6f' % x


def find_bulges(a, motifs, inputs):
    db, rb = a.dna_bulge, a.rna_bulge
    bulges = db or rb
    # CFD and MIT need SpCas9 sites: a 20-base A/C/G/T guide and a 3' PAM of 3
    a.scored = all(m.pam[-3:] == [True] * 3 and m.pam.count(True) == 3 and
                   all(c in 'ACGT' for c, p in zip(m.window, m.pam) if not p) and m.pam.count(False) == 20 for m in motifs)
    approx = any(m.limit or any(m.pam) for m in motifs)
    scores = (a.score or '').split(',') if a.score else []
    order = {'+': 0, '-': 1, '.': 2}
    # the templates of every motif and strand: (template letters and kinds in text order, columns, variant, j)
    plan = []
    for mi, m in enumerate(motifs):
        side = 3 if m.pam[-1] else 5 if m.pam[0] else 0
        glen = m.pam.count(False)
        for strand, _ in m.strands(a.strand):
            for v, j in shapes(glen, side, db, rb):
                cols = columns(m, v, j)
                dna_cols = [(k, kind) for k, kind in cols if kind is not None]
                letters = [m.window[k] if k is not None else 'N' for k, _ in dna_cols]
                kinds = [kind for _, kind in dna_cols]
                if strand == '-':
                    letters, kinds = [COMP[c] for c in reversed(letters)], kinds[::-1]
                plan.append((mi, strand, v, j, letters, kinds, cols))
    w = sys.stdout.write
    if a.format == 'tsv':
        w('seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched' + ('\tmismatches' if approx or bulges else '') +
          ('\tbulge_type\tbulge_size\tcrRNA' if bulges else '') + ''.join('\t' + x for x in scores) + '\n')
    elif a.format == 'count':
        w('seqID\tpatternName\thits\n')
    elif a.format == 'casoffinder3':
        w('##Generated by seqgpu %s\n#Id\tBulge Type\tcrRNA\tDNA\tChromosome\tLocation\tDirection\tMismatches\tBulge Size'
          % a.version + ''.join('\t' + x.upper() for x in scores) + '\n')
    tally = [{'sites': {}, 'mit': 0.0, 'cfd': 0.0, 'counted': 0, 'perfect': False} for _ in motifs]
    for path in inputs:
        for rname, seq in records(path):
            text = seq if a.skip_masked else seq.upper()
            arr = np.frombuffer(text.encode('latin-1'), dtype=np.uint8)
            sites = {}  # (start, length, strand order, motif, variant) -> [(j, mm, cols)]
            for mi, strand, v, j, letters, kinds, cols in plan:
                if len(arr) < len(letters):
                    continue
                ok, mm = scan(arr, a.skip_masked, letters, kinds)
                for s in np.nonzero(ok & (mm <= motifs[mi].limit))[0]:
                    key = (int(s), len(letters), order[strand], mi, v)
                    sites.setdefault(key, []).append((j, int(mm[s]), cols, strand))
            counts = [0] * len(motifs)
            for key in sorted(sites):
                s, n, _, mi, v = key
                m, alns = motifs[mi], sorted(sites[key], key=lambda x: x[0])
                strand = alns[0][3]
                side = 3 if m.pam[-1] else 5 if m.pam[0] else 0
                least = min(x[1] for x in alns)
                best = [x for x in alns if x[1] == least]
                best = best[-1] if side == 5 else best[0]  # the gap farthest from the PAM
                counts[mi] += 1
                site_text = seq[s:s + n]
                if a.guide_summary:
                    rna, dna = rows(m, best[2], site_text, strand, m.window, a.skip_masked)
                    c_score, m_score = (cfd(rna, dna), mit(m.window, dna) if v == 0 else None) if a.scored else (None, None)
                    t = tally[mi]
                    t['sites'][(variant_type(v), best[1])] = t['sites'].get((variant_type(v), best[1]), 0) + 1
                    pam2 = dna[-2:].upper()
                    counted = v == 0 and m_score is not None and (pam2 == 'GG' or (pam2 in ('AG', 'GA') and m_score > 1.0))
                    if counted and best[1] == 0 and not t['perfect']:
                        t['perfect'] = True  # the on-target: CRISPOR's first perfect hit, of those it finds
                    elif counted:
                        t['counted'] += 1
                        t['mit'] += m_score * (1.0 if pam2 == 'GG' else 0.2)
                        t['cfd'] += c_score if c_score is not None else 0.0
                if a.format == 'count':
                    continue
                out = alns if a.all_alignments else [best]
                for j, mm, cols, _ in out:
                    shown = [('+' if strand == '.' else strand)]
                    if a.format == 'casoffinder3' and strand == '.':
                        shown = [x for x in '+-' if a.strand in ('both', x)]
                    for st in shown:
                        if strand == '.' and st == '-':  # the other strand's view of the alignment: mirrored
                            cols = [(len(m.window) - 1 - k if k is not None else None, kind) for k, kind in reversed(cols)]
                        rna, dna = rows(m, cols, site_text, st, m.query if a.format == 'casoffinder3' else m.shown,
                                        a.skip_masked)
                        sc = ''
                        if scores:
                            srna, sdna = rows(m, cols, site_text, st, m.window, a.skip_masked)
                            c_score = cfd(srna, sdna)
                            m_score = mit(m.window, sdna) if v == 0 else None
                            sc = ''.join(fmt_score(c_score if x == 'cfd' else m_score) for x in scores)
                        vt, vs = TYPES[variant_type(v)], variant_size(v)
                        if a.format == 'bed':
                            w('%s\t%d\t%d\t%s\t%d\t%s%s%s\n' % (rname, s, s + n, m.name, mm, strand,
                                                              '\t%s\t%d' % (vt, vs) if bulges else '', sc))
                        elif a.format == 'tsv':
                            w('%s\t%s\t%s\t%s\t%d\t%d\t%s\t%d%s%s\n' % (rname, m.name, m.shown, strand, s + 1, s + n, dna, mm,
                                                                     '\t%s\t%d\t%s' % (vt, vs, rna) if bulges else '', sc))
                        else:
                            w('%s\t%s\t%s\t%s\t%s\t%d\t%s\t%d\t%d%s\n' % (m.id or m.name, vt, rna, dna, rname, s, st, mm, vs, sc))
            if a.format == 'count':
                for mi, m in enumerate(motifs):
                    w('%s\t%s\t%d\n' % (rname, m.name, counts[mi]))
    if a.guide_summary:
        max_mm = max(m.limit for m in motifs)
        kinds = [0] + ([1] if db else []) + ([2] if rb else [])
        with open(a.guide_summary, 'w') as f:
            f.write('guide\tsequence\tsites' + ''.join('\t%s_%dmm' % (TYPES[k], x) for k in kinds for x in range(max_mm + 1)) +
                    '\tmit_specificity\tcfd_specificity\tofftargets\tmit_sum\tcfd_sum\n')
            for m, t in zip(motifs, tally):
                f.write('%s\t%s\t%d' % (m.name, m.shown, sum(t['sites'].values())))
                f.write(''.join('\t%d' % t['sites'].get((k, x), 0) for k in kinds for x in range(max_mm + 1)))
                if a.scored:
                    f.write('\t%d\t%d\t%d\t%.6f\t%.6f\n' % (round(100 / (100 + t['mit']) * 100), round(100 / (100 + t['cfd']) * 100),
                                                           t['counted'], t['mit'], t['cfd']))
                else:
                    f.write('\tNA\tNA\tNA\tNA\tNA\n')

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
                if a.bulges and rnd.random() < 0.7:  # extra DNA bases or a deleted guide stretch, ends included
                    size, at = rnd.randint(1, a.bulges), rnd.randrange(a.guide_len + 1)
                    g[at:at] = [rnd.choice('ACGT') for _ in range(size)] if rnd.random() < 0.5 else []
                    if len(g) == a.guide_len + len(pam):
                        del g[at:at + size]
                if a.pam5:
                    g = [rnd.choice(IUPAC[c]) for c in a.pam5] + g[:len(g) - len(pam)]
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
    f.add_argument('--dna-bulge', type=int, default=0)
    f.add_argument('--rna-bulge', type=int, default=0)
    f.add_argument('--all-alignments', action='store_true')
    f.add_argument('--score')
    f.add_argument('--guide-summary')
    f.add_argument('--guides-include-pam', action='store_true')
    f.add_argument('--version', default='0.1.0', help='the seqgpu version casoffinder3 names in its header')
    f.add_argument('inputs', nargs='*')
    g = sub.add_parser('gen')
    g.add_argument('--seed', type=int, default=1)
    g.add_argument('--records', type=int, default=8)
    g.add_argument('--length', type=int, default=20000)
    g.add_argument('--guides', type=int, default=10)
    g.add_argument('--guide-len', type=int, default=20)
    g.add_argument('--pam', default='NGG')
    g.add_argument('--max-mm', type=int, default=4)
    g.add_argument('--bulges', type=int, default=0, help='plant sites with DNA or RNA bulges of up to this size')
    g.add_argument('--pam-5', dest='pam5', help="plant the guides behind this 5' PAM (instead of --pam's)")
    g.add_argument('out')
    g.add_argument('guides_out')
    a = ap.parse_args()
    find(a) if a.cmd == 'find' else gen(a)


if __name__ == '__main__':
    main()
