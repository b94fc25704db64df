#!/bin/sh
# The release's source tarball and the recipe's hash of it.
#
#   conda/release.sh [--ref REF] [--out DIR] [RECIPE_DIR]
#
# Makes DIR/seqgpu-VERSION.tar.gz (DIR: dist) from the tag vVERSION (or
# REF) with git archive, every file under seqgpu-VERSION/ and gzip without a
# name or a time in its header, so the same commit gives the same bytes; then
# writes its sha256 into RECIPE_DIR/meta.yaml (conda/seqgpu). VERSION is
# src/core/version.h's, and meta.yaml must say the same. Then: upload the tarball
# to the GitHub release vVERSION (meta.yaml's source url), commit meta.yaml,
# and open the bioconda-recipes pull request with conda/seqgpu/.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
ref="" out=dist
while [ $# -gt 0 ]; do
    case $1 in
        --ref) ref=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -*) echo "release.sh: unknown option $1" >&2; exit 1 ;;
        *) break ;;
    esac
done
recipe=${1:-$root/conda/seqgpu}
version=$(sed -n 's/^#define SG_VERSION "\(.*\)"$/\1/p' "$root/src/core/version.h")
[ -n "$version" ] || { echo "release.sh: no SG_VERSION in src/core/version.h" >&2; exit 1; }
grep -q "^{% set version = \"$version\" %}$" "$recipe/meta.yaml" ||
    { echo "release.sh: $recipe/meta.yaml is not for version $version (src/core/version.h)" >&2; exit 1; }
ref=${ref:-v$version}
git -C "$root" rev-parse -q --verify "$ref^{commit}" > /dev/null ||
    { echo "release.sh: no $ref to make the tarball of (tag the release first)" >&2; exit 1; }
mkdir -p "$out"
tarball=$out/seqgpu-$version.tar.gz
git -C "$root" archive --format=tar --prefix="seqgpu-$version/" "$ref" | gzip -n -9 > "$tarball.tmp"
mv "$tarball.tmp" "$tarball"
sha=$(sha256sum "$tarball" | cut -d' ' -f1)
sed "s/^{% set sha256 = \"[0-9a-f]*\" %}$/{% set sha256 = \"$sha\" %}/" "$recipe/meta.yaml" > "$recipe/meta.yaml.tmp"
grep -q "^{% set sha256 = \"$sha\" %}$" "$recipe/meta.yaml.tmp" ||
    { rm -f "$recipe/meta.yaml.tmp"; echo "release.sh: no line {% set sha256 = \"...\" %} in $recipe/meta.yaml" >&2; exit 1; }
mv "$recipe/meta.yaml.tmp" "$recipe/meta.yaml"
echo "$tarball $sha"
