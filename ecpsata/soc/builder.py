# SPDX-License-Identifier: BSD-2-Clause
"""The SoC shared by every ecpsata target, and the two-pass build that puts our firmware in ROM.

A target module (ecpsata/soc/targets/: its board declared once, ecpsata/soc/boards.py) provides the
platform, the clocks and the board specifics; everything common lives here so that the targets stay short.
"""

import functools
import math
import os
import shutil
import subprocess
import time

from migen import *
from migen.fhdl.module import Module

from litex.soc.integration.soc_core import SoCCore
from litex.soc.integration.builder import Builder
from litex.soc.integration.common import get_mem_data
from litex.build.lattice.trellis import LatticeTrellisToolchain

from ecpsata.soc import integration
from ecpsata.soc.busstage import WishboneStage
from ecpsata.soc.identity import Identity, STAMP_MAGIC, STAMP_WORDS, stamp_words

from ecpsata.paths import PACKAGE, ROOT as REPO

ROM_SIZE      = 0x14000  # firmware lives here (no BIOS): 80 KiB, 40 DP16KD
SRAM_SIZE     = 0x4000
MAIN_RAM_SIZE = 0x8000
STAMP_OFFSET  = ROM_SIZE - 4 * STAMP_WORDS  # the build stamp: the last words of ROM
ETHERBONE_BUFFER_WORDS = 128   # reads or writes per Etherbone record the SoC takes (<= 255)
FIRMWARE_LIBS = ("libc", "libcompiler_rt", "libbase")   # buffers for the console's hexdump and the CPU-path benchmark


def git_revision():
    """(rev as int of the first 8 hex digits, dirty flag). 0 outside a git checkout."""
    try:
        rev = subprocess.run(["git", "rev-parse", "--short=8", "HEAD"], cwd=REPO, check=True,
                             capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
                               check=True, capture_output=True, text=True).stdout.strip() != ""
        return int(rev[:8], 16), dirty
    except (OSError, subprocess.CalledProcessError, ValueError):
        return 0, True


def build_time():
    """SOURCE_DATE_EPOCH if set, else the time of the commit built: the same commit always gives
    the same bitstream. Outside a git checkout, now."""
    if "SOURCE_DATE_EPOCH" in os.environ:
        return int(os.environ["SOURCE_DATE_EPOCH"])
    try:
        return int(subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=REPO, check=True,
                                  capture_output=True, text=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError, ValueError):
        return int(time.time())


@functools.lru_cache(maxsize=None)
def build_stamp():
    """(git revision, dirty, build time) of this build (read once: both passes and the csr.csv
    constants agree)."""
    rev, dirty = git_revision()
    return rev, dirty, build_time()


def with_stamp(rom_init, stamp):
    """The ROM image with the build stamp in its last words (zeros in between)."""
    free = STAMP_OFFSET // 4
    if len(rom_init) > free:
        raise SystemExit(f"firmware is {len(rom_init) * 4} bytes, ROM holds {STAMP_OFFSET} besides "
                         f"the build stamp")
    return list(rom_init) + [0] * (free - len(rom_init)) + stamp_words(*stamp)


# Options added to nextpnr's call on the ECP5 boards. --tmg-ripup: the router rips up and
# reroutes nets on failing timing paths too, not only congested ones. On the Versa's default
# placement of this design sys went from 74.8 to 78.8 MHz with it; the ECPIX-5's stayed at 82.8.
NEXTPNR_OPTS = ("--tmg-ripup",)

# nextpnr places and routes sys against this much above the frequency it runs at (an LPF line
# `FREQUENCY NET "sys_clk" ... MHz;`, which nextpnr takes over the frequency it derives from the
# PLL): its timing-driven placement and rip-up then work on every path short of the margin this
# project asks of each clock, not only on those short of the clock itself. The build judges the
# result against the running frequency (design_clocks.json in the gateware folder; nextpnr runs
# with --timing-allow-fail, ecpsata/soc/build.py): a placement between the two is a pass.
PLACEMENT_MARGIN = 0.10


def placement_target(mhz):
    """The frequency nextpnr is asked for, in MHz: PLACEMENT_MARGIN above `mhz`, rounded up to
    the LPF's tenth of a MHz."""
    return math.ceil(round(mhz * (1 + PLACEMENT_MARGIN) * 10, 6)) / 10


class ECPSATASoC(SoCCore):
    """VexRiscv + ROM/SRAM/main RAM + console UART + bridge + identity block.

    uart: "sim" (console on the sim serial pads), "serial" (console on the board UART), or
    "crossover+uartbone" (board UART carries the litex_server bridge, console is a crossover UART
    reached through litex_server). nextpnr_opts: the board's own nextpnr options, after
    NEXTPNR_OPTS. cpu_variant: VexRiscv's ("standard": caches for instructions and data; "lite":
    no data cache, for a device that is full).
    """
    def __init__(self, platform, board, sys_clk_freq, uart="serial", features=(),
                 firmware_init=None, nextpnr_opts=(), cpu_variant="standard", **kwargs):
        with_uartbone = uart == "crossover+uartbone"
        SoCCore.__init__(self, platform, sys_clk_freq,
            ident                    = f"ecpsata {board.name}",
            cpu_type                 = "vexriscv",
            cpu_variant              = cpu_variant,
            # LiteX's "crossover+uartbone" name no longer adds the bridge: ask for both parts.
            uart_name                = "crossover" if with_uartbone else uart,
            with_uartbone            = with_uartbone,
            integrated_rom_size      = ROM_SIZE,
            integrated_rom_init      = firmware_init or [],
            integrated_sram_size     = SRAM_SIZE,
            integrated_main_ram_size = MAIN_RAM_SIZE,
            with_timer               = True,
            **kwargs)
        self.timer0.add_uptime()
        if isinstance(platform.toolchain, LatticeTrellisToolchain):    # (LiteX has no public hook)
            toolchain = platform.toolchain
            toolchain._pnr_opts = " ".join([toolchain._pnr_opts, *NEXTPNR_OPTS, *nextpnr_opts]).strip()
            self.design_clocks = {"sys_clk": sys_clk_freq / 1e6}
            platform.add_platform_command(f'FREQUENCY NET "sys_clk" '
                                          f'{placement_target(sys_clk_freq / 1e6):.1f} MHz;')
        # The firmware polls the console UART (LiteX's libbase reads this constant from soc.h).
        # Its interrupt handler empties the RX FIFO into a 128-byte ring and drops whatever does
        # not fit, and does not return while bytes keep coming: in the simulator, which refills
        # the FIFO every clock, a burst past 127 characters lost its tail. Polled, a full RX FIFO
        # holds the sender back (the simulator waits) while a command runs. Firmware only: the
        # gateware is the same.
        self.add_constant("UART_POLLING")
        self.board    = board
        self.features = set(features)
        if uart == "crossover+uartbone":
            self.features.add("uartbone")

    def add_csr_bridge(self, name="csr", origin=None, register=False):
        """The CSR bridge always registered: the CSR banks' address decode and read multiplexer
        (large with the benchmark engine's counters) then start from a flip-flop instead of the
        bus arbiter, which keeps sys above 75 MHz on ECP5. One more cycle per CSR access."""
        SoCCore.add_csr_bridge(self, name=name, origin=origin, register=True)

    def add_etherbone_bridge(self, phy, ip_address, core_cd="eth_core", core_clk_freq=None, udp_port=1234,
                      mac_address=0x10e2d5000000):
        """Etherbone for litex_server over UDP. The MAC, IP and UDP layers run in their own clock
        domain ``core_cd`` (slower than sys: their long paths stay out of sys), the Etherbone
        records and the bus master in sys, with asynchronous FIFOs between. (Not LiteX's
        ``add_etherbone``, whose options differ: that one keeps its meaning on this SoC.) Only the MAC's edge
        runs at the PHY's 125 MHz clocks. The target's CRG creates ``core_cd`` (as
        ``crg.cd_<core_cd>``); without one (``core_cd=None``) the layers run in sys.

        The layers are 32 bits wide: a gigabit PHY moves a byte per 125 MHz cycle, and a frame
        must not pause on its way out nor overflow on its way in. At 8 bits a 50 MHz domain moves
        50 MB/s against the PHY's 125 MB/s, so every frame left the MAC in pieces (found on the
        simulated ECPIX-5, ecpsata/soc/targets/ecpix5_sim.py: the tap interface refused each piece)."""
        from liteeth.core import LiteEthUDPIPCore
        from liteeth.frontend.etherbone import LiteEthEtherbone
        ethcore = LiteEthUDPIPCore(phy, mac_address, ip_address, core_clk_freq or self.sys_clk_freq,
                                   dw=32, with_sys_datapath=True)
        port_cd = "sys"
        if core_cd is not None:
            ethcore = ClockDomainsRenamer({"sys": core_cd})(ethcore)
            # The UDP port's crossing needs a name for sys that the renaming above leaves alone.
            port_cd = "etherbone"
            self.cd_etherbone = ClockDomain("etherbone")
            self.comb += [
                self.cd_etherbone.clk.eq(ClockSignal("sys")),
                self.cd_etherbone.rst.eq(ResetSignal("sys")),
            ]
        self.ethcore_etherbone = ethcore
        # A record of more reads or writes than the buffer holds is lost whole (no answer): the
        # host's write bursts (ecpsata/host/sata.py WRITE_BURST_WORDS) and the server's read
        # records (ecpsata/host/server.py) must fit. With 16 the sector buffer's 128-word bursts
        # never came back (found on the simulated ECPIX-5).
        self.etherbone = LiteEthEtherbone(ethcore.udp, udp_port, buffer_depth=ETHERBONE_BUFFER_WORDS,
                                          cd=port_cd)
        # Etherbone's bus requests start from a register (ecpsata/soc/busstage.py), not from its
        # record FIFO's block RAM: that path ran into the main RAM's write enables in sys.
        self.etherbone_stage = WishboneStage(self.etherbone.wishbone.bus)
        self.bus.add_master(name="etherbone", master=self.etherbone_stage.bus)
        if not hasattr(phy, "rx_clk_freq"):
            return      # LiteEth's PHY model (the simulated ECPIX-5): on sys, no constraints
        rx, tx = phy.crg.cd_eth_rx.clk, phy.crg.cd_eth_tx.clk
        self.platform.add_period_constraint(rx, 1e9 / phy.rx_clk_freq)
        self.platform.add_period_constraint(tx, 1e9 / phy.tx_clk_freq)
        clocks = [self.crg.cd_sys.clk, rx, tx]
        if core_cd is not None:
            clocks.append(getattr(self.crg, f"cd_{core_cd}").clk)
        self.platform.add_false_path_constraints(*clocks)

    # The whole SATA host of the benchmark SoC (ecpsata/soc/integration.py): our PHY, core
    # (28-bit and 65,536-sector commands, the queued command layer) and crossbar, the frontends
    # the console and host tools use (IDENTIFY, the sector buffer, the error and readiness block,
    # the link event log) and the benchmark engines (`sata_bench`, `sata_qbench`); ``ncq=False``
    # or ``with_engines=False`` leave parts out, and the features register says what a build has
    # (add_identity). Not LiteX's ``add_sata``, which keeps its meaning on this SoC.
    add_ecpsata = functools.partialmethod(integration.add_ecpsata, ncq=True, with_identify=True,
                                          with_sector_buffer=True, with_errors=True,
                                          with_events=True, with_engines=True)
    # The same on an ECP5 DCU channel, the reference clock from the CRG (``add_serdes_refclk``),
    # with the bring-up registers: ``add_ecp5_sata(pads, dual=, channel=, gen1_method=)``.
    add_ecp5_sata = functools.partialmethod(integration.add_ecpsata_ecp5, bringup=True, ncq=True,
                                            with_identify=True, with_sector_buffer=True,
                                            with_errors=True, with_events=True, with_engines=True)
    add_serdes_bringup = integration.add_serdes_bringup

    def add_identity(self):
        """The identity registers; the build stamp itself is placed in ROM by build_two_pass."""
        rev, dirty, when = build_stamp()
        self.features |= integration.features(self)
        stamp_addr = self.bus.regions["rom"].origin + STAMP_OFFSET
        self.identity = Identity(self.board, stamp_addr, self.sys_clk_freq, sorted(self.features))
        # Constants land in csr.csv (not in the gateware), so the host can check that it holds the
        # csr.csv of the build whose stamp the target's ROM carries.
        self.add_constant("ECPSATA_GIT_REV", rev)
        self.add_constant("ECPSATA_GIT_DIRTY", int(dirty))
        self.add_constant("ECPSATA_BUILD_TIME", when)
        self.add_constant("ECPSATA_STAMP_MAGIC", STAMP_MAGIC)


def add_board_args(parser, sys_clk_freq, frame_check=True):
    """The options every ECP5 board target takes: sys's frequency, the SATA parts, the analyzer.
    `frame_check` is the board's default for the PHY's frame check (add_frame_check_args)."""
    from ecpsata.soc.analyzer import add_analyzer_args
    parser.add_argument("--sys-clk-freq", type=float, default=sys_clk_freq, help="sys clock in Hz.")
    parser.add_argument("--without-sata", dest="with_sata", action="store_false",
                        help="Leave out the SATA PHY, core and benchmark engine (default: with).")
    add_sata_args(parser, frame_check)
    add_analyzer_args(parser)


def board_options(args):
    """The SoC's keyword arguments from `add_board_args`'s options."""
    return dict(sys_clk_freq=args.sys_clk_freq, with_sata=args.with_sata, ncq=args.ncq,
                engines=args.engines, gen1_method=args.gen1_method,
                frame_check=args.frame_check,
                analyzer_depth=args.analyzer_depth if args.with_analyzer else None)


def add_sata_args(parser, frame_check=True):
    """The command-line options of a board target's SATA parts (``add_sata``'s and
    ``add_ecp5_sata``'s options), each ``--with-NAME`` (the default) or ``--without-NAME``; the
    frame check's default is the board's (`frame_check`)."""
    for name, what in (("ncq", "the core's queued command layer (READ/WRITE FPDMA QUEUED) and the "
                               "queued benchmark engine"),
                       ("engines", "the hardware benchmark engines (without them: the core with "
                                   "IDENTIFY, the sector buffer and the console)"),
                       ("gen1-method", "the Gen1 method at run time (`phy --set gen1_method=pins|"
                                       "dividers`: Gen1 from the half-rate pins or from the TX and "
                                       "CDR dividers; without it from the pins only)")):
        dest = name.replace("-", "_")
        parser.add_argument(f"--with-{name}", dest=dest, action="store_true", default=True,
                            help=f"Build {what} (the default).")
        parser.add_argument(f"--without-{name}", dest=dest, action="store_false",
                            help=f"Leave out {what}.")
    add_frame_check_args(parser, frame_check)


def add_frame_check_args(parser, default=True):
    """``--with-frame-check`` / ``--without-frame-check``: the PHY's frame check (R_OK in the word
    clock after a good Data FIS, status, DMA Setup or Set Device Bits; ECPSATAPHY's
    ``frame_check``). `default` is the target's: with it on the ECPIX-5 and the simulated boards,
    whose placements keep their timing margin with it; without it on the Versa, whose router
    did not finish one of its seeds with it (doc/timing.md)."""
    which = "the default" if default else "not the default on this board"
    parser.add_argument("--with-frame-check", dest="frame_check", action="store_true",
                        default=default,
                        help="Build the PHY's frame check: R_OK in the SerDes word clock after a "
                             f"good Data FIS, status, DMA Setup or Set Device Bits ({which}).")
    parser.add_argument("--without-frame-check", dest="frame_check", action="store_false",
                        help="Leave the frame check out: every R_OK from the link layer in sys"
                             + ("." if default else " (the default on this board)."))


def firmware_folder(out, src):
    """Makes ``out`` ready for a firmware build from the sources in ``src``. Objects and their
    dependency files name the sources' folder: left by a build from another folder (the package
    moved, another clone), they would ask make for files that no longer exist, so the folder is
    emptied then. ``out/.source`` records the folder the build used."""
    stamp = os.path.join(out, ".source")
    if os.path.isdir(out):
        try:
            with open(stamp) as f:
                same = f.read() == src
        except OSError:
            same = False
        if not same:
            shutil.rmtree(out)
    os.makedirs(out, exist_ok=True)
    with open(stamp, "w") as f:
        f.write(src)


def build_firmware(build_dir, jobs=2):
    """Compile ecpsata/firmware/ against the generated headers and libraries in build_dir/software (and
    the core's codes, generated here: ecpsata/soc/codes.py)."""
    from ecpsata.soc.codes import write_codes_header
    out = os.path.join(build_dir, "firmware")
    src = os.path.join(PACKAGE, "firmware")
    firmware_folder(out, src)
    write_codes_header(os.path.join(build_dir, "software", "include", "generated", "sata_codes.h"))
    subprocess.run(["make", "-C", out, "-f", os.path.join(src, "Makefile"),
                    f"BUILD_DIR={os.path.abspath(build_dir)}", f"SRC_DIR={src}", f"-j{jobs}"],
                   check=True)
    return os.path.join(out, "firmware.bin")


def build_two_pass(make_soc, build_dir, build_kwargs):
    """Pass 1 generates headers and the LiteX libraries; the firmware is compiled against them;
    pass 2 builds the gateware with the firmware as ROM contents.

    make_soc(firmware_init) returns a fresh SoC. build_kwargs go to the toolchain in pass 2.
    """
    # A placeholder ROM image tells LiteX not to build its BIOS; we only need its libraries.
    soc = make_soc([0])
    builder = Builder(soc, output_dir=build_dir, compile_gateware=False, compile_software=True)
    builder.software_packages = [(n, d) for n, d in builder.software_packages if n in FIRMWARE_LIBS]
    builder.build(**(build_kwargs | {"run": False}))
    fw = build_firmware(build_dir)
    init = with_stamp(get_mem_data(fw, endianness=soc.cpu.endianness, data_width=32), build_stamp())
    soc = make_soc(init)
    builder = Builder(soc, output_dir=build_dir, compile_software=False,
                      csr_csv=os.path.join(build_dir, "csr.csv"),
                      csr_json=os.path.join(build_dir, "csr.json"))
    builder.build(**build_kwargs)
    write_csr_fields(soc, os.path.join(build_dir, "csr_fields.json"))
    return soc, builder


def write_csr_fields(soc, path):
    """csr.csv has no field layout: write {register: {field: [offset, size]}} beside it so that the
    host tools decode status registers by field name, as the firmware does with csr.h."""
    import json
    out = {}
    for region_name, region in soc.csr.regions.items():
        if not isinstance(region.obj, list):
            continue
        for csr in region.obj:
            fields = getattr(getattr(csr, "fields", None), "fields", None)
            if fields:
                out[f"{region_name}_{csr.name}"] = {f.name: [f.offset, f.size] for f in fields}
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)

