# foliobench - build the loader (./foliobench) and its CO-RE BPF programs.
#   make            build ./foliobench
#   make deps       install the Debian 12 packages needed to build and test
#   make test       unit tests + host run + guest integration (see README)
#   make kernels    build the baseline and patched guest kernels (cached)
#   make V=1        show commands
.DELETE_ON_ERROR:
.SUFFIXES:

V ?= 0
ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

OUT      := build
CC       ?= gcc
CLANG    ?= clang
BPFTOOL  ?= bpftool
ARCH     := x86

CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
	    -Wmissing-prototypes -Wstrict-prototypes -Wshadow -Wformat=2 \
	    -D_GNU_SOURCE -I$(OUT) -Iloader -Ibpf
LDLIBS   := -lbpf -lelf -lz -ljson-c -lnftables -lmnl -lcrypto -lsqlite3 -lpthread -lm
# -fms-extensions: since 7.x the kernel embeds tagged structs anonymously
# (struct ns_tree; inside struct ns_common), which vmlinux.h reproduces.
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	      -fms-extensions -Wno-microsoft-anon-tag \
	      -I$(OUT) -Ibpf

BPF_SRCS := $(wildcard bpf/*.bpf.c)
SKELS    := $(patsubst bpf/%.bpf.c,$(OUT)/%.skel.h,$(BPF_SRCS))
LOADER_SRCS := $(wildcard loader/*.c loader/*/*.c loader/*/*/*.c)
LOADER_OBJS := $(patsubst loader/%.c,$(OUT)/loader/%.o,$(LOADER_SRCS))
LIB_OBJS := $(filter-out $(OUT)/loader/main.o,$(LOADER_OBJS))
TEST_SRCS := $(wildcard tests/unit/*.c)
TEST_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(TEST_SRCS))
SIM_BINS := $(patsubst tests/sim/%.c,$(OUT)/sim/%,$(wildcard tests/sim/*.c))

.PHONY: all clean deps test unit sim kernels fuzz vmlinux-h
all: foliobench

foliobench: $(LOADER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# vmlinux.h is generated from the pinned guest kernel's BTF (the baseline
# perf flavour, the kernels these programs run in) and kept in the tree, as
# libbpf-tools keep theirs: the build never depends on the build host
# exposing /sys/kernel/btf/vmlinux, and CO-RE relocates to any kernel with
# BTF.  `make vmlinux-h` regenerates it (builds that kernel if needed).
VMLINUX_H := bpf/vmlinux.h
vmlinux-h: foliobench
	$(call msg,GEN,$(VMLINUX_H))
	$(Q)k=$$(./foliobench kernel build --arm baseline --flavour perf | tail -1) && \
	  $(BPFTOOL) btf dump file $$k/vmlinux format c > $(VMLINUX_H).tmp && \
	  mv $(VMLINUX_H).tmp $(VMLINUX_H)

$(OUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# -MMD: each object depends on the headers it includes, nothing more.  The
# skeletons are generated headers, so they must exist before the first
# compile of the files that include them (measure/probes.c, locks.c,
# lockrows.c, tprows.c).
$(OUT)/loader/measure/probes.o $(OUT)/loader/measure/locks.o \
	$(OUT)/loader/measure/lockrows.o $(OUT)/loader/measure/tprows.o $(OUT)/loader/measure/session.o: $(SKELS)
$(OUT)/loader/%.o: loader/%.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# Each unit test links only the floors it tests (loader/README.md): a test
# of the model cannot pass by accident through code it does not name.
O := $(OUT)/loader
T_MODEL := $(O)/model/results.o $(O)/model/results_scan.o $(O)/model/hist.o $(O)/model/counts.o $(O)/model/rounds.o \
	   $(O)/model/clock.o $(O)/util/util.o
T_WL := $(patsubst loader/%.c,$(O)/%.o,$(wildcard loader/workloads/*.c))
T_DEPS_test_hist := $(O)/model/hist.o $(O)/util/util.o
T_DEPS_test_util := $(O)/util/util.o $(O)/util/cli.o
T_DEPS_test_results := $(T_MODEL)
T_DEPS_test_clock := $(T_MODEL)
T_DEPS_test_vm := $(O)/guest/qemu.o $(O)/guest/outcome.o $(O)/guest/guest_opts.o \
		  $(O)/model/clock.o $(O)/util/cli.o $(O)/util/util.o
T_DEPS_test_shard := $(O)/guest/shard.o $(O)/util/util.o $(O)/util/cli.o
T_DEPS_test_stats := $(O)/analysis/compare/stats.o $(O)/util/util.o
T_DEPS_test_compare := $(patsubst loader/%.c,$(O)/%.o,$(wildcard loader/analysis/*/*.c)) \
		       $(O)/util/cli.o $(T_MODEL)
T_DEPS_test_gate := $(T_DEPS_test_compare)
T_DEPS_test_claims := $(T_DEPS_test_compare)
T_DEPS_test_workloads := $(T_WL) $(T_MODEL)
T_DEPS_test_changepoint := $(O)/analysis/history/changepoint.o $(O)/analysis/history/cp_synth.o \
			   $(O)/analysis/compare/stats.o $(O)/util/util.o
T_DEPS_test_history := $(T_DEPS_test_compare)
T_DEPS_test_rounds := $(O)/model/rounds.o $(T_MODEL)
T_DEPS_test_catalogue := $(O)/measure/catalogue.o $(O)/measure/attach.o $(T_WL) $(T_MODEL)
T_DEPS_test_adhoc := $(O)/measure/adhoc.o $(O)/measure/ksyms.o $(O)/util/symspec.o \
		     $(O)/util/cli.o $(T_DEPS_test_catalogue)

.SECONDEXPANSION:
$(OUT)/tests/%: tests/unit/%.c $$(or $$(T_DEPS_$$*),$$(LIB_OBJS)) \
		$(wildcard tests/unit/*.h tests/sim/*.h) | $(OUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Itests/sim -o $@ $(filter %.c %.o,$^) $(LDLIBS)

# simulations on synthetic rounds (not run by the tests; see each file's head)
$(OUT)/sim/%: tests/sim/%.c $(T_DEPS_test_compare) $(wildcard tests/sim/*.h) | $(OUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Itests/sim -o $@ $(filter %.c %.o,$^) $(LDLIBS)

# host tests in C: root, BPF on this kernel; run by tests/host-test.sh, not
# by the unit group
HOST_BINS := $(patsubst tests/host/%.c,$(OUT)/host/%,$(wildcard tests/host/*.c))
$(OUT)/host/%: tests/host/%.c $(LIB_OBJS) tests/unit/tap.h | $(OUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Itests/unit -o $@ $(filter %.c %.o,$^) $(LDLIBS)

$(OUT):
	$(Q)mkdir -p $(OUT)/loader $(OUT)/tests

unit: $(TEST_BINS) $(SIM_BINS)

sim: $(SIM_BINS)

test: foliobench unit $(HOST_BINS)
	$(Q)bash tests/run.sh

kernels: foliobench
	$(Q)./foliobench kernel build --all

deps:
	$(Q)bash scripts/deps.sh

-include $(LOADER_OBJS:.o=.d)

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUT) foliobench
