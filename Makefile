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
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux

CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
	    -Wmissing-prototypes -Wstrict-prototypes -Wshadow -Wformat=2 \
	    -D_GNU_SOURCE -I$(OUT) -Iloader -Ibpf
LDLIBS   := -lbpf -lelf -lz -ljson-c -lnftables -lmnl -lcrypto -lpthread -lm
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	      -I$(OUT) -Ibpf

BPF_SRCS := $(wildcard bpf/*.bpf.c)
SKELS    := $(patsubst bpf/%.bpf.c,$(OUT)/%.skel.h,$(BPF_SRCS))
LOADER_SRCS := $(wildcard loader/*.c loader/*/*.c)
LOADER_OBJS := $(patsubst loader/%.c,$(OUT)/loader/%.o,$(LOADER_SRCS))
LIB_OBJS := $(filter-out $(OUT)/loader/main.o,$(LOADER_OBJS))
TEST_SRCS := $(wildcard tests/unit/*.c)
TEST_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(TEST_SRCS))

.PHONY: all clean deps test unit kernels fuzz
all: foliobench

foliobench: $(LOADER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(OUT)/vmlinux.h: | $(OUT)
	$(call msg,GEN,$@)
	$(Q)test -r $(VMLINUX_BTF) || { echo "no BTF at $(VMLINUX_BTF): set VMLINUX_BTF=" >&2; exit 1; }
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(OUT)/%.bpf.o: bpf/%.bpf.c $(OUT)/vmlinux.h $(wildcard bpf/*.h) | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# -MMD: each object depends on the headers it includes, nothing more.  The
# skeletons are generated headers, so they must exist before the first
# compile of the files that include them (measure/probes.c, locks.c).
$(OUT)/loader/measure/probes.o $(OUT)/loader/measure/locks.o: $(SKELS)
$(OUT)/loader/%.o: loader/%.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(OUT)/tests/%: tests/unit/%.c $(LIB_OBJS) | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(OUT):
	$(Q)mkdir -p $(OUT)/loader $(OUT)/tests

unit: $(TEST_BINS)

test: foliobench unit
	$(Q)bash tests/run.sh

kernels: foliobench
	$(Q)./foliobench kernel build --all

deps:
	$(Q)bash scripts/deps.sh

-include $(LOADER_OBJS:.o=.d)

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUT) foliobench
