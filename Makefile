# lockstep — one GNU Makefile for the simulator, its tests, docs and benchmarks.
#
#   make            build/lockstep and build/liblockstep.a
#   make run        build and run the default demo
#   make test       build and run every test suite
#   make asan       the test suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make tsan       the test suite under ThreadSanitizer (checked timed runs use two threads)
#   make clang      the test suite built with clang
#   make docs       regenerate docs/ISA.md from the instruction table
#   make bench      simulator speed (lane-instructions per second)
#   make bench-compare  lockstep against Oclgrind and PoCL (docs/performance.md)
#   make install PREFIX=/usr/local
#   make clean
#
# Missing Debian packages are installed first by scripts/deps.sh (as root; otherwise it
# prints the apt-get command and stops).

BUILD    ?= build
PREFIX   ?= /usr/local
CC       ?= cc
PKGS     := yaml-0.1 ncursesw
OPT      ?= -O2
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wformat=2 -Wundef -Wvla -Wno-missing-field-initializers
# IEEE fidelity: no contraction of a*b+c into fma, no fast-math.
CFLAGS   ?= $(OPT) -g
ALLFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L $(WARN) -ffp-contract=off -fno-strict-aliasing $(CFLAGS)
LDLIBS   := -lm -pthread

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

MODULES  := util isa lang mem sim check traces ui
LIB_SRCS := $(filter-out ui/main.c,$(foreach m,$(MODULES),$(wildcard $(m)/*.c)))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
TEST_SRCS := $(wildcard tests/*/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
BENCH_SRCS := $(wildcard bench/bench_*.c)
DEPS_STAMP := $(BUILD)/.deps-ok

.PHONY: all run test asan tsan clang docs bench install clean deps check-docs fuzz
all: $(BUILD)/lockstep $(BUILD)/liblockstep.a

deps: $(DEPS_STAMP)
$(DEPS_STAMP): scripts/deps.sh
	@bash scripts/deps.sh
	@mkdir -p $(BUILD) && touch $@

# The interpreter's lane loops, the checkers' per-access loops and the cache model's tag
# compares are written to be vectorized; -O3 lets GCC do it.
# On a build machine with AVX2 and FMA they are compiled for those (twice the lanes per host
# instruction; the results are the same bits, as nothing is contracted or reassociated). Such
# a binary needs such a machine: `make SIM_ARCH=` builds one that runs on any x86-64.
SIM_OPT ?= -O3
SIM_ARCH ?= $(shell grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo && \
              echo 'int main(void){return 0;}' | $(CC) -mavx2 -mfma -x c -o /dev/null - 2>/dev/null && \
              echo -mavx2 -mfma)
$(BUILD)/obj/sim/%.o $(BUILD)/obj/check/%.o $(BUILD)/obj/mem/%.o: ALLFLAGS += $(SIM_OPT) $(SIM_ARCH)

$(BUILD)/obj/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALLFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/liblockstep.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/lockstep: $(BUILD)/obj/ui/main.o $(BUILD)/liblockstep.a
	$(CC) $(ALLFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(BUILD)/liblockstep.a $(wildcard tests/*.h) $(wildcard tests/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALLFLAGS) $(PKG_CFLAGS) -Itests -o $@ $< $(BUILD)/liblockstep.a $(PKG_LIBS) $(CMOCKA_LIBS) $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(BUILD)/liblockstep.a
	@mkdir -p $(dir $@)
	$(CC) $(ALLFLAGS) $(PKG_CFLAGS) -o $@ $< $(BUILD)/liblockstep.a $(PKG_LIBS) $(LDLIBS)

run: $(BUILD)/lockstep
	$(BUILD)/lockstep run kernels/reduce/reduce_simd.yaml --stats

# The benchmarks are built (not run) with the tests, so a change of a library call they make
# cannot leave `make bench` broken.
test: $(BUILD)/lockstep $(TEST_BINS) $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)
	@LOCKSTEP=$(BUILD)/lockstep bash scripts/run_tests.sh $(TEST_BINS)

asan:
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp:print_suppressions=0 \
	$(MAKE) BUILD=build-asan OPT=-O1 SIM_OPT=-O1 \
	    CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    LDLIBS="-lm -pthread -fsanitize=address,undefined" test

# A checked timed run (`lockstep run --check` in timed mode) runs the simulator on two
# threads; every CLI test that runs one is then a ThreadSanitizer test (a report exits 66).
tsan:
	$(MAKE) BUILD=build-tsan OPT=-O1 SIM_OPT=-O1 \
	    CFLAGS="-O1 -g -fsanitize=thread -fno-omit-frame-pointer" \
	    LDLIBS="-lm -pthread -fsanitize=thread" test

# The test suite built with clang, whose warnings differ from gcc's (make fuzz builds with
# it); -Wno-format-nonliteral as there: the diagnostics pass format strings on as va_lists.
clang:
	@command -v clang >/dev/null || { echo "make clang needs clang (apt-get install clang)"; exit 1; }
	$(MAKE) BUILD=build-clang CC=clang CFLAGS="-O2 -g -Wno-format-nonliteral" test

docs: $(BUILD)/lockstep
	$(BUILD)/lockstep isa > docs/ISA.md
	@echo "docs/ISA.md regenerated"

bench: $(BUILD)/lockstep $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)
	@for b in $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%); do $$b || exit 1; done

# lockstep against Oclgrind and PoCL: speed table and bug detection (bench/compare/run.sh;
# installs the Debian packages it needs when run as root). docs/performance.md has a run.
.PHONY: bench-compare
bench-compare: $(BUILD)/lockstep
	@BUILD=$(BUILD) bash bench/compare/run.sh

# The compiler under libFuzzer (clang), seeded with every kernel we have and fuzz/seeds/
# (language features no teaching kernel shows). FUZZ_SECONDS=60.
FUZZ_SECONDS ?= 60
fuzz:
	@command -v clang >/dev/null && [ -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] || \
	    { [ "$$(id -u)" -eq 0 ] && apt-get install -y -qq clang libclang-rt-14-dev >/dev/null; } || \
	    { echo "make fuzz needs clang and libclang-rt-14-dev"; exit 1; }
	$(MAKE) BUILD=build-fuzz CC=clang OPT=-O1 SIM_OPT=-O1 \
	    CFLAGS="-O1 -g -Wno-format-nonliteral -fsanitize=fuzzer-no-link,address,undefined" build-fuzz/liblockstep.a
	@mkdir -p build-fuzz/corpus
	@find kernels fuzz/seeds ../shared/kernels/seed -name '*.metal' -exec cp {} build-fuzz/corpus/ \; 2>/dev/null || true
	clang -std=c11 -O1 -g -fsanitize=fuzzer,address,undefined fuzz/fuzz_compile.c \
	    build-fuzz/liblockstep.a -lm -o build-fuzz/fuzz_compile
	build-fuzz/fuzz_compile -max_total_time=$(FUZZ_SECONDS) -max_len=16384 build-fuzz/corpus

install: $(BUILD)/lockstep $(BUILD)/liblockstep.a
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/lockstep \
	    $(DESTDIR)$(PREFIX)/share/doc/lockstep
	install -m 755 $(BUILD)/lockstep $(DESTDIR)$(PREFIX)/bin/lockstep
	install -m 644 $(BUILD)/liblockstep.a $(DESTDIR)$(PREFIX)/lib/liblockstep.a
	for m in util isa mem sim traces; do install -d $(DESTDIR)$(PREFIX)/include/lockstep/$$m; \
	    for h in $$m/*.h; do case $$h in *_internal.h) ;; *) \
	        install -m 644 $$h $(DESTDIR)$(PREFIX)/include/lockstep/$$m/;; esac; done; done
	install -m 644 lockstep.h $(DESTDIR)$(PREFIX)/include/lockstep/lockstep.h
	install -m 644 README.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/lockstep/
	install -d $(DESTDIR)$(PREFIX)/share/lockstep/gpus
	install -m 644 sim/gpus/*.yaml $(DESTDIR)$(PREFIX)/share/lockstep/gpus/

clean:
	rm -rf build build-asan build-tsan build-clang build-fuzz

-include $(LIB_OBJS:.o=.d) $(BUILD)/obj/ui/main.d
