# SPDX-License-Identifier: BSD-2-Clause
# ecpsata: thin entry points. `make bench` runs the main job on the simulated board; `make test`
# runs the tests. Every target first runs `setup` (fast when nothing is missing).

SHELL       := /bin/bash
PY          := $(CURDIR)/.venv/bin/python
export PATH := $(CURDIR)/.venv/bin:$(PATH)

BOARD       ?=
ARGS        ?=
# The main job (`make bench` without ARGS): the whole suite, scaled down for the simulated board,
# once per virtual drive persona, report into $(RESULTS)/<persona>/, with the drive's own state
# (temperature, sectors written, Phy event counters) read before and after each experiment.
PERSONAS    ?= ideal slc
SUITE_ARGS  ?= --allow-write --range 0:4096 --sectors 1024 --drive-state
RESULTS     ?= results
BRIDGE      ?=
PROGRAMMER  ?= openfpgaloader
SERVER_PORT ?= 1234
VDRIVE      ?=
BUILD_ARGS  ?=
# Seconds the CLI waits for any answer. The simulated board runs far slower than real time.
SIM_TIMEOUT ?= 300

# Inputs of a gateware build: a change in any of them rebuilds (the Verilator and bitstream builds
# are slow, so they are cached behind the stamps build/BOARD/.built). Each build records the files
# it read in build/BOARD/.built.d (ecpsata/soc/build.py: the modules it imported, the firmware's
# and the simulator modules' sources), included below; a board built before, without that record,
# depends on every source of the package.
BUILD_INPUTS := $(shell find ecpsata -type f \
	\( -name '*.py' -o -name '*.c' -o -name '*.h' -o -name '*.S' -o -name '*.ld' -o -name 'Makefile' \) \
	-not -path '*/build/*' 2>/dev/null) requirements.txt
-include $(wildcard build/*/.built.d)
VENV_STAMP   := .venv/.requirements.sha256

# pytest's worker processes (pytest-xdist): `auto` is one per core. The simulated-SoC tests run in
# one of them, one after the other (tests/conftest.py).
PYTEST_WORKERS ?= auto
PYTEST_ARGS := -n $(PYTEST_WORKERS) --dist loadgroup

SEEDS       ?= 1,2,3
# `make fuzz`: the regression seeds, then this many more cases of the device-side fuzzer.
FUZZ_CASES  ?= 20

# The simulated board `make bench` runs on: `sim` without BOARD; the ECPIX-5's own SoC on the DCUA
# model with BOARD=ecpix5 BRIDGE=sim (Etherbone, in a network namespace made for the run) or
# BRIDGE=sim-uart (the board UART's bridge); empty for a real board.
SIM_BOARD   := $(if $(BOARD),$(if $(filter sim sim-uart,$(BRIDGE)),$(BOARD)_sim),sim)
SIM_BRIDGE  := $(if $(filter sim,$(BRIDGE)),etherbone,uart)
SIMBOARD    := $(if $(filter etherbone,$(SIM_BRIDGE)),$(PY) -m ecpsata.host.netns -- )$(PY) -m ecpsata.host.simboard \
	--board $(SIM_BOARD) --bridge $(SIM_BRIDGE) --server-port $(SERVER_PORT)

.PHONY: setup test test-long pytest sim sim-build build sweep load bench fuzz firmware xprop gatesim clean FORCE

setup:
	@scripts/setup.sh

$(VENV_STAMP): requirements.txt pyproject.toml
	@scripts/setup.sh

# Without the build's record of what it read, every source of the package.
.SECONDEXPANSION:
RECORDED_INPUTS = $(if $(wildcard build/$(1)/.built.d),,$(BUILD_INPUTS))

# The simulated board's build arguments (`--without-frame-check`) are one of its inputs once any
# were given: without a record and without arguments, no record to FORCE (`make -n` would take
# a FORCEd record for a new one and the build for out of date).
SIM_ARGS = $(if $(strip $(BUILD_ARGS))$(wildcard build/sim/.args),build/sim/.args)
build/sim/.built: $$(call RECORDED_INPUTS,sim) $(VENV_STAMP) $(SIM_ARGS)
	$(PY) -m ecpsata.soc.build sim $(BUILD_ARGS)
	@touch $@

# BUILD_ARGS (e.g. --without-sata) are part of what a build depends on.
.PRECIOUS: build/%/.args
build/%/.args: FORCE
	@mkdir -p $(@D); echo '$(BUILD_ARGS)' | cmp -s - $@ || echo '$(BUILD_ARGS)' > $@

build/%/.built: $$(call RECORDED_INPUTS,$$*) $(VENV_STAMP) build/%/.args
	@mkdir -p build/$*
	set -o pipefail; $(PY) -m ecpsata.soc.build $* $(BUILD_ARGS) 2>&1 | tee build/$*/build-summary.log
	@touch $@

sim-build: setup build/sim/.built

# The simulated SoC with its console on this terminal (Ctrl-C stops it).
sim: sim-build
	$(PY) -m ecpsata.host.simboard --interactive --server-port $(SERVER_PORT) $(if $(VDRIVE),--vdrive "$(VDRIVE)")

build: setup
ifeq ($(BOARD),)
	@echo "usage: make build BOARD=$$($(PY) -m ecpsata.soc.boards names --sep '|')" >&2; exit 2
else
	$(MAKE) --no-print-directory build/$(BOARD)/.built
endif

# Timing margin over placements (not part of `make test`): BOARD built once, then nextpnr alone
# with each further seed; fmax per clock per seed, min/median/max; fails below a 10 % margin.
sweep: setup
ifeq ($(BOARD),)
	@echo "usage: make sweep BOARD=$$($(PY) -m ecpsata.soc.boards placed --sep '|') [SEEDS=1,2,3]" >&2; exit 2
else
	$(PY) scripts/seed_sweep.py $(BOARD) --seeds $(SEEDS) $(BUILD_ARGS)
endif

# The four-state run of the PHY and the core from power-up (Icarus Verilog): no X in a control
# register or an output after the resets; the same line words as a run with initial values.
xprop: setup
	$(PY) scripts/xprop.py

# The PHY (on the board's DCU wrapper and the DCUA model; on the simulation SerDes) and the core as
# Yosys's synth_ecp5 netlist, block RAM included, simulated with its ECP5 cell models against their
# RTL: the same results, cycle counts and line words (make test runs one scenario of it).
# GATESIM_ARGS: e.g. --netlist dcu --scenario gen2.
gatesim: setup
	$(PY) scripts/gatesim.py $(GATESIM_ARGS)

# Clock-domain crossings of BOARD's synthesised netlist (built first when out of date): every path
# between clock domains ends in a synchroniser or is declared quasi-static; fails on any other.
.PHONY: cdc
cdc: setup
ifeq ($(BOARD),)
	@echo "usage: make cdc BOARD=$$($(PY) -m ecpsata.soc.boards placed --sep '|')" >&2; exit 2
else
	$(MAKE) --no-print-directory build/$(BOARD)/.built
	$(PY) scripts/cdc.py $(BOARD)
endif

load: setup
	$(PY) -m ecpsata.soc.load $(BOARD) --programmer $(PROGRAMMER)

# The main job: on the simulated board unless BOARD is set. Without ARGS, the benchmark suite on
# each persona of PERSONAS (VDRIVE's keys on top of each, e.g. VDRIVE=field=1); with ARGS, that one
# CLI command (e.g. ARGS=identify).
bench: setup
ifneq ($(SIM_BOARD),)
ifneq ($(BOARD),)
	@$(PY) -m ecpsata.soc.boards simulated-variant $(BOARD) >/dev/null
endif
	$(MAKE) --no-print-directory build/$(SIM_BOARD)/.built
ifeq ($(strip $(ARGS)),)
	@set -e; for p in $(PERSONAS); do \
		echo "[bench] suite on the simulated board $(SIM_BOARD), virtual drive persona $$p -> $(RESULTS)/$$p/"; \
		$(SIMBOARD) --persona $$p \
			$(if $(VDRIVE),--vdrive "$(VDRIVE)") -- \
			$(PY) -m ecpsata --port {port} --csr-csv {csr_csv} --timeout $(SIM_TIMEOUT) \
			suite $(SUITE_ARGS) --out $(RESULTS)/$$p; \
	done
	$(PY) -m ecpsata report $(RESULTS)
else
	$(SIMBOARD) $(if $(VDRIVE),--vdrive "$(VDRIVE)") -- \
		$(PY) -m ecpsata --port {port} --csr-csv {csr_csv} --timeout $(SIM_TIMEOUT) $(ARGS)
endif
else
	$(PY) -m ecpsata.host.board --board $(BOARD) --bridge "$(BRIDGE)" --server-port $(SERVER_PORT) -- $(or $(ARGS),info)
endif

# The device-side fuzzer against the simulated SoC (scripts/fuzz.py); make test runs its
# regression seeds.
fuzz: setup
	$(MAKE) --no-print-directory build/sim/.built
	$(PY) scripts/fuzz.py --cases $(FUZZ_CASES)

firmware: setup
	$(PY) -c "from ecpsata.soc.builder import build_firmware; build_firmware('build/$(or $(BOARD),sim)')"

pytest: setup build/sim/.built build/ecpix5_sim/.built
	$(PY) -m pytest -q $(PYTEST_ARGS)

# The tests, with the ECPIX-5's bitstream building beside them (scripts/test.sh).
test: setup
	@MAKE="$(MAKE)" PY="$(PY)" PYTEST_ARGS="$(PYTEST_ARGS)" scripts/test.sh

# The long forms of checks whose short forms make test runs (marker `long`, pytest.ini).
test-long: setup build/sim/.built build/ecpix5_sim/.built
	$(PY) -m pytest -q $(PYTEST_ARGS) -m long

clean:
	rm -rf build
