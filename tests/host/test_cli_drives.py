# SPDX-License-Identifier: BSD-2-Clause
"""The host CLI with what real drives do (against the fake SoC of tests/support/fake_target.py): a drive
busy for seconds after a reset, a device that is not an ATA drive, an IDENTIFY the drive aborts,
its write cache (flushed at the end of every write, switched for a run and restored) and DMA Setup
auto-activate, the SError register."""

import json

import pytest

from tests.support.fake_target import FakeSATATarget
from tests.host.test_cli import bench


@pytest.fixture
def fake(tmp_path):
    f = FakeSATATarget(str(tmp_path))
    yield f
    f.close()


def test_a_busy_drive_is_waited_for_with_progress(fake, capsys):
    """The drive spins up for 3 s (of its time): the CLI says so while it waits, then works."""
    fake.busy_polls = 3
    rc, out, err = bench(capsys, fake, "identify")
    assert rc == 0, err
    assert "drive busy after reset (spinning up?): " in err
    assert "drive ready after 3.0 s busy" in err
    assert "FAKE SSD 1" in out


def test_a_drive_that_never_becomes_ready_is_a_named_error(fake, capsys):
    """Past the limit the host sends one more COMRESET (as libata retries a reset), then names
    the error."""
    fake.never_ready = True
    rc, _, err = bench(capsys, fake, "--ready-timeout", "2", "single")
    assert rc == 2
    assert "drive not ready 2.0 s after reset: COMRESET again" in err
    assert fake.comresets == 1
    assert "the drive stayed busy (BSY) for 2.0 s after reset" in err
    assert "does not spin up" in err
    assert fake.get("sata_errors_ready_timeout") == 2 * fake.sys_clk
    assert fake.runs == [] and fake.identify_starts == 0


def test_ready_timeout_beyond_the_counter_is_refused(fake, capsys):
    with pytest.raises(SystemExit) as e:
        bench(capsys, fake, "--ready-timeout", "60", "identify")
    assert e.value.code == 2 and "--ready-timeout" in capsys.readouterr().err
    assert fake.written("sata_errors_") == []


@pytest.mark.parametrize("sig,kind", [(0xEB140101, "ATAPI"), (0x96690101, "port multiplier")])
def test_a_device_that_is_not_an_ata_drive_is_refused_before_identify(fake, capsys, sig, kind):
    fake.set("sata_errors_dev_signature", sig)
    rc, _, err = bench(capsys, fake, "identify")
    assert rc == 2 and f"the device is {kind} (" in err and "not an ATA drive" in err
    assert fake.identify_starts == 0 and fake.written("sata_buffer_") == []


def test_an_aborted_identify_is_named_at_once_and_not_retried(fake, capsys):
    fake.identify_faults = ["abort"]
    rc, _, err = bench(capsys, fake, "identify")
    assert rc == 2
    assert ("IDENTIFY aborted by the drive: status 0x51, error 0x04 (ABRT: command aborted)"
            in err)
    assert fake.identify_starts == 1


def test_an_identify_the_drive_broke_is_named_and_not_retried(fake, capsys):
    """The core ended IDENTIFY with PROTOCOL (a bad frame repeated past the limit): a named
    error with the SError bits, sent once; an escape (data damaged on its way) is sent again."""
    fake.identify_faults = ["protocol"]
    rc, _, err = bench(capsys, fake, "identify")
    assert rc == 2 and fake.identify_starts == 1
    assert ("IDENTIFY failed: the drive broke the protocol (a FIS refused repeatedly, or out of "
            "place) (SError { Proto TrStaTrns })") in err, err
    fake.identify_faults = ["escape"]
    rc, out, err = bench(capsys, fake, "--no-auto-activate", "identify")
    assert rc == 0 and fake.identify_starts == 3 and "FAKE SSD 1" in out


def test_identify_shows_the_cache_and_enables_auto_activate(fake, capsys):
    rc, out, err = bench(capsys, fake, "identify")
    assert rc == 0, err
    assert "device       ATA (01h/01h/00h/00h)" in out
    assert "write cache  supported, enabled (volatile)" in out
    assert "auto-activate supported, enabled (DMA Setup FIS)" in out
    assert "note: enabled DMA Setup auto-activate (SET FEATURES 10h, count 02h)" in out
    assert fake.nodata_log == [(0xEF, 0x10, 2)]


def test_no_auto_activate_leaves_the_drive_as_it_is(fake, capsys):
    rc, out, _ = bench(capsys, fake, "--no-auto-activate", "identify")
    assert rc == 0 and "auto-activate supported, disabled" in out and fake.nodata_log == []


def test_a_write_ends_with_flush_unless_no_flush(fake, capsys, tmp_path):
    args = ["single", "--write", "--allow-write", "--range", "0:64", "--sectors", "64"]
    rc, out, _ = bench(capsys, fake, *args, "--json", str(tmp_path / "a.json"))
    assert rc == 0 and "flush us" in out and "MB/s before flush" in out
    a = json.load(open(tmp_path / "a.json"))
    assert a["parameters"]["flush"] is True and a["parameters"]["write_cache"] == "on"
    assert a["rows"][0]["flush_us"] == pytest.approx(400.0) and a["rows"][1]["flush_us"] is None
    rc, out, _ = bench(capsys, fake, *args, "--no-flush", "--json", str(tmp_path / "b.json"))
    b = json.load(open(tmp_path / "b.json"))
    assert rc == 0 and b["parameters"]["flush"] is False
    assert b["rows"][0]["flush_us"] is None and "flush us" not in out
    assert [r["flush"] for r in fake.runs] == [1, 0, 0, 0]
    assert a["rows"][0]["mbps"] < b["rows"][0]["mbps"]


def test_write_cache_is_switched_for_the_run_and_restored(fake, capsys, tmp_path):
    rc, out, err = bench(capsys, fake, "single", "--write", "--allow-write", "--range", "0:64",
                         "--sectors", "64", "--write-cache", "off", "--json", str(tmp_path / "j"))
    assert rc == 0, err
    assert fake.nodata_log == [(0xEF, 0x82, 0), (0xEF, 0x02, 0)]      # off, then back on
    assert json.load(open(tmp_path / "j"))["parameters"]["write_cache"] == "off"
    assert "write cache off for the run (SET FEATURES 82h), on before" in out


def test_write_cache_is_restored_after_a_failed_run(fake, capsys):
    fake.model.fail_command = 0
    rc, _, _ = bench(capsys, fake, "single", "--write", "--allow-write", "--range", "0:64",
                     "--sectors", "64", "--write-cache", "off")
    assert rc == 2 and fake.nodata_log == [(0xEF, 0x82, 0), (0xEF, 0x02, 0)]


def test_status_names_the_serror_bits_and_clears_them(fake, capsys):
    fake.set("sata_errors_serror", 1 << 22 | 1 << 25 | 1 << 10)
    rc, out, _ = bench(capsys, fake, "status", "--clear-serror")
    assert rc == 0
    assert "SError       0x02400400 { Proto Handshk UnrecFIS } (cleared)" in out
    assert "signature    ATA (01h/01h/00h/00h)" in out
    assert fake.get("sata_errors_serror") == 0
