# SPDX-License-Identifier: BSD-2-Clause
"""`ecpsata phy` against a fake target with the SerDes bring-up registers of the real wrapper
(layout taken from the gateware) and a fake SCI behind them."""

import csv
import json
import os
from types import SimpleNamespace

import pytest
from migen import Signal

from ecpsata.host import cli, phy
from ecpsata.phy.ecp5.bringup import ECP5SerDesBringup
from ecpsata.phy.ecp5.serdes import ECP5SATASerDes
from tests.support.fake_target import PHY_REGS, FakeTarget, gateware_csrs, layout

METER_DIV_LOG2, METER_WINDOW = 2, 4096


def serdes_csrs(gen1_method=True):
    pads = SimpleNamespace(tx_p=Signal(), tx_n=Signal(), rx_p=Signal(), rx_n=Signal())
    return gateware_csrs(ECP5SerDesBringup(ECP5SATASerDes(pads=pads, refclk=Signal(),
                                                          sys_clk_freq=75e6,
                                                          gen1_method=gen1_method)))


def fake_board(path, gen1_method=True):
    """A fake target with the PHY's and the SerDes wrapper's registers, its clock meters' scale
    and csr_fields.json; the caller sets the registers' values."""
    regs, fields = layout({"sata_phy": PHY_REGS, "sata_serdes_bringup": serdes_csrs(gen1_method)})
    t = FakeTarget(str(path), registers=regs, sys_clk=75_000_000)
    with open(t.csr_csv, "a", newline="") as f:
        w = csv.writer(f)
        w.writerow(["constant", "sata_serdes_meter_div_log2", METER_DIV_LOG2, "", ""])
        w.writerow(["constant", "sata_serdes_meter_window", METER_WINDOW, "", ""])
    with open(os.path.join(path, "csr_fields.json"), "w") as f:
        json.dump(fields, f)
    t.set("sata_phy_control", 1 << 0 | 1 << 5 | 1 << 7)  # enable, both polarities auto (the resets)
    t.sci = FakeSCI(t, fields)
    t.fields = fields
    return t


class FakeSCI:
    """The channel and dual registers behind sata_serdes_bringup_sci_control / sci_status."""
    def __init__(self, target, fields, hang=False):
        self.t, self.f, self.hang = target, fields, hang
        # The build's values of the named fields, with other bits set around them.
        self.ch = {0x15: 0x00, 0x01: 0x01, 0x12: 0x51, 0x13: 0x20, 0x14: 0xC3, 0x17: 0xF3,
                   0x16: 0x81, 0x19: 0x35, 0x1A: 0x00, 0x1B: 0xDA}
        self.aux, self.log = {0x0C: 0x02, 0x0D: 0xC8}, []
        addr = target.regs["sata_serdes_bringup_sci_control"][0]
        target.comm.write_hooks[addr] = self.access

    def access(self, word):
        f = self.f["sata_serdes_bringup_sci_control"]
        get = lambda n: word >> f[n][0] & (1 << f[n][1]) - 1
        regs = self.aux if get("aux") else self.ch
        adr = get("adr")
        busy = 1 << self.f["sata_serdes_bringup_sci_status"]["busy"][0]
        if self.hang:
            self.t.set("sata_serdes_bringup_sci_status", busy)
            return
        if get("we"):
            regs[adr] = get("dat_w")
            self.log.append(("w", bool(get("aux")), adr, get("dat_w")))
        self.t.set("sata_serdes_bringup_sci_status", regs.get(adr, 0))


@pytest.fixture
def board(tmp_path):
    t = fake_board(tmp_path)
    # PLL locked and TX ready, CDR not locked, no signal; a 150 MHz TX word clock, RX stopped
    st = t.fields["sata_serdes_bringup_status"]
    t.set("sata_serdes_bringup_status", 1 << st["tx_ready"][0] | 1 << st["tx_pll_locked"][0]
          | 1 << st["rx_los"][0])
    t.set("sata_serdes_bringup_tx_clk_count", round(150e6 * METER_WINDOW / 75e6 / 2 ** METER_DIV_LOG2))
    yield t
    t.close()


def run(capsys, board, *argv):
    rc = cli.main(["--port", str(board.port), "--csr-csv", board.csr_csv, "phy", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_phy_prints_the_serdes_state_clock_meters_and_settings(board, capsys, tmp_path):
    rc, out, err = run(capsys, board, "--json", str(tmp_path / "phy.json"))
    assert rc == 0, err
    assert "tx_pll_locked  1" in out and "rx_cdr_locked  0" in out and "rx_los         1" in out
    assert "tx word clock  150.00 MHz" in out and "rx word clock  0.00 MHz" in out
    assert "gen          auto" in out and "tx_polarity  auto " in out and "lb_ctl       off" in out
    doc = json.load(open(tmp_path / "phy.json"))
    assert doc["kind"] == "phy" and doc["serdes"]["tx_clock_mhz"] == pytest.approx(150.0)
    got = {r["name"]: r["value"] for r in doc["settings"]}
    assert got == {"gen": "auto", "tx_polarity": "auto", "rx_polarity": "auto", "pacing": "10ms",
                   "oob_gaps": "zero-words", "lb_ctl": "off", "tdrv_dat_sel": "serializer",
                   "tx_swing": "600", "tx_slice2": "main", "rx_term": "50ohm", "rx_term_cm": "gnd", "rx_eq": "on",
                   "rx_eq_pole": "10", "rx_eq_level": "9db", "pden": "keep", "los_lvl": "2",
                   "los_ceq": "3", "los_hyst": "off", "cdr_lol": "4000ppm",
                   "gen1_method": "pins", "tx_vco_div": "/1", "rx_dco_div": "/1",
                   "rx_invert": "1", "tx_invert": "0", "cdr_hold": "0"}
    assert board.sci.log == []                               # reading writes nothing


def test_set_changes_the_control_fields_and_the_sci_field_only(board, capsys):
    rc, out, err = run(capsys, board, "--set", "gen=gen1", "--set", "tx_polarity=inverted",
                       "--set", "lb_ctl=1")
    assert rc == 0, err
    f = board.fields["sata_phy_control"]
    word = board.comm.mem[board.regs["sata_phy_control"][0]]
    assert word >> f["force_gen"][0] & 3 == 1
    assert word >> f["tx_polarity"][0] & 1 == 1 and word >> f["tx_polarity_auto"][0] & 1 == 0
    assert word >> f["enable"][0] & 1 == 1 and word >> f["restart"][0] & 1 == 0
    # lb_ctl is bits 0-3 of channel register 0x15: its other bits kept
    assert board.sci.log == [("w", False, 0x15, 0x01)]
    assert "gen = gen1 (applies at the next link attempt)" in out and "lb_ctl = 1\n" in out
    assert "lb_ctl       t2r " in out


def test_rx_polarity_pacing_and_oob_gaps_are_control_fields(board, capsys):
    rc, out, err = run(capsys, board, "--set", "rx_polarity=inverted", "--set", "pacing=40ms",
                       "--set", "oob_gaps=ei-comreset")
    assert rc == 0, err
    f = board.fields["sata_phy_control"]
    word = board.comm.mem[board.regs["sata_phy_control"][0]]
    assert (word >> f["rx_polarity_auto"][0] & 1, word >> f["rx_polarity"][0] & 1) == (0, 1)
    assert word >> f["pacing"][0] & 3 == 2 and word >> f["oob_ei_gaps"][0] & 1 == 1
    assert word >> f["enable"][0] & 1 == 1 and word >> f["tx_polarity_auto"][0] & 1 == 1
    assert board.sci.log == []
    assert "pacing       40ms " in out and "oob_gaps     ei-comreset " in out, out


def test_the_analog_fields_keep_the_other_bits_of_their_registers(board, capsys):
    rc, out, err = run(capsys, board, "--set", "tx_slice2=post", "--set", "rx_term=off")
    assert rc == 0, err
    # slice 2 select is bits 4-5 of 0x12, the termination bits 0-4 of 0x17
    assert board.sci.log == [("w", False, 0x12, 0x71), ("w", False, 0x17, 0xE0)]
    assert "tx_slice2    post " in out and "rx_term      off " in out, out


def test_the_receiver_fields_sit_where_tn1261_places_them(board, capsys):
    """The equaliser in channel register 0x19 (enable bit 0, pole bits 1-4, level bits 5-6), the
    loss-of-signal level, its input equalisation and hysteresis in 0x1b (bits 0-2, 3-4, 5), the
    phase detector's LOS switch in 0x1a bit 3, the termination's common mode in 0x16 bits 6-7, the
    CDR's lock window in dual register 0x0c bits 0-1; each write keeps the register's other bits."""
    rc, out, err = run(capsys, board, "--set", "rx_eq=off", "--set", "rx_eq_pole=3",
                       "--set", "rx_eq_level=12db", "--set", "los_lvl=5", "--set", "los_ceq=0",
                       "--set", "los_hyst=on", "--set", "pden=off-in-los",
                       "--set", "rx_term_cm=floating", "--set", "cdr_lol=300ppm",
                       "--set", "tdrv_dat_sel=eq-echo")
    assert rc == 0, err
    assert board.sci.log == [("w", False, 0x19, 0x34), ("w", False, 0x19, 0x26),
                             ("w", False, 0x19, 0x46), ("w", False, 0x1B, 0xDD),
                             ("w", False, 0x1B, 0xC5), ("w", False, 0x1B, 0xE5),
                             ("w", False, 0x1A, 0x08), ("w", False, 0x16, 0x41),
                             ("w", True, 0x0C, 0x03), ("w", False, 0x15, 0x30)]
    for line in ("rx_eq        off ", "rx_eq_pole   3 ", "rx_eq_level  12db ", "los_lvl      5 ",
                 "los_hyst     on ", "pden         off-in-los ", "cdr_lol      300ppm ",
                 "tdrv_dat_sel eq-echo "):
        assert line in out, (line, out)
    assert "(SCI dual register 0x0c bits 0-1, D_CDR_LOL_SET at build time)" in out


def _gen1_method(board):
    word = board.comm.mem[board.regs["sata_serdes_bringup_gen1_method"][0]]
    return word >> board.fields["sata_serdes_bringup_gen1_method"]["dividers"][0] & 1


def test_gen1_through_the_dividers_writes_both_then_the_method(board, capsys):
    """gen1_method=dividers: /2 (code 010) into TN1261's tx_vco_ck_div (dual register 0x0d bits
    0-2) and rx_dco_ck_div (channel register 0x1a bits 0-2), each keeping its register's other
    bits, then the gateware's choice; gen=gen1 first. pins writes /1 back before the choice."""
    board.sci.ch[0x1A] = 0x08                                   # pden set: kept
    rc, out, err = run(capsys, board, "--set", "gen1_method=dividers", "--set", "gen=gen1")
    assert rc == 0, err
    f = board.fields["sata_phy_control"]
    assert board.comm.mem[board.regs["sata_phy_control"][0]] >> f["force_gen"][0] & 3 == 1
    assert board.sci.log == [("w", True, 0x0D, 0xCA), ("w", False, 0x1A, 0x0A)]
    assert _gen1_method(board) == 1
    assert out.index("phy: gen = gen1") < out.index("phy: gen1_method = dividers")
    for line in ("gen1_method  dividers ", "tx_vco_div   /2 ", "rx_dco_div   /2 ",
                 "(SCI dual register 0x0d bits 0-2, D_TX_VCO_CK_DIV at build time)"):
        assert line in out, (line, out)
    board.sci.log.clear()
    rc, out, err = run(capsys, board, "--set", "gen1_method=pins", "--set", "gen=auto")
    assert rc == 0, err
    assert board.sci.log == [("w", True, 0x0D, 0xC8), ("w", False, 0x1A, 0x08)]
    assert _gen1_method(board) == 0
    assert out.index("phy: gen1_method = pins") < out.index("phy: gen = auto")


@pytest.mark.parametrize("first, argv", [
    ([], ["--set", "gen1_method=dividers"]),                               # gen auto
    ([], ["--set", "gen=gen2", "--set", "gen1_method=dividers"]),
    (["--set", "gen=gen1", "--set", "gen1_method=dividers"], ["--set", "gen=auto"]),
])
def test_the_dividers_without_gen1_are_refused_and_nothing_is_written(board, capsys, first, argv):
    if first:
        assert run(capsys, board, *first)[0] == 0
    board.sci.log.clear()
    before = dict(board.comm.mem)
    rc, out, err = run(capsys, board, *argv)
    assert rc == 2 and "gen1_method=dividers with gen=" in err and "set gen=gen1" in err, err
    assert board.sci.log == [] and board.comm.mem == before


def test_a_build_without_the_gen1_method_refuses_the_dividers_and_writes_nothing(tmp_path, capsys):
    """A board's build with --without-gen1-method: no gen1_method register, no rate_pins status
    bit (the pins follow half_rate); gen1_method reads pins, and dividers is refused before
    anything is sent."""
    t = fake_board(tmp_path, gen1_method=False)
    try:
        assert "sata_serdes_bringup_gen1_method" not in t.regs
        t.set("sata_serdes_bringup_status", 1 << t.fields["sata_serdes_bringup_status"]["half_rate"][0])
        args = ["--port", str(t.port), "--csr-csv", t.csr_csv, "phy"]
        assert cli.main(args + ["--json", str(tmp_path / "phy.json")]) == 0
        doc = json.load(open(tmp_path / "phy.json"))
        assert (doc["serdes"]["half_rate"], doc["serdes"]["rate_pins"]) == (1, 1)
        assert {r["name"]: r["value"] for r in doc["settings"]}["gen1_method"] == "pins"
        capsys.readouterr()
        before = dict(t.comm.mem)
        rc = cli.main(args + ["--set", "gen=gen1", "--set", "gen1_method=dividers"])
        err = capsys.readouterr().err
        assert rc == 2 and "no Gen1 method register" in err and "--without-gen1-method" in err, err
        assert t.sci.log == [] and t.comm.mem == before
    finally:
        t.close()


def test_tx_swing_writes_the_builds_slices_for_that_swing(board, capsys):
    """tx_swing=800 writes the build's 800 mV slices (selects in 0x12 and 0x13 bits 0-3, currents
    in 0x13-0x15) and keeps the other bits of 0x15 (lb_ctl, tdrv_dat_sel); a slice changed on its
    own reads as custom; 600 brings the build's drive back."""
    board.sci.ch[0x15] = 0x05
    rc, out, err = run(capsys, board, "--set", "tx_swing=800")
    assert rc == 0, err
    assert board.sci.log == [("w", False, 0x12, 0x50), ("w", False, 0x14, 0xC0),
                             ("w", False, 0x13, 0x71), ("w", False, 0x15, 0x05)]
    assert "tx_swing     800 " in out, out
    rc, out, err = run(capsys, board, "--set", "tx_slice2=post")
    assert rc == 0 and "tx_swing     custom " in out, out
    rc, out, err = run(capsys, board, "--set", "tx_swing=600")
    assert rc == 0 and "tx_swing     600 " in out and "tx_slice2    main " in out, out
    assert (board.sci.ch[0x12], board.sci.ch[0x13], board.sci.ch[0x14]) == (0x51, 0x20, 0xC3)


def test_raw_sci_write_then_read_back_and_the_dual_registers(board, capsys):
    rc, out, err = run(capsys, board, "--sci", "0x22=0x5a", "--sci", "0x22")
    assert rc == 0, err
    assert "SCI channel register 0x22: wrote 0x5a, reads 0x5a" in out
    assert "SCI channel register 0x22: reads 0x5a" in out
    rc, out, err = run(capsys, board, "--aux", "--sci", "3=7")
    assert rc == 0 and board.sci.aux == {3: 7, 0x0C: 0x02, 0x0D: 0xC8} and board.sci.ch.get(3) is None
    rc, out, err = run(capsys, board, "--sci", "0x01=0x03")
    assert "the gateware keeps bits of channel register 0x01" in out


@pytest.mark.parametrize("argv, message", [
    (["--set", "swing=600"], "KEY one of gen, tx_polarity, rx_polarity, pacing, oob_gaps, lb_ctl, "
                             "tdrv_dat_sel, tx_swing, tx_slice2, rx_term, rx_term_cm, rx_eq, rx_eq_pole, "
                             "rx_eq_level, pden, los_lvl, los_ceq, los_hyst, cdr_lol, gen1_method, "
                             "tx_vco_div, rx_dco_div"),
    (["--set", "rx_eq_level=15db"], "'15db' is not one of 6db, 9db, 12db, 3"),
    (["--set", "los_lvl=8"], "is not one of 0, 1, 2"),
    (["--set", "gen=gen3"], "'gen3' is not one of auto, gen1, gen2"),
    (["--set", "lb_ctl=16"], "is not one of off, t2r, 0, 1"),
    (["--sci", "0x40"], "addresses 0x00..0x3f"),
    (["--sci", "0x10=0x100"], "values 0x00..0xff"),
    (["--sci", "ten"], "ADDR or ADDR=VALUE"),
    (["--set", "gen=gen1", "--sci", "0x99=1"], "addresses 0x00..0x3f"),
])
def test_bad_input_is_refused_before_anything_is_written(board, capsys, argv, message):
    before = dict(board.comm.mem)
    rc, out, err = run(capsys, board, *argv)
    assert rc == 2 and message in err, err
    assert board.sci.log == [] and board.comm.mem == before


def test_an_sci_access_that_never_ends_names_the_likely_cause(board, capsys, monkeypatch):
    monkeypatch.setattr(phy, "SCI_TIMEOUT", 0.2)
    board.sci.hang = True
    rc, out, err = run(capsys, board, "--sci", "0x15")
    assert rc == 2 and "did not finish within" in err and "electrical idle held on" in err


def test_a_gateware_without_the_registers_is_told_so(tmp_path, capsys):
    regs, fields = layout({"sata_phy": PHY_REGS})
    t = FakeTarget(str(tmp_path), registers=regs)
    try:
        rc = cli.main(["--port", str(t.port), "--csr-csv", t.csr_csv, "phy"])
        err = capsys.readouterr().err
        assert rc == 2 and "no SerDes bring-up registers" in err
    finally:
        t.close()


@pytest.mark.parametrize("argv, message", [
    (["phy", "scan", "--set", "gen=gen1"], "belong to plain `phy`"),
    (["phy", "scan", "--restart"], "belong to plain `phy`"),
    (["phy", "--sectors", "8"], "belong to `phy scan`"),
    (["phy", "--window", "1"], "belong to `phy scan`"),
    (["phy", "scan", "--window", "0"], "above 0 and at most 60"),
    (["phy", "scan", "--sectors", "0"], "1..65536"),
    (["phy", "scan", "--sets", "no-such-file.json"], "No such file"),
    (["phy", "nothing"], "invalid choice"),
])
def test_scan_options_are_checked_before_connecting(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["--port", "1"] + argv)
    assert e.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("sets, message", [
    ({"name": "x"}, "a JSON list"),
    ([{"name": "x"}], "has no \"settings\" object"),
    ([{"settings": {"swing": "800"}}], "KEY=VALUE with KEY one of"),
    ([{"settings": {"tx_polarity": "sideways"}}], "'sideways' is not one of"),
])
def test_a_sets_file_is_checked_entry_by_entry(sets, message, tmp_path, capsys):
    path = tmp_path / "sets.json"
    path.write_text(json.dumps(sets))
    with pytest.raises(SystemExit):
        cli.main(["--port", "1", "phy", "scan", "--sets", str(path)])
    assert message in capsys.readouterr().err


def test_each_scanned_set_starts_from_the_settings_the_scan_found(board):
    """A key one set changes goes back to its value from before the scan for the sets that do not
    name it, so a set's result does not depend on the sets before it."""
    from ecpsata.host import physcan
    from ecpsata.host.target import Target
    sets = [{"name": "luna receiver", "settings": {"los_lvl": "4", "pden": "off-in-los"}},
            {"name": "gen1", "settings": {"gen": "gen1"}}]
    with Target(port=board.port, csr_csv=board.csr_csv, timeout=10.0) as t:
        base = physcan.baseline(t, sets)
        assert base == {"los_lvl": "2", "pden": "keep", "gen": "auto"}
        assert physcan.writes(base, sets[0]) == {"los_lvl": "4", "pden": "off-in-los",
                                                 "gen": "auto"}
        assert physcan.writes(base, sets[1]) == {"los_lvl": "2", "pden": "keep", "gen": "gen1"}
        physcan.apply(t, base, sets[0])
        assert physcan.baseline(t, sets) == {"los_lvl": "4", "pden": "off-in-los", "gen": "auto"}
        physcan.apply(t, base, sets[1])
        assert physcan.baseline(t, sets) == {"los_lvl": "2", "pden": "keep", "gen": "gen1"}
