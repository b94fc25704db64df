#!/bin/bash
# conda-build: one compile, then `make install` with the very same variables
# (it only copies). Everything comes from the recipe's environments, never
# from the build machine: nvcc from cuda-nvcc (build), the CUDA headers,
# cudart_static and CUB from the host environment's targets/<triple>, OpenCL
# from ocl-icd and opencl-headers (host).
set -euo pipefail

case "${target_platform:-linux-64}" in
    linux-64) triple=x86_64-linux ;;
    linux-aarch64) triple=sbsa-linux ;;
    *) echo "build.sh: seqgpu builds on Linux only, not ${target_platform}" >&2; exit 1 ;;
esac
nvcc=$(command -v nvcc) || { echo "build.sh: no nvcc (the recipe's cuda-nvcc)" >&2; exit 1; }
# Machine code for Turing, Ampere (A100 and the RTX 30s), Ada and Hopper, and
# PTX of Hopper that the driver compiles at load time for any later GPU.
# NVCC_ARCH from the environment replaces the list (tests/packaging.bats
# builds one target to stay fast; conda-build sets none).
NVCC_ARCH=${NVCC_ARCH:-"-gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 \
-gencode arch=compute_86,code=sm_86 -gencode arch=compute_89,code=sm_89 -gencode arch=compute_90,code=[sm_90,compute_90]"}

# the same list for both calls: a changed variable would make install rebuild
args=(CC="$CC" CFLAGS="${CFLAGS:-} -O3" CPPFLAGS="${CPPFLAGS:-} -I$PREFIX/include"
      LDFLAGS="${LDFLAGS:-} -L$PREFIX/lib" PREFIX="$PREFIX" OPENCL=1
      CUDA=1 NVCC="$nvcc" NVCC_ARCH="$NVCC_ARCH"
      CUDA_INC="$PREFIX/targets/$triple/include" CUDA_LIB="$PREFIX/targets/$triple/lib")
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
make -j"${CPU_COUNT:-2}" "${args[@]}"
make install "${args[@]}"
