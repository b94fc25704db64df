#!/usr/bin/env bats
# The bioconda recipe, conda/seqgpu: its shape as bioconda's linter wants it,
# build.sh run the way conda-build runs it (env -i with conda's variables and
# flags, PREFIX a fresh folder, a copy of the sources), then the recipe's own
# test commands against what build.sh installed. conda-build itself is not on
# this machine: htslib and zlib come from the system instead of the host
# environment, and the OpenCL headers and loader are linked into PREFIX where
# the recipe declares ocl-icd.

load test_helper

RECIPE=$ROOT/conda/seqgpu

# build_in NAME OPENCL: build.sh in $BATS_FILE_TMPDIR/NAME/{src,prefix}, with
# nvcc on PATH when this machine has one (cuda_compiler_version None must
# keep it off), OpenCL in PREFIX when OPENCL is 1. Each make call's output
# goes to NAME/make.log after a line "=== make ARGS".
build_in() {
    local d=$BATS_FILE_TMPDIR/$1 realmake
    realmake=$(command -v make)
    mkdir -p "$d/src" "$d/prefix/include" "$d/prefix/lib" "$d/shim"
    tar -C "$ROOT" --exclude=./build --exclude=./bin --exclude=./.git -cf - . | tar -C "$d/src" -xf -
    printf '#!/bin/sh\necho "=== make $*" >> "%s/make.log"\nexec %s "$@" >> "%s/make.log" 2>&1\n' \
        "$d" "$realmake" "$d" > "$d/shim/make"
    chmod +x "$d/shim/make"
    if [ "$2" = 1 ]; then
        ln -s /usr/include/CL "$d/prefix/include/CL"
        ln -s "$(pkg-config --variable=libdir OpenCL)/libOpenCL.so" "$d/prefix/lib/libOpenCL.so"
    fi
    local path=$d/shim:/usr/bin:/bin
    [ -x /usr/local/cuda/bin/nvcc ] && path=$path:/usr/local/cuda/bin
    local p=$d/prefix
    (cd "$d/src" && env -i HOME="$d" PATH="$path" PREFIX="$p" BUILD_PREFIX="$p" SRC_DIR="$d/src" \
        RECIPE_DIR="$RECIPE" PKG_NAME=seqgpu PKG_VERSION=0.1.0 PKG_BUILDNUM=0 CPU_COUNT=2 \
        target_platform=linux-64 cuda_compiler_version=None CC=gcc \
        CFLAGS="-march=nocona -mtune=haswell -ftree-vectorize -fPIC -fstack-protector-strong -fno-plt -O2 -ffunction-sections -pipe -isystem $p/include" \
        CPPFLAGS="-DNDEBUG -D_FORTIFY_SOURCE=2 -O2 -isystem $p/include" \
        LDFLAGS="-Wl,-O2 -Wl,--sort-common -Wl,--as-needed -Wl,-z,relro -Wl,-z,now -Wl,--disable-new-dtags -Wl,--gc-sections -Wl,-rpath,$p/lib -Wl,-rpath-link,$p/lib -L$p/lib" \
        bash -e "$RECIPE/build.sh") > "$d/build.log" 2>&1
}

setup_file() {
    command -v pkg-config >/dev/null && pkg-config --exists htslib || skip "htslib's pkg-config file is missing"
    # the system's OpenCL headers and loader stand in for the recipe's ocl-icd and opencl-headers
    [ -f /usr/include/CL/cl.h ] && pkg-config --exists OpenCL ||
        skip "OpenCL headers and ICD loader (Debian ocl-icd-opencl-dev, opencl-c-headers) are not installed"
    build_in opencl 1 || { cat "$BATS_FILE_TMPDIR/opencl/build.log" "$BATS_FILE_TMPDIR/opencl/make.log" >&3; return 1; }
    build_in plain 0 || { cat "$BATS_FILE_TMPDIR/plain/build.log" "$BATS_FILE_TMPDIR/plain/make.log" >&3; return 1; }
}

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

# The recipe's test commands for a cpu build on linux: selectors evaluated
# (linux, not osx or win, cuda_compiler_version "None"), one command a line.
recipe_commands() {
    python3 - "$RECIPE/meta.yaml" <<'EOF'
import re, sys
env = {"linux": True, "linux64": True, "osx": False, "win": False, "cuda_compiler_version": "None"}
lines, inside = open(sys.argv[1]).read().split("\n"), None
for ln in lines:
    if re.match(r"^\S", ln):
        inside = ln.startswith("test:")
    elif inside and re.match(r"^  \S", ln):
        inside = "cmds" if ln.strip() == "commands:" else True
    elif inside == "cmds":
        m = re.match(r"^    - (.*?)(?:\s+#\s*\[(.*)\])?$", ln)
        if m and (m.group(2) is None or eval(m.group(2), {}, env)):
            print(m.group(1))
EOF
}

@test "recipe: named after the package, licensed, pinned, two variants, linux only" {
    [ -f "$RECIPE/meta.yaml" ] && [ -f "$RECIPE/build.sh" ] && [ -f "$RECIPE/conda_build_config.yaml" ]
    m=$RECIPE/meta.yaml
    grep -q '^{% set name = "seqgpu" %}' "$m"
    grep -q '^  license: MIT$' "$m"
    grep -q '^  license_file: LICENSE$' "$m"
    grep -q '^MIT License' "$ROOT/LICENSE"
    grep -Eq '^  sha256: \{\{ sha256 \}\}$' "$m"
    grep -Eq '^\{% set sha256 = "[0-9a-f]{64}" %\}$' "$m"
    grep -q "pin_subpackage(name, max_pin=\"x.x\")" "$m"
    grep -Eq '^  skip: True  # \[osx' "$m"
    grep -q "{{ compiler('c') }}" "$m"
    grep -q "{{ compiler('cuda') }}  # \[cuda_compiler_version != \"None\"\]" "$m"
    # cpu and cuda builds differ in their build strings
    run grep -c '^  string: ' "$m"
    assert_output 2
    grep -q '^  string: cuda.*# \[cuda_compiler_version != "None"\]$' "$m"
    grep -q '^  string: cpu_.*# \[cuda_compiler_version == "None"\]$' "$m"
    grep -A2 '^cuda_compiler_version:' "$RECIPE/conda_build_config.yaml" | grep -q -- '- None'
    # htslib, zlib and ocl-icd come from host with their run_exports, never listed in run
    sed -n '/^  host:/,/^  run:/p' "$m" | grep -q -- '- htslib$'
    sed -n '/^  host:/,/^  run:/p' "$m" | grep -q -- '- zlib$'
    sed -n '/^  host:/,/^  run:/p' "$m" | grep -q -- '- ocl-icd  # \[linux\]'
    run sed -n '/^  run:/,/^[a-z]/p' "$m"
    refute_output --partial htslib
    refute_output --partial zlib
}

@test "build.sh: one compile, and make install runs with the same variables and compiles nothing" {
    log=$BATS_FILE_TMPDIR/opencl/make.log
    run grep -c '^=== make' "$log"
    assert_output 2
    first=$(grep '^=== make' "$log" | sed -n 1p | sed 's/^=== make -j[0-9]* //')
    second=$(grep '^=== make' "$log" | sed -n 2p | sed 's/^=== make install //')
    assert_equal "$second" "$first"
    run sed -n '/^=== make install/,$p' "$log"
    refute_output --regexp ' -c -o |nvcc|ar rcs'
    [ -x "$BATS_FILE_TMPDIR/opencl/prefix/bin/seqgpu" ]
    [ -f "$BATS_FILE_TMPDIR/opencl/prefix/share/man/man1/seqgpu-find.1" ]
}

@test "build.sh under conda's flags builds without a warning" {
    run grep -i 'warning' "$BATS_FILE_TMPDIR/opencl/make.log" "$BATS_FILE_TMPDIR/plain/make.log"
    assert_failure 1
}

@test "build.sh: no CUDA in a cpu build though nvcc is on PATH; OpenCL only where it is declared" {
    [ -x /usr/local/cuda/bin/nvcc ] || echo "# no nvcc on this machine: only the OpenCL half is shown" >&3
    for b in opencl plain; do
        run grep -E 'nvcc|SG_HAVE_CUDA|cudart' "$BATS_FILE_TMPDIR/$b/make.log"
        assert_failure 1
        run needed "$BATS_FILE_TMPDIR/$b/prefix/bin/seqgpu"
        assert_success
        refute_output --partial libstdc++
        refute_output --partial libcuda
    done
    run needed "$BATS_FILE_TMPDIR/opencl/prefix/bin/seqgpu"
    assert_output --partial libOpenCL
    run "$BATS_FILE_TMPDIR/opencl/prefix/bin/seqgpu" version
    assert_success
    assert_line "backends: cpu, opencl"
    refute_line --partial "cuda:"
    run needed "$BATS_FILE_TMPDIR/plain/prefix/bin/seqgpu"
    refute_output --partial libOpenCL
    run "$BATS_FILE_TMPDIR/plain/prefix/bin/seqgpu" version
    assert_line "backends: cpu"
}

@test "the recipe's test commands pass against the installed binary" {
    command -v bgzip >/dev/null && command -v tabix >/dev/null || skip "tabix and bgzip (Debian tabix) are not installed"
    recipe_commands > "$T/cmds"
    # every command of the cpu build, found: a broken extraction must not pass by running nothing
    run wc -l < "$T/cmds"
    [ "$output" -ge 20 ] || fail "only $output test commands found in meta.yaml"
    mkdir "$T/work"
    cd "$T/work"
    run env -i HOME="$T" PATH="$BATS_FILE_TMPDIR/opencl/prefix/bin:/usr/bin:/bin" bash -ex "$T/cmds" < /dev/null
    assert_success
    assert_output --partial "+ cmp unzipped.bed want.bed"
}
