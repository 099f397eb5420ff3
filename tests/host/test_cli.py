# SPDX-License-Identifier: BSD-2-Clause
"""The host CLI against a fake target: identity, readable errors, no hangs; the benchmark
subcommands end to end against the fake engine (tables, JSON, CSV, PNG, write safety, progress)."""

import io
import json
import os
import socket
import subprocess
import sys
import time

import pytest

from ecpsata.host import cli, experiments, report
from ecpsata.engines import common as bc
from tests.support.fake_target import EngineModel, FakeSATATarget, FakeTarget


@pytest.fixture
def fake(tmp_path):
    t = FakeTarget(str(tmp_path))
    yield t
    t.close()


def run_cli(capsys, *argv):
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_info_prints_identity(fake, capsys):
    rc, out, err = run_cli(capsys, "--port", str(fake.port), "--csr-csv", fake.csr_csv, "info")
    assert rc == 0, err
    assert "git        1234abcd" in out
    assert "board      sim" in out
    assert "sys_clk    100.000 MHz" in out
    assert "features   uartbone simulated" in out
    assert "ident      ecpsata fake" in out


def test_info_json(fake, capsys):
    rc, out, _ = run_cli(capsys, "--port", str(fake.port), "--csr-csv", fake.csr_csv, "info", "--json")
    assert rc == 0
    ident = json.loads(out)
    assert ident["git_rev"] == "1234abcd" and ident["sys_clk_hz"] == 100_000_000
    assert ident["features"] == ["uartbone", "simulated"] and ident["git_dirty"] is False


def test_no_server_is_a_readable_error(fake, capsys):
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rc, _, err = run_cli(capsys, "--port", str(port), "--csr-csv", fake.csr_csv, "info")
    assert rc == 2
    assert f"cannot reach litex_server at 127.0.0.1:{port}" in err


def test_missing_csr_csv(tmp_path, capsys):
    rc, _, err = run_cli(capsys, "--csr-csv", str(tmp_path / "nope.csv"), "info")
    assert rc == 2 and "nope.csv not found" in err


def test_csr_csv_of_another_build_is_refused(fake, capsys):
    fake.set_stamp(0xdeadbeef, False, 1700000000)
    rc, _, err = run_cli(capsys, "--port", str(fake.port), "--csr-csv", fake.csr_csv, "info")
    assert rc == 2
    assert "is from build 1234abcd" in err and "runs deadbeef" in err


def test_rom_without_a_build_stamp_is_refused(fake, capsys):
    fake.comm.mem[fake.STAMP_ADDR] = 0  # firmware of an older build: no stamp magic
    rc, _, err = run_cli(capsys, "--port", str(fake.port), "--csr-csv", fake.csr_csv, "info")
    assert rc == 2 and "no build stamp at 0x0000fff0" in err


def test_dirty_build_is_shown(tmp_path, capsys):
    fake = FakeTarget(str(tmp_path), git_dirty=True)
    try:
        rc, out, err = run_cli(capsys, "--port", str(fake.port), "--csr-csv", fake.csr_csv, "info")
    finally:
        fake.close()
    assert rc == 0, err
    assert "git        1234abcd (dirty)" in out


def test_wrong_magic_is_refused(fake, capsys):
    fake.set("identity_magic", 0)
    rc, _, err = run_cli(capsys, "--port", str(fake.port), "--csr-csv", fake.csr_csv, "info")
    assert rc == 2 and "does not describe the gateware" in err


def test_dead_bridge_times_out_with_a_message(fake, capsys):
    fake.comm.silent = True
    t0 = time.monotonic()
    rc, _, err = run_cli(capsys, "--port", str(fake.port), "--csr-csv", fake.csr_csv, "--timeout", "1", "info")
    assert rc == 2 and "no answer from the target" in err
    assert time.monotonic() - t0 < 10


# Benchmark subcommands against the fake SoC with an engine model (tests/support/fake_target.py) ------------


QUEUED_ONLY = {"steady", "wsat"}     # experiments that need the queued engine


@pytest.fixture
def sata_fake(tmp_path, request):
    name = request.node.callspec.params.get("name") if hasattr(request.node, "callspec") else None
    t = FakeSATATarget(str(tmp_path / "soc"), with_queued=name in QUEUED_ONLY)
    yield t
    t.close()


@pytest.fixture(autouse=True)
def _soc_dir(tmp_path):
    (tmp_path / "soc").mkdir()


def bench(capsys, fake, *argv):
    return run_cli(capsys, "--port", str(fake.port), "--csr-csv", fake.csr_csv, *argv)


EXPERIMENT_ARGS = {   # small runs; sweeps get --plot
    "single":   [],
    "long":     ["--loops", "3", "--sectors", "8"],
    "hwloop":   ["--loops", "2", "--sectors", "8"],
    "overhead": ["--loops", "2", "--sectors", "8"],
    "lba28":    ["--count", "300"],
    "latency":  ["--max", "32", "--runs", "3"],
    "cpu":      ["--count", "16"],
    "access":   ["-n", "4"],
    "random":   ["-n", "3", "--max", "4"],
    "quick":    ["--loops", "2", "-n", "4", "--seq-n", "2", "--seq-sectors", "64"],
    "verify":   ["--allow-write", "--range", "0:64"],
    "steady":   ["--allow-write", "--range", "0:512", "--rounds", "5", "--commands", "8"],
    "wsat":     ["--allow-write", "--range", "0:512", "--until", "2x"],
}
HEADERS = {"single": "1st data us", "long": "loop count", "hwloop": "circuit", "overhead": "circuit",
           "lba28": "op    sectors", "latency": "KiB", "cpu": "op    path", "access": "statistic",
           "random": "sectors  random IOPS", "quick": "test         op", "verify": "LBA  sectors",
           "steady": "round  phase    IOPS", "wsat": "interval  written x range"}


@pytest.mark.parametrize("name", experiments.NAMES)
def test_every_subcommand_prints_a_table_and_writes_files(sata_fake, capsys, tmp_path, name):
    out = tmp_path / "out"
    argv = [name, *EXPERIMENT_ARGS[name], "--json", str(out / "r.json"), "--csv", str(out / "r.csv")]
    if report.can_plot(name):
        argv += ["--plot", str(out / "r.png")]
    rc, text, err = bench(capsys, sata_fake, *argv)
    assert rc == 0, err
    assert text.startswith(f"{name}: ") and HEADERS[name] in text
    doc = json.loads((out / "r.json").read_text())
    assert doc["experiment"] == name and doc["rows"] and doc["target"]["sys_clk_hz"] == 100_000_000
    lines = (out / "r.csv").read_text().splitlines()
    assert lines[0].split(",") == list(doc["rows"][0]) and len(lines) == len(doc["rows"]) + 1
    if report.can_plot(name):
        assert (out / "r.png").read_bytes()[:4] == b"\x89PNG"


def test_single_prints_the_counters_mb_s(sata_fake, capsys):
    rc, out, _ = bench(capsys, sata_fake, "single", "--sectors", "1000")
    cycles = 1000 + 1000 * 256
    assert rc == 0
    row = out.splitlines()[-1].split()
    assert row == ["read", "0", "1000", "512000", str(cycles), f"{cycles / 100:.2f}", "10.00",
                   f"{512000 / (cycles / 1e8) / 1e6:.2f}"]


def test_verify_failure_exits_1_with_first_bad_lba(sata_fake, capsys):
    sata_fake.model.bad_lbas = {70}
    rc, out, _ = bench(capsys, sata_fake, "verify", "--allow-write", "--range", "64:32")
    assert rc == 1
    # ... and the write's flush: 40,000 cycles of the fake drive at 100 MHz
    assert out.splitlines()[-1].split() == ["64", "32", "2", "0", "1", "3", "70", "400.0", "FAIL"]


def test_verify_buffer_path_still_works(sata_fake, capsys, tmp_path):
    rc, out, err = bench(capsys, sata_fake, "verify", "--buffer", "--allow-write", "--range", "8:20",
                         "--json", str(tmp_path / "v.json"))
    assert rc == 0, err
    assert "20 sectors written and read back, 0 bad sectors" in out
    assert json.loads((tmp_path / "v.json").read_text())["bad_sectors"] == 0
    assert sorted(sata_fake.disk) == list(range(8, 28)) and sata_fake.runs == []


@pytest.mark.parametrize("argv", [
    ["verify"], ["verify", "--range", "0:64"], ["verify", "--allow-write"],
    ["single", "--write"], ["single", "--write", "--allow-write"], ["long", "--write", "--range", "0:8"],
    ["cpu", "--write", "--allow-write"], ["suite", "--allow-write"],
])
def test_writes_need_allow_write_and_range(sata_fake, capsys, argv):
    with pytest.raises(SystemExit) as e:
        bench(capsys, sata_fake, *argv)
    assert e.value.code == 2
    assert "--range LBA:COUNT" in capsys.readouterr().err
    assert sata_fake.comm.writes == []


@pytest.mark.parametrize("argv", [
    ["single", "--range", "16777200:100", "--sectors", "100"],
    ["verify", "--allow-write", "--range", "16777000:1000"],
    ["single", "--write", "--allow-write", "--range", "16777215:2", "--sectors", "1"],
    ["access", "--range", "16777216:1"],
])
def test_range_beyond_capacity_is_refused_before_any_write(sata_fake, capsys, argv):
    rc, _, err = bench(capsys, sata_fake, *argv)
    assert rc == 2 and "outside the drive (0..16777215): nothing sent" in err
    assert sata_fake.written("sata_bench_") == [] and sata_fake.written("sata_buffer_") == []
    assert sata_fake.runs == [] and sata_fake.disk == {}


def test_write_outside_the_named_range_is_refused(sata_fake, capsys):
    rc, _, err = bench(capsys, sata_fake, "long", "--write", "--allow-write", "--range", "0:100",
                       "--loops", "4", "--sectors", "64")
    assert rc == 2 and "needs LBAs 0..255, outside --range 0:100" in err
    assert sata_fake.written("sata_bench_") == []


def test_writes_stay_inside_the_range(sata_fake, capsys):
    rc, _, err = bench(capsys, sata_fake, "hwloop", "--write", "--allow-write", "--range", "5000:256",
                       "--loops", "4", "--sectors", "64")
    assert rc == 0, err
    writes = [r for r in sata_fake.runs if r["op"] == bc.OP_WRITE]
    assert len(writes) == 5   # 4 host-loop commands, 1 hardware run
    assert all(5000 <= r["lba_base"] and r["lba_base"] + (r["sectors"] if r["fw_loop"] else r["lba_range"])
               <= 5256 for r in writes)


def test_link_down_is_a_readable_error(tmp_path, capsys):
    fake = FakeSATATarget(str(tmp_path / "soc"), link_up=False)
    try:
        rc, _, err = bench(capsys, fake, "--timeout", "0.3", "single")
        assert rc == 2 and "SATA link down" in err and "Traceback" not in err
    finally:
        fake.close()


def test_link_drop_during_a_run_is_a_readable_error(sata_fake, capsys):
    sata_fake.model.drop_link = True
    rc, out, err = bench(capsys, sata_fake, "single")
    assert rc == 2 and out == ""
    assert "SATA link dropped during the run (link_downs 0 -> 1)" in err


def test_a_run_left_busy_by_an_earlier_host_is_aborted_first(sata_fake, capsys):
    """A host that exits while the engine is busy (interrupted) leaves it busy: the next run
    aborts it first instead of having its start ignored."""
    sata_fake._busy_left = 10 ** 9                  # as if a run were still in flight
    sata_fake._set_state(bc.STATE_BUSY, bc.REASON_OK)
    rc, out, err = bench(capsys, sata_fake, "single")
    assert rc == 0, err
    assert len(sata_fake.runs) == 1 and "read    0    65536" in out


def test_device_error_is_a_readable_error(sata_fake, capsys):
    sata_fake.model.fail_command = 0
    rc, _, err = bench(capsys, sata_fake, "single")
    assert rc == 2
    assert ("single read: command failed (1 failed of 1 completed; the failing command started "
            "at LBA 0): the drive reported status 0x51 error 0x40 (UNC: uncorrectable data) at "
            "LBA 3") in err


def test_device_error_kinds_and_link_counts_are_decoded(sata_fake, capsys, tmp_path):
    """ABRT / IDNF / ICRC are named, the link-level counts of the run are given, and --json
    records the cause (the run has no results)."""
    for error, text in ((0x04, "ABRT: command aborted"), (0x10, "IDNF: address not found"),
                        (0x84, "ICRC: interface CRC error, ABRT: command aborted")):
        sata_fake.model.fail_command = 0
        sata_fake.model.fail_registers = (0x51, error, 7)
        sata_fake.model.fail_link = (2, 1, 1)
        out = tmp_path / f"err{error}.json"
        rc, _, err = bench(capsys, sata_fake, "single", "--range", "100:65536", "--json", str(out))
        assert rc == 2
        assert f"error 0x{error:02x} ({text}) at LBA 107" in err, err
        assert ("link: 2 received FIS with a bad CRC, 1 FIS refused by the drive "
                "(R_ERR, or SYNC: not seen), 1 command retries") in err
        doc = json.load(open(out))
        assert doc["error"]["reason"] == "device error"
        assert doc["error"]["device"] == {"status": 0x51, "error": error, "lba": 107,
                                          "kinds": [n for b, n in ((0x80, "ICRC"), (0x40, "UNC"),
                                                                   (0x10, "IDNF"), (0x04, "ABRT"))
                                                    if error & b]}
        assert doc["error"]["link"] == {"fis_crc_errors": 2, "fis_rejected": 1, "cmd_retries": 1,
                                        "escapes": 0, "fis_refused": 0}
        assert doc["error"]["command"] == {"reason_code": 1,
                                           "reason": "the drive reported an error"}


def test_data_crc_error_without_a_status_says_so(sata_fake, capsys):
    sata_fake.model.fail_command = 0
    sata_fake.model.fail_registers = (0x50, 0, 0)      # no ERR: e.g. a Data FIS with a bad CRC
    sata_fake.model.fail_link = (1, 0, 0)
    rc, _, err = bench(capsys, sata_fake, "single")
    assert rc == 2
    assert "the drive did not report an error register" in err
    assert "link: 1 received FIS with a bad CRC" in err


def test_unreachable_target_is_a_readable_error(sata_fake, capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rc, _, err = run_cli(capsys, "--port", str(port), "--csr-csv", sata_fake.csr_csv, "random")
    assert rc == 2 and "cannot reach litex_server" in err and "Traceback" not in err


def test_no_engine_is_a_readable_error(tmp_path, capsys):
    fake = FakeSATATarget(str(tmp_path / "soc"), with_bench=False)
    try:
        rc, _, err = bench(capsys, fake, "latency")
        assert rc == 2 and "no benchmark engine" in err
    finally:
        fake.close()


def test_suite_read_only_writes_results(sata_fake, capsys, tmp_path):
    out = tmp_path / "results"
    rc, text, err = bench(capsys, sata_fake, "suite", "--out", str(out), "--sectors", "64")
    assert rc == 0, err
    assert "running the read experiments only" in text
    names = [n for n in experiments.NAMES if n != "verify" and experiments.get(n).suite]
    assert "steady" not in names          # writes the whole range for minutes: never in the suite
    for n in names:
        assert f"\n{n}: " in "\n" + text
        assert json.loads((out / f"{n}.json").read_text())["experiment"] == n
        assert (out / f"{n}.csv").stat().st_size > 0
    assert sorted(p.name for p in out.glob("*.png")) == sorted(f"{n}.png" for n in names
                                                               if report.can_plot(n))
    assert (out / "index.html").stat().st_size > 10_000 and f"report: {out}/index.html" in text
    assert not (out / "verify.json").exists()
    assert all(r["op"] == bc.OP_READ for r in sata_fake.runs) and sata_fake.disk == {}


def test_suite_with_writes_stays_in_range(sata_fake, capsys, tmp_path):
    out = tmp_path / "results"
    rc, text, err = bench(capsys, sata_fake, "suite", "--out", str(out), "--sectors", "64",
                          "--allow-write", "--range", "10000:1024")
    assert rc == 0, err
    assert "read experiments only" not in text
    assert json.loads((out / "verify.json").read_text())["summary"]["passed"] is True
    ops = {r["op"] for r in sata_fake.runs}
    assert ops == {bc.OP_READ, bc.OP_WRITE, bc.OP_WRITE_VERIFY}
    for r in sata_fake.runs:
        span = r["sectors"] if r["fw_loop"] else r["lba_range"]
        assert 10000 <= r["lba_base"] and r["lba_base"] + span <= 11024
    assert all(10000 <= lba < 11024 for lba in sata_fake.disk)


def test_suite_range_too_small(sata_fake, capsys, tmp_path):
    rc, _, err = bench(capsys, sata_fake, "suite", "--out", str(tmp_path / "r"), "--allow-write",
                       "--range", "0:100")
    assert rc == 2 and "--range must hold at least 1024 sectors" in err
    assert sata_fake.written("sata_bench_") == []


def test_progress_bar_on_a_terminal():
    out = io.StringIO()
    p = cli.Progress(out, tty=True)
    for nbytes in (0, 5000, 10000):
        p({"label": "read", "bytes": nbytes, "total_bytes": 10000, "completed": 1, "errors": 0,
           "mismatches": 0, "mbps": 123.456, "cycles": 1})
    p.clear()
    frames = out.getvalue().split("\r")
    assert len(frames) == 5 and frames[-1] == "\x1b[K"
    assert frames[2].startswith("[##########..........] read:  50.0%") and "123.46 MB/s" in frames[2]
    assert frames[3].startswith("[####################] read: 100.0%")


def test_progress_lines_in_a_log_are_spaced():
    out = io.StringIO()
    p = cli.Progress(out, tty=False, period_s=60)
    for i in range(5):
        p({"label": "read", "bytes": i, "total_bytes": 4, "completed": i, "errors": 0,
           "mismatches": 0, "mbps": 1.0, "cycles": 1})
    assert out.getvalue().count("\n") == 1 and "\r" not in out.getvalue()


def test_live_progress_reaches_stderr(tmp_path, capsys):
    fake = FakeSATATarget(str(tmp_path / "soc"), model=EngineModel(busy_reads=3))
    try:
        rc, _, err = bench(capsys, fake, "single", "--sectors", "64")
        assert rc == 0
        lines = err.splitlines()
        assert lines and lines[0].startswith("single read: ") and "MB/s" in lines[0]
    finally:
        fake.close()


# Bad input: refused with a readable message and a non-zero exit before any I/O ---------


def refused(capsys, fake, *argv):
    """Run the CLI expecting argparse's refusal; returns (exit code, stderr)."""
    with pytest.raises(SystemExit) as e:
        bench(capsys, fake, *argv)
    return e.value.code, capsys.readouterr().err


def nothing_sent(fake):
    return fake.comm.writes == [] and fake.runs == [] and fake.disk == {}


@pytest.mark.parametrize("argv, message", [
    # zero or negative sizes used to mean "the default" (single --sectors 0 wrote 64 sectors)
    (["single", "--sectors", "0", "--write", "--allow-write", "--range", "0:64"],
     "argument --sectors: must be 1..65536, not 0"),
    (["single", "--sectors", "-8"], "argument --sectors: must be 1..65536, not -8"),
    (["single", "--sectors", "65537"], "argument --sectors: must be 1..65536, not 65537"),
    (["long", "--sectors", "0"], "argument --sectors: must be 1..65536, not 0"),
    (["lba28", "--count", "0"], "argument --count: must be at least 1, not 0"),
    (["cpu", "--count", "0"], "argument --count: must be a positive multiple of 16, not 0"),
    (["cpu", "--count", "24"], "argument --count: must be a positive multiple of 16, not 24"),
    (["verify", "--count", "0", "--allow-write", "--range", "0:64"],
     "argument --count: must be at least 1, not 0"),
    (["verify", "--check", "--count", "-1", "--range", "0:64"],
     "argument --count: must be at least 1, not -1"),
    (["suite", "--sectors", "0"], "argument --sectors: must be 1..65536, not 0"),
    # the other numeric options
    (["long", "--loops", "0"], "argument --loops: must be 1..4294967295, not 0"),
    (["hwloop", "--loops", "-3"], "argument --loops: must be 1..4294967295, not -3"),
    (["hwloop", "--loops", "0x100000000"], "argument --loops: must be 1..4294967295, not 4294967296"),
    (["overhead", "--loops", "1"], "argument --loops: must be 2..4294967295, not 1"),
    (["latency", "--runs", "2"], "argument --runs: must be 3..64, not 2"),
    (["latency", "--min", "0"], "argument --min: must be 1..32768, not 0"),
    (["latency", "--max", "65536"], "argument --max: must be 1..32768, not 65536"),
    (["latency", "--min", "64", "--max", "32"], "--min 64 is above --max 32"),
    (["access", "-n", "0"], "argument -n: must be 1..100000, not 0"),
    (["random", "-n", "-1"], "argument -n: must be 1..4294967295, not -1"),
    (["random", "--max", "0"], "argument --max: must be 1..65536, not 0"),
    (["single", "--seed", "-1"], "argument --seed: must be 0..4294967295, not -1"),
    (["verify", "--seed", "0x100000000", "--allow-write", "--range", "0:64"],
     "argument --seed: must be 0..4294967295, not 4294967296"),
    (["read", "0", "0"], "argument count: must be at least 1, not 0"),
    (["read", "-1", "1"], "argument lba: must be at least 0, not -1"),
    (["single", "--range", "0:0"], "argument --range: COUNT must be at least 1, not 0"),
    (["single", "--range", "0:-8"], "argument --range: COUNT must be at least 1, not -8"),
    (["single", "--range=-1:8"], "argument --range: LBA must be at least 0, not -1"),
    (["single", "--range", f"{2**48 - 4}:8"],
     f"argument --range: LBAs {2**48 - 4}..{2**48 + 3} go beyond 48-bit LBA"),
    (["single", "--time-scale", "0"], "argument --time-scale: must be a positive number, not 0"),
    (["single", "--time-scale", "nan"], "argument --time-scale: must be a positive number, not nan"),
])
def test_nonsense_numbers_are_refused_before_any_io(sata_fake, capsys, argv, message):
    code, err = refused(capsys, sata_fake, *argv)
    assert code == 2 and message in err and "Traceback" not in err
    assert nothing_sent(sata_fake)


@pytest.mark.parametrize("argv, message", [
    (["--timeout", "-1"], "argument --timeout: must be a positive number of seconds (at most 86400), not -1"),
    (["--timeout", "0"], "argument --timeout: must be a positive number of seconds (at most 86400), not 0"),
    (["--timeout", "inf"], "argument --timeout: must be a positive number of seconds (at most 86400), not inf"),
    (["--timeout", "1e10"], "argument --timeout: must be a positive number of seconds (at most 86400), not 1e10"),
    (["--port", "70000"], "argument --port: must be 1..65535, not 70000"),
    (["--port", "0"], "argument --port: must be 1..65535, not 0"),
    (["--port", "-1"], "argument --port: must be 1..65535, not -1"),
])
def test_bad_timeout_or_port_is_refused_before_connecting(sata_fake, capsys, argv, message):
    code, err = refused(capsys, sata_fake, *argv, "identify")
    assert code == 2 and message in err and "Traceback" not in err
    assert sata_fake.comm.writes == []


@pytest.mark.parametrize("kind", ["devnull", "passwd", "empty", "folder", "binary"])
def test_a_file_that_is_not_a_csr_csv_is_a_readable_error(sata_fake, capsys, tmp_path, kind):
    path = {"devnull": os.devnull, "folder": str(tmp_path)}.get(kind, str(tmp_path / "not.csv"))
    if kind == "passwd":
        (tmp_path / "not.csv").write_text("root:x:0:0:root:/root:/bin/bash\n")
    elif kind == "empty":
        (tmp_path / "not.csv").write_text("")
    elif kind == "binary":
        (tmp_path / "not.csv").write_bytes(bytes(range(256)))
    rc, _, err = run_cli(capsys, "--port", str(sata_fake.port), "--csr-csv", path, "identify")
    assert rc == 2 and "Traceback" not in err
    assert f"error: {path} is not a csr.csv of a LiteX build" in err and len(err.splitlines()) == 1
    assert sata_fake.comm.writes == []


@pytest.mark.parametrize("option", ["--json", "--csv", "--plot"])
@pytest.mark.parametrize("where", ["a folder", "under a file"])
def test_unwritable_output_paths_are_refused_before_any_io(sata_fake, capsys, tmp_path, option, where):
    (tmp_path / "file").write_text("x")
    path = tmp_path if where == "a folder" else tmp_path / "file" / "r.out"
    code, err = refused(capsys, sata_fake, "long", "--write", "--allow-write", "--range", "0:64",
                        "--loops", "2", "--sectors", "8", option, str(path))
    why = "is a folder" if where == "a folder" else f"{tmp_path / 'file'} is not a folder"
    assert code == 2 and f"{option} {path}: {why}" in err and "Traceback" not in err
    assert nothing_sent(sata_fake)


def test_unwritable_read_out_and_suite_out_are_refused_before_any_io(sata_fake, capsys, tmp_path):
    (tmp_path / "file").write_text("x")
    code, err = refused(capsys, sata_fake, "read", "0", "1", "--out", str(tmp_path))
    assert code == 2 and f"--out {tmp_path}: is a folder" in err
    code, err = refused(capsys, sata_fake, "suite", "--out", str(tmp_path / "file"))
    assert code == 2 and f"--out {tmp_path / 'file'}: is not a folder" in err
    assert nothing_sent(sata_fake)


def test_plot_path_must_be_a_png(sata_fake, capsys, tmp_path):
    # matplotlib would write r.svg.png beside the name given
    code, err = refused(capsys, sata_fake, "latency", "--max", "32", "--runs", "3",
                        "--plot", str(tmp_path / "r.svg"))
    assert code == 2 and f"--plot {tmp_path / 'r.svg'}: must end in .png" in err
    assert nothing_sent(sata_fake) and not list(tmp_path.glob("r.*"))


def test_output_folders_are_still_created(sata_fake, capsys, tmp_path):
    out = tmp_path / "new" / "deeper"
    rc, _, err = bench(capsys, sata_fake, "single", "--sectors", "8", "--json", str(out / "r.json"))
    assert rc == 0, err
    assert json.loads((out / "r.json").read_text())["experiment"] == "single"


def test_verify_check_does_not_claim_a_write(sata_fake, capsys):
    rc, out, err = bench(capsys, sata_fake, "verify", "--check", "--range", "0:64")
    assert rc == 0, err
    assert out.splitlines()[0] == ("verify: pattern of an earlier write read back and checked "
                                   "(--check: nothing written)")
    assert sata_fake.runs and all(r["op"] == bc.OP_READ for r in sata_fake.runs)
    rc, out, _ = bench(capsys, sata_fake, "verify", "--allow-write", "--range", "0:64")
    assert out.splitlines()[0] == "verify: pattern written, read back and checked"


@pytest.mark.parametrize("argv", [["single", "--sectors", "8"], ["read", "0", "1"]])
def test_drive_without_lba_is_refused(sata_fake, capsys, argv):
    sata_fake.identify_data[49] = 1 << 8   # DMA but no LBA (word 49 bit 9)
    rc, _, err = bench(capsys, sata_fake, *argv)
    assert rc == 2 and "the drive does not support LBA addressing (IDENTIFY word 49 bit 9)" in err
    assert sata_fake.written("sata_bench_") == [] and sata_fake.written("sata_buffer_") == []
    assert sata_fake.runs == []


def test_identify_shows_lba_and_the_logical_sector(sata_fake, capsys):
    w = sata_fake.identify_data
    w[106], w[117], w[118] = 0x4000 | 1 << 12, 2048, 0    # 4,096-byte logical sectors
    w[49] = 1 << 8
    rc, out, err = bench(capsys, sata_fake, "identify")
    assert rc == 0, err
    assert "sector       4096 bytes (logical)" in out
    assert "lba          no (CHS only: the bench cannot use this drive)" in out
    assert f"capacity     {1 << 24} sectors ({(1 << 24) * 4096 / 1e9:.2f} GB" in out


def test_drive_with_4k_logical_sectors_is_refused(sata_fake, capsys):
    w = sata_fake.identify_data
    w[106], w[117], w[118] = 0x4000 | 1 << 12, 2048, 0
    rc, _, err = bench(capsys, sata_fake, "single", "--sectors", "8")
    assert rc == 2 and "logical sectors of 4096 bytes" in err
    assert sata_fake.written("sata_bench_") == [] and sata_fake.runs == []


@pytest.mark.parametrize("faults", [["checksum"], ["crc", "checksum"]])
def test_identify_damaged_on_the_line_is_read_again(sata_fake, capsys, faults):
    """A bit error in IDENTIFY's Data FIS (the link counted a bad CRC, or only word 255's
    checksum shows it) costs a retry, not a refused drive."""
    sata_fake.identify_faults = list(faults)
    rc, out, err = bench(capsys, sata_fake, "--no-auto-activate", "identify")
    assert rc == 0, err
    assert sata_fake.identify_starts == len(faults) + 1
    assert "FAKE SSD 1" in out


def test_identify_damaged_three_times_is_a_readable_error(sata_fake, capsys):
    sata_fake.identify_faults = ["crc", "checksum", "crc"]
    rc, _, err = bench(capsys, sata_fake, "identify")
    assert rc != 0 and sata_fake.identify_starts == 3
    assert ("IDENTIFY failed 3 times (1 FIS with a bad CRC; IDENTIFY checksum failed (byte sum "
            in err)
    assert "the link has bit errors" in err


def test_identify_the_drive_never_answers_is_sent_again_after_a_link_reset(sata_fake, capsys):
    """A drive that lost the IDENTIFY (bit errors on the line) answers nothing until a COMRESET:
    after the timeout the host resets the link and sends it again (before: 'IDENTIFY: the drive
    did not answer', the run refused)."""
    sata_fake.identify_faults = ["silent"]
    rc, out, err = bench(capsys, sata_fake, "--timeout", "1", "--no-auto-activate", "identify")
    assert rc == 0, err
    assert sata_fake.identify_starts == 2 and sata_fake.identify_silent == 1
    assert sata_fake.comresets == 1
