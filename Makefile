# seqgpu. Honours CC, CFLAGS, CPPFLAGS, LDFLAGS, NVCC (CUDA_HOME, CUDA_INC, CUDA_LIB),
# CUDA, OPENCL, PREFIX and DESTDIR.
#   make            build bin/seqgpu (CUDA part when nvcc is on PATH, or NVCC or CUDA_HOME
#                   names one; CUDA=0 forces it off, OPENCL=0 the OpenCL part)
#   make test       unit and CLI tests, then again under ASan (leaks too) and UBSan
#   make check      the tests once, on the normal build
#   make asan / ubsan   sanitizer builds in build/asan, build/ubsan
#   make fuzz       libFuzzer runs (FUZZ_SECONDS each, default 60)
#   make mutants    the mutation check of the tests (tests/mutants/, docs/testing.md)
#   make demo       run examples/demo.sh     make bench   bench/ side by side with peers
#   make install    PREFIX=/usr/local DESTDIR= (copies what make built, with the same variables)

BUILD   ?= build
BIN     ?= bin
PREFIX  ?= /usr/local
DESTDIR ?=
CFLAGS  ?= -O3 -g
# Only what the environment offers: nvcc on PATH, or NVCC or CUDA_HOME set;
# never a toolkit found on disk (a packager's CUDA=0 build must not link it).
ifndef NVCC
NVCC    := $(if $(filter 0,$(CUDA)),,$(or $(shell command -v nvcc 2>/dev/null),$(if $(CUDA_HOME),$(wildcard $(CUDA_HOME)/bin/nvcc))))
endif
CUDA    ?= $(if $(strip $(NVCC)),1,0)

HTS_CFLAGS := $(shell pkg-config --cflags htslib 2>/dev/null)
HTS_LIBS   := $(or $(shell pkg-config --libs htslib 2>/dev/null),-lhts)

SG_CFLAGS  = -std=gnu11 -Wall -Wextra -pthread $(CFLAGS)
# includes name a file from the source root: "core/log.h", "formats/seqio.h", "cuda/runtime/util.h"
SG_INC     = -Isrc -I.
SG_CPPFLAGS = $(SG_INC) $(HTS_CFLAGS) $(CPPFLAGS)
SG_LIBS    = $(HTS_LIBS) -lz -lpthread -lm

# CUDA: machine code for Hopper (sm_90) plus PTX that any GPU from Turing
# (compute 7.5, the oldest nvcc 13 targets) compiles at load time. cudart is
# linked statically and finds the driver at run time, so the binary runs on
# machines without one (and falls back to the cpu backend there).
CUDA_HOME  ?= $(patsubst %/bin/,%,$(dir $(NVCC)))
CUDA_INC   ?= $(CUDA_HOME)/include
CUDA_LIB   ?= $(CUDA_HOME)/lib64
NVCC_ARCH  ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_75,code=compute_75
NVCCFLAGS  ?= -O3
ifeq ($(CUDA),1)
ifeq ($(strip $(NVCC)),)
$(error CUDA=1 but no nvcc: put it on PATH, or set NVCC or CUDA_HOME)
endif
CUDA_C_SRC  := $(sort $(wildcard cuda/*/*.c))
CUDA_CU_OBJ := $(patsubst cuda/%.cu,$(BUILD)/cuda/%.o,$(sort $(wildcard cuda/*/*.cu)))
SG_CPPFLAGS += -DSG_HAVE_CUDA -I$(CUDA_INC)
SG_LIBS     += -L$(CUDA_LIB) -lcudart_static -ldl -lrt -lstdc++
endif

# OpenCL: when the headers and the ICD loader (pkg-config OpenCL) are there.
OPENCL ?= $(shell printf '\043include <CL/cl.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && pkg-config --exists OpenCL 2>/dev/null && echo 1 || echo 0)
ifeq ($(OPENCL),1)
OPENCL_C_SRC := opencl/find/backend.c
SG_CPPFLAGS  += -DSG_HAVE_OPENCL
SG_LIBS      += $(or $(shell pkg-config --libs OpenCL 2>/dev/null),-lOpenCL)
endif

# ISA-L (libisal, pkg-config or its header): plain gzip inflated on all
# cores (formats/pgzip.c). Without it (ISAL=0, or not found) plain gzip is
# inflated on one thread, as zlib does.
ifndef ISAL
ISAL := $(shell { pkg-config --exists libisal || printf '\043include <isa-l/igzip_lib.h>\n' | $(CC) $(CPPFLAGS) -E -x c - ; } >/dev/null 2>&1 && echo 1 || echo 0)
ifeq ($(ISAL),0)
$(warning seqgpu: ISA-L not found (Debian libisal-dev, conda isa-l): plain gzip will be inflated on one thread)
endif
endif
ifeq ($(ISAL),1)
SG_CPPFLAGS += -DSG_HAVE_ISAL $(shell pkg-config --cflags libisal 2>/dev/null)
SG_LIBS     += $(or $(shell pkg-config --libs libisal 2>/dev/null),-lisal)
endif

# the layers (docs/design.md): core, formats, the two pipelines (find's and
# scc's; scc's de Bruijn graph in dbg/, its overlap graph in overlap/), the
# registry; each command's options in its pipeline's cli.c
SHARED_SRC := $(wildcard src/core/*.c) $(wildcard formats/*.c) src/registry.c
FIND_SRC   := $(filter-out src/find/cli.c,$(wildcard src/find/*.c))
SCC_SRC    := $(filter-out src/scc/cli.c src/scc/dbg/kmers.c,$(wildcard src/scc/*.c src/scc/*/*.c))
CORE_SRC := $(SHARED_SRC) $(FIND_SRC) $(SCC_SRC) $(CUDA_C_SRC) $(OPENCL_C_SRC)
# the cpu k-mer table, compiled once per key width (64 and 128 bits)
SCC_KMERS_OBJ := $(BUILD)/src/scc/dbg/kmers64.o $(BUILD)/src/scc/dbg/kmers128.o
CLI_SRC  := src/main.c src/find/cli.c src/scc/cli.c
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o) $(SCC_KMERS_OBJ) $(CUDA_CU_OBJ)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(wildcard tests/unit_*.c)
UNIT_BIN := $(UNIT_SRC:tests/%.c=$(BUILD)/tests/%)

.PHONY: all test check asan ubsan test-asan test-ubsan fuzz fuzz-ci fuzz-build demo bench install clean deps test-deps units mutants FORCE
all: $(BIN)/seqgpu

$(BIN)/seqgpu: $(CLI_OBJ) $(BUILD)/libseqgpu.a
	@mkdir -p $(BIN)
	$(CC) $(SG_CFLAGS) $(LDFLAGS) -o $@ $^ $(SG_LIBS)

$(BUILD)/libseqgpu.a: $(CORE_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# rebuild everything when the flags change (CFLAGS, CUDA=0, OPENCL=0, ...)
FLAGS_NOW = $(CC) $(SG_CPPFLAGS) $(SG_CFLAGS) $(LDFLAGS) $(SG_LIBS) $(if $(CUDA_C_SRC),$(NVCC) $(NVCCFLAGS) $(NVCC_ARCH))
$(BUILD)/flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(FLAGS_NOW)' | cmp -s - $@ || echo '$(FLAGS_NOW)' > $@
FORCE:

$(BUILD)/%.o: %.c $(BUILD)/flags
	@mkdir -p $(dir $@)
	$(CC) $(SG_CPPFLAGS) $(SG_CFLAGS) -MMD -MP -c -o $@ $<

$(SCC_KMERS_OBJ): $(BUILD)/src/scc/dbg/kmers%.o: src/scc/dbg/kmers.c $(BUILD)/flags
	@mkdir -p $(dir $@)
	$(CC) $(SG_CPPFLAGS) $(SG_CFLAGS) -DSG_KMER_BITS=$* -MMD -MP -c -o $@ $<

# the OpenCL kernels, embedded as a C string
$(BUILD)/opencl/find_kernels_cl.h: opencl/find/kernels.cl
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@

$(BUILD)/opencl/find/backend.o: $(BUILD)/opencl/find_kernels_cl.h
$(BUILD)/opencl/find/backend.o: SG_CPPFLAGS += -I$(BUILD)/opencl

$(BUILD)/cuda/%.o: cuda/%.cu $(BUILD)/flags
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -std=c++17 $(NVCC_ARCH) $(SG_INC) -MMD -MP -MF $(@:.o=.d) -MT $@ -c -o $@ $<

$(BUILD)/tests/%: tests/%.c $(wildcard tests/*.h) $(BUILD)/libseqgpu.a
	@mkdir -p $(dir $@)
	$(CC) $(SG_CPPFLAGS) $(SG_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libseqgpu.a $(SG_LIBS)

$(BUILD)/bench/cuda_start: bench/cuda_start.c
	@mkdir -p $(dir $@)
	$(CC) $(SG_CFLAGS) -I$(CUDA_INC) $(LDFLAGS) -o $@ $< -L$(CUDA_LIB) -lcudart_static -ldl -lrt -lpthread

# CUB against the hand-written kernels it could replace (docs/gpu.md): needs a CUDA device to run
$(BUILD)/bench/cub_%: bench/cub_%.cu bench/cub_bench.h $(BUILD)/libseqgpu.a
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -std=c++17 $(NVCC_ARCH) $(SG_INC) -o $@ $< $(BUILD)/libseqgpu.a $(HTS_LIBS) -lz -lpthread -lm

# the inflate engines side by side (bench/input_bench.sh): needs ISA-L and libdeflate
$(BUILD)/bench/inflate_bench: bench/inflate_bench.c $(BUILD)/libseqgpu.a
	@mkdir -p $(dir $@)
	$(CC) $(SG_CPPFLAGS) $(SG_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libseqgpu.a $(SG_LIBS) \
	    $(or $(shell pkg-config --libs libdeflate 2>/dev/null),-ldeflate)

$(BUILD)/bench/%: bench/%.c bench/rng.h src/core/dna.h
	@mkdir -p $(dir $@)
	$(CC) $(SG_INC) $(SG_CFLAGS) $(LDFLAGS) -o $@ $< -lm

-include $(CORE_OBJ:.o=.d) $(CLI_OBJ:.o=.d)

# Install what building needs (htslib, zlib, a C compiler) when it is missing.
deps:
	@sh .ci/deps build

test-deps:
	@sh .ci/deps test

# the last line is the total over all runs: "N passed, N failed, N skipped"
TALLY := $(CURDIR)/build/test-tally
test: test-deps
	@mkdir -p build && : > $(TALLY)
	@st=0; for t in check test-asan test-ubsan fuzz-ci; do \
	    SEQGPU_TALLY=$(TALLY) $(MAKE) --no-print-directory $$t || st=1; \
	done; \
	awk '{p += $$1; f += $$2; s += $$3} END {printf "%d passed, %d failed, %d skipped\n", p, f, s}' $(TALLY); \
	exit $$st

# TESTS="unit_scc_gpu find_gpu ..." runs only those suites
check:
	@$(MAKE) --no-print-directory all units
	@BUILD=$(BUILD) SEQGPU=$(CURDIR)/$(BIN)/seqgpu sh tests/run.sh $(TESTS)

# the unit tests, and the graph generator scc_gpu.bats feeds to auto
units: $(UNIT_BIN) $(BUILD)/bench/gen_graph

# Sanitizer builds: CUDA off (ASan and the static CUDA runtime do not mix).
SAN_FLAGS = -O1 -g -fno-omit-frame-pointer
asan:
	@$(MAKE) --no-print-directory BUILD=build/asan BIN=build/asan/bin CUDA=0 \
	    CFLAGS="$(SAN_FLAGS) -fsanitize=address" LDFLAGS="$(LDFLAGS) -fsanitize=address" all units
ubsan:
	@$(MAKE) --no-print-directory BUILD=build/ubsan BIN=build/ubsan/bin CUDA=0 \
	    CFLAGS="$(SAN_FLAGS) -fsanitize=undefined -fno-sanitize-recover=all" \
	    LDFLAGS="$(LDFLAGS) -fsanitize=undefined" all units
test-asan: asan
	@echo "# under AddressSanitizer and LeakSanitizer"
	@BUILD=build/asan SEQGPU=$(CURDIR)/build/asan/bin/seqgpu SEQGPU_SANITIZER=asan \
	    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86 \
	    LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 sh tests/run.sh $(TESTS)
test-ubsan: ubsan
	@echo "# under UndefinedBehaviorSanitizer"
	@BUILD=build/ubsan SEQGPU=$(CURDIR)/build/ubsan/bin/seqgpu SEQGPU_SANITIZER=ubsan \
	    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 sh tests/run.sh $(TESTS)

# The mutation check: each tests/mutants/*.patch built and tested on a copy
# of the tree (MUTANTS="name ..." for some). Long, so not part of make test.
mutants:
	@sh tests/mutants/run.sh $(MUTANTS)

demo: deps
	@$(MAKE) --no-print-directory all
	@sh examples/demo.sh

bench: all $(BUILD)/bench/gen_genome $(BUILD)/bench/sim_reads $(BUILD)/bench/gen_graph
	@sh .ci/deps bench
	@sh bench/find_bench.sh
	@sh bench/scc_bench.sh

# libFuzzer harnesses (clang): the reader, the motif compiler, the GFA and edge-list readers,
# plain gzip on all cores, the .2bit reader,
# the k-mer counts file reader, PAF.
# New inputs go to build/fuzz/corpus_*, crashes to build/fuzz/crash-*; a crash
# input belongs in tests/fuzz/regressions/NAME/, which fuzz-ci replays.
FUZZ_CC      ?= clang
FUZZERS      := reader motif gfa counts paf gzip twobit
FUZZ_SECONDS ?= 60
FUZZ_SAN     := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_util.h $(BUILD)/libseqgpu.a
	$(CC) $(SG_CPPFLAGS) $(SG_CFLAGS) -fsanitize=fuzzer $(LDFLAGS) -o $@ $< $(BUILD)/libseqgpu.a $(SG_LIBS)
fuzz-build:
	@command -v $(FUZZ_CC) >/dev/null || { echo "fuzz: $(FUZZ_CC) is not installed (apt-get install clang libclang-rt-14-dev)"; exit 1; }
	@$(MAKE) --no-print-directory BUILD=build/fuzz BIN=build/fuzz/bin CC=$(FUZZ_CC) CUDA=0 OPENCL=0 \
	    CFLAGS="-g -O1 $(FUZZ_SAN)" LDFLAGS="$(LDFLAGS) -fsanitize=address,undefined" \
	    $(FUZZERS:%=build/fuzz/fuzz_%)
# Each run is one test: "ok" when the harness exits 0 (no crash, no failed
# check, no timeout), and its line goes to SEQGPU_TALLY as "passed failed skipped".
FUZZ_TALLY = { [ -z "$$SEQGPU_TALLY" ] || echo "$$t" >> "$$SEQGPU_TALLY"; }
fuzz: fuzz-build
	@st=0; for f in $(FUZZERS); do \
	    mkdir -p build/fuzz/corpus_$$f; \
	    echo "# fuzz_$$f for $(FUZZ_SECONDS) s"; \
	    build/fuzz/fuzz_$$f -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	        -artifact_prefix=build/fuzz/crash-$$f- build/fuzz/corpus_$$f tests/fuzz/corpus/$$f > build/fuzz/fuzz_$$f.log 2>&1; \
	    r=$$?; \
	    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|==|SUMMARY|INFO: Running with|ERROR|  check failed)" build/fuzz/fuzz_$$f.log; \
	    if [ $$r -eq 0 ]; then echo "ok - fuzz_$$f"; t="1 0 0"; \
	    else echo "not ok - fuzz_$$f: exit status $$r (build/fuzz/fuzz_$$f.log; crash inputs in build/fuzz/)"; t="0 1 0"; st=1; fi; \
	    $(FUZZ_TALLY); \
	done; exit $$st
# the regression inputs (one per bug found) replayed, then a few seconds of fuzzing
fuzz-ci: fuzz-build
	@st=0; for f in $(FUZZERS); do \
	    [ -d tests/fuzz/regressions/$$f ] || continue; \
	    if build/fuzz/fuzz_$$f tests/fuzz/regressions/$$f/* > build/fuzz/regressions_$$f.log 2>&1; then \
	        echo "ok - fuzz_$$f: $$(ls tests/fuzz/regressions/$$f | wc -l) regression inputs"; t="1 0 0"; \
	    else \
	        grep -E "^(==|SUMMARY|Running|  check failed)" build/fuzz/regressions_$$f.log; \
	        echo "not ok - fuzz_$$f: a regression input fails again (build/fuzz/regressions_$$f.log)"; t="0 1 0"; st=1; \
	    fi; \
	    $(FUZZ_TALLY); \
	done; exit $$st
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$${FUZZ_SECONDS:-5}

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN)/seqgpu $(DESTDIR)$(PREFIX)/bin/seqgpu
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf $(BUILD) bin
