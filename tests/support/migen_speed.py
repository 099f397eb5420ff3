# SPDX-License-Identifier: BSD-2-Clause
"""Migen's simulator, faster: the width and signedness of a value computed once per value.

Migen's evaluator asks `len()` of every If's condition, every Case's test and every element of a
Cat on every pass, and `len()` walks the whole expression each time (a fifth of a word-level
simulation's time went there). During a simulation no expression changes, so the answer is kept
on the value itself. Only while `widths_cached()` is entered: Migen's Verilog conversion
rewrites expressions, and runs with Migen's own functions.
"""

import contextlib

from migen.fhdl import bitcontainer, structure
from migen.sim import core

_original = bitcontainer.value_bits_sign
_original_len = structure._Value.__len__


def _cached(v):
    d = v.__dict__
    r = d.get("_ecpsata_bits_sign")
    if r is None:
        r = d["_ecpsata_bits_sign"] = _original(v)
    return r


def _cached_len(v):
    return _cached(v)[0]


@contextlib.contextmanager
def widths_cached():
    """Within: Migen's `value_bits_sign` and `len()` of a value remember their answer."""
    if bitcontainer.value_bits_sign is _cached:       # nested: the outer one restores
        yield
        return
    bitcontainer.value_bits_sign = core.value_bits_sign = _cached
    structure._Value.__len__ = _cached_len
    try:
        yield
    finally:
        bitcontainer.value_bits_sign = _original
        core.value_bits_sign = _original
        structure._Value.__len__ = _original_len
