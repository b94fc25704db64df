#!/usr/bin/env bats
# What users of samtools and seqkit expect: stdin read when no input is
# named, a one-line usage error with a hint, every environment variable in a
# man page, versions of what was found, and no noise where nothing is wrong.

load test_helper

@test "scc reads standard input when no input is named" {
    seqgpu scc -q -k 11 -c 3 -p "$T/file" "$ROOT/examples/tandem_reads.fq.gz"
    seqgpu scc -q -k 11 -c 3 -p "$T/stdin" < "$ROOT/examples/tandem_reads.fq.gz"
    for s in repeats.tsv gfa units.fa components.tsv; do
        cmp "$T/file.$s" "$T/stdin.$s" || fail "$s differs"
    done
    [ "$(wc -l < "$T/stdin.repeats.tsv")" -gt 1 ]
}

@test "find reads standard input when no input is named, gzip included" {
    seqgpu find -q -m CCWGG "$LAMBDA" > "$T/file.bed"
    seqgpu find -q -m CCWGG < "$LAMBDA" > "$T/stdin.bed"
    cmp "$T/file.bed" "$T/stdin.bed"
    [ -s "$T/stdin.bed" ]
}

@test "usage errors: one line and a hint, exit 1, for find, scc and seqgpu" {
    check() { # CMD-for-the-hint ARGS...
        local cmd=$1
        shift
        run seqgpu "$@"
        assert_failure 1
        [ "${#lines[@]}" -eq 2 ] || fail "$*: ${#lines[@]} lines: $output"
        assert_line --index 1 "try '$cmd -h' for the options"
    }
    check "seqgpu find" find -m ACGT -t 0 "$LAMBDA"
    check "seqgpu find" find -m ACGT --frob "$LAMBDA"
    check "seqgpu find" find -m ACGT -o
    check "seqgpu find" find "$LAMBDA"
    check "seqgpu scc" scc -k 30 "$LAMBDA"
    check "seqgpu scc" scc --kw 3 "$LAMBDA"
    check "seqgpu scc" scc --edges a b
    run seqgpu frob
    assert_failure 1
    assert_line --index 1 "try 'seqgpu -h' for the commands"
}

@test "every environment variable the code reads is in a man page's ENVIRONMENT section" {
    names=$(grep -rhoE 'getenv\("[A-Z_]+"\)' "$ROOT/src" "$ROOT/formats" "$ROOT/cuda" "$ROOT/opencl" | sed 's/getenv("\(.*\)")/\1/' | sort -u)
    [ -n "$names" ]
    for f in "$ROOT"/man/*.1; do sed -n '/^\.SH ENVIRONMENT/,/^\.SH [^E]/p' "$f"; done > "$T/env"
    for n in $names; do
        grep -q "^\.B $n$" "$T/env" || fail "$n is read (getenv) but in no ENVIRONMENT section"
    done
    # scc's own section names what scc reads
    sed -n '/^\.SH ENVIRONMENT/,/^\.SH [^E]/p' "$ROOT/man/seqgpu-scc.1" > "$T/scc_env"
    grep -q '^\.B SEQGPU_CUDA_KMER_BATCH$' "$T/scc_env"
    grep -q '^\.B CUDA_VISIBLE_DEVICES$' "$T/scc_env"
}

@test "seqgpu version names the CUDA runtime and the driver found, with cuda built in" {
    run seqgpu version
    assert_success
    if ! echo "$output" | grep -q '^backends: .*cuda'; then
        refute_line --partial "cuda:"
        skip "built without cuda"
    fi
    assert_line --regexp '^cuda: runtime [0-9]+\.[0-9]+ \(static\), driver ([0-9]+\.[0-9]+|none found)$'
    if ! backend_absent cuda > /dev/null; then
        assert_line --regexp '^cuda: .*driver [0-9]+\.[0-9]+$'
    fi
}

@test "scc -b auto on a large graph without a GPU: no warning; -v and --stats say why" {
    backend_absent cuda > /dev/null || skip "a CUDA device is here: auto uses it"
    # a cycle of 1.1M vertices: large enough for auto to want a GPU
    awk 'BEGIN { n = 1100000; for (i = 0; i < n; i++) print i "\t" (i + 1) % n }' > "$T/cycle.tsv"
    run seqgpu scc --edges "$T/cycle.tsv" -p "$T/c" --stats "$T/c.json"
    assert_success
    refute_output --partial "warning"
    refute_output --partial "cuda"
    run grep -E '"backend_choice": "auto: cpu \((no CUDA device|built without cuda)\)"' "$T/c.json"
    assert_success
    run seqgpu scc -v --edges "$T/cycle.tsv" -p "$T/c"
    assert_success
    assert_line --regexp '^\[seqgpu scc\] SCCs: auto: cpu \((no CUDA device|built without cuda)\)$'
    # asked for by name, a missing GPU is an error
    if seqgpu version | grep -q '^backends: .*cuda'; then
        run seqgpu scc -b cuda --edges "$T/cycle.tsv" -p "$T/c"
        assert_failure 3
    fi
}

@test "--version and -V: one line from seqgpu and from every command, exit 0" {
    want=$(seqgpu --version)
    [[ $want =~ ^seqgpu\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "seqgpu --version: $want"
    for args in "-V" "find --version" "find -V" "scc --version" "scc -V" "find -m ACGT --version"; do
        run seqgpu $args
        assert_success
        assert_output "$want"
    done
}

@test "the exit codes are worded once: seqgpu -h, find -h, scc -h, the man pages and the README say the same" {
    want='Exit status: 0 success, 1 usage or input error, 2 output or internal error, 3 a GPU backend that was asked for failed.'
    for cmd in "" find scc; do
        run seqgpu $cmd -h
        assert_success
        assert_line "$want"
    done
    grep -qxF "$want" "$ROOT/README.md" || fail "README.md words the exit codes otherwise"
    for m in seqgpu seqgpu-find seqgpu-scc; do
        # the sentence after .SH EXIT STATUS, as man prints it
        got=$(sed -n '/^\.SH EXIT STATUS/{n;p;}' "$ROOT/man/$m.1")
        assert_equal "Exit status: $got" "$want"
    done
}

@test "find -h, scc -h, the man pages' options and the README's option blocks name the same long options" {
    for cmd in find scc; do
        seqgpu $cmd -h > "$T/$cmd.h"
        run python3 - "$T/$cmd.h" "$ROOT/man/seqgpu-$cmd.1" "$ROOT/README.md" "$cmd" <<'PY'
import re, sys
help_, man, readme, cmd = open(sys.argv[1]).read(), open(sys.argv[2]).read(), open(sys.argv[3]).read(), sys.argv[4]
opt = r'--([a-z][a-z0-9-]*[a-z0-9])'
h = set(re.findall(opt, help_))
# the man page: every option its text names (roff spells - as \-)
m = set(re.findall(opt, man.replace('\\-', '-')))
# the README: the option block under "## seqgpu CMD"
r = set(re.findall(opt, readme.split('## seqgpu ' + cmd)[1].split('```')[1]))
for name, got in ('man page', m), ('README block', r):
    for o in sorted(h - got): print(f'{cmd} -h has --{o}, the {name} not')
for o in sorted(r - h): print(f'the README block has --{o}, {cmd} -h not')
PY
        assert_success
        assert_output ""
    done
}

@test "the man pages render without a warning (a text line starting with . or ' is a request: its words vanish)" {
    need groff
    for m in "$ROOT"/man/*.1; do
        run groff -man -ww -z "$m"
        assert_output ""
    done
}

@test "the README's quick start and make demo run as written" {
    mkdir "$T/qs" && ln -s "$ROOT/examples" "$T/qs/examples"
    sed -n '/^## Quick start/,/^## /p' "$ROOT/README.md" | grep '^seqgpu ' | sed 's/ *#.*//' > "$T/qs.sh"
    [ "$(wc -l < "$T/qs.sh")" -ge 2 ] || fail "no quick start commands"
    run bash -c "cd '$T/qs' && PATH='$(dirname "$SEQGPU")':\$PATH && set -e && . '$T/qs.sh'"
    assert_success
    [ -s "$T/qs/sites.bed" ] && [ -s "$T/qs/tandem.repeats.tsv" ] || fail "the quick start wrote nothing: $(ls "$T/qs")"
    run env SEQGPU="$SEQGPU" DEMO_OUT="$T/demo" sh "$ROOT/examples/demo.sh"
    assert_success
    assert_output --partial "4 repeats (4 tandem)"
    assert_output --partial "repeat1	tandem	1	171	171"
}

@test "threads: the CPUs the process may use by default (affinity, and a cgroup's CPU quota)" {
    need taskset
    taskset -c 0 "$SEQGPU" find -q -m GAATTC --stats "$T/one.json" -o /dev/null "$LAMBDA"
    grep -q '"threads": 1,' "$T/one.json" || fail "one CPU allowed: $(grep threads "$T/one.json")"
    seqgpu find -q -m GAATTC --stats "$T/all.json" -o /dev/null "$LAMBDA"
    # affinity alone, as nproc counts (no quota on a CI machine)
    grep -q "\"threads\": $(nproc)," "$T/all.json" || fail "nproc $(nproc): $(grep threads "$T/all.json")"
    # a real CPU quota of one CPU, where this machine lets the tests make a cgroup
    # (as root, cgroup v1's cpu controller or v2's); the fake trees are in unit_cli
    local cg quota
    if [ -w /sys/fs/cgroup/cpu/cgroup.procs ] && [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
        cg=/sys/fs/cgroup/cpu/seqgpu-test-$$ quota=cpu.cfs_quota_us
    elif [ -w /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control; then
        cg=/sys/fs/cgroup/seqgpu-test-$$ quota=cpu.max
    else
        skip "no cgroup this test may create (not root, or no cpu controller)"
    fi
    mkdir "$cg"
    if [ $quota = cpu.max ]; then echo "100000 100000" > "$cg/cpu.max"; else echo 100000 > "$cg/$quota"; fi
    sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" find -q -m GAATTC --stats "$3" -o /dev/null "$4"' \
        sh "$cg" "$SEQGPU" "$T/quota.json" "$LAMBDA"
    rmdir "$cg"
    grep -q '"threads": 1,' "$T/quota.json" || fail "a quota of one CPU: $(grep threads "$T/quota.json")"
}

@test "find --write-index is --index, as samtools and bcftools spell it" {
    need tabix
    seqgpu find -q -m GAATTC -o "$T/a.bed.gz" --index "$LAMBDA"
    seqgpu find -q -m GAATTC -o "$T/b.bed.gz" --write-index "$LAMBDA"
    cmp "$T/a.bed.gz" "$T/b.bed.gz"
    cmp "$T/a.bed.gz.tbi" "$T/b.bed.gz.tbi"
}

@test "find -F count --by-file: a row per input file and motif, the sums of its records' rows" {
    reads=$ROOT/examples/lambda_reads.fq.gz
    run seqgpu find -q -F count --by-file -m GAATTC -m GGTCTC "$LAMBDA" "$reads"
    assert_success
    assert_line --index 0 "$(printf 'file\tpatternName\thits')"
    [ "${#lines[@]}" -eq 5 ] || fail "$output"
    for f in "$LAMBDA" "$reads"; do
        for m in GAATTC GGTCTC; do
            want=$(seqgpu find -q -F count -m GAATTC -m GGTCTC "$f" | awk -F'\t' -v m=$m 'NR > 1 && $2 == m {s += $3} END {print s + 0}')
            assert_line "$(printf '%s\t%s\t%s' "$f" $m "$want")"
        done
    done
    # standard input is "-"; the same counts from every thread count and chunk size
    run seqgpu find -q -F count --by-file -m GAATTC -t 1 --chunk-size 4k < "$reads"
    assert_line --index 1 "$(printf -- '-\tGAATTC\t%s' "$(seqgpu find -q -m GAATTC "$reads" | wc -l)")"
    run seqgpu find -q --by-file -m GAATTC "$LAMBDA"
    assert_failure 1
    assert_output --partial "--by-file goes with -F count"
}

@test "layers: formats/ includes no pipeline header, src/ holds only main.c and the registry at its top" {
    run grep -rlE '#[[:space:]]*include[[:space:]]*"(find|scc|registry)' "$ROOT/formats"
    assert_output ""
    run sh -c 'cd "$1/src" && ls *.c' sh "$ROOT"
    assert_output "$(printf 'main.c\nregistry.c')"
}

@test "layers: no include runs up a layer or across to the other pipeline (tests/layers.sh); a planted one is caught" {
    run sh "$ROOT/tests/layers.sh"
    assert_success
    assert_output ""
    mkdir "$T/tree" && (cd "$ROOT" && cp -r src formats cuda opencl "$T/tree")
    plant() { # FILE INCLUDE: what layers.sh must say of it
        sed -i "1i #include \"$2\"" "$T/tree/$1"
        run sh "$ROOT/tests/layers.sh" "$T/tree"
        assert_failure 1
        assert_line --partial "$1"
        sed -i 1d "$T/tree/$1"
    }
    plant formats/json.c find/motif.h       # a format of a pipeline's type
    plant src/core/log.c formats/outfile.h  # core above formats
    plant src/find/hits.c scc/graph.h       # across the pipelines
    plant src/scc/graph.c scc/dbg/kmers.h   # scc's shared pieces under dbg/
    plant cuda/runtime/util.c find/hits.h   # the runtime under the pipelines
    plant src/find/scan.c registry.h        # a pipeline above the registry
    plant src/scc/tarjan.c ../core/log.h         # a path not from the source root
    run sh "$ROOT/tests/layers.sh" "$T/tree"
    assert_success
    # an exception lets its include through, and is an error once nothing needs it
    sed "s|^EXCEPTIONS='\$|EXCEPTIONS='\nsrc/scc/tarjan.c registry.h|" "$ROOT/tests/layers.sh" > "$T/layers.sh"
    grep -qx 'src/scc/tarjan.c registry.h' "$T/layers.sh" || fail "no exception planted"
    sed -i '1i #include "registry.h"' "$T/tree/src/scc/tarjan.c"
    run sh "$T/layers.sh" "$T/tree"
    assert_success
    sed -i 1d "$T/tree/src/scc/tarjan.c"
    run sh "$T/layers.sh" "$T/tree"
    assert_failure 1
    assert_output --partial "src/scc/tarjan.c registry.h: an exception no longer needed"
}
