# SPDX-License-Identifier: BSD-2-Clause
"""On-chip logic analyzer on the SATA PHY and link: LiteScope's ``LiteScopeAnalyzer``, a build
option for bringing up a board (``--with-analyzer``, ``--analyzer-depth N``; not in the default
build).

It samples, every sys cycle, what the link did: the host PHY state machine and its OOB handshake,
the receiver's status, the dwords both ways at the PHY's sys-side interface, the link layer's state
machines and the core's error pulses. LiteX's own tools read it over the host bridge: start
``litex_server``, then ``litescope_cli --csv build/BOARD/analyzer.csv --csr-csv build/BOARD/csr.csv
-r trigger_error`` (doc/bringup.md, "On-chip analyzer").

Two groups (``litescope_cli --group N``) share a head of the same signals at the same positions
(LiteScope's driver keeps one bit position per signal name across groups, so a name in both
groups must sit at the same position in both):

    =====  ======  ============================================================================
    group  name    signals after the head
    =====  ======  ============================================================================
    0      link    RX and TX dwords (data, charisk, valid / ready, 8b10b errors), the link
                   layer's TX and RX states, DMAT, R_OK, the core's error pulses, its reset
    1      oob     the OOB detector's detail: COMRESET or COMWAKE asked for, COMINIT / COMWAKE
                   sequences in progress, blanking, the last gap and burst measured (sys cycles)
    =====  ======  ============================================================================

The head: ``trigger_link_change`` (pulse: the PHY state or the link changed), ``trigger_error``
(pulse: any error pulse of group 0 but ``cmd_retry``, or an 8b10b error while the link is up),
the PHY state (numbered as ecpsata/phy/ctrl.py STATES) and line rate, link up, drive ready, our
OOB asked for and sent, COMINIT and COMWAKE detected, RX loss of signal, the SerDes ready flags,
TX PLL and CDR lock (ECP5 DCU), both polarities and what the PHY transmits (``tx_mode``,
ecpsata/phy/datapath.py TX_MODE_*).

The link layer's states are numbered as ``LINK_TX_STATES`` and ``LINK_RX_STATES`` below list them
(the build fails when ecpsata/core/link.py has a state they do not name).

The signals are sampled through a register (``register=True``): the analyzer's trigger and
storage logic starts at flip-flops of its own, and each watched signal only gains one more load
(sys has little margin on the ECPIX-5).

# Ref: Serial ATA Revision 3.x 8.4 (host PHY states), 9.6 (link layer states); LiteScope
#      (litescope/core.py, litescope_cli)
"""

import math
import os
from functools import reduce
from operator import or_

from migen import *
from migen.genlib.cdc import MultiReg

from litex.gen import LiteXModule

from litescope import LiteScopeAnalyzer

from ecpsata.core.common import STATUS_ERR

CSV_NAME      = "analyzer.csv"   # litescope_cli takes the CSR prefix from its name: "analyzer"
DEFAULT_DEPTH = 1024
# 64 .. 4096 samples: at 4096 the estimate (resource_estimate) is 30 block RAMs, which the Versa's
# 45F still holds beside the default build's 72 of its 108.
DEPTHS        = [2**n for n in range(6, 13)]
GROUPS        = {0: "link", 1: "oob"}

# The link layer's states (SATA 3.x §9.6; ecpsata/core/link.py): a capture's link_tx_state /
# link_rx_state is the index in these lists (public API of a capture: append, do not reorder).
LINK_TX_STATES = ["L_IDLE", "HL_SendChkRdy", "L_SendSOF", "L_SendData", "L_RcvrHold",
                  "L_SendEOF", "L_Wait", "L_Drain"]
LINK_RX_STATES = ["L_IDLE", "L_RcvChkRdy", "L_RcvData", "L_RcvEOF", "L_GoodEnd", "L_BadEnd",
                  "L_SyncEscape", "L_PMDeny"]

# The core's error pulses (ECPSATACore's event attributes) that make trigger_error, with
# device_error (a Register D2H with ERR) and 8b10b errors while the link is up.
ERROR_EVENTS = ["fis_crc_error", "fis_rejected", "rx_escape", "rx_bad_seq", "fis_unknown",
                "fis_bad_length", "fis_unexpected", "fis_stray", "data_extra", "cmd_failed"]


def state_code(fsm, states):
    """A signal with the index in ``states`` of the state ``fsm`` is in (built from ``ongoing``,
    as ecpsata/phy/ctrl.py numbers its states: the FSM's own encoding is left alone). ``states``
    must name every state of the FSM."""
    if sorted(fsm.actions) != sorted(states):
        raise ValueError(f"the link layer's states changed ({list(fsm.actions)}): update "
                         f"LINK_TX_STATES / LINK_RX_STATES and doc/bringup.md")
    code = Signal(max=len(states))
    return code, [If(fsm.ongoing(name), code.eq(i)) for i, name in enumerate(states)]


class ECPSATAProbes(LiteXModule):
    """The analyzer's signals, as wires with fixed names (the names in analyzer.csv, which
    ``litescope_cli -r NAME`` triggers on), and the two trigger pulses.

    ``phy``: a ECPSATAPHY; ``core``: an ECPSATACore on it (behind a ResetInserter in the SoC: its
    ``reset`` is sampled then); ``drive_ready``: the error block's readiness level, or None.
    ``groups``: {group number: [signals]} for LiteScopeAnalyzer.
    """
    def __init__(self, phy, core, drive_ready=None):
        self.trigger_link_change = Signal(name_override="trigger_link_change")
        self.trigger_error       = Signal(name_override="trigger_error")

        # # #

        ctrl, det, serdes = phy.ctrl, phy.oob_det, phy.serdes
        link = core.link

        def probe(name, value):
            s = Signal(len(value), name_override=name)
            self.comb += s.eq(value)
            return s

        # Head: in every group, at the same positions.
        drive_ready = probe("drive_ready", Constant(0, 1) if drive_ready is None else drive_ready)
        oob_done = Signal()
        self.specials += MultiReg(ctrl.oob_done, oob_done)   # the generator's sata_tx level
        head = [
            self.trigger_link_change,
            self.trigger_error,
            probe("phy_state",       ctrl.state),
            probe("phy_gen",         ctrl.gen),
            probe("link_up",         phy.ready),
            drive_ready,
            probe("oob_req",         ctrl.oob_req),
            probe("oob_done",        oob_done),
            probe("cominit",         det.cominit),
            probe("comwake",         det.comwake),
            probe("rx_los",          det.los),
            probe("serdes_tx_ready", ctrl.tx_ready),
            probe("serdes_rx_ready", ctrl.rx_ready),
        ]
        if hasattr(serdes, "tx_pll_locked"):     # the ECP5 DCU wrapper; not the sim SerDes
            head += [probe("tx_pll_locked", serdes.tx_pll_locked),
                     probe("rx_cdr_locked", serdes.rx_cdr_locked)]
        head += [
            probe("rx_polarity",     ctrl.rx_polarity),
            probe("tx_polarity",     ctrl.tx_polarity_line),
            probe("tx_mode",         ctrl.tx_mode),
        ]

        # Group 0: the dwords both ways, the link layer, the errors. RX is the datapath's output
        # (ecpsata/phy/phy.py passes it on only while the link is up): ALIGN and the drive's
        # first primitives show during HP6 / HP7 too.
        rx_code_error = probe("rx_code_error", ctrl.rx_valid & (ctrl.rx_code_errors != 0))
        rx_disp_error = probe("rx_disp_error", ctrl.rx_valid & (ctrl.rx_disp_errors != 0))
        tx_state, tx_cases = state_code(link.tx.fsm, LINK_TX_STATES)
        rx_state, rx_cases = state_code(link.rx.fsm, LINK_RX_STATES)
        self.comb += tx_cases + rx_cases
        errors = {name: getattr(core, name) for name in ERROR_EVENTS}
        errors["device_error"] = core.d2h.valid & ((core.d2h.status & STATUS_ERR) != 0)
        error_probes = [probe(name, value) for name, value in errors.items()]
        # The drive's signature after a link-up is a Register D2H outside a command: a stray one
        # is an error only once the drive is ready (as SError's TrStaTrns in
        # ecpsata/frontend/errors.py).
        error_terms = [p & drive_ready if p.name_override == "fis_stray" else p
                       for p in error_probes]
        link_group = [
            probe("rx_valid",      ctrl.rx_valid),
            probe("rx_charisk",    ctrl.rx_charisk),
            probe("rx_data",       ctrl.rx_data),
            rx_code_error,
            rx_disp_error,
            probe("tx_valid",      phy.sink.valid),
            probe("tx_ready",      phy.sink.ready),
            probe("tx_charisk",    phy.sink.charisk),
            probe("tx_data",       phy.sink.data),
            probe("link_tx_state", tx_state),
            probe("link_rx_state", rx_state),
            probe("link_dmat",     link.dmat),
            probe("link_tx_ok",    link.tx_ok),
            *error_probes,
            probe("cmd_retry",     core.cmd_retry),
            probe("core_reset",    getattr(core, "reset", Constant(0, 1))),
        ]

        # Group 1: the OOB detector's detail.
        oob_group = [
            probe("oob_kind",       ctrl.oob_kind),
            probe("cominit_active", det.cominit_active),
            probe("comwake_active", det.comwake_active),
            probe("oob_blank",      det.blank),
            probe("oob_last_gap",   det.last_gap),
            probe("oob_last_burst", det.last_burst),
        ]

        # Triggers.
        state_d = Signal(len(ctrl.state))
        ready_d = Signal()
        self.sync += [state_d.eq(ctrl.state), ready_d.eq(phy.ready)]
        self.comb += [
            self.trigger_link_change.eq((ctrl.state != state_d) | (phy.ready != ready_d)),
            self.trigger_error.eq(reduce(or_, error_terms) |
                                  (phy.ready & (rx_code_error | rx_disp_error))),
        ]

        self.groups = {0: head + link_group, 1: head + oob_group}


class ECPSATAAnalyzer(LiteScopeAnalyzer):
    """LiteScopeAnalyzer on ``ECPSATAProbes`` in sys, its CSV written to the build folder (LiteX's
    Builder sets ``platform.output_dir``; the current folder without one)."""
    def __init__(self, platform, phy, core, sys_clk_freq, depth=DEFAULT_DEPTH, drive_ready=None):
        if depth not in DEPTHS:
            raise ValueError(f"analyzer depth {depth}: one of {', '.join(map(str, DEPTHS))}")
        probes = ECPSATAProbes(phy, core, drive_ready)
        LiteScopeAnalyzer.__init__(self, probes.groups, depth,
            samplerate   = sys_clk_freq,
            clock_domain = "sys",
            register     = True,
            csr_csv      = None)
        self.probes = probes
        self._platform = platform

    def do_exit(self, vns):
        # A name taken twice in the design would come out numbered, and litescope_cli -r NAME
        # would no longer find it.
        for signals in self.groups.values():
            for s in signals:
                if vns.get_name(s) != s.name_override:
                    raise ValueError(f"analyzer signal {s.name_override} is named "
                                     f"{vns.get_name(s)} in the design")
        self.csr_csv = os.path.join(getattr(self._platform, "output_dir", None) or ".", CSV_NAME)
        self.export_csv(vns, self.csr_csv)


def resource_estimate(width, depth):
    """An estimate (not a synthesis result) of what the analyzer costs on ECP5:
    {"dp16kd", "lut4", "ff"}. The samples go to block RAM (a DP16KD is 512 x 36, 1024 x 18,
    2048 x 9 or 4096 x 4 bits). Per sampled bit, the logic counted is: the group multiplexer
    (1 LUT4), the trigger's compare (1.25), the trigger's 16 mask and value entries in distributed
    RAM (2: two bits per sampled bit, a 16 x 4 RAM for about 4 LUT4), the 4-entry FIFO before the
    read-out (1) and the read-out's 32-bit multiplexer (1); as flip-flops the input register, the
    mask and value CSRs and the FIFO's output (4). Plus about 200 LUT4 and 150 flip-flops of
    counters, state machines and CSRs whatever the width. Yosys may map the small memories
    differently: take it as the order of magnitude."""
    port = {512: 36, 1024: 18, 2048: 9, 4096: 4}[max(512, depth)]
    return {
        "dp16kd": math.ceil(width / port),
        "lut4":   round(6.25 * width) + 200,
        "ff":     4 * width + 150,
    }


def add_sata_analyzer(soc, depth=DEFAULT_DEPTH):
    """Adds the analyzer as ``soc.analyzer`` (CSRs ``analyzer_*``, the names litescope_cli looks
    for beside analyzer.csv) and the ``analyzer`` feature. Call after ``add_ecpsata`` and before
    ``add_identity``."""
    if not hasattr(soc, "sata_phy"):
        raise ValueError("the analyzer watches the SATA PHY and core: build with SATA")
    soc.analyzer = ECPSATAAnalyzer(soc.platform, soc.sata_phy, soc.sata_core, soc.sys_clk_freq,
                                depth=depth, drive_ready=soc.sata_errors.ready)
    soc.features.add("analyzer")
    est = resource_estimate(soc.analyzer.data_width, depth)
    print(f"[analyzer] {soc.analyzer.data_width} bits x {depth} samples in sys; estimate: "
          f"{est['dp16kd']} DP16KD, about {est['lut4']} LUT4 and {est['ff']} FF")
    return soc.analyzer


def add_analyzer_args(parser):
    """The board targets' analyzer options."""
    parser.add_argument("--with-analyzer", action="store_true",
                        help="Add the LiteScope analyzer on the SATA PHY and link (writes "
                             "analyzer.csv beside csr.csv; default: without).")
    parser.add_argument("--analyzer-depth", type=int, default=DEFAULT_DEPTH, choices=DEPTHS,
                        metavar="N", help=f"Samples the analyzer keeps (a power of two, "
                                          f"{DEPTHS[0]}..{DEPTHS[-1]}; default {DEFAULT_DEPTH}).")
