# SPDX-License-Identifier: BSD-2-Clause
"""Measurement primitives of the benchmark engines: min/max/sum accumulators and a log2 histogram.

Values are sys-clock cycle counts. The engines clear them at the start of a hardware run (or on
`control.clear`) and feed one sample per command.
"""

from migen import *

from litex.gen import LiteXModule

from ecpsata.engines.common import HIST_BUCKETS, STAT_FIELDS


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


class MinMaxSumBank(LiteXModule):
    """count / min / max / sum of several streams of values, kept in one small memory and updated
    by one comparator pair and one adder (MinMaxSum's registers and comparators, once per stream,
    are what the Versa's router could not fit beside the rest of the SoC).

    Stream s has a value and a write strobe (`values[s]`, `wes[s]`). A sample is latched, then
    its stream's four entries (s * 4 + the index of each name in STAT_FIELDS) are read, updated
    and written back, one a cycle: six cycles a sample, the latch included. A stream's next sample
    may come once the previous one is taken (the cycle after it), and samples keep up when each
    stream's come at least six cycles times the number of streams apart: one sample per command
    per stream is far slower than that.

    `select` / `data` read an entry; min reads 0 while count is 0; `settled` says that every
    sample is in. `clear` zeroes every entry (`busy` meanwhile, samples then ignored).
    """
    def __init__(self, nstreams, width=64):
        nfields     = len(STAT_FIELDS)
        assert STAT_FIELDS.index("count") < STAT_FIELDS.index("min")
        depth       = 1 << (nstreams*nfields - 1).bit_length()
        self.values = [Signal(width, name=f"value{s}") for s in range(nstreams)]
        self.wes    = [Signal(name=f"we{s}") for s in range(nstreams)]
        self.clear  = Signal()
        self.busy   = Signal()
        self.settled = Signal()              # every sample taken is written: the entries are final
        self.select = Signal(max=depth)
        self.data   = Signal(width)

        # # #

        mem = Memory(width, depth, init=[0]*depth)
        wr  = mem.get_port(write_capable=True)
        rd  = mem.get_port()
        out = mem.get_port(async_read=True)      # a CSR read right after the select's write
        self.specials += mem, wr, rd, out
        self.comb += [out.adr.eq(self.select), self.data.eq(out.dat_r)]

        pend   = Signal(nstreams)
        held   = Array(Signal(width, name=f"held{s}") for s in range(nstreams))
        active = Signal()
        stream = Signal(max=max(nstreams, 2))
        step   = Signal(max=nfields + 1)     # entry `step` read; entry `step - 1` written
        value  = Signal(width)
        first  = Signal()                    # the stream's count read 0: its first sample
        clr_adr  = Signal(max=depth)
        clearing = Signal()
        self.comb += [
            self.busy.eq(clearing | self.clear),
            self.settled.eq(~self.busy & ~active & (pend == 0) & (Cat(*self.wes) == 0)),
        ]

        # The lowest stream with a sample waiting.
        pick = Signal(max=max(nstreams, 2))
        for s in reversed(range(nstreams)):
            self.comb += If(pend[s], pick.eq(s))

        self.sync += [
            If(self.clear,
                clearing.eq(1),
                clr_adr.eq(0),
                pend.eq(0),
                active.eq(0),
            ).Elif(clearing,
                clr_adr.eq(clr_adr + 1),
                If(clr_adr == depth - 1, clearing.eq(0)),
            ).Else(
                If(active,
                    step.eq(step + 1),
                    If(step == nfields, active.eq(0)),
                ).Elif(pend != 0,
                    active.eq(1),
                    stream.eq(pick),
                    step.eq(0),
                    value.eq(held[pick]),
                    pend.eq(pend & ~(1 << pick)),
                ),
                *[If(self.wes[s], pend[s].eq(1), held[s].eq(self.values[s]))
                  for s in range(nstreams)],
            )
        ]

        # Read entry `step`, write entry `step - 1` from what was read.
        d       = rd.dat_r
        field   = Signal(max=nfields)
        base    = Signal(max=depth)
        updated = Signal(width)
        self.comb += [
            field.eq(step - 1),
            base.eq(stream * nfields),
            rd.adr.eq(base + step),
            Case(field, {
                STAT_FIELDS.index("count"): updated.eq(d + 1),
                STAT_FIELDS.index("min"):   updated.eq(Mux(first | (value < d), value, d)),
                STAT_FIELDS.index("max"):   updated.eq(Mux(value > d, value, d)),
                STAT_FIELDS.index("sum"):   updated.eq(d + value),
            }),
            If(clearing,
                wr.adr.eq(clr_adr),
                wr.dat_w.eq(0),
                wr.we.eq(1),
            ).Else(
                wr.adr.eq(base + field),
                wr.dat_w.eq(updated),
                wr.we.eq(active & (step != 0)),
            )
        ]
        self.sync += If(active & (field == STAT_FIELDS.index("count")), first.eq(d == 0))


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
