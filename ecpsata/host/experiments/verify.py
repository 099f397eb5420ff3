# SPDX-License-Identifier: BSD-2-Clause
"""`verify`: a pattern keyed by LBA and seed written to --range and read back through the engine's
checker, mismatching dwords and sectors counted (a check for every other experiment; destroys
the data in the range). --check only reads and checks an earlier write; --buffer takes the old
path, the data through the sector buffer and the host, compared here."""

import sys

from ecpsata.host import argtypes, sata
from ecpsata.host.ata import SECTOR
from ecpsata.host.experiments import Experiment
from ecpsata.host.pattern import pattern_bytes
from ecpsata.host.results import SEED, result
from ecpsata.host.session import flush_figures
from ecpsata.host.tables import standard
from ecpsata.host.target import TargetError


def verify(s, count=None, seed=SEED, check=False):
    """Write the LBA- and seed-dependent pattern, read it back through the engine's checker and
    count mismatching dwords and sectors. check=True only reads and checks an earlier write."""
    if not 0 <= seed < 2**32:
        raise TargetError("verify: --seed is 32 bits")
    lba = s.base()
    if count is None:
        count = s.range_count(2048)
    s.check_span("verify", lba, count, write=not check)
    r = s.run_span("read" if check else "write_verify", lba, count, verify=True, seed=seed,
                   label="verify check" if check else "verify")
    ok = not (r["mismatch_sectors"] or r["errors"])
    rows = [{"lba": lba, "sectors": count, "seed": seed, "commands": r["completed"],
             "failed_commands": r["errors"], "bad_sectors": r["mismatch_sectors"],
             "bad_dwords": r["mismatch_dwords"], "first_bad_lba": r["first_bad_lba"],
             "cycles": r["cycles"], "mbps": r["mbps"], **flush_figures(s, r, rate=False),
             "result": "PASS" if ok else "FAIL"}]
    return result("verify", {"lba": lba, "count": count, "seed": seed, "check": check,
                             "lba28": s.lba28, "command_set": s.mode()}, rows,
                  {"passed": ok})


def buffer(target, args):
    """verify --buffer: the data goes through the sector buffer and the host, compared here."""
    if not args.buffer:
        return None
    lba, count = args.range
    sata.wait_link(target, args.timeout)
    ident = sata.identify(target, args.timeout)
    sata.check_range(ident, lba, count)
    io = sata.SectorIO(target, args.timeout)
    seed = args.seed
    chunk = 256
    print(f"verify: writing {count} sectors ({count * SECTOR / 2**20:.2f} MiB) from LBA {lba} "
          f"with seed 0x{seed:08x}, then reading them back", flush=True)
    for off in range(0, count, chunk):
        n = min(chunk, count - off)
        io.write(lba + off, pattern_bytes(seed, lba + off, n))
        _progress("write", off + n, count)
    bad_dwords = bad_sectors = 0
    first_bad = None
    for off in range(0, count, chunk):
        n = min(chunk, count - off)
        got = io.read(lba + off, n)
        want = pattern_bytes(seed, lba + off, n)
        for s in range(n):
            g, w = got[s * SECTOR:(s + 1) * SECTOR], want[s * SECTOR:(s + 1) * SECTOR]
            if g != w:
                bad_sectors += 1
                bad_dwords += sum(g[i:i + 4] != w[i:i + 4] for i in range(0, SECTOR, 4))
                first_bad = lba + off + s if first_bad is None else first_bad
        _progress("read", off + n, count)
    res = {"lba": lba, "sectors": count, "bytes": count * SECTOR, "seed": seed,
           "bad_sectors": bad_sectors, "bad_dwords": bad_dwords, "first_bad_lba": first_bad}
    if args.json:
        from ecpsata.host import report       # report.py reads this registry: imported when used
        report.write_json(args.json, res)
    print(f"verify: {count} sectors written and read back, {bad_sectors} bad sectors, "
          f"{bad_dwords} bad dwords" + (f", first bad LBA {first_bad}" if first_bad is not None else ""))
    return 0 if bad_sectors == 0 else 1


def _progress(what, done, total):
    if sys.stderr.isatty():
        sys.stderr.write(f"\r{what}: {done}/{total} sectors")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def add_arguments(p):
    p.add_argument("--count", type=argtypes.int_in(1), help="sectors (default: the whole --range)")
    p.add_argument("--seed", type=argtypes.seed, default=0x5EED, help="pattern seed")
    p.add_argument("--check", action="store_true", help="only read and check an earlier write")
    p.add_argument("--buffer", action="store_true",
                   help="the old path: data through the sector buffer and the host")


def title_of(res, text):
    if res["parameters"].get("check"):
        return "pattern of an earlier write read back and checked (--check: nothing written)"
    return text


EXPERIMENT = Experiment(
    name="verify", order=110,
    console=(
        ("verify", "lba= count= [seed=] [check]",
         "write a pattern, read it back, count errors (asks first)"),
    ),
    help="write a pattern to --range, read it back through the engine, count errors (destroys "
         "the data in the range)",
    title="pattern written, read back and checked",
    document=None, where="",
    description="A pattern keyed by LBA and seed written and read back: mismatching dwords and "
                "the first failing LBA (a check for every other experiment).",
    run=verify, add_arguments=add_arguments, kwargs=("count", "seed", "check"),
    readme=(("verify --allow-write --range LBA:COUNT [--seed N] [--check]",
             "the engine writes a pattern keyed by LBA and seed, reads it back and counts bad "
             "sectors and dwords (destroys the range); `--check` only reads back an earlier "
             "run's pattern"),),
    tables=standard([("LBA", "lba", "{}"), ("sectors", "sectors", "{}"),
                     ("commands", "commands", "{}"), ("failed", "failed_commands", "{}"),
                     ("bad sectors", "bad_sectors", "{}"), ("bad dwords", "bad_dwords", "{}"),
                     ("first bad LBA", "first_bad_lba", "{}"), ("result", "result", "{}")]),
    title_of=title_of,
    # the suite verifies only when it may write
    suite=lambda s, sectors, write: dict(count=4 * sectors) if write else None,
    writes=lambda args: not args.check or args.buffer,
    direct=buffer,
    passed=lambda res: res["summary"]["passed"])
