# The README's two commands. Everything else is CMake and the ksweep binary.
BUILD ?= build
JOBS  ?= 2
# Extra CMake options, e.g. CMAKE_ARGS=-DKSWEEP_WERROR=ON (what .ci/run passes).
CMAKE_ARGS ?=

.PHONY: all setup configure build tools test test-lava demo format clean

all: build

setup:
	@scripts/setup.sh

configure: setup
	@cmake -S . -B $(BUILD) -G Ninja $(CMAKE_ARGS) >/dev/null

# Everything, tests included.
build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# What the demo runs: ksweep, and through it ksweep-tpmd and the guest's tpm_extend.
tools: configure
	@cmake --build $(BUILD) -j $(JOBS) --target ksweep

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# L4 through LAVA (lava-run on this machine) against local L4, on the demo's Nuvoton patch;
# needs lava-dispatcher and one `make demo`. 4-5 min on 2 cores at load 10 (2026-12-02).
test-lava: tools
	@command -v lava-run >/dev/null || scripts/setup.sh lava-dispatcher
	@tests/integration/lava_e2e.sh

demo: tools
	@scripts/demo.sh

# clang-format every C++ file of src/ and tests/ in place (ctest's lint.format checks it).
format:
	@scripts/lint/format.sh

clean:
	rm -rf $(BUILD)
