# SPDX-License-Identifier: BSD-2-Clause
"""The simulated board: pads of the Verilator top level, each served by a LiteX sim module."""

import json
import os
import random
from dataclasses import dataclass, field

from litex.build.generic_platform import Pins, Subsignal
from litex.build.sim import SimPlatform
from litex.build.sim.config import SimConfig


def _stream_pads(name):
    return (name, 0,
        Subsignal("source_valid", Pins(1)),
        Subsignal("source_ready", Pins(1)),
        Subsignal("source_data",  Pins(8)),
        Subsignal("sink_valid",   Pins(1)),
        Subsignal("sink_ready",   Pins(1)),
        Subsignal("sink_data",    Pins(8)),
    )


def sata_phy_pads():
    """The virtual drive's pads (ecpsata/sim/vdrive/litex/vdrive): it takes tx on clk (our TX word clock)
    and sends rx on rx_clk (its own word clock, which our receiver runs on)."""
    return ("sata_phy", 0,
        Subsignal("clk",    Pins(1)),
        Subsignal("tx",     Pins(20)),
        Subsignal("gen",    Pins(1)),
        Subsignal("rx",     Pins(20)),
        Subsignal("rx_los", Pins(1)),
        Subsignal("rx_clk", Pins(1)),
    )


_io = [
    ("sys_clk", 0, Pins(1)),
    ("sys_rst", 0, Pins(1)),
    _stream_pads("serial"),   # console: serial2console (terminal) or serial2tcp
    _stream_pads("bridge"),   # litex_server's UART bridge: serial2tcp
    ("sata_clk", 0, Pins(1)), # free-running Gen2 SerDes word clock
    sata_phy_pads(),          # the virtual drive (ecpsata/sim/vdrive)
]

# sys runs at the boards' 75 MHz (ecpsata/soc/targets/ecpix5.py, ecpsata/soc/targets/versa_ecp5.py), so that every figure the
# simulated board prints is the board's figure: at 75 MHz sys moves one dword per cycle, exactly
# the Gen2 dword rate, with no slack for a stall on the data path.
# Simulated time is stretched so that every clock has a whole number of picoseconds (LiteX's
# clocker needs that) while the ratios stay exact: the gateware believes sys is SYS_CLK_FREQ and
# the Gen2 word clock 150 MHz. Cycle counts, and so every benchmark figure, are unaffected.
SYS_CLK_FREQ   = 75e6
SIM_SYS_PS     = 8000
SIM_SATA_PS    = 4000   # 150 MHz / 75 MHz = 8000 / 4000
# The drive's word clock is rendered on the simulator's time grid. A drive on our clock needs the
# grid of the word clock's half period; one some ppm off needs a finer grid, so that an edge can come
# a step early or late (ecpsata/sim/vdrive/litex/vdrive/vdrive_litex.c). It costs about 16 % more time.
SIM_OFFSET_GRID_PS = SIM_SATA_PS // 4


# On silicon the clocks have no fixed phase: sys comes from the fabric PLL, the word clocks from the
# DCU, the receiver's from the drive's crystal. The simulated board starts every clock in phase
# (each sys edge on a word clock edge) and the drive on our frequency, unless a clock seed asks for
# another placement: each clock but sys shifted by whole steps of the fine grid, and the drive's
# clock off ours within SATA's tolerance. Benchmarks keep the nominal placement (their figures
# reproduce to the cycle); the fault matrix and the fuzzer draw one per board they start.
DRIVE_PPM_LIMIT = 350     # the SATA specification's transmit clock tolerance (SSC aside)


@dataclass(frozen=True)
class ClockPlacement:
    """Phases of the simulated board's clocks against sys (degrees of each clock's own period) and
    the drive clock's offset (ppm), as a clock seed draws them (`clock_placement`)."""
    seed: int = None                                 # None: the nominal placement
    phase_deg: dict = field(default_factory=dict)   # clock pad name -> degrees
    drive_ppm: int = 0

    def describe(self):
        if self.seed is None:
            return "nominal (every clock in phase with sys, the drive on our clock)"
        phases = ", ".join(f"{n} {d} deg" for n, d in sorted(self.phase_deg.items()))
        return f"seed {self.seed}: {phases}; drive clock {self.drive_ppm:+d} ppm"

    def vdrive(self, config):
        """The drive's configuration string with this placement's clock offset, unless it sets its
        own clock (ppm, ssc or the field preset)."""
        if self.seed is None or _sets_clock(config):
            return config
        return f"{config},ppm={self.drive_ppm}" if config else f"ppm={self.drive_ppm}"


def clock_placement(seed, periods_ps):
    """The placement clock seed `seed` draws for clocks {pad name: period in ps} ("sys_clk" stays
    at 0); None: the nominal one."""
    if seed is None:
        return ClockPlacement()
    rng = random.Random(seed)
    phases = {}
    for name, period in sorted(periods_ps.items()):
        if name == "sys_clk":
            continue
        steps = period // SIM_OFFSET_GRID_PS
        assert period % SIM_OFFSET_GRID_PS == 0 and 360 % steps == 0, (name, period)
        phases[name] = rng.randrange(steps) * (360 // steps)
    return ClockPlacement(seed, phases, rng.randint(-DRIVE_PPM_LIMIT, DRIVE_PPM_LIMIT))


def parse_clock_seed(text):
    """A clock seed from the command line: a number, "random" (a new one each time) or
    "nominal"."""
    if text in (None, "", "nominal"):
        return None
    if text == "random":
        return random.SystemRandom().randrange(1, 2**31)
    try:
        seed = int(text, 0)
    except ValueError:
        raise ValueError(f"clock seed {text!r}: a number, random or nominal") from None
    if seed < 0:
        raise ValueError(f"clock seed {seed}: 0 or more")
    return seed


def _sets_clock(config):
    keys = {item.partition("=")[0].strip() for item in (config or "").split(",")}
    return bool(keys & {"ppm", "ssc", "field"})


def drive_clock_offset(vdrive):
    """Whether the virtual drive's configuration puts its clock off ours: `ppm` or `ssc`, or the
    `field` preset, which sets ppm=350,ssc=1 (ecpsata/sim/vdrive/src/config.c); keys apply in order, as in
    the drive's own parser."""
    clock = {"ppm": "0", "ssc": "0"}
    for item in (vdrive or "").split(","):
        key, _, value = (s.strip() for s in item.partition("="))
        if key in clock:
            clock[key] = value
        elif key == "field" and value == "1":
            clock.update(ppm="350", ssc="1")
    ppm = clock["ppm"].lstrip("+-").lstrip("0")
    return ppm not in ("",) or clock["ssc"] not in ("0", "off", "false", "no")


def default_vdrive(run_dir, persona="ideal"):
    """The virtual drive of `make bench` / `make sim`: a persona (ecpsata/sim/vdrive/README.md; `ideal`
    by default) over a sparse 1 GiB image (the other personas' rates and latencies stay theirs).
    It compresses repeated primitives with CONT, as real drives do (`cont=0` turns it off)."""
    model = "ecpsata virtual drive" + ("" if persona == "ideal" else f" {persona}")
    return (f"persona={persona},capacity=1GiB,model={model},serial=VD0001,cont=1,"
            f"firmware=0.1,image={os.path.join(run_dir, 'disk.img')},"
            f"stats_file={os.path.join(run_dir, 'vdrive_stats.json')}")


class Platform(SimPlatform):
    def __init__(self):
        SimPlatform.__init__(self, "SIM", _io)

    # Verilator has no timing: constraints a SoC asks for (LiteX's add_sata does) are dropped, as
    # the boards' toolchains would keep them.
    def add_period_constraint(self, clk, period, keep=True, name=None):
        pass

    def add_false_path_constraint(self, from_, to):
        pass

    def add_false_path_constraints(self, *clks):
        pass


CLOCK_PERIODS_PS = {"sys_clk": SIM_SYS_PS, "sata_clk": SIM_SATA_PS}


def sim_config(console="stdio", console_port=None, bridge_port=None, vdrive=None, clocks=None):
    """The run-time configuration of the simulated board (written as sim_config.js).

    console: "stdio" (terminal) or "tcp" (console_port, listening on 127.0.0.1).
    vdrive: configuration string of the virtual drive, or None when the SoC has no SATA.
    clocks: a ClockPlacement (None: the nominal one).
    """
    phase = (clocks or ClockPlacement()).phase_deg
    cfg = SimConfig()
    cfg.add_clocker("sys_clk", freq_hz=int(1e12 / SIM_SYS_PS))
    if vdrive is not None:
        cfg.add_clocker("sata_clk", freq_hz=int(1e12 / SIM_SATA_PS),
                        phase_deg=phase.get("sata_clk", 0))
    if console == "stdio":
        cfg.add_module("serial2console", "serial")
    elif console == "tcp":
        cfg.add_module("tcpuart", "serial", args={"port": int(console_port)})
    else:
        raise ValueError(f"console must be stdio or tcp, not {console!r}")
    if bridge_port is not None:
        cfg.add_module("tcpuart", "bridge", args={"port": int(bridge_port)})
    if vdrive is not None:
        cfg.add_module("vdrive", "sata_phy", clocks=[],
                       args={"config": vdrive, "word_ps": SIM_SATA_PS})
    return cfg


def write_sim_config(path, vdrive=None, **kwargs):
    """Write sim_config.js; the time grid is finer when the drive's clock is off ours."""
    return write_config(path, sim_config(vdrive=vdrive, **kwargs), vdrive)


def write_config(path, cfg, vdrive):
    """Write a SimConfig as sim_config.js, with the time grid the drive's clock needs (a shifted
    clock's grid comes from LiteX's own computation: never finer than SIM_OFFSET_GRID_PS)."""
    config = json.loads(cfg.get_json())
    for entry in config:
        if "timebase" in entry:
            assert entry["timebase"] % SIM_OFFSET_GRID_PS == 0, entry
            if drive_clock_offset(vdrive):
                entry["timebase"] = SIM_OFFSET_GRID_PS
    with open(path, "w") as f:
        json.dump(config, f, indent=4)
    return config


# Our simulator modules: their folder in the package, for each module name.
SIM_MODULES = {
    "tcpuart": "sim/litex_modules/tcpuart",
    "vdrive":  "sim/vdrive/litex/vdrive",
}
# The folders each module's compile reads (its own, and the virtual drive's library).
SIM_MODULE_SOURCES = {
    "tcpuart": ["sim/litex_modules/tcpuart"],
    "vdrive":  ["sim/vdrive/litex/vdrive", "sim/vdrive/src"],
}
