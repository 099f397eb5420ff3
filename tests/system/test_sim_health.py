# SPDX-License-Identifier: BSD-2-Clause
"""The drive's health from the host CLI and the firmware console on the simulated SoC: SMART's
status and attributes, the General Purpose Log Directory, device statistics and the SATA Phy event
counters read with ATA commands through the core, against the virtual drive's own statistics; a
drive without SMART or without the counters named as such; a SMART page whose checksum fails
reported as damaged, not decoded."""

import json
import re

import pytest

from ecpsata.host.simboard import SimBoard
from tests.system.test_sim_sata import make_bench, vdrive
from tests.system.test_sim_system import free_port, sim_built  # noqa: F401

pytestmark = pytest.mark.system

# Log 11h's counters against the drive's statistics file (ecpsata/sim/vdrive/README.md, "Health")
PHY_EVENT_STATS = {
    "001h": ("cmd_icrc",),
    "002h": ("r_err_rx_data", "r_err_tx_data_crc", "r_err_tx_data_other"),
    "003h": ("r_err_rx_data",),
    "004h": ("r_err_tx_data_crc", "r_err_tx_data_other"),
    "005h": ("r_err_rx_nondata", "r_err_tx_nondata_crc", "r_err_tx_nondata_other"),
    "006h": ("r_err_rx_nondata",),
    "007h": ("r_err_tx_nondata_crc", "r_err_tx_nondata_other"),
    "008h": ("nondata_retries",),
    "009h": ("phyrdy_lost",),
    "00Ah": ("sig_after_comreset",),
    "00Bh": ("rx_fis_crc_errors",),
    "00Dh": ("rx_fis_other_errors",),
    "00Fh": ("r_err_tx_data_crc",),
    "010h": ("r_err_tx_data_other",),
    "012h": ("r_err_tx_nondata_crc",),
    "013h": ("r_err_tx_nondata_other",),
}


def test_health_decodes_every_section_and_the_counters_are_the_drives(sim_built, tmp_path):
    """slc with bit errors on the host-to-drive line: SMART PASSED with its attributes, the log
    directory, the device statistics pages, and Phy event counters that equal the drive's own
    statistics file and count the refusals the host saw."""
    stats = tmp_path / "stats.json"
    out = tmp_path / "health.json"
    p = make_bench(f"health --json {out}",
                   vdrive(tmp_path, f"persona=slc,ber_h2d=2e-3,seed=5,stats_file={stats}"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "SMART        overall status PASSED" in p.stdout
    assert re.search(r"194 Temperature_Celsius\s+-O---K\s+070\s+070\s+000\s+-\s+30 "
                     r"\(Min/Max 30/30\)", p.stdout), p.stdout
    doc = json.load(open(out))["health"]
    table = {a["id"]: a for a in doc["smart"]["table"]}
    assert set(table) == {5, 9, 12, 194, 197, 199, 241, 242}
    assert table[5]["thresh"] == 10 and doc["smart"]["failing_now"] == []
    assert {"04h", "11h"} <= set(doc["directory"]["logs"])
    pages = doc["device_statistics"]["pages"]
    general = {s["name"]: s["value"] for s in pages["01h"]["statistics"]}
    assert general["Lifetime Power-On Resets"] == 1
    temps = {s["name"]: s["value"] for s in pages["05h"]["statistics"]}
    assert temps["Current Temperature"] == 30
    drive = json.load(open(stats))
    counters = {c["id"]: c["value"] for c in doc["phy_events"]["counters"]}
    assert set(counters) == set(PHY_EVENT_STATS)
    for ident, keys in PHY_EVENT_STATS.items():
        assert counters[ident] == sum(drive[k] for k in keys), (ident, keys)
    assert counters["007h"] > 0             # the bit errors made the drive refuse our frames
    # The host counts every frame of ours the drive did not take (R_ERR, or a frame it never
    # recognised: a damaged SOF or EOF); the drive only the frames it received and refused.
    assert doc["host"]["fis_rejected"] >= counters["004h"] + counters["007h"]
    # Our R_ERRs for the drive's frames: none for a bad CRC (its line has no errors), but the bit
    # errors on ours can make the host refuse some for their place (4 in one run: the drive sent
    # each again); the drive counts every refusal it received.
    assert doc["host"]["fis_crc_errors"] == 0
    assert doc["host"]["fis_crc_errors"] + doc["host"]["fis_refused"] >= \
        counters["003h"] + counters["006h"], (doc["host"], counters)


def test_health_names_what_a_drive_lacks(sim_built, tmp_path):
    p = make_bench("health", vdrive(tmp_path, "smart=0,phy_events=0"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "SMART        the drive does not offer SMART (IDENTIFY word 82 bit 0 clear)" in p.stdout
    assert ("SATA Phy Event Counters: the drive does not report SATA Phy Event Counters "
            "(IDENTIFY word 76 bit 10 clear)") in p.stdout
    assert "Device Statistics page 01h (General Statistics):" in p.stdout


def test_console_health_reports_a_damaged_smart_page(sim_built, tmp_path):
    """The console's `health`: SMART's status from the task file, the data page refused for its
    checksum, then the log directory and the counters."""
    with SimBoard(server_port=free_port(),
                  vdrive=vdrive(tmp_path, "persona=slc,smart_bad_checksum=1")) as board:
        board.wait_prompt()
        text = board.console("health", "ecpsata>", timeout=120)
    assert "SMART overall status: PASSED (LBA mid/high 4Fh/C2h)" in text, text
    assert "SMART data page damaged: its checksum fails (not decoded)" in text, text
    assert re.search(r"GP log directory, version 1: 04h\(8\) 10h\(1\) 11h\(1\)", text), text
    assert re.search(r"SATA Phy Event Counters \(ID: count\):.* 00Ah: 1", text), text


def test_trim_then_read_gives_zeros_where_the_drive_says_so(sim_built, tmp_path):
    """slc (TRIM, deterministic zeros after it): a pattern written over 64 sectors, 32 of them
    trimmed (more than one range entry's worth is not needed: the entries are unit-tested), then
    read back: zeros in the trimmed range, the pattern around it. Without --allow-write: refused
    before connecting."""
    cfg = vdrive(tmp_path, "persona=slc")
    p = make_bench("single --write --allow-write --range 0:64", cfg)
    assert p.returncode == 0, p.stdout + p.stderr
    before = tmp_path / "before.bin"
    p = make_bench(f"read 0 64 --out {before}", cfg)
    assert p.returncode == 0, p.stdout + p.stderr
    p = make_bench("trim --range 16:32", cfg)
    assert p.returncode == 2 and "discards data on the drive: add --allow-write to confirm" in p.stderr, p.stderr
    p = make_bench("trim --allow-write --range 16:32", cfg)
    assert p.returncode == 0, p.stdout + p.stderr
    assert ("trimmed LBA 16..47 (32 sectors): 1 range entries in 1 DATA SET MANAGEMENT "
            "command(s)") in p.stdout, p.stdout
    assert "reads of the range now return: zeros (IDENTIFY word 69 bits 14 and 5)" in p.stdout
    after = tmp_path / "after.bin"
    p = make_bench(f"read 0 64 --out {after}", cfg)
    assert p.returncode == 0, p.stdout + p.stderr
    old, new = before.read_bytes(), after.read_bytes()
    assert any(old[16 * 512:48 * 512])                      # the pattern was there
    assert new[16 * 512:48 * 512] == bytes(32 * 512)
    assert new[:16 * 512] == old[:16 * 512] and new[48 * 512:] == old[48 * 512:]


def test_trim_is_refused_on_a_drive_without_it(sim_built, tmp_path):
    p = make_bench("trim --allow-write --range 0:8", vdrive(tmp_path, "persona=ideal"))
    assert p.returncode == 2
    assert "the drive does not support TRIM (IDENTIFY word 169 bit 0 clear): nothing sent" in \
        p.stderr, p.stderr


def test_purge_erases_the_whole_drive_with_sanitize_after_its_confirmation(sim_built, tmp_path):
    """slc offers SANITIZE BLOCK ERASE EXT: written data, then purge with the wrong serial
    (refused, nothing erased), then with the drive's serial: progress on stderr, the drive says
    completed, the data reads as zeros."""
    cfg = vdrive(tmp_path, "persona=slc,sanitize_ms=2")
    serial = re.search(r"serial=([^,]+)", cfg).group(1)
    assert make_bench("single --write --allow-write --range 0:16", cfg).returncode == 0
    p = make_bench("purge --allow-write --whole-drive --erase WRONG", cfg)
    assert p.returncode == 2 and f"is not this drive's serial number ('{serial}'" in p.stderr
    before = tmp_path / "before.bin"
    assert make_bench(f"read 0 16 --out {before}", cfg).returncode == 0
    assert any(before.read_bytes())
    p = make_bench(f"purge --allow-write --whole-drive --erase {serial}", cfg)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"purged ecpsata test drive {serial}: BLOCK ERASE EXT" in p.stdout, p.stdout
    assert re.search(r"\] sanitize +\d+\.\d%", p.stderr), p.stderr
    after = tmp_path / "after.bin"
    assert make_bench(f"read 0 16 --out {after}", cfg).returncode == 0
    assert after.read_bytes() == bytes(16 * 512)


def test_purge_follows_the_sanitize_through_a_link_drop(sim_built, tmp_path):
    """slc, a 40 ms erase; halfway through it the drive drops the link and leaves COMRESET
    unanswered for 3 ms (sanitize_drop_ms): purge brings the link up again, follows the sanitize
    to its end and says so; the drive counted one drop and the COMRESETs it left unanswered
    (that the erase leaves zeros: the test above)."""
    stats, out = tmp_path / "stats.json", tmp_path / "purge.json"
    cfg = vdrive(tmp_path, f"persona=slc,sanitize_ms=40,sanitize_drop_ms=3,stats_file={stats}")
    serial = re.search(r"serial=([^,]+)", cfg).group(1)
    p = make_bench(f"purge --allow-write --whole-drive --erase {serial} --json {out}", cfg)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (f"purged ecpsata test drive {serial}: BLOCK ERASE EXT; the link dropped 1 time(s) on "
            f"the way, came back, and the drive reported the sanitize completed without error: "
            f"link lost while the sanitize ran at ") in p.stdout, p.stdout
    assert re.search(r"link lost \((SATA link dropped during the SANITIZE STATUS EXT|the link is "
                     r"down)\); bringing it up again", p.stderr), p.stderr
    assert "link up again: asking the drive (SANITIZE STATUS EXT)" in p.stderr
    # still erasing when the link came back (3 ms of 40 after the half): followed, not restarted
    again = p.stderr.split("link up again")[1]
    assert re.search(r"\] sanitize +[5-9]\d\.\d%", again), again
    res = json.load(open(out))["purge"]
    assert res["link_drops"] == 1 and res["completed"] and not res["resumed"]
    drive = json.load(open(stats))
    assert drive["injected_drops"] == 1 and drive["comreset_ignored"] >= 1
    assert drive["phyrdy_lost"] >= 1 and drive["cmd_sanitize"] >= 3
