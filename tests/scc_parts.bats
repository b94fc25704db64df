#!/usr/bin/env bats
# seqgpu scc in parts: --part I/N --counts-out, then --counts, and
# --max-memory's one pass through a file in --tmp-dir, all equal to one run
# byte for byte; the counts files are checked (magic, version, k, parts) and
# a damaged one is an error that names it, never a crash; neither holds more
# files open than a small open-file limit allows.

load test_helper

# the pictures too: their titles name the reads, also when the k-mers come from counts files
OUTS="repeats.tsv gfa units.fa components.tsv spectrum.svg repeats.svg"

# same_outputs A B: the outputs of prefixes A and B are the same bytes
same_outputs() {
    for f in $OUTS; do
        cmp -s "$1.$f" "$2.$f" || { diff "$1.$f" "$2.$f" | head; fail "$2.$f differs from $1.$f"; }
    done
}

# parts N PREFIX OPTIONS... -- INPUTS...: count parts 1..N into PREFIX.I.counts
parts() {
    local n=$1 p=$2 i opts=()
    shift 2
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    for i in $(seq 1 "$n"); do
        seqgpu scc -q "${opts[@]}" --part "$i/$n" --counts-out "$p.$i.counts" "$@" || fail "part $i/$n failed"
    done
}

sim() {
    $REF sim --seed "${1:-5}" --periods 1,2,7,31,171 --unique 30000 --errors 0.005 "$T/sim"
}

@test "scc --part/--counts: N parts, merged, equal one run byte for byte (k 31 and 45, -c and --min-copies)" {
    sim 5
    for k in 31 45; do
        for c in "" "-c 4"; do
            seqgpu scc -q -k $k $c --write-graph "$T/one.whole.gfa" -p "$T/one" "$T/sim.reads.fq" || fail "one run"
            [ "$(wc -l < "$T/one.repeats.tsv")" -gt 3 ] || fail "k $k $c: too few repeats to test with"
            for n in 1 2 3 7; do
                parts $n "$T/p" -k $k $c -- "$T/sim.reads.fq"
                # in any order, with -k or without (the files give it)
                run seqgpu scc -q $c --counts --write-graph "$T/m.whole.gfa" -p "$T/m" $(ls "$T"/p.*.counts | sort -r)
                assert_success
                same_outputs "$T/one" "$T/m"
                cmp "$T/one.whole.gfa" "$T/m.whole.gfa"
                rm "$T"/p.*.counts
            done
        done
    done
}

# bounded NAME OPTIONS...: a run of the sim reads under OPTIONS (--max-memory
# and the like) into $T/NAME that equals one run ($T/one, $T/one.json):
# the same files, histogram and totals, and nothing left in $T/tmp. Two
# threads in these tests, whose limits the least of two threads sets.
bounded() {
    local name=$1
    shift
    run seqgpu scc -t 2 --tmp-dir "$T/tmp" --stats "$T/$name.json" -p "$T/$name" "$@" "$T/sim.reads.fq"
    assert_success
    same_outputs "$T/one" "$T/$name"
    python3 - "$T/one.json" "$T/$name.json" <<'PY' || fail "$*: the figures differ"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for key in ('kmers', 'distinct_kmers', 'histogram', 'coverage', 'threshold', 'kept_kmers'):
    assert a[key] == b[key], key
PY
    [ -z "$(ls -A "$T/tmp")" ] || fail "$*: left in --tmp-dir: $(ls -A "$T/tmp")"
}

# stat_of NAME KEY: a figure of the cpu k-mer table's --stats
stat_of() { python3 -c "import json; print(json.load(open('$T/$1.json'))['graph_cpu']['$2'])"; }

@test "scc --max-memory: one pass, the k-mers beyond the limit through one file in --tmp-dir; 1, 2, 7 and 64 bins, in slices where a bin needs them, all equal one run" {
    sim 6
    seqgpu scc -q -p "$T/one" --stats "$T/one.json" "$T/sim.reads.fq"
    mkdir "$T/tmp"
    # a limit below the least this run works in is refused at once, naming the least
    run seqgpu scc -t 2 --max-memory 1M --tmp-dir "$T/tmp" -p "$T/x" "$T/sim.reads.fq"
    assert_failure 1
    assert_output --partial "is below the least a run of"
    least=$(printf '%s\n' "$output" | sed -n 's/.*give --max-memory \([0-9]*M\) or more.*/\1/p')
    [ -n "$least" ] || fail "no least figure: $output"
    [ ! -e "$T/x.repeats.tsv" ] && [ -z "$(ls -A "$T/tmp")" ]
    unlimited=$(python3 -c "import json; print(json.load(open('$T/one.json'))['peak_rss_bytes'])")
    for bins in 1 2 7 64; do
        SEQGPU_KMER_BINS=$bins bounded b
        [ "$(stat_of b bins)" = $bins ] && [ "$(stat_of b spilled_bytes)" = 0 ] || fail "$bins bins: $(stat_of b bins)"
        # at the least: blocks through the file, bins in slices, within the limit
        # and never above the unlimited run
        SEQGPU_KMER_BINS=$bins bounded m --max-memory $least
        [ "$(stat_of m spilled_bytes)" -gt 0 ] || fail "$bins bins at $least: nothing spilled"
        [ "$(stat_of m bin_slices)" -gt $bins ] || fail "$bins bins at $least: $(stat_of m bin_slices) slices"
        # (a sanitizer's shadow memory and quarantine come on top)
        [ -n "${SEQGPU_SANITIZER:-}" ] || python3 - "$T/m.json" ${least%M} "$unlimited" <<'PY' ||
import json, sys
rss = json.load(open(sys.argv[1]))['peak_rss_bytes']
assert rss <= int(sys.argv[2]) << 20 and rss <= int(sys.argv[3]) * 1.1, (rss, sys.argv[2:])
PY
            fail "$bins bins at $least: too much memory"
    done
    # a part of the run bounded so: the same counts file
    seqgpu scc -q --part 2/3 --counts-out "$T/p.counts" "$T/sim.reads.fq"
    run seqgpu scc -q -t 2 --part 2/3 --counts-out "$T/pb.counts" --max-memory $least --tmp-dir "$T/tmp" "$T/sim.reads.fq"
    assert_success
    cmp "$T/p.counts" "$T/pb.counts"
    # -c 1 keeps the single k-mers too
    seqgpu scc -q -c 1 -p "$T/one" --stats "$T/one.json" "$T/sim.reads.fq"
    bounded c1 -c 1 --max-memory 40M
    # a graph of more kept k-mers than the limit leaves them: an error that says by how much to raise it
    run seqgpu scc -q -t 2 -c 1 --max-memory $least --tmp-dir "$T/tmp" -p "$T/x" "$T/sim.reads.fq"
    assert_failure 1
    assert_output --regexp "take [0-9]+ MB for their graph, more than the [0-9]+ MB --max-memory leaves the k-mer table: raise --max-memory by [0-9]+ MB"
    [ ! -e "$T/x.repeats.tsv" ] && [ -z "$(ls -A "$T/tmp")" ]
}

@test "scc --max-memory: standard input and a pipe are bounded too (one pass); one file open whatever the limit; the option's errors" {
    sim 6
    seqgpu scc -q -p "$T/one" --stats "$T/one.json" "$T/sim.reads.fq"
    mkdir "$T/tmp"
    run bash -c "'$SEQGPU' scc -t 2 --max-memory 20M --tmp-dir '$T/tmp' --stats '$T/s.json' -p '$T/s' - < '$T/sim.reads.fq'"
    assert_success
    assert_output --partial "went through a temporary file in '$T/tmp'"
    OUTS="repeats.tsv gfa units.fa components.tsv" same_outputs "$T/one" "$T/s" # the pictures name standard input
    [ "$(stat_of s spilled_bytes)" -gt 0 ] && [ -z "$(ls -A "$T/tmp")" ]
    # the spill is one file, never one per bin (there are hundreds) or part:
    # the outputs, the reads and a few more descriptors are enough
    run bash -c "ulimit -n 20 && exec '$SEQGPU' scc -q -t 2 --max-memory 20M --tmp-dir '$T/tmp' -p '$T/u' '$T/sim.reads.fq'"
    assert_success
    same_outputs "$T/one" "$T/u"
    # a folder that cannot take the file: exit 1, naming it; no outputs
    run seqgpu scc -q -t 2 --max-memory 20M --tmp-dir "$T/missing" -p "$T/x" "$T/sim.reads.fq"
    assert_failure 1
    assert_output --partial "'$T/missing'"
    assert_output --partial "--tmp-dir"
    [ ! -e "$T/x.repeats.tsv" ]
    run seqgpu scc -t 2 --max-memory 0 x.fq
    assert_failure 1
    assert_output --partial "invalid --max-memory"
    # below a megabyte nothing fits: refused, not taken as no limit or failed later
    for m in 1 1k 100k 1023k; do
        run seqgpu scc -t 2 --max-memory $m -p "$T/x" "$T/sim.reads.fq"
        assert_failure 1
        assert_output --partial "invalid --max-memory '$m' (bytes, 1M or more"
    done
    # more threads need more: the least grows with them
    run seqgpu scc -t 1 --max-memory 1M -p "$T/x" "$T/sim.reads.fq"
    one=$(printf '%s\n' "$output" | sed -n 's/.*give --max-memory \([0-9]*\)M or more.*/\1/p')
    run seqgpu scc -t 16 --max-memory 1M -p "$T/x" "$T/sim.reads.fq"
    sixteen=$(printf '%s\n' "$output" | sed -n 's/.*give --max-memory \([0-9]*\)M or more.*/\1/p')
    [ -n "$one" ] && [ "$sixteen" -gt "$one" ] || fail "least of 1 thread $one, of 16 $sixteen"
    run seqgpu scc -q -t 2 --max-memory 1T -p "$T/x" "$T/sim.reads.fq"
    assert_success
    # a folder that cannot take the spill is refused before the reads are read
    run seqgpu scc --tmp-dir "$T/sim.reads.fq" -p "$T/x" "$T/sim.reads.fq"
    assert_failure 1
    assert_output --partial "--tmp-dir '$T/sim.reads.fq' is not a folder"
}

@test "scc --max-memory: a full or corrupted --tmp-dir in the middle of a run is an error naming it; no output left" {
    sim 6
    mkdir "$T/tmp"
    # full: a file-size limit stops the spill's writes (the outputs are written only after it)
    run seqgpu scc -t 2 --max-memory 1M -p "$T/x" "$T/sim.reads.fq"
    least=$(printf '%s\n' "$output" | sed -n 's/.*give --max-memory \([0-9]*M\) or more.*/\1/p')
    run bash -c "trap '' XFSZ; ulimit -f 256 && exec '$SEQGPU' scc -q -t 2 --max-memory $least --tmp-dir '$T/tmp' -p '$T/f' '$T/sim.reads.fq'"
    assert_failure 2
    assert_output --partial "cannot write the k-mers beyond --max-memory to --tmp-dir '$T/tmp'"
    [ -z "$(ls -A "$T" | grep -e '^f\.' -e '^\.seqgpu')" ] || fail "left: $(ls -A "$T")"
    [ -z "$(ls -A "$T/tmp")" ]
    # and on a file system that runs out of room, where the test may mount one
    mkdir -p "$T/small"
    if mount -t tmpfs -o size=1m tmpfs "$T/small" 2> /dev/null; then
        run seqgpu scc -q -t 2 --max-memory $least --tmp-dir "$T/small" -p "$T/f" "$T/sim.reads.fq"
        st=$status
        left=$(ls -A "$T/small")
        umount "$T/small"
        [ "$st" -eq 2 ] || fail "exit $st: $output"
        assert_output --partial "No space left on device"
        [ -z "$left" ] || fail "left in the full folder: $left"
    fi
    # corrupted: the run's temporary file changed under it, while it waits for the rest of its input
    mkfifo "$T/in.fq"
    "$SEQGPU" scc -q -t 2 --max-memory $least --tmp-dir "$T/tmp" -p "$T/c" "$T/in.fq" 2> "$T/corrupt.err" &
    pid=$!
    exec 7> "$T/in.fq"
    lines=$(wc -l < "$T/sim.reads.fq")
    head -n $((lines / 16 * 12)) "$T/sim.reads.fq" >&7
    spill=""
    for i in $(seq 100); do
        for fd in /proc/$pid/fd/*; do
            case $(readlink "$fd") in "$T/tmp/"*) [ -s "$fd" ] && spill=$fd ;; esac
        done
        [ -n "$spill" ] && break
        sleep 0.1
    done
    [ -n "$spill" ] || { exec 7>&-; wait $pid; fail "no temporary file appeared"; }
    printf 'not the k-mers that were written' | dd of="$spill" bs=1 seek=100 conv=notrunc 2> /dev/null
    tail -n +$((lines / 16 * 12 + 1)) "$T/sim.reads.fq" >&7
    exec 7>&-
    st=0
    wait $pid || st=$?
    [ "$st" -eq 2 ] || fail "exit $st: $(cat "$T/corrupt.err")"
    grep -q "spilled to --tmp-dir '$T/tmp' came back changed (checksum)" "$T/corrupt.err" || fail "$(cat "$T/corrupt.err")"
    [ -z "$(ls -A "$T" | grep -e '^c\.' -e '^\.seqgpu')" ] || fail "left: $(ls -A "$T")"
}

@test "scc --counts: parts of different runs, a part missing or given twice are refused" {
    sim 7
    parts 3 "$T/a" -- "$T/sim.reads.fq"
    parts 2 "$T/b" -- "$T/sim.reads.fq"
    parts 3 "$T/k" -k 21 -- "$T/sim.reads.fq"
    parts 3 "$T/c" -c 6 -- "$T/sim.reads.fq"
    run seqgpu scc --counts -p "$T/o" "$T/a.1.counts" "$T/a.2.counts"
    assert_failure 1
    assert_output --partial "part 3/3 is missing"
    run seqgpu scc --counts -p "$T/o" "$T/a.1.counts" "$T/a.2.counts" "$T/a.2.counts"
    assert_failure 1
    assert_output --partial "part 2/3 is given twice ('$T/a.2.counts' and '$T/a.2.counts')"
    run seqgpu scc --counts -p "$T/o" "$T/a.1.counts" "$T/b.2.counts" "$T/a.3.counts"
    assert_failure 1
    assert_output --partial "cut into the same number"
    run seqgpu scc --counts -p "$T/o" "$T/a.1.counts" "$T/k.2.counts" "$T/a.3.counts"
    assert_failure 1
    assert_output --partial "the parts of one run have one k"
    # the same k and N, but the k-mers of other reads
    cp "$T/sim.reads.fq" "$T/other.fq"
    seqgpu scc -q --part 2/3 --counts-out "$T/x.2.counts" "$T/other.fq"
    run seqgpu scc --counts -p "$T/o" "$T/a.1.counts" "$T/x.2.counts" "$T/a.3.counts"
    assert_failure 1
    assert_output --partial "'$T/x.2.counts' of other.fq: the parts of one run read the same inputs"
    # other reads under the same name, in another folder: the sizes tell them apart
    mkdir -p "$T/elsewhere"
    head -n 400 "$T/sim.reads.fq" > "$T/elsewhere/sim.reads.fq"
    (cd "$T/elsewhere" && seqgpu scc -q --part 2/3 --counts-out "$T/y.2.counts" sim.reads.fq)
    run seqgpu scc --counts -p "$T/o" "$T/a.1.counts" "$T/y.2.counts" "$T/a.3.counts"
    assert_failure 1
    assert_output --partial "'$T/a.1.counts' and '$T/y.2.counts' count different reads: their 'sim.reads.fq' had"
    [ ! -e "$T/o.repeats.tsv" ]
    # a part from a pipe (no size) first does not hide the others' sizes, in any order
    mkdir -p "$T/pipe"
    mkfifo "$T/pipe/sim.reads.fq"
    for i in 1 2 3; do
        cat "$T/sim.reads.fq" > "$T/pipe/sim.reads.fq" &
        seqgpu scc -q --part $i/3 --counts-out "$T/p.$i.counts" "$T/pipe/sim.reads.fq"
    done
    (cd "$T/elsewhere" && seqgpu scc -q --part 3/3 --counts-out "$T/y.3.counts" sim.reads.fq)
    for order in "p.1 a.2 y.3" "a.2 y.3 p.1" "y.3 p.1 a.2"; do
        set -- $order
        run seqgpu scc --counts -p "$T/o" "$T/$1.counts" "$T/$2.counts" "$T/$3.counts"
        assert_failure 1
        assert_output --partial "count different reads"
    done
    # parts of a pipe alone: accepted, with a warning that nothing could be compared
    run seqgpu scc --counts -p "$T/o" "$T"/p.*.counts
    assert_success
    assert_output --partial "from a pipe, whose size cannot be compared"
    rm "$T"/o.*
    # the same reads copied elsewhere are the same reads
    cp "$T/sim.reads.fq" "$T/elsewhere/sim.reads.fq"
    (cd "$T/elsewhere" && seqgpu scc -q --part 2/3 --counts-out "$T/z.2.counts" sim.reads.fq)
    run seqgpu scc -q --counts -p "$T/o" "$T/a.1.counts" "$T/z.2.counts" "$T/a.3.counts"
    assert_success
    rm "$T"/o.*
    run seqgpu scc --counts -k 21 -p "$T/o" "$T"/a.*.counts
    assert_failure 1
    assert_output --partial "leave -k out"
    # parts that kept only the k-mers seen 6 times or more cannot give a threshold below that
    run seqgpu scc --counts -c 3 -p "$T/o" "$T"/c.*.counts
    assert_failure 1
    assert_output --partial "hold the k-mers seen 6 times or more"
    run seqgpu scc -q --counts -c 6 -p "$T/o" "$T"/c.*.counts
    assert_success
    seqgpu scc -q -c 6 -p "$T/one" "$T/sim.reads.fq"
    same_outputs "$T/one" "$T/o"
    [ ! -e "$T/o.gfa" ] || rm "$T"/o.*
    # not a counts file at all
    run seqgpu scc --counts -p "$T/o" "$T/sim.reads.fq"
    assert_failure 1
    assert_output --partial "is not a seqgpu k-mer counts file"
    [ ! -e "$T/o.repeats.tsv" ]
}

@test "scc --counts: more parts than the open-file limit are read one at a time, and equal one run" {
    local reads=$ROOT/examples/tandem_reads.fq.gz
    seqgpu scc -q --write-graph "$T/one.whole.gfa" -p "$T/one" "$reads"
    [ "$(wc -l < "$T/one.repeats.tsv")" -gt 1 ] || fail "no repeats to compare"
    parts 80 "$T/p" -- "$reads"
    run bash -c "ulimit -n 40 && exec '$SEQGPU' scc -q --counts --write-graph '$T/m.whole.gfa' -p '$T/m' '$T'/p.*.counts"
    assert_success
    same_outputs "$T/one" "$T/m"
    cmp "$T/one.whole.gfa" "$T/m.whole.gfa"
}

@test "scc --counts: a truncated or damaged counts file is an error naming it, never a crash" {
    sim 8
    parts 2 "$T/a" -- "$T/sim.reads.fq"
    size=$(stat -c %s "$T/a.1.counts")
    [ "$size" -gt 2000 ] || fail "a counts file of $size bytes is too small to test with"
    for cut in 0 7 8 40 63 64 70 100 500 $((size / 2)) $((size - 1)); do
        head -c $cut "$T/a.1.counts" > "$T/bad.counts"
        run seqgpu scc --counts -p "$T/o" "$T/bad.counts" "$T/a.2.counts"
        [ "$status" -eq 1 ] || fail "cut at $cut: exit $status: $output"
        assert_output --partial "'$T/bad.counts'"
    done
    for at in 0 9 13 17 21 30 40 50 60 64 70 80 90 200 $((size / 2)) $((size - 2)); do
        python3 - "$T/a.1.counts" "$T/bad.counts" $at <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[int(sys.argv[3])] ^= 0x55
open(sys.argv[2], 'wb').write(b)
PY
        run seqgpu scc --counts -p "$T/o" "$T/bad.counts" "$T/a.2.counts"
        [ "$status" -eq 1 ] || fail "byte $at changed: exit $status: $output"
        assert_output --partial "'$T/bad.counts'"
    done
    # the version is checked with its own message
    python3 - "$T/a.1.counts" "$T/bad.counts" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[8] = 9
open(sys.argv[2], 'wb').write(b)
PY
    run seqgpu scc --counts -p "$T/o" "$T/bad.counts" "$T/a.2.counts"
    assert_failure 1
    assert_output --partial "of version 9"
    [ ! -e "$T/o.repeats.tsv" ] && [ ! -e "$T/o.gfa" ]
}

@test "scc --counts-out: the documented header, nothing else written, and what it refuses" {
    sim 9
    # a prefix would name a report that a part does not write
    run seqgpu scc --part 2/5 -k 33 --counts-out "$T/p.counts" -p "$T/o" "$T/sim.reads.fq"
    assert_failure 1
    assert_output --partial "no -p"
    [ ! -e "$T/p.counts" ]
    # a part counts on the cpu: -b cuda is refused, not ignored
    run seqgpu scc -b cuda --part 2/5 --counts-out "$T/p.counts" "$T/sim.reads.fq"
    assert_failure 1
    assert_output --partial "leave out -b cuda and --device"
    run seqgpu scc --device 1 --part 2/5 --counts-out "$T/p.counts" "$T/sim.reads.fq"
    assert_failure 1
    assert_output --partial "leave out -b cuda and --device"
    # the merge of counted parts has nothing to bound or spill
    for opt in "--max-memory 2G" "--tmp-dir $T"; do
        run seqgpu scc --counts $opt -p "$T/o" "$T/sim.reads.fq"
        assert_failure 1
        assert_output --partial "--counts takes k-mers counted already"
    done
    cd "$T"
    run seqgpu scc --part 2/5 -k 33 --counts-out "$T/p.counts" --stats "$T/p.json" "$T/sim.reads.fq"
    cd - > /dev/null
    assert_success
    assert_output --partial "part 2/5"
    [ ! -e "$T/seqgpu_scc.repeats.tsv" ] || fail "--counts-out wrote the report too"
    [ -z "$(ls "$T" | grep -v -e '^p\.' -e '^sim')" ] || fail "--counts-out wrote $(ls "$T")"
    # magic, version 2, k, part, N, the lowest count kept (docs/counts-format.md)
    run python3 -c "
import struct, sys
b = open('$T/p.counts', 'rb').read()
assert b[:8] == b'SGKC\r\n\x1a\n', b[:8]
print(struct.unpack('<IIIII', b[8:28]))"
    assert_success
    assert_output "(2, 33, 2, 5, 2)"
    run python3 -c "import json; s = json.load(open('$T/p.json')); print(s['part'], s['parts'], s['k'])"
    assert_output "2 5 33"
    run seqgpu scc --part 2/5 "$T/sim.reads.fq"
    assert_failure 1
    assert_output --partial "for --counts-out FILE"
    for bad in 0/3 4/3 x 1/0; do
        run seqgpu scc --part $bad --counts-out "$T/x.counts" "$T/sim.reads.fq"
        assert_failure 1
        assert_output --partial "invalid --part"
    done
    run seqgpu scc --counts-out "$T/x.counts" --counts "$T/p.counts"
    assert_failure 1
    run seqgpu scc --counts-out "$T/x.counts" --edges "$T/p.counts"
    assert_failure 1
    printf 'S\t1\tACGT\n' > "$T/g.gfa"
    run seqgpu scc --counts-out "$T/x.counts" "$T/g.gfa"
    assert_failure 1
    assert_output --partial "GFA graph"
    [ ! -e "$T/x.counts" ]
    # --counts-out without --part is the whole run, part 1/1
    run seqgpu scc -q --counts-out "$T/all.counts" "$T/sim.reads.fq"
    assert_success
    run seqgpu scc -q --counts -p "$T/m" "$T/all.counts"
    assert_success
    seqgpu scc -q -p "$T/one" "$T/sim.reads.fq"
    same_outputs "$T/one" "$T/m"
}
