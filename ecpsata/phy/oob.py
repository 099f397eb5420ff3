# SPDX-License-Identifier: BSD-2-Clause
"""SATA OOB signalling: COMRESET / COMWAKE generator and COMINIT / COMWAKE detector.

# Ref: SATA 3.x §8.4.1 (OOB signalling), doc/ecp5-serdes.md (OOB made through the
#      serializer: the only method that made drives answer COMWAKE on ECP5 hardware)
"""

from migen import *
from migen.genlib.cdc import MultiReg

from litex.gen import *

from ecpsata.phy.serdes import GEN1, GEN2, WORD_BITS
from ecpsata.phy.common import *

# OOB generator ------------------------------------------------------------------------------------

class OOBGenerator(LiteXModule):
    """COMRESET / COMWAKE generator (``sata_tx`` domain).

    Six bursts, each followed by a gap, timed in Gen1 UI whatever the line rate: at Gen2 a burst is
    16 words and a COMRESET / COMWAKE gap 48 / 16 words; at Gen1 8 and 24 / 8 words.

    Handshake with the controller (``sys`` domain, four-phase, so that a reset of ``sata_tx`` in the
    middle never starts a spurious sequence): the controller raises ``req`` with ``kind`` stable,
    the generator runs one sequence and raises ``done``; ``done`` drops when ``req`` drops.

    Methods (build time): ``serializer`` (default; bursts = alternating carrier words, gaps = all-zero
    word, ``tx_idle`` kept 0), ``ei`` (gaps with ``tx_idle`` = 1), ``ldr`` (the SerDes wrapper drives
    its low-data-rate path from ``ldr_enable`` / ``ldr_burst``; the serializer sends zeros).

    ``ei_gaps`` (sys level, run time, serializer method): COMRESET's gaps also with ``tx_idle`` = 1.
    Electrical idle takes about 220 ns to engage on the DCU and shorter requests are swallowed, so
    only COMRESET's 320 ns gaps can carry it; COMWAKE's 107 ns gaps stay all-zero words.
    """
    def __init__(self, gen, method=OOB_METHOD_SERIALIZER):
        assert method in OOB_METHODS
        # sys domain handshake (synchronised here).
        self.req  = Signal()
        self.kind = Signal()   # OOB_COMRESET / OOB_COMWAKE
        self.done = Signal()   # sata_tx domain level (synchronise in sys)
        # sata_tx domain outputs.
        self.tx_data   = Signal(WORD_BITS)
        self.tx_idle   = Signal()
        self.active    = Signal()   # a sequence is being sent
        self.ldr_enable = Signal()
        self.ldr_burst  = Signal()
        self.ei_gaps    = Signal()  # sys level

        # # #

        req  = Signal()
        kind = Signal()
        gen_tx = Signal()
        ei_gaps = Signal()
        self.specials += [
            MultiReg(self.ei_gaps, ei_gaps, "sata_tx"),
            MultiReg(self.req,  req,    "sata_tx"),
            MultiReg(self.kind, kind,   "sata_tx"),
            MultiReg(gen,       gen_tx, "sata_tx"),
        ]

        burst_words = {g: oob_words(OOB_BURST_UI, g) for g in (GEN1, GEN2)}
        gap_words   = {(g, k): oob_words(ui, g) for g in (GEN1, GEN2)
                        for k, ui in ((OOB_COMRESET, OOB_COMRESET_GAP_UI), (OOB_COMWAKE, OOB_COMWAKE_GAP_UI))}
        count  = Signal(max=max(gap_words.values()) + 1)
        bursts = Signal(max=OOB_BURSTS + 1)
        toggle = Signal()
        burst  = Signal()

        def burst_len():
            return Mux(gen_tx, burst_words[GEN2] - 1, burst_words[GEN1] - 1)

        def gap_len():
            return Mux(gen_tx,
                Mux(kind, gap_words[(GEN2, OOB_COMWAKE)], gap_words[(GEN2, OOB_COMRESET)]) - 1,
                Mux(kind, gap_words[(GEN1, OOB_COMWAKE)], gap_words[(GEN1, OOB_COMRESET)]) - 1)

        self.fsm = fsm = ClockDomainsRenamer("sata_tx")(FSM(reset_state="IDLE"))
        fsm.act("IDLE",
            If(req & ~self.done,
                NextValue(count, burst_len()),
                NextValue(bursts, OOB_BURSTS - 1),
                NextState("BURST")
            )
        )
        fsm.act("BURST",
            burst.eq(1),
            NextValue(count, count - 1),
            If(count == 0,
                NextValue(count, gap_len()),
                NextState("GAP")
            )
        )
        fsm.act("GAP",
            NextValue(count, count - 1),
            If(count == 0,
                NextValue(count, burst_len()),
                NextValue(bursts, bursts - 1),
                If(bursts == 0,
                    NextValue(self.done, 1),
                    NextState("IDLE")
                ).Else(
                    NextState("BURST")
                )
            )
        )
        self.sync.sata_tx += If(~req, self.done.eq(0))
        self.comb += self.active.eq(~fsm.ongoing("IDLE"))

        # Output word, registered.
        carrier = Signal(WORD_BITS)
        self.comb += If(gen_tx,
            carrier.eq(Mux(toggle, OOB_BURST_WORDS[GEN2][1], OOB_BURST_WORDS[GEN2][0]))
        ).Else(
            carrier.eq(Mux(toggle, OOB_BURST_WORDS[GEN1][1], OOB_BURST_WORDS[GEN1][0]))
        )
        self.sync.sata_tx += [
            toggle.eq(burst & ~toggle),
            self.tx_data.eq(OOB_GAP_WORD),
            self.tx_idle.eq(0),
            self.ldr_enable.eq(0),
            self.ldr_burst.eq(0),
        ]
        if method == OOB_METHOD_SERIALIZER:
            self.sync.sata_tx += If(burst,
                self.tx_data.eq(carrier)
            ).Elif(fsm.ongoing("GAP") & ei_gaps & (kind == OOB_COMRESET),
                self.tx_idle.eq(1)
            )
        elif method == OOB_METHOD_EI:
            # Electrical idle in gaps and between sequences (the DCU swallows EI shorter than about
            # 200 ns in 10BSER mode: this method is for hardware experiments only).
            self.sync.sata_tx += If(burst, self.tx_data.eq(carrier)).Else(self.tx_idle.eq(1))
        else:
            self.sync.sata_tx += [
                self.ldr_enable.eq(self.active),
                self.ldr_burst.eq(burst),
            ]

# OOB detector -------------------------------------------------------------------------------------

class OOBDetector(LiteXModule):
    """COMINIT / COMWAKE detector from the receiver's loss-of-signal level (``sys`` domain).

    ``rx_los`` is asynchronous: synchronised, then debounced (a level must hold ``debounce``
    cycles). Each gap (idle time between two bursts) is classified by length: COMWAKE
    35 ns <= T < 175 ns, COMINIT 175 ns <= T < 525 ns. Burst length does not classify (SATA 3.x
    §8.4.1): any burst of at least ``OOB_BURST_MIN_NS`` (40 ns) counts, up to ``OOB_SIGNAL_NS``
    (527 ns, the longest gap) of continuous activity, which is a signal (ALIGN, data), not OOB.
    ``min_gaps`` consecutive gaps of one class make a detection: ``cominit`` / ``comwake`` pulse,
    and ``cominit_active`` / ``comwake_active`` stay high until the sequence is over (no burst for
    longer than the class's longest gap, or activity for ``OOB_SIGNAL_NS``, e.g. ALIGN after
    COMWAKE).

    ``blank`` (sys) makes the detector ignore the line while the controller's own OOB may be on
    it (near-end crosstalk, doc/ecp5-serdes.md): nothing is counted or detected,
    active sequences end, and a burst counts only if it started and ended with ``blank`` low, so
    the first gap counted afterwards follows a burst that is not the tail of an echo.
    """
    def __init__(self, rx_los, sys_clk_freq, min_gaps=OOB_MIN_GAPS, debounce=2):
        self.blank          = Signal()
        self.cominit        = Signal()
        self.comwake        = Signal()
        self.cominit_active = Signal()
        self.comwake_active = Signal()
        self.los            = Signal(reset=1)  # debounced rx_los
        self.last_gap       = Signal(16)       # last gap measured, sys cycles (debug/tests)
        self.last_burst     = Signal(16)       # last burst measured, sys cycles

        # # #

        ns = lambda t: int(round(t*1e-9*sys_clk_freq))
        wake_min, wake_max = gap_window(COMWAKE_NO_SHORT_NS, COMWAKE_NO_LONG_NS, sys_clk_freq)
        init_min, init_max = gap_window(COMINIT_NO_SHORT_NS, COMINIT_NO_LONG_NS, sys_clk_freq)
        self.windows = dict(wake=(wake_min, wake_max), init=(init_min, init_max))
        # A burst is [burst_min, signal_len) cycles of activity (see OOB_BURST_MIN_NS): no upper
        # bound of its own, only the point where activity stops being OOB (rounded like the gap
        # windows' upper ends, so equal to init_max).
        burst_min = ns(OOB_BURST_MIN_NS)
        signal_len = gap_window(0, OOB_SIGNAL_NS, sys_clk_freq)[1]
        assert wake_min >= 2, "sys clock too slow for OOB detection"

        # Synchronise and debounce.
        los_sync = Signal(reset=1)
        self.specials += MultiReg(rx_los, los_sync, reset=1)
        stable = Signal(max=debounce + 1)
        los_d  = Signal(reset=1)
        self.sync += [
            los_d.eq(los_sync),
            If(los_sync != los_d,
                stable.eq(0)
            ).Elif(stable != debounce,
                stable.eq(stable + 1)
            ),
            If(stable == debounce - 1, self.los.eq(los_d)),
        ]

        # Measure the current level's duration (saturating).
        length_sat = max(init_max, signal_len) + 1
        length  = Signal(max=length_sat + 1)
        los_q   = Signal(reset=1)
        edge    = Signal()
        self.comb += edge.eq(self.los != los_q)
        self.sync += [
            los_q.eq(self.los),
            If(edge,
                length.eq(1)
            ).Elif(length != length_sat,
                length.eq(length + 1)
            )
        ]

        # Classify.
        burst_ok   = Signal()   # the last activity was a burst, not noise or a signal
        fresh      = Signal()   # the current burst started with blank low and blank stayed low
        wake_count = Signal(max=min_gaps + 1)
        init_count = Signal(max=min_gaps + 1)
        self.sync += If(self.blank,
            fresh.eq(0)
        ).Elif(edge & ~self.los,
            fresh.eq(1)
        )
        self.sync += [
            self.cominit.eq(0),
            self.comwake.eq(0),
            If(edge & self.los,
                # Burst ended.
                self.last_burst.eq(length),
                burst_ok.eq(fresh & (length >= burst_min) & (length < signal_len)),
                If((length < burst_min) | (length >= signal_len),
                    wake_count.eq(0),
                    init_count.eq(0),
                )
            ).Elif(edge & ~self.los,
                # Gap ended (burst starts): classify it.
                self.last_gap.eq(length),
                If(burst_ok & (length >= wake_min) & (length < wake_max),
                    init_count.eq(0),
                    If(wake_count != min_gaps, wake_count.eq(wake_count + 1)),
                    If(wake_count == min_gaps - 1,
                        self.comwake.eq(1),
                        self.comwake_active.eq(1)
                    )
                ).Elif(burst_ok & (length >= init_min) & (length < init_max),
                    wake_count.eq(0),
                    If(init_count != min_gaps, init_count.eq(init_count + 1)),
                    If(init_count == min_gaps - 1,
                        self.cominit.eq(1),
                        self.cominit_active.eq(1)
                    )
                ).Else(
                    wake_count.eq(0),
                    init_count.eq(0),
                )
            ).Elif(self.los & (length >= init_max),
                # Idle for longer than any gap: sequences are over.
                wake_count.eq(0),
                init_count.eq(0),
                self.cominit_active.eq(0),
                self.comwake_active.eq(0),
            ).Elif(self.los & (length >= wake_max),
                wake_count.eq(0),
                self.comwake_active.eq(0),
            ).Elif(~self.los & (length >= signal_len),
                # Continuous activity (data, ALIGN): not OOB.
                wake_count.eq(0),
                init_count.eq(0),
                self.cominit_active.eq(0),
                self.comwake_active.eq(0),
            )
        ]
        # Blanked: forget everything (last in the block, so it wins).
        self.sync += If(self.blank,
            burst_ok.eq(0),
            wake_count.eq(0),
            init_count.eq(0),
            self.cominit.eq(0),
            self.comwake.eq(0),
            self.cominit_active.eq(0),
            self.comwake_active.eq(0),
        )
