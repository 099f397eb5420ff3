# SPDX-License-Identifier: BSD-2-Clause
"""PHY self-test: a PRBS31 dword stream through the whole PHY and back, checked in sys.

With the controller in its self-test state (``ECPSATAPHYCtrl.selftest``) the TX datapath takes this
module's dwords instead of the link layer's: PRBS31 data dwords (no K characters), with the TX
datapath's own ALIGN pairs and fillers around them, through our 8b10b encoder, the gearing and the
SerDes. Whatever loops the line back (the DCU's internal loopback, a loopback plug, a cable
between the pairs) brings them through the CDR, the comma aligner, the decoder and the RX
crossing to the checker here, which predicts each data dword from the one before.

    checker: 16 correct predictions in a row lock it (``lock_time``: sys cycles from the start);
             8 wrong ones in a row unlock it (``sync_losses``) and it locks again on the stream.
             While locked it counts data dwords, wrong dwords and wrong bits (the XOR's popcount).
             8b10b code and disparity errors (all dwords) count from the start and again from
             the first lock; ALIGNs seen straight / inverted from the start.
    window:  ``duration`` sys cycles from the lock; the counters stop with it (``done``).

PRBS31 (x^31 + x^28 + 1, ITU-T O.150's long pattern): each dword is the next 32 bits of the
sequence, bit 0 first, so a dword determines the next one (``prbs31_next``).

# Ref: ITU-T O.150 (PRBS31); SATA 3.x §8.5 (8b10b), §9.4.2 (ALIGN)
"""

from functools import reduce
from operator import xor

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect import stream
from litex.soc.interconnect.csr import CSRField, CSRStatus, CSRStorage

from litesata.common import phy_description

from ecpsata.phy.common import popcount, primitives

PRBS31_SEED  = 0x7FFFFFFF  # the generator's first dword (any non-zero dword is a state)
LOCK_GOOD    = 16          # correct predictions in a row to lock
UNLOCK_BAD   = 8           # wrong predictions in a row to unlock


def _prbs31_taps():
    """For each bit of the next dword, the bits of the current dword it is the XOR of."""
    bits = [{i} for i in range(32)]  # bit n of the stream as a set of current-dword bits
    for n in range(32, 64):
        bits.append(bits[n - 31] ^ bits[n - 28])
    return [sorted(b) for b in bits[32:]]


PRBS31_TAPS = _prbs31_taps()


def prbs31_next(dword):
    """The dword that follows ``dword`` in the PRBS31 stream."""
    return sum((bin(dword & sum(1 << t for t in taps)).count("1") & 1) << i
               for i, taps in enumerate(PRBS31_TAPS))


def prbs31_next_expr(dword):
    """``prbs31_next`` as a Migen expression of a 32-bit signal."""
    return Cat(*[reduce(xor, [dword[t] for t in taps]) for taps in PRBS31_TAPS])


class ECPSATAPHYSelfTest(LiteXModule):
    """PRBS31 generator (``source``, sys, to the TX datapath) and checker (``rx_*``, the RX
    datapath's output in sys); ``active``: the controller is in its self-test state."""
    def __init__(self, with_csr=True):
        self.source = stream.Endpoint(phy_description(32))
        self.enable = Signal()          # request: the controller enters its self-test state
        self.active = Signal()          # the controller is in it
        self.rx_valid   = Signal()
        self.rx_data    = Signal(32)
        self.rx_charisk = Signal(4)
        self.rx_code_errors = Signal(3)
        self.rx_disp_errors = Signal(3)
        self.rx_align_seen  = Signal()  # an ALIGN dropped before the crossing
        self.duration = Signal(32)      # sys cycles to count for, from the lock

        # Status.
        self.locked      = Signal()
        self.done        = Signal()
        self.lock_time   = Signal(32)
        self.elapsed     = Signal(32)   # sys cycles since the start
        self.dwords      = Signal(48)
        self.dword_errors = Signal(32)
        self.bit_errors  = Signal(32)
        self.code_errors = Signal(32)
        self.disp_errors = Signal(32)
        self.aligns      = Signal(32)
        self.aligns_inverted = Signal(32)
        self.sync_losses = Signal(16)

        # # #

        # Generator: a new dword each time the TX datapath takes one.
        gen = Signal(32, reset=PRBS31_SEED)
        self.comb += [
            self.source.valid.eq(self.active),
            self.source.data.eq(gen),
            self.source.charisk.eq(0),
        ]
        self.sync += If(~self.active,
            gen.eq(PRBS31_SEED)
        ).Elif(self.source.valid & self.source.ready,
            gen.eq(prbs31_next_expr(gen))
        )

        # The received stream is registered first: the checker then loads the RX FIFO's output
        # with one flip-flop per bit, not its own logic (that output heads sys' longest paths,
        # through the link layer).
        rx = Record([("valid", 1), ("data", 32), ("charisk", 4), ("code_errors", 3),
                     ("disp_errors", 3), ("align_seen", 1)])
        self.sync += [
            rx.valid.eq(self.rx_valid), rx.data.eq(self.rx_data), rx.charisk.eq(self.rx_charisk),
            rx.code_errors.eq(self.rx_code_errors), rx.disp_errors.eq(self.rx_disp_errors),
            rx.align_seen.eq(self.rx_align_seen),
        ]

        # Checker, stage 1: the prediction from the last data dword (received while unlocked, the
        # expected one while locked: a wrong bit then costs one dword, not two).
        prev      = Signal(32)
        have_prev = Signal()
        data_in   = Signal()
        self.comb += data_in.eq(rx.valid & (rx.charisk == 0))
        diff  = Signal(32)
        check = Signal()
        kind  = Signal(2)  # stage 1 -> 2: 0 none, 1 ALIGN, 2 ALIGN inverted
        expected = Signal(32)
        self.comb += expected.eq(prbs31_next_expr(prev))
        running = Signal()
        self.comb += running.eq(self.active & ~self.done)
        self.sync += [
            check.eq(data_in & have_prev),
            diff.eq(rx.data ^ expected),
            kind.eq(Mux(rx.align_seen, 1,
                    Mux(rx.valid & (rx.charisk == 0b0001) &
                        (rx.data == primitives["ALIGN_N"]), 2, 0))),
            If(data_in,
                If(self.locked & have_prev,
                    prev.eq(expected)
                ).Elif(rx.data != 0,
                    prev.eq(rx.data), have_prev.eq(1)
                )
            ),
            If(~self.active, have_prev.eq(0)),
        ]
        code_in = Signal(3)
        disp_in = Signal(3)
        self.sync += [
            code_in.eq(Mux(rx.valid, rx.code_errors, 0)),
            disp_in.eq(Mux(rx.valid, rx.disp_errors, 0)),
        ]

        # Stage 2: lock, counters, window.
        good = Signal(max=LOCK_GOOD + 1)
        bad  = Signal(max=UNLOCK_BAD + 1)
        wrong = Signal()
        self.comb += wrong.eq(diff != 0)
        window = Signal(32)
        started = Signal()  # locked once: the window runs
        counting = Signal()
        self.comb += counting.eq(running & self.locked)
        self.sync += [
            If(~self.active,
                self.locked.eq(0), self.done.eq(0), good.eq(0), bad.eq(0), window.eq(0),
                started.eq(0),
                self.elapsed.eq(0), self.lock_time.eq(0),
                self.dwords.eq(0), self.dword_errors.eq(0), self.bit_errors.eq(0),
                self.code_errors.eq(0), self.disp_errors.eq(0), self.aligns.eq(0),
                self.aligns_inverted.eq(0), self.sync_losses.eq(0),
            ).Else(
                If(~self.done & (self.elapsed != 2**32 - 1), self.elapsed.eq(self.elapsed + 1)),
                If(check,
                    If(~self.locked,
                        If(wrong,
                            good.eq(0)
                        ).Elif(good == LOCK_GOOD - 1,
                            self.locked.eq(1), bad.eq(0),
                            If(~started, started.eq(1), self.lock_time.eq(self.elapsed))
                        ).Else(
                            good.eq(good + 1)
                        )
                    ).Elif(wrong,
                        If(bad == UNLOCK_BAD - 1,
                            self.locked.eq(0), good.eq(0),
                            If(running, self.sync_losses.eq(self.sync_losses + 1))
                        ).Else(
                            bad.eq(bad + 1)
                        )
                    ).Else(
                        bad.eq(0)
                    )
                ),
                If(counting,
                    If(check,
                        self.dwords.eq(self.dwords + 1),
                        If(wrong,
                            self.dword_errors.eq(self.dword_errors + 1),
                            self.bit_errors.eq(self.bit_errors + popcount(diff)),
                        )
                    ),
                ),
                # Symbol errors and ALIGNs are counted from the start, the symbol errors again
                # from the first lock: a run that never locks shows why (a stuck bit: code
                # errors; a swapped pair: ALIGNs inverted).
                If(running,
                    self.code_errors.eq(self.code_errors + code_in),
                    self.disp_errors.eq(self.disp_errors + disp_in),
                    If(kind == 1, self.aligns.eq(self.aligns + 1)),
                    If(kind == 2, self.aligns_inverted.eq(self.aligns_inverted + 1)),
                ),
                If(check & ~started & ~wrong & (good == LOCK_GOOD - 1),
                    self.code_errors.eq(0), self.disp_errors.eq(0),
                ),
                If(started,
                    If(window == self.duration, self.done.eq(1)).Else(window.eq(window + 1))
                ),
            )
        ]

        if with_csr:
            self.add_csr()

    def add_csr(self):
        self._control = CSRStorage(fields=[
            CSRField("enable", size=1, description="1: the PHY runs the self-test (the link is "
                     "down meanwhile); 0: back to normal initialisation. The rate is the PHY's "
                     "``force_gen`` (Gen1 when 1, else Gen2)."),
        ])
        self._duration = CSRStorage(32, reset=75_000_000,
            description="sys cycles to count for, from the checker's lock.")
        self._status = CSRStatus(fields=[
            CSRField("locked", size=1, description="The checker follows the PRBS31 stream."),
            CSRField("done",   size=1, description="The window is over; the counters are final."),
        ])
        self._lock_time    = CSRStatus(32, description="sys cycles from enable to the first lock.")
        self._elapsed      = CSRStatus(32, description="sys cycles from enable (stops at done).")
        self._dwords       = CSRStatus(48, description="Data dwords checked.")
        self._dword_errors = CSRStatus(32, description="Data dwords that differed from the prediction.")
        self._bit_errors   = CSRStatus(32, description="Bits that differed.")
        self._code_errors  = CSRStatus(32, description="8b10b code errors (symbols), from the first lock (from enable while never locked).")
        self._disp_errors  = CSRStatus(32, description="8b10b disparity errors (symbols), counted as the code errors.")
        self._aligns       = CSRStatus(32, description="ALIGNs received (at least one of each pair).")
        self._aligns_inverted = CSRStatus(32, description="ALIGNs received inverted (a swapped pair).")
        self._sync_losses  = CSRStatus(16, description="Times the checker lost the stream.")
        self.comb += [
            self.enable.eq(self._control.fields.enable),
            self.duration.eq(self._duration.storage),
            self._status.fields.locked.eq(self.locked),
            self._status.fields.done.eq(self.done),
        ]
        for name in ("lock_time", "elapsed", "dwords", "dword_errors", "bit_errors",
                     "code_errors", "disp_errors", "aligns", "aligns_inverted", "sync_losses"):
            self.comb += getattr(self, "_" + name).status.eq(getattr(self, name))
