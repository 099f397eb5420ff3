"""The host CLI against a fake target: identity, readable errors, no hangs."""

import json
import socket
import subprocess
import sys
import time

import pytest

from bench import cli
from tests.fake_target import FakeTarget


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
    fake.set("identity_git_rev", 0xdeadbeef)
    rc, _, err = run_cli(capsys, "--port", str(fake.port), "--csr-csv", fake.csr_csv, "info")
    assert rc == 2
    assert "is from build 1234abcd" in err and "runs deadbeef" in err


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
