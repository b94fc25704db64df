#!/usr/bin/env bats
# The bioconda recipe, conda/seqgpu, as it goes to bioconda at a release:
# conda/release.sh makes the source tarball of a tagged commit (here a
# throwaway repository of this working tree, tagged v0.1.0) and writes its
# sha256 into a copy of the recipe; tests/recipe_lint.py loads that recipe
# as bioconda-utils does and checks the lint rules of a new package, and
# fails on each planted defect; build.sh runs on the tarball's sources the
# way conda-build runs it (env -i with conda's variables and flags, PREFIX a
# fresh folder), once for each variant this machine can build; then the
# recipe's own test commands run against what it installed. conda-build
# itself cannot be installed here: htslib and zlib come from the system,
# and the OpenCL and CUDA headers and libraries are linked into PREFIX where
# the recipe's host environment would put them.

load test_helper

VERSION=$(sed -n 's/^#define SG_VERSION "\(.*\)"$/\1/p' "$ROOT/src/core/version.h")
LINT="python3 $ROOT/tests/recipe_lint.py"

# release: a repository of this working tree with one commit tagged
# vVERSION, and release.sh run on it into D/dist and the recipe copy D/recipe/seqgpu
release() {
    local d=$BATS_FILE_TMPDIR
    mkdir -p "$d/repo" "$d/recipe"
    tar -C "$ROOT" --exclude=./build --exclude=./bin --exclude=./dist --exclude=./.git -cf - . | tar -C "$d/repo" -xf -
    (cd "$d/repo" && git init -q && git add -A &&
        GIT_AUTHOR_DATE=2026-12-01T00:00:00Z GIT_COMMITTER_DATE=2026-12-01T00:00:00Z \
            git -c user.name=release -c user.email=release@seqgpu commit -qm release &&
        git tag "v$VERSION") > "$d/release.log" 2>&1 || return 1
    cp -r "$d/repo/conda/seqgpu" "$d/recipe/"
    "$d/repo/conda/release.sh" --out "$d/dist" "$d/recipe/seqgpu" >> "$d/release.log" 2>&1
}

# build: build.sh on the tarball's sources in D/build/{src,prefix}; each make
# call's output goes to D/build/make.log after a line "=== make ARGS"
build() {
    local d=$BATS_FILE_TMPDIR/build realmake
    realmake=$(command -v make)
    mkdir -p "$d/prefix/include" "$d/prefix/lib" "$d/shim"
    tar -C "$d" -xzf "$BATS_FILE_TMPDIR/dist/seqgpu-$VERSION.tar.gz"
    mv "$d/seqgpu-$VERSION" "$d/src"
    printf '#!/bin/sh\necho "=== make $*" >> "%s/make.log"\nexec %s "$@" >> "%s/make.log" 2>&1\n' \
        "$d" "$realmake" "$d" > "$d/shim/make"
    chmod +x "$d/shim/make"
    # host: ocl-icd and opencl-headers; cuda-cudart-dev, -static and cuda-cccl under targets/
    ln -s /usr/include/CL "$d/prefix/include/CL"
    ln -s "$(pkg-config --variable=libdir OpenCL)/libOpenCL.so" "$d/prefix/lib/libOpenCL.so"
    ln -s /usr/local/cuda/targets "$d/prefix/targets"
    local p=$d/prefix
    # build: cuda-nvcc; one target, PTX only, so that CI builds in a minute
    # (the GPU machine builds the recipe's whole list: docs/testing.md)
    (cd "$d/src" && env -i HOME="$d" PATH="$d/shim:/usr/bin:/bin:/usr/local/cuda/bin" PREFIX="$p" BUILD_PREFIX="$p" \
        SRC_DIR="$d/src" RECIPE_DIR="$BATS_FILE_TMPDIR/recipe/seqgpu" PKG_NAME=seqgpu PKG_VERSION="$VERSION" \
        PKG_BUILDNUM=0 CPU_COUNT=2 target_platform=linux-64 CC=gcc \
        NVCC_ARCH="${SEQGPU_PACKAGING_NVCC_ARCH:--gencode arch=compute_75,code=compute_75}" \
        CFLAGS="-march=nocona -mtune=haswell -ftree-vectorize -fPIC -fstack-protector-strong -fno-plt -O2 -ffunction-sections -pipe -isystem $p/include" \
        CPPFLAGS="-DNDEBUG -D_FORTIFY_SOURCE=2 -O2 -isystem $p/include" \
        LDFLAGS="-Wl,-O2 -Wl,--sort-common -Wl,--as-needed -Wl,-z,relro -Wl,-z,now -Wl,--disable-new-dtags -Wl,--gc-sections -Wl,-rpath,$p/lib -Wl,-rpath-link,$p/lib -L$p/lib" \
        bash -e "$BATS_FILE_TMPDIR/recipe/seqgpu/build.sh") > "$d/build.log" 2>&1
}

setup_file() {
    # the recipe builds its own binary: the sanitizer runs have nothing to add
    [ -z "${SEQGPU_SANITIZER:-}" ] || { skip_file "the recipe's build is checked in the normal run"; return 0; }
    command -v git >/dev/null || { skip_file "git is not installed"; return 0; }
    python3 -c 'import jinja2, yaml' 2>/dev/null || { skip_file "python3-jinja2 and python3-yaml are not installed"; return 0; }
    release || { cat "$BATS_FILE_TMPDIR/release.log" >&3; return 1; }
    command -v pkg-config >/dev/null && pkg-config --exists htslib || return 0
    [ -f /usr/include/CL/cl.h ] && pkg-config --exists OpenCL || return 0
    [ -x /usr/local/cuda/bin/nvcc ] || return 0
    build || { cat "$BATS_FILE_TMPDIR/build/build.log" "$BATS_FILE_TMPDIR/build/make.log" >&3; return 1; }
}

# built: skip unless setup_file could build the recipe here
built() {
    [ -x "$BATS_FILE_TMPDIR/build/prefix/bin/seqgpu" ] && return 0
    [ -x /usr/local/cuda/bin/nvcc ] || skip "no nvcc in /usr/local/cuda: the recipe needs cuda-nvcc"
    skip "htslib's pkg-config file, or the OpenCL headers and loader (ocl-icd-opencl-dev, opencl-c-headers), are missing"
}

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

@test "release.sh: the tag's git archive, the same bytes every time, and its sha256 in meta.yaml" {
    tb=$BATS_FILE_TMPDIR/dist/seqgpu-$VERSION.tar.gz
    sha=$(sha256sum "$tb" | cut -d' ' -f1)
    grep -qx "{% set sha256 = \"$sha\" %}" "$BATS_FILE_TMPDIR/recipe/seqgpu/meta.yaml"
    # the template in the repository has none: there is no tarball before a release
    grep -qx '{% set sha256 = "" %}' "$ROOT/conda/seqgpu/meta.yaml"
    grep -qx "{% set version = \"$VERSION\" %}" "$ROOT/conda/seqgpu/meta.yaml"
    # one folder, seqgpu-VERSION/, with the sources and the licence
    run tar -tzf "$tb"
    assert_line "seqgpu-$VERSION/LICENSE"
    assert_line "seqgpu-$VERSION/Makefile"
    assert_line "seqgpu-$VERSION/src/main.c"
    refute_output --regexp '^[^s]|^seqgpu-[^/]*/(build|bin)/'
    # again from the same tag: the same bytes, so the hash stays true
    cp -r "$ROOT/conda/seqgpu" "$T/"
    "$BATS_FILE_TMPDIR/repo/conda/release.sh" --out "$T/dist" "$T/seqgpu" > /dev/null
    cmp "$tb" "$T/dist/seqgpu-$VERSION.tar.gz"
    # no tag, no release
    run "$BATS_FILE_TMPDIR/repo/conda/release.sh" --ref v9.9.9 --out "$T/none" "$T/seqgpu"
    assert_failure 1
    assert_output --partial "no v9.9.9"
}

@test "the released recipe loads as bioconda-utils loads it and passes the lint rules of a new package" {
    run $LINT lint "$BATS_FILE_TMPDIR/recipe/seqgpu" --tarball "$BATS_FILE_TMPDIR/dist/seqgpu-$VERSION.tar.gz"
    assert_success
    assert_output ""
    # the template too, but for its hash
    run $LINT lint "$ROOT/conda/seqgpu"
    assert_failure 1
    assert_output "missing_hash: source 0 has no sha256"
}

# plant NAME SED-SCRIPT RULE: the released recipe with one defect fails on RULE
plant() {
    rm -rf "$T/$1" && mkdir -p "$T/$1" && cp -r "$BATS_FILE_TMPDIR/recipe/seqgpu" "$T/$1/"
    sed -i "$2" "$T/$1/seqgpu/meta.yaml"
    ! cmp -s "$T/$1/seqgpu/meta.yaml" "$BATS_FILE_TMPDIR/recipe/seqgpu/meta.yaml" || fail "$1: nothing planted"
    run $LINT lint "$T/$1/seqgpu" --tarball "$BATS_FILE_TMPDIR/dist/seqgpu-$VERSION.tar.gz"
    assert_failure 1
    assert_output --partial "$3:"
}

@test "the lint fails on a planted duplicate key, build number, missing or false hash, and the other rules" {
    # two string: keys told apart by selectors only (the recipe before this round)
    plant dup '/^  number: 0$/a\  string: cuda_{{ PKG_HASH }}  # [linux]\n  string: cpu_{{ PKG_HASH }}  # [not linux]' duplicate_key
    plant number 's/^  number: 0$/  number: 100/' build_number_needs_reset
    plant nohash '/^  sha256: /d' missing_hash
    plant empty 's/^{% set sha256 = .*/{% set sha256 = "" %}/' missing_hash
    plant zeros 's/^{% set sha256 = .*/{% set sha256 = "0000000000000000000000000000000000000000000000000000000000000000" %}/' missing_hash
    plant other "s/^{% set sha256 = .*/{% set sha256 = \"$(echo other | sha256sum | cut -c1-64)\" %}/" missing_hash
    plant url 's|seqgpu-{{ version }}.tar.gz$|v{{ version }}.tar.gz|' source_url
    plant licence '/^  license_file: /d' missing_license_file
    plant noarch 's/^  number: 0$/  number: 0\n  noarch: generic/' should_not_be_noarch_compiler
    plant host "s/^    - htslib$/    - htslib\n    - {{ compiler('c') }}/" compilers_must_be_in_build
    plant stdlib "/stdlib('c')/d" compiler_needs_stdlib_c
    plant exports '/^  run_exports:$/,/pin_subpackage/d' missing_run_exports
    plant gcc 's/^    - make$/    - make\n    - gcc/' should_use_compilers
    plant ids 's/^    - biotools:seqgpu$/    - seqgpu/' extra_identifiers_missing_colon
    plant tests '/^  commands:$/,/^$/d' missing_tests
}

@test "the variant set: one build on linux-64 and one on linux-aarch64, none elsewhere; linux-64 built here" {
    run $LINT variants "$BATS_FILE_TMPDIR/recipe/seqgpu"
    assert_success
    assert_output "$(printf 'linux-64\tbuild\nlinux-aarch64\tbuild')"
    # the selectors of each platform: skipped anywhere else
    for p in osx-64 osx-arm64 win-64; do
        run python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import recipe_lint as r; print(r.get(r.load(sys.argv[2], sys.argv[3]), 'build/skip'))" \
            "$ROOT/tests" "$BATS_FILE_TMPDIR/recipe/seqgpu" $p
        assert_output True
    done
    echo "# linux-aarch64 is built by bioconda's aarch64 runners, not on this machine" >&3
    built
}

@test "build.sh: one compile, and make install runs with the same variables and compiles nothing" {
    built
    log=$BATS_FILE_TMPDIR/build/make.log
    run grep -c '^=== make' "$log"
    assert_output 2
    first=$(grep '^=== make' "$log" | sed -n 1p | sed 's/^=== make -j[0-9]* //')
    second=$(grep '^=== make' "$log" | sed -n 2p | sed 's/^=== make install //')
    assert_equal "$second" "$first"
    run sh -c 'sed -n "/^=== make install/,\$p" "$1" | sed 1d' sh "$log"
    refute_output --regexp ' -c -o |nvcc |ar rcs'
    [ -f "$BATS_FILE_TMPDIR/build/prefix/share/man/man1/seqgpu-find.1" ]
}

@test "build.sh under conda's flags builds without a warning" {
    built
    run grep -i 'warning' "$BATS_FILE_TMPDIR/build/make.log"
    assert_failure 1
}

@test "the build: cuda and opencl built in, cudart linked statically, and it runs on the cpu without a GPU" {
    built
    b=$BATS_FILE_TMPDIR/build/prefix/bin/seqgpu
    grep -q -- '-gencode arch=compute_75,code=compute_75' "$BATS_FILE_TMPDIR/build/make.log"
    run needed "$b"
    assert_success
    assert_output --partial libOpenCL
    assert_output --partial libhts
    refute_output --partial libcudart
    refute_output --partial libcuda.so
    run "$b" version
    assert_success
    assert_line "backends: cpu, cuda, opencl"
    # the build's nvcc took the recipe's list when none is given (only the environment's NVCC_ARCH replaces it)
    grep -q 'compute_90,code=\[sm_90,compute_90\]' "$BATS_FILE_TMPDIR/recipe/seqgpu/build.sh"
}

@test "the recipe's test commands pass against the installed binary" {
    built
    command -v bgzip >/dev/null && command -v tabix >/dev/null || skip "tabix and bgzip (Debian tabix) are not installed"
    $LINT commands "$BATS_FILE_TMPDIR/recipe/seqgpu" linux-64 > "$T/cmds"
    # every command, found: a broken extraction must not pass by running nothing
    run wc -l < "$T/cmds"
    [ "$output" -ge 20 ] || fail "only $output test commands found in meta.yaml"
    mkdir "$T/work"
    cd "$T/work"
    run env -i HOME="$T" PATH="$BATS_FILE_TMPDIR/build/prefix/bin:/usr/bin:/bin" bash -ex "$T/cmds" < /dev/null
    assert_success
    assert_output --partial "+ cmp unzipped.bed want.bed"
}
