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

.PHONY: all clean deps test unit sim kernels fuzz print-fuzz-srcs vmlinux-h plugin
all: foliobench plugin

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
T_MODEL := $(O)/util/outfile.o $(O)/model/results.o $(O)/model/results_scan.o $(O)/model/hist.o $(O)/model/counts.o $(O)/model/rounds.o \
	   $(O)/model/clock.o $(O)/util/util.o
T_MODEL += $(O)/model/jsonfile.o $(O)/util/infile.o
T_WL := $(patsubst loader/%.c,$(O)/%.o,$(wildcard loader/workloads/*.c))
T_DEPS_test_hist := $(O)/model/hist.o $(O)/util/util.o
T_DEPS_test_util := $(O)/util/util.o $(O)/util/cli.o
T_DEPS_test_files := $(O)/util/util.o $(O)/util/infile.o $(O)/util/pathtrust.o
T_DEPS_test_outfile := $(O)/util/outfile.o $(O)/util/util.o
T_DEPS_test_results := $(T_MODEL)
T_DEPS_test_clock := $(T_MODEL)
T_DEPS_test_vm := $(O)/guest/qemu.o $(O)/guest/outcome.o $(O)/guest/guest_opts.o \
		  $(O)/measure/observer.o $(O)/model/clock.o $(O)/util/cli.o $(O)/util/util.o
T_DEPS_test_shard := $(O)/guest/shard.o $(O)/util/util.o $(O)/util/cli.o
T_DEPS_test_stats := $(O)/analysis/compare/stats.o $(O)/util/util.o
T_DEPS_test_compare := $(patsubst loader/%.c,$(O)/%.o,$(wildcard loader/analysis/*/*.c)) \
		       $(O)/util/cli.o $(T_MODEL)
T_DEPS_test_compare_bad := $(T_DEPS_test_compare)
T_DEPS_test_gate := $(T_DEPS_test_compare)
T_DEPS_test_expect := $(T_DEPS_test_compare)
T_DEPS_test_claims := $(T_DEPS_test_compare)
T_DEPS_test_expfile := $(T_DEPS_test_compare)
T_DEPS_test_workloads := $(T_WL) $(T_MODEL)
T_DEPS_test_changepoint := $(O)/analysis/history/changepoint.o $(O)/analysis/history/cp_synth.o \
			   $(O)/analysis/compare/stats.o $(O)/util/util.o
T_DEPS_test_history := $(T_DEPS_test_compare)
T_DEPS_test_history_migrate := $(T_DEPS_test_compare)
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

# studies (synthetic rounds, pools of real ones): built by `make unit` so
# they keep compiling, never run by make test (see each file's head)
$(OUT)/sim/%: tests/sim/%.c $(T_DEPS_test_compare) $(wildcard tests/sim/*.h) | $(OUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Itests/sim -o $@ $(filter %.c %.o,$^) $(LDLIBS)

# host tests in C: root, BPF on this kernel; run by tests/host/host-test.sh, not
# by the unit group
HOST_BINS := $(patsubst tests/host/%.c,$(OUT)/host/%,$(wildcard tests/host/*.c))
$(OUT)/host/%: tests/host/%.c $(LIB_OBJS) tests/unit/tap.h | $(OUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Itests/unit -o $@ $(filter %.c %.o,$^) $(LDLIBS)

# The fuzzers (tests/fuzz/run.sh, clang + sanitizers) compile the floors
# from source: the same lists the unit tests link, so a file split off one
# of them is fuzzed as it is unit-tested, and cannot break the fuzz build.
# `make -s print-fuzz-srcs`: one line per fuzzer, NAME: SOURCES, then
# ldlibs: LIBRARIES.  A fuzzer with no FUZZ_DEPS_ line gets every floor.
FUZZ_DEPS_fuzz_results := $(T_DEPS_test_results)
FUZZ_DEPS_fuzz_compare := $(T_DEPS_test_compare)
FUZZ_DEPS_fuzz_rounds := $(T_DEPS_test_rounds)
FUZZ_NAMES := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/*.c))
print-fuzz-srcs:
	@$(foreach f,$(FUZZ_NAMES),echo '$(f): $(sort $(patsubst $(O)/%.o,loader/%.c,$(or $(FUZZ_DEPS_$(f)),$(LIB_OBJS))))';)
	@echo 'ldlibs: $(LDLIBS)'

fuzz:
	$(Q)bash tests/fuzz/run.sh

$(OUT):
	$(Q)mkdir -p $(OUT)/loader $(OUT)/tests

# The TCG plugin observer (plugin/, docs/observer.md), loaded by `vm`/`ab
# --observer plugin`.  qemu's plugin API header is fetched and checksum-pinned
# into the cache by scripts/qemu-plugin-h.sh (once; nothing vendored).
FB_CACHE ?= /var/cache/foliobench
QEMU_PLUGIN_H := $(FB_CACHE)/qemu-plugin/qemu-7.2.0/qemu-plugin.h
PLUGIN := $(OUT)/plugin/fbobs.so
plugin: $(PLUGIN)
$(QEMU_PLUGIN_H):
	$(call msg,FETCH,$@)
	$(Q)FB_CACHE=$(FB_CACHE) bash scripts/qemu-plugin-h.sh >/dev/null
$(PLUGIN): plugin/fbobs.c plugin/fbholds.c plugin/fbobs.h bpf/fbhist.h $(QEMU_PLUGIN_H) | $(OUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -g -Wall -Wextra -Werror \
		-Wmissing-prototypes -Wshadow -fPIC -shared -I$(dir $(QEMU_PLUGIN_H)) -Ibpf -o $@ $(filter %.c,$^)

unit: $(TEST_BINS) $(SIM_BINS)

sim: $(SIM_BINS)

test: foliobench $(PLUGIN) unit $(HOST_BINS)
	$(Q)bash tests/run.sh

kernels: foliobench
	$(Q)./foliobench kernel build --all

deps:
	$(Q)bash scripts/deps.sh

-include $(LOADER_OBJS:.o=.d)

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUT) foliobench
