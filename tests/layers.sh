#!/bin/sh
# The layers of the source tree (docs/design.md "Layers"), checked over the
# #include lines: each file may include its own layer's headers and those
# of the layers under it, never one above or beside it. Prints each include
# that breaks the rule, and exits 1 when there is one, or when an exception
# below is no longer needed (then it goes from the list).
#   sh tests/layers.sh [ROOT]
# The exceptions, "file include" a line, each until the change that
# removes it (none since auto's fallback left the backends, issue 29 item 3).
EXCEPTIONS='
'
export EXCEPTIONS
cd "${1:-$(dirname "$0")/..}" || exit 2
find src formats cuda opencl -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort |
while read -r f; do
    grep -H '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f"
done | awk -F: '
# the layer of a file, from its path (src/ left off for includes)
function layer(p) {
    sub(/^src\//, "", p)
    if (p ~ /^(main\.c|registry\.[ch]|find\/cli\.c|scc\/cli\.c)$/) return p ~ /registry/ ? "registry" : "command"
    if (p ~ /^core\//) return "core"
    if (p ~ /^formats\//) return "formats"
    if (p ~ /^find\//) return "find"
    if (p ~ /^scc\/dbg\//) return "scc-dbg"
    if (p ~ /^scc\/overlap\//) return "scc-overlap"
    if (p ~ /^scc\//) return "scc"
    if (p ~ /^cuda\/runtime\//) return "cuda-runtime"
    if (p ~ /^cuda\/find\//) return "cuda-find"
    if (p ~ /^cuda\/scc\//) return "cuda-scc"
    if (p ~ /^opencl\/find\//) return "opencl-find"
    return "?"
}
BEGIN {
    # what each layer may include besides itself
    under["core"] = ""
    under["formats"] = "core"
    under["find"] = "core formats"
    under["scc"] = "core formats"
    under["scc-dbg"] = "core formats scc"
    under["scc-overlap"] = "core formats scc"
    under["cuda-runtime"] = "core"
    under["cuda-find"] = "core formats find cuda-runtime"
    under["opencl-find"] = "core formats find"
    under["cuda-scc"] = "core formats scc scc-dbg scc-overlap cuda-runtime"
    under["registry"] = "core formats find scc scc-dbg scc-overlap cuda-runtime cuda-find cuda-scc opencl-find"
    under["command"] = under["registry"] " registry"
    bad = 0
    n = split(ENVIRON["EXCEPTIONS"], ex, "\n")
    for (i = 1; i <= n; i++) if (ex[i] != "") allowed[ex[i]] = 1
}
{
    file = $1
    inc = $0
    sub(/^[^"]*"/, "", inc)
    sub(/".*/, "", inc)
    if (inc == "find_kernels_cl.h") next  # generated in the build folder
    from = layer(file)
    to = layer(inc)
    if (to == "?") { printf "%s: includes \"%s\", which names no layer (name it from the source root)\n", file, inc; bad = 1; next }
    if (from == to) next
    if ((" " under[from] " ") ~ (" " to " ")) next
    if ((file " " inc) in allowed) { used[file " " inc] = 1; next }
    printf "%s (%s) includes \"%s\" (%s): a layer above or beside it\n", file, from, inc, to
    bad = 1
}
END {
    for (e in allowed) if (!(e in used)) { printf "%s: an exception no longer needed: take it from tests/layers.sh\n", e; bad = 1 }
    exit bad
}'
