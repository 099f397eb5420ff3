# SPDX-License-Identifier: BSD-2-Clause
"""Data pattern generator and checker keyed by (run seed, LBA, dword index).

The pattern is defined in ecpsata/engines/common.py (`pattern_dword`); this module produces it at
one dword per cycle for writes and compares read data against it, counting mismatching dwords and
sectors and latching the first failing LBA. One unit serves both directions: the engine runs one
command at a time, so write data and read data never flow together.
"""

from migen import *

from litex.gen import LiteXModule

from ecpsata.engines.common import SECTOR_DWORDS, WEYL, LBA_WIDTH


def mix32(x):
    """Gateware twin of common.mix32: returns (statements, result signal) built from comb XORs."""
    stmts, cur = [], x
    for shift, left in ((13, True), (17, False), (5, True), (7, True), (25, False), (12, True)):
        nxt = Signal(32)
        stmts.append(nxt.eq(cur ^ ((cur << shift) if left else (cur >> shift))))
        cur = nxt
    return stmts, cur


class PatternUnit(LiteXModule):
    """Pattern generator/checker.

    - `load` (pulse): position at dword 0 of sector `lba`, which must have been stable for
      LOAD_LATENCY cycles (the sector seed is pipelined); `value` is valid the next cycle.
    - `advance` (pulse): step to the next dword (wrapping into lba+1 after 128 dwords).
    - `check` with `advance`: compare `data` against `value`; a difference counts a mismatching
      dword, the sector counts once, the first failing LBA is latched.
    - `clear` resets the error counters.
    """
    LOAD_LATENCY = 3    # cycles `lba` (and `seed`) must be stable before `load`

    def __init__(self, count_width=32):
        self.seed    = Signal(32)
        self.lba     = Signal(LBA_WIDTH)
        self.load    = Signal()
        self.advance = Signal()
        self.check   = Signal()
        self.data    = Signal(32)
        self.clear   = Signal()

        self.value            = Signal(32)
        self.mismatch         = Signal()     # comb: this dword differs
        self.mismatch_dwords  = Signal(count_width)
        self.mismatch_sectors = Signal(count_width)
        self.first_bad_lba    = Signal(LBA_WIDTH)
        self.first_bad_valid  = Signal()

        # # #

        cur_lba  = Signal(LBA_WIDTH)
        next_lba = Signal(LBA_WIDTH)
        index    = Signal(max=SECTOR_DWORDS)
        w        = Signal(32)
        bad      = Signal()                # a mismatch earlier in this sector

        # Sector seeds in three register stages, for the LBA to load (`lba`, stable LOAD_LATENCY
        # cycles before `load`) and for the sector after the current one (ready long before the
        # 128th dword): stage1 = mix32(fold(lba)), w0 = mix32(stage1 ^ seed) + WEYL (dword 0's w),
        # v0 = mix32(w0) (dword 0's value).
        def sector_seed(lba):
            hi = lba[32:48]
            fold, x = Signal(32), Signal(32)
            stage1, w0, v0 = Signal(32), Signal(32), Signal(32)
            s1, m1 = mix32(fold)
            s2, m2 = mix32(x)
            s3, m3 = mix32(w0)
            self.comb += [fold.eq(lba[:32] ^ (hi << 16) ^ hi)] + s1 + [x.eq(stage1 ^ self.seed)]
            self.comb += s2 + s3
            self.sync += [stage1.eq(m1), w0.eq(m2 + WEYL), v0.eq(m3)]
            return w0, v0

        w0_load, v0_load = sector_seed(self.lba)
        w0_next, v0_next = sector_seed(next_lba)

        # w and value = mix32(w) are registers; within a sector w steps by WEYL.
        last_dword = Signal()
        w_step = Signal(32)
        s_out, v_step = mix32(w_step)
        self.comb += [w_step.eq(w + WEYL)] + s_out
        self.sync += If(self.load,
                w.eq(w0_load), self.value.eq(v0_load)
            ).Elif(self.advance,
                If(last_dword,
                    w.eq(w0_next), self.value.eq(v0_next)
                ).Else(
                    w.eq(w_step), self.value.eq(v_step)
                )
            )

        self.comb += [
            last_dword.eq(index == SECTOR_DWORDS - 1),
            self.mismatch.eq(self.advance & self.check & (self.data != self.value)),
        ]
        self.sync += [
            If(self.load,
                cur_lba.eq(self.lba),
                next_lba.eq(self.lba + 1),
                index.eq(0),
                bad.eq(0),
            ).Elif(self.advance,
                If(last_dword,
                    cur_lba.eq(next_lba),
                    next_lba.eq(next_lba + 1),
                    index.eq(0),
                    bad.eq(0),
                ).Else(
                    index.eq(index + 1),
                    bad.eq(bad | self.mismatch),
                )
            ),
            If(self.clear,
                self.mismatch_dwords.eq(0),
                self.mismatch_sectors.eq(0),
                self.first_bad_valid.eq(0),
                self.first_bad_lba.eq(0),
            ).Elif(self.mismatch,
                self.mismatch_dwords.eq(self.mismatch_dwords + 1),
                If(~bad,
                    self.mismatch_sectors.eq(self.mismatch_sectors + 1),
                    If(~self.first_bad_valid,
                        self.first_bad_valid.eq(1),
                        self.first_bad_lba.eq(cur_lba),
                    )
                )
            )
        ]
