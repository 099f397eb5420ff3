# SPDX-License-Identifier: BSD-2-Clause
"""Native Command Queuing on the simulated SoC: 4 KiB random read IOPS against queue depth on each
NCQ persona of the virtual drive, and an NCQ error under a full queue.

    .venv/bin/python scripts/ncq_check.py                 # every part, a few minutes
    .venv/bin/python scripts/ncq_check.py --only hdd7200,error -n 64

Each persona runs on a fresh board and drive: `identify` (the queue depth the drive advertises),
then `random --min 8 --max 8 --qd 1,2,4,8,16,32` (hdd7200 over its whole capacity, 1 TB; the
others over 1 GiB), whose figures
are the queued engine's cycle counters at the boards' 75 MHz. Verdicts:

- hdd7200: QD32 at least 2x QD1 (the drive reorders its queue for the shortest positioning);
- slc: the depth where IOPS stop growing (less than 10 % more for twice the depth);
- ideal: QD32 at least 90 % of the 4 KiB limit of the line for this host, computed from
  per-FIS costs measured on the same board: non-queued sequential READ DMA EXT of 1 and 8 sectors
  (one Data FIS each) give the time per data dword c = (t8 - t1) / (7 x 128) and the cost of a FIS
  beyond its payload o = (t1 - 139 c) / 3 (a 1-sector read is 3 FISes: Register H2D 5 dwords,
  Data 1 + 128, Register D2H 5). A queued 4 KiB read is Register H2D (5), Register D2H (5), DMA
  Setup (7), Data (1 + 1,024) and at best an eighth of a Set Device Bits FIS (2; the drive
  reports up to 8 tags in one): limit = f / (1,042 c + 4 o + (2 c + o) / 8). For reference, the
  drive model's zero-latency C host reaches 68,205 IOPS (ecpsata/sim/vdrive/README.md).
- error: a drive with `error_lba` inside the range fails that tag: the run must end with a device
  error naming the LBA and the tag, having re-issued what the drive aborted; then a non-queued
  verify and a queued run on the same board must be clean.

Writes OUT/random_<persona>.json and .png (IOPS against queue depth, the non-queued figure
beside it) and OUT/ncq_check.json. Exits 1 if a verdict fails. Needs the simulated SoC (make
sim-build).
"""

import argparse
import json
import os
import sys


from ecpsata.paths import ROOT as REPO
from ecpsata.host.simboard import SimBoard, pick_free_port
from line_check import cli

DEPTHS = (1, 2, 4, 8, 16, 32)
C_HOST_IOPS = 68_205        # 4 KiB reads, Gen2, zero-latency C host (ecpsata/sim/vdrive/README.md)


def line_limit(t1, t8, f):
    """4 KiB queued-read IOPS the line allows this host (the module docstring's formula), from
    the cycles per command of non-queued 1- and 8-sector reads at sys clock f."""
    c = (t8 - t1) / (7 * 128)
    o = (t1 - 139 * c) / 3
    return f / (1042 * c + 4 * o + (2 * c + o) / 8), c, o
ERROR_LBA = 5000
ERROR_RANGE = "4992:256"     # 32 slots of 8 sectors, one of them holds ERROR_LBA
CLEAN_RANGE = "8192:8192"


def qd_sweep(persona, n, out_dir):
    keys = f"persona={persona}" + {"ideal": ",ncq=1", "hdd7200": ",capacity=1T"}.get(persona, "")
    with SimBoard(server_port=pick_free_port(), vdrive=keys,
                  log_dir=os.path.join(out_dir, "run")) as board:
        board.wait_prompt()
        rc, ident, err = cli(board, out_dir, "identify", "identify")
        if rc:
            return {"ok": False, "note": err.splitlines()[-1] if err else f"identify rc {rc}"}
        drive = ident["identify"]
        rng = f"0:{drive['sectors']}" if persona == "hdd7200" else "0:2097152"
        rc, res, err = cli(board, out_dir, f"random_{persona}", "random", "--min", "8", "--max",
                           "8", "-n", str(n), "--qd", ",".join(map(str, DEPTHS)), "--range", rng,
                           "--plot", os.path.join(out_dir, f"random_{persona}.png"), timeout=3600)
        if rc or not res:
            return {"ok": False, "note": err.splitlines()[-1] if err else f"random rc {rc}"}
        if persona == "ideal":
            rc, dma, err = cli(board, out_dir, "random_dma", "random", "--min", "1", "--max", "8",
                               "-n", str(n), "--range", rng)
            if rc or not dma:
                return {"ok": False, "note": err.splitlines()[-1] if err else f"random rc {rc}"}
    row = res["rows"][0]
    iops = {d: row[f"qd{d}_iops"] for d in DEPTHS}
    out = {"advertised": drive["queue_depth"] if drive["ncq"] else 0, "range": rng,
           "iops": iops, "depth": {d: row[f"qd{d}_depth"] for d in DEPTHS},
           "dma_iops": row["random_iops"]}
    if persona == "hdd7200":
        out["ratio"] = iops[32] / iops[1]
        out["ok"] = out["ratio"] >= 2.0
        out["note"] = f"QD32 / QD1 = {out['ratio']:.2f} (needs >= 2)"
    elif persona == "slc":
        sat = next((d for d in DEPTHS[:-1] if iops[2 * d] < 1.1 * iops[d]), 32)
        out["saturation_qd"] = sat
        out["ok"] = iops[32] > iops[1]
        out["note"] = (f"IOPS stop growing at QD{sat} ({iops[sat]:.0f}; "
                       f"{iops[sat] / C_HOST_IOPS:.1%} of the zero-latency C host's 4 KiB limit)")
    else:
        f = res["target"]["sys_clk_hz"]
        seq = {r["sectors"]: r["seq_cycles"] / n for r in dma["rows"]}
        limit, c, o = line_limit(seq[1], seq[8], f)
        out.update(line_iops=limit, cycles_per_dword=c, fis_overhead_cycles=o,
                   line_share=iops[32] / limit)
        out["ok"] = out["line_share"] >= 0.9
        out["note"] = (f"QD32 = {out['line_share']:.1%} of the line's {limit:.0f} IOPS for this host "
                       f"(c = {c:.3f} cycles per dword, o = {o:.1f} cycles per FIS; needs >= 90 %); "
                       f"{iops[32] / C_HOST_IOPS:.1%} of the zero-latency C host's {C_HOST_IOPS}")
    return out


def error_check(n, out_dir):
    out = {"ok": True, "notes": []}
    with SimBoard(server_port=pick_free_port(), vdrive=f"persona=slc,error_lba={ERROR_LBA}",
                  log_dir=os.path.join(out_dir, "run")) as board:
        board.wait_prompt()
        rc, res, err = cli(board, out_dir, "random_error", "random", "--min", "8", "--max", "8",
                           "-n", str(n), "--qd", "32", "--queued-only", "--range", ERROR_RANGE)
        out["message"] = next((l for l in reversed(err.splitlines()) if l.startswith("error")), "")
        ncq = ((res or {}).get("error") or {}).get("ncq") or {}
        out["ncq"] = ncq
        if rc == 0 or ncq.get("lba") != ERROR_LBA or ncq.get("tag") is None:
            out["ok"] = False
            out["notes"].append(f"the error was not reported with LBA {ERROR_LBA} and a tag")
        rc, res, err = cli(board, out_dir, "verify_after", "verify", "--allow-write", "--range",
                           CLEAN_RANGE)
        out["verify"] = (res or {}).get("summary", {}).get("passed")
        if rc or not out["verify"]:
            out["ok"] = False
            out["notes"].append("verify after the error: " + (err.splitlines()[-1] if err else "FAIL"))
        rc, res, err = cli(board, out_dir, "random_after", "random", "--min", "8", "--max", "8",
                           "-n", str(n), "--qd", "32", "--range", CLEAN_RANGE)
        if rc or not res:
            out["ok"] = False
            out["notes"].append("queued run after the error: " + (err.splitlines()[-1] if err else f"rc {rc}"))
        else:
            out["iops_after"] = res["rows"][0]["qd32_iops"]
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-n", type=int, default=128, help="reads per queue depth (hdd7200: a quarter)")
    p.add_argument("--only", default="hdd7200,slc,ideal,error", help="parts, comma separated")
    p.add_argument("--out", default=os.path.join(REPO, "build", "ncq_check"))
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    failed, report = 0, {}
    for part in args.only.split(","):
        if part == "error":
            r = error_check(args.n, args.out)
            print(f"error   {'pass' if r['ok'] else 'FAIL'}: {r['message']}")
            print(f"        verify {CLEAN_RANGE} after it: {'PASS' if r.get('verify') else 'FAIL'}; "
                  f"QD32 run after it: {r.get('iops_after', 0):.0f} IOPS " + "; ".join(r["notes"]))
        else:
            n = max(16, args.n // 4) if part == "hdd7200" else args.n
            r = qd_sweep(part, n, args.out)
            if "iops" in r:
                print(f"{part:8s} advertised QD {r['advertised']}, range {r['range']}, "
                      f"{n} reads of 4 KiB per depth; non-queued READ DMA EXT {r['dma_iops']:.0f} IOPS")
                print("        QD      " + "".join(f"{d:>9d}" for d in DEPTHS))
                print("        IOPS    " + "".join(f"{r['iops'][d]:9.0f}" for d in DEPTHS))
                print("        reached " + "".join(f"{r['depth'][d]:9d}" for d in DEPTHS))
            print(f"        {'pass' if r['ok'] else 'FAIL'}: {r['note']}")
        report[part] = r
        failed += not r["ok"]
    with open(os.path.join(args.out, "ncq_check.json"), "w") as f:
        json.dump(report, f, indent=1, default=str)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
