# SPDX-License-Identifier: GPL-2.0
#
# tcmx: four out-of-tree modules, built per kernel in build/<kver>/ so the
# .ko for several kernels coexist (6.1's kbuild cannot put external-module
# output anywhere but M=). Tests and the demo run in a QEMU VM (tools/vm).
#
#   make [KVER=ver | KDIR=dir]   build (default: the VM's 6.1 kernel);
#                                 ver: a release or a tools/internal/kver name (6.12-rt)
#   make check [KVERS="6.1 ..."]  build + run tests/ in one VM per kernel;
#                                 KVERS=debug: on the debug kernel (KASAN,
#                                 lockdep, kmemleak...), built once by
#                                 tools/debug-kernel (40-66 min, see README)
#   make demo                     targetcli, lsscsi, fio on tcmx and the
#                                 in-tree LIO in the VM, side by side
#   make conformance [CONF_KVERS="6.1 6.12"]  libiscsi's suite on tcmx and
#                                 the in-tree LIO, table into CONFORMANCE.md
#   make install [KVER=ver...] [INTREE=1]   DKMS, as root (see README)
#   make uninstall                remove all that make install put in place
#   make sparse [KVER=ver]        the build under sparse (C=2): no warning
#   make layers                   tools/layers: no circle between files, no
#                                 file over 800 lines, no function over 60
#   make deps | checkpatch | clean | load | unload (load: on a real host)

ifneq ($(KDIR),)
KVER ?= $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' \
		$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
endif
# make install's kernels: KVER as given, else the running kernel
INSTALL_KVER := $(or $(KVER),$(shell uname -r))
ifneq ($(filter command line environment,$(origin KVER)),)
override KVER := $(or $(shell tools/internal/kver $(KVER) 2>/dev/null),$(KVER))
endif
KVER ?= $(shell tools/internal/kver 6.1 2>/dev/null)
KDIR ?= /lib/modules/$(KVER)/build
KVERS ?= 6.1 6.12 6.1-rt 6.12-rt
W ?= 1

MODDIRS := target rd_mcp loopback iscsi
SRCS := Kbuild $(filter-out %.mod.c, \
	$(wildcard $(foreach d,$(MODDIRS),$(d)/Kbuild $(d)/*.c $(d)/*.h)))
B := build/$(KVER)
KOS := target/tcmx_core.ko rd_mcp/tcmx_rd.ko loopback/tcmx_loop.ko iscsi/tcmx_iscsi.ko
CHECKPATCH := /usr/src/linux-source-6.1/scripts/checkpatch.pl

all: modules

# Copy the sources into build/<kver>/ (rsync keeps unchanged files'
# times, so kbuild rebuilds only what changed) and build there.
modules:
	@test -n "$(KVER)" -a -d "$(KDIR)" || { echo \
	  "no kernel headers for '$(KVER)' in '$(KDIR)': make deps, or KDIR=..."; \
	  exit 1; }
	@mkdir -p $(B)
	@if command -v rsync >/dev/null; then rsync -a -R $(SRCS) $(B)/; \
	 else cp -pu --parents $(SRCS) $(B)/; fi
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(B) W=$(W) \
		CONFIG_DEBUG_INFO_BTF_MODULES= modules

# sparse (Debian's sparse package) on every file, quiet or it fails:
# C=2 checks all sources even when their objects are up to date
sparse:
	@command -v sparse >/dev/null || tools/deps
	@mkdir -p $(B)
	@$(MAKE) -s --no-print-directory modules C=2 2>&1 | tee $(B)/sparse.log
	@! grep -qE 'warning:|error:' $(B)/sparse.log

# As root: DKMS build + install for the running kernel or KVER (several
# allowed), modprobe.d redirect unless INTREE=1. See tools/install.
install:
	@tools/install $(if $(filter-out 0,$(INTREE)),--intree) $(INSTALL_KVER)

uninstall:
	@tools/uninstall

deps:
	@tools/deps

# The shape of the C code (tools/layers --help): its self-test, then the tree
layers:
	@command -v ctags >/dev/null || tools/deps
	@tools/layers --self-test
	@tools/layers

check: deps
	@tools/check $(KVERS)

demo: deps
	@$(MAKE) --no-print-directory modules
	@tools/vm --kernel $(or $(KVER),6.1) -- tools/demo

# tcmx against in-tree LIO, scsi_debug and null_blk in one VM boot;
# BENCH_ARGS="--rounds 5 ..." (see tools/bench --help, BENCHMARKS.md);
# FABRIC=iscsi: tcmx_iscsi, the in-tree iscsi_target_mod and tgt instead
bench: deps
	@$(MAKE) --no-print-directory modules
	@tools/bench --vm --kernel $(or $(KVER),6.1) \
		$(if $(FABRIC),--fabric $(FABRIC)) $(BENCH_ARGS)

# libiscsi's iscsi-test-cu over SG_IO, tcmx and the in-tree LIO in one VM
# boot per kernel (tools/conformance); the table of CONFORMANCE.md from
# those runs, side by side
# (CONF_ISCSI=1: over iSCSI instead, tools/conformance --iscsi, into the
# table of the iSCSI runs)
CONF_KVERS ?= 6.1 6.12
CONF_OUT := build/vm/conformance
CONF_NAME := conformance$(if $(filter-out 0,$(CONF_ISCSI)),-iscsi)
conformance: deps
	@mkdir -p $(CONF_OUT)
	@set -e; for k in $(CONF_KVERS); do \
	  $(MAKE) --no-print-directory KVER=$$k modules; \
	  flock /tmp/tcmx-vm.lock tools/vm --kernel $$k --out $(CONF_OUT) -- \
	    tools/conformance --stack tcmx --stack lio \
	    $(if $(filter-out 0,$(CONF_ISCSI)),--iscsi) \
	    --json /out/$(CONF_NAME)-$$k.json --log /out/$(CONF_NAME)-$$k.log; \
	done
	@tools/conformance --markdown CONFORMANCE.md --report \
	  $(foreach k,$(CONF_KVERS),$(CONF_OUT)/$(CONF_NAME)-$(k).json)

# LINUX_VERSION_CODE tests are how one source tree serves 6.1 and 6.12;
# ENOSYS is what mkdir in statistics/ answers, as in-tree
checkpatch:
	@test -x $(CHECKPATCH) || tools/deps --source
	$(CHECKPATCH) --no-tree -q --ignore LINUX_VERSION_CODE,ENOSYS -f $(filter %.c %.h,$(SRCS))

# On a real host, for the running kernel. Only one target stack can own
# configfs target/: the in-tree target_core_mod must not be loaded.
RUNNING := $(shell uname -r)
load:
	@$(MAKE) --no-print-directory KVER=$(RUNNING) modules
	@echo "warning: tcmx replaces the in-tree LIO for as long as it is loaded"
	@if grep -q '^target_core_mod ' /proc/modules; then echo \
	  "target_core_mod is loaded: unload the in-tree stack first"; exit 1; fi
	modprobe configfs
	insmod build/$(RUNNING)/target/tcmx_core.ko
	insmod build/$(RUNNING)/rd_mcp/tcmx_rd.ko
	insmod build/$(RUNNING)/loopback/tcmx_loop.ko
	insmod build/$(RUNNING)/iscsi/tcmx_iscsi.ko

unload:
	cd tools && /usr/bin/python3 -m tcmxlib clean

clean:
	rm -rf build
	find . -path ./.git -prune -o \( -name '*.o' -o -name '*.ko' \
	  -o -name '*.mod' -o -name '*.mod.c' -o -name '.*.cmd' -o -name '.*.d' \
	  -o -name modules.order -o -name Module.symvers \) -print0 | \
	  xargs -0 rm -f

.PHONY: all modules sparse layers install uninstall deps check demo bench conformance \
	checkpatch load unload clean
