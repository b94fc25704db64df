#!/usr/bin/env bats
# bats file_tags=opencl
# The OpenCL backend (the work-group range kernel, and the q-gram filter)
# gives the reference's and the cpu backend's bytes on the same random
# inputs. Runs on any OpenCL platform: PoCL in CI, NVIDIA's on the GPU
# machine. Skipped only where no platform is installed and SEQGPU_REQUIRE
# does not name opencl (CI names it); a platform whose kernels do not build
# fails every test.

load test_helper

setup() {
    T=$BATS_TEST_TMPDIR
    use_backend opencl
}

@test "opencl: palindromes, IUPAC, both strands and chunk seams against the reference, every kernel" {
    reference_check opencl vector qgram auto
}

@test "opencl: random genomes and IUPAC motifs, both kernels, tiny chunks, against the reference" {
    for seed in 1 2; do
        $REF gen --seed $seed --records 30 --max-len 4000 --plant GAATTC,ACGTTGCA > "$T/g.fa"
        $REF motifs --seed $seed -n 6 --iupac --min-len 1 --max-len 14 > "$T/m.tsv"
        $REF find "$T/m.tsv" "$T/g.fa" > "$T/want"
        for k in vector qgram; do
            for c in 97 64M; do
                seqgpu find -q -b opencl --kernel $k --chunk-size $c -f "$T/m.tsv" "$T/g.fa" > "$T/got" || fail "$k $c"
                cmp -s "$T/want" "$T/got" || fail "--kernel $k --chunk-size $c differs from the reference"
            done
        done
    done
}

@test "opencl: formats, strands, --skip-masked, FASTQ" {
    $REF gen --seed 5 --records 40 --max-len 3000 --lower 0.6 > "$T/g.fa"
    $REF motifs --seed 5 -n 5 --iupac --min-len 3 --max-len 10 > "$T/m.tsv"
    same_as_cpu opencl "$T/m.tsv" "$T/g.fa" -F tsv --skip-masked
    same_as_cpu opencl "$T/m.tsv" "$T/g.fa" -F count -s -
    $REF gen --seed 6 --records 800 --max-len 250 --fastq > "$T/r.fq"
    same_as_cpu opencl "$T/m.tsv" "$T/r.fq" --chunk-size 5000
}

@test "opencl: hundreds of motifs, a degenerate one, and a hit buffer that overflows" {
    $REF gen --seed 8 --records 10 --max-len 30000 > "$T/g.fa"
    $REF motifs --seed 8 -n 300 --iupac --min-len 6 --max-len 20 > "$T/m.tsv"
    printf 'deg\tNNNNNNNN\nshort\tRY\n' >> "$T/m.tsv"
    same_as_cpu opencl "$T/m.tsv" "$T/g.fa"
    python3 -c "
import random; random.seed(11)
print('>one'); print(''.join(random.choice('ACGTacgtN') for _ in range(2000000)))" > "$T/big.fa"
    printf 'a\tA\n' > "$T/a.tsv"
    same_as_cpu opencl "$T/a.tsv" "$T/big.fa"
    run seqgpu find -q -b opencl -m A --stats "$T/s.json" -o /dev/null "$T/big.fa"
    assert_success
    run python3 -c "import json; d=json.load(open('$T/s.json'))['device']; print(d['rescans'] > 0, d['windows'] >= 1)"
    assert_output "True True"
}

@test "opencl: chunks denser with hits than find holds are scanned in pieces: the cpu's bytes" {
    pieces_same_as_cpu opencl
}

@test "opencl: bulge sites against the cpu's, and a hit buffer that overflows with them" {
    python3 "$ROOT/tests/ref_offtarget.py" gen --seed 61 --records 6 --length 15000 --guides 30 --max-mm 3 --bulges 2 \
        "$T/g.fa" "$T/guides"
    same_as_cpu opencl "$T/guides" "$T/g.fa" -M 3 --pam NGG --dna-bulge 1 --rna-bulge 1 --chunk-size 3000
    same_as_cpu opencl "$T/guides" "$T/g.fa" -M 2 --pam-5 TTTV --dna-bulge 2 --rna-bulge 2 -F casoffinder3 --all-alignments
    same_as_cpu opencl "$T/guides" "$T/g.fa" -M 1 --dna-bulge 1 --rna-bulge 2 -F tsv
    # an N guide next to G: a site at every G of either strand, and one with a DNA bulge,
    # more than the window's first hit buffer holds
    python3 -c "
import random; random.seed(12)
print('>one'); print(''.join(random.choice('ACGT') for _ in range(400000)))" > "$T/big.fa"
    printf 'n\tNNNNNNNNNN\n' > "$T/n.tsv"
    same_as_cpu opencl "$T/n.tsv" "$T/big.fa" --pam G --dna-bulge 1
    run seqgpu find -q -b opencl -f "$T/n.tsv" --pam G --dna-bulge 1 --stats "$T/s.json" -o /dev/null "$T/big.fa"
    assert_success
    run python3 -c "import json; print(json.load(open('$T/s.json'))['device']['rescans'] > 0)"
    assert_output "True"
}

@test "opencl: platform and device selection errors are clear" {
    SEQGPU_OPENCL_PLATFORM=no-such-platform run seqgpu find -b opencl -m A "$LAMBDA"
    assert_failure 3
    assert_output --partial "no OpenCL platform matches SEQGPU_OPENCL_PLATFORM='no-such-platform'"
    SEQGPU_OPENCL_PLATFORM=0 run seqgpu find -q -b opencl -m GAATTC "$LAMBDA"
    assert_success
    run seqgpu find -b opencl --device 99 -m A "$LAMBDA"
    assert_failure 3
    assert_output --partial "has no device 99"
    run seqgpu find -b opencl --kernel sunday -m A "$LAMBDA"
    assert_failure 1
    assert_output --partial "no sunday kernel"
}

@test "opencl: a kernel build failure shows the compiler's log" {
    SEQGPU_OPENCL_OPTIONS='-DBITS_IN_LOCAL=(' run seqgpu find -b opencl -f "$ROOT/examples/enzymes.tsv" "$LAMBDA"
    assert_failure 3
    assert_output --partial "building the OpenCL kernels failed"
    assert_output --partial "build log:"
}
