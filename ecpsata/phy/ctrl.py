# SPDX-License-Identifier: BSD-2-Clause
"""SATA host PHY controller: OOB sequence, speed negotiation, link monitoring.

# Ref: SATA 3.x §8.4.2 "Host PHY initialization state machine" (HP1_HR_Reset .. HP8_HR_Ready),
#      §8.4.1 (OOB), doc/ecp5-serdes.md (pacing, CDR hold, polarity, SYNC fill)
"""

from functools import reduce
from operator import or_

from migen import *
from migen.genlib.cdc import MultiReg

from litex.gen import *

from ecpsata.phy.serdes import GEN1, GEN2
from ecpsata.phy.common import *
from ecpsata.phy.datapath import TX_MODE_OOB, TX_MODE_D10_2, TX_MODE_ALIGN, TX_MODE_LINK

# State codes (the ``state`` status field; public API: keep the numbers).
STATES = [
    "HP1_HR_Reset",            # 0: speed set, SerDes TX ready, COMRESET pacing
    "HP1_HR_COMRESET",         # 1: COMRESET being sent
    "HP2_HR_AwaitCOMINIT",     # 2
    "HP2B_HR_AwaitNoCOMINIT",  # 3
    "HP3_HR_Calibrate",        # 4
    "HP4_HR_COMWAKE",          # 5: COMWAKE being sent
    "HP5_HR_AwaitCOMWAKE",     # 6
    "HP5B_HR_AwaitNoCOMWAKE",  # 7
    "HP6_HR_AwaitAlign",       # 8: sending D10.2, CDR released
    "HP7_HR_SendAlign",        # 9: sending ALIGN
    "HP8_HR_Ready",            # 10: link up, link layer owns TX
    "HR_Disabled",             # 11: enable = 0
    "HR_SelfTest",             # 12: self-test (selftest = 1): PRBS dwords through TX and RX
]
STATE = {name: code for code, name in enumerate(STATES)}

FORCE_GEN_AUTO = 0

# Short timings for simulations that run a link-up in seconds (the Migen harnesses, the four-state
# run): the virtual drive answers COMRESET 525 ns after the host goes quiet, COMINIT lasts
# 2.56 us, COMWAKE 1.28 us, and a Gen2 drive sends ALIGN at once.
SHORT_TIMINGS = dict(
    retry_interval     = 12e-6,
    align_timeout      = 8e-6,
    settle_time        = 0.2e-6,
    los_timeout        = 1e-6,
    align_loss_timeout = 20e-6,
)
FORCE_GEN_GEN1 = 1
FORCE_GEN_GEN2 = 2


class ECPSATAPHYCtrl(LiteXModule):
    """Host PHY initialisation state machine (sys domain), after SATA 3.x §8.4.2.

    HP1_HR_Reset sets the line rate and paces COMRESET: never more often than ``retry_interval``
    (10 ms, as drives answer within 10 ms and beacon COMINIT every 10 ms while the link is down;
    ``pacing`` multiplies it by 1, 2, 4 or 8 at run time, for drives that wedge under OOB),
    doubling every 4 failed attempts up to ``max_backoff`` doublings more; an attempt ends at
    the latest ``retry_interval`` after its COMRESET. HP2..HP5B run the COMINIT / COMWAKE
    handshake with the CDR held. HP6 sends D10.2 and waits ``align_timeout`` (873.8 us) for ALIGN;
    ALIGN received inverted flips ``rx_polarity``; with no ALIGN at Gen2 (and ``force_gen`` auto)
    the next attempt runs at Gen1; Gen2 is tried again on the next full reset (restart, enable,
    link loss) or failed attempt. HP7 echoes ALIGN until three non-ALIGN primitives arrive, for as
    long as ALIGN keeps arriving (a drive may dwell on ALIGN, a real HDD did for more than 20 us):
    it fails after ``align_timeout`` without ALIGN or at the attempt's end. With
    ``rx_polarity_auto`` = 0 the RX polarity is ``rx_polarity_force`` and inverted ALIGNs change
    nothing. HP8 is link-up; the
    link is declared lost on COMINIT, on ``rx_los`` high for ``los_timeout``, on no ALIGN for
    ``align_loss_timeout``, on more than ``max_errors`` decode errors within ``error_window``, or
    when the SerDes drops its ready flags, and initialisation starts over without a SoC reset.

    HR_SelfTest (``selftest`` = 1, entered from any state; ``selftest_active``): no OOB, the CDR
    free, the rate from ``force_gen`` (Gen1 when ``FORCE_GEN_GEN1``, else Gen2), both polarities
    as configured (nothing learnt: RX normal, TX ``tx_polarity``), TX in link mode
    fed by the self-test's dwords (phy/selftest.py) and RX not flushed; ``ready`` stays low.
    Leaving it is a full reset.

    Our own OOB on the receiver (near-end crosstalk, doc/ecp5-serdes.md "Known
    failure modes on silicon"): the detector is blanked while COMRESET / COMWAKE go out, and they
    are left only once the detector sees no signal (the echo of the last burst is over; a line
    that never goes quiet ends the attempt ``retry_interval`` after its COMRESET), so only gaps
    between the drive's bursts count. After COMWAKE the blanking lasts ``echo_blank_time`` more:
    its gaps are short, and an echo lagging by more than a burst and a gap may still be in its
    last gap when the generator is done; 250 ns covers lags up to about 357 ns and ends before
    the drive's COMWAKE (525 ns after our last burst), so all 5 of its gaps count. Not after
    COMRESET: its 320 ns gaps already cover lags up to 430 ns, a longer echo leaves no COMINIT
    gap before the drive's first burst, and a blank there would cost the drive's first gap (4 of
    its 5 needed).

    TX polarity: ``tx_polarity`` with ``tx_polarity_auto`` = 0 is what goes out. In auto mode
    (default) it is the first polarity tried, and the other one is used after every attempt that
    fails in HP7: the drive answered OOB and sent ALIGN, so a swapped TX pair, which nothing on
    the host can see, is the likely cause (doc/ecp5-serdes.md). ``tx_polarity_line`` is the polarity
    in use; it survives link losses and restarts.
    """
    def __init__(self, serdes, detector, sys_clk_freq,
                 retry_interval     = COMRESET_RETRY_INTERVAL,
                 max_backoff        = 3,
                 align_timeout      = ALIGN_TIMEOUT,
                 settle_time        = 0.5e-6,
                 los_timeout        = 2e-6,
                 align_loss_timeout = 50e-6,
                 error_window       = 10e-6,
                 max_errors         = 32,
                 echo_blank_time    = 250e-9):
        # Control (sys).
        self.enable    = Signal(reset=1)
        self.restart   = Signal()   # pulse: full reset of the link
        self.selftest  = Signal()   # level: run the self-test instead of the link
        self.force_gen = Signal(2)  # FORCE_GEN_*
        self.tx_polarity      = Signal()         # forced, or the first one tried in auto mode
        self.tx_polarity_auto = Signal(reset=1)  # try the other polarity after a failed attempt
        self.rx_polarity_force = Signal()        # the RX polarity when not learnt
        self.rx_polarity_auto  = Signal(reset=1) # learn it from ALIGN / inverted ALIGN
        self.pacing    = Signal(2)  # COMRESET pacing: retry_interval << pacing (x1, x2, x4, x8)
        # OOB generator handshake.
        self.oob_req   = Signal()
        self.oob_kind  = Signal()
        self.oob_done  = Signal()   # sata_tx level, synchronised here
        # Datapath.
        self.tx_mode   = Signal(2)
        self.tx_flush  = Signal(reset=1)
        self.rx_flush  = Signal(reset=1)
        self.rx_valid   = Signal()   # RX dwords seen in sys (snooped, never back-pressured)
        self.rx_data    = Signal(32)
        self.rx_charisk = Signal(4)
        self.rx_code_errors = Signal(3)
        self.rx_disp_errors = Signal(3)
        self.rx_align_seen  = Signal()  # an ALIGN the datapath dropped before the crossing (link up)
        # Status.
        self.ready        = Signal()
        self.selftest_active = Signal()
        self.state        = Signal(4)
        self.gen          = Signal(reset=GEN2)
        self.rx_polarity  = Signal()         # in use: learnt, or rx_polarity_force
        self.tx_polarity_line = Signal()  # the polarity sent
        self.retries      = Signal(32)
        self.link_ups     = Signal(32)
        self.code_errors  = Signal(32)
        self.disp_errors  = Signal(32)
        self.time_to_link = Signal(32)
        self.link_downs   = Signal(32)
        self.tx_ready     = Signal()
        self.rx_ready     = Signal()

        # # #

        cyc = lambda t: cycles(t, sys_clk_freq)
        retry_cycles  = cyc(retry_interval)
        align_cycles  = cyc(align_timeout)
        settle_cycles = cyc(settle_time)
        los_cycles    = cyc(los_timeout)
        aloss_cycles  = cyc(align_loss_timeout) if align_loss_timeout else None
        win_cycles    = cyc(error_window)
        blank_cycles  = cyc(echo_blank_time)

        # SerDes controls (static levels, sampled asynchronously by the SerDes).
        cdr_hold = Signal(reset=1)
        self.comb += [
            serdes.gen.eq(self.gen),
            serdes.rx_polarity.eq(self.rx_polarity),
            serdes.tx_polarity.eq(self.tx_polarity_line),
            serdes.rx_cdr_hold.eq(cdr_hold),
        ]
        oob_done = Signal()
        self.specials += [
            MultiReg(serdes.tx_ready, self.tx_ready),
            MultiReg(serdes.rx_ready, self.rx_ready),
            MultiReg(self.oob_done, oob_done),
        ]

        # Timers.
        timer     = Signal(max=max(align_cycles, retry_cycles, settle_cycles) + 2)
        timer_max = 2**len(timer) - 1
        self.sync += If(timer != timer_max, timer.eq(timer + 1))
        since_comreset_max = retry_cycles << (max_backoff + 3)
        since_comreset = Signal(max=since_comreset_max + 1, reset=since_comreset_max)
        self.sync += If(since_comreset != since_comreset_max, since_comreset.eq(since_comreset + 1))
        failures  = Signal(8)
        backoff   = Signal(max=max_backoff + 1)
        self.comb += If((failures >> 2) > max_backoff, backoff.eq(max_backoff)).Else(backoff.eq(failures >> 2))
        # Registered (a carry chain into the OOB decision was the ECPIX-5's longest sys path): one
        # cycle late never matters, since HP1_HR_Reset is entered with its timer at 0, short of
        # settle_cycles, and since_comreset restarts only as HP1_HR_Reset is left.
        pace_ok = Signal()
        self.sync += pace_ok.eq(since_comreset >= (retry_cycles << (backoff + self.pacing)))
        attempt_over = Signal()  # registered: one cycle late is nothing against 10 ms
        self.sync += attempt_over.eq(since_comreset >= retry_cycles)

        # RX polarity forced: the control's value (learnt otherwise, in HP6).
        self.sync += If(~self.rx_polarity_auto, self.rx_polarity.eq(self.rx_polarity_force))

        # TX polarity: the CSR's, inverted after each attempt that failed in HP7 (auto mode).
        tx_flip = Signal()
        self.sync += self.tx_polarity_line.eq(self.tx_polarity ^ (tx_flip & self.tx_polarity_auto))

        ttl = Signal(32)
        self.sync += If(~self.ready & (ttl != 2**32 - 1), ttl.eq(ttl + 1))

        gen_init = Signal()
        self.comb += gen_init.eq(self.force_gen != FORCE_GEN_GEN1)

        # Received primitives.
        rx_prim    = Signal()
        rx_align   = Signal()
        rx_align_n = Signal()
        rx_k28_3   = Signal()
        self.comb += [
            rx_prim.eq(self.rx_valid & (self.rx_charisk == 0b0001)),
            rx_align.eq(rx_prim & (self.rx_data == primitives["ALIGN"])),
            rx_align_n.eq(rx_prim & (self.rx_data == primitives["ALIGN_N"])),
            rx_k28_3.eq(rx_prim & (self.rx_data[0:8] == K28_3)),
        ]
        prim_count = Signal(2)

        # Link monitoring in HP8.
        los_count   = Signal(max=los_cycles + 1)
        align_count = Signal(max=(aloss_cycles or 1) + 1)
        win_count   = Signal(max=win_cycles + 1)
        err_count   = Signal(max=max_errors + 10)
        rx_errors   = Signal(4)
        self.comb += rx_errors.eq(Mux(self.rx_valid, self.rx_code_errors + self.rx_disp_errors, 0))
        link_lost = Signal()
        lost_conds = [
            ~self.tx_ready, ~self.rx_ready,
            detector.cominit_active,
            los_count == los_cycles,
            err_count > max_errors,
        ]
        if aloss_cycles:
            lost_conds.append(align_count == aloss_cycles)
        self.comb += link_lost.eq(reduce(or_, lost_conds))

        # Full reset: back to the initial speed, pacing and time-to-link from scratch.
        def full_reset():
            return [
                NextValue(self.gen, gen_init),
                NextValue(failures, 0),
                NextValue(ttl, 0),
                NextValue(timer, 0),
                NextState("HP1_HR_Reset"),
            ]

        def goto(state):
            return [NextValue(timer, 0), NextState(state)]

        def fail(flip_tx=False):
            return [
                NextValue(self.retries, self.retries + 1),
                NextValue(failures, Mux(failures == 255, 255, failures + 1)),
                NextValue(self.gen, gen_init),
                *([NextValue(tx_flip, tx_flip ^ self.tx_polarity_auto)] if flip_tx else []),
                *goto("HP1_HR_Reset"),
            ]

        self.fsm = fsm = FSM(reset_state="HP1_HR_Reset")
        fsm.act("HR_Disabled",
            If(self.enable, *full_reset())
        )
        fsm.act("HP1_HR_Reset",
            # A forced rate applies at once (the SerDes restarts: settle again).
            If((self.force_gen == FORCE_GEN_GEN1) & (self.gen != GEN1),
                NextValue(self.gen, GEN1),
                NextValue(timer, 0),
            ).Elif((self.force_gen == FORCE_GEN_GEN2) & (self.gen != GEN2),
                NextValue(self.gen, GEN2),
                NextValue(timer, 0),
            ).Elif((timer >= settle_cycles) & self.tx_ready & ~oob_done & pace_ok,
                NextValue(self.oob_req, 1),
                NextValue(self.oob_kind, OOB_COMRESET),
                NextValue(since_comreset, 0),
                *goto("HP1_HR_COMRESET")
            )
        )
        # Our own OOB sequence is over once the generator is done and its echo has left the line
        # (a line that stays busy ends the attempt).
        fsm.act("HP1_HR_COMRESET",
            If(oob_done & detector.los,
                NextValue(self.oob_req, 0),
                *goto("HP2_HR_AwaitCOMINIT")
            ).Elif(oob_done & attempt_over,
                NextValue(self.oob_req, 0),
                *fail()
            )
        )
        fsm.act("HP2_HR_AwaitCOMINIT",
            If(detector.cominit_active,
                goto("HP2B_HR_AwaitNoCOMINIT")
            ).Elif(attempt_over,
                fail()
            )
        )
        fsm.act("HP2B_HR_AwaitNoCOMINIT",
            If(~detector.cominit_active,
                goto("HP3_HR_Calibrate")
            ).Elif(timer >= retry_cycles,
                fail()
            )
        )
        fsm.act("HP3_HR_Calibrate",
            If(~oob_done,
                NextValue(self.oob_req, 1),
                NextValue(self.oob_kind, OOB_COMWAKE),
                goto("HP4_HR_COMWAKE")
            )
        )
        fsm.act("HP4_HR_COMWAKE",
            If(oob_done & detector.los,
                NextValue(self.oob_req, 0),
                goto("HP5_HR_AwaitCOMWAKE")
            ).Elif(oob_done & attempt_over,
                NextValue(self.oob_req, 0),
                fail()
            )
        )
        fsm.act("HP5_HR_AwaitCOMWAKE",
            If(detector.comwake_active,
                goto("HP5B_HR_AwaitNoCOMWAKE")
            ).Elif(timer >= retry_cycles,
                fail()
            )
        )
        fsm.act("HP5B_HR_AwaitNoCOMWAKE",
            If(~detector.comwake_active,
                NextValue(prim_count, 0),
                goto("HP6_HR_AwaitAlign")
            ).Elif(timer >= retry_cycles,
                fail()
            )
        )
        # RX is flushed (FIFO emptied, aligner unlocked) a few cycles after a polarity change, so
        # that words received with the old polarity are not judged again.
        holdoff = Signal(max=64 + 1)
        self.sync += If(holdoff != 0, holdoff.eq(holdoff - 1))
        fsm.act("HP6_HR_AwaitAlign",
            If(timer >= align_cycles,
                If((self.force_gen == FORCE_GEN_AUTO) & (self.gen == GEN2),
                    # Speed negotiation fallback: next attempt at Gen1.
                    NextValue(self.retries, self.retries + 1),
                    NextValue(self.gen, GEN1),
                    goto("HP1_HR_Reset")
                ).Else(
                    fail()
                )
            ).Elif(holdoff == 0,
                If(rx_align,
                    goto("HP7_HR_SendAlign")
                ).Elif(rx_align_n & self.rx_polarity_auto,
                    NextValue(self.rx_polarity, ~self.rx_polarity),
                    NextValue(holdoff, 64),
                )
            )
        )
        fsm.act("HP7_HR_SendAlign",
            If((timer >= align_cycles) | attempt_over,
                fail(flip_tx=True)
            ).Elif(rx_align,
                NextValue(timer, 0)  # the drive still sends ALIGN (a dwell): keep waiting
            ).Elif(rx_prim,
                If(rx_k28_3,
                    NextValue(prim_count, prim_count + 1),
                    If(prim_count == 2,
                        NextValue(self.time_to_link, ttl),
                        NextValue(self.link_ups, self.link_ups + 1),
                        NextValue(failures, 0),
                        goto("HP8_HR_Ready")
                    )
                ).Else(
                    NextValue(prim_count, 0)
                )
            ).Elif(self.rx_valid & ~rx_prim,
                NextValue(prim_count, 0)
            )
        )
        fsm.act("HP8_HR_Ready",
            If(link_lost,
                NextValue(self.link_downs, self.link_downs + 1),
                *full_reset()
            )
        )
        fsm.act("HR_SelfTest",
            If(~self.selftest, *full_reset())
        )
        # Disable / self-test / restart win over every state (appended last, so they override).
        for name in STATES:
            enter_selftest = [] if name == "HR_SelfTest" else [
                If(self.selftest,
                    NextValue(self.oob_req, 0),
                    NextValue(self.gen, self.force_gen != FORCE_GEN_GEN1),
                    NextValue(self.rx_polarity, ~self.rx_polarity_auto & self.rx_polarity_force),
                    NextValue(tx_flip, 0),
                    NextValue(holdoff, 64),
                    NextState("HR_SelfTest")
                )]
            fsm.act(name,
                If(~self.enable,
                    NextValue(self.oob_req, 0),
                    NextState("HR_Disabled")
                ).Elif(self.restart & ~self.selftest,
                    NextValue(self.oob_req, 0),
                    *full_reset()
                ).Else(*enter_selftest)
            )

        # ready is a flip-flop that follows the state register exactly (set as HP8 is entered,
        # cleared as it is left), not a decode of the state: it resets the whole SATA core and
        # gates the received stream, and a decode put a LUT and a wide fan-out at the head of sys'
        # longest paths on ECP5.
        self.sync += If(fsm.before_entering("HP8_HR_Ready"),
            self.ready.eq(1)
        ).Elif(fsm.before_leaving("HP8_HR_Ready"),
            self.ready.eq(0)
        )
        self.sync += If(fsm.before_entering("HR_SelfTest"),
            self.selftest_active.eq(1)
        ).Elif(fsm.before_leaving("HR_SelfTest"),
            self.selftest_active.eq(0)
        )

        # The detector ignores the line while our OOB goes out, and for blank_cycles after
        # COMWAKE (see the class docstring).
        blank_count = Signal(max=blank_cycles + 1)
        sending_oob = Signal()
        self.comb += sending_oob.eq(fsm.ongoing("HP1_HR_COMRESET") | fsm.ongoing("HP4_HR_COMWAKE"))
        self.sync += [
            If(fsm.ongoing("HP4_HR_COMWAKE"),
                blank_count.eq(blank_cycles)
            ).Elif(blank_count != 0,
                blank_count.eq(blank_count - 1)
            ),
            detector.blank.eq(sending_oob | (blank_count != 0)),
        ]

        # Per-state outputs (registered).
        in_states = lambda *names: reduce(or_, [fsm.ongoing(n) for n in names])
        oob_states = ["HR_Disabled", "HP1_HR_Reset", "HP1_HR_COMRESET", "HP2_HR_AwaitCOMINIT",
                      "HP2B_HR_AwaitNoCOMINIT", "HP3_HR_Calibrate", "HP4_HR_COMWAKE",
                      "HP5_HR_AwaitCOMWAKE", "HP5B_HR_AwaitNoCOMWAKE"]
        self.sync += [
            cdr_hold.eq(in_states(*oob_states)),
            self.rx_flush.eq(in_states(*oob_states) | (holdoff != 0)),
            self.tx_flush.eq(~fsm.ongoing("HP8_HR_Ready") & ~fsm.ongoing("HR_SelfTest")),
            If(in_states(*oob_states),
                self.tx_mode.eq(TX_MODE_OOB)
            ).Elif(fsm.ongoing("HP6_HR_AwaitAlign"),
                self.tx_mode.eq(TX_MODE_D10_2)
            ).Elif(fsm.ongoing("HP7_HR_SendAlign"),
                self.tx_mode.eq(TX_MODE_ALIGN)
            ).Else(
                self.tx_mode.eq(TX_MODE_LINK)
            ),
        ]
        for name, code in STATE.items():
            self.comb += If(fsm.ongoing(name), self.state.eq(code))

        # Link monitoring and error counters (HP8 only).
        self.sync += [
            If(fsm.ongoing("HP8_HR_Ready"),
                If(detector.los,
                    If(los_count != los_cycles, los_count.eq(los_count + 1))
                ).Else(
                    los_count.eq(0)
                ),
                If(rx_align | self.rx_align_seen,
                    align_count.eq(0)
                ).Elif(align_count != (aloss_cycles or 1),
                    align_count.eq(align_count + 1)
                ),
                If(win_count == win_cycles,
                    win_count.eq(0),
                    err_count.eq(0),
                ).Else(
                    win_count.eq(win_count + 1),
                    If(err_count <= max_errors, err_count.eq(err_count + rx_errors)),
                ),
                If(self.rx_valid,
                    self.code_errors.eq(self.code_errors + self.rx_code_errors),
                    self.disp_errors.eq(self.disp_errors + self.rx_disp_errors),
                )
            ).Else(
                los_count.eq(0),
                align_count.eq(0),
                win_count.eq(0),
                err_count.eq(0),
            )
        ]
