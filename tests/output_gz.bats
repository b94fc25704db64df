#!/usr/bin/env bats
# Compressed outputs: a name ending in .gz or .bgz is written BGZF through
# htslib, the same bytes as the plain output once decompressed; --index adds
# a tabix index; all of a run's files appear together or none do.

load test_helper

READS=$ROOT/examples/lambda_reads.fq.gz

# BGZF: a gzip member whose extra field is "BC" (bytes 12 and 13)
is_bgzf() { [ "$(od -An -tx1 -j12 -N2 "$1" | tr -d ' \n')" = 4243 ]; }

no_temporaries() { run find "$1" -name '*.seqgpu-tmp.*'; assert_output ""; }

@test "find -o FILE.gz and FILE.bgz: BGZF, the same bytes as plain output, every format" {
    for f in bed tsv count; do
        seqgpu find -q -F $f -m ACG -m CCWGG -m GAATTC -o "$T/plain.$f" "$READS"
        seqgpu find -q -F $f -m ACG -m CCWGG -m GAATTC -o "$T/out.$f.gz" "$READS"
        seqgpu find -q -F $f -m ACG -m CCWGG -m GAATTC -o "$T/out.$f.bgz" "$READS"
        is_bgzf "$T/out.$f.gz" || fail "$f: not BGZF"
        is_bgzf "$T/out.$f.bgz" || fail "$f: .bgz not BGZF"
        gzip -dc "$T/out.$f.gz" > "$T/back.$f"
        cmp "$T/plain.$f" "$T/back.$f" || fail "$f: decompressed output differs"
        gzip -dc < "$T/out.$f.bgz" | cmp - "$T/plain.$f" || fail "$f: .bgz differs"
    done
    # many BGZF blocks: the tsv is well over one block's 64 kB
    [ "$(stat -c %s "$T/plain.tsv")" -gt 150000 ]
    # and with several compression threads
    seqgpu find -q -t 4 -F tsv -m ACG -m CCWGG -m GAATTC -o "$T/t4.tsv.gz" "$READS"
    gzip -dc "$T/t4.tsv.gz" | cmp - "$T/plain.tsv"
    no_temporaries "$T"
}

@test "find: standard output and other names stay plain text" {
    seqgpu find -q -m GAATTC -o "$T/sites.bed" "$LAMBDA"
    run head -c 1 "$T/sites.bed"
    assert_output "g"
    seqgpu find -q -m GAATTC "$LAMBDA" > "$T/stdout.bed"
    cmp "$T/stdout.bed" "$T/sites.bed"
}

@test "find --stats FILE.gz is compressed too" {
    seqgpu find -q -m GAATTC --stats "$T/s.json.gz" -o "$T/x.bed" "$LAMBDA"
    is_bgzf "$T/s.json.gz"
    run gzip -dc "$T/s.json.gz"
    assert_success
    assert_line --partial '"command": "find"'
}

@test "find --index: a tabix index that tabix answers regions from" {
    command -v tabix >/dev/null || skip "tabix (Debian tabix) is not installed"
    printf '>chr1\nGAATTCAAGAATTCAAAAAAAAAAGGATCC\n>chr2\nTTGGATCCGAATTC\n' > "$T/g.fa"
    seqgpu find -q -m GAATTC -m GGATCC -o "$T/hits.bed.gz" --index "$T/g.fa"
    [ -s "$T/hits.bed.gz.tbi" ]
    run tabix "$T/hits.bed.gz" chr1:1-10
    assert_success
    assert_output "$(printf 'chr1\t0\t6\tGAATTC\t0\t.\nchr1\t8\t14\tGAATTC\t0\t.')"
    run tabix "$T/hits.bed.gz" chr2
    assert_output "$(printf 'chr2\t2\t8\tGGATCC\t0\t.\nchr2\t8\t14\tGAATTC\t0\t.')"
    # a genome: every hit of lambda in a window, as awk finds it in the plain output
    seqgpu find -q -m CCWGG -o "$T/l.bed.gz" --index "$LAMBDA"
    seqgpu find -q -m CCWGG "$LAMBDA" > "$T/l.bed"
    chrom=$(cut -f1 "$T/l.bed" | head -1)
    tabix "$T/l.bed.gz" "$chrom:10001-20000" > "$T/region"
    awk '$3 > 10000 && $2 < 20000' "$T/l.bed" | cmp - "$T/region"
    [ -s "$T/region" ]
}

@test "find --index past 2^29 bases (more than a .tbi holds): a .csi, which tabix reads; no stale .tbi left" {
    need tabix
    # a sparse .2bit: one record of 600 Mb of N, then 40 bases (T C A G = 0 1 2 3)
    python3 - "$T/big.2bit" <<'PY'
import struct, sys
tail = 'ACGTGAATTCACGTACGTACGTGAATTCAAAAAAAAAAAA'
n_run, size = 600000000, 600000040
head = struct.pack('<4I', 0x1A412743, 0, 1, 0) + bytes([6]) + b'chrBig'
rec = struct.pack('<6I', size, 1, 0, n_run, 0, 0)
with open(sys.argv[1], 'wb') as f:
    f.write(head + struct.pack('<I', len(head) + 4) + rec)
    f.seek(len(head) + 4 + len(rec) + n_run // 4)
    f.write(bytes(int(''.join('%d' % 'TCAG'.index(c) for c in tail[i:i + 4]), 4) for i in range(0, 40, 4)))
PY
    echo stale > "$T/hits.bed.gz.tbi"
    run seqgpu find -m GAATTC -o "$T/hits.bed.gz" --index "$T/big.2bit"
    assert_success
    assert_output --partial "has positions past 2^29, more than a .tbi index holds: its index is '"
    [ -s "$T/hits.bed.gz.csi" ] && [ ! -e "$T/hits.bed.gz.tbi" ]
    run tabix "$T/hits.bed.gz" chrBig:600000001-600000030
    assert_output "$(printf 'chrBig\t600000004\t600000010\tGAATTC\t0\t.\nchrBig\t600000022\t600000028\tGAATTC\t0\t.')"
    no_temporaries "$T"
}

@test "find --index needs BED to a .gz file: a usage error before anything is written" {
    run seqgpu find -m GAATTC -o "$T/hits.bed" --index "$LAMBDA"
    assert_failure 1
    assert_output "seqgpu find: --index needs BED output to a BGZF file: -F bed -o FILE.gz (or FILE.bgz)
try 'seqgpu find -h' for the options"
    run seqgpu find -m GAATTC -F tsv -o "$T/hits.tsv.gz" --index "$LAMBDA"
    assert_failure 1
    run seqgpu find -m GAATTC --index "$LAMBDA"
    assert_failure 1
    run ls "$T"
    assert_output ""
}

@test "find --index that cannot be built (a record named twice) leaves no output, no index, an older output as it was" {
    printf '>r\nGAATTC\n>s\nGAATTC\n>r\nGAATTC\n' > "$T/twice.fa"
    echo old > "$T/hits.bed.gz"
    run seqgpu find -q -m GAATTC -o "$T/hits.bed.gz" --index "$T/twice.fa"
    assert_failure 1
    assert_output --partial "cannot build the tabix index of '$T/hits.bed.gz'"
    [ "$(cat "$T/hits.bed.gz")" = old ]
    [ ! -e "$T/hits.bed.gz.tbi" ]
    no_temporaries "$T"
}

@test "scc -p PREFIX.gz: every PREFIX file BGZF, the same bytes as a plain run" {
    seqgpu scc -q -k 11 -c 3 -p "$T/plain" --write-graph "$T/plain.all.gfa" "$ROOT/examples/tandem_reads.fq.gz"
    seqgpu scc -q -k 11 -c 3 -p "$T/gz.gz" --write-graph "$T/gz.all.gfa.gz" --stats "$T/gz.json.gz" \
        "$ROOT/examples/tandem_reads.fq.gz"
    for s in repeats.tsv gfa units.fa components.tsv; do
        is_bgzf "$T/gz.$s.gz" || fail "gz.$s.gz is not BGZF"
        gzip -dc "$T/gz.$s.gz" | cmp - "$T/plain.$s" || fail "$s differs"
    done
    gzip -dc "$T/gz.all.gfa.gz" | cmp - "$T/plain.all.gfa"
    is_bgzf "$T/gz.json.gz"
    [ ! -e "$T/gz.gz.repeats.tsv" ]
    run seqgpu scc -p "$T/.gz" "$ROOT/examples/tandem_reads.fq.gz"
    assert_failure 1
    assert_output --partial "invalid prefix"
    no_temporaries "$T"
}

@test "find -o FILE.gz on a full disk is a write error, exit 2" {
    [ -w /dev/full ] || skip "no /dev/full"
    ln -s /dev/full "$T/full.bed.gz"
    run seqgpu find -q -m ACG -o "$T/full.bed.gz" "$READS"
    assert_failure 2
    assert_output --partial "cannot write to '$T/full.bed.gz'"
}
