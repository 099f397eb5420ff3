# SPDX-License-Identifier: BSD-2-Clause
"""Link event log: a ring of the last `depth` link and drive events with their sys-cycle times,
kept outside the core's reset, read by the console (`events`) and the host (`ecpsata events`).

An event is one of ecpsata/core/common.py LINK_EVENTS with an 8-bit argument: the PHY state
machine's every state change (COMRESET and COMWAKE sent, COMINIT and COMWAKE answered, ALIGN seen,
link up, each speed attempt), the SerDes ready flags, the RX polarity, the link, the drive's
readiness, the receive line (the SerDes' loss-of-signal flag: signal, or quiet once it has held
for LINE_QUIET, so that the bursts and gaps of an OOB sequence make one event each way), and the
errors (bad CRC, R_ERR, escapes, device errors, failed and retried commands,
the host's core resets). The log only watches: it adds no logic to the data path.

Each cycle the lowest pending event is written with the time of that cycle: events of several
kinds in one cycle are written in the next cycles, so a time is at most len(LINK_EVENTS) cycles
late (0.2 us at 75 MHz). An event of a kind still pending is counted in `lost`, not written.

CSRs (prefix-free):

    ========  ====  ===========================================================================
    control   w     clear (pulse): empty the ring and the counts
    count     32    events written since the clear (the ring holds the last `depth` of them)
    lost      32    events not written (one of the same kind was still pending)
    index     8     rw: ring slot to read (the n-th event since the clear is in slot n mod
                    depth; the SoC exports depth as the constant SATA_EVENTS_DEPTH)
    entry     12    the slot's code (bits 0-3) and argument (bits 4-11)
    time      48    the slot's time, sys cycles since power-up
    now       48    the time now, sys cycles since power-up
    ========  ====  ===========================================================================
"""

from functools import reduce
from operator import or_

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect.csr import CSRStorage, CSRStatus, CSRField

from ecpsata.core.common import LINK_EVENTS, LINK_EVENT, STATUS_ERR, LINE_QUIET

TIME_WIDTH = 48
ARG_WIDTH  = 8
CODE_WIDTH = 4
DEPTH      = 256


class ECPSATAEventLog(LiteXModule):
    """``sources``: {event name: (trigger, argument)}, every name of LINK_EVENTS, sys domain."""
    def __init__(self, sources, depth=DEPTH):
        assert set(sources) == set(LINK_EVENT), "every event has a source"
        assert len(LINK_EVENTS) <= 2**CODE_WIDTH
        self.depth = depth          # the SoC exports it as the constant SATA_EVENTS_DEPTH
        self.control = CSRStorage(fields=[
            CSRField("clear", size=1, pulse=True, description="Empty the ring and the counts."),
        ])
        self.count = CSRStatus(32)
        self.lost  = CSRStatus(32)
        self.index = CSRStorage(bits_for(depth - 1))
        self.entry = CSRStatus(fields=[
            CSRField("code", size=CODE_WIDTH, description="LINK_EVENTS code."),
            CSRField("arg", size=ARG_WIDTH, description="The event's argument."),
        ])
        self.time = CSRStatus(TIME_WIDTH)
        self.now  = CSRStatus(TIME_WIDTH)

        # # #

        n = len(LINK_EVENTS)
        now = Signal(TIME_WIDTH)
        self.sync += now.eq(now + 1)
        self.comb += self.now.status.eq(now)
        clear = self.control.fields.clear

        # Pending events, one per kind, with the argument they came with.
        trig = Signal(n)
        pending = Signal(n)
        args = Array(Signal(ARG_WIDTH, name=f"arg{c}") for c in range(n))
        # The lowest pending kind is written this cycle.
        pick = Signal(n)
        pick_code = Signal(CODE_WIDTH)
        for code, (name, _) in LINK_EVENTS.items():
            t, a = sources[name]
            self.comb += trig[code].eq(t)
            # (a kind written this cycle takes a new event's argument at once)
            self.sync += If(t & (~pending[code] | pick[code]), args[code].eq(a))
        self.comb += pick.eq(pending & (~pending + 1))
        for b in range(CODE_WIDTH):
            self.comb += pick_code[b].eq(reduce(or_, [pick[c] for c in range(n) if c >> b & 1], 0))

        mem = Memory(CODE_WIDTH + ARG_WIDTH + TIME_WIDTH, depth)
        wr = mem.get_port(write_capable=True)
        rd = mem.get_port()
        self.specials += mem, wr, rd
        slot = Signal(max=depth)
        self.comb += [
            wr.adr.eq(slot),
            wr.dat_w.eq(Cat(pick_code, args[pick_code], now)),
            wr.we.eq((pending != 0) & ~clear),
            rd.adr.eq(self.index.storage),
            self.entry.fields.code.eq(rd.dat_r[:CODE_WIDTH]),
            self.entry.fields.arg.eq(rd.dat_r[CODE_WIDTH:CODE_WIDTH + ARG_WIDTH]),
            self.time.status.eq(rd.dat_r[CODE_WIDTH + ARG_WIDTH:]),
        ]
        self.sync += [
            If(clear,
                pending.eq(0),
                slot.eq(0),
                self.count.status.eq(0),
                self.lost.status.eq(0),
            ).Else(
                pending.eq((pending & ~pick) | trig),
                If(pending != 0,
                    slot.eq(Mux(slot == depth - 1, 0, slot + 1)),
                    self.count.status.eq(self.count.status + 1),
                ),
                If((trig & pending & ~pick) != 0,
                    self.lost.status.eq(self.lost.status + 1),
                ),
            ),
        ]


def sata_sources(phy, core, errors, host_reset, sys_clk_freq):
    """The event sources of the SoC's SATA parts (ecpsata/soc/integration.py add_ecpsata): the PHY
    (``phy``: ECPSATAPHY), the core, the error block and the host's core reset pulse."""
    ctrl, det = phy.ctrl, phy.oob_det
    quiet_cycles = int(round(LINE_QUIET * sys_clk_freq))
    line, quiet = Signal(), Signal(max=quiet_cycles + 1)
    state_d = Signal(len(ctrl.state), reset=2**len(ctrl.state) - 1)
    sources = {
        "PHY_STATE": (ctrl.state != state_d, Cat(ctrl.state, ctrl.gen)),
        "COMINIT":   (det.cominit, 0),
        "COMWAKE":   (det.comwake, 0),
        "CRC_ERROR": (core.fis_crc_error, 0),
        "R_ERR":     (core.fis_rejected, 0),
        "ESCAPE":    (core.rx_escape, 0),
        "DEVICE_ERROR": (core.d2h.valid & (core.d2h.status & STATUS_ERR != 0), core.d2h.errors),
        "CMD_FAILED": (core.cmd_failed, core.cmd_reason),
        "CMD_RETRY":  (core.cmd_retry, 0),
        "HOST_RESET": (host_reset, 0),
    }
    sync = [
        state_d.eq(ctrl.state),
        If(~det.los,
            line.eq(1), quiet.eq(0)
        ).Elif(quiet == quiet_cycles,
            line.eq(0)
        ).Else(
            quiet.eq(quiet + 1)
        ),
    ]
    for name, level in (("TX_READY", ctrl.tx_ready), ("RX_READY", ctrl.rx_ready),
                        ("RX_POLARITY", ctrl.rx_polarity), ("LINK", phy.ready),
                        ("DRIVE_READY", errors.ready), ("LINE", line)):
        d = Signal(name=f"{name.lower()}_d")
        sync.append(d.eq(level))
        sources[name] = (level != d, level)
    return sources, sync
