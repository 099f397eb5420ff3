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
from ecpsata.phy.ecp5.bringup import tx_swing_writes
from ecpsata.phy.ecp5.settings import (KEPT, KEPT_REGISTERS, SCAN_HW_WINDOW, SCAN_SECTORS,
                                       SCAN_SIM_WINDOW, SERDES, SETTINGS, ControlField,
                                       Gen1Method, SCIField, TxSwing)

SCI_TIMEOUT = 1.0     # seconds; an access takes a few sys cycles


MISSING_GEN1_METHOD = ("this gateware has no Gen1 method register "
                       "(sata_serdes_bringup_gen1_method), only the half-rate pins: it was built "
                       "with --without-gen1-method (a board's default build has it); nothing "
                       "written")


def _read_control(s, target, regs):
    word = target.reg(s.reg).read()
    got = {f: word >> target.field(s.reg, f)[0] & (1 << target.field(s.reg, f)[1]) - 1
           for f in next(iter(s.values.values()))}
    for name, fields in s.values.items():
        if fields == got:
            return name
    return ",".join(f"{f}={v}" for f, v in got.items())


def _write_control(s, target, name):
    word = target.reg(s.reg).read()
    for f, v in s.values[name].items():
        off, size = target.field(s.reg, f)
        word = word & ~((1 << size) - 1 << off) | v << off
    restart_off, _ = target.field(s.reg, "restart")
    target.reg(s.reg).write(word & ~(1 << restart_off))


def _read_sci(s, target, regs):
    v = _cached_read(target, regs, s.adr, s.aux) >> s.lo & (1 << s.size) - 1
    return next((n for n, x in s.values.items() if x == v), str(v))


def _write_sci(s, target, name):
    mask = (1 << s.size) - 1 << s.lo
    old = sci_read(target, s.adr, s.aux)
    sci_write(target, s.adr, old & ~mask | s.values[name] << s.lo, s.aux)


def _read_swing(s, target, regs):
    regs = {} if regs is None else regs
    for name, swing in s.values.items():
        if all(_cached_read(target, regs, adr) & mask == value
               for adr, (mask, value) in tx_swing_writes(swing).items()):
            return name
    return "custom"


def _write_swing(s, target, name):
    for adr, (mask, value) in tx_swing_writes(s.values[name]).items():
        sci_write(target, adr, sci_read(target, adr) & ~mask | value)


def _read_gen1_method(s, target, regs):
    if not target.has(s.reg):
        return "pins"    # a build without the choice: Gen1 through the pins only
    off, _ = target.field(s.reg, "dividers")
    return "dividers" if target.reg(s.reg).read() >> off & 1 else "pins"


def _write_gen1_method(s, target, name):
    if not target.has(s.reg):
        if name == "pins":
            return                         # the only method of such a build
        raise TargetError(MISSING_GEN1_METHOD)
    div = f"/{s.divider[name]}"
    for key in ("tx_vco_div", "rx_dco_div"):
        write(target, key, div)
    off, _ = target.field(s.reg, "dividers")
    target.reg(s.reg).write(s.values[name] << off)


# How each kind of setting (ecpsata/phy/ecp5/settings.py) is read and written on a target.
_ACCESS = {ControlField: (_read_control, _write_control), SCIField: (_read_sci, _write_sci),
           TxSwing: (_read_swing, _write_swing),
           Gen1Method: (_read_gen1_method, _write_gen1_method)}


def read(target, key, regs=None):
    """Setting `key`'s value name on the target; `regs` caches the SCI registers read
    ({(aux, adr): value}, filled as read)."""
    s = SETTINGS[key]
    return _ACCESS[type(s)][0](s, target, regs)


def write(target, key, name):
    """Sets `key` to the value named `name` (one of SETTINGS[key].values)."""
    s = SETTINGS[key]
    _ACCESS[type(s)][1](s, target, name)


def _cached_read(target, regs, adr, aux=False):
    """An SCI register through `regs` ({(aux, adr): value}, filled as read), or read directly."""
    if regs is None:
        return sci_read(target, adr, aux)
    if (aux, adr) not in regs:
        regs[(aux, adr)] = sci_read(target, adr, aux)
    return regs[(aux, adr)]


def check_sets(target, sets):
    """`sets` ([(key, value)], in the order given) in the order to write them, refused when they
    would leave the Gen1 method `dividers` with a rate other than Gen1 (the gateware does not
    rewrite the dividers at a speed change); what is not in `sets` is read from the target."""
    final = dict(sets)
    if final.get("gen1_method") == "dividers" and not target.has(Gen1Method.reg):
        raise TargetError(MISSING_GEN1_METHOD)
    if "gen1_method" in final or "gen" in final:
        method = final.get("gen1_method") or read(target, "gen1_method")
        gen = final.get("gen") or read(target, "gen")
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
        write(target, key, value)
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
             "value": read(target, n, regs),
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
                        f"(default {SCAN_HW_WINDOW:g} on a board, {SCAN_SIM_WINDOW:g} on a simulated SoC)")
    s.add_argument("--sectors", type=int, default=SCAN_SECTORS, metavar="N",
                   help=f"scan: sectors read from LBA 0 after each link (default {SCAN_SECTORS}; "
                        f"reads only)")
    s.set_defaults(func=cmd_phy)
    return s
