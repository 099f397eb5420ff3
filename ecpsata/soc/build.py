# SPDX-License-Identifier: BSD-2-Clause
"""Build an ecpsata SoC: `python -m ecpsata.soc.build BOARD [options]`.

Runs the two-pass build (firmware compiled against the generated headers, then placed in ROM), then
compiles the gateware: Verilator for `sim`, Yosys/nextpnr/ecppack for the boards. The toolchain
output goes to build/BOARD/gateware/build.log; for boards, a timing and resource summary is printed
and the build fails when any clock misses its constraint. `--verilog-only` stops once the Verilog is
written (two commits' netlists then compare with diff, the comment lines aside).
"""

import argparse
import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import traceback

from ecpsata.paths import PACKAGE, TOOLS
from ecpsata.soc import boards
from ecpsata.soc.builder import REPO, build_two_pass



@contextlib.contextmanager
def redirect_fds(path):
    """Send this process's and its children's stdout/stderr to a file (LiteX is talkative)."""
    sys.stdout.flush(); sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(path, "w") as f:
        os.dup2(f.fileno(), 1)
        os.dup2(f.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush(); sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0]); os.close(saved[1])


# nextpnr's router (router1) can stall on a congested placement: the arcs it has left stop
# falling while each thousand iterations takes longer, for hours. A run whose router has not set a
# new low of arcs left for this long is stopped, and the placement counts as failed.
ROUTER_STALL_S = 15 * 60
ROUTER_POLL_S = 5.0             # how often the log is read
STALLED_EXIT = 3                # this script's exit code for a stalled router (seed sweeps)
# A router progress row: "Info:  IterCnt | w/ripup wo/ripup | w/r wo/r | arcs left | times |".
_ROUTER_ROW = re.compile(r"^Info:\s+\d+\s+\|\s+\d+\s+\d+\s+\|\s+-?\d+\s+-?\d+\s+\|\s+(\d+)\|", re.M)


class RouterStalled(Exception):
    def __init__(self, best, stall_s, log_path):
        self.best, self.log_path = best, log_path
        super().__init__(f"nextpnr's router stalled with {best:,} arcs left at best: no progress for "
                         f"{stall_s / 60:.0f} minutes, stopped (a congested placement: another seed "
                         f"or a smaller design may route); log: {log_path}")


def run_watched(cmd, cwd, log_path, env=None):
    """Run a command with its output in log_path and return its exit code; stop it and raise
    RouterStalled when nextpnr's router in it stalls (ROUTER_STALL_S)."""
    stall_s, best, since, seen = ROUTER_STALL_S, None, None, 0
    with open(log_path, "w") as log:
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
        try:
            with open(log_path, "rb") as reader:
                while True:
                    try:
                        return p.wait(timeout=ROUTER_POLL_S)
                    except subprocess.TimeoutExpired:
                        pass
                    reader.seek(seen)
                    chunk = reader.read()
                    chunk = chunk[:chunk.rfind(b"\n") + 1]      # whole lines only
                    seen += len(chunk)
                    for m in _ROUTER_ROW.finditer(chunk.decode(errors="replace")):
                        if best is None or int(m.group(1)) < best:
                            best, since = int(m.group(1)), time.monotonic()
                    if best is not None and time.monotonic() - since > stall_s:
                        raise RouterStalled(best, stall_s, log_path)
        finally:
            # Its own session keeps a terminal's Ctrl-C away from it: stop it here on any exit.
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
                p.wait()


def run_logged(cmd, cwd, log_path, quiet=False):
    """Run a toolchain script, keep its whole output in log_path, print only the tail on failure
    (nothing with `quiet`: the caller decides). A stalled router raises RouterStalled."""
    code = run_watched(cmd, cwd, log_path)
    if code != 0:
        if not quiet:
            print_tail(log_path, code)
        raise SystemExit(1)


def relative_tool_paths(gateware_dir):
    """Rewrite the absolute paths of the Yosys scripts in `gateware_dir` (LiteX lists its sources
    by absolute path: the CPU's Verilog in the environment, the design in the build folder) as
    paths relative to that folder, where the tools run. YoWASP's Yosys and nextpnr see the
    machine's folders through relative paths and under their own names, except the system's
    temporary folder, which they map to a private folder of their own: a clone or an environment
    there would otherwise not be found (Yosys: "File ... not found"). Returns the paths
    rewritten."""
    changed = []
    for name in sorted(os.listdir(gateware_dir)):
        if not name.endswith(".ys"):
            continue
        path = os.path.join(gateware_dir, name)
        lines = []
        for line in open(path).read().split("\n"):
            words = line.split(" ")
            if words[0].startswith("read") or words[0] == "verilog_defaults":
                for i, w in enumerate(words):
                    flag = "-I" if w.startswith("-I/") else ""
                    if w[len(flag):].startswith("/"):
                        words[i] = flag + os.path.relpath(w[len(flag):], gateware_dir)
                        changed.append(w[len(flag):])
                line = " ".join(words)
            lines.append(line)
        with open(path, "w") as f:
            f.write("\n".join(lines))
    return changed


def print_tail(log_path, code=1):
    tail = open(log_path).read().splitlines()[-40:]
    sys.stderr.write("\n".join(tail) + f"\n\nbuild failed (exit {code}); full log: {log_path}\n")


# Placement seeds tried, in this order, when the default one misses a constraint (boards, without
# --seed): nextpnr again on the same netlist, then ecppack. ECP5 placements of this design vary by
# several percent from seed to seed.
RETRY_SEEDS = (2, 3)


def timing_failed(log_text, design=None):
    """True when nextpnr reported its clocks and one of them failed (not another error); judged
    against `design` (design_clocks) where it names the clock."""
    clocks, _ = nextpnr_report(log_text, design)
    return bool(clocks) and any(v != "PASS" for _, v, _ in clocks.values())


DESIGN_CLOCKS = "design_clocks.json"


def write_design_clocks(gateware, soc):
    """{net: MHz} of the clocks nextpnr is asked to place faster than they run (the SoC's
    design_clocks, ecpsata/soc/builder.py PLACEMENT_MARGIN) into the gateware folder, for the
    seeds placed later (retry_seeds, the sweep); returns it."""
    design = getattr(soc, "design_clocks", {})
    with open(os.path.join(gateware, DESIGN_CLOCKS), "w") as f:
        json.dump(design, f)
    return design


def design_clocks(gateware):
    """The gateware folder's design_clocks ({} when the build wrote none)."""
    try:
        with open(os.path.join(gateware, DESIGN_CLOCKS)) as f:
            return json.load(f)
    except FileNotFoundError:
        return {}


def script_line(gateware, tool, script=None):
    """The call of `tool` in the gateware folder's build script, as a list of arguments."""
    if script is None:
        scripts = [f for f in os.listdir(gateware) if f.startswith("build_") and f.endswith(".sh")]
        if len(scripts) != 1:
            raise SystemExit(f"expected one build script in {gateware}, found {scripts}")
        script = scripts[0]
    for line in open(os.path.join(gateware, script)):
        if line.startswith(tool):
            return shlex.split(line)
    raise SystemExit(f"no {tool} call in {script}")


def nextpnr_args(gateware, seed, script=None, drop=()):
    """The build script's nextpnr call with another seed (and without the options in `drop`)."""
    args, it = [], iter(script_line(gateware, "nextpnr-ecp5", script))
    for a in it:
        if a == "--seed" or a in drop:
            next(it, None)
            continue
        args.append(a)
    return args + ["--seed", str(seed)]


def retry_seeds(gateware, script, seeds):
    """Place and route again with each seed until every clock passes, then pack the bitstream.
    Returns (seed, its nextpnr log), or None when every seed misses."""
    pack = script_line(gateware, "ecppack", script)
    design = design_clocks(gateware)
    for seed in seeds:
        args = nextpnr_args(gateware, seed, script)
        log = os.path.join(gateware, f"build-seed{seed}.log")
        print(f"[ecpsata.soc.build] placing and routing again with seed {seed} (log: {log})", flush=True)
        try:
            code = run_watched(args, gateware, log)
        except RouterStalled as e:
            print(f"[ecpsata.soc.build] seed {seed}: {e}", flush=True)
            continue
        text = open(log).read()
        if code == 0 and not timing_failed(text, design):
            run_logged(pack, gateware, os.path.join(gateware, "pack.log"))
            return seed, log
        if not timing_failed(text, design):
            sys.stderr.write(f"nextpnr with seed {seed} failed (exit {code}); log: {log}\n")
            raise SystemExit(1)
    return None


def discard_bitstream(builder):
    """Removes a bitstream packed from a placement that misses a constraint (nextpnr runs with
    --timing-allow-fail), so that no load or flash takes it for a good one."""
    for mode in ("sram", "flash"):
        path = builder.get_bitstream_filename(mode=mode)
        if os.path.exists(path):
            os.remove(path)
            print(f"[ecpsata.soc.build] removed {path}: its placement misses timing", flush=True)


def build_sources(target):
    """The package's folders of non-Python sources a build of `target` reads."""
    from ecpsata.platforms.sim import SIM_MODULE_SOURCES
    dirs = ["firmware", "host/experiments"]   # the console's help lines: ecpsata/soc/codes.py
    for name in getattr(target, "SIM_MODULES", []):
        dirs += SIM_MODULE_SOURCES[name]
    return dirs


def sim_modules(build_dir, names):
    """LiteX's simulator takes extra modules from one folder: gather ours there as links."""
    from ecpsata.platforms.sim import SIM_MODULES
    folder = os.path.join(build_dir, "sim_modules")
    os.makedirs(folder, exist_ok=True)
    for name in names:
        link = os.path.join(folder, name)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(os.path.join(PACKAGE, SIM_MODULES[name]), link)
    return dict(extra_mods=list(names), extra_mods_path=folder)


DEPFILE = ".built.d"     # beside the Makefile's stamp, build/BOARD/.built


def read_files(source_dirs=()):
    """Every file of the package this process has read for a build, relative to the repository:
    the modules it imported, and the files of `source_dirs` (folders of the package, such as the
    firmware's and the simulator modules' sources, which tools outside Python read)."""
    files = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if path and os.path.abspath(path).startswith(PACKAGE + os.sep):
            files.add(os.path.abspath(path))
    for d in source_dirs:
        for folder, dirs, names in os.walk(os.path.join(PACKAGE, d)):
            dirs[:] = [x for x in dirs if x not in ("build", "__pycache__")]
            files.update(os.path.join(folder, n) for n in names if not n.endswith((".o", ".pyc")))
    return sorted(os.path.relpath(f, REPO) for f in files)


def write_depfile(build_dir, source_dirs=()):
    """Make's rule for the build's stamp (build_dir/.built), written after a build: the stamp
    depends on every file the build read (`read_files`), each also given an empty rule of its own
    so that a file deleted since does not stop make (as a compiler's -MP does). The Makefile
    includes it: a change in any file the build read, and only in those, rebuilds."""
    stamp = os.path.relpath(os.path.join(build_dir, ".built"), REPO)
    files = read_files(source_dirs)
    text = f"{stamp}: \\\n" + " \\\n".join(f"  {f}" for f in files) + "\n\n" + \
        "".join(f"{f}:\n" for f in files)
    with open(os.path.join(build_dir, DEPFILE), "w") as f:
        f.write(text)
    return files


def nextpnr_report(log_text, design=None):
    """Parse nextpnr's log: per-clock {net: (fmax, PASS or FAIL, constraint)} and utilisation of
    the cells we care about. A clock named in `design` ({net: MHz}: placed against a faster
    target, design_clocks) is judged against its design frequency instead of nextpnr's target."""
    design = design or {}
    clocks = {}
    for m in re.finditer(r"Max frequency for clock\s+'([^']+)':\s+([\d.]+) MHz \((PASS|FAIL) at ([\d.]+) MHz\)",
                         log_text):
        net, fmax = m.group(1), float(m.group(2))
        want = design.get(net.split("$")[-1])        # nextpnr names global nets "$glbnet$<net>"
        if want is None:
            clocks[net] = (fmax, m.group(3), float(m.group(4)))  # last report wins
        else:
            clocks[net] = (fmax, "PASS" if fmax >= want else "FAIL", float(want))
    util = {}
    for m in re.finditer(r"Info:\s+(TRELLIS_COMB|TRELLIS_FF|DP16KD|DCUA|MULT18X18D|TRELLIS_IO|EHXPLLL):\s+(\d+)/\s*(\d+)",
                         log_text):
        util[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return clocks, util


# nextpnr's names of the boards' clock nets -> the names the README and the design notes use.
CLOCK_NAMES = [
    ("sys_clk", "sys"),
    ("sata_tx_clk", "sata_tx"),
    ("sata_serdes_tx_clk", "sata_tx"),
    ("rx_clk", "sata_rx"),
    ("ecp5crg_clkout", "eth_core"),
    ("eth_clocks_rx", "eth_rx"),
    ("clk100", "clk100"),
]


def clock_name(net):
    for key, name in CLOCK_NAMES:
        if key in net:
            return name
    return net


def timing_summary(clocks, min_margin=0.0):
    """Lines 'clock: fmax, constraint, margin' and the clocks below constraint * (1 + min_margin)."""
    lines, short = [], []
    for net, (fmax, _, want) in sorted(clocks.items(), key=lambda kv: clock_name(kv[0])):
        margin = fmax / want - 1
        ok = margin >= min_margin
        if not ok:
            short.append(clock_name(net))
        lines.append(f"clock {clock_name(net):9s} fmax {fmax:7.2f} MHz, constraint {want:7.2f} MHz, "
                     f"margin {100 * margin:+6.1f} %{'' if ok else '  << below ' + format(100 * min_margin, '.0f') + ' %'}")
    return lines, short


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("board", choices=boards.names())
    parser.add_argument("--build-dir", default=None, help="Output folder (default build/BOARD).")
    parser.add_argument("--seed", type=int, default=None, help="nextpnr placement seed (boards).")
    parser.add_argument("--allow-timing-fail", action="store_true",
                        help="Report fmax but do not fail on a missed constraint (seed sweeps).")
    parser.add_argument("--verilog-only", action="store_true",
                        help="Stop once the SoC's Verilog is written (no Yosys, nextpnr or "
                             "Verilator): to compare two commits' netlists with diff.")
    parser.add_argument("--min-margin", type=float, default=0.0,
                        help="Fail unless every clock's fmax is this fraction above its constraint "
                             "(default 0: fail only below the constraint).")
    args, rest = parser.parse_known_args(argv)
    # A `kill` (make test stops a build it started when the tests fail) unwinds like Ctrl-C, so
    # that the toolchain run in its own session (run_watched) is stopped with it.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    target = boards.target(args.board)
    if hasattr(target, "add_args"):
        sub = argparse.ArgumentParser(prog=f"ecpsata.soc.build {args.board}")
        target.add_args(sub)
        sub.parse_args(rest, namespace=args)
    elif rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")

    build_dir = os.path.abspath(args.build_dir or os.path.join(REPO, "build", args.board))
    kwargs = target.build_kwargs(args) | {"run": False}
    simulated = boards.board(args.board).simulated
    if simulated:
        # Compiled by us below so that the simulation is not started by the build.
        kwargs |= sim_modules(build_dir, target.SIM_MODULES)
    else:
        # Judged here, against the design's clocks (nextpnr's own targets may be faster).
        kwargs |= dict(timingstrict=False)
        if args.seed is not None:
            kwargs["seed"] = args.seed

    t0 = time.time()
    os.makedirs(build_dir, exist_ok=True)
    gen_log = os.path.join(build_dir, "generate.log")
    print(f"[ecpsata.soc.build] generating {args.board}: SoC, LiteX libraries, firmware (log: {gen_log})", flush=True)
    with redirect_fds(gen_log):
        try:
            soc, builder = build_two_pass(lambda init: target.make_soc(init, args), build_dir, kwargs)
            failed = None
        except (Exception, SystemExit) as e:
            traceback.print_exc()
            failed = e
    if failed is not None:
        tail = open(gen_log).read().splitlines()[-30:]
        sys.stderr.write("\n".join(tail) + f"\n\ngeneration failed: {failed!r}; full log: {gen_log}\n")
        raise SystemExit(1)
    t1 = time.time()
    gateware = builder.gateware_dir
    if args.verilog_only:
        print(f"[ecpsata.soc.build] generated in {t1 - t0:.0f} s: "
              f"{os.path.join(gateware, soc.get_build_name() + '.v')}", flush=True)
        return
    design = write_design_clocks(gateware, soc)
    log = os.path.join(gateware, "build.log")
    script = f"build_{soc.get_build_name()}.sh"
    print(f"[ecpsata.soc.build] generated in {t1 - t0:.0f} s; compiling gateware (log: {log})", flush=True)
    if not simulated:
        relative_tool_paths(gateware)
    env_path = TOOLS
    os.environ["PATH"] = env_path + os.pathsep + os.environ.get("PATH", "")
    retry = not simulated and args.seed is None and not args.allow_timing_fail
    missed = None
    try:
        run_logged(["bash", script], gateware, log, quiet=retry)
    except RouterStalled as e:
        if not retry:
            sys.stderr.write(f"[ecpsata.soc.build] {e}\n")
            raise SystemExit(STALLED_EXIT)
        missed = [str(e)]
    except SystemExit:
        if retry:                     # (run_logged printed the tail itself when not quiet)
            print_tail(log)
        raise
    if retry and timing_failed(open(log).read(), design):
        missed = timing_summary(nextpnr_report(open(log).read(), design)[0])[0]
    if missed:
        for line in missed:
            print(f"[ecpsata.soc.build] seed 1: {line}", flush=True)
        found = retry_seeds(gateware, script, RETRY_SEEDS)
        if found is None:
            discard_bitstream(builder)
            raise SystemExit(f"timing not met or routing stalled with seeds 1, "
                             f"{', '.join(map(str, RETRY_SEEDS))}; logs: {gateware}/build*.log")
        seed, log = found
        print(f"[ecpsata.soc.build] seed 1 missed timing or did not route; seed {seed} meets it: its "
              f"placement is the bitstream's", flush=True)
    t2 = time.time()
    print(f"[ecpsata.soc.build] gateware compiled in {t2 - t1:.0f} s", flush=True)
    write_depfile(build_dir, build_sources(target))

    if not simulated:
        clocks, util = nextpnr_report(open(log).read(), design)
        lines, short = timing_summary(clocks, args.min_margin)
        for line in lines:
            print(f"[ecpsata.soc.build] {line}")
        for cell, (used, avail) in sorted(util.items()):
            print(f"[ecpsata.soc.build] {cell}: {used}/{avail}")
        failing = [clock_name(n) for n, (_, v, _) in clocks.items() if v != "PASS"]
        if not clocks:
            raise SystemExit("no clock report found in the nextpnr log")
        if failing and not args.allow_timing_fail:
            discard_bitstream(builder)
            raise SystemExit(f"timing not met for: {', '.join(failing)}")
        if short and not args.allow_timing_fail:
            raise SystemExit(f"less than {100 * args.min_margin:.0f} % margin on: {', '.join(short)}")
        print(f"[ecpsata.soc.build] bitstream: {builder.get_bitstream_filename(mode='sram')}")


if __name__ == "__main__":
    main()
