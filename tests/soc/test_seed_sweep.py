# SPDX-License-Identifier: BSD-2-Clause
"""The seed sweep's table judges each clock against the frequency it runs at: sys is placed
against 10 % more (ecpsata/soc/builder.py PLACEMENT_MARGIN), and a sweep must not demand 10 %
above that target."""

from ecpsata.checks import seed_sweep


def _log(sys_mhz, rx_mhz=190.0):
    return (f"Warning: Max frequency for clock '$glbnet$sys_clk': {sys_mhz:.2f} MHz "
            f"({'PASS' if sys_mhz >= 82.5 else 'FAIL'} at 82.50 MHz)\n"
            f"Info: Max frequency for clock '$glbnet$rx_clk': {rx_mhz:.2f} MHz (PASS at 150.00 MHz)\n")


def _sweep(tmp_path, logs):
    gw = tmp_path / "gateware"
    gw.mkdir()
    (gw / "design_clocks.json").write_text('{"sys_clk": 75.0}')
    for name, text in logs.items():
        (gw / name).write_text(text)
    return str(tmp_path)


def test_report_judges_sys_against_its_running_frequency(tmp_path, capsys):
    d = _sweep(tmp_path, {"build.log": _log(82.6), "seed2.log": _log(83.0), "seed3.log": _log(90.0)})
    assert seed_sweep.main(["ecpix5", "--build-dir", d, "--report"]) == 0
    out = capsys.readouterr().out
    assert "| seed | sata_rx (150) | sys (75) |" in out, out
    assert "| 1 | 190.00 | 82.60 |" in out and "+10.1 %" in out, out
    assert "every seed meets the 10 % margin" in out


def test_report_names_short_and_stalled_seeds(tmp_path, capsys):
    d = _sweep(tmp_path, {"build.log": _log(82.4), "seed2.log": "Info: routing...\n",
                          "seed3.log": _log(85.0, rx_mhz=160.0)})
    assert seed_sweep.main(["ecpix5", "--build-dir", d, "--report"]) == 1
    out = capsys.readouterr().out
    assert "| 1 | 190.00 | 82.40 (!) |" in out, out
    assert "| 2 | router stalled | router stalled |" in out
    assert "below the 10 % margin: seed 1 sys, seed 3 sata_rx" in out, out


def test_a_stalled_seed_is_not_reported_as_routed(tmp_path, capsys, monkeypatch):
    d = _sweep(tmp_path, {})
    monkeypatch.setattr(seed_sweep, "place_seed", lambda gw, seed, env: (seed, None, 90.0))
    assert seed_sweep.main(["ecpix5", "--build-dir", d, "--seeds", "2,3", "--reuse"]) == 1
    out = capsys.readouterr().out
    assert "seed 2: router stalled, stopped after 90 s" in out, out
    assert "placed and routed" not in out and "router stalled: seeds 2, 3" in out, out


def test_options_it_does_not_know_go_to_the_board_s_build(tmp_path, monkeypatch):
    """`make sweep BOARD=ecpix5 BUILD_ARGS=--with-frame-check`: the first seed's full build gets
    the board's option (a failed build here: only the command line is looked at)."""
    import subprocess

    import pytest
    runs = []
    monkeypatch.setattr(seed_sweep.subprocess, "run",
                        lambda cmd, **kw: (runs.append(cmd), subprocess.CompletedProcess(cmd, 1))[1])
    with pytest.raises(SystemExit, match="build with seed 1 failed"):
        seed_sweep.main(["ecpix5", "--build-dir", str(tmp_path), "--with-frame-check"])
    assert len(runs) == 1 and runs[0][-1] == "--with-frame-check" and "ecpsata.soc.build" in runs[0]
