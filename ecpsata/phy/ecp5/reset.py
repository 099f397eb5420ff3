# SPDX-License-Identifier: BSD-2-Clause
"""Reset sequencing of one ECP5 DCU channel (sys domain), after TN1261.

# Ref: Lattice TN1261 (ECP5 and ECP5-5G SERDES/PCS Usage Guide), "Reset Sequence";
#      doc/ecp5-serdes.md ("Reset order": reset order, CDR loss of
#      lock answered by a CDR reset, a drive's 54.6 us per-speed window).

Order: DCU power-on reset, then the TX PLL (``D_FFC_TRST``) and, once it is locked and the TX word
clock runs at the rate asked for, the TX lane (``CHx_FFC_LANE_TX_RST``). The receive CDR
(``CHx_FFC_RRST``) is held in reset until the TX PLL is locked and is reset again whenever the TX
PLL is; the RX lane (``CHx_FFC_LANE_RX_RST``, which empties the RX FIFO) is held in reset whenever
the receiver is not ready. A CDR that stays unlocked while waiting for lock is reset again after
``rx_cdr_timeout`` of loss of lock: short enough to retry several times inside one 54.6 us speed
window of a drive's speed negotiation.
"""

from migen import *
from migen.genlib.cdc import MultiReg

from litex.gen import *

# Reset sequencing times, seconds.
TIMINGS = dict(
    por           = 10e-6,   # D_FFC_MACRO_RST / D_FFC_DUAL_RST after sys reset
    tx_pll_reset  = 4e-6,    # D_FFC_TRST pulse
    tx_pll_lock   = 100e-6,  # D_FFS_PLOL low this long before the TX lane is released
    tx_pll_timeout= 5e-3,    # no lock (or no TX clock at the expected rate): reset the PLL again
    tx_pcs_reset  = 2e-6,    # CHx_FFC_LANE_TX_RST pulse
    rx_cdr_reset  = 2e-6,    # CHx_FFC_RRST pulse
    rx_cdr_lock   = 5e-6,    # CHx_FFS_RLOL low this long -> rx_ready (SATA speed negotiation
                             # gives the host ~54.6 us of ALIGN per rate: keep it short)
    rx_cdr_timeout= 15e-6,   # RLOL high this long in total while waiting for lock: reset the CDR
                             # again (was 1 ms: a drive offers each speed for only 54.6 us;
                             # liteiclink's ECP5 init waits 1024 sys cycles between CDR resets)
    rx_cdr_wait   = 1e-3,    # bound on one wait for lock (a lock that keeps flapping)
    rx_pcs_reset  = 1e-6,    # CHx_FFC_LANE_RX_RST pulse
    meter_window  = 4096,    # clock meter window, sys cycles (not seconds)
)


def cycles(t, sys_clk_freq):
    return max(1, int(round(t*sys_clk_freq)))


class ClockMeter(LiteXModule):
    """Counts edges of a clock, divided in its own domain, over a window of sys cycles.

    ``count`` holds the last window's count; ``update`` pulses when it changes. The counter in the
    measured domain is reset-less, so the meter works while that domain is held in reset.
    """
    def __init__(self, domain, f_max, sys_clk_freq, window=4096):
        # Divided clock levels last at least 4 sys cycles at f_max.
        self.div_log2 = div_log2 = max(1, (int(4*f_max/sys_clk_freq) - 1).bit_length())
        self.window   = window
        self.count    = Signal(max=window + 1)
        self.update   = Signal()

        # # #

        div = Signal(div_log2 + 1, reset_less=True)
        getattr(self.sync, domain).__iadd__(div.eq(div + 1))
        level = Signal()
        level_d = Signal()
        self.specials += MultiReg(div[div_log2], level)
        timer = Signal(max=window)
        edges = Signal(max=window + 1)
        self.sync += [
            level_d.eq(level),
            self.update.eq(0),
            timer.eq(timer + 1),
            If(timer == window - 1,
                timer.eq(0),
                self.count.eq(edges + (level != level_d)),
                edges.eq(0),
                self.update.eq(1),
            ).Elif(level != level_d,
                edges.eq(edges + 1),
            )
        ]

    def expected(self, f, sys_clk_freq):
        """Edges per window for a clock at f."""
        return self.window*f/(sys_clk_freq*2**self.div_log2)


class ECP5ResetSequencer(LiteXModule):
    """TX and RX reset state machines of one DCU channel (sys domain).

    Inputs: ``tx_lol`` / ``rx_lol`` (``D_FFS_PLOL`` / ``CHx_FFS_RLOL``, asynchronous), ``tx_clk_ok``
    (the TX word clock runs at the rate asked for), ``meter_update`` (the clock meter finished a
    window), ``rate_change`` (pulse: the half-rate pins changed).
    Outputs (combinatorial from the state): ``macro_rst``, ``tx_pll_rst``, ``tx_pcs_rst``,
    ``rx_cdr_rst``, ``rx_pcs_rst``; ``tx_ready``, ``rx_ready``; ``tx_pll_locked``,
    ``rx_cdr_locked`` (synchronised, inverted LOL flags).
    """
    def __init__(self, sys_clk_freq, timings=None):
        tim = dict(TIMINGS, **(timings or {}))
        cyc = lambda name: cycles(tim[name], sys_clk_freq)

        self.tx_lol       = Signal()
        self.rx_lol       = Signal()
        self.tx_clk_ok    = Signal()
        self.meter_update = Signal()
        self.rate_change  = Signal()

        self.macro_rst  = Signal()
        self.tx_pll_rst = Signal()
        self.tx_pcs_rst = Signal()
        self.rx_cdr_rst = Signal()
        self.rx_pcs_rst = Signal()
        self.tx_ready   = Signal()
        self.rx_ready   = Signal()
        self.tx_pll_locked = Signal()
        self.rx_cdr_locked = Signal()

        # # #

        # Power-on reset of the DCU.
        por = Signal(max=cyc("por") + 1, reset=cyc("por"))
        self.sync += If(por != 0, por.eq(por - 1))
        self.comb += self.macro_rst.eq(por != 0)

        tx_lol_s = Signal(reset=1)
        rx_lol_s = Signal(reset=1)
        self.specials += [
            MultiReg(self.tx_lol, tx_lol_s, reset=1),
            MultiReg(self.rx_lol, rx_lol_s, reset=1),
        ]
        self.comb += [
            self.tx_pll_locked.eq(~tx_lol_s),
            self.rx_cdr_locked.eq(~rx_lol_s),
        ]
        rate_change = self.rate_change
        tx_clk_ok   = self.tx_clk_ok
        tx_pll_rst, tx_pcs_rst = self.tx_pll_rst, self.tx_pcs_rst
        # The RX resets follow a TX PLL reset in the same cycle (the RX state machine one later).
        rx_cdr_rst, rx_pcs_rst = Signal(), Signal()
        macro_rst = self.macro_rst

        # TX: PLL reset -> PLL lock -> TX lane (PCS) reset -> TX clock at rate -> ready.
        tx_timer = Signal(max=cyc("tx_pll_timeout") + 1)
        tx_lock_cnt = Signal(max=cyc("tx_pll_lock") + 1)
        self.sync += If(tx_lol_s | tx_pll_rst, tx_lock_cnt.eq(0)).Elif(
            tx_lock_cnt != cyc("tx_pll_lock"), tx_lock_cnt.eq(tx_lock_cnt + 1))
        tx_pll_stable = Signal()
        self.comb += tx_pll_stable.eq(tx_lock_cnt == cyc("tx_pll_lock"))

        self.tx_fsm = tx_fsm = FSM(reset_state="POWER-ON")
        tx_fsm.act("POWER-ON",
            tx_pll_rst.eq(1), tx_pcs_rst.eq(1),
            NextValue(tx_timer, 0),
            If(~macro_rst, NextState("RESET-PLL"))
        )
        tx_fsm.act("RESET-PLL",
            tx_pll_rst.eq(1), tx_pcs_rst.eq(1),
            NextValue(tx_timer, tx_timer + 1),
            If(tx_timer == cyc("tx_pll_reset"),
                NextValue(tx_timer, 0),
                NextState("WAIT-PLL-LOCK"),
            )
        )
        tx_fsm.act("WAIT-PLL-LOCK",
            tx_pcs_rst.eq(1),
            NextValue(tx_timer, tx_timer + 1),
            If(tx_pll_stable,
                NextValue(tx_timer, 0),
                NextState("RESET-PCS"),
            ).Elif(tx_timer == cyc("tx_pll_timeout"),
                NextValue(tx_timer, 0),
                NextState("RESET-PLL"),
            )
        )
        tx_fsm.act("RESET-PCS",
            tx_pcs_rst.eq(1),
            NextValue(tx_timer, tx_timer + 1),
            If(tx_timer == cyc("tx_pcs_reset"),
                NextValue(tx_timer, 0),
                NextState("WAIT-TX-CLOCK"),
            )
        )
        # Two full meter windows after release so that the count reflects the new state.
        tx_windows = Signal(2)
        tx_fsm.act("WAIT-TX-CLOCK",
            NextValue(tx_timer, tx_timer + 1),
            If(self.meter_update & (tx_windows != 2), NextValue(tx_windows, tx_windows + 1)),
            If(rate_change,
                NextValue(tx_windows, 0),
                NextValue(tx_timer, 0),
                NextState("RESET-PCS"),
            ).Elif((tx_windows == 2) & tx_clk_ok,
                NextValue(tx_windows, 0),
                NextState("READY"),
            ).Elif(tx_lol_s | (tx_timer == cyc("tx_pll_timeout")),
                NextValue(tx_windows, 0),
                NextValue(tx_timer, 0),
                NextState("RESET-PLL"),
            )
        )
        tx_fsm.act("READY",
            self.tx_ready.eq(1),
            NextValue(tx_timer, 0),
            If(rate_change,
                NextState("RESET-PCS"),
            ).Elif(tx_lol_s | ~tx_clk_ok,
                NextState("RESET-PLL"),
            )
        )
        # The TX PLL has been locked for tx_pll_lock and has not been reset since (TN1261: the
        # receiver's reset is released only then).
        tx_pll_ok = Signal()
        self.comb += tx_pll_ok.eq(tx_fsm.ongoing("RESET-PCS") | tx_fsm.ongoing("WAIT-TX-CLOCK") |
                                  tx_fsm.ongoing("READY"))
        self.comb += [
            self.rx_cdr_rst.eq(rx_cdr_rst | ~tx_pll_ok),
            self.rx_pcs_rst.eq(rx_pcs_rst | ~tx_pll_ok),
        ]

        # RX: wait for the TX PLL -> CDR reset -> CDR lock -> RX lane reset -> ready. The RX lane is
        # in reset in every state but READY, so the RX FIFO is empty while the receiver is not ready.
        rx_timer = Signal(max=max(cyc("rx_cdr_wait"), cyc("rx_cdr_timeout")) + 1)
        rx_lol_time = Signal(max=cyc("rx_cdr_timeout") + 1)
        rx_lock_cnt = Signal(max=cyc("rx_cdr_lock") + 1)
        self.sync += If(rx_lol_s | rx_cdr_rst, rx_lock_cnt.eq(0)).Elif(
            rx_lock_cnt != cyc("rx_cdr_lock"), rx_lock_cnt.eq(rx_lock_cnt + 1))
        rx_cdr_stable = Signal()
        self.comb += rx_cdr_stable.eq(rx_lock_cnt == cyc("rx_cdr_lock"))

        # WAIT-TX-PLL is bounded by the TX side's own timeouts (a receiver is of no use without it).
        self.rx_fsm = rx_fsm = FSM(reset_state="WAIT-TX-PLL")
        rx_fsm.act("WAIT-TX-PLL",
            rx_cdr_rst.eq(1), rx_pcs_rst.eq(1),
            NextValue(rx_timer, 0),
            If(tx_pll_ok, NextState("RESET-CDR"))
        )
        rx_fsm.act("RESET-CDR",
            rx_cdr_rst.eq(1), rx_pcs_rst.eq(1),
            NextValue(rx_timer, rx_timer + 1),
            If(rx_timer == cyc("rx_cdr_reset"),
                NextValue(rx_timer, 0),
                NextValue(rx_lol_time, 0),
                NextState("WAIT-CDR-LOCK"),
            )
        )
        # The timeout counts time with loss of lock only: a CDR that locked and is proving stable
        # is not reset for the time that takes; rx_cdr_wait bounds a lock that keeps flapping.
        rx_fsm.act("WAIT-CDR-LOCK",
            rx_pcs_rst.eq(1),
            NextValue(rx_timer, rx_timer + 1),
            If(rx_lol_s, NextValue(rx_lol_time, rx_lol_time + 1)),
            If(rate_change,
                NextValue(rx_timer, 0),
                NextState("RESET-CDR"),
            ).Elif(rx_cdr_stable,
                NextValue(rx_timer, 0),
                NextState("RESET-PCS"),
            ).Elif((rx_lol_time == cyc("rx_cdr_timeout")) | (rx_timer == cyc("rx_cdr_wait")),
                NextValue(rx_timer, 0),
                NextState("RESET-CDR"),
            )
        )
        rx_fsm.act("RESET-PCS",
            rx_pcs_rst.eq(1),
            NextValue(rx_timer, rx_timer + 1),
            If(rate_change,
                NextValue(rx_timer, 0),
                NextState("RESET-CDR"),
            ).Elif(rx_timer == cyc("rx_pcs_reset"),
                NextValue(rx_timer, 0),
                NextState("READY"),
            )
        )
        # Loss of lock (the line went idle, or the drive sends another speed) waits for relock with
        # the lane flushed; the CDR is reset after rx_cdr_timeout of loss of lock.
        rx_fsm.act("READY",
            self.rx_ready.eq(1),
            NextValue(rx_lol_time, 0),
            If(rate_change,
                NextState("RESET-CDR"),
            ).Elif(rx_lol_s,
                NextState("WAIT-CDR-LOCK"),
            )
        )
        # A TX PLL reset (or the DCU's) takes the receiver back to the start, from any state.
        for state in ["RESET-CDR", "WAIT-CDR-LOCK", "RESET-PCS", "READY"]:
            rx_fsm.act(state,
                If(~tx_pll_ok,
                    NextValue(rx_timer, 0),
                    NextState("WAIT-TX-PLL"),
                )
            )
