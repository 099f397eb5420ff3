# SPDX-License-Identifier: BSD-2-Clause
"""The clock-domain crossings of the ECPIX-5's own netlist (build/ecpix5/gateware): run by
scripts/test.sh once `make test` has built the board (not by the main pytest run, which starts
before the build ends: the file's name keeps it out of pytest's collection), or by hand:

    .venv/bin/python -m pytest -q tests/checks/board_cdc.py

No undeclared crossing, every declaration used, the SATA PHY's FIFOs recognised as FIFOs, and the
netlist's clocks those of the build's constraints and nextpnr's report; every reset released on its
flop's own clock (ecpsata/checks/resets.py), each domain but the power-on counter's through its own
reset synchroniser."""

import fnmatch
import os

import pytest

from ecpsata.checks import cdc, resets
from ecpsata.checks.cdc_declared import DECLARED
from ecpsata.paths import ROOT

# The ECPIX-5 ---------------------------------------------------------------------------------------

ECPIX5_DOMAINS = {"sys", "sata_tx", "sata_rx", "eth_core", "eth_rx", "por"}
# Undeclared crossings known in the ECPIX-5's netlist, to be fixed in the gateware and then taken
# out of this list (a new one fails the test): (source glob, destination glob, domains). None:
# the last one (the RX datapath's drop_align, an OR of two sys flops synchronised into sata_rx,
# which could glitch when both changed on one edge) is registered in sys before its MultiReg.
KNOWN_FINDINGS = set()


@pytest.fixture(scope="module")
def ecpix5():
    try:
        path = cdc.netlist_path("ecpix5", ROOT)
    except FileNotFoundError:
        pytest.fail("no ECPIX-5 netlist in build/ecpix5/gateware: make build BOARD=ecpix5 first")
    nl = cdc.load(path)
    return nl, cdc.analyse(nl), os.path.dirname(path)


def test_the_ecpix5_netlist_has_no_undeclared_crossing_but_the_known_findings(ecpix5):
    nl, result, gateware = ecpix5
    assert set(result["domains"]) == ECPIX5_DOMAINS
    undeclared = {(c["source"], c["dest"], c["source_domain"], c["dest_domain"])
                  for c in result["crossings"] if c["kind"] == "undeclared"}
    unknown = {u for u in undeclared if not any(
        fnmatch.fnmatchcase(cdc.signal(u[0]), s) and fnmatch.fnmatchcase(cdc.signal(u[1]), d)
        and u[2:] == (sd, dd) for s, d, sd, dd in KNOWN_FINDINGS)}
    assert not unknown, "undeclared crossings:\n" + "\n".join(f"{s} ({a}) -> {d} ({b})"
                                                            for s, d, a, b in sorted(unknown))
    fixed = {f for f in KNOWN_FINDINGS if not any(
        fnmatch.fnmatchcase(cdc.signal(u[0]), f[0]) for u in undeclared)}
    assert not fixed, f"fixed, take them out of KNOWN_FINDINGS: {fixed}"
    # Every declaration is used (a stale one would hide a future crossing of the same name).
    reasons = {c["reason"] for c in result["crossings"] if c["kind"] == "declared"}
    assert reasons == {d.reason for d in DECLARED}
    # The SATA PHY's FIFOs cross as FIFOs, and the clocks match the build's.
    fifos = {(c["source_domain"], c["dest_domain"]) for c in result["crossings"]
             if c["kind"] == "async FIFO storage"}
    assert {("sys", "sata_tx"), ("sata_rx", "sys")} <= fifos
    lines = cdc.clock_check(nl, result, gateware)
    assert not [line for line in lines if line.startswith("WARNING")], "\n".join(lines)


def test_every_reset_of_the_ecpix5_is_released_on_its_own_clock(ecpix5):
    nl, result, _ = ecpix5
    rst = resets.analyse(nl, result["crossings"])
    text, ok = resets.report(rst)
    assert ok and rst["violations"] == [], text
    # Each domain but por (a free-running counter, no reset) has a reset synchroniser on its clock,
    # and the SerDes word clocks' are requested from sys (the DCU reset sequencer's ready flags).
    assert {s["domain"] for s in rst["synchronisers"]} == ECPIX5_DOMAINS - {"por"}
    assert rst["domains"]["por"]["with_reset"] == 0
    for s in rst["synchronisers"]:
        if s["domain"] in ("sata_tx", "sata_rx"):
            assert {r["kind"] for r in s["requests"]} == {"sys"}, s
        own = [x for x in rst["domains"][s["domain"]]["sources"] if x["source"] == s["name"]]
        assert [x["kind"] for x in own] == ["reset synchroniser (own clock)"] and own[0]["flops"] > 0, s
