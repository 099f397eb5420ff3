# SPDX-License-Identifier: BSD-2-Clause
"""tests/support/migen_speed.py: the widths Migen's simulator asks for, remembered only inside a
simulation, the same as Migen's own, and Migen's functions back afterwards."""

from migen import Cat, Signal
from migen.fhdl import bitcontainer, structure
from migen.sim import core

from tests.support.migen_speed import widths_cached


def test_remembered_widths_are_migen_s_and_leave_nothing_patched():
    a, b = Signal(5), Signal((4, True))
    exprs = [a, b, a + b, a * b, Cat(a, b), a[1:3], -a, a == b, (a + b)[2:]]
    want = [bitcontainer.value_bits_sign(e) for e in exprs]
    originals = (bitcontainer.value_bits_sign, core.value_bits_sign, structure._Value.__len__)
    with widths_cached():
        assert bitcontainer.value_bits_sign is not originals[0]
        with widths_cached():                                  # nested: one patch
            got = [bitcontainer.value_bits_sign(e) for e in exprs]
            again = [core.value_bits_sign(e) for e in exprs]
            lens = [len(e) for e in exprs]
        assert bitcontainer.value_bits_sign is not originals[0]  # the outer one still holds
    assert got == again == want and lens == [n for n, _ in want]
    assert (bitcontainer.value_bits_sign, core.value_bits_sign,
            structure._Value.__len__) == originals
