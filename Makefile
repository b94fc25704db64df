# seqgpu. Honours CC, CFLAGS, CPPFLAGS, LDFLAGS, NVCC, PREFIX and DESTDIR.
#   make            build bin/seqgpu (CUDA part when nvcc is found; CUDA=0 forces it off)
#   make test       unit and CLI tests          make demo    run examples/demo.sh
#   make bench      bench/ side by side with seqkit
#   make install    PREFIX=/usr/local DESTDIR=

BUILD   := build
PREFIX  ?= /usr/local
DESTDIR ?=
CFLAGS  ?= -O3 -g
NVCC    ?= $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
CUDA    ?= $(if $(strip $(NVCC)),1,0)

HTS_CFLAGS := $(shell pkg-config --cflags htslib 2>/dev/null)
HTS_LIBS   := $(or $(shell pkg-config --libs htslib 2>/dev/null),-lhts)

SG_CFLAGS  = -std=gnu11 -Wall -Wextra -pthread $(CFLAGS)
SG_CPPFLAGS = $(HTS_CFLAGS) $(CPPFLAGS)
SG_LIBS    = $(HTS_LIBS) -lz -lpthread -lm

# CUDA: machine code for Hopper (sm_90) plus PTX that any GPU from Turing
# (compute 7.5, the oldest nvcc 13 targets) compiles at load time. cudart is
# linked statically and finds the driver at run time, so the binary runs on
# machines without one (and falls back to the cpu backend there).
CUDA_HOME  ?= $(patsubst %/bin/,%,$(dir $(NVCC)))
NVCC_ARCH  ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_75,code=compute_75
NVCCFLAGS  ?= -O3
ifeq ($(CUDA),1)
CUDA_C_SRC  := cuda/backend_cuda.c
CUDA_CU_OBJ := $(BUILD)/cuda/find_kernels.o
SG_CPPFLAGS += -DSG_HAVE_CUDA -I$(CUDA_HOME)/include
SG_LIBS     += -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lstdc++
endif

# OpenCL: when the headers and the ICD loader (pkg-config OpenCL) are there.
OPENCL ?= $(shell printf '\043include <CL/cl.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && pkg-config --exists OpenCL 2>/dev/null && echo 1 || echo 0)
ifeq ($(OPENCL),1)
OPENCL_C_SRC := opencl/backend_opencl.c
SG_CPPFLAGS  += -DSG_HAVE_OPENCL
SG_LIBS      += $(or $(shell pkg-config --libs OpenCL 2>/dev/null),-lOpenCL)
endif

CORE_SRC := src/log.c src/cli.c src/pipeline.c src/motif.c src/chunk.c src/input.c src/hits.c src/kernels.c \
            src/kmer.c src/graph.c src/repeats.c formats/gfa.c \
            src/backend.c src/backend_cpu.c formats/seqio.c formats/output.c formats/json.c $(CUDA_C_SRC) $(OPENCL_C_SRC)
CLI_SRC  := src/main.c src/find.c src/scc.c
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o) $(CUDA_CU_OBJ)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(wildcard tests/unit_*.c)
UNIT_BIN := $(UNIT_SRC:tests/%.c=$(BUILD)/tests/%)

.PHONY: all test demo bench install clean deps test-deps units FORCE
all: bin/seqgpu

bin/seqgpu: $(CLI_OBJ) $(BUILD)/libseqgpu.a
	@mkdir -p bin
	$(CC) $(SG_CFLAGS) $(LDFLAGS) -o $@ $^ $(SG_LIBS)

$(BUILD)/libseqgpu.a: $(CORE_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# rebuild everything when the flags change (CFLAGS, CUDA=0, OPENCL=0, ...)
FLAGS_NOW = $(CC) $(SG_CPPFLAGS) $(SG_CFLAGS) $(LDFLAGS) $(SG_LIBS) $(NVCC) $(NVCCFLAGS) $(NVCC_ARCH)
$(BUILD)/flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(FLAGS_NOW)' | cmp -s - $@ || echo '$(FLAGS_NOW)' > $@
FORCE:

$(BUILD)/%.o: %.c $(BUILD)/flags
	@mkdir -p $(dir $@)
	$(CC) $(SG_CPPFLAGS) $(SG_CFLAGS) -MMD -MP -c -o $@ $<

# the OpenCL kernels, embedded as a C string
$(BUILD)/opencl/find_kernels_cl.h: opencl/find_kernels.cl
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@

$(BUILD)/opencl/backend_opencl.o: $(BUILD)/opencl/find_kernels_cl.h
$(BUILD)/opencl/backend_opencl.o: SG_CPPFLAGS += -I$(BUILD)/opencl

$(BUILD)/cuda/%.o: cuda/%.cu cuda/find_kernels.h $(BUILD)/flags
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -std=c++17 $(NVCC_ARCH) -c -o $@ $<

$(BUILD)/tests/%: tests/%.c $(BUILD)/libseqgpu.a
	@mkdir -p $(dir $@)
	$(CC) $(SG_CPPFLAGS) $(SG_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libseqgpu.a $(SG_LIBS)

$(BUILD)/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(SG_CFLAGS) $(LDFLAGS) -o $@ $<

-include $(CORE_SRC:%.c=$(BUILD)/%.d) $(CLI_OBJ:.o=.d)

# Install what building needs (htslib, zlib, a C compiler) when it is missing.
deps:
	@sh .ci/deps build

test-deps:
	@sh .ci/deps test

test: test-deps
	@$(MAKE) --no-print-directory all units
	@sh tests/run.sh

units: $(UNIT_BIN)

demo: deps
	@$(MAKE) --no-print-directory all
	@sh examples/demo.sh

bench: all $(BUILD)/bench/gen_genome $(BUILD)/bench/sim_reads
	@sh .ci/deps bench
	@sh bench/find_bench.sh
	@sh bench/scc_bench.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 bin/seqgpu $(DESTDIR)$(PREFIX)/bin/seqgpu
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf $(BUILD) bin
