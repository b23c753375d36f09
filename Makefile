# Developer entry points. `bash packaging/bootstrap.sh` installs the dependencies
# (idempotent); every target below runs it first, so a fresh Debian 12 needs nothing else.
BUILD_DIR ?= build
JOBS ?= 2
CMAKE_FLAGS ?=

.PHONY: all deps configure build run test clean

all: build

deps:
	bash packaging/bootstrap.sh

configure: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

# The desktop app on its embedded defaults: a managed anvil and a SQLite file in the
# user's data directory. Without a display it runs under Xvfb.
run: build
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ] || [ "$$QT_QPA_PLATFORM" = offscreen ]; then \
	  $(BUILD_DIR)/app/forkscope; \
	else \
	  echo "no display: running under xvfb-run"; xvfb-run -a $(BUILD_DIR)/app/forkscope; \
	fi

test: build
	cd $(BUILD_DIR) && QT_QPA_PLATFORM=offscreen ctest -j$(JOBS) --output-on-failure --timeout 600

clean:
	rm -rf $(BUILD_DIR)
