# SPDX-License-Identifier: BSD-2-Clause
"""The real-world line, one impairment at a time: each of the virtual drive's silicon failure modes
(ecpsata/sim/vdrive/README.md, "The real-world line") against the simulated SoC, on a fresh board and drive.

For each drive configuration it prints the line rate the link came up at, the time to link and the
retries (the PHY's own counters), the result of `verify --allow-write --range 0:8192` (a pattern
written and read back through the engine's checker), and with --rate the MB/s of one
65,536-sector write and read (the engine's cycle counter at the boards' 75 MHz).

    .venv/bin/python scripts/line_check.py                    # every row, about two minutes
    .venv/bin/python scripts/line_check.py --rate             # plus one 32 MiB command each way
    .venv/bin/python scripts/line_check.py --only 'field=1,max_gen=3;ppm=350'

A row passes when the link is at Gen2 (Gen1 for a Gen1-only drive) and the verify is clean; with
--rate, when reads and writes reach the issue's 288 / 284 MB/s. Exits 1 if a row fails. Needs the
simulated SoC (make sim-build).
"""

import argparse
import json
import os
import subprocess
import sys


from ecpsata.paths import ROOT as REPO
from ecpsata.host.simboard import SimBoard, pick_free_port

# (drive keys, expected line rate)
ROWS = [
    ("", 2),
    ("echo_ns=20", 2),
    ("align_dwell_us=30", 2),
    ("max_gen=3", 2),
    ("tx_polarity=1,auto_polarity=0", 2),
    ("ppm=350", 2),
    ("ppm=-350", 2),
    ("ssc=1", 2),
    ("ppm=350,ssc=1", 2),
    ("max_gen=1", 1),
    ("max_gen=1,ppm=350,ssc=1", 1),
    ("field=1", 2),
    ("field=1,max_gen=3", 2),
]
MIN_MBPS = {"read": 288.0, "write": 284.0}   # the floor for one 65,536-sector command
VERIFY_RANGE = "0:8192"
RATE_RANGE = "0:65536"


def cli(board, out_dir, name, *args, timeout=900):
    """One host CLI command against the board; returns (rc, its JSON or None, its stderr).
    `identify --json` prints its JSON; the experiments write it to a file."""
    path = os.path.join(out_dir, name + ".json")
    if os.path.exists(path):
        os.remove(path)
    cmd = [sys.executable, "-m", "ecpsata", "--port",
           str(board.server_port), "--csr-csv", os.path.join(board.build_dir, "csr.csv"),
           "--timeout", "120", *args, "--json"] + ([] if name == "identify" else [path])
    p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout)
    if name == "identify":
        data = json.loads(p.stdout) if p.returncode == 0 else None
    else:
        data = json.load(open(path)) if os.path.exists(path) else None
    return p.returncode, data, p.stderr.strip()


def check(keys, gen, rate, out_dir):
    res = {"keys": keys or "(none)", "ok": True, "notes": []}
    with SimBoard(server_port=pick_free_port(), vdrive=keys or None,
                  log_dir=os.path.join(out_dir, "run")) as board:
        board.wait_prompt()
        rc, ident, err = cli(board, out_dir, "identify", "identify")
        if rc or not ident:
            res.update(ok=False, link="-")
            res["notes"].append(err.splitlines()[-1] if err else f"identify rc {rc}")
            return res
        link = ident["link"]
        res.update(gen=link["gen"], link_us=link["time_to_link_us"], retries=link["retries"])
        if link["gen"] != gen:
            res["ok"] = False
            res["notes"].append(f"linked at Gen{link['gen']}, not Gen{gen}")
        rc, ver, err = cli(board, out_dir, "verify", "verify", "--allow-write", "--range",
                           VERIFY_RANGE)
        row = (ver or {"rows": [{}]})["rows"][0]
        res["verify"] = row.get("result", "error")
        res["bad"] = row.get("bad_sectors", "-")
        if rc or res["verify"] != "PASS":
            res["ok"] = False
            res["notes"].append(err.splitlines()[-1] if err else "verify failed")
        if rate:
            rc, single, err = cli(board, out_dir, "single", "single", "--write", "--allow-write",
                                  "--range", RATE_RANGE)
            for r in (single or {"rows": []})["rows"]:
                res[r["op"]] = r["mbps"]
            for op, floor in MIN_MBPS.items():
                if gen == 2 and res.get(op, 0) < floor:
                    res["ok"] = False
                    res["notes"].append(f"{op} {res.get(op, 0):.2f} MB/s < {floor}")
            if rc:
                res["ok"] = False
                res["notes"].append(err.splitlines()[-1] if err else f"single rc {rc}")
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="drive configurations, ';' between (default: every row)")
    ap.add_argument("--rate", action="store_true",
                    help="also one 65,536-sector write and read per row (about 40 s a row)")
    ap.add_argument("--out", default=os.path.join(REPO, "build", "line_check"),
                    help="folder for the CLI's JSON and the simulation logs")
    args = ap.parse_args(argv)
    rows = ROWS
    if args.only:
        wanted = [k.strip() for k in args.only.split(";")]
        known = dict(ROWS)
        rows = [(k, known.get(k, 1 if "max_gen=1" in k else 2)) for k in wanted]
    args.out = os.path.abspath(args.out)   # the simulation runs in its own folder
    os.makedirs(args.out, exist_ok=True)
    head = f"{'drive keys':<32} {'gen':>3} {'link us':>9} {'retries':>7} {'verify':>6}"
    if args.rate:
        head += f" {'read MB/s':>9} {'write MB/s':>10}"
    print(head + "  verdict")
    failed = 0
    for keys, gen in rows:
        r = check(keys, gen, args.rate, args.out)
        line = (f"{r['keys']:<32} {r.get('gen', '-'):>3} {r.get('link_us', 0):>9.2f} "
                f"{r.get('retries', '-'):>7} {r.get('verify', '-'):>6}")
        if args.rate:
            line += f" {r.get('read', 0):>9.2f} {r.get('write', 0):>10.2f}"
        line += "  " + ("pass" if r["ok"] else "FAIL: " + "; ".join(r["notes"]))
        print(line, flush=True)
        failed += not r["ok"]
    print(f"{len(rows) - failed} of {len(rows)} rows pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
