# SPDX-License-Identifier: BSD-2-Clause
"""What the host CLI refuses before it connects to the board: writes without --allow-write and
--range, options that contradict each other, output files that cannot be written."""

import os

from ecpsata.host import events, experiments, phy


def _experiment(args):
    return experiments.REGISTRY.get(args.command)


def check_write_permission(parser, args):
    """Writes need --allow-write and --range; refused here, before connecting."""
    exp = _experiment(args)
    writes = exp is not None and exp.writes(args)
    if args.command == "suite" and args.allow_write and not args.range:
        parser.error("suite --allow-write needs --range LBA:COUNT naming the sectors it may "
                     "overwrite")
    if getattr(args, "writes_always", False) and not args.allow_write:
        parser.error(f"{args.command} discards data on the drive: add --allow-write to confirm")
    if writes and not (args.allow_write and args.range):
        parser.error(f"{args.command} writes to the drive: add --allow-write and --range LBA:COUNT "
                     f"naming the sectors it may overwrite")


def check_args(parser, args):
    """What one option alone cannot say (each experiment's own check); refused before
    connecting."""
    exp = _experiment(args)
    if exp is not None and exp.check is not None:
        exp.check(parser, args)
    events.check(parser, args)
    phy.check(parser, args)
    check_outputs(parser, args)


def output_problem(path, folder=False):
    """Why the file (folder=True: the folder for result files) `path` cannot be written, or None.
    Missing folders are created when the results are written, so the nearest existing one counts."""
    if os.path.isdir(path):
        if not folder:
            return "is a folder"
        return None if os.access(path, os.W_OK | os.X_OK) else "is not writable"
    if os.path.exists(path):
        if folder:
            return "is not a folder"
        return None if os.access(path, os.W_OK) else "is not writable"
    parent = os.path.dirname(path) or "."
    while not os.path.exists(parent) and parent != os.path.dirname(parent):
        parent = os.path.dirname(parent) or "."
    if not os.path.isdir(parent):
        return f"{parent} is not a folder"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot create files in {parent}"
    return None


def check_outputs(parser, args):
    """Every output path is checked before anything is sent: a run must not end, possibly after
    writing the drive, in a traceback that loses its results."""
    outputs = [(f"--{name}", getattr(args, name, None), False) for name in ("json", "csv", "plot")]
    outputs.append(("--out", getattr(args, "out", None), args.command == "suite"))
    for option, path, folder in outputs:
        if not isinstance(path, str):    # info/status/identify --json is a flag
            continue
        problem = output_problem(path, folder)
        if problem is None and option == "--plot" and not path.lower().endswith(".png"):
            problem = "must end in .png (the plot is a PNG image)"
        if problem:
            parser.error(f"{option} {path}: {problem}")
