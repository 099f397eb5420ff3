# SPDX-License-Identifier: BSD-2-Clause
"""The simulated SoC with the virtual drive: link, IDENTIFY, reads/writes from the host CLI and
from the firmware console, checked against the drive's disk image from outside the simulation."""

import json
import os
import re
import socket
import subprocess

import pytest

from ecpsata.host.pattern import pattern_bytes
from ecpsata.host.simboard import SimBoard
from tests.system.test_sim_system import REPO, free_port, our_processes, sim_built  # noqa: F401

# The simulated SoC in Verilator (build/sim, build/ecpix5_sim): `pytest -m "not system"` leaves these out.
pytestmark = pytest.mark.system

RUN = os.path.join(REPO, "build", "sim", "run")


def vdrive(tmp_path, extra=""):
    cfg = (f"persona=ideal,capacity=1GiB,model=ecpsata test drive,serial=T{os.getpid()},"
           f"image={tmp_path / 'disk.img'}")
    return cfg + ("," + extra if extra else "")


def make_bench(args, vdrive_cfg=None, timeout=900):
    cmd = ["make", "-s", "--no-print-directory", "bench", f"ARGS={args}", f"SERVER_PORT={free_port()}"]
    if vdrive_cfg:
        cmd.append(f"VDRIVE={vdrive_cfg}")
    p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout)
    assert our_processes() == []
    return p


def test_identify_links_at_gen2_and_reads_the_drive(sim_built, tmp_path):
    p = make_bench("identify", vdrive(tmp_path))
    assert p.returncode == 0, p.stdout + p.stderr
    m = re.search(r"link\s+Gen2, up in ([\d.]+) us \((\d+) sys cycles", p.stdout)
    assert m, p.stdout
    assert 0 < float(m.group(1)) < 1000
    assert re.search(r"model\s+ecpsata test drive\n", p.stdout)
    assert re.search(rf"serial\s+T{os.getpid()}\n", p.stdout)
    assert "capacity     2097152 sectors" in p.stdout


def test_gen1_only_drive_links_at_gen1(sim_built, tmp_path):
    p = make_bench("identify", vdrive(tmp_path, "max_gen=1"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert re.search(r"link\s+Gen1, up in", p.stdout), p.stdout
    assert re.search(r"gens\s+Gen1\n", p.stdout)


def test_identify_whose_data_fis_had_a_bad_crc_is_read_again(sim_built, tmp_path):
    """A bit error in IDENTIFY's Data FIS (bad_fis=3: the signature, PIO Setup, Data FIS)
    costs a retry in the firmware and in the host CLI, not an unusable drive."""
    with SimBoard(server_port=free_port(), vdrive=vdrive(tmp_path, "bad_fis=3")) as board:
        board.wait_prompt()
        text = board.console("identify", "ecpsata>", timeout=60)
        assert "model        ecpsata test drive" in text, text
    p = make_bench("identify", vdrive(tmp_path, "bad_fis=3"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert re.search(r"model\s+ecpsata test drive\n", p.stdout)


def test_verify_writes_the_image_at_the_right_offset(sim_built, tmp_path):
    out = tmp_path / "verify.json"
    p = make_bench(f"verify --allow-write --range 1000:2048 --seed 0x1234 --json {out}",
                   vdrive(tmp_path))
    assert p.returncode == 0, p.stdout + p.stderr
    row, = json.load(open(out))["rows"]
    assert (row["lba"], row["sectors"], row["bad_sectors"], row["bad_dwords"], row["result"]) == \
        (1000, 2048, 0, 0, "PASS")
    assert row["commands"] == 2   # one 2,048-sector write and its read-back
    assert re.search(r"\bPASS\b", p.stdout)
    with open(tmp_path / "disk.img", "rb") as f:
        f.seek(1000 * 512)
        assert f.read(2048 * 512) == pattern_bytes(0x1234, 1000, 2048)
        f.seek(999 * 512)
        assert f.read(512) == bytes(512)  # the sector before the range is untouched


def test_verify_needs_allow_write_and_a_range_inside_the_drive(sim_built, tmp_path):
    p = make_bench("verify --range 0:8", vdrive(tmp_path))
    assert p.returncode != 0 and "add --allow-write" in p.stderr
    p = make_bench("verify --allow-write --range 2097150:8", vdrive(tmp_path))
    assert p.returncode == 2
    assert "(LBAs 2097150..2097157) is outside the drive (0..2097151): nothing sent" in p.stderr
    assert os.path.getsize(tmp_path / "disk.img") == 2097152 * 512
    with open(tmp_path / "disk.img", "rb") as f:  # sparse and never written
        f.seek(2097150 * 512)
        assert f.read(2 * 512) == bytes(1024)


def test_firmware_console_identify_read_write(sim_built, tmp_path):
    with SimBoard(server_port=free_port(), vdrive=vdrive(tmp_path)) as board:
        board.wait_prompt()
        text = board.console("sata_status", "ecpsata>", timeout=60)
        assert "link         up" in text and "gen          Gen2" in text
        text = board.console("identify", "ecpsata>", timeout=60)
        assert "model        ecpsata test drive" in text
        assert "capacity     2097152 sectors" in text
        text = board.console("write 4096 2 0x11223344", "to go on", timeout=60)
        assert "overwrites 2 sector(s) from LBA 4096" in text
        text = board.console("no", "ecpsata>", timeout=60)
        assert "not confirmed: nothing written" in text
        text = board.console("write 4096 2 0x11223344", "to go on", timeout=60)
        text = board.console("yes", "ecpsata>", timeout=60)
        assert "wrote 2 sector(s)" in text
        text = board.console("read 4097 1", "ecpsata>", timeout=60)
        assert "LBA 4097:" in text and "01f0  44 33 22 11 44 33 22 11" in text
        text = board.console("read 2097152 1", "ecpsata>", timeout=60)
        assert "read: LBA range outside the drive" in text
    with open(tmp_path / "disk.img", "rb") as f:
        f.seek(4096 * 512)
        assert f.read(1024) == bytes.fromhex("44332211") * 256
        assert f.read(512) == bytes(512)


def test_firmware_console_benchmarks(sim_built, tmp_path):
    """Benchmark commands from the console, including a run long enough that the console stays
    silent for seconds of wall-clock time."""
    with SimBoard(server_port=free_port(), vdrive=vdrive(tmp_path)) as board:
        board.wait_prompt()
        text = board.console("single sectors=2048", "ecpsata>", timeout=300)
        assert "single: one read of 2048 sectors (1048576 bytes) at LBA 0" in text
        mbps = float(re.search(r"read  MB/s\s+([\d.]+)", text).group(1))
        assert 285 < mbps < 296
        text = board.console("overhead lba=0 loops=4 sectors=64", "ecpsata>", timeout=300)
        fw = re.search(r"firmware loop\s+read\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+3", text)
        hw = re.search(r"state machine\s+read\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+3", text)
        assert fw and hw, text
        assert 0 < float(hw.group(2)) < float(fw.group(2))
        text = board.console("single write sectors=8", "to go on", timeout=60)
        text = board.console("no", "ecpsata>", timeout=60)
        assert "nothing written" in text


def test_link_drop_mid_transfer_is_reported_and_the_link_recovers(sim_built, tmp_path, capsys):
    # The drive drops the link (COMINIT) after 3000 data dwords, i.e. inside the second write.
    from ecpsata.host import cli
    cfg = vdrive(tmp_path, "drop_after_dwords=3000")
    with SimBoard(server_port=free_port(), vdrive=cfg) as board:
        board.wait_prompt()
        common = ["--port", str(board.server_port), "--csr-csv", os.path.join(board.build_dir, "csr.csv"),
                  "--timeout", "300"]
        rc = cli.main(common + ["verify", "--allow-write", "--range", "0:64"])
        out, err = capsys.readouterr()
        assert rc == 2, out + err
        assert "SATA link dropped during" in err and "results discarded" in err
        rc = cli.main(common + ["status", "--json"])
        out, err = capsys.readouterr()
        assert rc == 0, err
        st = json.loads(out)
        if not st["ready"]:  # it may still be re-linking: ask again once it had time
            rc = cli.main(common + ["identify"])
            capsys.readouterr()
            assert rc == 0
            rc = cli.main(common + ["status", "--json"])
            st = json.loads(capsys.readouterr()[0])
        assert st["ready"] and st["link_downs"] >= 1 and st["link_ups"] >= 2


def test_verify_reports_the_corrupted_sector(sim_built, tmp_path):
    """The drive corrupts one sector on its way to the media: the engine's checker finds exactly
    that sector."""
    out = tmp_path / "verify.json"
    p = make_bench(f"verify --allow-write --range 2000:256 --json {out}",
                   vdrive(tmp_path, "corrupt_lba=2100"))
    assert p.returncode != 0, p.stdout + p.stderr        # the CLI exits 1, make then 2
    row, = json.load(open(out))["rows"]
    assert (row["bad_sectors"], row["bad_dwords"], row["first_bad_lba"], row["result"]) == \
        (1, 1, 2100, "FAIL")   # the drive flips one bit of that sector's read data


def test_single_read_rate_comes_from_the_engine(sim_built, tmp_path):
    """A scaled-down `single` at Gen2 on the ideal drive: the rate the engine's cycle counter
    gives sits near the line's ceiling (not a check of the full 65,536-sector figure)."""
    out = tmp_path / "single.json"
    p = make_bench(f"single --sectors 512 --json {out}", vdrive(tmp_path))
    assert p.returncode == 0, p.stdout + p.stderr
    doc = json.load(open(out))
    row, = doc["rows"]
    assert doc["link"]["gen"] == 2 and doc["target"]["sys_clk_hz"] == 75_000_000
    assert row["bytes"] == 512 * 512
    assert row["mbps"] == row["bytes"] / (row["cycles"] / 75e6) / 1e6
    assert 270 < row["mbps"] < 296


def test_lba28_drive_gets_28_bit_commands(sim_built, tmp_path):
    """A drive without 48-bit LBA: the CLI picks READ DMA by itself and reads the whole (small)
    capacity in 256-sector commands."""
    cfg = (f"persona=ideal,capacity=1000,lba48=0,model=ecpsata lba28 drive,"
           f"image={tmp_path / 'disk.img'},stats_file={tmp_path / 'stats.json'}")
    out = tmp_path / "single.json"
    p = make_bench(f"single --sectors 256 --json {out}", cfg)
    assert p.returncode == 0, p.stdout + p.stderr
    doc = json.load(open(out))
    assert doc["drive"]["lba48"] is False and doc["parameters"]["lba28"] is True
    assert "chosen automatically" in doc["parameters"]["command_set"]
    out = tmp_path / "lba28.json"
    p = make_bench(f"lba28 --json {out}", cfg)          # default: the whole capacity
    assert p.returncode == 0, p.stdout + p.stderr
    row, = json.load(open(out))["rows"]
    assert (row["op"], row["sectors"], row["commands"]) == ("read", 1000, 4)  # 3 x 256 + 232
    stats = json.load(open(tmp_path / "stats.json"))
    assert stats["cmd_read_dma"] == 4 and stats["cmd_read_dma_ext"] == 0   # this run's drive


def test_throttling_persona_rates_within_two_percent(sim_built, tmp_path):
    """The `slc` persona limits reads to 250 MB/s and (beyond its write cache, 16 KiB here) writes
    to 170 MB/s: the engine measures both within 2 %, and the drive's HOLDs show the flow control
    on the write (it paces reads between Data FISes)."""
    stats_file = tmp_path / "stats.json"
    cfg = (f"persona=slc,capacity=1GiB,write_cache_kb=16,image={tmp_path / 'disk.img'},"
           f"stats_file={stats_file}")
    out = tmp_path / "single.json"
    p = make_bench(f"single --sectors 4096 --write --allow-write --range 0:4096 --json {out}", cfg)
    assert p.returncode == 0, p.stdout + p.stderr
    rows = {r["op"]: r for r in json.load(open(out))["rows"]}
    assert abs(rows["read"]["mbps"] / 250 - 1) < 0.02, rows["read"]
    assert abs(rows["write"]["mbps"] / 170 - 1) < 0.02, rows["write"]
    stats = json.load(open(stats_file))
    assert stats["holds_sent"] > 0 and stats["bytes_written"] == 4096 * 512


def test_command_after_a_link_drop_mid_command_works(sim_built, tmp_path, capsys):
    """The drive drops the link inside a 2,048-sector read; the CLI says so, and
    the next command on the same board runs (it was ignored, showed the old run's progress and
    timed out before the engine ended a command on link loss)."""
    from ecpsata.host import cli
    cfg = vdrive(tmp_path, "drop_after_dwords=100000")
    with SimBoard(server_port=free_port(), vdrive=cfg) as board:
        board.wait_prompt()
        common = ["--port", str(board.server_port), "--csr-csv", os.path.join(board.build_dir, "csr.csv"),
                  "--timeout", "300"]
        rc = cli.main(common + ["single", "--sectors", "2048"])
        out, err = capsys.readouterr()
        assert rc == 2 and "SATA link dropped during the run" in err, out + err
        rc = cli.main(common + ["single", "--sectors", "16", "--json", str(tmp_path / "s.json")])
        out, err = capsys.readouterr()
        assert rc == 0, out + err
        row, = json.load(open(tmp_path / "s.json"))["rows"]
        assert row["sectors"] == 16 and row["mbps"] > 0


def test_firmware_console_resets_the_link_after_a_command_timeout(sim_built, tmp_path):
    """The drive stops answering commands after its second one (until a COMRESET): the console's
    read times out after the `timeout` set, the firmware resets the link as the host CLI does, and
    the next read works. Before, the console only printed the timeout, and every later command
    timed out too."""
    with SimBoard(server_port=free_port(), vdrive=vdrive(tmp_path, "stop_after_cmds=2")) as board:
        board.wait_prompt()
        text = board.console("timeout 2", "ecpsata>", timeout=60)
        assert "command timeout 2 ms" in text
        text = board.console("timeout 50001", "ecpsata>", timeout=60)
        assert "timeout: MS must be 0 (the defaults) .. 50000" in text
        text = board.console("identify", "ecpsata>", timeout=60)      # the drive's command 1
        assert "model        ecpsata test drive" in text
        text = board.console("read 8 1", "ecpsata>", timeout=60)      # command 2
        assert "LBA 8:" in text
        text = board.console("read 8 1", "ecpsata>", timeout=120)     # ignored by the drive
        assert "read: timeout: the drive did not answer" in text
        assert "the link was reset (COMRESET) and is up again" in text
        text = board.console("read 9 1", "ecpsata>", timeout=60)
        assert "LBA 9:" in text and "timeout" not in text
        text = board.console("timeout 0", "ecpsata>", timeout=60)
        assert "command timeout: the defaults" in text


def test_firmware_console_resets_the_link_after_a_protocol_error(sim_built, tmp_path):
    """The drive's status for the read is two dwords too long, and the drive sends it again each
    time it is refused, far more often than the command's 2 ms: the read fails (the host refused
    the FIS repeatedly), the firmware resets the link as after a timeout, and the next read works.
    Before, the next read timed out while the drive was still resending the old status."""
    # D2H FISes: 1 the signature, 2-3 IDENTIFY's PIO Setup and Data FIS, 4 the read's Data FIS,
    # 5 its status.
    cfg = vdrive(tmp_path, "long_fis=5,fault_repeat=1000000,busy_ignores_cmd=1")
    with SimBoard(server_port=free_port(), vdrive=cfg) as board:
        board.wait_prompt()
        assert "command timeout 2 ms" in board.console("timeout 2", "ecpsata>", timeout=60)
        assert "model        ecpsata test drive" in board.console("identify", "ecpsata>", timeout=60)
        failed = board.console("read 8 1", "ecpsata>", timeout=120)
        text = board.console("read 9 1", "ecpsata>", timeout=120)
        assert "LBA 9:" in text and "failed" not in text and "timeout" not in text, failed + text
        assert "read: the command failed" in failed, failed
        assert "the drive broke the protocol" in failed, failed
        assert "the link was reset (COMRESET) and is up again" in failed, failed
