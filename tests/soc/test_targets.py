# SPDX-License-Identifier: BSD-2-Clause
"""Board targets elaborate with the parts the host tools rely on (no synthesis here)."""

import argparse

import pytest

from ecpsata.soc.targets import ecpix5, versa_ecp5


def make(target, argv=(), **kw):
    parser = argparse.ArgumentParser()
    target.add_args(parser)
    args = parser.parse_args(list(argv))
    for k, v in kw.items():
        setattr(args, k, v)
    return target.make_soc([0], args)


@pytest.mark.parametrize("target", [ecpix5, versa_ecp5])
def test_uart_bridge_and_crossover_console(target):
    soc = make(target, ["--without-sata"])
    assert hasattr(soc, "uartbone"), "litex_server's UART bridge is missing"
    assert type(soc.uart).__name__ == "UARTCrossover"
    assert "uartbone" in soc.features


@pytest.mark.parametrize("target", [ecpix5, versa_ecp5])
def test_nextpnr_gets_the_timing_driven_ripup_once(target):
    soc = make(target, ["--without-sata"])
    opts = soc.platform.toolchain._pnr_opts.split()
    assert opts.count("--tmg-ripup") == 1, opts


@pytest.mark.parametrize("target", [ecpix5, versa_ecp5])
def test_nextpnr_places_sys_ten_percent_above_its_frequency(target):
    """The LPF asks nextpnr for sys 10 % above the 75 MHz it runs at; the build judges against
    75 MHz (design_clocks), so nextpnr's own verdict must not stop it."""
    soc = make(target, ["--without-sata"])
    lines = [c for c, _ in soc.platform.constraint_manager.platform_commands if "sys_clk" in c]
    assert lines == ['FREQUENCY NET "sys_clk" 82.5 MHz;'], lines
    assert soc.design_clocks == {"sys_clk": target.SYS_CLK_FREQ / 1e6} == {"sys_clk": 75.0}
    from ecpsata.soc.builder import placement_target
    assert placement_target(75.0) == 82.5 and placement_target(62.5) == 68.8


@pytest.mark.parametrize("target", [ecpix5, versa_ecp5])
def test_the_gen1_method_by_default(target):
    assert make(target).sata_serdes.gen1_method is True
    assert make(target, ["--without-gen1-method"]).sata_serdes.gen1_method is False


def test_only_the_versa_places_with_the_lighter_timing_weight():
    """The Versa's placer option (its router stalled on two seeds of three without it) reaches its
    nextpnr call, once; the ECPIX-5's call keeps nextpnr's default weight."""
    versa = make(versa_ecp5, ["--without-sata"]).platform.toolchain._pnr_opts.split()
    ecpix = make(ecpix5, ["--without-sata"]).platform.toolchain._pnr_opts.split()
    i = versa.index("--placer-heap-timingweight")
    assert versa[i + 1] == "7" and versa.count("--placer-heap-timingweight") == 1, versa
    assert "--placer-heap-timingweight" not in ecpix, ecpix


def test_ecpix5_has_etherbone_apart_from_sys():
    soc = make(ecpix5, ["--without-sata"])
    assert hasattr(soc, "etherbone") and "etherbone" in soc.features
    # The MAC/IP/UDP layers run from their own PLL output, slower than sys.
    freqs = [f for _, f, *_ in soc.crg.pll.clkouts.values()]
    assert ecpix5.ETH_CORE_CLK_FREQ in freqs and ecpix5.SYS_CLK_FREQ in freqs
    assert ecpix5.ETH_CORE_CLK_FREQ < ecpix5.SYS_CLK_FREQ


@pytest.mark.parametrize("target", [ecpix5, versa_ecp5])
def test_sata_by_default_on_the_dcu(target):
    soc = make(target)
    assert type(soc.sata_serdes).__name__ == "ECP5SATASerDes"
    assert hasattr(soc, "sata_phy") and hasattr(soc, "sata_core") and hasattr(soc, "sata_buffer")
    assert "sata" in soc.features


@pytest.mark.parametrize("target", [ecpix5, versa_ecp5])
def test_the_full_benchmark_soc_by_default(target):
    soc = make(target)
    assert hasattr(soc, "sata_bench") and hasattr(soc, "sata_qbench")
    assert hasattr(soc.sata_core, "ncq")
    assert {"sata", "bench", "ncq"} <= soc.features


def test_without_ncq_the_core_has_no_queued_layer():
    soc = make(ecpix5, ["--without-ncq"])
    assert not hasattr(soc.sata_core, "ncq") and not hasattr(soc, "sata_qbench")
    assert hasattr(soc, "sata_bench")
    assert "ncq" not in soc.features and "bench" in soc.features


def test_without_engines_only_the_core_and_its_console_frontends():
    soc = make(versa_ecp5, ["--without-engines", "--without-ncq"])
    assert not hasattr(soc, "sata_bench") and not hasattr(soc, "sata_qbench")
    assert hasattr(soc, "sata_buffer") and hasattr(soc, "sata_identify")
    assert soc.features & {"bench", "ncq"} == set()


@pytest.mark.parametrize("name,default", [("ecpix5", True), ("sim", True), ("ecpix5_sim", True),
                                          ("versa_ecp5", False)])
def test_the_frame_check_by_default_where_the_board_keeps_its_timing_with_it(name, default):
    """The PHY's frame check (R_OK in the word clock) is built by default on the ECPIX-5 and the
    simulated boards and left out by default on the Versa; `--with-frame-check` and
    `--without-frame-check` choose it on every target."""
    from ecpsata.soc import boards
    target = boards.target(name)
    assert hasattr(make(target).sata_phy.rx, "frame_check") == default
    assert hasattr(make(target, ["--with-frame-check"]).sata_phy.rx, "frame_check")
    assert not hasattr(make(target, ["--without-frame-check"]).sata_phy.rx, "frame_check")
