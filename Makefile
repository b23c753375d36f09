# Developer entry points. `bash packaging/bootstrap.sh` installs the dependencies
# (idempotent); every target below runs it first, so a fresh Debian 12 needs nothing else.
BUILD_DIR ?= build
JOBS ?= 2
CMAKE_FLAGS ?=
# The sanitizer build (test-sanitize): headless, no benchmarks, only the suites listed in
# FORKSCOPE_SANITIZE_TESTS (tests/CMakeLists.txt) and the fuzz targets (tests/fuzz), with
# clang because libFuzzer is clang's. -O0 compiles a fifth faster than -O1 (the suites wait
# on anvil, not on the CPU) and hides nothing from the sanitizers; -g1 gives their reports
# file:line for a few percent.
SANITIZE_BUILD_DIR ?= build-asan
SANITIZE ?= address,undefined
SANITIZE_CXX ?= clang++
SANITIZE_CXXFLAGS ?= -O0 -g1

.PHONY: all deps configure build run test test-suite test-sanitize clean

all: build

deps:
	bash packaging/bootstrap.sh

configure: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

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

# Both halves run even when the first fails, so one CI run reports everything.
test: deps
	@rc=0; \
	$(MAKE) --no-print-directory test-suite || rc=1; \
	$(MAKE) --no-print-directory test-sanitize || rc=1; \
	exit $$rc

test-suite: build
	cd $(BUILD_DIR) && QT_QPA_PLATFORM=offscreen ctest -j$(JOBS) --output-on-failure --timeout 600

# Debug, so Q_ASSERT and assert() are live too; ASAN/UBSAN/LSAN options come from CTest
# (tests/CMakeLists.txt) and make every report fail its test. Prints how long it took.
test-sanitize: deps
	@start=$$(date +%s); \
	cache=$(SANITIZE_BUILD_DIR)/CMakeCache.txt; \
	if [ -f $$cache ] && ! grep -qx "CMAKE_CXX_COMPILER:[A-Z]*=$$(command -v $(SANITIZE_CXX))" $$cache; then \
	  echo "test-sanitize: $(SANITIZE_BUILD_DIR) was built by another compiler: starting afresh"; \
	  rm -rf $(SANITIZE_BUILD_DIR); \
	fi; \
	cmake -S . -B $(SANITIZE_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_CXX_COMPILER=$(SANITIZE_CXX) "-DCMAKE_CXX_FLAGS_DEBUG=$(SANITIZE_CXXFLAGS)" \
	  -DFORKSCOPE_SANITIZE=$(SANITIZE) -DFORKSCOPE_FUZZ=ON \
	  -DFORKSCOPE_BUILD_GUI=OFF -DFORKSCOPE_BUILD_BENCH=OFF $(CMAKE_FLAGS) && \
	cmake --build $(SANITIZE_BUILD_DIR) -j$(JOBS) --target sanitize_tests || exit 1; \
	built=$$(date +%s); \
	(cd $(SANITIZE_BUILD_DIR) && QT_QPA_PLATFORM=offscreen \
	  ctest -L sanitize -j$(JOBS) --output-on-failure --timeout 600); rc=$$?; \
	echo "test-sanitize: build $$((built - start)) s, tests $$(($$(date +%s) - built)) s"; \
	exit $$rc

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_BUILD_DIR)
