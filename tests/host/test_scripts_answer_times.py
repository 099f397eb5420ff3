# SPDX-License-Identifier: BSD-2-Clause
"""scripts/answer_times.py compares a run's answer times, as the virtual drive measured them,
with the drive's zero-latency test host."""

import json
import re
import subprocess
import sys

from ecpsata.paths import ROOT as REPO
from scripts.answer_times import ANSWERS, table

KEYS = [k for k, _ in ANSWERS]


def _stats(means_ns, counts, commands, **extra):
    s = {"cmd_fpdma_read": commands, "cmd_fpdma_write": 0, "xrdy_collisions": 0,
         "line_idle_dwords": 0, **extra}
    for k in KEYS:
        s[f"host_{k}_n"] = counts.get(k, 0)
        s[f"host_{k}_ps"] = int(means_ns.get(k, 0) * 1000 * counts.get(k, 0))
    return s


def test_the_cost_per_command_is_the_count_per_command_times_the_difference():
    ref = _stats({"r_rdy": 40, "rok_sdb": 41, "sof": 40}, {"r_rdy": 35, "rok_sdb": 5, "sof": 10},
                 10)
    run = _stats({"r_rdy": 80, "rok_sdb": 181, "sof": 40}, {"r_rdy": 35, "rok_sdb": 5, "sof": 10},
                 10)
    rows = {r[0]: r for r in table(run, ref)}
    assert rows["r_rdy"][2:6] == (35, 80.0, 35, 40.0)
    assert rows["r_rdy"][6] == 3.5 * 40            # 3.5 per command, 40 ns more each
    assert rows["rok_sdb"][6] == 0.5 * 140
    assert rows["sof"][6] == 0.0
    assert rows["rok_other"][3] is None and rows["rok_other"][6] is None   # no such frame


def test_a_board_run_against_the_zero_latency_host(tmp_path):
    """Against itself the zero-latency test host costs nothing; against a run whose answers are
    slower the table says by how much per command (the test host's run, built by make)."""
    ref = tmp_path / "ref.json"
    p = subprocess.run(["make", "-s", "-C", "ecpsata/sim/vdrive", "build/answer_times"],
                       cwd=REPO, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    p = subprocess.run(["ecpsata/sim/vdrive/build/answer_times", str(ref), "8", "64"], cwd=REPO,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    stats = json.loads(ref.read_text())
    assert stats["host_rok_data_n"] == 64 and stats["host_sof_n"] == 64
    slow = dict(stats, host_rok_data_ps=stats["host_rok_data_ps"] + 64 * 100_000)
    (tmp_path / "slow.json").write_text(json.dumps(slow))
    out = tmp_path / "t.json"
    p = subprocess.run([sys.executable, "scripts/answer_times.py", str(tmp_path / "slow.json"),
                        "--against", str(ref), "--json", str(out)], cwd=REPO,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    row = re.search(r"^R_OK after a Data FIS\s+64\s+([\d.]+)\s+64\s+([\d.]+)\s+([\d.]+)$",
                    p.stdout, re.M)
    assert row, p.stdout
    assert abs(float(row[1]) - float(row[2]) - 100.0) < 0.1 and float(row[3]) == 100.0
    t = json.loads(out.read_text())
    assert abs(t["sum_ns_per_command"] - 100.0) < 0.1


def test_stats_without_answer_times_are_refused_by_name(tmp_path):
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"persona": "ideal", "cmd_fpdma_read": 1}))
    p = subprocess.run([sys.executable, "scripts/answer_times.py", str(old), "--against",
                        str(old)], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and "has no answer times" in p.stderr and "old.json" in p.stderr


def test_a_run_with_many_non_queued_commands_is_named(tmp_path):
    """A run that holds more non-queued commands than the IDENTIFY it starts with: its counts
    include their answers, and the table says so."""
    ref = _stats({"r_rdy": 40}, {"r_rdy": 35}, 10)
    mixed = _stats({"r_rdy": 40}, {"r_rdy": 35}, 10, cmd_identify=1, cmd_read_dma_ext=400)
    for name, s in (("ref.json", ref), ("mixed.json", mixed)):
        (tmp_path / name).write_text(json.dumps(s))
    p = subprocess.run([sys.executable, "scripts/answer_times.py", str(tmp_path / "mixed.json"),
                        "--against", str(tmp_path / "ref.json")], cwd=REPO, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    notes = [l for l in p.stdout.splitlines() if l.startswith("note:")]
    assert len(notes) == 1 and "mixed.json holds 401 non-queued commands" in notes[0]
