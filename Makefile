# ito: the two set-up commands are `make demo` and `make test`; both install what they need.
#   make demo   build everything, run every lab experiment (reproductions + benchmarks) into results/
#   make test   build release (gcc-12), ASan+UBSan and TSan (clang-19) trees and run every test
#   make bench  build release and run the side-by-side benchmarks into results/
#   make docs   the API reference (Doxygen) into build/docs/html; fails on any warning
#   make fuzz   the fuzzers (libFuzzer, ASan tree), FUZZ_SECONDS each (default 600)
.PHONY: all deps build build-asan build-tsan test demo bench docs fuzz clean

GEN      := -G Ninja
REL      := build/release
ASAN     := build/asan
TSAN     := build/tsan
LAB      := .venv/bin/ito-lab
CTEST    := ctest --output-on-failure --timeout 900
# The developers' switches: warnings are errors, failure injection is compiled in.
DEV      := -DITO_WERROR=ON -DITO_FAULT_INJECTION=ON

all: build

deps:
	@tools/setup-deps.sh

build: deps
	@cmake -S . -B $(REL) $(GEN) -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DITO_PYTHON=$(CURDIR)/.venv/bin/python $(DEV) >/dev/null
	@cmake --build $(REL)

build-asan: deps
	@cmake -S . -B $(ASAN) $(GEN) -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
	  -DCMAKE_BUILD_TYPE=Debug -DITO_SANITIZE=address $(DEV) >/dev/null
	@cmake --build $(ASAN)

build-tsan: deps
	@cmake -S . -B $(TSAN) $(GEN) -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DITO_SANITIZE=thread $(DEV) >/dev/null
	@cmake --build $(TSAN)

# The release tree runs last: its ctest includes the pytest suites, so the output
# ends with ctest's summary line.
test: build build-asan build-tsan
	@echo "== ASan+UBSan (clang-19) =="; cd $(ASAN) && $(CTEST)
	@echo "== TSan (clang-19) ==";       cd $(TSAN) && $(CTEST)
	@echo "== release (gcc-12) + pytest =="; cd $(REL) && $(CTEST)

bench: build
	@$(LAB) bench

demo: build
	@$(LAB) all

# The fuzzers, FUZZ_SECONDS each (tests/fuzz/CMakeLists.txt lists them): new inputs go to
# the corpus folder of each in build/asan/tests/fuzz, crashes and hangs to crash-* /
# timeout-* there; a hang over 15 s also leaves fuzz-hang-<pid>.txt (every thread's stack,
# ito's ULTs). The RSS limit is high because ASan's shadow of the ULT stacks of each
# input's fresh runtime grows (~100 KB per input; the release library stays flat).
FUZZ_SECONDS ?= 600
FUZZERS := fuzz_api:corpus fuzz_wait:corpus_wait fuzz_io:corpus_io fuzz_zwt:corpus_zwt
fuzz: build-asan
	@set -e; cd $(ASAN)/tests/fuzz && for fc in $(FUZZERS); do f=$${fc%%:*}; c=$${fc#*:}; \
	  mkdir -p $$c && ITO_FUZZ_WATCHDOG=15 ITO_FUZZ_GDB_SCRIPT=$(CURDIR)/tools/gdb/ito.py \
	  ./$$f -max_total_time=$(FUZZ_SECONDS) -timeout=30 -rss_limit_mb=8192 \
	  -print_final_stats=1 $$c $(CURDIR)/tests/fuzz/$$c; done

# Doxygen fails (WARN_AS_ERROR) on any warning, e.g. an undocumented public function.
DOCS     := build/docs
docs: deps
	@rm -rf $(DOCS) && mkdir -p $(DOCS)
	@ITO_DOCS_OUT=$(DOCS) ITO_VERSION=$$(sed -n 's/^#define ITO_VERSION_STRING "\(.*\)"/\1/p' include/ito/version.h) \
	  doxygen docs/api/Doxyfile
	@echo "docs: $(DOCS)/html/index.html"

clean:
	rm -rf build results
