#!/bin/bash
# bioconda build: the CPU backend everywhere; the CUDA backend where the
# build environment provides nvcc (CUDA=0 otherwise keeps it off).
set -euo pipefail
cuda=0
command -v nvcc >/dev/null 2>&1 && cuda=1
make -j"${CPU_COUNT:-2}" CC="$CC" CFLAGS="${CFLAGS} -O3" CPPFLAGS="${CPPFLAGS:-} -I${PREFIX}/include" \
    LDFLAGS="${LDFLAGS:-} -L${PREFIX}/lib" CUDA=$cuda
make install PREFIX="$PREFIX"
