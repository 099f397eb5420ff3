# SPDX-License-Identifier: BSD-2-Clause
"""The simulated SoC with what real drives do, from the host CLI and the firmware console: a hard
disk spinning up after its reset, a drive that never becomes ready, a device that is not an ATA
drive, a 4Kn drive, IDENTIFY in DRQ blocks, and writes measured with and without FLUSH CACHE EXT on
a drive whose cache is larger than the transfer.

The simulation runs about 250 times slower than real time: spin-up times are scaled down to
fractions of a second (the logic does not depend on the duration)."""

import pytest
import json
import re

from ecpsata.host.simboard import SimBoard
from tests.system.test_sim_sata import make_bench, vdrive
from tests.system.test_sim_system import free_port, sim_built  # noqa: F401

# The simulated SoC in Verilator (build/sim, build/ecpix5_sim): `pytest -m "not system"` leaves these out.
pytestmark = pytest.mark.system


def test_cli_waits_for_a_spinning_up_hard_disk(sim_built, tmp_path):
    """A hard disk that sends its signature 100 ms after link-up (BSY before): the CLI says it
    waits, then identifies it; no COMRESET retry."""
    p = make_bench("identify", vdrive(tmp_path, "persona=hdd7200,spinup_ms=100,busy_fis=1"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "drive busy after reset (spinning up?)" in p.stderr
    m = re.search(r"drive ready after ([\d.]+) s busy", p.stderr)
    assert m and 0.09 <= float(m.group(1)) <= 0.12, p.stderr
    assert re.search(r"device\s+ATA \(01h/01h/00h/00h\); ready after 0\.1 s busy", p.stdout)
    assert "rotation     7200 rpm" in p.stdout
    p = make_bench("status", vdrive(tmp_path, "spinup_ms=100"))
    assert re.search(r"retries\s+0\n", p.stdout) and "link ups     1," in p.stdout, p.stdout


def test_cli_names_a_drive_that_never_becomes_ready(sim_built, tmp_path):
    p = make_bench("--ready-timeout 0.1 identify", vdrive(tmp_path, "spinup_ms=300"))
    assert p.returncode == 2
    assert ("the drive stayed busy (BSY) for 0.1 s after reset (the limit, --ready-timeout, is "
            "0.1 s): a hard disk that does not spin up") in p.stderr, p.stderr


def test_cli_refuses_an_atapi_device_before_identify(sim_built, tmp_path):
    p = make_bench("identify", vdrive(tmp_path, "atapi=1"))
    assert p.returncode == 2
    assert "the device is ATAPI (01h/01h/14h/EBh), not an ATA drive" in p.stderr, p.stderr


def test_cli_identify_in_drq_blocks(sim_built, tmp_path):
    p = make_bench("identify", vdrive(tmp_path, "pio_blocks=8"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert re.search(r"model\s+ecpsata test drive\n", p.stdout)


def test_write_with_and_without_flush_on_a_cached_drive(sim_built, tmp_path):
    """slc's 16 MiB write cache holds the 4 MiB written: without FLUSH CACHE EXT the write
    runs at the line's rate (the cache's), with it at about the medium's 170 MB/s; the JSON says
    which, with the flush's time."""
    args = "single --write --allow-write --range 0:8192 --json {}"
    runs = {}
    for name, extra in (("flush", ""), ("noflush", " --no-flush")):
        out = tmp_path / f"{name}.json"
        p = make_bench(args.format(out) + extra, "persona=slc,capacity=1GiB")
        assert p.returncode == 0, p.stdout + p.stderr
        runs[name] = json.load(open(out))
    f, n = runs["flush"], runs["noflush"]
    assert f["parameters"]["flush"] is True and n["parameters"]["flush"] is False
    assert f["parameters"]["write_cache"] == "on"
    w_f, w_n = f["rows"][0], n["rows"][0]
    assert w_f["op"] == "write" and w_f["flush_us"] > 5000 and w_n["flush_us"] is None
    assert 160 < w_f["mbps"] < 180, w_f["mbps"]
    assert w_n["mbps"] > 250 and w_f["mbps_before_flush"] > 250


def test_console_waits_for_spin_up_and_refuses_a_4kn_drive(sim_built, tmp_path):
    with SimBoard(server_port=free_port(),
                  vdrive=vdrive(tmp_path, "spinup_ms=60,logical_sector=4096")) as board:
        board.wait_prompt()
        text = board.console("identify", "ecpsata>", timeout=120)
        assert "logical sectors of 4096 bytes" in text and "usable       no" in text
        assert re.search(r"capacity\s+262144 sectors of 4096 bytes, 1073741824 bytes", text)
        text = board.console("read 0 1", "ecpsata>", timeout=60)
        assert ("the drive has logical sectors of 4096 bytes (IDENTIFY words 106, 117-118): "
                "the bench moves 512-byte sectors") in text, text
        text = board.console("single sectors=8", "ecpsata>", timeout=60)
        assert "logical sectors of 4096 bytes" in text
        text = board.console("sata_status", "ecpsata>", timeout=60)
        assert re.search(r"drive\s+ready \(busy 0\.[01] s after the reset\)", text), text


def test_console_names_an_atapi_device(sim_built, tmp_path):
    with SimBoard(server_port=free_port(), vdrive=vdrive(tmp_path, "atapi=1")) as board:
        board.wait_prompt()
        text = board.console("identify", "ecpsata>", timeout=60)
        assert "the device is an ATAPI device (signature 01h/01h/14h/EBh)" in text, text
        text = board.console("sata_status", "ecpsata>", timeout=60)
        assert "signature    ATAPI (01h/01h/14h/EBh)" in text, text
