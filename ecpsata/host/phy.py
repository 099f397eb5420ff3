# SPDX-License-Identifier: BSD-2-Clause
"""The PHY and the SerDes at run time, without a rebuild: `ecpsata phy [--set KEY=VALUE ...]
[--sci ADDR[=VALUE] ...] [--aux] [--restart] [--json FILE]`.

It prints the SerDes state (TX PLL and CDR lock, loss of signal, the word clocks as the
gateware's clock meters measure them), the named settings with their values and where each
comes from, and reads or writes the DCU's configuration registers through the SCI (Lattice
TN1261, "ECP5 and ECP5-5G SERDES/PCS Usage Guide": the SerDes Client Interface). The gateware
(ecpsata/phy/ecp5/sci.py) starts no SCI access while the channel's electrical idle is on: a
channel register rewritten then made a drive abandon its ALIGN stream (LiteICLink's ECP5 SerDes).
"""

import time

from ecpsata.host import report, sata
from ecpsata.host.target import TargetError
from ecpsata.phy.common import COMRESET_RETRY_INTERVAL
from ecpsata.phy.ecp5.bringup import DUAL, SCI_FIELDS, tx_swing_writes
from ecpsata.phy.ecp5.serdes import TX_SWING, VCO_CK_DIV

SERDES = "sata_serdes_bringup_"
SCI_TIMEOUT = 1.0     # seconds; an access takes a few sys cycles
SCAN_SECTORS = 64     # phy scan: sectors read after each link


class Setting:
    """A named setting: `read(target, regs=None)` -> value name (`regs` a cache of the SCI
    registers read, {(aux, adr): value}), `write(target, name)`; `source` says where its values
    come from, `link` whether it applies at the next link attempt."""
    def __init__(self, values, text, source, link=True):
        self.values, self.text, self.source, self.link = values, text, source, link


class ControlField(Setting):
    """Fields of the PHY's control register (sata_phy_control): `values` maps a name to the
    fields' values {field: value}."""
    reg = "sata_phy_control"

    def read(self, target, regs=None):
        word = target.reg(self.reg).read()
        got = {f: word >> target.field(self.reg, f)[0] & (1 << target.field(self.reg, f)[1]) - 1
               for f in next(iter(self.values.values()))}
        for name, fields in self.values.items():
            if fields == got:
                return name
        return ",".join(f"{f}={v}" for f, v in got.items())

    def write(self, target, name):
        word = target.reg(self.reg).read()
        for f, v in self.values[name].items():
            off, size = target.field(self.reg, f)
            word = word & ~((1 << size) - 1 << off) | v << off
        restart_off, _ = target.field(self.reg, "restart")
        target.reg(self.reg).write(word & ~(1 << restart_off))


class SCIField(Setting):
    """A field of a DCU register (SCI_FIELDS: address, lowest bit, bits, build parameter; DUAL set
    in the address for a dual register), through the SCI; `values` maps a name to the field's
    value."""
    def __init__(self, key, values, text, source, link=False):
        adr, lo, size, param = SCI_FIELDS[key]
        self.aux, self.adr, self.lo, self.size = bool(adr & DUAL), adr & 0x3F, lo, size
        kind = "dual" if self.aux else "channel"
        where = f"SCI {kind} register 0x{self.adr:02x} " + \
            (f"bits {lo}-{lo + size - 1}" if size > 1 else f"bit {lo}")
        built = f", {param.replace('CHX', 'CHx')} at build time" if param else ""
        super().__init__(values, f"{text} ({where}{built})", source, link)

    def read(self, target, regs=None):
        """The value's name; `regs` caches the registers read ({(aux, adr): value})."""
        v = _cached_read(target, regs, self.adr, self.aux) >> self.lo & (1 << self.size) - 1
        return next((n for n, x in self.values.items() if x == v), str(v))

    def write(self, target, name):
        mask = (1 << self.size) - 1 << self.lo
        old = sci_read(target, self.adr, self.aux)
        sci_write(target, self.adr, old & ~mask | self.values[name] << self.lo, self.aux)


class TxSwing(Setting):
    """The TX driver's slices as a whole, set to the build's drive for a nominal swing
    (``tx_swing_writes``); reads the swing whose bits all match, or "custom"."""
    def __init__(self, text, source):
        super().__init__({str(v): v for v in TX_SWING}, text, source, link=False)

    def read(self, target, regs=None):
        regs = {} if regs is None else regs
        for name, swing in self.values.items():
            if all(_cached_read(target, regs, adr) & mask == value
                   for adr, (mask, value) in tx_swing_writes(swing).items()):
                return name
        return "custom"

    def write(self, target, name):
        for adr, (mask, value) in tx_swing_writes(self.values[name]).items():
            sci_write(target, adr, sci_read(target, adr) & ~mask | value)


MISSING_GEN1_METHOD = ("this gateware has no Gen1 method register "
                       "(sata_serdes_bringup_gen1_method), only the half-rate pins: it was built "
                       "with --without-gen1-method (a board's default build has it); nothing "
                       "written")


class Gen1Method(Setting):
    """How a Gen2 build runs Gen1: the channel's half-rate pins, or /2 in the TX and CDR dividers
    (``tx_vco_div``, ``rx_dco_div``) with the pins at full rate. `write` sets the dividers first,
    then the gateware's choice (sata_serdes_bringup_gen1_method), whose change resets both lanes.
    The gateware does not rewrite the dividers at a speed change: `dividers` needs `gen=gen1`
    (``check_sets``)."""
    reg = SERDES + "gen1_method"
    divider = {"pins": 1, "dividers": 2}

    def __init__(self, text, source):
        super().__init__({"pins": 0, "dividers": 1}, text, source)

    def read(self, target, regs=None):
        if not target.has(self.reg):
            return "pins"    # a build without the choice: Gen1 through the pins only
        off, _ = target.field(self.reg, "dividers")
        return "dividers" if target.reg(self.reg).read() >> off & 1 else "pins"

    def write(self, target, name):
        if not target.has(self.reg):
            if name == "pins":
                return                         # the only method of such a build
            raise TargetError(MISSING_GEN1_METHOD)
        div = f"/{self.divider[name]}"
        for key in ("tx_vco_div", "rx_dco_div"):
            SETTINGS[key].write(target, div)
        off, _ = target.field(self.reg, "dividers")
        target.reg(self.reg).write(self.values[name] << off)


def _cached_read(target, regs, adr, aux=False):
    """An SCI register through `regs` ({(aux, adr): value}, filled as read), or read directly."""
    if regs is None:
        return sci_read(target, adr, aux)
    if (aux, adr) not in regs:
        regs[(aux, adr)] = sci_read(target, adr, aux)
    return regs[(aux, adr)]


def _raw(size):
    return {str(v): v for v in range(1 << size)}


_DIVIDERS = {f"/{n}": int(code, 0) for n, code in VCO_CK_DIV.items()}

SETTINGS = {
    "gen": ControlField(
        {"auto": {"force_gen": 0}, "gen1": {"force_gen": 1}, "gen2": {"force_gen": 2}},
        "line rates tried: auto starts at Gen2 and falls back to Gen1",
        "SATA speed negotiation (a host offers its fastest rate, then the lower ones)"),
    "tx_polarity": ControlField(
        {"auto": {"tx_polarity_auto": 1, "tx_polarity": 0},
         "auto-inverted": {"tx_polarity_auto": 1, "tx_polarity": 1},
         "normal": {"tx_polarity_auto": 0, "tx_polarity": 0},
         "inverted": {"tx_polarity_auto": 0, "tx_polarity": 1}},
        "TX pair polarity: auto tries the other one after a failed attempt",
        "a board's TX pair polarity is not known in advance; LiteSATA's ECP5 PHY flips it after a "
        "failed attempt"),
    "rx_polarity": ControlField(
        {"auto": {"rx_polarity_auto": 1, "rx_polarity": 0},
         "normal": {"rx_polarity_auto": 0, "rx_polarity": 0},
         "inverted": {"rx_polarity_auto": 0, "rx_polarity": 1}},
        "RX pair polarity: auto learns it from ALIGN and its inverted form",
        "SATA's ALIGN tells the two polarities apart; forcing it rules the learning out while "
        "looking for another fault"),
    "pacing": ControlField(
        {f"{COMRESET_RETRY_INTERVAL * 1e3 * (1 << n):g}ms": {"pacing": n} for n in range(4)},
        "COMRESET no more often than this (before the back-off after failed attempts)",
        "drives answer within 10 ms and beacon COMINIT every 10 ms while the link is down; "
        "public ECP5 bring-ups saw drives wedge under floods of OOB: slower pacing"),
    "oob_gaps": ControlField(
        {"zero-words": {"oob_ei_gaps": 0}, "ei-comreset": {"oob_ei_gaps": 1}},
        "OOB gaps: all-zero words, or electrical idle in COMRESET's 320 ns gaps (COMWAKE's "
        "107 ns gaps are shorter than the ~220 ns the DCU takes to engage it)",
        "all-zero words made drives answer on ECP5 hardware; electrical idle is what the SATA "
        "specification describes for OOB gaps"),
    "lb_ctl": SCIField(
        "lb_ctl", {"off": 0, "t2r": 1, **_raw(4)},
        "DCU channel loopback control: bit 0 the serializer's line into the receiver (t2r, "
        "near-end), bit 1 the equaliser's output to the TX driver, bits 2/3 the CDR's clock / "
        "data to it (far-end echoes, with tdrv_dat_sel)",
        "TN1261's register map; t2r is what LiteICLink's ECP5 SerDes writes for its loopback, "
        "which it notes may not be enough on silicon; off is the reset value"),
    "tdrv_dat_sel": SCIField(
        "tdrv_dat_sel", {"serializer": 0, "clock": 1, "cdr-echo": 2, "eq-echo": 3},
        "the TX driver's input: our serializer, its rate clock, the CDR's echo of the received "
        "line (lb_ctl bit 2 or 3) or the equaliser's (lb_ctl bit 1)",
        "TN1261's register map; LUNA's USB 3 PHY writes eq-echo with lb_ctl 2 for USB 3's "
        "loopback (the device echoes what it receives); serializer is the build's"),
    "tx_swing": TxSwing(
        "TX driver: the six slices' selects and currents for a nominal swing in mV (SCI channel "
        "registers 0x12-0x15; custom once a slice is set on its own)",
        "the build's sets (its TX_SWING): 600, liteiclink's 6 mA drive that linked with a drive, "
        "is the default; 800 and 1000 are Diamond's 8 and 10 mA sets. SATA Gen2i allows 400-700 "
        "mVppd at the connector; slices 4 and 5's selects sit in 0x13 bits 0-3, which TN1261 "
        "marks internal (prjtrellis's bit order places them there)"),
    "tx_slice2": SCIField(
        "tx_slice2", {"power-down": 0, "main": 1, "pre": 2, "post": 3},
        "TX driver slice 2 (3.2 mA of the build's 6 mA main-data drive): main data, post-cursor "
        "data (de-emphasis), pre-cursor data, or off (less swing)",
        "LUNA's ECP5 PHY for USB 3 writes these bits (post data for its 3.5 dB de-emphasis); the "
        "select codes are TN1261's tdrv_slice2_sel; main is the build's value"),
    "rx_term": SCIField(
        "rx_term", {"50ohm": 19, "luna": 22, "off": 0, **_raw(5)},
        "RX termination (TN1261's rterm_rx: 19 is 50.0 ohm, 22 47.8 ohm, 0 5 kohm)",
        "LUNA's ECP5 PHY writes 22 there with its termination on and 0 with it off; 19 (50 ohm) "
        "is the build's, as LiteICLink's"),
    "rx_term_cm": SCIField(
        "rx_term_cm", {"supply": 0, "floating": 1, "gnd": 2, "3": 3},
        "RX termination's common mode: the RX input supply, floating (AC ground) or ground",
        "TN1261's rxterm_cm; gnd is the build's and LUNA's, with which loss of signal followed "
        "the line on an ECPIX-5"),
    "rx_eq": SCIField(
        "rx_eq", {"off": 0, "on": 1},
        "receive equaliser",
        "TN1261's req_en; LUNA's ECP5 PHY writes its equaliser through this register (0x19); on "
        "is the build's and LUNA's"),
    "rx_eq_pole": SCIField(
        "rx_eq_pole", _raw(4),
        "the receive equaliser's pole position (TN1261's rx_rate_sel; the values' meaning is not "
        "published)",
        "10 is the build's; LUNA builds with 9 and sweeps all 16 with the 4 levels, keeping the "
        "pair with the fewest 8b10b errors"),
    "rx_eq_level": SCIField(
        "rx_eq_level", {"6db": 0, "9db": 1, "12db": 2, "3": 3},
        "the receive equaliser's level (TN1261's req_lvl_set; 3 is marked unused)",
        "9db is the build's and LUNA's; LUNA notes that Lattice's reference designs use 3"),
    "pden": SCIField(
        "pden", {"keep": 0, "off-in-los": 1},
        "the CDR's phase detector during loss of signal: kept on, or off (TN1261's pden_sel)",
        "keep is the build's (OOB bursts reach the CDR at once); LUNA builds with off-in-los"),
    "los_lvl": SCIField(
        "los_lvl", _raw(3),
        "loss-of-signal threshold, peak to peak (TN1261's rx_los_lvl; volts per step not "
        "published): COMINIT and COMWAKE are seen only above it",
        "2 is the build's, with which loss of signal followed the line on an ECPIX-5; LUNA "
        "builds with 4"),
    "los_ceq": SCIField(
        "los_ceq", _raw(2),
        "equalisation at the loss-of-signal detector's input (TN1261's rx_los_ceq)",
        "3 is the build's and LUNA's"),
    "los_hyst": SCIField(
        "los_hyst", {"off": 0, "on": 1},
        "hysteresis on the loss-of-signal threshold (TN1261's rx_los_hyst_en)",
        "off is the build's and LUNA's: the public SATA work on ECP5 saw loss of signal follow "
        "OOB with it off"),
    "cdr_lol": SCIField(
        "cdr_lol", {"1000ppm": 0, "2000ppm": 1, "4000ppm": 2, "300ppm": 3},
        "the CDR's lock window (TN1261's cdr_lol_set: lock / unlock at +-1000 x2 / +-1500 x2, "
        "+-2000 / +-2500, +-4000 / +-7000 or +-300 / +-450 ppm), for the whole DCU",
        "4000ppm is the build's and LUNA's: a drive with spread-spectrum clocking moves its "
        "rate by up to 5000 ppm down (SATA allows it)"),
    "gen1_method": Gen1Method(
        "how Gen1 is made: the channel's half-rate pins, or /2 in the TX and CDR dividers with "
        "the pins at full rate (writes tx_vco_div and rx_dco_div; needs gen=gen1, the dividers "
        "are not rewritten at a speed change)",
        "pins is the build's (FFC_RATE_MODE_TX/RX, the DCU's half-rate mode); dividers is how "
        "Diamond builds a low-rate channel (GbE at 1.25 Gb/s), and left the receiver dead in "
        "LiteSATA's ECP5 work with the Gen2 CDR profile: a setting to try, not a proven one"),
    "tx_vco_div": SCIField(
        "tx_vco_div", {**_DIVIDERS, **_raw(3)},
        "the TX PLL's output divider, for the whole DCU (TN1261's tx_vco_ck_div; codes 00x /1, "
        "01x /2, 100 /4 and up)",
        "/1 is the build's at Gen2; gen1_method writes it; its bits in the register are where "
        "prjtrellis's frame order puts them"),
    "rx_dco_div": SCIField(
        "rx_dco_div", {**_DIVIDERS, **_raw(3)},
        "the CDR's output divider (TN1261's rx_dco_ck_div, the same codes)",
        "/1 is the build's at Gen2; gen1_method writes it; bits as for tx_vco_div"),
}
# Bits the gateware keeps and rewrites itself (ecpsata/phy/ecp5/sci.py): shown, not set.
KEPT = {"rx_invert": (0x01, 0, "the RX polarity in use (rx_polarity above)"),
        "tx_invert": (0x01, 1, "the TX polarity in use (tx_polarity above)"),
        "cdr_hold": (0x18, 6, "TN1261's fc2dco_floop (the DCO held on its frequency loop): held "
                              "while the line carries OOB, released for ALIGN")}
KEPT_REGISTERS = {0x01, 0x18}


def check_sets(target, sets):
    """`sets` ([(key, value)], in the order given) in the order to write them, refused when they
    would leave the Gen1 method `dividers` with a rate other than Gen1 (the gateware does not
    rewrite the dividers at a speed change); what is not in `sets` is read from the target."""
    final = dict(sets)
    if final.get("gen1_method") == "dividers" and not target.has(Gen1Method.reg):
        raise TargetError(MISSING_GEN1_METHOD)
    if "gen1_method" in final or "gen" in final:
        method = final.get("gen1_method") or SETTINGS["gen1_method"].read(target)
        gen = final.get("gen") or SETTINGS["gen"].read(target)
        if method == "dividers" and gen != "gen1":
            raise TargetError(f"gen1_method=dividers with gen={gen}: the dividers make Gen1 only "
                              f"and are not rewritten at a speed change; set gen=gen1 with it "
                              f"(or gen1_method=pins first): nothing written")
        # Dividers: the rate first, then the method; pins: the method first, then the rate.
        first = "gen" if method == "dividers" else "gen1_method"
        sets = sorted(sets, key=lambda kv: kv[0] != first)
    return sets


def write_settings(target, sets):
    """Checks `sets` ([(key, value)]) together, then writes them; returns the order written."""
    sets = check_sets(target, sets)
    for key, value in sets:
        SETTINGS[key].write(target, value)
    return sets


def present(target):
    return target.has(SERDES + "sci_control")


def _require(target):
    if not present(target):
        raise TargetError("this gateware has no SerDes bring-up registers (sata_serdes_bringup_*): "
                          "the simulated board's SerDes model has no SCI; use an ECP5 board build "
                          "or the simulated ECPIX-5")


def _sci(target, adr, value=None, aux=False):
    if not 0 <= adr < 64:
        raise TargetError(f"SCI register address 0x{adr:x} is not 0x00..0x3f")
    if value is not None and not 0 <= value < 256:
        raise TargetError(f"SCI register value 0x{value:x} is not 0x00..0xff")
    reg = SERDES + "sci_control"
    word = 0
    for f, v in (("adr", adr), ("dat_w", value or 0), ("we", int(value is not None)),
                 ("aux", int(aux))):
        word |= v << target.field(reg, f)[0]
    target.reg(reg).write(word)
    busy_off, _ = target.field(SERDES + "sci_status", "busy")
    deadline = time.monotonic() + SCI_TIMEOUT
    while True:
        status = target.reg(SERDES + "sci_status").read()
        if not status >> busy_off & 1:
            off, size = target.field(SERDES + "sci_status", "dat_r")
            return status >> off & (1 << size) - 1
        if time.monotonic() > deadline:
            raise TargetError(f"SCI access to register 0x{adr:02x} did not finish within "
                              f"{SCI_TIMEOUT:.0f} s: electrical idle held on (the gateware waits "
                              f"for it to end), or the DCU not running")


def sci_read(target, adr, aux=False):
    return _sci(target, adr, None, aux)


def sci_write(target, adr, value, aux=False):
    _sci(target, adr, value, aux)


def serdes_state(target):
    """{tx_ready, rx_ready, tx_pll_locked, rx_cdr_locked, rx_los, half_rate, rate_pins,
    tx_clock_mhz, rx_clock_mhz}: the flags and the word clocks measured by the gateware's clock
    meters."""
    _require(target)
    word = target.reg(SERDES + "status").read()
    out = {}
    for f in ("tx_ready", "rx_ready", "tx_pll_locked", "rx_cdr_locked", "rx_los", "half_rate",
              "rate_pins"):
        if f == "rate_pins" and not target.has(Gen1Method.reg):
            out[f] = out["half_rate"]          # a build without the Gen1 method: the pins only
            continue
        off, size = target.field(SERDES + "status", f)
        out[f] = word >> off & (1 << size) - 1
    div = int(target.constants.get("sata_serdes_meter_div_log2", -1))
    window = int(target.constants.get("sata_serdes_meter_window", 0))
    if div < 0 or window <= 0:
        raise TargetError(f"no clock meter constants in {target.csr_csv}: rebuild the gateware")
    f = target.sys_clk_hz()
    for side in ("tx", "rx"):
        count = target.reg(f"{SERDES}{side}_clk_count").read()
        out[f"{side}_clock_mhz"] = count * 2 ** div * f / window / 1e6
    return out


def settings(target):
    """[{name, value, values, text, source}] of SETTINGS, then the kept bits."""
    regs = {}
    rows = [{"name": n,
             "value": s.read(target, regs),
             "values": list(s.values), "text": s.text, "source": s.source}
            for n, s in SETTINGS.items()]
    for name, (adr, bit, text) in KEPT.items():
        rows.append({"name": name, "value": str(sci_read(target, adr) >> bit & 1), "values": [],
                     "text": f"SCI channel register 0x{adr:02x} bit {bit}, kept by the gateware",
                     "source": text})
    return rows


def parse_set(text):
    """KEY=VALUE of --set -> (key, value name); a readable error for the rest."""
    key, eq, value = text.partition("=")
    if not eq or key not in SETTINGS:
        raise TargetError(f"--set {text!r}: KEY=VALUE with KEY one of {', '.join(SETTINGS)}")
    if value not in SETTINGS[key].values:
        raise TargetError(f"--set {key}: {value!r} is not one of "
                          f"{', '.join(SETTINGS[key].values)}")
    return key, value


def parse_sci(text):
    """ADDR or ADDR=VALUE of --sci -> (addr, value or None)."""
    adr, eq, value = text.partition("=")
    try:
        adr, value = int(adr, 0), (int(value, 0) if eq else None)
    except ValueError:
        raise TargetError(f"--sci {text!r}: ADDR or ADDR=VALUE, numbers (0x.. for hex)") from None
    if not 0 <= adr < 64 or value is not None and not 0 <= value < 256:
        raise TargetError(f"--sci {text!r}: addresses 0x00..0x3f, values 0x00..0xff")
    return adr, value


def cmd_phy(target, args):
    if args.action == "scan":
        from ecpsata.host import physcan
        return physcan.cmd_scan(target, args)
    _require(target)
    sets = [parse_set(t) for t in args.set]          # every one checked before any is written
    scis = [parse_sci(t) for t in args.sci]
    done = []
    for key, value in write_settings(target, sets):
        done.append({"set": key, "value": value})
        print(f"phy: {key} = {value}" + (" (applies at the next link attempt)"
                                          if SETTINGS[key].link and not args.restart else ""))
    sci = []
    for adr, value in scis:
        kind = "dual" if args.aux else "channel"
        if value is not None:
            if not args.aux and adr in KEPT_REGISTERS:
                print(f"note: the gateware keeps bits of channel register 0x{adr:02x} and "
                      f"rewrites them (polarity, CDR hold)")
            sci_write(target, adr, value, args.aux)
        got = sci_read(target, adr, args.aux)
        sci.append({"register": adr, "aux": bool(args.aux), "wrote": value, "read": got})
        print(f"SCI {kind} register 0x{adr:02x}: " + (f"wrote 0x{value:02x}, " if value is not None
                                                      else "") + f"reads 0x{got:02x}")
    if args.restart:
        sata.comreset(target)
        print("phy: link restarted")
    state = serdes_state(target)
    rows = settings(target)
    print("SerDes:")
    for k in ("tx_pll_locked", "tx_ready", "rx_cdr_locked", "rx_ready", "rx_los", "half_rate",
              "rate_pins"):
        print(f"  {k:<14} {state[k]}")
    print(f"  {'tx word clock':<14} {state['tx_clock_mhz']:.2f} MHz (clock meter)")
    print(f"  {'rx word clock':<14} {state['rx_clock_mhz']:.2f} MHz (clock meter)")
    print("settings (--set KEY=VALUE):")
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        choices = f" [{'/'.join(r['values'][:5])}{'/...' if len(r['values']) > 5 else ''}]" \
            if r["values"] else ""
        print(f"  {r['name']:<{width}} {r['value']:<14}{choices}  {r['text']}; {r['source']}")
    if args.json:
        report.write_json(args.json, {"tool": report.TOOL, "kind": "phy",
                                      "target": target.identity(), "serdes": state,
                                      "settings": rows, "changes": done, "sci": sci,
                                      "restarted": bool(args.restart)})
    return 0


def check(parser, args):
    """Option combinations of `phy` and `phy scan`, refused before connecting."""
    if args.command != "phy":
        return
    if args.action == "scan":
        from ecpsata.host import physcan
        if args.set or args.sci or args.restart or args.aux:
            parser.error("phy scan: --set, --sci, --aux and --restart belong to plain `phy`")
        if args.window is not None and not 0 < args.window <= 60:
            parser.error(f"phy scan: --window {args.window}: seconds, above 0 and at most 60")
        if not 1 <= args.sectors <= 65536:
            parser.error(f"phy scan: --sectors {args.sectors}: 1..65536")
        if args.sets:
            try:
                physcan.load_sets(args.sets)
            except TargetError as e:
                parser.error(f"phy scan: {e}")
    elif args.sets or args.window is not None or args.sectors != SCAN_SECTORS:
        parser.error("phy: --sets, --window and --sectors belong to `phy scan`")


def add_parser(sub):
    s = sub.add_parser("phy", help="the SerDes state, the PHY settings and the DCU's SCI registers "
                                   "at run time (no rebuild); `phy scan`: which settings link "
                                   "with the drive")
    s.add_argument("action", nargs="?", choices=("scan",),
                   help="scan: try sets of settings against the drive, rank them, apply the best")
    s.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help=f"change a setting ({', '.join(SETTINGS)}); repeatable")
    s.add_argument("--sci", action="append", default=[], metavar="ADDR[=VALUE]",
                   help="read (or write, then read back) a DCU channel register through the SCI; "
                        "repeatable")
    s.add_argument("--aux", action="store_true", help="--sci addresses the dual (aux) registers")
    s.add_argument("--restart", action="store_true", help="re-initialise the link afterwards")
    s.add_argument("--json", metavar="FILE", help="also write the state and settings as JSON")
    s.add_argument("--sets", metavar="FILE",
                   help="scan: a JSON list of {\"name\", \"settings\": {KEY: VALUE}} to try "
                        "(default: today's defaults, then each rate with each TX polarity)")
    s.add_argument("--window", type=float, default=None, metavar="S",
                   help="scan: seconds of the target's time each set may take to link "
                        "(default 0.5 on a board, 0.05 on a simulated SoC)")
    s.add_argument("--sectors", type=int, default=SCAN_SECTORS, metavar="N",
                   help=f"scan: sectors read from LBA 0 after each link (default {SCAN_SECTORS}; "
                        f"reads only)")
    s.set_defaults(func=cmd_phy)
    return s
