# SPDX-License-Identifier: BSD-2-Clause
"""The SerDes self-test, without a drive: `ecpsata selftest [--gen 1|2|both] [--seconds S]
[--lb-ctl V | --far-end] [--json FILE]`.

The PHY's self-test state (ecpsata/phy/selftest.py) sends PRBS31 data dwords through our 8b10b
encoder, the gearing and the DCU's serializer; a loopback brings them back through the CDR, the
deserializer, our comma aligner and decoder and the RX crossing to a checker in sys. Near-end
(default) loops inside the DCU: the channel's loopback control (lb_ctl, SCI channel register
0x15 bits 0-3) is set for the run and restored afterwards. TN1261's register map has one
near-end loopback, `t2r` (bit 0: the serializer's line into the receiver; LiteICLink's ECP5
SerDes writes the same and notes it may not be enough on silicon); its other bits echo the
received line on the TX pair (far-end loopbacks for a tester at the other end), so they cannot
check our own data (ecpsata/phy/ecp5/bringup.py). `--lb-ctl V` writes any other value.
Far-end (--far-end) leaves the DCU alone and needs a loopback plug or a cable from the TX pair
to the RX pair: it also checks the connector and the pair polarity.

Every figure is read from the gateware's counters: data dwords checked (32 bits each), wrong
dwords and bits, 8b10b code and disparity errors, ALIGNs straight and inverted, the checker's
lock time, the window's length in sys cycles; the word clocks from the clock meters. The BER
bound is the Poisson upper limit at 95 % confidence for the errors seen in the bits checked.
"""

import argparse
import math
import sys
import time

from ecpsata.host import phy, report
from ecpsata.host.target import TargetError
from ecpsata.phy.ecp5.bringup import LOOPBACK_DEFAULT, LOOPBACK_MODES, SCI_CH_LOOPBACK

PREFIX = "sata_phy_selftest_"
LOCK_TIMEOUT = 10e-3    # target seconds for the checker to lock (PLL and CDR take microseconds)
STALL_TIMEOUT = 10.0    # wall seconds without the target's cycle counter moving: target gone
SIM_SECONDS = 2e-3      # default window on a simulated SoC (about 250 times slower than real time)
HW_SECONDS = 10.0       # default window on a board
CONFIDENCE = 0.95
COUNTERS = ("lock_time", "elapsed", "dwords", "dword_errors", "bit_errors", "code_errors",
            "disp_errors", "aligns", "aligns_inverted", "sync_losses")


def poisson_upper(k, confidence=CONFIDENCE):
    """The mean m with P(X <= k | m) = 1 - confidence: the upper limit on a count's mean."""
    def cdf(m):
        term = total = math.exp(-m)
        for i in range(1, k + 1):
            term *= m / i
            total += term
        return total
    lo, hi = 0.0, 10.0 + 10 * k
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) > 1 - confidence else (lo, mid)
    return hi


def _fields(target, reg, names):
    word = target.reg(reg).read()
    out = {}
    for n in names:
        off, size = target.field(reg, n)
        out[n] = word >> off & (1 << size) - 1
    return out


def diagnose(r, near_end):
    """PASS or FAIL with the reason, from a run's figures."""
    others = "".join(f"--loopback {n}, " for n in LOOPBACK_MODES if n != r["loopback"])
    where = (f"the DCU's internal loopback ({r['loopback']}) may not loop on this silicon: try "
             f"{others}--lb-ctl with another value of TN1261's field, or --far-end with a "
             f"loopback plug" if near_end else
             "nothing comes back from the connector: check the loopback plug or cable, and "
             "that it joins the TX pair to the RX pair")
    if not r["tx_pll_locked"]:
        return "FAIL", (f"TX PLL not locked (D_FFS_PLOL high; TX word clock "
                        f"{r['tx_clock_mhz']:.2f} MHz): no reference clock at the DCU, or a PLL "
                        f"multiplier that does not work (x10 did not on an ECPIX-5)")
    if not r["rx_cdr_locked"]:
        return "FAIL", f"CDR not locked (CHx_FFS_RLOL high): {where}"
    if not r["lock_time"]:
        if r["aligns_inverted"] and not r["aligns"]:
            return "FAIL", (f"{r['aligns_inverted']} ALIGNs received inverted and the data never "
                            f"matched: a pair's polarity is swapped (" +
                            ("inside the DCU: check the invert bits, SCI channel register 0x01"
                             if near_end else "on the board or in the cable: phy --set "
                             "tx_polarity=inverted, or swap the pair") + ")")
        if r["code_errors"] or r["disp_errors"]:
            return "FAIL", (f"{r['code_errors']} 8b10b code and {r['disp_errors']} disparity "
                            f"errors and the data never matched: a stuck or broken bit between "
                            f"the encoder and the decoder, or a word clock off its rate (TX "
                            f"{r['tx_clock_mhz']:.2f} MHz, RX {r['rx_clock_mhz']:.2f} MHz)")
        return "FAIL", f"the CDR locked but no PRBS data came back within the lock timeout: {where}"
    errors = r["bit_errors"] + r["code_errors"] + r["disp_errors"] + r["sync_losses"]
    if errors:
        return "FAIL", (f"{r['bit_errors']} bit errors in {r['dword_errors']} dwords, "
                        f"{r['code_errors']} code and {r['disp_errors']} disparity errors, "
                        f"{r['sync_losses']} losses of the stream in {r['bits']:.3g} bits: "
                        f"a marginal line (swing, equaliser, termination) or clocks")
    if not r["dwords"]:
        return "FAIL", "the checker locked but checked no dwords: the window was too short"
    return "PASS", (f"0 errors in {r['bits']:.3g} bits: BER < {r['ber_bound']:.2g} at "
                    f"{CONFIDENCE:.0%} confidence")


def run_one(target, gen, seconds, loopback):
    """One self-test at `gen` (1 or 2) with `loopback` (name, mask, value) or None (far-end):
    the figures and the verdict."""
    near_end = loopback is not None
    f = target.sys_clk_hz()
    cycles = int(round(seconds * f))
    if not 1 <= cycles < 2 ** 32:
        raise TargetError(f"--seconds {seconds}: 1 sys cycle .. {(2**32 - 1) / f:.0f} s at "
                          f"{f / 1e6:.1f} MHz")
    old_control = target.reg("sata_phy_control").read()
    old_lb = phy.sci_read(target, SCI_CH_LOOPBACK) if near_end else None
    reg = lambda n: target.reg(PREFIX + n)
    try:
        if near_end:
            _, mask, value = loopback
            phy.sci_write(target, SCI_CH_LOOPBACK, old_lb & ~mask | value)
        phy.write(target, "gen", f"gen{gen}")
        reg("control").write(0)
        reg("duration").write(cycles)
        reg("control").write(1)
        lock_cycles = LOCK_TIMEOUT * f
        last, stalled_since = -1, time.monotonic()
        while True:
            st = _fields(target, PREFIX + "status", ("locked", "done"))
            elapsed, lock_time = reg("elapsed").read(), reg("lock_time").read()
            if st["done"] or (not lock_time and elapsed > lock_cycles):
                break
            if elapsed != last:
                last, stalled_since = elapsed, time.monotonic()
                if sys.stderr.isatty() and lock_time:
                    sys.stderr.write(f"\rGen{gen}: {(elapsed - lock_time) / f:.1f} of {seconds:g} s, "
                                     f"{reg('bit_errors').read()} bit errors\x1b[K")
            elif time.monotonic() - stalled_since > STALL_TIMEOUT:
                raise TargetError(f"the self-test's cycle counter stopped at {elapsed} for "
                                  f"{STALL_TIMEOUT:.0f} s: the target stopped running")
            time.sleep(0.05)
        if sys.stderr.isatty():
            sys.stderr.write("\r\x1b[K")
        r = {n: reg(n).read() for n in COUNTERS}
        r.update(phy.serdes_state(target))
    finally:
        reg("control").write(0)
        if near_end:
            phy.sci_write(target, SCI_CH_LOOPBACK, old_lb)
        off, _ = target.field("sata_phy_control", "restart")
        target.reg("sata_phy_control").write(old_control & ~(1 << off))
    r.update({"gen": gen, "mode": "near-end" if near_end else "far-end",
              "loopback": loopback[0] if near_end else None,
              "lb_register": (old_lb & ~loopback[1] | loopback[2]) if near_end else None,
              "done": bool(st["done"]),
              "bits": 32 * r["dwords"], "lock_time_us": r["lock_time"] * 1e6 / f,
              "window_s": (r["elapsed"] - r["lock_time"]) / f if r["lock_time"] else 0.0})
    r["ber_bound"] = (poisson_upper(r["bit_errors"]) / r["bits"]) if r["bits"] else None
    r["verdict"], r["reason"] = diagnose(r, near_end)
    return r


def _table(runs):
    head = ("rate", "PLL", "CDR", "TX clock", "RX clock", "lock", "bits checked", "bit errors",
            "code", "disp", "BER (95 %)", "result")
    rows = [head]
    for r in runs:
        rows.append((f"Gen{r['gen']}", "yes" if r["tx_pll_locked"] else "NO",
                     "yes" if r["rx_cdr_locked"] else "NO", f"{r['tx_clock_mhz']:.2f} MHz",
                     f"{r['rx_clock_mhz']:.2f} MHz",
                     f"{r['lock_time_us']:.1f} us" if r["lock_time"] else "never",
                     f"{r['bits']:.3g}", str(r["bit_errors"]), str(r["code_errors"]),
                     str(r["disp_errors"]),
                     f"< {r['ber_bound']:.2g}" if r["ber_bound"] is not None else "-",
                     r["verdict"]))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]


def cmd_selftest(target, args):
    if not target.has(PREFIX + "control"):
        raise TargetError("this gateware has no PHY self-test (no sata_phy_selftest_* "
                          "registers): rebuild it")
    near_end = not args.far_end
    if near_end and not phy.present(target):
        raise TargetError("a near-end self-test loops inside the ECP5 DCU, through the SCI: this "
                          "gateware has none (the simulated board's SerDes model); use --far-end "
                          "with a loopback on the line")
    ident = target.identity()
    seconds = args.seconds
    if seconds is None:
        seconds = SIM_SECONDS if "simulated" in ident["features"] else HW_SECONDS
        if "simulated" in ident["features"]:
            print(f"note: simulated SoC: a {seconds * 1e3:g} ms window per rate (--seconds)")
    gens = {"1": [1], "2": [2], "both": [2, 1]}[args.gen]
    if 2 in gens and phy.read(target, "gen1_method") == "dividers":
        raise TargetError("gen1_method is dividers, which makes Gen1 only: run `phy --set "
                          "gen1_method=pins` first, or the self-test with --gen 1: nothing run")
    if args.lb_ctl is not None:
        loopback = (f"lb_ctl={args.lb_ctl}", 0x0F, args.lb_ctl)
    else:
        name = args.loopback or LOOPBACK_DEFAULT
        loopback = (name, *LOOPBACK_MODES[name])
    loopback = loopback if near_end else None
    print("selftest: " + (f"near-end loopback inside the DCU ({loopback[0]})" if near_end
                          else "far-end: TX pair to RX pair through a loopback plug or cable") +
          f", PRBS31, {seconds:g} s per rate")
    runs = []
    for gen in gens:
        r = run_one(target, gen, seconds, loopback)
        runs.append(r)
    for line in _table(runs):
        print(line)
    for r in runs:
        print(f"Gen{r['gen']}: {r['verdict']}: {r['reason']}")
    verdict = "PASS" if all(r["verdict"] == "PASS" for r in runs) else "FAIL"
    print(f"selftest: {verdict}")
    if args.json:
        report.write_json(args.json, {"tool": report.TOOL, "kind": "selftest", "target": ident,
                                      "mode": runs[0]["mode"], "verdict": verdict,
                                      "confidence": CONFIDENCE, "runs": runs})
    return 0 if verdict == "PASS" else 1


def _lb_ctl(text):
    try:
        v = int(text, 0)
    except ValueError:
        v = -1
    if not 1 <= v < 16:
        raise argparse.ArgumentTypeError(f"{text!r}: a loopback control value 1..15")
    return v


def _seconds(text):
    try:
        v = float(text)
    except ValueError:
        v = -1
    if not 0 < v <= 57:
        raise argparse.ArgumentTypeError(f"{text!r}: seconds, above 0 and at most 57 (the "
                                         f"gateware's 32-bit window at 75 MHz)")
    return v


def add_parser(sub):
    s = sub.add_parser("selftest", help="the SerDes checked without a drive: PRBS31 through the "
                                        "whole PHY in a loopback, bit errors and a BER bound")
    s.add_argument("--gen", choices=("1", "2", "both"), default="both",
                   help="line rates to test (default both: Gen2, then Gen1)")
    s.add_argument("--seconds", type=_seconds, default=None,
                   help=f"window per rate, of the target's time (default {HW_SECONDS:g} on a "
                        f"board, {SIM_SECONDS * 1e3:g} ms on a simulated SoC)")
    lb = s.add_mutually_exclusive_group()
    lb.add_argument("--loopback", choices=tuple(LOOPBACK_MODES), default=None,
                    help=f"near-end: a loopback mode of TN1261's register map (default "
                         f"{LOOPBACK_DEFAULT}: lb_ctl = 1, the serial TX-to-RX loopback)")
    lb.add_argument("--lb-ctl", type=_lb_ctl, default=None, metavar="V",
                    help="near-end: any other lb_ctl value (SCI channel register 0x15 bits 0-3), "
                         "1..15")
    lb.add_argument("--far-end", action="store_true",
                   help="loop through the connector (a loopback plug or a cable from TX to RX) "
                        "instead of inside the DCU")
    s.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    s.set_defaults(func=cmd_selftest)
    return s
