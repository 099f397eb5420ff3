# SPDX-License-Identifier: BSD-2-Clause
"""The ECPIX-5 itself, simulated (ecpsata/soc/targets/ecpix5_sim.py): the board's SoC with its DCU wrapper on the
behavioural DCUA model, facing the virtual drive, reached over the board UART's bridge. The
wrapper's reset sequencing, SCI writes, clock meters and word clocks run here as on the board."""

import json
import os
import re
import subprocess

import pytest

from ecpsata.host import cli
from ecpsata.host.simboard import SimBoard
from ecpsata.host.target import Target
from ecpsata.phy.ecp5.settings import SCAN_SETS
from tests.system.test_sim_field import run
from tests.system.test_sim_sata import vdrive
from tests.system.test_sim_system import REPO, free_port

# The simulated SoC in Verilator (build/sim, build/ecpix5_sim): `pytest -m "not system"` leaves these out.
pytestmark = pytest.mark.system


@pytest.fixture(scope="session")
def ecpix5_sim_built():
    subprocess.run(["make", "-s", "--no-print-directory", "build/ecpix5_sim/.built"], cwd=REPO,
                   check=True)


def console_output(board):
    """What the firmware has written to its console (the crossover UART, read through the bridge)."""
    with Target(port=board.server_port, csr_csv=os.path.join(board.build_dir, "csr.csv"),
                timeout=30.0) as t:
        out, idle = bytearray(), 0
        while len(out) < 4096 and idle < 20:    # the CPU refills the 16-byte FIFO between reads
            if t.reg("uart_xover_rxempty").read():
                idle += 1
            else:
                out.append(t.reg("uart_xover_rxtx").read())
                idle = 0
        return out.decode(errors="replace")


def console_command(t, line, timeout=60.0):
    """Type `line` on the firmware's console (the crossover UART, through the bridge) and return
    what it prints up to its next prompt."""
    import time
    for c in (line + "\r").encode():
        while t.reg("uart_xover_txfull").read():
            pass
        t.reg("uart_xover_rxtx").write(c)
    out, deadline = bytearray(), time.monotonic() + timeout
    while not out.rstrip().endswith(b"ecpsata>"):
        assert time.monotonic() < deadline, out.decode(errors="replace")
        if not t.reg("uart_xover_rxempty").read():
            out.append(t.reg("uart_xover_rxtx").read())
    return out.decode(errors="replace")


def test_identify_and_a_1_mib_verify_through_the_dcu_wrapper(ecpix5_sim_built, tmp_path, capsys):
    with SimBoard(board="ecpix5_sim", server_port=free_port(), vdrive=vdrive(tmp_path)) as board:
        # The CPU starts from a reset at power-up and runs the firmware: its banner is waiting.
        assert "ecpsata firmware" in console_output(board)
        rc, out, err = run(board, capsys, "info", "--json")
        assert rc == 0, out + err
        info = json.loads(out)
        assert (info["board"], info["sys_clk_hz"]) == ("ecpix5_sim", 75000000)
        rc, out, err = run(board, capsys, "identify", "--json")
        assert rc == 0, out + err
        link = json.loads(out)["link"]
        # the TX PLL and the CDR lock (the model's 5 us and 3 us) come before OOB
        assert (link["ready"], link["gen"], link["retries"]) == (True, 2, 0)
        assert 10 < link["time_to_link_us"] < 873.8
        rc, out, err = run(board, capsys, "verify", "--allow-write", "--range", "0:2048",
                           "--json", str(tmp_path / "v.json"))
        assert rc == 0, out + err
        row, = json.load(open(tmp_path / "v.json"))["rows"]
        assert (row["failed_commands"], row["bad_sectors"], row["result"]) == (0, 0, "PASS")


def test_a_field_drive_links_at_gen2_through_the_dcu_wrapper(ecpix5_sim_built, tmp_path, capsys):
    """`field=1,max_gen=3` (echo, ALIGN dwell, swapped TX pair, the drive 350 ppm fast with SSC
    on its own clock, which the wrapper's receiver runs on, CONT, Gen3 first)."""
    with SimBoard(board="ecpix5_sim", server_port=free_port(),
                  vdrive=vdrive(tmp_path, "field=1,max_gen=3")) as board:
        rc, out, err = run(board, capsys, "identify", "--json")
        assert rc == 0, out + err
        link = json.loads(out)["link"]
        assert (link["ready"], link["gen"], link["retries"]) == (True, 2, 1)
        rc, out, err = run(board, capsys, "verify", "--allow-write", "--range", "0:2048",
                           "--json", str(tmp_path / "v.json"))
        assert rc == 0, out + err
        row, = json.load(open(tmp_path / "v.json"))["rows"]
        assert (row["failed_commands"], row["bad_sectors"], row["result"]) == (0, 0, "PASS")


def namespaces():
    from ecpsata.host import netns
    return {n for n in netns.namespaces() if n.startswith(netns.PREFIX)}


def test_info_and_a_benchmark_over_etherbone_in_a_namespace_removed_afterwards(ecpix5_sim_built,
                                                                               tmp_path):
    """Etherbone as a user runs it (make bench BOARD=ecpix5 BRIDGE=sim): litex_server over UDP
    to the board's MAC/IP/UDP layers in their 50 MHz domain. At 8 bits wide they cut every frame
    into pieces (the tap refused them, litex_server timed out); 32 bits wide they keep up."""
    before = namespaces()
    py = os.path.join(REPO, ".venv", "bin", "python")
    out = tmp_path / "single.json"
    cli_cmd = f"{py} -m ecpsata --port {{port}} --csr-csv {{csr_csv}} --timeout 120"
    p = subprocess.run(
        [py, "-m", "ecpsata.host.netns", "--", py, "-m", "ecpsata.host.simboard", "--board", "ecpix5_sim",
         "--bridge", "etherbone", "--server-port", "0", "--", "bash", "-c",
         f"set -e; {cli_cmd} info; {cli_cmd} single --sectors 2048 --json {out}; "
         f"{cli_cmd} cpu --count 16 --json {tmp_path / 'cpu.json'}; "
         f"{cli_cmd} verify --buffer --allow-write --range 64:40 --json {tmp_path / 'verify.json'}"],
        cwd=REPO, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "board      ecpix5_sim" in p.stdout and "etherbone" in p.stdout
    row, = json.load(open(out))["rows"]
    assert row["sectors"] == 2048 and 285 < row["mbps"] < 296
    # the sector buffer read through the bridge in 128-word bursts (16 words fitted the SoC's
    # Etherbone buffer before: a longer record got no answer)
    bridge = [r for r in json.load(open(tmp_path / "cpu.json"))["rows"] if "bridge" in r["path"]]
    assert len(bridge) == 1 and bridge[0]["bytes"] == 16 * 512 and bridge[0]["mbps"] > 0
    # every word of the sector buffer back through the batched read requests, in its place
    # (16, 16 and 8 sectors: requests of 255 words and a shorter last one)
    v = json.load(open(tmp_path / "verify.json"))
    assert v["sectors"] == 40 and v["bad_sectors"] == 0 and v["bad_dwords"] == 0
    assert namespaces() == before


def test_the_namespace_goes_when_its_command_fails_or_is_stopped():
    import signal
    import time
    py = os.path.join(REPO, ".venv", "bin", "python")
    before = namespaces()
    p = subprocess.run([py, "-m", "ecpsata.host.netns", "--", "false"], cwd=REPO, timeout=60)
    assert p.returncode == 1 and namespaces() == before
    proc = subprocess.Popen([py, "-m", "ecpsata.host.netns", "--", "sleep", "60"], cwd=REPO)
    deadline = time.monotonic() + 20
    while namespaces() == before:
        assert time.monotonic() < deadline, "no namespace made"
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 130
    assert namespaces() == before


def test_etherbone_outside_a_namespace_of_ours_is_refused(monkeypatch):
    from ecpsata.host import netns
    from ecpsata.host.simboard import SimBoardError
    monkeypatch.delenv(netns.ENV, raising=False)
    with pytest.raises(SimBoardError, match="network namespace of its own"):
        SimBoard(board="ecpix5_sim", bridge="etherbone")
    with pytest.raises(SimBoardError, match="only the simulated ECPIX-5"):
        SimBoard(board="sim", bridge="etherbone")


def test_the_hosts_bursts_fit_the_socs_etherbone_buffer():
    """A record longer than the SoC's Etherbone buffer gets no answer at all: writes go as one
    record; reads as one client record, which the server splits (ecpsata/host/server.py)."""
    from ecpsata.host.sata import READ_BURST_WORDS, WRITE_BURST_WORDS
    from ecpsata.host.server import CLIENT_WORDS, chunks
    from ecpsata.soc.builder import ETHERBONE_BUFFER_WORDS
    assert WRITE_BURST_WORDS <= ETHERBONE_BUFFER_WORDS <= 255
    assert READ_BURST_WORDS <= CLIENT_WORDS
    assert max(n for _, n in chunks(READ_BURST_WORDS)) <= ETHERBONE_BUFFER_WORDS


def test_phy_settings_reach_the_dcua_model_and_its_loopback_takes_the_link(ecpix5_sim_built,
                                                                            tmp_path, capsys):
    """`ecpsata phy` on the board's SoC: the SerDes flags and word clocks from the wrapper's clock
    meters, a raw SCI write read back from the DCUA model's register, and lb_ctl = 1 set at run
    time: the model's receiver takes our own line, the link does not come back until it is 0; a
    weak RX pair links only with the lower loss-of-signal threshold that `phy scan` finds."""
    import time
    with SimBoard(board="ecpix5_sim", server_port=free_port(), vdrive=vdrive(tmp_path)) as board:
        rc, out, err = run(board, capsys, "identify")
        assert rc == 0, out + err
        rc, out, err = run(board, capsys, "phy", "--json", str(tmp_path / "phy.json"))
        assert rc == 0, out + err
        doc = json.load(open(tmp_path / "phy.json"))
        s = doc["serdes"]
        assert (s["tx_pll_locked"], s["tx_ready"], s["rx_cdr_locked"], s["rx_ready"],
                s["rx_los"], s["half_rate"], s["rate_pins"]) == (1, 1, 1, 1, 0, 0, 0)
        # Gen2: 3 Gb/s in 20-bit words
        assert s["tx_clock_mhz"] == pytest.approx(150, rel=0.02), s
        assert s["rx_clock_mhz"] == pytest.approx(150, rel=0.02), s
        got = {r["name"]: r["value"] for r in doc["settings"]}
        assert (got["gen"], got["tx_polarity"], got["lb_ctl"], got["cdr_hold"]) == \
            ("auto", "auto", "off", "0"), got
        # the build's TX slice 2, RX termination, equaliser, LOS level and CDR lock window,
        # where TN1261's register map places them and the model keeps them
        assert (got["tx_swing"], got["tx_slice2"], got["rx_term"]) == ("600", "main", "50ohm"), got
        assert (got["rx_eq"], got["rx_eq_pole"], got["rx_eq_level"], got["los_lvl"],
                got["cdr_lol"]) == ("on", "10", "9db", "2", "4000ppm"), got
        rc, out, err = run(board, capsys, "phy", "--sci", "0x22=0x5a", "--sci", "0x23")
        assert rc == 0 and "register 0x22: wrote 0x5a, reads 0x5a" in out, out + err
        assert "register 0x23: reads 0x00" in out, out
        # the named DCU settings land in the model's registers, the other bits kept
        rc, out, err = run(board, capsys, "phy", "--set", "tx_slice2=post", "--set", "rx_term=luna",
                           "--sci", "0x12", "--sci", "0x17")
        assert rc == 0 and "register 0x12: reads 0x71" in out, out + err
        assert "register 0x17: reads 0x16" in out, out
        rc, out, err = run(board, capsys, "phy", "--set", "tx_slice2=main", "--set", "rx_term=50ohm")
        assert rc == 0 and "tx_slice2    main " in out and "rx_term      50ohm " in out, out + err
        rc, out, err = run(board, capsys, "phy", "--set", "rx_eq_level=12db", "--set", "los_lvl=5",
                           "--sci", "0x19", "--sci", "0x1b")
        assert rc == 0 and "register 0x19: reads 0x55" in out, out + err
        assert "register 0x1b: reads 0x1d" in out, out
        rc, out, err = run(board, capsys, "phy", "--set", "cdr_lol=300ppm", "--aux",
                           "--sci", "0x0c")
        assert rc == 0 and "SCI dual register 0x0c: reads 0x03" in out, out + err
        rc, out, err = run(board, capsys, "phy", "--set", "rx_eq_level=9db", "--set", "los_lvl=2",
                           "--set", "cdr_lol=4000ppm")
        assert rc == 0 and "rx_eq_level  9db " in out and "cdr_lol      4000ppm " in out, out + err
        # electrical idle in COMRESET's gaps, slower pacing, the RX polarity forced: still links
        rc, out, err = run(board, capsys, "phy", "--set", "oob_gaps=ei-comreset", "--set",
                           "pacing=20ms", "--set", "rx_polarity=normal", "--restart")
        assert rc == 0, out + err
        rc, out, err = run(board, capsys, "identify", "--json")
        assert rc == 0 and json.loads(out)["link"]["ready"] is True, out + err
        rc, out, err = run(board, capsys, "phy", "--set", "oob_gaps=zero-words", "--set",
                           "pacing=10ms", "--set", "rx_polarity=auto")
        assert rc == 0, out + err

        rc, out, err = run(board, capsys, "phy", "--set", "lb_ctl=1", "--restart")
        assert rc == 0 and "lb_ctl = 1" in out and "link restarted" in out, out + err
        assert "lb_ctl       t2r " in out, out
        before = None
        deadline = time.monotonic() + 300
        while True:                                  # attempts that fail, one after the other
            rc, out, err = run(board, capsys, "status", "--json")
            st = json.loads(out)
            before = st["retries"] if before is None else before
            if st["retries"] >= before + 3:
                break
            assert time.monotonic() < deadline, st
            time.sleep(0.5)
        assert st["ready"] is False, st

        rc, out, err = run(board, capsys, "phy", "--set", "lb_ctl=off", "--restart")
        assert rc == 0, out + err
        rc, out, err = run(board, capsys, "identify", "--json")
        assert rc == 0, out + err
        assert json.loads(out)["link"]["ready"] is True

        # A weak RX pair (the model's level 1): the build's loss-of-signal threshold (los_lvl 2)
        # never sees the drive's COMINIT; a scan over two thresholds links with the lower one,
        # whichever order they come in, and leaves it applied.
        with Target(port=board.server_port, csr_csv=os.path.join(board.build_dir, "csr.csv"),
                    timeout=30.0) as t:
            t.reg("dcua_line_level").write(1)
        sets = tmp_path / "los.json"
        sets.write_text(json.dumps([{"name": "lower threshold", "settings": {"los_lvl": "1"}},
                                    {"name": "the build's", "settings": {"pacing": "10ms"}}]))
        rc, out, err = run(board, capsys, "phy", "scan", "--sets", str(sets), "--sectors", "8",
                           "--json", str(tmp_path / "los-scan.json"))
        assert rc == 0, out + err
        doc = json.load(open(tmp_path / "los-scan.json"))
        rows = {r["name"]: r for r in doc["rows"]}
        assert rows["lower threshold"]["linked"] and rows["lower threshold"]["sectors_read"] == 8
        assert not rows["the build's"]["linked"], rows   # los_lvl back to 2 for this set
        assert doc["applied"] == "lower threshold", doc
        rc, out, err = run(board, capsys, "phy", "--json", str(tmp_path / "phy.json"))
        got = {r["name"]: r["value"] for r in json.load(open(tmp_path / "phy.json"))["settings"]}
        assert got["los_lvl"] == "1", got


def test_gen1_through_the_dividers_set_at_run_time_on_the_boards_soc(ecpix5_sim_built, tmp_path,
                                                                    capsys):
    """The Gen1 method changed without a rebuild: /2 written into the DCUA model's TX and CDR
    divider registers through the SCI, the half-rate pins left at full rate, and the link up at
    Gen1 with a 75 MHz word clock; refused without gen=gen1, on the host and on the console; back
    to the pins and Gen2 afterwards."""
    import time

    def serdes():
        rc, out, err = run(board, capsys, "phy", "--json", str(tmp_path / "phy.json"))
        assert rc == 0, out + err
        doc = json.load(open(tmp_path / "phy.json"))
        return doc["serdes"], {r["name"]: r["value"] for r in doc["settings"]}

    def linked(gen):
        deadline = time.monotonic() + 300
        while True:
            rc, out, err = run(board, capsys, "status", "--json")
            st = json.loads(out)
            if st["ready"]:
                assert st["gen"] == gen, st
                return
            assert time.monotonic() < deadline, st
            time.sleep(0.5)

    with SimBoard(board="ecpix5_sim", server_port=free_port(), vdrive=vdrive(tmp_path)) as board:
        rc, out, err = run(board, capsys, "identify")
        assert rc == 0, out + err
        rc, out, err = run(board, capsys, "phy", "--set", "gen1_method=dividers")
        assert rc == 2 and "gen1_method=dividers with gen=auto" in err, out + err
        s, got = serdes()
        assert (got["gen1_method"], got["tx_vco_div"], got["rx_dco_div"]) == ("pins", "/1", "/1")

        rc, out, err = run(board, capsys, "phy", "--set", "gen=gen1", "--set",
                           "gen1_method=dividers", "--restart", "--aux", "--sci", "0x0d")
        assert rc == 0 and "SCI dual register 0x0d: reads 0x02" in out, out + err
        linked(1)
        rc, out, err = run(board, capsys, "identify", "--json")
        assert rc == 0 and json.loads(out)["link"]["gen"] == 1, out + err
        s, got = serdes()
        assert (got["gen1_method"], got["tx_vco_div"], got["rx_dco_div"]) == \
            ("dividers", "/2", "/2"), got
        assert (s["half_rate"], s["rate_pins"], s["tx_ready"], s["rx_ready"]) == (1, 0, 1, 1), s
        assert s["tx_clock_mhz"] == pytest.approx(75, rel=0.02), s
        assert s["rx_clock_mhz"] == pytest.approx(75, rel=0.02), s

        rc, out, err = run(board, capsys, "selftest")          # Gen2 and Gen1: refused
        assert rc == 2 and "gen1_method is dividers" in err and "nothing run" in err, out + err
        assert "ecpsata firmware" in console_output(board)      # the banner, before the prompt
        with Target(port=board.server_port, csr_csv=os.path.join(board.build_dir, "csr.csv"),
                    timeout=30.0) as t:
            assert "gen1_method pins first: nothing run" in console_command(t, "selftest")
            out = console_command(t, "phy")
            assert "half_rate 1  rate_pins 0" in out and "gen1_method  dividers" in out, out
            assert "tx 75.00 MHz" in out, out
            assert "set gen1_method pins first: nothing sent" in console_command(t, "phy set gen auto")
            assert "gen1_method = pins" in console_command(t, "phy set gen1_method pins")
            assert "gen = auto" in console_command(t, "phy set gen auto")
            assert "set gen gen1 first: nothing sent" in \
                console_command(t, "phy set gen1_method dividers")
        rc, out, err = run(board, capsys, "phy", "--restart")
        assert rc == 0, out + err
        linked(2)
        s, got = serdes()
        assert (got["gen1_method"], got["tx_vco_div"], got["gen"]) == ("pins", "/1", "auto"), got
        assert (s["half_rate"], s["rate_pins"]) == (0, 0) and \
            s["tx_clock_mhz"] == pytest.approx(150, rel=0.02), s


def test_the_consoles_phy_command_on_the_boards_soc(ecpix5_sim_built, tmp_path):
    """`phy` on the firmware's console: the SerDes flags and word clocks, a setting written
    through the SCI and read back raw, and bad input refused before anything is sent."""
    with SimBoard(board="ecpix5_sim", server_port=free_port(), vdrive=vdrive(tmp_path)) as board:
        assert "ecpsata firmware" in console_output(board)
        with Target(port=board.server_port, csr_csv=os.path.join(board.build_dir, "csr.csv"),
                    timeout=30.0) as t:
            out = console_command(t, "phy")
            assert "tx_pll_locked 1  tx_ready 1  rx_cdr_locked 1  rx_ready 1  rx_los 0" in out, out
            assert "word clocks (clock meters): tx 150.00 MHz, rx 150.00 MHz" in out, out
            assert "gen          auto" in out and "lb_ctl       0 " in out, out
            assert "phy: lb_ctl = 1" in console_command(t, "phy set lb_ctl 1")
            assert "SCI channel register 0x15: reads 0x01" in console_command(t, "phy sci 0x15")
            assert "lb_ctl       1 " in console_command(t, "phy")
            assert "'gen3' is not a value of gen" in console_command(t, "phy set gen gen3")
            assert "nothing sent" in console_command(t, "phy sci 0x40 1")
            assert "SCI channel register 0x22: reads 0x5a" in console_command(t, "phy sci 0x22 0x5a")
            assert "tx_swing     600 " in console_command(t, "phy")
            assert "phy: tx_slice2 = 3" in console_command(t, "phy set tx_slice2 3")
            assert "SCI channel register 0x12: reads 0x71" in console_command(t, "phy sci 0x12")
            assert "tx_swing     custom " in console_command(t, "phy")
            assert "phy: tx_swing = 800" in console_command(t, "phy set tx_swing 800")
            assert "SCI channel register 0x13: reads 0x71" in console_command(t, "phy sci 0x13")
            assert "tx_swing     800 " in console_command(t, "phy")
            assert "tx_swing takes 600 800 1000 (mV nominal): nothing sent" in \
                console_command(t, "phy set tx_swing 700")
            assert "tx_slice2 takes 0..3: nothing sent" in console_command(t, "phy set tx_slice2 4")
            assert "COMRESET interval x4" in console_command(t, "phy set pacing 2")
            assert "oob_gaps = ei-comreset" in console_command(t, "phy set oob_gaps ei-comreset")
            assert "rx_polarity = inverted" in console_command(t, "phy set rx_polarity inverted")
            out = console_command(t, "phy")
            assert "rx_polarity  inverted" in out and "pacing       2 (COMRESET interval x4)" in out
            assert "oob_gaps     ei-comreset" in out, out
            assert "'x' is not a value of pacing" in console_command(t, "phy set pacing x")


def test_selftest_passes_in_the_dcu_loopback_and_names_each_dcua_fault(ecpix5_sim_built, tmp_path,
                                                                       capsys):
    """`ecpsata selftest` on the board's SoC: PRBS31 through the whole PHY in the DCUA model's
    loopback (lb_ctl = 1) at Gen2 and Gen1, every figure from the gateware's counters; each of
    the model's faults gives its own reason; lb_ctl and the link are back afterwards; the
    console's `selftest` agrees."""
    from ecpsata.phy.ecp5.dcua_model import FAULTS
    with SimBoard(board="ecpix5_sim", server_port=free_port(), vdrive=vdrive(tmp_path)) as board:
        rc, out, err = run(board, capsys, "selftest", "--json", str(tmp_path / "st.json"))
        assert rc == 0, out + err
        doc = json.load(open(tmp_path / "st.json"))
        assert (doc["kind"], doc["mode"], doc["verdict"]) == ("selftest", "near-end", "PASS")
        assert [r["gen"] for r in doc["runs"]] == [2, 1]
        for r, mhz in zip(doc["runs"], (150, 75)):
            assert (r["tx_pll_locked"], r["rx_cdr_locked"], r["loopback"]) == (1, 1, "t2r"), r
            assert r["lb_register"] & 0xF == 1, r
            assert r["tx_clock_mhz"] == pytest.approx(mhz, rel=0.02), r
            assert r["rx_clock_mhz"] == pytest.approx(mhz, rel=0.02), r
            # 2 ms at the dword rate (75 or 37.5 MHz), less the ALIGN pairs
            assert 0.97 * mhz / 2 * 1e6 * 2e-3 < r["dwords"] <= mhz / 2 * 1e6 * 2e-3, r
            assert (r["dword_errors"], r["bit_errors"], r["code_errors"], r["disp_errors"],
                    r["sync_losses"], r["aligns_inverted"]) == (0, 0, 0, 0, 0, 0), r
            assert r["aligns"] > 0 and 0 < r["lock_time_us"] < 500, r  # Gen1: the DCU restarts
            assert r["ber_bound"] == pytest.approx(2.996 / r["bits"], rel=1e-3)
        assert "selftest: PASS" in out and "BER < " in out, out

        reasons = {
            "pll_never_locks": "TX PLL not locked",
            "cdr_never_locks": "CDR not locked",
            "stuck_bit":       "code and",
            "rx_pair_swapped": "polarity is swapped",
        }
        csr = os.path.join(board.build_dir, "csr.csv")
        for name, reason in reasons.items():
            with Target(port=board.server_port, csr_csv=csr, timeout=30.0) as t:
                t.reg("dcua_line_faults").write(1 << FAULTS[name])
            rc, out, err = run(board, capsys, "selftest", "--gen", "2", "--json",
                               str(tmp_path / f"{name}.json"))
            run_, = json.load(open(tmp_path / f"{name}.json"))["runs"]
            assert rc == 1 and run_["verdict"] == "FAIL" and reason in run_["reason"], (name, out)
            for other, text in reasons.items():
                assert other == name or text not in run_["reason"], (name, run_["reason"])
            with Target(port=board.server_port, csr_csv=csr, timeout=30.0) as t:
                t.reg("dcua_line_faults").write(0)

        # lb_ctl restored, the link back with the drive.
        rc, out, err = run(board, capsys, "phy", "--json", str(tmp_path / "phy.json"))
        got = {r["name"]: r["value"] for r in json.load(open(tmp_path / "phy.json"))["settings"]}
        assert got["lb_ctl"] == "off", got
        rc, out, err = run(board, capsys, "identify", "--json")
        assert rc == 0 and json.loads(out)["link"]["ready"] is True, out + err

        assert "ecpsata firmware" in console_output(board)
        with Target(port=board.server_port, csr_csv=csr, timeout=30.0) as t:
            out = console_command(t, "selftest", timeout=120)
            assert "Gen2: PASS: 0 errors in" in out and "Gen1: PASS" in out, out
            assert "selftest: PASS" in out and "BER < " in out and "e-" in out, out
            assert "nothing run" in console_command(t, "selftest 0")
            out = console_command(t, "selftest 1 t2r", timeout=120)
            assert "near-end loopback inside the DCU (t2r)" in out and "selftest: PASS" in out, out


def test_phy_scan_ranks_the_sets_against_a_drive_that_needs_the_other_tx_polarity(
        ecpix5_sim_built, tmp_path, capsys):
    """`ecpsata phy scan` with a virtual drive whose receiver is wired inverted and never adapts
    (tx_polarity=1, auto_polarity=0): the sets that force the normal TX polarity do not link, the
    inverted ones and the defaults (which flip it) do; the best set is applied and the link is up
    with it; a sets file is read and checked. The console's `phy scan` ranks the same list the
    same way and applies the same set."""
    cfg = vdrive(tmp_path, "tx_polarity=1,auto_polarity=0")
    with SimBoard(board="ecpix5_sim", server_port=free_port(), vdrive=cfg) as board:
        rc, out, err = run(board, capsys, "phy", "scan", "--json", str(tmp_path / "scan.json"))
        assert rc == 0, out + err
        doc = json.load(open(tmp_path / "scan.json"))
        rows = {r["name"]: r for r in doc["rows"]}
        assert [r["linked"] for r in doc["rows"]] == sorted((r["linked"] for r in doc["rows"]),
                                                            reverse=True)
        for name in ("gen2 normal", "gen1 normal"):
            assert not rows[name]["linked"] and rows[name]["retries"] >= 1, rows[name]
        for name, gen in (("gen2 inverted", 2), ("gen1 inverted", 1), ("defaults", 2)):
            r = rows[name]
            assert (r["linked"], r["gen"], r["sectors_read"], r["errors"]) == (True, gen, 64, 0), r
        assert doc["applied"] == doc["rows"][0]["name"] == "gen2 inverted", doc["rows"][0]
        assert "applied gen2 inverted" in out, out
        rc, out, err = run(board, capsys, "phy", "--json", str(tmp_path / "phy.json"))
        got = {r["name"]: r["value"] for r in json.load(open(tmp_path / "phy.json"))["settings"]}
        assert (got["gen"], got["tx_polarity"]) == ("gen2", "inverted"), got
        rc, out, err = run(board, capsys, "identify", "--json")
        assert rc == 0 and json.loads(out)["link"]["ready"] is True, out + err

        sets = tmp_path / "sets.json"
        sets.write_text(json.dumps([{"name": "only normal",
                                     "settings": {"gen": "gen1", "tx_polarity": "normal"}}]))
        rc, out, err = run(board, capsys, "phy", "scan", "--sets", str(sets))
        assert rc == 1 and "no set linked" in out, out + err

        # The console's scan, from the settings the failed scan left (gen1, normal TX polarity).
        assert "ecpsata firmware" in console_output(board)
        with Target(port=board.server_port, csr_csv=os.path.join(board.build_dir, "csr.csv"),
                    timeout=30.0) as t:
            assert "the window is 1..60000 ms" in console_command(t, "phy scan 0")
            assert "window (ms) 'x' is not a number" in console_command(t, "phy scan x")
            out = console_command(t, "phy scan", timeout=300)
            assert "phy scan: 5 sets, up to 50 ms of the target's time each" in out, out
            row = re.compile(r"^ +(\d+) +(\S+(?: \S+)?) +(yes|no) +(Gen\d|-) +(\d+ us|-) +(\d+) +(\d+)"
                             r" +(\d+) +(\d+) +(\d+) +(\d+) +(\d+)$")
            keys = ("rank", "set", "linked", "gen", "time", "retries", "sectors",
                    "code", "disp", "CRC", "R_ERR", "escapes")
            rows = {m[2]: dict(zip(keys, m.groups())) for m in map(row.match, out.splitlines()) if m}
            assert set(rows) == {s["name"] for s in SCAN_SETS}, out
            for name in ("gen2 normal", "gen1 normal"):
                r = rows[name]
                assert (r["linked"], r["gen"], r["sectors"]) == ("no", "-", "0"), (name, out)
                assert int(r["rank"]) >= 4, (name, out)
            for name, gen in (("gen2 inverted", "Gen2"), ("gen1 inverted", "Gen1"), ("defaults", "Gen2")):
                r = rows[name]
                assert (r["linked"], r["gen"], r["sectors"]) == ("yes", gen, "64"), (name, out)
                assert [r[c] for c in ("code", "disp", "CRC", "R_ERR", "escapes")] == ["0"] * 5, out
            assert rows["gen2 inverted"]["rank"] == "1", out
            assert "phy scan: applied gen2 inverted (gen=gen2, tx_polarity=inverted)" in out, out
            out = console_command(t, "phy")
            assert "gen          gen2" in out and "tx_polarity  inverted" in out, out
        rc, out, err = run(board, capsys, "identify", "--json")
        assert rc == 0 and json.loads(out)["link"]["ready"] is True, out + err
