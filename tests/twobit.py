#!/usr/bin/env python3
"""FASTA to UCSC .2bit, for the tests (Debian has no faToTwoBit).

Written from the format's description (genome.ucsc.edu/FAQ/FAQformat.html
#format7), sharing nothing with seqgpu's reader: a header (signature
0x1A412743, version, record count, reserved), an index (name length, name,
offset: 32 bits in version 0, 64 in version 1), then per record its length,
its runs of N (any letter not A/C/G/T, as faToTwoBit), its runs of lower
case, a reserved word and the bases four to a byte (T C A G = 0 1 2 3, the
first in the high bits).

    twobit.py [--version 0|1] [--big-endian] in.fa out.2bit
"""
import argparse
import struct

import numpy as np


def records(path):
    name, seq = None, []
    with open(path, 'rb') as f:
        for line in f:
            line = line.rstrip(b'\r\n')
            if line.startswith(b'>'):
                if name is not None:
                    yield name, b''.join(seq)
                words = line[1:].split()
                name, seq = (words[0] if words else b''), []
            elif line.strip():
                seq.append(line.strip())
    if name is not None:
        yield name, b''.join(seq)


def runs(flags):
    """(start, size) of each run of True in a boolean array."""
    edges = np.diff(np.concatenate(([0], flags.astype(np.int8), [0])))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    return list(zip(starts.tolist(), (ends - starts).tolist()))


def record_bytes(seq, e):
    a = np.frombuffer(seq, dtype=np.uint8)
    upper = a & 0xDF
    code = np.zeros(len(a), dtype=np.uint8)  # T, and N
    code[upper == ord('C')] = 1
    code[upper == ord('A')] = 2
    code[upper == ord('G')] = 3
    n_runs = runs(~np.isin(upper, np.frombuffer(b'ACGT', dtype=np.uint8)))
    mask_runs = runs((a >= ord('a')) & (a <= ord('z')))
    pad = (-len(code)) % 4
    c = np.concatenate((code, np.zeros(pad, dtype=np.uint8))).reshape(-1, 4)
    packed = (c[:, 0] << 6 | c[:, 1] << 4 | c[:, 2] << 2 | c[:, 3]).astype(np.uint8).tobytes()
    out = [struct.pack(e + 'II', len(seq), len(n_runs))]
    out += [struct.pack(e + '%dI' % len(n_runs), *[s for s, _ in n_runs]),
            struct.pack(e + '%dI' % len(n_runs), *[n for _, n in n_runs])]
    out += [struct.pack(e + 'I', len(mask_runs)),
            struct.pack(e + '%dI' % len(mask_runs), *[s for s, _ in mask_runs]),
            struct.pack(e + '%dI' % len(mask_runs), *[n for _, n in mask_runs])]
    out += [struct.pack(e + 'I', 0), packed]
    return b''.join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--version', type=int, default=0, choices=(0, 1))
    ap.add_argument('--big-endian', action='store_true')
    ap.add_argument('fasta')
    ap.add_argument('out')
    a = ap.parse_args()
    e = '>' if a.big_endian else '<'
    recs = [(name, record_bytes(seq, e)) for name, seq in records(a.fasta)]
    off_fmt = 'Q' if a.version else 'I'
    offset = 16 + sum(1 + len(name) + struct.calcsize(off_fmt) for name, _ in recs)
    index = []
    for name, body in recs:
        index.append(struct.pack(e + 'B', len(name)) + name + struct.pack(e + off_fmt, offset))
        offset += len(body)
    with open(a.out, 'wb') as f:
        f.write(struct.pack(e + 'IIII', 0x1A412743, a.version, len(recs), 0))
        f.write(b''.join(index))
        for _, body in recs:
            f.write(body)


if __name__ == '__main__':
    main()
