# SPDX-License-Identifier: BSD-2-Clause
"""The four-state run (ecpsata/checks/xprop.py): the PHY and the core from power-up with every
register of ours at X, against the virtual drive in Icarus Verilog."""

from migen import Signal

from ecpsata.checks import xprop
from ecpsata.checks.scenarios import checksum, pattern_word, problems


def test_the_phy_and_the_core_need_their_resets_only(tmp_path):
    ok, lines, fig = xprop.check(str(tmp_path), verbose=lambda *_: None)
    assert ok, "\n".join(lines)
    ref, four = fig["runs"]["reference"], fig["runs"]["four-state"]
    # the same commands, the same data and the same words on the line, cycle for cycle
    assert four["results"] == ref["results"]
    assert four["line"] == ref["line"]
    assert ref["results"][0].startswith("link up after")
    assert ref["results"][1].startswith("identify failed=0 words=128")
    assert ref["results"][2].startswith("write failed=0 words=0")
    assert ref["results"][3].startswith("read failed=0 words=512")
    assert ref["results"][4].startswith("qwrite failed=0 words=0") and "depth=4" in ref["results"][4]
    assert ref["results"][5].startswith("qread failed=0 words=512") and "depth=4" in ref["results"][5]
    assert problems("gen2", ref["results"]) == []     # the reads returned the written words
    assert four["xout"] == four["xreg"] == []
    assert "xwords=0" in four["line"]
    # the run is of the whole core: hundreds of registers start at X, a hundred and more checked
    assert fig["stripped"] > 250 and fig["checked"] > 100 and fig["memories"] >= 6


def test_the_phy_with_its_frame_check_needs_its_resets_only(tmp_path):
    """The same with the PHY's frame check (the ECPIX-5 and the simulated boards build it by
    default): its flags never take up the X of a FIFO entry never written (the transmit FIFO's
    head while it is empty)."""
    import functools
    ok, lines, fig = xprop.check(str(tmp_path), verbose=lambda *_: None,
                                 dut_class=functools.partial(xprop.XPropDUT, frame_check=True))
    assert ok, "\n".join(lines)
    assert fig["runs"]["four-state"]["results"] == fig["runs"]["reference"]["results"]
    assert problems("gen2", fig["runs"]["reference"]["results"]) == []


class _Planted(xprop.XPropDUT):
    """A flag loaded from a register that has neither a reset nor a value ever assigned."""
    def __init__(self):
        xprop.XPropDUT.__init__(self)
        self.stale = Signal(reset_less=True)
        self.flag = Signal()
        self.sync += [self.stale.eq(self.stale), self.flag.eq(self.stale)]

    def ios(self):
        return xprop.XPropDUT.ios(self) | {self.flag}    # read outside: synthesis keeps it


def test_a_flag_fed_by_a_register_without_a_reset_fails(tmp_path):
    ok, lines, fig = xprop.check(str(tmp_path), verbose=lambda *_: None, dut_class=_Planted)
    assert not ok
    assert any(line.startswith("FAIL: control register") and line.split()[3].endswith("flag")
               for line in lines), "\n".join(lines)
    # the reference run (initial values kept) has no X there: only the four-state run finds it
    assert fig["runs"]["reference"]["xreg"] == []


GOOD = ["link up after 956 cycles", "identify failed=0 words=128 sum=08bae745 cycles=316",
        "write failed=0 words=0 sum=00000000 cycles=882"]


def test_a_run_whose_read_back_is_not_the_written_data_is_a_problem():
    """The scenarios' verdict (no simulation): a read-back with another checksum, a command that
    failed, a missing step, a drop that did not fail the read are each named."""
    good = checksum(pattern_word(16 + i // 128, i % 128) for i in range(512))
    read = f"read failed=0 words=512 sum={good:08x} cycles=841"
    assert problems("gen1", GOOD + [read]) == []
    assert checksum([0] * 512) != good                       # zeros are not the pattern
    bad = problems("gen1", GOOD + ["read failed=0 words=512 sum=00000000 cycles=841"])
    assert len(bad) == 1 and "not the written data" in bad[0], bad
    assert "expected failed=0" in problems("gen1", GOOD + [read.replace("failed=0", "failed=1")])[0]
    assert "3 results for 4 steps" in problems("gen1", GOOD)[0]
    assert "expected 128 words" in problems(
        "gen1", [GOOD[0], GOOD[1].replace("words=128", "words=12"), GOOD[2], read])[0]
    # queued: one checksum per tag, then of those; the queue must have held every tag
    tags = checksum(checksum(pattern_word(32 + t, i) for i in range(128)) for t in range(4))
    qwrite = "qwrite failed=0 words=0 sum=00000000 cycles=1761 reason=0 depth=4"
    qread = f"qread failed=0 words=512 sum={tags:08x} cycles=1732 reason=0 depth=4"
    assert problems("gen2", GOOD + [read, qwrite, qread]) == []
    shallow = problems("gen2", GOOD + [read, qwrite, qread.replace("depth=4", "depth=1")])
    assert len(shallow) == 1 and "did not hold them all" in shallow[0], shallow
    dropped = GOOD + ["read failed=1 words=210 sum=e80c5d50 cycles=1393", "link up after 0 cycles",
                      read]
    assert problems("link_drop", dropped) == []
    assert "expected failed=1" in problems("link_drop", GOOD + [read, dropped[4], read])[0]


def test_a_bench_run_whose_counters_are_not_the_runs_is_a_problem():
    """The benchmark engine's step (write then verify, 2 commands of 8 sectors): both passes
    counted, every byte, no mismatch, no error; each other figure is named."""
    good = "bench failed=0 reason=0 completed=4 errors=0 bytes=16384 mismatches=0 cycles=6492"
    link = "link up after 2761 cycles"
    assert problems("bench", [link, good]) == []
    for wrong, named in (("completed=4", "completed=2"), ("bytes=16384", "bytes=8192"),
                         ("mismatches=0", "mismatches=3"), ("errors=0", "errors=1")):
        bad = problems("bench", [link, good.replace(wrong, named)])
        assert len(bad) == 1 and f"{named} (expected " in bad[0], bad
    assert "expected failed=0" in problems("bench", [link, "bench timeout completed=0"])[0]
    assert "expected failed=0" in problems("bench", [link, good.replace("failed=0", "failed=1")])[0]
