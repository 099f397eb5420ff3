# SPDX-License-Identifier: BSD-2-Clause
"""The board build's PHY in Icarus Verilog (ecpsata/checks/dcu_netlist.py): the ECP5 DCU wrapper
with the DCUA model written out by Migen in the DCU's place, here on Yosys's `proc` netlist (the RTL
run of `make gatesim`)."""

import os
import re

import pytest

from ecpsata.checks import dcu_netlist, gatesim, scenarios, xprop
from ecpsata.engines.common import REASON_MISMATCH
from ecpsata.phy.ctrl import SHORT_TIMINGS

pytestmark = pytest.mark.slow       # about half a minute


def _rtl_run(work, phy_timings, *scenarios):
    verilog, data_files, params, csr = dcu_netlist.design(phy_timings)
    netlist, _ = xprop.elaborate(os.path.join(work, "netlist"), verilog, data_files)
    text = dcu_netlist.wrap(netlist) + "\n" + dcu_netlist.dcua_verilog(params)
    library = gatesim.cell_library(os.path.join(work, "cells"))
    lib = xprop.build_vpi(work)
    runs = [xprop.run_one(os.path.join(work, f"run-{s}"), text, [], [], lib, library,
                          scenario=s, vpi_dir=work, csr=csr) for s in scenarios]
    return runs[0] if len(runs) == 1 else runs


def test_a_receiver_reset_lets_no_unwritten_fifo_entry_out(tmp_path, monkeypatch):
    """A Gen1-only drive with the simulation's short COMRESET interval: the link never comes up
    and the DCU's receiver goes through its lane reset again and again (after each COMWAKE its CDR
    is held, then locks). Its word clock's domain is in reset each time, and with it the receive
    FIFO's write side: the read side in sys must not go on reading entries that were never
    written. Those start at X here (Migen gives the FIFO's memory no initial contents), as garbage
    does on silicon; before the fix the PHY's ready went X and 60,338 words with X reached the
    drive."""
    monkeypatch.setitem(scenarios.SCENARIOS, "relock",
                        (scenarios.DRIVE + ",max_gen=1", (("link",),)))
    run = _rtl_run(str(tmp_path), SHORT_TIMINGS, "relock")
    assert run["results"] == ["link timeout"], run["results"]
    assert run["xout"] == [], run["xout"]
    words, xwords = (int(v) for v in
                     re.search(r"words=(\d+) .*xwords=(\d+)", run["line"]).groups())
    assert words > 10000 and xwords == 0, run["line"]


def test_the_dcua_model_module_has_the_wrappers_ports_and_the_line_signals():
    """The Verilog DCUA: one port per connected DCUA port, the word clocks on FF_TX_PCLK /
    FF_RX_PCLK, the outputs the model does not drive at 0, the line's inputs as registers."""
    _, _, params, _ = dcu_netlist.design()
    text = dcu_netlist.dcua_verilog(params)
    ports = {k[2:] for k in params if k[:2] in ("i_", "o_")}
    header = text[text.index("module DCUA("):text.index(");")]
    declared = {line.split()[-1].rstrip(",") for line in header.splitlines()[1:]}
    assert declared == ports
    assert "reg [19:0] bench_rx = 0;" in text and "reg bench_rx_los = 0;" in text
    assert "assign bench_clk = CH0_FF_TX_PCLK;" in text
    for unmodelled in ("CH0_HDOUTP", "CH0_HDOUTN"):
        assert f"assign {unmodelled} = 1'd0;" in text


def test_the_benchmark_engine_behind_the_crossbar_writes_and_verifies_through_its_csrs(
        tmp_path, monkeypatch):
    """The engine on the crossbar's second port, as the boards' builds have it, started through
    its CSR bus as the firmware starts it: two 8-sector writes with its pattern and their
    read-back through its checker, every counter as the run asks. The same run on a drive that
    flips a bit of one sector's read data: the engine's checker counts that one dword and ends
    the run in error, and the scenario's verdict names both."""
    drive, steps = scenarios.SCENARIOS["bench"]
    lba = steps[1][1]
    monkeypatch.setitem(scenarios.SCENARIOS, "bench_corrupt",
                        (drive + f",corrupt_lba={lba + 3}", steps))
    good, corrupt = _rtl_run(str(tmp_path), dcu_netlist.PHY_TIMINGS, "bench", "bench_corrupt")
    assert scenarios.problems("bench", good["results"]) == [], good["results"]
    m = re.search(r"bench failed=0 reason=0 completed=4 errors=0 bytes=16384 mismatches=0 "
                  r"cycles=(\d+)$", good["results"][1])
    assert m, good["results"]
    # the engine's own count of sys cycles (100 MHz here) for 8 KiB each way: more than the
    # line's 55 us for the 16 KiB at Gen2, well within the 400 us the step allows
    assert 5500 < int(m.group(1)) < 20000, good["results"]
    assert good["xout"] == [] and "xwords=0" in good["line"]
    # the run ends in error with the reason "data mismatch", both passes done
    assert corrupt["results"][1].startswith(
        f"bench failed=1 reason={REASON_MISMATCH} completed=4 errors=0 bytes=16384 "
        "mismatches=1 "), corrupt["results"]
    bad = scenarios.problems("bench_corrupt", corrupt["results"])
    assert len(bad) == 2 and "expected failed=0" in bad[0], bad
    assert f"reason={REASON_MISMATCH} (expected 0), mismatches=1 (expected 0)" in bad[1], bad
