# SPDX-License-Identifier: BSD-2-Clause
"""The reset check (ecpsata/checks/resets.py) on small Migen designs synthesised with Yosys's
synth_ecp5, as the boards' netlists are (tests/checks/test_cdc.py's `synthesise`). The ECPIX-5's
own netlist is checked by tests/checks/board_cdc.py once `make test` has built it.

``good``: domain b is reset through an AsyncResetSynchronizer requested by a's logic or a pad; its
flops take that reset synchronously, one takes it asynchronously (an ``FD1S3DX``), and one register
is also cleared by b's own logic. ``bad``: every way a reset can be released off its flop's clock,
each on a flop of its own name, and the global set/reset driven by a pin.
"""

import io

import pytest
from migen import ClockDomain, If, Instance, Module, ResetSignal, Signal
from migen.genlib.resetsync import AsyncResetSynchronizer

from ecpsata.checks import cdc, resets
from tests.checks.test_cdc import synthesise


class _Design(Module):
    """Domains a and b (no reset of their own), a free-running counter in each."""
    def __init__(self):
        self.clock_domains.cd_a = ClockDomain(reset_less=True)
        self.clock_domains.cd_b = ClockDomain(reset_less=True)
        self.ports = {self.cd_a.clk, self.cd_b.clk}
        self.count_a, self.count_b = Signal(16), Signal(8)
        self.sync.a += self.count_a.eq(self.count_a + 1)
        self.sync.b += self.count_b.eq(self.count_b + 1)

    def ios(self):
        return self.ports

    def port(self, name, width=1):
        s = Signal(width, name_override=name)
        self.ports.add(s)
        return s

    def on_b(self, name):
        """A clock domain on b's clock, its reset left to the caller."""
        cd = ClockDomain(name)
        self.clock_domains += cd
        self.comb += cd.clk.eq(self.cd_b.clk)
        return cd

    def async_flop(self, name, clear):
        """A flop on b's clock, cleared asynchronously by `clear` (ECP5's FD1S3DX)."""
        q = self.port(name)
        self.specials += Instance("FD1S3DX", i_D=self.count_b[0], i_CK=self.cd_b.clk, i_CD=clear, o_Q=q)


class Good(_Design):
    def __init__(self):
        super().__init__()
        rst_req, rst_pad = Signal(name_override="rst_req"), self.port("rst_pad")
        self.sync.a += rst_req.eq(self.count_a == 5)
        cd = self.on_b("r")
        self.specials += AsyncResetSynchronizer(cd, rst_req | rst_pad)
        count_r, total_r = self.port("count_r", 4), self.port("total_r", 4)
        clear_r = Signal(name_override="clear_r")
        self.sync.r += [
            count_r.eq(count_r + 1),
            clear_r.eq(count_r == 9),
            If(clear_r, total_r.eq(0)).Else(total_r.eq(total_r + count_r)),
        ]
        self.async_flop("async_r", ResetSignal("r"))


class Bad(_Design):
    def __init__(self):
        super().__init__()
        count_a = self.count_a
        # An asynchronous reset from a flop of another domain.
        arst_a = Signal(name_override="arst_a")
        self.sync.a += arst_a.eq(count_a[2])
        self.async_flop("victim_async", arst_a)
        # A synchronous reset from a flop of another domain.
        srst_a, count_c = Signal(name_override="srst_a"), self.port("count_c", 4)
        self.sync.a += srst_a.eq(count_a[3])
        self.comb += self.on_b("c").rst.eq(srst_a)
        self.sync.c += count_c.eq(count_c + 1)
        # Resets straight from an input pin, synchronous and asynchronous.
        rst_pin, count_d = self.port("rst_pin"), self.port("count_d", 4)
        self.comb += self.on_b("d").rst.eq(rst_pin)
        self.sync.d += count_d.eq(count_d + 1)
        self.async_flop("victim_pin", rst_pin)
        # An asynchronous reset from b's own logic, not from a reset synchroniser.
        arst_b = Signal(name_override="arst_b")
        self.sync.b += arst_b.eq(self.count_b[4])
        self.async_flop("victim_logic", arst_b)
        # A synchronous reset from a reset synchroniser of another clock (e runs on b's clock).
        wrong_a = self.port("wrong_a", 2)
        self.specials += AsyncResetSynchronizer(self.on_b("e"), count_a[5])
        self.sync.a += If(ResetSignal("e"), wrong_a.eq(0)).Else(wrong_a.eq(wrong_a + 1))
        # The global set/reset driven by a pin: every flop, whatever its clock.
        self.specials += Instance("GSR", i_GSR=self.port("gsr_pin"))


@pytest.fixture(scope="module")
def netlists(tmp_path_factory):
    folder = tmp_path_factory.mktemp("resets")
    return {name: cdc.load(synthesise(folder, cls(), name)) for name, cls in (("good", Good), ("bad", Bad))}


def analysed(nl):
    return resets.analyse(nl, cdc.analyse(nl, ())["crossings"])


def test_a_domain_reset_through_an_async_reset_synchroniser_passes(netlists):
    result = analysed(netlists["good"])
    assert result["violations"] == []
    assert resets.report(result)[1] is True
    b = result["domains"]["b"]
    # count_r 4, clear_r 1, total_r 4, async_r 1; only async_r asynchronously.
    assert (b["with_reset"], b["asynchronous"]) == (10, 1)
    srcs = {(s["kind"], s["source"]): s["flops"] for s in b["sources"]}
    sync = [k for k in srcs if k[0] == "reset synchroniser (own clock)"]
    assert len(sync) == 1 and srcs[sync[0]] == 10
    # total_r is also cleared by b's own logic (clear_r): counted under that source as well.
    assert srcs[("same-domain logic", "(flops of the domain)")] == 4
    assert len(srcs) == 2
    [s] = result["synchronisers"]
    assert (s["domain"], s["stages"], s["name"]) == ("b", 2, sync[0][1])
    assert {(r["source"], r["kind"]) for r in s["requests"]} == {("rst_req", "a"), ("rst_pad", "pad")}
    assert result["domains"]["a"]["with_reset"] == 0


def violations(nl):
    """{(flop, domain, pin, source, kind, bits)}, the source by each of its names (a domain's reset
    is also the net it is taken from: c_rst is srst_a)."""
    return {(v["flop"], v["domain"], v["pin"], name, v["kind"], v["bits"])
            for v in analysed(nl)["violations"] for name in [v["source"]] + v["aliases"]}


def test_an_asynchronous_reset_from_another_domains_flop_fails_by_name(netlists):
    assert ("victim_async", "b", "AR", "arst_a", "logic of domain a", 1) in violations(netlists["bad"])


def test_a_synchronous_reset_from_another_domains_flop_fails(netlists):
    assert ("count_c", "b", "SR", "srst_a", "logic of domain a", 4) in violations(netlists["bad"])


def test_a_reset_from_a_raw_input_pin_fails_synchronous_or_not(netlists):
    found = violations(netlists["bad"])
    assert ("count_d", "b", "SR", "rst_pin", "pad", 4) in found
    assert ("victim_pin", "b", "AR", "rst_pin", "pad", 1) in found


def test_an_asynchronous_reset_from_logic_not_a_synchroniser_fails(netlists):
    assert ("victim_logic", "b", "AR", "arst_b", "same-domain logic, not a reset synchroniser", 1) \
        in violations(netlists["bad"])


def test_a_reset_synchroniser_of_another_clock_fails(netlists):
    found = [v for v in violations(netlists["bad"]) if v[0] == "wrong_a"]
    assert [(f, d, p, k, n) for f, d, p, _, k, n in found] == \
        [("wrong_a", "a", "SR", "reset synchroniser on b", 2)]


def test_the_global_set_reset_from_a_signal_fails(netlists):
    found = [v for v in violations(netlists["bad"]) if v[2] == "GSR"]
    assert found == [("GSR (every flop with GSR enabled)", "all", "GSR", "gsr_pin",
                      "global set/reset from a signal", 1)]


def test_the_report_lists_every_violation_and_fails(netlists):
    result = analysed(netlists["bad"])
    text, ok = resets.report(result)
    assert ok is False
    assert len(result["violations"]) == 7
    assert "FAIL: 7 resets not released on the flop's own clock" in text
    assert "  victim_async (b, AR) <- arst_a: logic of domain a" in text
    assert "  count_d (b, SR) <- d_rst (also rst_pin): pad, 4 bits" in text


def test_the_command_line_check_runs_the_reset_check_too(netlists, tmp_path):
    # No crossing at all: an asynchronous reset from b's own logic fails the reset check alone.
    class OnlyResets(_Design):
        def __init__(self):
            super().__init__()
            arst_b = Signal(name_override="arst_b")
            self.sync.b += arst_b.eq(self.count_b[4])
            self.async_flop("victim_logic", arst_b)
    path = synthesise(tmp_path, OnlyResets(), "only_resets")
    out = io.StringIO()
    assert cdc.check(path, declared=(), out=out) == 1
    text = out.getvalue()
    assert "PASS: every crossing ends in a synchroniser or is declared" in text
    assert "  victim_logic (b, AR) <- arst_b: same-domain logic, not a reset synchroniser" \
        in text.split("Resets of")[1]


class DCUResets(_Design):
    """A DCU whose TX PLL reset is decoded from b's counter (logic) and whose CDR reset is a flop."""
    def __init__(self):
        super().__init__()
        cdr_rst = Signal(name_override="cdr_rst")
        self.sync.b += cdr_rst.eq(self.count_b[6])
        self.specials += Instance("DCUA", name="DCUA",
                                  i_D_FFC_TRST=self.count_b[1:4] == 5,
                                  i_CH0_FFC_RRST=cdr_rst,
                                  i_D_FFC_MACRO_RST=0)


def test_a_dcu_reset_input_must_come_from_a_flop(tmp_path):
    nl = cdc.load(synthesise(tmp_path, DCUResets(), "dcu_resets"))
    result = analysed(nl)
    inputs = {h["pin"]: (h["registered"], h["bits"]) for h in result["hard_ip"]}
    assert inputs["DCUA.CH0_FFC_RRST"] == (True, 1)
    assert inputs["DCUA.D_FFC_TRST"] == (False, 3)
    [v] = result["violations"]
    assert (v["flop"], v["domain"], v["pin"], v["kind"], v["bits"]) == \
        ("DCUA.D_FFC_TRST", "b", "hard IP", "DCU reset input from logic (can glitch)", 3)
    text, ok = resets.report(result)
    assert ok is False and "DCUA.D_FFC_TRST (b, hard IP) <- " in text

