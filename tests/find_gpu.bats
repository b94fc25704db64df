#!/usr/bin/env bats
# bats file_tags=gpu
# The CUDA backend gives the reference's and the cpu backend's bytes:
# random genomes and motifs through every kernel, tiny and large chunks,
# hit-buffer overflow, device memory limits and device faults. Skipped only
# where there is no NVIDIA GPU (or no CUDA in the build) and SEQGPU_REQUIRE
# does not name cuda; a device that is there but does not start fails.

load test_helper

setup() {
    T=$BATS_TEST_TMPDIR
    use_backend cuda
}

@test "gpu: palindromes, IUPAC, both strands and chunk seams against the reference, every kernel" {
    reference_check cuda sunday vector qgram auto
}

# mismatch search of many guides: compute-bound, the planner's case for the GPU
# (SEQGPU_PLAN_BASES has it plan for a genome rather than the test's few kilobases)
heavy_guides() { $REF motifs --seed 3 -n 200 --min-len 20 --max-len 20 > "$T/guides.tsv"; }

@test "gpu: auto takes cuda for compute-bound work and cpu for memory-bound work, and says why" {
    heavy_guides
    SEQGPU_PLAN_BASES=1e10 run seqgpu find -q -f "$T/guides.tsv" -M 3 --pam NGG --stats "$T/s.json" "$LAMBDA"
    assert_success
    run python3 -c "import json; s=json.load(open('$T/s.json')); print(s['backend'], s['device']['windows'] >= 1, s['backend_choice'][:11])"
    assert_output "cuda True auto: cuda "
    SEQGPU_PLAN_BASES=1e10 run seqgpu find -q -m GAATTC --stats "$T/s.json" "$LAMBDA"
    assert_success
    run python3 -c "import json; s=json.load(open('$T/s.json')); print(s['backend'], s['backend_choice'][:10])"
    assert_output "cpu auto: cpu "
}

@test "gpu: random genomes and IUPAC motifs, every kernel, every format, against the reference" {
    for seed in 1 2 3; do
        $REF gen --seed $seed --records 40 --max-len 5000 --plant GAATTC,ACGTTGCA > "$T/g.fa"
        $REF motifs --seed $seed -n 6 --iupac --min-len 1 --max-len 16 > "$T/m.tsv"
        $REF find "$T/m.tsv" "$T/g.fa" > "$T/want"
        for k in sunday vector qgram auto; do
            for c in 1 97 5000 64M; do
                seqgpu find -q -b cuda --kernel $k --chunk-size $c -f "$T/m.tsv" "$T/g.fa" > "$T/got" || fail "$k $c"
                cmp -s "$T/want" "$T/got" || fail "--kernel $k --chunk-size $c differs from the reference"
            done
        done
        same_as_cpu cuda "$T/m.tsv" "$T/g.fa" -F tsv --skip-masked
        same_as_cpu cuda "$T/m.tsv" "$T/g.fa" -F count -s -
    done
}

@test "gpu: hundreds of motifs, long motifs (over 64 bases) and degenerate ones" {
    $REF gen --seed 7 --records 20 --max-len 40000 > "$T/g.fa"
    $REF motifs --seed 7 -n 400 --iupac --min-len 6 --max-len 24 > "$T/m.tsv"
    printf 'deg\tNNNNNNNN\nshort\tRY\none\tA\n' >> "$T/m.tsv"
    python3 -c "import random; random.seed(3); print('long\t' + ''.join(random.choice('ACGTN') for _ in range(90)))" >> "$T/m.tsv"
    # a 100-base motif copied from the text, so that a long motif has hits
    python3 -c "
import re
seq = max((r.split('\n', 1)[1].replace('\n', '') for r in open('$T/g.fa').read().split('>')[1:]), key=len)
print('planted\t' + re.sub('[^ACGT]', 'N', seq[1000:1100].upper()))" >> "$T/m.tsv"
    for k in auto vector qgram; do same_as_cpu cuda "$T/m.tsv" "$T/g.fa" --kernel $k; done
    $REF find "$T/m.tsv" "$T/g.fa" > "$T/want"
    cmp -s "$T/want" "$T/cuda" || fail "differs from the reference"
}

@test "gpu: FASTQ reads, gzip, stdin" {
    $REF gen --seed 9 --records 3000 --max-len 300 --fastq > "$T/r.fq"
    gzip -c "$T/r.fq" > "$T/r.fq.gz"
    $REF motifs --seed 9 -n 4 --min-len 4 --max-len 9 > "$T/m.tsv"
    same_as_cpu cuda "$T/m.tsv" "$T/r.fq.gz" -t 4
    seqgpu find -q -b cuda -f "$T/m.tsv" - < "$T/r.fq" > "$T/stdin"
    cmp -s "$T/cpu" "$T/stdin"
}

@test "gpu: bulge sites against the brute force's and the cpu's, small chunks, and an overflowing hit buffer" {
    OFF="python3 $ROOT/tests/ref_offtarget.py"
    $OFF gen --seed 62 --records 8 --length 20000 --guides 40 --max-mm 3 --bulges 2 "$T/g.fa" "$T/guides"
    printf '>short\n%s\n' "$(awk -F'\t' 'NR == 1 {print substr($2, 1, 7) substr($2, 9) "TGG"}' "$T/guides")" >> "$T/g.fa"
    for args in "-M 3 --pam NGG --dna-bulge 1 --rna-bulge 1" "-M 2 --pam NRG --dna-bulge 2 --rna-bulge 2 -F casoffinder3 --all-alignments" \
                "-M 3 --pam-5 TTTV --dna-bulge 2 --rna-bulge 1 -s - -F tsv" "-M 1 --dna-bulge 1 --rna-bulge 2" \
                "-M 4 --pam NGG --dna-bulge 0 --rna-bulge 2 --skip-masked --score cfd,mit -F tsv"; do
        $OFF find -f "$T/guides" $args "$T/g.fa" > "$T/want" || fail "reference failed: $args"
        for c in 1000 64M; do
            seqgpu find -q -b cuda --chunk-size $c -f "$T/guides" $args "$T/g.fa" > "$T/got" || fail "cuda failed: $args"
            cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got" | head -5; fail "cuda differs (chunks $c): $args"; }
        done
    done
    # 32-base windows (29 + NGG): DNA-bulge sites of 33 and 34 bases, past a word of the separator plane
    $OFF gen --seed 63 --records 6 --length 8000 --guides 12 --guide-len 29 --max-mm 2 --bulges 2 "$T/g29.fa" "$T/guides29"
    args="-M 2 --pam NGG --dna-bulge 2 --rna-bulge 2 -F tsv --all-alignments"
    $OFF find -f "$T/guides29" $args "$T/g29.fa" > "$T/want" || fail "reference failed: $args"
    grep -q '	DNA	2	' "$T/want" || fail "no DNA bulge of 2 in 32-base windows"
    for c in 1000 64M; do
        seqgpu find -q -b cuda --chunk-size $c -f "$T/guides29" $args "$T/g29.fa" > "$T/got" || fail "cuda failed: $args"
        cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got" | head -5; fail "cuda differs (32-base windows, chunks $c)"; }
    done
    # sites across the seams of 1 Mb device windows inside one chunk (SEQGPU_CUDA_MEM_LIMIT), both PAM sides
    python3 -c "
import random; random.seed(13)
print('>w'); print(''.join(random.choice('ACGT') for _ in range(2300000)))" > "$T/w.fa"
    printf 'n\tNNNNNNNNNN\n' > "$T/n.tsv"
    SEQGPU_CUDA_MEM_LIMIT=8M same_as_cpu cuda "$T/n.tsv" "$T/w.fa" --pam GGGA --dna-bulge 2 --rna-bulge 2 -F casoffinder3
    SEQGPU_CUDA_MEM_LIMIT=8M same_as_cpu cuda "$T/n.tsv" "$T/w.fa" --pam-5 TCCC --dna-bulge 2 --rna-bulge 2
    # 300 guides (a pattern list longer than a block), and an N guide: every GG a site, with each bulge
    $REF motifs --seed 9 -n 300 --min-len 20 --max-len 20 > "$T/many.tsv"
    same_as_cpu cuda "$T/many.tsv" "$T/g.fa" -M 3 --pam NGG --dna-bulge 1 --rna-bulge 1
    printf 'n\tNNNNNNNNNN\n' > "$T/n.tsv"
    same_as_cpu cuda "$T/n.tsv" "$T/g.fa" --pam GG --dna-bulge 2 --rna-bulge 2
    python3 -c "
import random; random.seed(12)
print('>one'); print(''.join(random.choice('ACGT') for _ in range(400000)))" > "$T/big.fa"
    same_as_cpu cuda "$T/n.tsv" "$T/big.fa" --pam G --dna-bulge 1
    run seqgpu find -q -b cuda -f "$T/n.tsv" --pam G --dna-bulge 1 --stats "$T/s.json" -o /dev/null "$T/big.fa"
    assert_success
    run python3 -c "import json; print(json.load(open('$T/s.json'))['device']['rescans'] > 0)"
    assert_output "True"
}

@test "gpu: a hit buffer that overflows is grown and the chunk scanned again" {
    python3 -c "
import random; random.seed(11)
print('>one'); print(''.join(random.choice('ACGTacgtN') for _ in range(2000000)))" > "$T/g.fa"
    printf 'a\tA\n' > "$T/m.tsv"
    SEQGPU_CUDA_MEM_LIMIT=64M same_as_cpu cuda "$T/m.tsv" "$T/g.fa"
    SEQGPU_CUDA_MEM_LIMIT=64M run seqgpu find -q -b cuda -m A --stats "$T/s.json" -o /dev/null "$T/g.fa"
    assert_success
    run python3 -c "import json; print(json.load(open('$T/s.json'))['device']['rescans'] > 0)"
    assert_output "True"
}

@test "gpu: chunks denser with hits than find holds are scanned in pieces: the cpu's bytes" {
    pieces_same_as_cpu cuda
}

@test "gpu: too little device memory fails with cuda, falls back with auto" {
    SEQGPU_CUDA_MEM_LIMIT=1M run seqgpu find -b cuda -m GAATTC "$LAMBDA"
    assert_failure 3
    assert_output --partial "too little for"
    heavy_guides
    seqgpu find -q -b cpu -f "$T/guides.tsv" -M 3 --pam NGG "$LAMBDA" > "$T/cpu"
    SEQGPU_PLAN_BASES=1e10 SEQGPU_CUDA_MEM_LIMIT=1M run seqgpu find -f "$T/guides.tsv" -M 3 --pam NGG -o "$T/auto" "$LAMBDA"
    assert_success
    assert_output --partial "using the cpu backend"
    cmp -s "$T/cpu" "$T/auto" || fail "the cpu's output differs after the fallback"
}

@test "gpu: a kernel fault stops -b cuda (exit 3); under auto the cpu finishes the run" {
    $REF gen --seed 13 --records 50 --max-len 20000 > "$T/g.fa"
    printf 'e\tGAATTC\nb\tGGTCTC\n' > "$T/m.tsv"
    seqgpu find -q -b cpu -f "$T/m.tsv" -M 1 --pam NGG "$T/g.fa" > "$T/cpu"
    SEQGPU_CUDA_FAULT=3 run seqgpu find -q -b cuda --chunk-size 64K -f "$T/m.tsv" -M 1 --pam NGG -o "$T/out.bed" "$T/g.fa"
    assert_failure 3
    assert_output --partial "CUDA device 0"
    [ ! -e "$T/out.bed" ]
    SEQGPU_PLAN_BASES=1e11 SEQGPU_CUDA_FAULT=3 run seqgpu find -q --chunk-size 64K -f "$T/m.tsv" -M 1 --pam NGG \
        -o "$T/out.bed" "$T/g.fa"
    assert_success
    assert_output --partial "the cpu backend scans the rest"
    cmp -s "$T/cpu" "$T/out.bed"
}

@test "gpu: a device index that does not exist is an error" {
    run seqgpu find -b cuda --device 99 -m A "$LAMBDA"
    assert_failure 3
    assert_output --partial "no CUDA device 99"
    run seqgpu find -b cuda --device x -m A "$LAMBDA"
    assert_failure 1
}
