# SPDX-License-Identifier: BSD-2-Clause
"""LBA sequencer of the benchmark engine (ecpsata/engines/engine.py): the LBA of each command of a
hardware run, sequential or random, as common.sequential_lbas / common.random_lbas compute them.
"""

from migen import *

from litex.gen import LiteXModule

from ecpsata.engines.common import *

assert RANDOM_WARMUP == LBA_WIDTH

# LBA sequencer ------------------------------------------------------------------------------------

class LBASequencer(LiteXModule):
    """Produces the LBA of each command of a hardware run (common.sequential_lbas/random_lbas).

    `start` loads the first LBA, `next` computes the following one; `ready` is high when `lba` is
    valid. Random mode divides range by sectors once per run (48 cycles) and then needs one cycle
    per xorshift64 try (plus one) and a shift-add multiply (17 cycles) per LBA, done while a
    command runs.
    """
    def __init__(self):
        self.base    = Signal(LBA_WIDTH)
        self.range   = Signal(LBA_WIDTH)
        self.sectors = Signal(17)
        self.random  = Signal()
        self.seed    = Signal(32)
        self.start   = Signal()
        self.next    = Signal()

        self.lba   = Signal(LBA_WIDTH)
        self.ready = Signal()

        # # #

        end   = Signal(LBA_WIDTH + 1)
        slots = Signal(LBA_WIDTH)
        mask  = Signal(LBA_WIDTH)
        x     = Signal(64)
        rem   = Signal(18)
        i     = Signal(max=LBA_WIDTH + 1)
        mul_a = Signal(LBA_WIDTH)
        mul_b = Signal(17)
        acc   = Signal(LBA_WIDTH)

        # xorshift64 step and slot draw.
        x1, x2, xn = Signal(64), Signal(64), Signal(64)
        draw = Signal(LBA_WIDTH)
        draw_r = Signal(LBA_WIDTH)
        draw_ok = Signal()          # draw_r < slots, registered with it
        draw_valid = Signal()
        self.comb += [
            x1.eq(x ^ (x << 13)),
            x2.eq(x1 ^ (x1 >> 7)),
            xn.eq(x2 ^ (x2 << 17)),
            draw.eq(xn[:LBA_WIDTH] & mask),
        ]
        # mask = 2^ceil(log2(slots)) - 1: smear the bits of slots - 1.
        smear = [Signal(LBA_WIDTH) for _ in range(7)]
        self.comb += smear[0].eq(slots - 1)
        for k, s in enumerate((1, 2, 4, 8, 16, 32)):
            self.comb += smear[k + 1].eq(smear[k] | (smear[k] >> s))

        # Requests are registered (the engine's FSM decode stays off the sequencer's wide muxes);
        # `ready` is low from the cycle after a request.
        start, nxt = Signal(), Signal()
        self.sync += [start.eq(self.start), nxt.eq(self.next)]

        seq_next = Signal(LBA_WIDTH + 1)
        seq_lba  = Signal(LBA_WIDTH)
        seq_end  = Signal(LBA_WIDTH + 2)
        self.comb += seq_next.eq(self.lba + self.sectors)

        self.fsm = fsm = FSM(reset_state="IDLE")
        fsm.act("IDLE",
            self.ready.eq(~start & ~nxt),
            If(start,
                NextValue(self.lba, self.base),
                NextValue(end, self.base + self.range),
                NextValue(x, (((self.seed ^ WEYL) & M32) << 32) | self.seed),
                If(self.random,
                    NextValue(slots, 0),
                    NextValue(rem, 0),
                    NextValue(i, 0),
                    NextValue(mul_a, self.range),   # dividend, shifted out MSB first
                    NextState("DIVIDE")
                )
            ).Elif(nxt,
                If(self.random,
                    NextState("DRAW")
                ).Else(
                    NextValue(seq_lba, seq_next),
                    NextValue(seq_end, self.lba + Cat(0, self.sectors)),
                    NextState("WRAP")
                )
            )
        )
        # Sequential: wrap when the next command would cross the end (one carry chain per cycle).
        fsm.act("WRAP",
            NextValue(self.lba, Mux(seq_end > end, self.base, seq_lba)),
            NextState("IDLE")
        )
        # Restoring division slots = range // sectors.
        rem_shift = Signal(19)
        self.comb += rem_shift.eq(Cat(mul_a[-1], rem))
        fsm.act("DIVIDE",
            NextValue(x, xn),                       # RANDOM_WARMUP (= LBA_WIDTH) steps
            NextValue(mul_a, mul_a << 1),
            NextValue(i, i + 1),
            If(rem_shift >= self.sectors,
                NextValue(rem, rem_shift - self.sectors),
                NextValue(slots, Cat(1, slots)),
            ).Else(
                NextValue(rem, rem_shift),
                NextValue(slots, Cat(0, slots)),
            ),
            If(i == LBA_WIDTH - 1,
                NextState("MASK")
            )
        )
        fsm.act("MASK",
            NextValue(mask, smear[-1]),
            NextState("DRAW")
        )
        # Draw: step the generator and register the candidate slot with its comparison against
        # slots, take it the next cycle (the generator holds when a candidate is taken, so the
        # sequence matches the reference). The comparison's carry chain ends in a flip-flop, not
        # in the enables of the multiplier's registers.
        fsm.act("DRAW",
            If(draw_valid & draw_ok,
                NextValue(draw_valid, 0),
                NextValue(mul_a, draw_r),
                NextValue(mul_b, self.sectors),
                NextValue(acc, 0),
                NextState("MULTIPLY")
            ).Else(
                NextValue(x, xn),
                NextValue(draw_r, draw),
                NextValue(draw_ok, draw < slots),
                NextValue(draw_valid, 1),
            )
        )
        fsm.act("MULTIPLY",
            If(mul_b == 0,
                NextValue(self.lba, self.base + acc),
                NextState("IDLE")
            ).Else(
                If(mul_b[0], NextValue(acc, acc + mul_a)),
                NextValue(mul_a, mul_a << 1),
                NextValue(mul_b, mul_b >> 1),
            )
        )
