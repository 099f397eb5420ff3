# SPDX-License-Identifier: BSD-2-Clause
"""Our SATA host in any LiteX SoC: ``add_ecpsata(soc, serdes)`` adds the PHY, the core and the
crossbar (and, as asked, LiteSATA's IDENTIFY frontend, the sector buffer, the error and readiness
block, the link event log, the benchmark engines) under one name prefix; ``add_ecpsata_ecp5``
first makes the ECP5 DCU channel from pads and a reference clock the caller gives (no CRG of ours
needed). The benchmark SoC (ecpsata/soc/builder.py) is built with the same two calls.

They are functions, not SoC methods with LiteX's names: LiteX's own ``SoC.add_sata(phy=...)``
keeps its meaning (it builds LiteSATA's core on any PHY with LiteSATA's interface), and a SoC
class may bind them under names of its own (the benchmark SoC's ``add_ecpsata``).

Registers keep the names of the benchmark SoC with the prefix (``sata_phy_*``,
``sata_identify_*``, ``sata_errors_*``, ...), so the firmware and the host tools find them. The
core and the frontends are held in reset while the link is down (a command interrupted by a link
drop ends), and after a host timeout (the engines', the sector buffer's).

Each function takes the SoC as its first argument named ``self``, and keeps each part in a local
named as the benchmark SoC's attribute before it becomes ``<name>_<part>``: Migen names the
signals it makes after the objects and variables on the call stack, so the benchmark SoC's
netlist is the same as when this code was its method.
"""

from functools import reduce
from operator import or_
from types import SimpleNamespace

from migen import ResetInserter, Signal

SECTOR_BUFFER_SECTORS = 16


def add_ecpsata(self, serdes, name="sata", ncq=False, with_identify=True, with_sector_buffer=False,
                with_errors=True, with_events=True, with_engines=False, with_dma=False,
                **phy_kwargs):
    """The SATA host on ``serdes`` (any SerDes seam: ecpsata/phy/serdes.py) in the LiteX SoC
    ``self``, each part an attribute of the SoC named ``f"{name}_<part>"``. ``ncq``: the core's
    queued command layer (READ/WRITE FPDMA QUEUED; LiteSATA's frontends do not use it).
    ``with_identify``: LiteSATA's IDENTIFY frontend and its CSRs. ``with_sector_buffer``: a
    16-sector buffer on the bus for commands of a few sectors (the ``<name>_buffer`` region).
    ``with_errors``: the error and readiness block (SError, the drive's signature, command
    failures). ``with_events``: the link event log (needs ``with_errors``). ``with_engines``: the
    benchmark engine, and with ``ncq`` the queued one. ``with_dma``: LiteSATA's DMA frontends as
    LiteX's ``add_sata(mode="read+write")`` adds them (``<name>_sector2mem``, ``<name>_mem2sector``,
    ``<name>_irq``: the registers LiteX's BIOS and the Linux LiteSATA driver use), bus masters on
    the SoC's bus. ``phy_kwargs`` go to ECPSATAPHY (``with_litesata_csr=True`` for LiteX's BIOS). Returns the parts (a namespace: phy, core, crossbar,
    ...)."""
    from ecpsata.core.core import ECPSATACore
    from ecpsata.frontend.crossbar import ECPSATACrossbar
    from ecpsata.phy.phy import ECPSATAPHY

    if with_events and not with_errors:
        raise ValueError("add_ecpsata: with_events=True needs with_errors=True (the event log "
                         "watches the error block)")
    sys_clk_freq = self.sys_clk_freq
    host = SimpleNamespace()

    def keep(part, module):
        setattr(self, f"{name}_{part}", module)
        setattr(host, part, module)

    sata_phy = ECPSATAPHY(serdes, sys_clk_freq, **phy_kwargs)
    keep("phy", sata_phy)
    link_down = Signal()
    core_reset = Signal()
    self.comb += link_down.eq(~sata_phy.ready)
    core = ResetInserter()(ECPSATACore(sata_phy, sys_clk_freq, ncq=ncq))
    keep("core", core)
    sata_crossbar = ResetInserter()(ECPSATACrossbar(core))
    crossbar = sata_crossbar
    keep("crossbar", crossbar)
    self.comb += [core.reset.eq(core_reset), crossbar.reset.eq(core_reset)]
    if with_identify:
        from litesata.frontend.identify import LiteSATAIdentify, LiteSATAIdentifyCSR
        identify = ResetInserter()(LiteSATAIdentify(crossbar.get_port()))
        self.comb += identify.reset.eq(core_reset)
        sata_identify = LiteSATAIdentifyCSR(identify)
        keep("identify", sata_identify)
        sata_identify.submodules.identify = identify
    buf = None
    if with_sector_buffer:
        from litex.soc.integration.soc import SoCRegion
        from ecpsata.frontend.buffer import ECPSATASectorBuffer
        buf = ResetInserter()(ECPSATASectorBuffer(crossbar.get_port(), SECTOR_BUFFER_SECTORS,
                                               sys_clk_freq))
        keep("buffer", buf)
        self.bus.add_slave(f"{name}_buffer", buf.bus,
                           SoCRegion(size=SECTOR_BUFFER_SECTORS * 512, cached=False))
    # Device errors and link-level error counts, kept across the core's resets; whether the
    # drive has answered since the link came up (its signature FIS).
    host_reset = Signal()
    if with_errors:
        from ecpsata.frontend.errors import ECPSATAErrors
        sata_errors = ECPSATAErrors(core, sata_phy, sys_clk_freq, host_reset=host_reset)
        keep("errors", sata_errors)
    engine_resets = []
    units = [None, None]
    if with_engines and ncq:
        # The engines run one at a time: one LBA sequencer and pattern unit, lent to the one
        # that runs (ecpsata/engines/share.py).
        from ecpsata.engines.share import EngineUnits
        sata_units = EngineUnits(2)
        keep("units", sata_units)
        units = sata_units.ports
    if with_engines:
        from ecpsata.engines.engine import ECPSATABenchEngine
        from ecpsata.frontend.port import BufferedUserPort
        # The engine is not reset with the core: it ends a command in flight when the link
        # drops (reason link lost), and its counters stay readable.
        # Registered port (cuts sys' longest path), emptied with the core.
        sata_bench_port = ResetInserter()(BufferedUserPort(crossbar.get_port()))
        bench_port = sata_bench_port
        keep("bench_port", bench_port)
        self.comb += bench_port.reset.eq(core_reset)
        sata_bench = ECPSATABenchEngine(bench_port, sys_clk_freq, write_beat=bench_port.write_beat,
                                        units=units[0])
        keep("bench", sata_bench)
        engine_resets.append(sata_bench.core_reset)
        self.comb += sata_bench.link_up.eq(_ready(sata_phy, host))
    if with_engines and ncq:
        from ecpsata.engines.queued import ECPSATAQueuedBenchEngine
        # The queued engine (READ/WRITE FPDMA QUEUED) drives the core's NCQ layer directly; the
        # host runs one engine at a time (a non-queued command while tags are outstanding is
        # refused by the core, never sent).
        sata_qbench = ECPSATAQueuedBenchEngine(core.ncq, sys_clk_freq, units=units[1])
        keep("qbench", sata_qbench)
        engine_resets.append(sata_qbench.core_reset)
        self.comb += sata_qbench.link_up.eq(_ready(sata_phy, host))
    if with_events:
        # The link event log: watches the PHY, the core and the error block
        # (ecpsata/frontend/events.py).
        from ecpsata.frontend.events import ECPSATAEventLog, sata_sources
        sources, sync = sata_sources(sata_phy, core, sata_errors, host_reset, sys_clk_freq)
        sata_events = ECPSATAEventLog(sources)
        keep("events", sata_events)
        self.sync += sync
        self.add_constant(f"{name.upper()}_EVENTS_DEPTH", sata_events.depth)
    if with_dma:
        _add_dma(self, name, crossbar, core_reset)
    self.comb += [
        host_reset.eq(reduce(or_, engine_resets, buf.core_reset if buf is not None else 0)),
        core_reset.eq(link_down | host_reset),
        # The buffer is not reset by its own pulse: that would clear the timeout it reports.
        *([buf.reset.eq(reduce(or_, engine_resets, link_down))] if buf is not None else []),
    ]
    return host


def _add_dma(self, name, crossbar, core_reset):
    """LiteSATA's sector-to-memory and memory-to-sector DMA on two ports of our crossbar, bus
    masters of the SoC, and their interrupts: what LiteX's add_sata adds in "read+write" mode,
    with its names. Reset with the core (a link drop ends a transfer)."""
    from litesata.frontend.dma import LiteSATAMem2SectorDMA, LiteSATASector2MemDMA
    from ecpsata.frontend.port import SectorLastPort
    from litex.soc.interconnect import wishbone
    from litex.soc.interconnect.csr_eventmanager import EventManager, EventSourcePulse
    irq = EventManager()
    for part, dma_class in (("sector2mem", LiteSATASector2MemDMA),
                            ("mem2sector", LiteSATAMem2SectorDMA)):
        bus = wishbone.Interface(data_width=self.bus.data_width,
                                 adr_width=self.bus.get_address_width(standard="wishbone"),
                                 addressing="word")
        port = crossbar.get_port()
        if part == "sector2mem":
            port = SectorLastPort(port)       # LiteSATA's DMA counts a sector to its `last`
            setattr(self, f"{name}_sector2mem_port", port)
        dma = ResetInserter()(dma_class(port=port, bus=bus, endianness=self.cpu.endianness))
        self.comb += dma.reset.eq(core_reset)
        setattr(self, f"{name}_{part}", dma)
        getattr(self, "dma_bus", self.bus).add_master(name=f"{name}_{part}", master=bus)
        setattr(irq, f"{part}_dma", EventSourcePulse(description=f"{part} DMA terminated."))
    setattr(self, f"{name}_irq", irq)
    irq.finalize()
    self.comb += [irq.sector2mem_dma.trigger.eq(getattr(self, f"{name}_sector2mem").irq),
                  irq.mem2sector_dma.trigger.eq(getattr(self, f"{name}_mem2sector").irq)]
    if self.irq.enabled:
        self.irq.add(f"{name}_irq", use_loc_if_exists=True)


def _ready(phy, host):
    """Link up and, with the error block, the drive answered since (its signature FIS)."""
    errors = getattr(host, "errors", None)
    return phy.ready & errors.ready if errors is not None else phy.ready


def features(soc, name="sata"):
    """The feature names of the identity register (ecpsata/soc/identity.py) that the parts
    add_ecpsata gave ``soc`` stand for: sata, bench, ncq (the queued engine)."""
    parts = {"core": "sata", "bench": "bench", "qbench": "ncq"}
    return {feature for part, feature in parts.items() if hasattr(soc, f"{name}_{part}")}


def add_ecpsata_ecp5(self, pads, refclk=None, refclk_freq=150e6, dual=0, channel=0,
                     refclk_mul=20, name="sata", gen1_method=True, bringup=False, **kwargs):
    """The ECP5 DCU channel (``<name>_serdes``: ECP5SATASerDes on ``pads``), its timing
    constraints and its clocks declared asynchronous to sys (the SoC's ``crg.cd_sys``), then
    ``add_ecpsata`` on it (``kwargs``); the platform's Yosys is handed relative paths
    (hand_tools_relative_paths). ``refclk``: the reference clock, a fabric signal or
    dedicated pads (``refclk_freq * refclk_mul`` = 3.0 GHz); None asks the SoC's CRG for one
    (``crg.add_serdes_refclk(refclk_freq)``, as ecpsata/soc/ecp5_crg.py has). ``bringup``: the
    bring-up registers `ecpsata phy` reads. Returns add_ecpsata's parts and ``serdes``."""
    from ecpsata.phy.ecp5.serdes import ECP5SATASerDes
    if refclk is None:
        refclk = self.crg.add_serdes_refclk(refclk_freq)
    sata_serdes = ECP5SATASerDes(pads, refclk, self.sys_clk_freq, refclk_freq=refclk_freq,
                                 dual=dual, channel=channel, refclk_mul=refclk_mul,
                                 gen1_method=gen1_method)
    setattr(self, f"{name}_serdes", sata_serdes)
    hand_tools_relative_paths(self.platform)
    sata_serdes.add_timing_constraints(self.platform)
    self.platform.add_false_path_constraints(self.crg.cd_sys.clk, sata_serdes.tx_clk,
                                             sata_serdes.rx_clk)
    if bringup:
        add_serdes_bringup(self, sata_serdes, name)
    return _with(add_ecpsata(self, sata_serdes, name=name, **kwargs), serdes=sata_serdes)


def _with(host, **parts):
    """``host`` with ``parts`` added. (add_ecpsata_ecp5 passes add_ecpsata's result straight here
    instead of keeping it in a local: Migen would name every signal add_ecpsata makes after that
    local, and the benchmark SoC's netlist would change.)"""
    for key, value in parts.items():
        setattr(host, key, value)
    return host


def add_serdes_bringup(self, serdes, name="sata"):
    """The ECP5 SerDes's bring-up registers (``<name>_serdes_bringup_*``: lock flags, the
    word-clock meters, raw SCI access) and the meters' scale, for `ecpsata phy`."""
    from ecpsata.phy.ecp5.bringup import ECP5SerDesBringup
    sata_serdes_bringup = ECP5SerDesBringup(serdes)
    setattr(self, f"{name}_serdes_bringup", sata_serdes_bringup)
    self.add_constant(f"{name.upper()}_SERDES_METER_DIV_LOG2", sata_serdes_bringup.div_log2)
    self.add_constant(f"{name.upper()}_SERDES_METER_WINDOW", sata_serdes_bringup.window)
    return sata_serdes_bringup


def hand_tools_relative_paths(platform):
    """Make a LiteX build of this platform with the open ECP5 tools (Trellis toolchain) hand Yosys
    the paths of its sources relative to the build folder (ecpsata/soc/build.py
    relative_tool_paths), just before its build script runs: YoWASP's Yosys maps the system's
    temporary folder to a private one of its own, so a design or a virtual environment there is
    otherwise "not found". Any other toolchain is left alone. Returns True when the toolchain was
    set up (once per toolchain)."""
    import os
    from litex.build.lattice.trellis import LatticeTrellisToolchain
    toolchain = getattr(platform, "toolchain", None)
    if not isinstance(toolchain, LatticeTrellisToolchain):
        return False
    if getattr(toolchain, "_ecpsata_relative_paths", False):
        return True
    run_script = toolchain.run_script

    def run_with_relative_paths(script):
        from ecpsata.soc.build import relative_tool_paths
        relative_tool_paths(os.getcwd())       # LiteX runs the script in the build folder
        return run_script(script)
    toolchain.run_script = run_with_relative_paths
    toolchain._ecpsata_relative_paths = True
    return True
