#!/usr/bin/env python3
"""The layout of issue 29: each file moved to its layer's folder (git mv),
and every path that names it rewritten: the #include lines of the sources
(qualified from the source root: "core/log.h", "formats/seqio.h",
"cuda/runtime/util.h"), the paths in the mutants' patches, the docs, the man
pages, the tests and the scripts.

Idempotent: a file already moved is left where it is, an include already
qualified is left as it is. After a merge whose only conflicts in a source
file are include lines (one side added one at the old place, this layout
rewrote them), it resolves them: both sides' includes, rewritten, once each
(git add the file after). Run it again (from the repository root, on a
clean tree) after merging work that added files or includes at the old
places: a file the map does not name stays put and is reported, with any
include that names no file; add a line to MOVES for it and run it again.

    python3 tools/relayout.py          # move and rewrite
    python3 tools/relayout.py --check  # only report what is left to do
"""
import os
import re
import subprocess
import sys

# old path -> new path (docs/design.md "Layers" says why each is there)
MOVES = """
src/log.c src/core/log.c
src/stage.c src/core/stage.c
src/stage.h src/core/stage.h
src/log.h src/core/log.h
src/cli.c src/core/cli.c
src/cli.h src/core/cli.h
src/pipeline.c src/core/pipeline.c
src/pipeline.h src/core/pipeline.h
src/chunk.c src/core/chunk.c
src/chunk.h src/core/chunk.h
src/progress.c src/core/progress.c
src/progress.h src/core/progress.h
src/dna.h src/core/dna.h
src/simd.h src/core/simd.h
src/version.h src/core/version.h
src/input.c formats/input.c
src/input.h formats/input.h
src/find.c src/find/cli.c
src/find_align.c src/find/align.c
src/find_align.h src/find/align.h
src/find_backend.h src/find/backend.h
src/find_bulge.h src/find/bulge.h
src/find_casoff.c src/find/casoff.c
src/find_casoff.h src/find/casoff.h
src/find_cpu.c src/find/cpu.c
src/find_hits.c src/find/hits.c
src/find_hits.h src/find/hits.h
src/find_kernels.c src/find/kernels.c
src/find_kernels.h src/find/kernels.h
src/find_mismatch.c src/find/mismatch.c
src/find_mm_cmp.h src/find/mm_cmp.h
src/find_motif.c src/find/motif.c
src/find_motif.h src/find/motif.h
src/find_part.c src/find/part.c
src/find_part.h src/find/part.h
src/find_scan.c src/find/scan.c
src/find_scan.h src/find/scan.h
src/find_score.c src/find/score.c
src/find_score.h src/find/score.h
src/find_vector.h src/find/vector.h
formats/output.c src/find/output.c
formats/output.h src/find/output.h
src/scc.c src/scc/cli.c
src/scc_backend.h src/scc/backend.h
src/scc_graph.c src/scc/graph.c
src/scc_graph.h src/scc/graph.h
src/scc_tarjan.c src/scc/tarjan.c
src/scc_repeats.c src/scc/repeats.c
src/scc_repeats.h src/scc/repeats.h
src/scc_coverage.c src/scc/coverage.c
src/scc_coverage.h src/scc/coverage.h
src/scc_period.c src/scc/period.c
src/scc_period.h src/scc/period.h
src/scc_loci.c src/scc/loci.c
src/scc_loci.h src/scc/loci.h
src/scc_pictures.c src/scc/pictures.c
src/scc_pictures.h src/scc/pictures.h
formats/gfa.c src/scc/gfa.c
formats/gfa.h src/scc/gfa.h
src/scc_kmers.c src/scc/dbg/kmers.c
src/scc_kmers.h src/scc/dbg/kmers.h
src/scc_counts.c src/scc/dbg/counts.c
src/scc_counts.h src/scc/dbg/counts.h
src/scc_dbg.c src/scc/dbg/dbg.c
formats/counts.c src/scc/dbg/counts_file.c
formats/counts.h src/scc/dbg/counts_file.h
src/scc_readset.c src/scc/overlap/readset.c
src/scc_readset.h src/scc/overlap/readset.h
src/scc_minimizer.c src/scc/overlap/minimizer.c
src/scc_minimizer.h src/scc/overlap/minimizer.h
src/scc_overlap.c src/scc/overlap/overlap.c
src/scc_overlap.h src/scc/overlap/overlap.h
src/scc_chain.h src/scc/overlap/chain.h
src/scc_sketch.h src/scc/overlap/sketch.h
formats/paf.c src/scc/overlap/paf.c
formats/paf.h src/scc/overlap/paf.h
cuda/cuda_util.c cuda/runtime/util.c
cuda/cuda_util.h cuda/runtime/util.h
cuda/scc_devmem.cuh cuda/runtime/devmem.cuh
cuda/find_cuda.c cuda/find/backend.c
cuda/find_cuda.h cuda/find/backend.h
cuda/find_kernels.cu cuda/find/kernels.cu
cuda/find_kernels.h cuda/find/kernels.h
cuda/scc_cuda.h cuda/scc/backend.h
cuda/scc_kmers.cu cuda/scc/kmers.cu
cuda/scc_solve.cu cuda/scc/solve.cu
cuda/scc_sketch.cu cuda/scc/sketch.cu
cuda/scc_chain.cu cuda/scc/chain.cu
cuda/scc_chain.cuh cuda/scc/chain.cuh
opencl/find_opencl.c opencl/find/backend.c
opencl/find_opencl.h opencl/find/backend.h
opencl/find_kernels.cl opencl/find/kernels.cl
src/backend.c src/registry.c
src/backend.h src/registry.h
"""
MOVE = dict(line.split() for line in MOVES.strip().splitlines())
BACK = {new: old for old, new in MOVE.items()}

# where the sources are, and where the texts that name them are
SOURCE = re.compile(r"^(src|formats|cuda|opencl|tests|bench)/.*\.(c|h|cu|cuh)$")
TEXT = re.compile(r"^(docs/.*\.md|man/.*\.1|README\.md|tests/.*\.(bats|sh|py|patch|bash)|bench/[^/]*\.(sh|py|md)"
                  r"|opencl/.*\.cl|conda/.*|\.ci/.*|examples/.*\.(sh|md|nf|config))$")
INCLUDE = re.compile(r'^(\s*#\s*include\s+")([^"]+)(")', re.M)


def qualified(path):
    """An include of path under the rule: from the source root (src/ left off)."""
    return path[4:] if path.startswith("src/") else path


def resolve(old_dir, name):
    """The old path an include names, from the folder its file was in."""
    return os.path.normpath(os.path.join(old_dir, name))


def rewrite_includes(text, old_dir):
    def one(m):
        if "/" in m.group(2) and not m.group(2).startswith("../"):
            return m.group(0)  # qualified already
        target = MOVE.get(resolve(old_dir, m.group(2)))
        if target is None:
            p = resolve(old_dir, m.group(2))
            target = p if p in MOVE.values() or (os.path.exists(p) and not p.startswith("tests/")
                                                  and p.split("/")[0] in ("src", "formats", "cuda", "opencl")) else None
        return m.group(1) + qualified(target) + m.group(3) if target else m.group(0)
    return INCLUDE.sub(one, text)


CONFLICT = re.compile(r"^<<<<<<< [^\n]*\n(.*?)^=======\n(.*?)^>>>>>>> [^\n]*\n", re.M | re.S)


def resolve_include_conflicts(text, old_dir):
    """A merge conflict of include lines alone (one side added an include at
    the old place, the other rewrote them): both sides' includes, rewritten,
    each once, in the first side's order. Any other conflict is left as it is."""
    def one(m):
        sides = [m.group(1), m.group(2)]
        if not all(re.fullmatch(r'(\s*#\s*include\s+"[^"]+"[^\n]*\n|\s*\n)*', side) for side in sides):
            return m.group(0)
        out, seen = [], set()
        for side in sides:
            for line in rewrite_includes(side, old_dir).splitlines(keepends=True):
                key = line.split("/*")[0].strip()
                if key and key not in seen:
                    seen.add(key)
                    out.append(line)
        return "".join(out)
    return CONFLICT.sub(one, text)


# a file's old name alone (scc_sketch.cu), where it was one file's: its new path
BASE = {}
for _old in MOVE:
    _b = os.path.basename(_old)
    if "_" in _b:
        BASE[_b] = None if _b in BASE else MOVE[_old]
BASE = {b: new for b, new in BASE.items() if new}


# a path in prose: not inside a longer name or path
def rewrite_paths(text):
    for old in sorted(MOVE, key=len, reverse=True):
        text = re.sub(r"(?<![\w.-])" + re.escape(old) + r"(?![\w])", MOVE[old], text)
    for old in sorted(BASE, key=len, reverse=True):
        text = re.sub(r"(?<![\w./-])" + re.escape(old) + r"(?![\w])", BASE[old], text)
    return text


def rewrite_patch(text):
    """A mutant: its file names, and the include lines of its hunks as the moved file has them."""
    out, old_dir = [], None
    for line in text.splitlines(keepends=True):
        m = re.match(r"^(diff --git a/|--- a/|\+\+\+ b/)(\S+)", line)
        if m:
            path = m.group(2)
            if not line.startswith("+++"):
                old_dir = os.path.dirname(BACK.get(path, path))
            line = rewrite_paths(line)
        elif old_dir is not None and line[:1] in " +-" and not line.startswith(("---", "+++")):
            line = line[0] + rewrite_paths(rewrite_includes(line[1:], old_dir))
        out.append(line)
    return "".join(out)


def git(*args):
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def main():
    check = "--check" in sys.argv
    files = git("ls-files").split()
    # includes first, while each file's old folder is known: a file still at
    # its old place, or one merged to its new place with old includes in it
    for f in files:
        if not os.path.isfile(f):
            continue
        if SOURCE.match(f):
            old_dir = os.path.dirname(BACK.get(f, f))
            text = open(f).read()
            new = rewrite_paths(rewrite_includes(resolve_include_conflicts(text, old_dir), old_dir))
        elif f.endswith(".patch"):
            text = open(f).read()
            new = rewrite_patch(text)
        elif TEXT.match(f) or f == "Makefile":
            text = open(f).read()
            new = rewrite_paths(text) if f != "Makefile" else text
        else:
            continue
        if new != text:
            print(("would rewrite " if check else "rewrote ") + f)
            if not check:
                open(f, "w").write(new)
    for old, new in MOVE.items():
        if os.path.exists(old) and not os.path.exists(new):
            print(("would move " if check else "git mv ") + old + " " + new)
            if not check:
                os.makedirs(os.path.dirname(new), exist_ok=True)
                git("mv", old, new)
        elif os.path.exists(old):
            print("both " + old + " and " + new + " exist: merge them by hand")
    # what the map does not place, and includes that name no file
    left = 0
    for f in git("ls-files").split():
        if (re.match(r"^(src|cuda|opencl)/[^/]+$", f) and f not in ("src/main.c", "src/registry.c", "src/registry.h")
                or f in MOVE):
            print("not placed: " + f + " (add it to MOVES)")
            left += 1
        if SOURCE.match(f) and os.path.isfile(f):
            for m in INCLUDE.finditer(open(f).read()):
                name = m.group(2)
                here = os.path.join(os.path.dirname(f), name)
                if not any(os.path.exists(p) for p in (here, "src/" + name, name)) and "kernels_cl" not in name:
                    print("unresolved include in " + f + ": " + name)
                    left += 1
    return 1 if check and left else 0


if __name__ == "__main__":
    sys.exit(main())
