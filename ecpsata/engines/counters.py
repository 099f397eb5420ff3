# SPDX-License-Identifier: BSD-2-Clause
"""Measurement primitives of the benchmark engine: min/max/sum accumulators and a log2 histogram.

Values are sys-clock cycle counts. The engine clears them at the start of a hardware run (or on
`control.clear`) and feeds one sample per command.
"""

from migen import *

from litex.gen import LiteXModule

from ecpsata.engines.common import HIST_BUCKETS


class MinMaxSum(LiteXModule):
    """min / max / sum / number of samples of a stream of values (`we` + `value`)."""
    def __init__(self, width=64, count_width=32):
        self.value = Signal(width)
        self.we    = Signal()
        self.clear = Signal()

        self.min   = Signal(width, reset=2**width - 1)
        self.max   = Signal(width)
        self.sum   = Signal(width)
        self.count = Signal(count_width)

        # # #

        self.sync += [
            If(self.clear,
                self.min.eq(2**width - 1),
                self.max.eq(0),
                self.sum.eq(0),
                self.count.eq(0),
            ).Elif(self.we,
                If(self.value < self.min, self.min.eq(self.value)),
                If(self.value > self.max, self.max.eq(self.value)),
                self.sum.eq(self.sum + self.value),
                self.count.eq(self.count + 1),
            )
        ]


def log2_bucket(value, bucket, nbuckets):
    """Statement: `bucket` <- index of the highest set bit of `value` (0 for 0 and 1), saturated at
    nbuckets-1. A priority chain: use it in a sync block (or behind a register)."""
    stmt = If(value[nbuckets - 1:] != 0, bucket.eq(nbuckets - 1))
    for k in reversed(range(1, nbuckets - 1)):
        stmt = stmt.Elif(value[k], bucket.eq(k))
    return stmt.Else(bucket.eq(0))


class Log2Histogram(LiteXModule):
    """Histogram of samples in log2 buckets (bucket k counts values in [2^k, 2^(k+1)), bucket 0 also
    holds 0, the last bucket everything above) kept in a small memory.

    Pipeline: the sample is latched, its bucket computed, then the bucket is incremented
    (read-modify-write); samples may come every cycle. Samples during a clear are ignored. `clear`
    walks the buckets (`nbuckets` cycles, `busy` meanwhile). `select`/`data` read a bucket.
    """
    def __init__(self, value_width=64, nbuckets=HIST_BUCKETS, count_width=32):
        self.value  = Signal(value_width)
        self.we     = Signal()
        self.clear  = Signal()
        self.busy   = Signal()
        self.select = Signal(max=nbuckets)
        self.data   = Signal(count_width)

        # # #

        mem = Memory(count_width, nbuckets, init=[0]*nbuckets)
        rw  = mem.get_port(write_capable=True, async_read=True)
        rd  = mem.get_port(async_read=True)
        self.specials += mem, rw, rd
        self.comb += [rd.adr.eq(self.select), self.data.eq(rd.dat_r)]

        s_valid  = Signal()
        s_value  = Signal(value_width)
        pending  = Signal()
        p_bucket = Signal(max=nbuckets)
        clr_adr  = Signal(max=nbuckets + 1)
        clearing = Signal()
        self.comb += self.busy.eq(clearing | self.clear)

        self.sync += [
            If(self.clear,
                clearing.eq(1),
                clr_adr.eq(0),
                s_valid.eq(0),
                pending.eq(0),
            ).Elif(clearing,
                clr_adr.eq(clr_adr + 1),
                If(clr_adr == nbuckets - 1, clearing.eq(0)),
            ).Else(
                s_valid.eq(self.we),
                s_value.eq(self.value),
                pending.eq(s_valid),
                If(s_valid, log2_bucket(s_value, p_bucket, nbuckets)),
            )
        ]
        self.comb += [
            If(clearing,
                rw.adr.eq(clr_adr),
                rw.dat_w.eq(0),
                rw.we.eq(1),
            ).Else(
                rw.adr.eq(p_bucket),
                rw.dat_w.eq(rw.dat_r + 1),
                rw.we.eq(pending),
            )
        ]
