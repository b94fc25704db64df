# Shared setup for the bats suites.
bats_load_library bats-support
bats_load_library bats-assert

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
SEQGPU=${SEQGPU:-$ROOT/bin/seqgpu}
BUILD_DIR=${BUILD:-build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
# Debian's python3 (with python3-scipy) rather than another on the PATH
if [ -x /usr/bin/python3 ]; then python3() { /usr/bin/python3 "$@"; }; fi
REF="python3 $ROOT/tests/reference.py"
LAMBDA=$ROOT/examples/lambda_virus.fa.gz

seqgpu() { "$SEQGPU" "$@"; }

setup() {
    T=$BATS_TEST_TMPDIR
    skip_if_file_skipped
}

# skip_file REASON, in setup_file: every test of the file is skipped for
# REASON. (Debian 12's bats 1.8 fails a file whose setup_file calls skip.)
skip_file() { export SEQGPU_SKIP_FILE="$1"; }
skip_if_file_skipped() { [ -z "${SEQGPU_SKIP_FILE:-}" ] || skip "$SEQGPU_SKIP_FILE"; }

# need TOOL...: programs the test needs (make test-deps installs them all).
# A missing one fails the test: a suite that cannot check is not a pass.
need() {
    for t in "$@"; do
        command -v "$t" >/dev/null || fail "$t is not installed (make test-deps installs it)"
    done
}

# Backends. SEQGPU_REQUIRE (e.g. "cuda,opencl") names those that must work
# on this machine: .ci/run requires opencl (PoCL), the GPU machine both.
backend_required() {
    case ",${SEQGPU_REQUIRE:-}," in *",$1,"*) return 0 ;; esac
    return 1
}

# backend_absent NAME: prints why backend NAME cannot run here (not built
# in, or no device or platform on this machine), judged without running it;
# false when it is there.
backend_absent() {
    case ",$("$SEQGPU" version | sed -n 's/^backends: //p' | tr -d ' ')," in
        *",$1,"*) ;;
        *) echo "this seqgpu was built without $1" && return 0 ;;
    esac
    case $1 in
        cuda) { ls /dev/nvidia[0-9]* || nvidia-smi -L | grep -q '^GPU'; } >/dev/null 2>&1 ||
            { echo "no NVIDIA GPU here (no /dev/nvidia*, none in nvidia-smi -L)" && return 0; } ;;
        opencl) ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1 || { echo "no OpenCL platform here (no ICD in /etc/OpenCL/vendors)" && return 0; } ;;
    esac
    return 1
}

# use_backend NAME, in setup(): the tests need backend NAME. They run when it
# starts. They are skipped, with the reason, only when it is absent and not
# required; a required backend that is absent, and a backend that is there
# but does not start (a kernel that does not build, a broken driver), fail.
use_backend() {
    local why
    if why=$(backend_absent "$1"); then
        if backend_required "$1"; then fail "SEQGPU_REQUIRE names $1, but $why"; fi
        skip "$1: $why"
    fi
    printf '>a\nACGT\n' > "$BATS_TEST_TMPDIR/probe.fa"
    if ! why=$("$SEQGPU" find -q -b "$1" -m ACGT "$BATS_TEST_TMPDIR/probe.fa" 2>&1 >/dev/null); then
        fail "the $1 backend is there but does not start: $why"
    fi
}

# gpu_backends: the GPU backends that are here (one that SEQGPU_REQUIRE names and is absent fails)
gpu_backends() {
    local be why
    for be in cuda opencl; do
        if why=$(backend_absent $be); then
            backend_required $be && fail "SEQGPU_REQUIRE names $be, but $why"
            continue
        fi
        echo $be
    done
}

# same_as_cpu BACKEND MOTIFS INPUT [options...]: BACKEND's output equals the cpu backend's
same_as_cpu() {
    local be=$1 motifs=$2 input=$3
    shift 3
    seqgpu find -q -b cpu -f "$motifs" "$@" "$input" > "$T/cpu" || fail "cpu run failed"
    seqgpu find -q -b "$be" -f "$motifs" "$@" "$input" > "$T/$be" || fail "$be run failed: $*"
    cmp -s "$T/cpu" "$T/$be" || { diff "$T/cpu" "$T/$be" | head; fail "$be differs from cpu: $*"; }
}

# pieces_same_as_cpu BACKEND: with find's bounds on hits and text lowered
# (SEQGPU_FIND_HITS, SEQGPU_FIND_TEXT), so that dense chunks are scanned
# and written in pieces, BACKEND's bytes are the cpu's, and those of one
# piece a chunk
pieces_same_as_cpu() {
    local be=$1 lim
    $REF gen --seed 21 --records 8 --max-len 20000 > "$T/g.fa"
    printf 'ry\tRY\nn4\tNNNN\naa\tAA\neco\tGAATTC\n' > "$T/m.tsv"
    printf 'ry\tRYRY\nn4\tNNNN\naa\tAAAA\nga\tGAAT\n' > "$T/p.tsv" # next to a PAM: one length
    for lim in 7,100 1000,100000; do
        export SEQGPU_FIND_HITS=${lim%%,*} SEQGPU_FIND_TEXT=${lim#*,}
        same_as_cpu "$be" "$T/m.tsv" "$T/g.fa"
        same_as_cpu "$be" "$T/m.tsv" "$T/g.fa" -F count --chunk-size 3000
        same_as_cpu "$be" "$T/p.tsv" "$T/g.fa" -F tsv -M 1 --pam NGG
        same_as_cpu "$be" "$T/p.tsv" "$T/g.fa" -F casoffinder3 -M 1 --pam NGG --dna-bulge 1 --rna-bulge 1
    done
    unset SEQGPU_FIND_HITS SEQGPU_FIND_TEXT
    seqgpu find -q -b cpu -F casoffinder3 -M 1 --pam NGG --dna-bulge 1 --rna-bulge 1 -f "$T/p.tsv" "$T/g.fa" |
        cmp -s - "$T/$be" ||
        fail "in pieces, the output differs from one piece a chunk"
}

# reference_check BACKEND KERNEL...: BACKEND under each kernel gives the bytes
# of the brute-force reference (tests/reference.py, which shares no code with
# seqgpu) on a genome dense with planted sites: palindromes (strand '.'),
# IUPAC motifs, hits on both strands and in lowercase, and chunk sizes that
# put hits across every kind of chunk seam; then -s + and -s - alone.
reference_check() {
    local be=$1 k c s want
    shift
    printf 'eco\tGAATTC\nsau\tCCWGG\nbsa\tGGTCTC\niupac\tTTRNCAA\nlong\tACGTTGCAGGATCCAAGTC\nry\tRY\nacg\tACG\n' > "$T/m.tsv"
    $REF gen --seed 17 --records 9 --max-len 3000 --lower 0.3 --plant-rate 0.01 \
        --plant GAATTC,CCAGG,CCTGG,GGTCTC,TTGACAA,TTATTAA,ACGTTGCAGGATCCAAGTC > "$T/g.fa"
    for s in both + -; do $REF find -s "$s" "$T/m.tsv" "$T/g.fa" > "$T/want$s"; done
    # the reference sees every kind of hit, so the comparisons below can fail
    for want in "eco ." "sau ." "ry ." "bsa +" "bsa -" "iupac +" "iupac -" "long +" "long -"; do
        awk -F'\t' -v want="$want" '$4 " " $6 == want {f = 1} END {exit !f}' "$T/wantboth" ||
            fail "the test genome has no hit of $want"
    done
    for k in "$@"; do
        for c in 1 2 3 5 8 13 21 34 55 89 144 377 1000 64M; do
            seqgpu find -q -b "$be" --kernel "$k" --chunk-size "$c" -f "$T/m.tsv" "$T/g.fa" > "$T/got" ||
                fail "$be --kernel $k --chunk-size $c failed"
            cmp -s "$T/wantboth" "$T/got" ||
                { diff "$T/wantboth" "$T/got" | head; fail "$be --kernel $k --chunk-size $c differs from the reference"; }
        done
        for s in + -; do
            for c in 7 64M; do
                seqgpu find -q -b "$be" --kernel "$k" --chunk-size "$c" -s "$s" -f "$T/m.tsv" "$T/g.fa" > "$T/got" ||
                    fail "$be --kernel $k -s $s failed"
                cmp -s "$T/want$s" "$T/got" ||
                    { diff "$T/want$s" "$T/got" | head; fail "$be --kernel $k --chunk-size $c -s $s differs from the reference"; }
            done
        done
    done
}

# options_documented CMD: every long option of 'seqgpu CMD -h' is in man/seqgpu-CMD.1 and README.md
options_documented() {
    local help
    help=$(seqgpu "$1" -h) || fail "seqgpu $1 -h failed"
    for opt in $(echo "$help" | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
        grep -q -- "$(echo "$opt" | sed 's/-/\\\\-/g')" "$ROOT/man/seqgpu-$1.1" || fail "$opt missing from man/seqgpu-$1.1"
        grep -q -- "$opt" "$ROOT/README.md" || fail "$opt missing from README.md"
    done
}
