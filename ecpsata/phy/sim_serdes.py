# SPDX-License-Identifier: BSD-2-Clause
"""Simulation SerDes: implements the SerDes seam with plain signals for the virtual drive.

The word clock ``clk`` runs at the Gen2 word rate (150 MHz). ``sata_tx`` runs on it at Gen2 and on
``clk`` / 2 at Gen1 (a toggle register). A rate change is made while both domains are held in reset
and the ready flags are low, so the clock switch is clean. The virtual drive takes ``pads.tx`` once
per rising edge of ``pads.clk`` (the current TX word clock) and reads ``pads.gen``.

``sata_rx`` runs on ``pads.rx_clk`` when the pads have one: the drive's own word clock, as a DCU's
receiver runs on the clock its CDR recovers from the line (the drive may be some ppm off ours, with
spread spectrum). The drive changes ``pads.rx`` / ``pads.rx_los`` between its rising edges. Without
``rx_clk`` (Migen test benches) ``sata_rx`` shares the TX word clock.
"""

from migen import *
from migen.genlib.cdc import MultiReg

from litex.gen import *

from ecpsata.phy.serdes import SerDesInterface, WORD_BITS, GEN1, GEN2


def sim_serdes_pads():
    """A pads record for ``SimSerDes`` (for tests and the simulation platform's ``sata`` resource)."""
    return Record([
        ("clk",    1),
        ("tx",     WORD_BITS),
        ("gen",    1),
        ("rx",     WORD_BITS),
        ("rx_los", 1),
    ])


class SimSerDes(SerDesInterface, LiteXModule):
    """SerDes seam for simulation.

    ``pads``: record with ``clk`` (out, current word clock), ``tx`` (out, 20), ``gen`` (out,
    1 = Gen2), ``rx`` (in, 20), ``rx_los`` (in). ``clk``: free-running clock at the Gen2 word rate;
    ``None`` when a Migen test bench clocks the ``sata_word`` domain itself (it then also fires
    ``sata_tx`` / ``sata_rx`` on the ``sata_word`` edges where ``word_ce`` is high, see
    tests/support/phy_harness.py: Migen's simulator cannot run clocks made by logic).

    Polarity controls invert the words; ``tx_idle`` sends the constant all-zero word (an idle line);
    ``rx_cdr_hold`` has no effect here (it is exported as ``cdr_hold`` for tests).
    """
    def __init__(self, pads, clk=None, switch_cycles=8, ready_delay=16):
        SerDesInterface.__init__(self)
        self.pads = pads
        self.word_ce  = Signal()  # a sata_tx/sata_rx rising edge comes with the next clk edge
        self.gen_cur  = Signal(reset=GEN2)
        self.cdr_hold = self.rx_cdr_hold

        # # #

        self.cd_sata_word = ClockDomain("sata_word", reset_less=True)
        self.cd_sata_tx   = ClockDomain("sata_tx")
        self.cd_sata_rx   = ClockDomain("sata_rx")

        # Rate control in the free-running domain.
        gen_req = Signal(reset=GEN2)
        self.specials += MultiReg(self.gen, gen_req, "sata_word", reset=GEN2)
        div   = Signal()
        rst   = Signal(reset=1)
        ready = Signal()
        count = Signal(max=max(switch_cycles, ready_delay) + 1, reset=switch_cycles)
        self.sync.sata_word += div.eq(~div)
        self.fsm = fsm = ClockDomainsRenamer("sata_word")(FSM(reset_state="SWITCH"))
        fsm.act("SWITCH",  # domains in reset, ready low; switch the rate half-way
            NextValue(count, count - 1),
            If(count == switch_cycles//2, NextValue(self.gen_cur, gen_req)),
            If(count == 0,
                NextValue(rst, 0),
                NextValue(count, ready_delay),
                NextState("START")
            )
        )
        fsm.act("START",
            NextValue(count, count - 1),
            If(count == 0,
                NextValue(ready, 1),
                NextState("RUN")
            ),
            If(gen_req != self.gen_cur, NextState("STOP"))
        )
        fsm.act("RUN",
            If(gen_req != self.gen_cur, NextState("STOP"))
        )
        fsm.act("STOP",
            NextValue(ready, 0),
            NextValue(rst, 1),
            NextValue(count, switch_cycles),
            NextState("SWITCH")
        )
        self.comb += [
            self.word_ce.eq(self.gen_cur | ~div),
            self.cd_sata_tx.rst.eq(rst),
            self.cd_sata_rx.rst.eq(rst),
            self.tx_ready.eq(ready),
            self.rx_ready.eq(ready),
            pads.gen.eq(self.gen_cur),
        ]
        if clk is not None:
            word_clk = Signal()
            rx_clk = getattr(pads, "rx_clk", None)
            self.comb += [
                self.cd_sata_word.clk.eq(clk),
                word_clk.eq(Mux(self.gen_cur, clk, div)),
                self.cd_sata_tx.clk.eq(word_clk),
                self.cd_sata_rx.clk.eq(word_clk if rx_clk is None else rx_clk),
                pads.clk.eq(word_clk),
            ]

        # Data.
        tx_pol = Signal()
        rx_pol = Signal()
        self.specials += [
            MultiReg(self.tx_polarity, tx_pol, "sata_tx"),
            MultiReg(self.rx_polarity, rx_pol, "sata_rx"),
        ]
        self.sync.sata_tx += If(self.tx_idle,
            pads.tx.eq(0)
        ).Else(
            pads.tx.eq(self.tx_data ^ Replicate(tx_pol, WORD_BITS))
        )
        self.sync.sata_rx += self.rx_data.eq(pads.rx ^ Replicate(rx_pol, WORD_BITS))
        self.comb += self.rx_los.eq(pads.rx_los)
