#!/usr/bin/env python3
"""Compare Cas-OFFinder 3's output with seqgpu find --all-alignments -F casoffinder3 on the same
input, outside the differences docs/design.md lists (each is one of Cas-OFFinder 3's bugs or
choices that seqgpu does not share):

  1. an RNA bulge at the guide's PAM-distal end (Cas-OFFinder 3 gives every site again with its
     first guide bases unpaired; seqgpu has no gap at the distal end), and one next to a 3' PAM
     (seqgpu lets a gap touch the PAM, as Cas-OFFinder 3 does for DNA bulges and 5' PAMs);
  2. sites whose search window would leave their record (Cas-OFFinder 3 needs DB or DB +- size
     more bases on the PAM-distal side);
  3. X lines printed DB times when DB >= 2;
  4. minus-strand crRNA and DNA columns (garbled with bulges): compared as (id, type, location,
     direction, mismatches, size), as a multiset;
  5. 5' PAMs: minus-strand locations too small by DB (X), DB - size (DNA), DB + size (RNA), and DNA
     lines of a size below DB with N x (DB - size) on the crRNA and DB - size bases on the DNA;
  6. the Chromosome column (the whole header line; seqgpu prints its first word);
  7. sites with a text base other than A/C/G/T in the PAM or an IUPAC code other than N anywhere
     (Cas-OFFinder matches those against IUPAC letters).

  casoff3_cmp.py INPUT.txt CASOFFINDER3.out SEQGPU.out   exit 0 when equal; the differences on stdout
"""
import collections
import os
import sys

COMP = {'A': 'T', 'C': 'G', 'G': 'C', 'T': 'A', 'N': 'N'}


def fasta(paths):
    seqs = {}
    for path in paths:
        name = None
        for line in open(path):
            line = line.rstrip('\r\n')
            if line.startswith('>'):
                name = line[1:].split()[0]
                seqs[name] = []
            elif name is not None:
                seqs[name].append(line.strip())
    return {k: ''.join(v) for k, v in seqs.items()}


def rows(path):
    out = []
    for line in open(path):
        if line.startswith('#') or not line.strip():
            continue
        f = line.rstrip('\n').split('\t')
        f[4] = f[4].split()[0]
        out.append(f)
    return out


def main():
    inp, co_path, sg_path = sys.argv[1:4]
    lines = [l.split() for l in open(inp).read().splitlines() if l.strip()]
    genome, pattern = lines[0][0], lines[1][0].upper()
    db, rb = (int(lines[1][1]), int(lines[1][2])) if len(lines[1]) == 3 else (0, 0)
    five = pattern[0] != 'N'
    guides = {}
    for i, l in enumerate(lines[2:]):
        guides[l[2] if len(l) > 2 else str(i)] = (l[0].upper(), int(l[1]))
    first = next(iter(guides.values()))[0]
    glen = len(first.strip('N'))
    pam_len = len(first) - glen
    files = [os.path.join(genome, n) for n in sorted(os.listdir(genome))] if os.path.isdir(genome) else [genome]
    seqs = fasta(f for f in files if not os.path.basename(f).startswith('.'))

    def size_shift(row):
        kind, size = row[1], int(row[8])
        return {'X': db, 'DNA': db - size, 'RNA': db + size}[kind]

    def pam_part(dna):
        return dna.replace('-', '')[:pam_len] if five else dna.replace('-', '')[-pam_len:]

    def clean(row):
        dna = row[3].upper()
        return all(c in 'ACGTN-' for c in dna) and all(c in 'ACGT' for c in pam_part(dna))

    co = [r for r in rows(co_path)]
    if five:  # its minus-strand locations, and the padding of short DNA bulges
        for r in co:
            if r[6] == '-':
                r[5] = str(int(r[5]) + size_shift(r))
            if r[1] == 'DNA' and int(r[8]) < db:
                cut = db - int(r[8])
                r[2], r[3] = r[2][:-cut], r[3][:-cut]
    # X lines once, then the rows both tools can compare
    seen, uniq = set(), []
    for r in co:
        if r[1] == 'X' and tuple(r) in seen:
            continue
        seen.add(tuple(r))
        uniq.append(r)
    co = [r for r in uniq if clean(r)]
    sg = [r for r in rows(sg_path) if clean(r)]

    def distal_rna(r):
        """Cas-OFFinder 3's RNA bulge at the guide's PAM-distal end (3' PAM): on '+' its DNA starts
        with the gap; on '-' (columns garbled) it is the alignment of the guide's last bases."""
        if five or r[1] != 'RNA':
            return False
        if r[6] == '+':
            return r[3].startswith('-')
        size, start = int(r[8]), int(r[5])
        seq = seqs[r[4]]
        site = seq[start:start + glen - size + pam_len]
        dna = ''.join(COMP.get(c, 'N') for c in reversed(site.upper()))
        guide = guides[r[0]][0][size:glen]
        return sum(1 for g, d in zip(guide, dna) if g != d) == int(r[7])

    def pam_rna(r):
        """seqgpu's RNA bulge next to a 3' PAM, which Cas-OFFinder 3 does not search."""
        return not five and r[1] == 'RNA' and r[3][-pam_len - 1] == '-'

    def edge(r):
        """A site whose window Cas-OFFinder 3 would take past its record's PAM-distal end."""
        need, start, n = size_shift(r), int(r[5]), len(r[3].replace('-', ''))
        left = (r[6] == '+') != five
        return start < need if left else start + n + need > len(seqs[r[4]])

    sg = [r for r in sg if not pam_rna(r) and not edge(r)]
    key = lambda r: (r[0], r[1], r[5], r[6], r[7], r[8])
    co_minus = collections.Counter(key(r) for r in co if r[6] == '-')
    for k in {key(r) for r in co if r[6] == '-' and distal_rna(r)}:
        co_minus[k] -= 1  # the distal RNA bulge is one of the alignments of its site
    # plus-strand rows as multisets too: a row printed twice is a difference
    co_plus = collections.Counter('\t'.join(r) for r in co if r[6] == '+' and not distal_rna(r))
    sg_plus = collections.Counter('\t'.join(r) for r in sg if r[6] == '+')
    sg_minus = collections.Counter(key(r) for r in sg if r[6] == '-')
    bad = 0
    for line in sorted(set(co_plus) | set(sg_plus)):
        if co_plus[line] != sg_plus[line]:
            print('%s %s (Cas-OFFinder 3 %d, seqgpu %d)' % ('<' if co_plus[line] > sg_plus[line] else '>', line,
                                                          co_plus[line], sg_plus[line]))
            bad += 1
    for k in sorted(set(co_minus) | set(sg_minus)):
        if co_minus[k] != sg_minus[k]:
            print('- %s: Cas-OFFinder 3 %d, seqgpu %d' % ('\t'.join(k), co_minus[k], sg_minus[k]))
            bad += 1
    counts = (sum(co_plus.values()), sum(sg_plus.values()), sum(co_minus.values()), sum(sg_minus.values()))
    print('# plus strand: %d and %d rows; minus strand: %d and %d' % counts, file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
