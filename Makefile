# Developer entry points. `bash packaging/bootstrap.sh` installs the dependencies
# (idempotent); every target below runs it first, so a fresh Debian 12 needs nothing else.
BUILD_DIR ?= build
JOBS ?= 2
# Suites run in parallel: they wait on anvil and PostgreSQL more than they use the CPU.
TEST_JOBS ?= 4
CMAKE_FLAGS ?=
# The sanitizer build (the second half of `test`, or `test-sanitize` alone): headless, no
# benchmarks, only the suites listed in FORKSCOPE_SANITIZE_TESTS (tests/CMakeLists.txt) and
# the fuzz targets (tests/fuzz), with clang because libFuzzer is clang's. -O0 compiles a fifth faster than -O1 (the suites wait
# on anvil, not on the CPU) and hides nothing from the sanitizers; -g1 gives their reports
# file:line for a few percent.
SANITIZE_BUILD_DIR ?= build-asan
SANITIZE ?= address,undefined
SANITIZE_CXX ?= clang++
SANITIZE_CXXFLAGS ?= -O0 -g1

.PHONY: all deps configure build run test test-suite test-sanitize sanitize-build clean

# The commands behind the targets, so `test` can run them without bootstrapping twice at once.
# RelWithDebInfo at -g1: line tables for backtraces, a fifth less compile time than -g.
CONFIGURE = cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" $(CMAKE_FLAGS)
BUILD = cmake --build $(BUILD_DIR) -j$(JOBS)
SUITES = cd $(BUILD_DIR) && QT_QPA_PLATFORM=offscreen ctest -j$(TEST_JOBS) --output-on-failure \
  --timeout 600
# Debug, so Q_ASSERT and assert() are live too. A tree built by another compiler starts
# afresh.
SANITIZE_CONFIGURE = cache=$(SANITIZE_BUILD_DIR)/CMakeCache.txt; \
  if [ -f $$cache ] && ! grep -qx "CMAKE_CXX_COMPILER:[A-Z]*=$$(command -v $(SANITIZE_CXX))" $$cache; then \
    echo "$(SANITIZE_BUILD_DIR) was built by another compiler: starting afresh"; \
    rm -rf $(SANITIZE_BUILD_DIR); \
  fi; \
  cmake -S . -B $(SANITIZE_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_COMPILER=$(SANITIZE_CXX) "-DCMAKE_CXX_FLAGS_DEBUG=$(SANITIZE_CXXFLAGS)" \
    -DFORKSCOPE_SANITIZE=$(SANITIZE) -DFORKSCOPE_FUZZ=ON \
    -DFORKSCOPE_BUILD_GUI=OFF -DFORKSCOPE_BUILD_BENCH=OFF $(CMAKE_FLAGS)
SANITIZE_BUILD = cmake --build $(SANITIZE_BUILD_DIR) -j$(JOBS) --target sanitize_tests
# ASAN/UBSAN/LSAN options come from CTest (tests/CMakeLists.txt) and make every report fail
# its test. As many at once as the main suites: the bounded fuzz runs use the CPU while
# tst_engine and tst_abi wait on anvil.
SANITIZE_SUITES = cd $(SANITIZE_BUILD_DIR) && QT_QPA_PLATFORM=offscreen \
  ctest -L sanitize -j$(TEST_JOBS) --output-on-failure --timeout 600

all: build

deps:
	bash packaging/bootstrap.sh

configure: deps
	$(CONFIGURE)

build: configure
	$(BUILD)

# The desktop app on its embedded defaults: a managed anvil and a SQLite file in the
# user's data directory. Without a display it runs under Xvfb. Builds the app alone (not the
# suites and benchmarks `build` adds) and says how long that took.
run: configure
	@start=$$(date +%s); \
	cmake --build $(BUILD_DIR) -j$(JOBS) --target forkscope || exit 1; \
	echo "run: forkscope built in $$(($$(date +%s) - start)) s"
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ] || [ "$$QT_QPA_PLATFORM" = offscreen ]; then \
	  $(BUILD_DIR)/app/forkscope; \
	else \
	  echo "no display: running under xvfb-run"; xvfb-run -a $(BUILD_DIR)/app/forkscope; \
	fi

# Every suite, then the sanitizer build's suites and fuzz targets. The sanitizer tree builds
# in the background at a lower priority while the main tree builds and its suites run (they
# wait on anvil and PostgreSQL more than on the CPU), so on two cores the second build costs
# little wall time. Both halves run even when one fails, so one CI run reports everything;
# the last line says where the time went.
test: deps
	@rc=0; start=$$(date +%s); log=$(SANITIZE_BUILD_DIR).log; \
	( ( $(SANITIZE_CONFIGURE) && nice -n 10 $(SANITIZE_BUILD) ) > $$log 2>&1; \
	  echo $$? > $$log.rc ) & \
	( $(CONFIGURE) && $(BUILD) ) || rc=1; built=$$(date +%s); \
	if [ $$rc = 0 ]; then ( $(SUITES) ) || rc=1; fi; suites=$$(date +%s); \
	wait; waited=$$(date +%s); \
	echo "--- the sanitizer build (in the background): the end of $$log"; tail -n 30 $$log; \
	if [ "$$(cat $$log.rc)" = 0 ]; then ( $(SANITIZE_SUITES) ) || rc=1; else rc=1; fi; \
	end=$$(date +%s); \
	echo "test: build $$((built - start)) s, suites $$((suites - built)) s, waiting for the" \
	  "sanitizer build $$((waited - suites)) s, its suites $$((end - waited)) s; total" \
	  "$$((end - start)) s"; \
	exit $$rc

test-suite: build
	$(SUITES)

sanitize-build: deps
	@$(SANITIZE_CONFIGURE) && $(SANITIZE_BUILD)

# The second half alone. Prints how long its build and its suites took.
test-sanitize: deps
	@start=$$(date +%s); \
	( $(SANITIZE_CONFIGURE) && $(SANITIZE_BUILD) ) || exit 1; built=$$(date +%s); \
	( $(SANITIZE_SUITES) ); rc=$$?; \
	echo "test-sanitize: build $$((built - start)) s, tests $$(($$(date +%s) - built)) s"; \
	exit $$rc

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_BUILD_DIR) $(SANITIZE_BUILD_DIR).log $(SANITIZE_BUILD_DIR).log.rc
