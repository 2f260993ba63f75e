# The README's two commands. Everything else is CMake and the ksweep binary.
BUILD ?= build
JOBS  ?= 2

.PHONY: all setup configure build tools test demo clean

all: build

setup:
	@scripts/setup.sh

configure: setup
	@cmake -S . -B $(BUILD) -G Ninja >/dev/null

# Everything, tests included.
build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# What the demo runs: ksweep, and through it ksweep-tpmd and the guest's tpm_extend.
tools: configure
	@cmake --build $(BUILD) -j $(JOBS) --target ksweep

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

demo: tools
	@scripts/demo.sh

clean:
	rm -rf $(BUILD)
