#!/bin/bash
# conda-build: one compile, then `make install` with the very same variables
# (it only copies). Everything the build uses comes from the recipe's
# environments, never from the build machine: CUDA only in the CUDA variant
# (CUDA=0 otherwise, whatever nvcc is on disk), OpenCL only where the recipe
# declares ocl-icd and its headers (they are then in $PREFIX).
set -euo pipefail

cuda=0
extra=()
if [[ "${cuda_compiler_version:-None}" != "None" ]]; then
    cuda=1
    # conda's CUDA 12 keeps headers and libraries under targets/<triple>
    case "${target_platform:-linux-64}" in
        linux-aarch64) triple=sbsa-linux ;;
        *) triple=x86_64-linux ;;
    esac
    extra+=(CUDA_INC="$PREFIX/targets/$triple/include" CUDA_LIB="$PREFIX/targets/$triple/lib")
fi
opencl=0
[[ -f "$PREFIX/include/CL/cl.h" ]] && opencl=1

# the same list for both calls: a changed variable would make install rebuild
args=(CC="$CC" CFLAGS="${CFLAGS:-} -O3" CPPFLAGS="${CPPFLAGS:-} -I$PREFIX/include"
      LDFLAGS="${LDFLAGS:-} -L$PREFIX/lib" CUDA="$cuda" OPENCL="$opencl" PREFIX="$PREFIX" "${extra[@]}")
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
make -j"${CPU_COUNT:-2}" "${args[@]}"
make install "${args[@]}"
