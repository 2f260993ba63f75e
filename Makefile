# The README's two commands. Everything else is CMake and the ksweep binary.
BUILD ?= build
JOBS  ?= 2

.PHONY: all setup build test demo clean

all: build

setup:
	@scripts/setup.sh

build: setup
	@cmake -S . -B $(BUILD) -G Ninja >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

demo: build
	@scripts/demo.sh

clean:
	rm -rf $(BUILD)
