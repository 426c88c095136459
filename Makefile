# allocprof: memory allocation profiling for Linux 6.1 LTS.
# 'make help' lists the targets; README explains them.

SHELL := /bin/bash
S := scripts
# The kernel that demo, shell and kernel build: the first of prof or stock
# that scripts/configs/kernels defines.
KERNEL ?= $(shell awk '$$1 == "prof" { print; exit }' $(S)/configs/kernels | cut -f1 | grep . || echo stock)
SERIES_ENV := SRC=$(CURDIR)/build/series KOUT=$(CURDIR)/build/test/kernel

.PHONY: help deps source tree export check-export check-series bisect-check kernel \
	boot-test kunit test stress bench demo shell tool config deb boot-deb clean \
	check-trees

help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## demo          install what is missing, build the patched kernel, boot it, show /proc/allocinfo
demo: deps
	$(S)/apply-series.sh
	$(SERIES_ENV) $(S)/build-kernel.sh $(KERNEL)
	@[ ! -f tools/allocinfo/Makefile ] || $(MAKE) -s -C tools/allocinfo static
	$(S)/run-guest.sh demo build/test/kernel/$(KERNEL)

## shell         boot the demo kernel into an interactive busybox shell
shell: deps
	$(S)/apply-series.sh
	$(SERIES_ENV) $(S)/build-kernel.sh $(KERNEL)
	@[ ! -f tools/allocinfo/Makefile ] || $(MAKE) -s -C tools/allocinfo static
	$(S)/run-guest.sh shell build/test/kernel/$(KERNEL)

## test          every test layer; last line 'N passed, N failed'
test: deps
	@[ ! -f tools/allocinfo/Makefile ] || $(MAKE) -s -C tools/allocinfo static
	$(S)/test.sh

## stress        long storms, toggling, module cycles, faults on prof -smp 4, debug, kasan (not in test)
# Kernels from build/series (the committed patches), as make test.
stress: deps
	$(S)/apply-series.sh
	$(SERIES_ENV) $(S)/stress.sh

## bench         stock vs patched kernels under QEMU -icount: Documentation/benchmarks.md (EXTRA=1: two more; PEER=1: upstream 6.12 too; BASE=CONFIG [PACKED=1]: a distribution's, ARCH=arm64 too; MEMCG=1: with memory cgroups)
bench: deps
	$(S)/bench.sh

## deps          install missing packages with apt-get (as root), else print the command
deps:
	@$(S)/deps.sh

## source        extract Debian's linux-source-6.1 into build/src
source: deps
	$(S)/source.sh

## tree          git tree build/linux: pristine source (tag base) + the series, a commit a patch
tree: deps
	$(S)/tree.sh

## export        regenerate patches/ from base..HEAD of build/linux (deterministic)
export:
	$(S)/export.sh

## check-export  fail when patches/ does not match build/linux
check-export:
	$(S)/check-export.sh

## check-series  apply the series with patch -p1, checkpatch --strict, sparse
check-series: deps
	$(S)/check-series.sh

## bisect-check  build prof (and off for header changes) after each patch, incrementally; names the first that fails
bisect-check: deps
	$(S)/bisect-check.sh

## check-trees   the series on kernel.org's 6.1.y trees from Debian's archive: patch --fuzz=0, prof built on two (TREES="6.1.N ...", REV=commit)
check-trees: deps
	$(S)/check-trees.sh $(TREES)

## kernel        build KERNEL (default prof, else stock) from build/linux
kernel: deps
	$(S)/build-kernel.sh $(KERNEL)

## boot-test     build the kernels and run the QEMU boot tests from build/linux (ONLY=regex)
boot-test: deps
	$(S)/boot-tests.sh

## kunit         run every kunit/*.kunitconfig on UML in build/linux
kunit: deps
	$(S)/kunit.sh

## config        Debian's 6.1 config + profiling in build/deb/linux/.config (BASE=other .config)
config: deps
	$(S)/apply-series.sh
	$(S)/config.sh $(BASE)

## deb           installable kernel packages (bindeb-pkg) from that config into build/deb/
deb: deps
	$(S)/apply-series.sh
	$(S)/deb.sh $(BASE)

## boot-deb      boot the kernel of those packages in QEMU with the guest tests
boot-deb: deps
	$(S)/boot-deb.sh

## tool          build tools/allocinfo
tool:
	$(MAKE) -C tools/allocinfo

## clean         remove build outputs (keeps build/src and build/linux)
clean:
	rm -rf build/kernel build/test build/boot build/kunit build/modules build/results build/sparse build/series build/bench build/page-flags build/peer
