#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# What `make test` runs: the virtual drive's C tests, the two simulation builds and pytest, with the
# ECPIX-5's bitstream building beside them from the start. Yosys and nextpnr use one core for most
# of the build's 20-odd minutes: run after the tests, the build left the other core idle.
# The build's own lines go to a log and are shown at the end; a failed test run stops the build.
#
#   MAKE=make PY=.venv/bin/python PYTEST_ARGS="-n auto --dist loadgroup" scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
PY=${PY:-.venv/bin/python}
read -r -a pytest_args <<< "${PYTEST_ARGS:-}"

mkdir -p build
build_log=build/test-ecpix5-build.log
# Its own process group (setsid), so that stopping it reaches make, the build script and the tools.
setsid "$MAKE" --no-print-directory build/ecpix5/.built > "$build_log" 2>&1 < /dev/null &
builder=$!
stop_builder() { kill -TERM -- "-$builder" 2> /dev/null || true; }
trap stop_builder EXIT
echo "[test] the ECPIX-5 bitstream builds beside the tests (log: $build_log)"

if [ -f ecpsata/sim/vdrive/Makefile ]; then
  "$MAKE" --no-print-directory -C ecpsata/sim/vdrive test
  "$MAKE" --no-print-directory -C ecpsata/sim/vdrive bench
fi
"$MAKE" --no-print-directory build/sim/.built build/ecpix5_sim/.built
"$PY" -m pytest -q "${pytest_args[@]}" --durations=15

echo "[test] tests passed; waiting for the ECPIX-5 bitstream build (log: $build_log)"
status=0
wait "$builder" || status=$?
trap - EXIT
cat "$build_log"
if [ "$status" -ne 0 ]; then
  echo "[test] the ECPIX-5 bitstream build failed (exit $status); its log is above" >&2
  exit 1
fi
# The clock-domain crossings of the netlist just built (doc/cdc.md): none undeclared.
echo "[test] clock-domain crossings of the ECPIX-5 netlist (tests/checks/board_cdc.py)"
"$PY" -m pytest -q -p no:cacheprovider tests/checks/board_cdc.py
