# SPDX-License-Identifier: BSD-2-Clause
"""Timing margin over placements: place and route one board with several nextpnr seeds.

    .venv/bin/python scripts/seed_sweep.py ecpix5 [--seeds 1,2,3] [--margin 0.10] [--jobs 2]

Builds the board once (SoC, firmware, Yosys and nextpnr with the first seed, in
build/sweep/BOARD), then runs nextpnr again on the same synthesised netlist with each further seed
(nextpnr only: the netlist does not depend on the seed). Prints fmax per clock per seed, then the
minimum, median and maximum per clock and the margin of the minimum over the clock's frequency
(for sys the frequency it runs at, not the faster one nextpnr places it against:
ecpsata/soc/builder.py PLACEMENT_MARGIN). Exits 1 when any seed leaves any clock less than
--margin above its frequency, or when a seed's router stalls (stopped after
ecpsata.soc.build.ROUTER_STALL_S without progress; listed as such). --report prints the table
again from an earlier sweep's logs in the same folder. Options it does not know go to the board's
build (`--without-frame-check`: `make sweep BOARD=ecpix5 BUILD_ARGS=--without-frame-check`).

Not part of `make test` (which builds once): a sweep of three seeds takes about three builds' time
on two cores.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor


from ecpsata.paths import ROOT as REPO, TOOLS
from ecpsata.soc import boards
from ecpsata.soc.build import (STALLED_EXIT, RouterStalled, clock_name, design_clocks,
                               nextpnr_args, nextpnr_report, run_watched)
from ecpsata.soc.builder import PLACEMENT_MARGIN


def _seeds(text):
    try:
        seeds = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds are integers separated by commas, not {text!r}")
    if not seeds or any(s < 1 for s in seeds) or len(set(seeds)) != len(seeds):
        raise argparse.ArgumentTypeError("give one or more distinct seeds >= 1")
    return seeds


def place_seed(gateware, seed, env):
    """nextpnr alone with another seed; its own log and config. Returns (seed, clocks, seconds);
    clocks is None when the router stalled (ecpsata.soc.build.ROUTER_STALL_S)."""
    out = nextpnr_args(gateware, seed, drop=("--textcfg",))
    if "--timing-allow-fail" not in out:
        out.append("--timing-allow-fail")
    out += ["--textcfg", f"seed{seed}.config"]
    log = os.path.join(gateware, f"seed{seed}.log")
    t0 = time.time()
    try:
        code = run_watched(out, gateware, log, env=env)
    except RouterStalled as e:
        print(f"[sweep] seed {seed}: {e}", flush=True)
        return seed, None, time.time() - t0
    if code != 0:
        raise SystemExit(f"nextpnr with seed {seed} failed (exit {code}); log: {log}")
    clocks, _ = nextpnr_report(open(log).read(), design_clocks(gateware))
    return seed, clocks, time.time() - t0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("board", choices=boards.names("placed"))
    parser.add_argument("--seeds", type=_seeds, default=[1, 2, 3], help="comma-separated (default 1,2,3)")
    parser.add_argument("--margin", type=float, default=PLACEMENT_MARGIN,
                        help=f"required fmax margin over each clock's frequency (default "
                             f"{PLACEMENT_MARGIN:.2f} = {100 * PLACEMENT_MARGIN:.0f} %%, the margin "
                             f"nextpnr is asked for on sys)")
    parser.add_argument("--jobs", type=int, default=2, help="nextpnr runs at once (default 2)")
    parser.add_argument("--build-dir", default=None, help="default build/sweep/BOARD")
    parser.add_argument("--reuse", action="store_true",
                        help="reuse the synthesised netlist of an earlier sweep in the same folder")
    parser.add_argument("--report", action="store_true",
                        help="place nothing: the table from an earlier sweep's logs in the same "
                             "folder (a log without a clock report counts as a stalled router)")
    # What it does not know goes to the board's build (its options: --without-frame-check, ...).
    args, build_args = parser.parse_known_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")

    build_dir = os.path.abspath(args.build_dir or os.path.join(REPO, "build", "sweep", args.board))
    gateware = os.path.join(build_dir, "gateware")
    env = dict(os.environ, PATH=TOOLS + os.pathsep + os.environ.get("PATH", ""))
    first, rest = args.seeds[0], args.seeds[1:]
    results = {}
    if args.report:
        rest = []
        for seed in args.seeds:
            log = os.path.join(gateware, f"seed{seed}.log")
            if not os.path.exists(log) and seed == first:
                log = os.path.join(gateware, "build.log")
            if not os.path.exists(log):
                raise SystemExit(f"no log of seed {seed} in {gateware}")
            results[seed] = nextpnr_report(open(log).read(), design_clocks(gateware))[0] or None
    elif args.reuse and os.path.exists(gateware):
        rest = args.seeds
    else:
        print(f"[sweep] {args.board}: full build with seed {first} in {build_dir}", flush=True)
        t0 = time.time()
        p = subprocess.run([sys.executable, "-m", "ecpsata.soc.build", args.board, "--build-dir", build_dir,
                            "--seed", str(first), "--allow-timing-fail", *build_args],
                           cwd=REPO, env=env)
        if p.returncode == STALLED_EXIT:          # the netlist is there: the other seeds go on
            results[first] = None
            print(f"[sweep] seed {first}: router stalled, stopped after {time.time() - t0:.0f} s",
                  flush=True)
        elif p.returncode != 0:
            raise SystemExit(f"build with seed {first} failed")
        else:
            results[first] = nextpnr_report(open(os.path.join(gateware, "build.log")).read(),
                                            design_clocks(gateware))[0]
            print(f"[sweep] seed {first}: built in {time.time() - t0:.0f} s", flush=True)
    if rest:
        print(f"[sweep] nextpnr with seeds {', '.join(map(str, rest))} ({args.jobs} at once)", flush=True)
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for seed, clocks, secs in pool.map(lambda s: place_seed(gateware, s, env), rest):
                results[seed] = clocks
                done = "placed and routed in" if clocks else "router stalled, stopped after"
                print(f"[sweep] seed {seed}: {done} {secs:.0f} s", flush=True)

    stalled = sorted(seed for seed, c in results.items() if c is None)
    results = {seed: c for seed, c in results.items() if c is not None}
    if not results:
        print(f"\n[sweep] no seed routed (router stalled: seeds {', '.join(map(str, stalled))})")
        return 1
    names = sorted({clock_name(n) for c in results.values() for n in c})
    want = {clock_name(n): w for c in results.values() for n, (_, _, w) in c.items()}
    fmax = {seed: {clock_name(n): f for n, (f, _, _) in c.items()} for seed, c in results.items()}
    print()
    print(f"{args.board}: fmax (MHz) per seed; constraint and required margin {100 * args.margin:.0f} %")
    print("| seed | " + " | ".join(f"{n} ({want[n]:.0f})" for n in names) + " |")
    print("|---" * (len(names) + 1) + "|")
    short = []
    for seed in sorted(fmax):
        cells = []
        for n in names:
            f = fmax[seed].get(n)
            if f is None:
                cells.append("-")
                continue
            ok = f >= want[n] * (1 + args.margin)
            if not ok:
                short.append((seed, n))
            cells.append(f"{f:.2f}{'' if ok else ' (!)'}")
        print(f"| {seed} | " + " | ".join(cells) + " |")
    for seed in stalled:
        print(f"| {seed} | " + " | ".join("router stalled" for _ in names) + " |")
    for label, fn in (("min", min), ("median", statistics.median), ("max", max)):
        vals = [fn([fmax[s][n] for s in fmax if n in fmax[s]]) for n in names]
        print(f"| {label} | " + " | ".join(f"{v:.2f}" for v in vals) + " |")
    mins = [min(fmax[s][n] for s in fmax if n in fmax[s]) for n in names]
    print("| margin of min | " + " | ".join(f"{100 * (m / want[n] - 1):+.1f} %" for m, n in zip(mins, names)) + " |")
    if stalled:
        print(f"\n[sweep] did not route (router stalled): seed{'s' if len(stalled) > 1 else ''} "
              f"{', '.join(map(str, stalled))}")
    if short:
        print(f"\n[sweep] below the {100 * args.margin:.0f} % margin: " +
              ", ".join(f"seed {s} {n}" for s, n in short))
    if short or stalled:
        return 1
    print(f"\n[sweep] every seed meets the {100 * args.margin:.0f} % margin on every clock")
    return 0


if __name__ == "__main__":
    sys.exit(main())
