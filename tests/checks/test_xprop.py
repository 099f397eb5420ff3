# SPDX-License-Identifier: BSD-2-Clause
"""The four-state run (ecpsata/checks/xprop.py): the PHY and the core from power-up with every
register of ours at X, against the virtual drive in Icarus Verilog."""

from migen import Signal

from ecpsata.checks import xprop


def test_the_phy_and_the_core_need_their_resets_only(tmp_path):
    ok, lines, fig = xprop.check(str(tmp_path), verbose=lambda *_: None)
    assert ok, "\n".join(lines)
    ref, four = fig["runs"]["reference"], fig["runs"]["four-state"]
    # the same commands, the same data and the same words on the line, cycle for cycle
    assert four["results"] == ref["results"]
    assert four["line"] == ref["line"]
    assert ref["results"][0].startswith("link up after")
    assert ref["results"][1].startswith("identify failed=0 words=128")
    assert ref["results"][2].startswith(f"read failed=0 words={xprop.READ_SECTORS * 128}")
    assert four["xout"] == four["xreg"] == []
    assert "xwords=0" in four["line"]
    # the run is of the whole core: hundreds of registers start at X, a hundred and more checked
    assert fig["stripped"] > 250 and fig["checked"] > 100 and fig["memories"] >= 6


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
