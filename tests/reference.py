#!/usr/bin/env python3
"""Test helpers for seqgpu find, independent of its C code.

  reference.py gen [options] > genome.fa     random FASTA/FASTQ with the awkward cases
  reference.py find [options] MOTIFS IN...   brute-force `seqgpu find` (bed, tsv, count)
  reference.py motifs [options]              random IUPAC motifs as "name<TAB>motif" lines
  reference.py sim [options] PREFIX          genome with planted tandem arrays, and reads of it
  reference.py satellites [options] PREFIX   genome with planted, diverged satellite arrays (for pbsim)
  reference.py ovlcmp [options] A.paf B.paf  dovetail overlaps of A against B's, and against pbsim's truth
  reference.py satcheck [options] PREFIX     seqgpu scc -g overlap's repeats against the planted arrays
  reference.py revcomp MOTIF                 the reverse complement of an IUPAC motif
"""
import argparse
import gzip
import random
import re
import sys

IUPAC = {'A': 'A', 'C': 'C', 'G': 'G', 'T': 'T', 'R': 'AG', 'Y': 'CT', 'S': 'CG', 'W': 'AT',
         'K': 'GT', 'M': 'AC', 'B': 'CGT', 'D': 'AGT', 'H': 'ACT', 'V': 'ACG', 'N': 'ACGT'}
COMP = {'A': 'T', 'C': 'G', 'G': 'C', 'T': 'A', 'R': 'Y', 'Y': 'R', 'S': 'S', 'W': 'W',
        'K': 'M', 'M': 'K', 'B': 'V', 'V': 'B', 'D': 'H', 'H': 'D', 'N': 'N'}


def revcomp(m):
    return ''.join(COMP[c] for c in reversed(m.upper()))


def read_records(path):
    """(name, sequence) of every FASTA or FASTQ record, simply and slowly."""
    opener = gzip.open if open(path, 'rb').read(2) == b'\x1f\x8b' else open
    with opener(path, 'rt', newline='') as fh:
        lines = [l.rstrip('\n').rstrip('\r') for l in fh]
    lines = [l for l in lines]
    i = 0
    while i < len(lines) and lines[i].strip() == '':
        i += 1
    if i < len(lines) and lines[i].startswith('@'):
        while i + 3 < len(lines) + 1 and i < len(lines):
            if lines[i] == '':
                i += 1
                continue
            yield lines[i][1:].split()[0] if lines[i][1:].split() else '', lines[i + 1]
            i += 4
        return
    name, seq = None, []
    for l in lines[i:]:
        if l.startswith('>'):
            if name is not None:
                yield name, ''.join(seq)
            words = l[1:].split()
            name, seq = (words[0] if words and not l[1:2].isspace() else ''), []
        else:
            seq.append(l)
    if name is not None:
        yield name, ''.join(seq)


def load_motifs(path):
    out = []
    text = open(path).read().splitlines()
    if any(l.startswith('>') for l in text):
        name, seq = None, ''
        for l in text:
            if l.startswith('>'):
                if name is not None:
                    out.append((name, seq))
                name, seq = l[1:].split()[0], ''
            elif l.strip():
                seq += l.strip()
        out.append((name, seq))
    else:
        for l in text:
            l = l.rstrip('\r')
            if not l or l.startswith('#'):
                continue
            if '\t' in l:
                out.append(tuple(l.split('\t')))
            else:
                out.append((l, l))
    return out


def find(args):
    motifs = load_motifs(args.motifs)
    pats = []  # (motif index, strand, regex, length)
    for mi, (name, m) in enumerate(motifs):
        up = m.upper()
        pal = revcomp(up) == up
        want = []
        if pal:
            want.append(('.', up))
        else:
            if args.strand in ('both', '+'):
                want.append(('+', up))
            if args.strand in ('both', '-'):
                want.append(('-', revcomp(up)))
        for strand, s in want:
            cls = ''.join('[' + IUPAC[c] + ']' for c in s)
            pats.append((mi, strand, re.compile('(?=' + cls + ')'), len(s)))
    out = sys.stdout
    if args.format == 'tsv':
        out.write('seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched\n')
    elif args.format == 'count':
        out.write('seqID\tpatternName\thits\n')
    for path in args.inputs:
        for rname, seq in read_records(path):
            text = seq if args.skip_masked else seq.upper()
            hits = []
            for mi, strand, rx, ln in pats:
                for mt in rx.finditer(text):
                    hits.append((mt.start(), mt.start() + ln, strand, mi))
            hits.sort()
            if args.format == 'count':
                counts = [0] * len(motifs)
                for h in hits:
                    counts[h[3]] += 1
                for mi, (name, m) in enumerate(motifs):
                    out.write('%s\t%s\t%d\n' % (rname, name, counts[mi]))
                continue
            for s, e, strand, mi in hits:
                name, m = motifs[mi]
                if args.format == 'bed':
                    out.write('%s\t%d\t%d\t%s\t0\t%s\n' % (rname, s, e, name, strand))
                else:
                    t = seq[s:e]
                    if strand == '-':
                        t = ''.join({'A': 'T', 'C': 'G', 'G': 'C', 'T': 'A', 'a': 't', 'c': 'g', 'g': 'c',
                                     't': 'a'}.get(c, c) for c in reversed(t))
                    out.write('%s\t%s\t%s\t%s\t%d\t%d\t%s\n' % (rname, name, m, strand, s + 1, e, t))


def gen(args):
    rnd = random.Random(args.seed)
    plant = args.plant.split(',') if args.plant else []
    out = sys.stdout
    for r in range(args.records):
        n = rnd.choice([0, 1, 2, rnd.randint(0, args.max_len), rnd.randint(0, args.max_len)])
        if args.fastq and n == 0:
            n = 1
        s = []
        while len(s) < n:
            x = rnd.random()
            if x < args.n_runs:
                s.extend('N' * rnd.randint(1, 50))
            elif x < args.n_runs + 0.002:
                s.append(rnd.choice('RYKMSWBDHVnx-'))
            else:
                s.append(rnd.choice('ACGT'))
        s = s[:n]
        for m in plant:  # planted copies, either strand, some inside N runs
            for _ in range(int(n * args.plant_rate)):
                if len(m) <= n:
                    at = rnd.randint(0, n - len(m))
                    s[at:at + len(m)] = list(m if rnd.random() < 0.5 else revcomp(m))
        if args.lower:
            i = 0
            while i < n:  # soft-masked stretches
                run = rnd.randint(1, 300)
                if rnd.random() < args.lower:
                    for j in range(i, min(n, i + run)):
                        s[j] = s[j].lower()
                i += run
        seq = ''.join(s)
        name = 'r%d' % r if rnd.random() < 0.8 else 'chr%d_%d' % (r, rnd.randint(0, 9))
        eol = '\r\n' if args.crlf else '\n'
        if args.fastq:
            out.write('@%s extra%s%s%s+%s%s%s' % (name, eol, seq, eol, eol, 'I' * len(seq), eol))
        else:
            out.write('>%s some description%s' % (name, eol))
            w = args.width if args.width else max(1, len(seq))
            for i in range(0, len(seq), w):
                out.write(seq[i:i + w] + eol)


def primitive(u):
    """Not a power of a shorter string."""
    return all(u != u[:d] * (len(u) // d) for d in range(1, len(u)) if len(u) % d == 0)


def canonical_unit(u):
    """Least rotation of u or of its reverse complement."""
    u = u.upper()
    rots = [u[i:] + u[:i] for i in range(len(u))]
    r = revcomp(u)
    rots += [r[i:] + r[:i] for i in range(len(r))]
    return min(rots)


def sim(args):
    """A genome of unique sequence with tandem arrays of random primitive
    units planted, and reads from both strands with substitution errors."""
    rnd = random.Random(args.seed)
    units = []
    for p in [int(x) for x in args.periods.split(',')]:
        while True:
            u = ''.join(rnd.choice('ACGT') for _ in range(p))
            if primitive(u) and canonical_unit(u) not in [canonical_unit(x) for x in units]:
                units.append(u)
                break
    parts = []
    for u in units:
        parts.append(''.join(rnd.choice('ACGT') for _ in range(args.unique)))
        parts.append(u * max(args.copies, (args.min_array + len(u) - 1) // len(u)))
    parts.append(''.join(rnd.choice('ACGT') for _ in range(args.unique)))
    genome = ''.join(parts)
    with open(args.prefix + '.genome.fa', 'w') as f:
        f.write('>genome\n' + genome + '\n')
    with open(args.prefix + '.units.txt', 'w') as f:
        for u in units:
            f.write(canonical_unit(u) + '\n')
    n = len(genome) * args.coverage // args.read_len
    sub = {'A': 'CGT', 'C': 'AGT', 'G': 'ACT', 'T': 'ACG'}
    with open(args.prefix + '.reads.fq', 'w') as f:
        for i in range(n):
            p = rnd.randint(0, len(genome) - args.read_len)
            r = list(genome[p:p + args.read_len])
            for j in range(len(r)):
                if rnd.random() < args.errors:
                    r[j] = rnd.choice(sub[r[j]])
            r = ''.join(r)
            if rnd.random() < 0.5:
                r = revcomp(r)
            f.write('@r%d\n%s\n+\n%s\n' % (i, r, 'I' * len(r)))


def satellites(args):
    """A genome of unique sequence (random, or --background's first record)
    with satellite arrays planted: each array a random primitive unit
    repeated, every copy diverged from the unit on its own (substitutions,
    and 1-base insertions and deletions, a tenth each), so that copies
    differ from one another by about twice the rate. With --families,
    interspersed repeats too: copies of random sequences (each copy diverged
    from its family's sequence alone, on either strand or the forward one)
    written over the unique sequence, copies of 1 kb or more at least
    --spacing apart, and 2 kb from the arrays. Writes PREFIX.genome.fa,
    PREFIX.arrays.tsv (start, end, period, divergence, the unit as its least
    rotation on either strand) and, with --families, PREFIX.families.tsv
    (start, end, family, strand)."""
    rnd = random.Random(args.seed)
    specs = []
    for a in args.arrays.split(',') if args.arrays else []:
        p, ln, d = a.split(':')
        specs.append((int(p), int(ln), float(d)))
    sub = {'A': 'CGT', 'C': 'AGT', 'G': 'ACT', 'T': 'ACG'}

    def unique(n):
        return ''.join(rnd.choices('ACGT', k=n))

    def diverged(u, d):
        c = []
        for b in u:
            x = rnd.random()
            if x < d * 0.8:
                c.append(rnd.choice(sub[b]))
            elif x < d * 0.9:
                c.append(b + rnd.choice('ACGT'))
            elif x >= d:
                c.append(b)
        return ''.join(c)
    background = None
    if args.background:
        with (gzip.open if args.background.endswith('.gz') else open)(args.background, 'rt') as fh:
            background = ''.join(l.strip() for l in fh.read().split('\n>')[0].split('\n')[1:]).upper()
        args.length = len(background)
    n_unique = len(specs) + 1
    free = args.length - sum(ln for _, ln, _ in specs)
    if free < n_unique * 1000:
        sys.exit('satellites: the arrays leave too little unique sequence')
    parts, arrays, at = [], [], 0
    for i, (p, ln, d) in enumerate(specs):
        parts.append(background[at:at + free // n_unique] if background else unique(free // n_unique))
        at += free // n_unique
        while True:
            u = unique(p)
            if primitive(u):
                break
        arr = []
        size = 0
        while size < ln:
            c = diverged(u, d)
            arr.append(c)
            size += len(c)
        arr = ''.join(arr)
        parts.append(arr)
        arrays.append((at, at + len(arr), p, d, canonical_unit(u)))
        at += len(arr)
    parts.append(background[at:] if background else unique(args.length - at))
    genome = list(''.join(parts))
    taken = [(a[0] - 2000, a[1] + 2000, 0) for a in arrays]  # start, end, spaced
    copies = []
    for fi, spec in enumerate(args.families.split(',') if args.families else []):
        f = spec.split(':')
        ln, n, d, strands = int(f[0]), int(f[1]), float(f[2]), f[3] if len(f) > 3 else 'mixed'
        seq = unique(ln)
        gap = args.spacing if ln >= 1000 else 0
        for _ in range(n):
            for _ in range(10000):
                s = rnd.randrange(0, len(genome) - ln)
                if all(s + ln + gap * sp <= a or s >= b + gap * sp for a, b, sp in taken):
                    break
            else:
                sys.exit('satellites: no room for family %d' % (fi + 1))
            c = diverged(seq, d)[:ln]
            strand = '-' if strands == 'mixed' and rnd.random() < 0.5 else '+'
            if strand == '-':
                c = revcomp(c)
            genome[s:s + len(c)] = c
            taken.append((s, s + len(c), ln >= 1000))
            copies.append((s, s + len(c), 'family%d' % (fi + 1), strand))
    genome = ''.join(genome)
    with open(args.prefix + '.genome.fa', 'w') as f:
        f.write('>genome\n')
        for i in range(0, len(genome), 80):
            f.write(genome[i:i + 80] + '\n')
    with open(args.prefix + '.arrays.tsv', 'w') as f:
        f.write('start\tend\tperiod\tdivergence\tunit\n')
        for a in arrays:
            f.write('%d\t%d\t%d\t%g\t%s\n' % a)
    if copies:
        with open(args.prefix + '.families.tsv', 'w') as f:
            f.write('start\tend\tfamily\tstrand\n')
            for c in sorted(copies):
                f.write('%d\t%d\t%s\t%s\n' % c)


def assembly(args):
    """A genome assembly (FASTA, --records records) of unique sequence with
    tandem arrays planted (--arrays period:copies:divergence, each copy
    diverged from the unit on its own as in satellites, on a random
    strand) among interspersed repeats that are no tandem arrays: a direct
    and an inverted pair of 2-10 kb, an rRNA-operon-like 5 kb gene in 7
    copies on both strands (0.1% apart), and an Alu-like family of 300 bp
    in --alus copies on both strands (--alu-divergence from its consensus,
    no poly-A tail). Writes PREFIX.fa, PREFIX.arrays.tsv (record, start, end,
    period, unit as its least rotation on either strand, the strand that
    reads it: + or -, or . for a unit that is its own reverse complement's
    rotation, the copies' divergence) and PREFIX.interspersed.tsv (record, start, end, family,
    strand)."""
    rnd = random.Random(args.seed)
    sub = {'A': 'CGT', 'C': 'AGT', 'G': 'ACT', 'T': 'ACG'}

    def unique(n):
        return ''.join(rnd.choices('ACGT', k=n))

    def diverge(u, d, indels=True):
        c = []
        for b in u:
            x = rnd.random()
            if x < d * (0.8 if indels else 1):
                c.append(rnd.choice(sub[b]))
            elif indels and x < d * 0.9:
                c.append(b + rnd.choice('ACGT'))
            elif not indels or x >= d:
                c.append(b)
        return ''.join(c)

    def strand(x):
        return (x, '+') if rnd.random() < 0.5 else (revcomp(x), '-')
    pieces = []  # (kind, sequence, name): laid out between unique stretches
    units = []
    for a in args.arrays.split(','):
        p, n, d = a.split(':')
        while True:
            u = unique(int(p))
            if primitive(u) and canonical_unit(u) not in units:
                break
        cu = canonical_unit(u)
        units.append(cu)
        arr, st = strand(''.join(diverge(u, float(d)) for _ in range(int(n))))
        rots = {u[i:] + u[:i] for i in range(len(u))}
        rc_rots = {revcomp(x) for x in rots}
        fw = '.' if cu in rots and cu in rc_rots else '+' if cu in rots else '-'
        if fw != '.' and st == '-':
            fw = '+' if fw == '-' else '-'
        pieces.append(('array', arr, (int(p), cu, fw, float(d))))
    for i, ln in enumerate((2000, 6000)):
        e = unique(ln)
        pieces.append(('rep', e, ('direct%d' % i, '+')))
        pieces.append(('rep', e, ('direct%d' % i, '+')))
        e = unique(ln + 3000)
        pieces.append(('rep', e, ('inverted%d' % i, '+')))
        pieces.append(('rep', revcomp(e), ('inverted%d' % i, '-')))
    operon = unique(5000)
    for _ in range(7):
        x, st = strand(diverge(operon, 0.001, False))
        pieces.append(('rep', x, ('operon', st)))
    alu = unique(300)
    for _ in range(args.alus):
        x, st = strand(diverge(alu, args.alu_divergence))
        pieces.append(('rep', x, ('alu', st)))
    rnd.shuffle(pieces)
    n_rec = args.records
    per = [pieces[i::n_rec] for i in range(n_rec)]
    free = args.length - sum(len(x[1]) for x in pieces)
    if free < (len(pieces) + n_rec) * 200:
        sys.exit('assembly: the repeats leave too little unique sequence')
    gap = free // (len(pieces) + n_rec)
    arrays, inter = [], []
    with open(args.prefix + '.fa', 'w') as f:
        for r in range(n_rec):
            name = 'chr%d' % (r + 1)
            seq = [unique(gap)]
            at = gap
            for kind, x, info in per[r]:
                if kind == 'array':
                    arrays.append((name, at, at + len(x)) + info)
                else:
                    inter.append((name, at, at + len(x), info[0], info[1]))
                seq.append(x)
                seq.append(unique(gap))
                at += len(x) + gap
            seq = ''.join(seq)
            f.write('>%s simulated\n' % name)
            for i in range(0, len(seq), 80):
                f.write(seq[i:i + 80] + '\n')
    with open(args.prefix + '.arrays.tsv', 'w') as f:
        f.write('record\tstart\tend\tperiod\tunit\tstrand\tdivergence\n')
        for a in sorted(arrays):
            f.write('%s\t%d\t%d\t%d\t%s\t%s\t%g\n' % a)
    with open(args.prefix + '.interspersed.tsv', 'w') as f:
        f.write('record\tstart\tend\tfamily\tstrand\n')
        for a in sorted(inter):
            f.write('%s\t%d\t%d\t%s\t%s\n' % a)


def reads(args):
    """Reads of a FASTA's records (PREFIX.fq): --coverage x of --read-len
    bases at random places on either strand, substitution errors at
    --errors."""
    rnd = random.Random(args.seed)
    recs = [(n, s.upper()) for n, s in read_records(args.fasta) if len(s) >= args.read_len]
    total = sum(len(s) for _, s in recs)
    sub = {'A': 'CGT', 'C': 'AGT', 'G': 'ACT', 'T': 'ACG'}
    with open(args.prefix + '.fq', 'w') as f:
        for i in range(total * args.coverage // args.read_len):
            x = rnd.randrange(total)
            for name, seq in recs:
                if x < len(seq):
                    break
                x -= len(seq)
            p = min(x, len(seq) - args.read_len)
            r = [b if rnd.random() >= args.errors or b not in sub else rnd.choice(sub[b]) for b in seq[p:p + args.read_len]]
            r = ''.join(r)
            if rnd.random() < 0.5:
                r = revcomp(r)
            f.write('@r%d\n%s\n+\n%s\n' % (i, r, 'I' * len(r)))


def locicheck(args):
    """scc's loci of a simulated assembly (PREFIX.loci.bed, PREFIX.repeats.tsv)
    against its truth (assembly's arrays.tsv and interspersed.tsv): every
    planted array is covered to 80% by one locus of a repeat of its period
    and strand, whose unit is the planted one (where the copies diverge,
    the cycle may go through a variant); no locus touches an interspersed
    repeat; the loci are in the order of the FASTA's records and then of
    their starts, and each repeat of the table is the sum of its loci.
    Prints a line per array, then 'ok' or the first thing wrong."""
    def rows(path):
        return [l.rstrip('\n').split('\t') for l in open(path) if not l.startswith(('#', 'record\t', 'id\t'))]
    order = [l[1:].split()[0] for l in open(args.fasta) if l.startswith('>')]
    loci = rows(args.prefix + '.loci.bed')
    rep = {r[0]: r for r in rows(args.prefix + '.repeats.tsv')}
    bad = []
    keys = [(order.index(l[0]), int(l[1]), int(l[2]), l[3]) for l in loci]
    if keys != sorted(keys):
        bad.append('the loci are not in the order of the records, then of their starts')
    for l in loci:
        if len(l) != 9 or l[5] not in '+-.' or int(l[4]) != (round(1000 * float(l[8])) if l[8] != '.' else 0):
            bad.append('a malformed locus: %s' % l)
    for a in rows(args.arrays):
        s, e, p = int(a[1]), int(a[2]), int(a[3])
        got = [l for l in loci if l[0] == a[0] and min(e, int(l[2])) - max(s, int(l[1])) >= 0.8 * (e - s)]
        good = [l for l in got if (rep[l[3]][7] == a[4] or float(a[6]) > 0) and abs(int(l[6]) - p) <= 0.03 * p and
                l[5] == a[5]]
        print('array\t%s:%d-%d\tperiod %d\t%s' % (a[0], s, e, p, ' '.join('%s:%s-%s/%s/%s' % (l[3], l[1], l[2], l[6], l[5])
                                                                       for l in got) or '-'))
        if not good:
            bad.append('the array at %s:%d-%d (period %d, strand %s) is not found' % (a[0], s, e, p, a[5]))
    for x in rows(args.interspersed):
        for l in loci:
            if l[0] == x[0] and int(l[1]) < int(x[2]) and int(l[2]) > int(x[1]):
                bad.append('%s at %s:%s-%s touches the interspersed %s at %s-%s' % (l[3], l[0], l[1], l[2], x[3], x[1], x[2]))
    for i, r in rep.items():
        mine = [l for l in loci if l[3] == i]
        length = sum(int(l[2]) - int(l[1]) for l in mine)
        copies = sum((int(l[2]) - int(l[1])) / int(l[6]) for l in mine)
        if int(r[9]) != len(mine) or int(r[8]) != length or abs(float(r[6]) - copies) > 0.006:
            bad.append('%s: %s loci, length %s, %s copies; its loci: %d, %d, %.2f' % (i, r[9], r[8], r[6], len(mine), length,
                                                                                    copies))
    print(bad[0] if bad else 'ok')


def paf_dovetails(path, min_ovl, max_hang=1000, int_frac=0.8):
    """The dovetail overlaps of a PAF file, classified as miniasm does: a
    set of (read, read, strand) with the reads in sorted order."""
    out = set()
    opener = gzip.open if open(path, 'rb').read(2) == b'\x1f\x8b' else open
    with opener(path, 'rt') as fh:
        for line in fh:
            f = line.split('\t')
            q, ql, qs, qe, rev, t, tl, ts, te = f[0], int(f[1]), int(f[2]), int(f[3]), f[4] == '-', f[5], int(f[6]), int(f[7]), int(f[8])
            if q == t:
                continue
            tl5, tl3 = (tl - te, ts) if rev else (ts, tl - te)
            ext5, ext3 = min(qs, tl5), min(ql - qe, tl3)
            if ext5 > max_hang or ext3 > max_hang or qe - qs < (qe - qs + ext5 + ext3) * int_frac:
                continue
            if (qs <= tl5 and ql - qe <= tl3) or (qs >= tl5 and ql - qe >= tl3):
                continue
            if qe - qs + ext5 + ext3 < min_ovl or te - ts + ext5 + ext3 < min_ovl:
                continue
            out.add((min(q, t), max(q, t), rev))
    return out


def maf_places(path):
    """Where pbsim placed each read: name -> (start, end, reverse) on the genome."""
    places = {}
    with open(path) as fh:
        lines = fh.read().split('\n')
    for i, l in enumerate(lines):
        if l.startswith('a') and i + 2 < len(lines):
            g, r = lines[i + 1].split(), lines[i + 2].split()
            st, sz = int(g[2]), int(g[3])  # the genome's line, forward; the read's says the strand
            places[r[1]] = (st, st + sz, r[4] == '-')
    return places


def ovlcmp(args):
    """Recall and precision of A's dovetail overlaps against B's; with
    --maf, of each against the truth, for reads outside the arrays of
    --arrays (and the copies of --families): recall of the read pairs whose places overlap as a dovetail,
    by min + slack bases and with ends slack apart; precision: the share of
    the dovetails found whose reads' places overlap by min - slack bases."""
    a, b = paf_dovetails(args.a, args.min_overlap), paf_dovetails(args.b, args.min_overlap)
    both = len(a & b)
    print('dovetails\t%d\t%d' % (len(a), len(b)))
    print('against_b\trecall\t%.4f\tprecision\t%.4f' % (both / max(1, len(b)), both / max(1, len(a))))
    if not args.maf:
        return
    places = maf_places(args.maf)
    arrays = []
    if args.arrays:
        arrays = [tuple(map(int, l.split('\t')[:2])) for l in open(args.arrays).read().split('\n')[1:] if l]
    if args.families:  # copies long enough to make dovetails between reads of two places
        copies = [tuple(map(int, l.split('\t')[:2])) for l in open(args.families).read().split('\n')[1:] if l]
        arrays += [(s, e) for s, e in copies if e - s >= 1000]
    unique = {n for n, (s, e, _) in places.items() if not any(s < ae and e > ast for ast, ae in arrays)}
    order = sorted(unique, key=lambda n: places[n][0])
    truth, near = set(), set()
    for i, x in enumerate(order):
        xs, xe, xr = places[x]
        for y in order[i + 1:]:
            ys, ye, yr = places[y]
            if ys >= xe:
                break
            ov = min(xe, ye) - ys
            key = (min(x, y), max(x, y), xr != yr)
            if ov >= args.min_overlap - args.slack:
                near.add(key)  # reads that do overlap
            if ye > xe + args.slack and ys > xs + args.slack and ov >= args.min_overlap + args.slack:
                truth.add(key)  # a dovetail, clearly one
    ua, ub = ({k for k in s if k[0] in unique and k[1] in unique} for s in (a, b))
    print('against_b_unique\trecall\t%.4f\tprecision\t%.4f' % (len(ua & ub) / max(1, len(ub)), len(ua & ub) / max(1, len(ua))))
    for name, s in (('a', a), ('b', b)):
        mine = {k for k in s if k[0] in unique and k[1] in unique}
        print('%s_truth\trecall\t%.4f\tprecision\t%.4f\t%d\t%d' % (
            name, len(mine & truth) / max(1, len(truth)), len(mine & near) / max(1, len(mine)), len(truth), len(mine)))


def satcheck(args):
    """Each component of PREFIX.components.tsv goes to the planted array that
    most of its reads (where pbsim placed them) touch, or to unique
    sequence; each array at least --min-reads mean read lengths long must
    have a component whose period (PREFIX.repeats.tsv) is within --tolerance
    of the array's. Prints a line per array and per unique component, then
    'ok' or 'FAIL'."""
    places = maf_places(args.maf)
    arrays = [l.split('\t') for l in open(args.arrays).read().split('\n')[1:] if l]
    arrays = [(int(a[0]), int(a[1]), int(a[2])) for a in arrays]
    mean_len = sum(e - s for s, e, _ in places.values()) / max(1, len(places))
    period = {}
    for l in open(args.prefix + '.repeats.tsv').read().split('\n')[1:]:
        if l:
            f = l.split('\t')
            period[f[0]] = int(f[4])
    members = {}
    for l in open(args.prefix + '.components.tsv').read().split('\n')[1:]:
        if l:
            r, c = l.split('\t')
            members.setdefault(c, []).append(r)
    found, ok = {}, True
    for c, reads in sorted(members.items()):
        votes = [0] * (len(arrays) + 1)
        for r in reads:
            s, e, _ = places[r]
            hit = [j for j, (a, b, _) in enumerate(arrays) if s < b and e > a]
            votes[hit[0] if hit else len(arrays)] += 1
        j = max(range(len(votes)), key=lambda x: votes[x])
        if j == len(arrays) or votes[len(arrays)] * 10 > len(reads):
            print('unique_component\t%s\t%d reads, %d outside the arrays' % (c, len(reads), votes[len(arrays)]))
            ok = False
        else:
            found.setdefault(j, []).append(c)
    for j, (a, b, p) in enumerate(arrays):
        got = [period[c] for c in found.get(j, [])]
        good = [x for x in got if abs(x - p) <= args.tolerance * p]
        need = b - a >= args.min_reads * mean_len
        print('array\t%d\t%d\tperiod\t%d\tfound\t%s\t%s' % (a, b - a, p, ','.join(map(str, got)) or '-',
                                                        'required' if need else 'optional'))
        if need and not good:
            ok = False
    print('ok' if ok else 'FAIL')


def motifs(args):
    rnd = random.Random(args.seed)
    alphabet = 'ACGT' * 8 + 'RYSWKMBDHVN' if args.iupac else 'ACGT'
    for i in range(args.n):
        ln = rnd.randint(args.min_len, args.max_len)
        m = ''.join(rnd.choice(alphabet) for _ in range(ln))
        if rnd.random() < 0.3:
            m = m.lower()
        if rnd.random() < 0.15:  # a palindrome
            m = m[:ln // 2] + revcomp(m[:ln // 2])
        sys.stdout.write('m%d\t%s\n' % (i, m))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    g = sub.add_parser('gen')
    g.add_argument('--seed', type=int, default=1)
    g.add_argument('--records', type=int, default=20)
    g.add_argument('--max-len', type=int, default=5000)
    g.add_argument('--width', type=int, default=60)
    g.add_argument('--lower', type=float, default=0.5)
    g.add_argument('--n-runs', type=float, default=0.002)
    g.add_argument('--plant', default='')
    g.add_argument('--plant-rate', type=float, default=0.005)
    g.add_argument('--crlf', action='store_true')
    g.add_argument('--fastq', action='store_true')
    f = sub.add_parser('find')
    f.add_argument('-s', '--strand', default='both')
    f.add_argument('-F', '--format', default='bed')
    f.add_argument('--skip-masked', action='store_true')
    f.add_argument('motifs')
    f.add_argument('inputs', nargs='+')
    m = sub.add_parser('motifs')
    m.add_argument('--seed', type=int, default=1)
    m.add_argument('-n', type=int, default=5)
    m.add_argument('--min-len', type=int, default=3)
    m.add_argument('--max-len', type=int, default=12)
    m.add_argument('--iupac', action='store_true')
    r = sub.add_parser('revcomp')
    r.add_argument('motif')
    t = sub.add_parser('sim')
    t.add_argument('--seed', type=int, default=1)
    t.add_argument('--periods', default='1,2,7,31,171')
    t.add_argument('--copies', type=int, default=20)
    t.add_argument('--min-array', type=int, default=600)
    t.add_argument('--unique', type=int, default=20000)
    t.add_argument('--coverage', type=int, default=30)
    t.add_argument('--read-len', type=int, default=150)
    t.add_argument('--errors', type=float, default=0.005)
    t.add_argument('prefix')
    t = sub.add_parser('satellites')
    t.add_argument('--seed', type=int, default=1)
    t.add_argument('--length', type=int, default=300000)
    t.add_argument('--arrays', default='6:20000:0.02,171:30000:0.01,2000:40000:0.03',
                   help='period:length:divergence,...')
    t.add_argument('--families', default='',
                   help='interspersed repeats: length:copies:divergence[:+|mixed],... (mixed: either strand)')
    t.add_argument('--spacing', type=int, default=40000,
                   help='the least distance between copies of 1 kb or more')
    t.add_argument('--background', help='FASTA (plain or gzip): its first record instead of random unique sequence')
    t.add_argument('prefix')
    t = sub.add_parser('assembly')
    t.add_argument('--seed', type=int, default=1)
    t.add_argument('--length', type=int, default=500000)
    t.add_argument('--records', type=int, default=2)
    t.add_argument('--arrays', default='2:30:0,6:20:0.002,17:12:0.005,48:10:0.003,171:8:0.002,700:5:0.001',
                   help='period:copies:divergence,...')
    t.add_argument('--alus', type=int, default=200)
    t.add_argument('--alu-divergence', type=float, default=0.10)
    t.add_argument('prefix')
    t = sub.add_parser('reads')
    t.add_argument('--seed', type=int, default=1)
    t.add_argument('--coverage', type=int, default=30)
    t.add_argument('--read-len', type=int, default=150)
    t.add_argument('--errors', type=float, default=0.005)
    t.add_argument('fasta')
    t.add_argument('prefix')
    t = sub.add_parser('locicheck')
    t.add_argument('--fasta', required=True)
    t.add_argument('--arrays', required=True)
    t.add_argument('--interspersed', required=True)
    t.add_argument('prefix')
    t = sub.add_parser('ovlcmp')
    t.add_argument('--min-overlap', type=int, default=2000)
    t.add_argument('--maf', help="pbsim's alignments of the reads, for the truth")
    t.add_argument('--arrays', help="satellites' arrays.tsv: reads touching them are left out of the truth")
    t.add_argument('--families', help="satellites' families.tsv: so are reads touching its copies of 1 kb or more")
    t.add_argument('--slack', type=int, default=500)
    t.add_argument('a')
    t.add_argument('b')
    t = sub.add_parser('satcheck')
    t.add_argument('--maf', required=True)
    t.add_argument('--arrays', required=True)
    t.add_argument('--min-reads', type=float, default=1.5)
    t.add_argument('--tolerance', type=float, default=0.03)
    t.add_argument('prefix')
    a = ap.parse_args()
    if a.cmd == 'revcomp':
        print(revcomp(a.motif))
        return
    {'gen': gen, 'find': find, 'motifs': motifs, 'sim': sim, 'satellites': satellites, 'assembly': assembly, 'locicheck': locicheck, 'reads': reads, 'ovlcmp': ovlcmp, 'satcheck': satcheck}[a.cmd](a)


if __name__ == '__main__':
    main()
