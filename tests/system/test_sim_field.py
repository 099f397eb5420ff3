# SPDX-License-Identifier: BSD-2-Clause
"""The simulated SoC against a drive as a board meets it: the drive transmits on its own
clock (`ppm`, `ssc`), and `field=1` puts every real-world impairment on the line at once. The
figures come from the host CLI over the UART bridge and from the drive's own statistics."""

import json
import os

import pytest

from ecpsata.host import cli
from ecpsata.host.simboard import SimBoard
from tests.system.test_sim_sata import vdrive
from tests.system.test_sim_system import free_port, sim_built  # noqa: F401

# The simulated SoC in Verilator (build/sim, build/ecpix5_sim): `pytest -m "not system"` leaves these out.
pytestmark = pytest.mark.system

# A drive 350 ppm fast (SATA's limit) overflows an RX path that carries ALIGNs across to sys at
# 75 MHz (exactly the Gen2 dword rate) within about a millisecond of data; 4 MiB is 14 ms of reads.
VERIFY = ["verify", "--allow-write", "--range", "0:8192"]


def run(board, capsys, *args):
    common = ["--port", str(board.server_port), "--csr-csv",
              os.path.join(board.build_dir, "csr.csv"), "--timeout", "120"]
    rc = cli.main(common + list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def drive_stats(board):
    """The drive's statistics, written when the simulation ended (call after the board stops)."""
    return json.load(open(board.stats_path))


def field_board(tmp_path, keys, build_dir=None):
    stats = tmp_path / "vdrive_stats.json"
    board = SimBoard(server_port=free_port(), build_dir=build_dir,
                     vdrive=vdrive(tmp_path, f"{keys},stats_file={stats}"))
    board.stats_path = stats
    return board


@pytest.mark.parametrize("clock", ["ppm=350", "ppm=-350,ssc=1", "max_gen=1,ppm=350"])
def test_a_drive_on_its_own_clock_loses_no_data(sim_built, tmp_path, capsys, clock):
    """The drive's words reach our receiver on the drive's clock (sata_rx runs on it, as on the
    DCU's recovered clock): 350 ppm fast fills the crossing to sys unless ALIGNs stop before it;
    with SSC the drive is up to 5,350 ppm slow and the crossing runs dry inside frames; at Gen1
    the drive's clock is half rate."""
    board = field_board(tmp_path, clock)
    with board:
        board.wait_prompt()
        rc, out, err = run(board, capsys, *VERIFY, "--json", str(tmp_path / "v.json"))
        assert rc == 0, out + err
        row, = json.load(open(tmp_path / "v.json"))["rows"]
        assert (row["commands"], row["failed_commands"], row["bad_sectors"], row["result"]) == \
            (2, 0, 0, "PASS")
    st = drive_stats(board)
    # a dword lost in our receiver fails a frame's CRC: we answer R_ERR and the command fails
    assert (st["r_err_received"], st["crc_errors_rx"], st["link_ups"]) == (0, 0, 1)
    assert st["gen"] == (1 if "max_gen=1" in clock else 2)


def test_field_preset_with_a_gen3_drive_links_at_gen2_and_verifies(sim_built, tmp_path, capsys):
    """`field=1,max_gen=3`: echo 20 ns, ALIGN dwell 30 us, our TX pair swapped (the drive does not
    adapt), the drive 350 ppm fast with SSC, CONT, and a 6 Gb/s drive that starts at Gen3."""
    board = field_board(tmp_path, "field=1,max_gen=3")
    with board:
        board.wait_prompt()
        rc, out, err = run(board, capsys, "identify", "--json")
        assert rc == 0, out + err
        link = json.loads(out)["link"]
        # one failed attempt finds our TX polarity; it costs one COMRESET retry interval (10 ms)
        assert (link["ready"], link["gen"], link["retries"]) == (True, 2, 1)
        assert 10000 < link["time_to_link_us"] < 10000 + 873.8
        rc, out, err = run(board, capsys, *VERIFY, "--json", str(tmp_path / "v.json"))
        assert rc == 0, out + err
        row, = json.load(open(tmp_path / "v.json"))["rows"]
        assert (row["failed_commands"], row["bad_sectors"], row["result"]) == (0, 0, "PASS")
    st = drive_stats(board)
    assert (st["r_err_received"], st["crc_errors_rx"], st["gen"]) == (0, 0, 2)


@pytest.mark.parametrize("keys,grid", [
    (None, 2000), ("cont=0", 2000), ("ppm=0,ssc=off", 2000), ("field=0", 2000),
    ("ppm=350", 1000), ("ppm=-1", 1000), ("ssc=1", 1000), ("field=1", 1000),
    ("field=1,ppm=0,ssc=0", 2000), ("ppm=350,ppm=0", 2000),
])
def test_the_time_grid_is_finer_only_when_the_drive_clock_is_off_ours(tmp_path, keys, grid):
    """A drive on our clock keeps the grid of the word clock's half period (4000 ps words); one
    off ours gets a quarter word, so that its edges can come a step early or late (the vdrive
    module stops the simulation with a message if two edges would fall in one step)."""
    from ecpsata.platforms.sim import write_sim_config
    config = write_sim_config(str(tmp_path / "sim_config.js"), console="stdio", vdrive=keys or "")
    timebase, = [e["timebase"] for e in config if "timebase" in e]
    assert timebase == grid
    vd, = [e for e in config if e.get("module") == "vdrive"]
    assert vd["args"]["word_ps"] == 4000


def test_a_clock_seed_shifts_each_clock_on_the_grid_and_puts_the_drive_within_350_ppm(tmp_path):
    """Every clock but sys lands on a whole step of the fine grid; the same seed draws the same
    placement; the seeds between them reach every phase of the word clock and both signs of
    offset; nominal changes nothing."""
    from ecpsata.platforms import ecpix5_sim, sim
    nominal = sim.clock_placement(None, sim.CLOCK_PERIODS_PS)
    assert nominal.phase_deg == {} and nominal.vdrive("cont=1") == "cont=1"
    seen_phase, seen_sign = set(), set()
    for seed in range(40):
        for periods in (sim.CLOCK_PERIODS_PS, ecpix5_sim.CLOCK_PERIODS_PS):
            p = sim.clock_placement(seed, periods)
            assert p == sim.clock_placement(seed, periods)
            assert set(p.phase_deg) == set(periods) - {"sys_clk"}
            for name, deg in p.phase_deg.items():
                assert periods[name] * deg % (360 * sim.SIM_OFFSET_GRID_PS) == 0, (name, deg)
            assert -350 <= p.drive_ppm <= 350
        seen_phase.add(sim.clock_placement(seed, sim.CLOCK_PERIODS_PS).phase_deg["sata_clk"])
        seen_sign.add((p.drive_ppm > 0) - (p.drive_ppm < 0))
    assert seen_phase == {0, 90, 180, 270} and {-1, 1} <= seen_sign
    p = sim.clock_placement(7, sim.CLOCK_PERIODS_PS)
    assert p.vdrive("cont=1") == f"cont=1,ppm={p.drive_ppm}"
    assert p.vdrive("ppm=0,cont=1") == "ppm=0,cont=1"      # the drive's own clock setting wins
    assert p.vdrive("field=1") == "field=1"
    assert f"seed 7: sata_clk {p.phase_deg['sata_clk']} deg" in p.describe()


def test_the_shifted_clocks_reach_the_simulators_configuration(tmp_path):
    from ecpsata.platforms import ecpix5_sim, sim
    seed = next(s for s in range(100)
                if sim.clock_placement(s, sim.CLOCK_PERIODS_PS).phase_deg["sata_clk"] == 90)
    p = sim.clock_placement(seed, sim.CLOCK_PERIODS_PS)
    config = sim.write_sim_config(str(tmp_path / "a.js"), console="stdio", vdrive=p.vdrive(""),
                                  clocks=p)
    clockers = {e["interface"][0]: e["args"]["phase_deg"] for e in config
                if e.get("module") == "clocker"}
    assert clockers == {"sys_clk": 0, "sata_clk": 90}
    timebase, = [e["timebase"] for e in config if "timebase" in e]
    assert timebase == sim.SIM_OFFSET_GRID_PS
    q = sim.clock_placement(seed, ecpix5_sim.CLOCK_PERIODS_PS)
    config = ecpix5_sim.write_sim_config(str(tmp_path / "b.js"), vdrive=q.vdrive(""), clocks=q)
    phases = {e["interface"][0]: e["args"]["phase_deg"] for e in config
              if e.get("module") == "clocker"}
    assert phases == {"sys_clk": 0, **q.phase_deg}


@pytest.mark.parametrize("text,seed", [("nominal", None), ("", None), ("12", 12), ("0x10", 16)])
def test_clock_seeds_from_the_command_line(text, seed):
    from ecpsata.platforms.sim import parse_clock_seed
    assert parse_clock_seed(text) == seed
    assert isinstance(parse_clock_seed("random"), int)
    for bad in ("-3", "fast"):
        with pytest.raises(ValueError, match="clock seed"):
            parse_clock_seed(bad)
