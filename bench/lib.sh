# Sourced by the bench scripts: timing and counting helpers.
# Needs BENCH_DIR (absolute or relative to where the command runs) and REPEATS.

TIME=/usr/bin/time
[ -x $TIME ] || { echo "bench: GNU time (/usr/bin/time) is needed: apt-get install time" >&2; exit 1; }

# run NAME CMD...: "median_seconds peak_rss_mb" over REPEATS runs, timed with
# a nanosecond clock (GNU time gives the peak RSS); the command's stdout and
# stderr go to $BENCH_DIR/NAME.out and NAME.err, and a run that fails leaves
# $BENCH_DIR/NAME.failed.
run() {
    name=$1; shift
    : > "$BENCH_DIR/$name.times"
    i=0
    while [ $i -lt "$REPEATS" ]; do
        t0=$(date +%s%N)
        $TIME -f '%M' -o "$BENCH_DIR/$name.rss" "$@" > "$BENCH_DIR/$name.out" 2> "$BENCH_DIR/$name.err" ||
            { echo "# $name failed: $(tail -2 "$BENCH_DIR/$name.err")" >&2; : > "$BENCH_DIR/$name.failed"; }
        t1=$(date +%s%N)
        echo "$(( (t1 - t0) / 1000 )) $(tail -1 "$BENCH_DIR/$name.rss")" >> "$BENCH_DIR/$name.times"
        i=$((i + 1))
    done
    sort -n "$BENCH_DIR/$name.times" | awk '{t[NR]=$1; if ($2>m) m=$2} END {printf "%.3f %.0f\n", t[int((NR+1)/2)]/1e6, m/1024}'
}

# hits in a BED file, counting a palindrome that seqkit reports on + and - once
hits() { awk -F'\t' '{k=$1 FS $2 FS $3 FS $4; if (!(k in s)) n++; s[k]=1} END {print n+0}' "$1"; }

# ratio A B [DIGITS]: A / B with one decimal, or DIGITS ("-" when either was not run)
ratio() { awk -v a="$1" -v b="$2" -v f="%.${3:-1}f" 'BEGIN {if (a == "-" || b == "-") print "-"; else printf f, (b > 0 ? a / b : 0)}'; }

# Auto against the backends, one row per case, for the summary table each
# GPU bench ends with:
#   auto_header BACKENDS...: the table's head ("cpu cuda" ...)
#   auto_row CASE "CHOICE" AUTO_SECONDS SECONDS...: a case's row, the
#   backends' seconds in the head's order ("-": not run); CHOICE is auto's
#   reason, whose first word after "auto: " is the backend it took
auto_header() {
    AUTO_BACKENDS="$*"
    printf '\n| case |'; for b in "$@"; do printf ' %s (s) |' "$b"; done
    printf ' auto (s) | auto chose | fastest | auto / fastest |\n|---|'; for b in "$@"; do printf -- '---|'; done
    printf -- '---|---|---|---|\n'
}
auto_row() {
    c=$1 choice=$2 auto=$3; shift 3
    best="" fastest="" i=0
    printf '| %s |' "$c"
    for t in "$@"; do
        i=$((i + 1))
        printf ' %s |' "$t"
        if [ -n "$t" ] && [ "$t" != - ] && { [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN {exit !(a < b)}'; }; then
            best=$t fastest=$(echo "$AUTO_BACKENDS" | cut -d' ' -f$i)
        fi
    done
    within=$(awk -v a="$auto" -v b="$best" 'BEGIN {printf "%.2f%s", a / b, (a <= 1.1 * b ? "" : " (over 1.1)")}')
    printf ' %s | %s | %s | %s |\n' "$auto" "$(echo "$choice" | sed -n 's/^auto: \([a-z]*\).*/\1/p')" "$fastest" "$within"
}

# The CUDA devices a run here sees: nvidia-smi's GPUs, no more than
# CUDA_VISIBLE_DEVICES lists when it is set (0 without a driver).
gpus() {
    gpus_n=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU' || true)
    if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
        gpus_v=$(printf '%s\n' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c . || true)
        [ "$gpus_v" -ge "$gpus_n" ] || gpus_n=$gpus_v
    fi
    echo "$gpus_n"
}

# need_gpus N: exit 1, saying why, unless N or more CUDA devices are visible
# and $SEQGPU has the cuda backend.
need_gpus() {
    need_have=$(gpus)
    if [ "$need_have" -lt "$1" ]; then
        echo "$(basename "$0"): needs $1 or more CUDA devices, this machine has $need_have" \
            "(nvidia-smi -L${CUDA_VISIBLE_DEVICES+, CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES}): nothing run" >&2
        exit 1
    fi
    [ -x "$SEQGPU" ] || { echo "$(basename "$0"): no $SEQGPU: build it first (make): nothing run" >&2; exit 1; }
    "$SEQGPU" version 2> /dev/null | grep -q '^backends:.*cuda' ||
        { echo "$(basename "$0"): $SEQGPU has no cuda backend (build it where nvcc is on the PATH): nothing run" >&2; exit 1; }
}

# device_list_ok LIST: this seqgpu takes --device LIST (all is newer than
# lists of indices); both commands parse it with one function.
device_list_ok() { printf '>a\nACGT\n' | "$SEQGPU" find -q -b cpu --device "$1" -m ACGT - > /dev/null 2>&1; }

# amdahl T1 P N: the most N devices can gain over one, T1 / (T1 - P + P / N),
# where P of the one device's T1 seconds is device work that divides (at
# most T1: device seconds summed over streams can add up to more).
amdahl() {
    awk -v t="$1" -v p="$2" -v n="$3" 'BEGIN {if (t == "-" || p == "-" || n < 1 || t <= 0) {print "-"; exit}
        if (p > t) p = t; printf "%.2f", t / (t - p + p / n)}'
}

# The random 20-nt guides of the off-target benches, "gI<TAB>SEQ", the same
# for a given count: guides N prints the file's name (made if missing).
guides() {
    [ -s "$BENCH_DIR/guides_$1.tsv" ] || awk -v n="$1" 'BEGIN { srand(n); for (i = 0; i < n; i++) { s = ""; for (j = 0; j < 20; j++)
        s = s substr("ACGT", int(rand() * 4) + 1, 1); printf "g%d\t%s\n", i, s } }' > "$BENCH_DIR/guides_$1.tsv"
    echo "$BENCH_DIR/guides_$1.tsv"
}

# casoff_input FILE GENOME_DIR N M DB RB: a Cas-OFFinder input searching
# GENOME_DIR for guides N + NGG at <= M mismatches, with DB/RB bulges (0 0:
# Cas-OFFinder 2.4's form, without the bulge fields).
casoff_input() {
    casoff_g=$(guides "$3")
    { echo "$2"; echo "NNNNNNNNNNNNNNNNNNNNNGG$([ "$5$6" = 00 ] || echo " $5 $6")"
      awk -F'\t' -v m="$4" '{print $2 "NNN " m " " $1}' "$casoff_g"; } > "$1"
}
