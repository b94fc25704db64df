# Sourced by the bench scripts: timing and counting helpers.
# Needs BENCH_DIR (absolute or relative to where the command runs) and REPEATS.

TIME=/usr/bin/time
[ -x $TIME ] || { echo "bench: GNU time (/usr/bin/time) is needed: apt-get install time" >&2; exit 1; }

# run NAME CMD...: "median_seconds peak_rss_mb" over REPEATS runs, timed with
# a nanosecond clock (GNU time gives the peak RSS); the command's stdout and
# stderr go to $BENCH_DIR/NAME.out and NAME.err.
run() {
    name=$1; shift
    : > "$BENCH_DIR/$name.times"
    i=0
    while [ $i -lt "$REPEATS" ]; do
        t0=$(date +%s%N)
        $TIME -f '%M' -o "$BENCH_DIR/$name.rss" "$@" > "$BENCH_DIR/$name.out" 2> "$BENCH_DIR/$name.err" ||
            echo "# $name failed: $(tail -2 "$BENCH_DIR/$name.err")" >&2
        t1=$(date +%s%N)
        echo "$(( (t1 - t0) / 1000 )) $(tail -1 "$BENCH_DIR/$name.rss")" >> "$BENCH_DIR/$name.times"
        i=$((i + 1))
    done
    sort -n "$BENCH_DIR/$name.times" | awk '{t[NR]=$1; if ($2>m) m=$2} END {printf "%.3f %.0f\n", t[int((NR+1)/2)]/1e6, m/1024}'
}

# hits in a BED file, counting a palindrome that seqkit reports on + and - once
hits() { awk -F'\t' '{k=$1 FS $2 FS $3 FS $4; if (!(k in s)) n++; s[k]=1} END {print n+0}' "$1"; }

# ratio A B: A / B with one decimal ("-" when either was not run)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-" || b == "-") print "-"; else printf "%.1f", (b > 0 ? a / b : 0)}'; }

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
