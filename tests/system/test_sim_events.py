# SPDX-License-Identifier: BSD-2-Clause
"""The link event log in the simulated SoC: the console's `events` after a link-up and an
IDENTIFY, and the events printed by themselves when a command fails (console and CLI)."""

import json
import os
import re

import pytest

from ecpsata.host import cli
from ecpsata.host.simboard import SimBoard
from tests.system.test_sim_system import free_port, our_processes, sim_built  # noqa: F401
from tests.system.test_sim_field import run
from tests.system.test_sim_sata import vdrive

pytestmark = pytest.mark.system

EVENT = re.compile(r"^\s+(\d+)\.(\d\d)  (.+)$", re.M)


def events(text):
    """[(time in hundredths of a microsecond, text)] of an `events` listing."""
    return [(int(a) * 100 + int(b), what) for a, b, what in EVENT.findall(text)]


def test_events_list_the_bring_up_in_order_with_times(sim_built, tmp_path):
    with SimBoard(server_port=free_port(), vdrive=vdrive(tmp_path)) as board:
        board.wait_prompt()
        board.console("identify", "ecpsata>", timeout=120)
        text = board.console("events", "ecpsata>", timeout=60)
    got = events(text)
    assert re.search(r"events: \d+ since the clear, the last \d+ shown \(0 lost\)", text), text
    names = [what for _, what in got]
    # the bring-up as SATA's host PHY state machine runs it, each step once, in this order
    steps = ["PHY state HP1_HR_COMRESET (Gen2)", "COMINIT detected", "PHY state HP4_HR_COMWAKE (Gen2)",
             "COMWAKE detected", "PHY state HP7_HR_SendAlign (Gen2)", "PHY state HP8_HR_Ready (Gen2)",
             "link up", "drive ready up"]
    at = [names.index(s) for s in steps]
    assert at == sorted(at), names
    times = [t for t, _ in got]
    assert times == sorted(times) and times[at[-1]] > times[at[0]]
    assert our_processes() == []


def test_a_failed_command_prints_the_last_events(sim_built, tmp_path):
    """The drive stops answering after its first command: the read times out, and the console
    shows what the link and the drive did last without being asked."""
    with SimBoard(server_port=free_port(),
                  vdrive=vdrive(tmp_path, "stop_after_cmds=1")) as board:
        board.wait_prompt()
        board.console("identify", "ecpsata>", timeout=120)
        board.console("timeout 2", "ecpsata>", timeout=30)
        text = board.console("read 0 1", "ecpsata>", timeout=300)
    failed = text.index("read: timeout")
    listing = text.index("events: ", failed)            # printed by itself, after the failure
    assert re.search(r"the last 12 shown", text[listing:]), text
    assert len(events(text[listing:])) == 12 and "link up" in text[listing:], text
    assert our_processes() == []


def test_the_cli_reads_the_log_in_order_writes_json_and_clears_it(sim_built, tmp_path, capsys):
    """`ecpsata events --json F --clear` after an identify: COMRESET, COMINIT, COMWAKE, ALIGN and
    link up in this order with rising times, the same in the JSON, and an empty log after."""
    with SimBoard(server_port=free_port(), vdrive=vdrive(tmp_path)) as board:
        rc, out, err = run(board, capsys, "identify")
        assert rc == 0, out + err
        rc, out, err = run(board, capsys, "events", "--json", str(tmp_path / "e.json"), "--clear")
        assert rc == 0, out + err
        rc, after, err = run(board, capsys, "events")
        assert rc == 0, after + err
    log = json.load(open(tmp_path / "e.json"))
    texts = [e["text"] for e in log["events"]]
    steps = ["PHY state HP1_HR_COMRESET (Gen2)", "receive line signal", "COMINIT detected",
             "PHY state HP4_HR_COMWAKE (Gen2)", "COMWAKE detected",
             "PHY state HP7_HR_SendAlign (Gen2)", "link up"]
    at = [texts.index(s) for s in steps]
    assert at == sorted(at), texts
    # the line's bursts and gaps make one event each way, not one per burst
    assert 1 <= texts.count("receive line signal") <= 2 * texts.count("PHY state HP1_HR_COMRESET (Gen2)")
    times = [e["time_cycles"] for e in log["events"]]
    assert times == sorted(times) and log["lost"] == 0 and log["depth"] == 256
    assert all(line in out for line in steps) and "events: cleared" in out
    assert after.startswith("events: 0 since the clear")
    assert our_processes() == []


def test_the_cli_prints_the_last_events_when_the_link_does_not_come_up(sim_built, tmp_path,
                                                                      capsys):
    """As the console after a failure: every bit the drive sends is noise (bit error rate 0.5:
    its OOB bursts come through, its ALIGN never does), `single` gives up on the link, and the
    last events follow the error without being asked for, in the JSON error record too."""
    with SimBoard(server_port=free_port(),
                  vdrive=vdrive(tmp_path, "ber_d2h=0.5")) as board:
        rc = cli.main(["--port", str(board.server_port), "--csr-csv",
                       os.path.join(board.build_dir, "csr.csv"), "--timeout", "10", "single",
                       "--sectors", "16", "--json", str(tmp_path / "i.json")])
        out, err = capsys.readouterr()
    assert rc == 2, out + err
    failed = err.index("error: SATA link down after 10 s")
    listing = err.index("the link's last 12 events", failed)
    shown = events(err[listing:])
    assert len(shown) == 12 and "COMWAKE detected" in err[listing:], err
    assert "link up" not in err[listing:], err
    logged = json.load(open(tmp_path / "i.json"))["error"]["link_events"]
    assert [e["text"] for e in logged] == [what for _, what in shown]
    assert our_processes() == []
