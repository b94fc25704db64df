#!/usr/bin/env bats
# seqgpu find: the command-line contract, output formats and bad input.

load test_helper

@test "no arguments: usage on stderr, exit 1" {
    run seqgpu
    assert_failure 1
    assert_output --partial "Usage: seqgpu <command>"
}

@test "--version prints one stable line" {
    run seqgpu --version
    assert_success
    assert_output --regexp '^seqgpu [0-9]+\.[0-9]+\.[0-9]+$'
}

@test "version lists htslib and the backends" {
    run seqgpu version
    assert_success
    assert_line --partial "htslib"
    assert_line --regexp "^backends: cpu"
}

@test "help find and find -h print the same usage on stdout" {
    run seqgpu find -h
    assert_success
    assert_output --partial "Usage: seqgpu find"
    local h=$output
    run seqgpu help find
    assert_success
    assert_equal "$output" "$h"
}

@test "every option in find -h is in the man page and the README" {
    options_documented find
}

@test "unknown command and unknown option exit 1 with one line and a hint" {
    run seqgpu frobnicate
    assert_failure 1
    assert_output "seqgpu: unknown command 'frobnicate'
try 'seqgpu -h' for the commands"
    run seqgpu find --frob -m A "$LAMBDA"
    assert_failure 1
    assert_output "seqgpu find: unknown option '--frob'
try 'seqgpu find -h' for the options"
}

@test "bad option values exit 1" {
    run seqgpu find -m A -t 0 "$LAMBDA"
    assert_failure 1
    assert_output --partial "invalid thread count"
    run seqgpu find -m A -F xml "$LAMBDA"
    assert_failure 1
    assert_output --partial "invalid format 'xml'"
    run seqgpu find -m A -s up "$LAMBDA"
    assert_failure 1
    run seqgpu find -m A --chunk-size 0 "$LAMBDA"
    assert_failure 1
    run seqgpu find -m A -b tpu "$LAMBDA"
    assert_failure 1
    assert_output --partial "unknown backend 'tpu'"
    run seqgpu find -m A --kernel magic "$LAMBDA"
    assert_failure 1
    assert_output --partial "unknown kernel 'magic'"
}

@test "no motif or no input is a usage error" {
    run seqgpu find "$LAMBDA"
    assert_failure 1
    assert_output --partial "no motif given"
    # no input named is an error only when standard input is a terminal
    run script -qec "$SEQGPU find -m ACGT" /dev/null
    assert_failure 1
    assert_output --partial "no input file"
}

@test "no input named: standard input is read when it is not a terminal" {
    printf '>a\nACGTTACGT\n' > "$T/a.fa"
    run seqgpu find -q -m ACGT < "$T/a.fa"
    assert_success
    assert_output "$(printf 'a\t0\t4\tACGT\t0\t.\na\t5\t9\tACGT\t0\t.')"
}

@test "an invalid motif letter is named with its motif" {
    run seqgpu find -m ACGTX "$LAMBDA"
    assert_failure 1
    assert_output --partial "invalid letter 'X' at position 5 of motif 'ACGTX'"
}

@test "a missing input file is named, before any input is read" {
    run seqgpu find -m ACGT "$T/nope.fa"
    assert_failure 1
    assert_line "seqgpu find: cannot read '$T/nope.fa': No such file or directory"
    # the first input is not scanned (no hits written) before the second is found missing; scc's PAF alike
    run seqgpu find -q -m GAATTC "$LAMBDA" "$T/nope.fa"
    assert_failure 1
    assert_output "seqgpu find: cannot read '$T/nope.fa': No such file or directory"
    run seqgpu scc -q -p "$T/s" --overlaps "$T/nope.paf" "$ROOT/examples/tandem_reads.fq.gz"
    assert_failure 1
    assert_output "seqgpu scc: cannot read '$T/nope.paf': No such file or directory"
}

@test "an empty file and a blank file have no records (a warning); binary junk is an input error" {
    : > "$T/empty.fa"
    run seqgpu find -m ACGT "$T/empty.fa"
    assert_success
    assert_output --partial "is empty"
    printf '\n\n' > "$T/blank.fa"
    run seqgpu find -m ACGT "$T/blank.fa"
    assert_success
    head -c 3000 /bin/sh > "$T/junk.fa"
    run seqgpu find -m ACGT "$T/junk.fa"
    assert_failure 1
    assert_output --partial "not FASTA or FASTQ"
}

@test "a truncated gzip file fails and leaves no output file" {
    zcat "$LAMBDA" | gzip -c | head -c 9000 > "$T/cut.fa.gz"
    run seqgpu find -q -m GAATTC -o "$T/out.bed" "$T/cut.fa.gz"
    assert_failure 1
    assert_output --partial "truncated or corrupt compressed data"
    [ ! -e "$T/out.bed" ]
}

@test "malformed FASTQ names the record" {
    printf '@r1\nACGT\n+\nIIII\n@r2\nACGT\n+\nIII\n' > "$T/bad.fq"
    run seqgpu find -m ACGT "$T/bad.fq"
    assert_failure 1
    assert_output --partial "record 2 ('r2'): quality length 3 differs from sequence length 4"
}

@test "'>' inside a sequence line is an error naming the record" {
    printf '>a\nACGT\n>b x\nACG>TT\n' > "$T/gt.fa"
    run seqgpu find -m ACGT "$T/gt.fa"
    assert_failure 1
    assert_output --partial "record 2 ('b'): invalid character '>'"
}

@test "a full disk is an error, exit 2, and the device stays" {
    [ -c /dev/full ] || skip "/dev/full is not a character device here"
    run seqgpu find -m A "$LAMBDA" -o /dev/full
    assert_failure 2
    assert_output --partial "No space left on device"
    [ -c /dev/full ] || fail "the failed run removed /dev/full"
}

@test "an unwritable output path is an error" {
    run seqgpu find -m A -o /nonexistent/dir/out.bed "$LAMBDA"
    assert_failure 1
    assert_output --partial "cannot open '/nonexistent/dir/out.bed' for writing"
}

@test "a closed pipe ends the run quietly" {
    zcat "$LAMBDA" > "$T/l.fa"
    for i in 1 2 3 4 5 6 7 8; do cat "$T/l.fa"; done > "$T/l8.fa"
    # the status is seqgpu's, not head's: 0, or death by SIGPIPE (141) like any filter
    run bash -c "'$SEQGPU' find -q -m A '$T/l8.fa' 2>'$T/err' | head -1; exit \${PIPESTATUS[0]}"
    [ "$status" -eq 0 ] || [ "$status" -eq 141 ] || fail "seqgpu exited $status"
    assert_output --regexp $'^gi\\|9626243\\|ref\\|NC_001416.1\\|\t'
    [ ! -s "$T/err" ] || fail "stderr: $(cat "$T/err")"
}

@test "BED6: 0-based start, end, name, score 0, strand; palindromes once with '.'" {
    printf '>s1 desc\nacgTACGTnnGAATTCaaa\n>s2\nGGATCC\n' > "$T/t.fa"
    run seqgpu find -q -m ACGTACGT -m GAATTC -m TTGAA "$T/t.fa"
    assert_success
    assert_output "$(printf 's1\t0\t8\tACGTACGT\t0\t.\ns1\t10\t16\tGAATTC\t0\t.\ns1\t13\t18\tTTGAA\t0\t-')"
}

@test "tsv has the seqkit locate columns, 1-based, matched text on the motif's strand" {
    printf '>s1 desc\nacgTACGTnnGAATTCaaa\n' > "$T/t.fa"
    run seqgpu find -q -F tsv -m TTGAA -m GTAC "$T/t.fa"
    assert_success
    assert_line --index 0 "$(printf 'seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched')"
    assert_line --index 1 "$(printf 's1\tGTAC\tGTAC\t.\t3\t6\tgTAC')"
    assert_line --index 2 "$(printf 's1\tTTGAA\tTTGAA\t-\t14\t18\tttGAA')"
}

@test "count lists every record and motif, zeros too" {
    printf '>a\nGAATTCGAATTC\n>b\nTTTT\n>c\n' > "$T/t.fa"
    run seqgpu find -q -F count -m GAATTC -m AAA "$T/t.fa"
    assert_success
    assert_output "$(printf 'seqID\tpatternName\thits\na\tGAATTC\t2\na\tAAA\t0\nb\tGAATTC\t0\nb\tAAA\t2\nc\tGAATTC\t0\nc\tAAA\t0')"
}

@test "count adds up a record cut into many chunks" {
    zcat "$LAMBDA" > "$T/l.fa"
    run seqgpu find -q -F count -m GC -m ATG --chunk-size 1000 "$T/l.fa"
    assert_success
    local want
    want=$(seqgpu find -q -F count -m GC -m ATG "$T/l.fa")
    assert_output "$want"
}

@test "overlapping hits are all reported; order is start, end, strand, motif" {
    printf '>a\nAAAAAA\n' > "$T/a.fa"
    run seqgpu find -q -m AAAA -m AA -m TT "$T/a.fa"
    assert_success
    assert_line --index 0 "$(printf 'a\t0\t2\tAA\t0\t+')"
    assert_line --index 1 "$(printf 'a\t0\t2\tTT\t0\t-')"
    assert_line --index 2 "$(printf 'a\t0\t4\tAAAA\t0\t+')"
    [ "${#lines[@]}" -eq $((5 + 5 + 3)) ]
}

@test "-s + and -s - keep one strand; palindromes stay" {
    printf '>a\nGGTCTCxGAGACCxGAATTC\n' > "$T/a.fa"
    run seqgpu find -q -s + -m GGTCTC -m GAATTC "$T/a.fa"
    assert_success
    assert_output "$(printf 'a\t0\t6\tGGTCTC\t0\t+\na\t14\t20\tGAATTC\t0\t.')"
    run seqgpu find -q -s - -m GGTCTC -m GAATTC "$T/a.fa"
    assert_success
    assert_output "$(printf 'a\t7\t13\tGGTCTC\t0\t-\na\t14\t20\tGAATTC\t0\t.')"
}

@test "matching ignores case unless --skip-masked; N and IUPAC text never match" {
    printf '>a\nacgtNCGTRCGTACGT\n' > "$T/a.fa"
    run seqgpu find -q -s + -m NCGT "$T/a.fa"
    assert_success
    assert_output "$(printf 'a\t0\t4\tNCGT\t0\t+\na\t12\t16\tNCGT\t0\t+')"
    run seqgpu find -q -s + --skip-masked -m NCGT "$T/a.fa"
    assert_success
    assert_output "$(printf 'a\t12\t16\tNCGT\t0\t+')"
}

@test "motif files: names from tab lines and FASTA headers" {
    printf '# sites\nEcoRI\tGAATTC\nGGATCC\n' > "$T/m.tsv"
    printf '>bam first\nGGAT\nCC\n' > "$T/m.fa"
    printf '>x\nGAATTCGGATCC\n' > "$T/x.fa"
    run seqgpu find -q -f "$T/m.tsv" "$T/x.fa"
    assert_success
    assert_output "$(printf 'x\t0\t6\tEcoRI\t0\t.\nx\t6\t12\tGGATCC\t0\t.')"
    run seqgpu find -q -f "$T/m.fa" "$T/x.fa"
    assert_success
    assert_output "$(printf 'x\t6\t12\tbam\t0\t.')"
}

@test "standard input, gzip, BGZF and several inputs in order" {
    zcat "$LAMBDA" > "$T/l.fa"
    bgzip -c "$T/l.fa" > "$T/l.fa.bgz"
    local want
    want=$(seqgpu find -q -m GGATCC "$T/l.fa")
    run bash -c "zcat '$LAMBDA' | '$SEQGPU' find -q -m GGATCC -"
    assert_success
    assert_output "$want"
    run seqgpu find -q -m GGATCC "$LAMBDA"
    assert_success
    assert_output "$want"
    run seqgpu find -q -t 3 -m GGATCC "$T/l.fa.bgz"
    assert_success
    assert_output "$want"
    run bash -c "'$SEQGPU' find -q -m GGATCC '$T/l.fa' - '$LAMBDA' < '$T/l.fa.bgz'"
    assert_success
    assert_output "$(printf '%s\n%s\n%s' "$want" "$want" "$want")"
}

@test "FASTQ reads are records" {
    printf '@r1 x\nACGTGAATTC\n+\nIIIIIIIIII\n@r2\nGGG\n+\nIII\n@r3\nGAATTCAAAAAA\n+\nIIIIIIIIIIII\n' > "$T/r.fq"
    run seqgpu find -q -m GAATTC "$T/r.fq"
    assert_success
    assert_output "$(printf 'r1\t4\t10\tGAATTC\t0\t.\nr3\t0\t6\tGAATTC\t0\t.')"
}

@test "CRLF line ends, empty records, no final newline" {
    printf '>a\r\nGAAT\r\nTC\r\n>e\r\n>b\r\nGAATTC' > "$T/crlf.fa"
    run seqgpu find -q -m GAATTC -F count "$T/crlf.fa"
    assert_success
    assert_output "$(printf 'seqID\tpatternName\thits\na\tGAATTC\t1\ne\tGAATTC\t0\nb\tGAATTC\t1')"
}

@test "a motif longer than every record finds nothing, exit 0" {
    printf '>a\nACGT\n' > "$T/a.fa"
    run seqgpu find -q -m ACGTACGTAC "$T/a.fa"
    assert_success
    assert_output ""
}

@test "--stats writes a JSON summary that agrees with the output" {
    run seqgpu find -q -b cpu -f "$ROOT/examples/enzymes.tsv" --stats "$T/s.json" -o "$T/out.bed" "$LAMBDA"
    assert_success
    run python3 -c "
import json,sys
s=json.load(open('$T/s.json'))
n=sum(1 for _ in open('$T/out.bed'))
assert s['hits']==n==sum(m['hits'] for m in s['motifs']), (s['hits'],n)
assert s['bases']==48502 and s['records']==1 and s['backend']=='cpu'
assert set(s['stage_seconds'])=={'read','parse','chunk','scan','write'}
print('ok')"
    assert_output "ok"
}

@test "the same bytes from every thread count, kernel and chunk size" {
    zcat "$LAMBDA" > "$T/l.fa"
    seqgpu find -q -t 1 -f "$ROOT/examples/enzymes.tsv" "$T/l.fa" > "$T/want"
    for t in 2 3 8; do
        for k in auto sunday vector qgram; do
            for c in 1 100 4096 1M; do
                seqgpu find -q -t $t --kernel $k --chunk-size $c -f "$ROOT/examples/enzymes.tsv" "$T/l.fa" > "$T/got" ||
                    fail "-t $t --kernel $k --chunk-size $c failed"
                cmp -s "$T/want" "$T/got" || fail "-t $t --kernel $k --chunk-size $c differs"
            done
        done
    done
}

@test "--backend cuda without a usable GPU fails clearly; auto falls back to cpu" {
    backend_absent cuda >/dev/null || skip "a CUDA device is here (find_gpu.bats tests -b cuda)"
    run seqgpu find -b cuda -m GAATTC "$LAMBDA"
    assert_failure
    assert_output --regexp "cuda"
    run seqgpu find -m GAATTC "$LAMBDA"
    assert_success
}
