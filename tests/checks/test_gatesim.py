# SPDX-License-Identifier: BSD-2-Clause
"""The gate-level run (ecpsata/checks/gatesim.py), short form: Yosys's synth_ecp5 netlist of the
board build's PHY (the ECP5 DCU wrapper, the DCUA model in the DCU's place), the core and the
crossbar against their RTL on one scenario, without the benchmark engine (which doubles the
netlist and the run's time; `make gatesim` runs every scenario on this netlist with the engine
and on the one with the simulation SerDes, and tests/checks/test_dcu_netlist.py runs the
engine's scenario on the RTL)."""

import re

import pytest

from ecpsata.checks import gatesim
from ecpsata.checks.scenarios import problems

pytestmark = pytest.mark.slow       # about three minutes


def test_the_gate_netlist_does_what_the_rtl_does_through_an_r_err_each_way(tmp_path):
    """Scenario r_err (link, IDENTIFY, a write whose command FIS the drive refuses and whose
    status we refuse, its read-back): the same results, cycle counts and line words."""
    ok, lines, fig = gatesim.check(str(tmp_path), verbose=lambda *_: None, scenarios=("r_err",),
                                   netlists=("dcu",), engine=False)
    assert ok, "\n".join(lines)
    fig = fig["dcu"]
    rtl, gates = fig["runs"]["r_err"]["rtl"], fig["runs"]["r_err"]["gates"]
    assert gates["results"] == rtl["results"] and gates["line"] == rtl["line"]
    assert problems("r_err", rtl["results"]) == []
    # the write took longer than a clean one (1,016 cycles): the refusals happened and were retried
    write = next(r for r in rtl["results"] if r.startswith("write"))
    assert int(re.search(r"cycles=(\d+)", write).group(1)) > 1100, write
    # a real netlist of the whole core, mapped as a board build maps it: thousands of LUTs and
    # flip-flops, the small FIFOs in LUT RAM, the link's receive FIFO and the 8b10b decoder's ROM
    # in block RAM (our model of the DP16KD; a model that swapped the 36-bit read's halves made
    # this run fail)
    assert fig["cells"]["LUT4"] > 3000 and fig["cells"]["TRELLIS_FF"] > 1500
    assert fig["cells"]["TRELLIS_DPR16X4"] > 20 and fig["cells"]["DP16KD"] == 3
    # the DCU is the board's: one DCUA in the netlist, the model in its place in the simulation
    assert fig["cells"]["DCUA"] == 1
