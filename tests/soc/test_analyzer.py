# SPDX-License-Identifier: BSD-2-Clause
"""The on-chip analyzer build option (ecpsata/soc/analyzer.py): the boards' SoCs with it export the
analyzer.csv litescope_cli reads, with the signals and groups the docs promise; the default
build has none; the two trigger pulses follow the link and its errors (Migen, virtual drive)."""

import argparse
import csv

import pytest
from litex.soc.integration.builder import Builder

from ecpsata.soc import analyzer
from ecpsata.soc.targets import ecpix5, versa_ecp5
from ecpsata.soc.identity import FEATURES


def make(target, argv=()):
    parser = argparse.ArgumentParser()
    target.add_args(parser)
    return target.make_soc([0], parser.parse_args(list(argv)))


def read_csv(path):
    """({config name: value}, {group: [(signal, width, bit offset)]}) of an analyzer.csv, with the
    offsets litescope_cli's driver computes (signals packed from bit 0 in file order)."""
    config, groups = {}, {}
    with open(path) as f:
        for kind, group, name, value in csv.reader(f, delimiter=",", quotechar="#"):
            if kind == "config":
                config[name] = int(value)
            elif kind == "signal":
                signals = groups.setdefault(int(group), [])
                offset = sum(width for _, width, _ in signals)
                signals.append((name, int(value), offset))
    return config, groups


# What README.md and doc/bringup.md promise a capture holds.
HEAD = {"trigger_link_change": 1, "trigger_error": 1, "phy_state": 4, "phy_gen": 1, "link_up": 1,
        "drive_ready": 1, "oob_req": 1, "oob_done": 1, "cominit": 1, "comwake": 1, "rx_los": 1,
        "serdes_tx_ready": 1, "serdes_rx_ready": 1, "tx_pll_locked": 1, "rx_cdr_locked": 1,
        "rx_polarity": 1, "tx_polarity": 1, "tx_mode": 2}
LINK = {"rx_valid": 1, "rx_charisk": 4, "rx_data": 32, "rx_code_error": 1, "rx_disp_error": 1,
        "tx_valid": 1, "tx_ready": 1, "tx_charisk": 4, "tx_data": 32, "link_tx_state": 3,
        "link_rx_state": 3, "link_dmat": 1, "link_tx_ok": 1, "fis_crc_error": 1,
        "fis_rejected": 1, "rx_escape": 1, "rx_bad_seq": 1, "fis_unknown": 1,
        "fis_bad_length": 1, "fis_unexpected": 1, "fis_stray": 1, "data_extra": 1,
        "cmd_failed": 1, "device_error": 1, "cmd_retry": 1, "core_reset": 1}
OOB = {"oob_kind": 1, "cominit_active": 1, "comwake_active": 1, "oob_blank": 1,
       "oob_last_gap": 16, "oob_last_burst": 16}


@pytest.mark.parametrize("target", [ecpix5, versa_ecp5])
def test_a_board_with_the_analyzer_exports_its_csv(target, tmp_path):
    soc = make(target, ["--with-analyzer", "--analyzer-depth", "2048"])
    assert "analyzer" in soc.features
    bit = {name: b for name, b, _ in FEATURES}["analyzer"]
    assert soc.identity.features.status.reset.value >> bit & 1
    builder = Builder(soc, output_dir=str(tmp_path), compile_gateware=False, compile_software=False)
    builder.build(run=False)

    config, groups = read_csv(tmp_path / analyzer.CSV_NAME)
    assert sorted(groups) == sorted(analyzer.GROUPS)
    assert {n: w for n, w, _ in groups[0]} == HEAD | LINK
    assert {n: w for n, w, _ in groups[1]} == HEAD | OOB
    # LiteScope's driver keeps one bit position per name: the head sits alike in both groups.
    head = [(n, w, o) for n, w, o in groups[0] if n in HEAD]
    assert head == [(n, w, o) for n, w, o in groups[1] if n in HEAD]
    assert [n for n, _, _ in head[:2]] == ["trigger_link_change", "trigger_error"]
    assert config == {"data_width": sum((HEAD | LINK).values()), "depth": 2048,
                      "samplerate": int(target.SYS_CLK_FREQ)}
    assert config["data_width"] == 120
    # litescope_cli finds the CSRs by the CSV's name.
    regs = (tmp_path / "csr.csv").read_text()
    for reg in ("analyzer_trigger_mem_mask", "analyzer_storage_mem_data", "analyzer_mux_value"):
        assert f"csr_register,{reg}," in regs


@pytest.mark.parametrize("target", [ecpix5, versa_ecp5])
def test_the_default_build_has_no_analyzer(target):
    soc = make(target)
    assert not hasattr(soc, "analyzer")
    assert "analyzer" not in soc.features
    bit = {name: b for name, b, _ in FEATURES}["analyzer"]
    assert not soc.identity.features.status.reset.value >> bit & 1


def test_the_analyzer_needs_sata_and_a_depth_it_can_use():
    with pytest.raises(ValueError, match="build with SATA"):
        make(ecpix5, ["--with-analyzer", "--without-sata"])
    with pytest.raises(SystemExit):
        make(versa_ecp5, ["--with-analyzer", "--analyzer-depth", "1000"])


def test_resource_estimate_quoted_in_the_docs():
    # README.md: 120 bits deep 1024 take 7 DP16KD (1024 x 18), deep 2048 14 (2048 x 9).
    assert analyzer.resource_estimate(120, 1024)["dp16kd"] == 7
    assert analyzer.resource_estimate(120, 2048)["dp16kd"] == 14
    assert analyzer.resource_estimate(120, 4096)["dp16kd"] == 30
    est = analyzer.resource_estimate(120, 1024)
    assert (est["lut4"], est["ff"]) == (950, 630)


@pytest.mark.slow
def test_triggers_pulse_on_each_link_change_and_on_an_error():
    """Link-up against the virtual drive, then a read whose status FIS arrives with a bad CRC
    (the drive sends it again, the read completes): trigger_link_change pulses in exactly the
    cycles where the PHY state or the link changed, trigger_error only in the cycle of the CRC
    error (not on the drive's signature after the link-up, a Register D2H outside a command)."""
    from ecpsata.sim import vdrive
    from ecpsata.frontend.errors import ECPSATAErrors
    from tests.support.core_harness import core_dut, wait_ready, command
    from tests.support.phy_link_harness import drive_process, SYS_CLK_FREQ
    from tests.support.phy_harness import run_word_sim

    drive = vdrive.VirtualDrive("persona=ideal,capacity=4096,cominit_interval_us=0,crc_error_fis=3")
    dut = core_dut()
    dut.errors = ECPSATAErrors(dut.core, dut.phy, SYS_CLK_FREQ)
    dut.probes = probes = analyzer.ECPSATAProbes(dut.phy, dut.core, dut.errors.ready)
    ctrl = dut.phy.ctrl
    trace = []      # (state, ready, trigger_link_change, trigger_error, fis_crc_error) per cycle
    res = {}

    def host():
        yield from wait_ready(dut)
        res["read"] = yield from command(dut, dict(read=1, sector=40, count=1))
        for _ in range(50):
            yield
        res["done"] = True

    def monitor():
        yield "passive"
        while True:
            trace.append(((yield ctrl.state), (yield dut.phy.ready),
                          (yield probes.trigger_link_change), (yield probes.trigger_error),
                          (yield dut.core.fis_crc_error)))
            yield

    def drv():
        yield "passive"
        yield from drive_process(dut, drive)

    run_word_sim(dut, {"sys": [host(), monitor()], "sata_tx": drv()}, dut.serdes.word_ce)
    assert res.get("done") and res["read"]["failed"] == 0
    assert drive.stats()["injected_crc"] == 1

    changes = [i for i in range(1, len(trace)) if trace[i][:2] != trace[i - 1][:2]]
    pulses = [i for i in range(1, len(trace)) if trace[i][2]]
    assert len(changes) >= 8, "COMRESET .. HP8 and link up"
    assert pulses == changes
    errors = [i for i, t in enumerate(trace) if t[3]]
    assert errors == [i for i, t in enumerate(trace) if t[4]] and len(errors) == 1
