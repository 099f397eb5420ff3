# SPDX-License-Identifier: BSD-2-Clause
"""What the loop experiments (long, hwloop, overhead) share: their LBA span, the loop counts of
`long`, and the two circuits that issue the commands (the host loop over litex_server and the
engine's hardware sequencer, as SATA-IP AN1 compares firmware and hardware loops)."""

from ecpsata.host import measure
from ecpsata.host.target import TargetError


def loop_params(s, what, loops, sectors, write):
    lba = s.base()
    if sectors is None:
        sectors = s.max_command
    s.check_size(what, sectors)
    if loops < 1:
        raise TargetError(f"{what}: loops must be at least 1")
    s.check_span(what, lba, loops * sectors, write=write)
    return lba, sectors


def loop_counts(loops):
    """1, 2, 4, ... and finally `loops` itself (the firmware's sequence)."""
    n, out = 1, []
    while True:
        out.append(n)
        if n >= loops:
            return out
        n = loops if n * 2 > loops else n * 2


CIRCUITS = (("host loop", "host CLI over litex_server", True),
            ("state machine", "engine hardware", False))


def compare_loops(s, what, lba, sectors, loops, write, gaps=None):
    """{(circuit, op): run}; a `gaps` dict gets {(circuit, op): measure.Tally of its gaps}."""
    res = {}
    for circuit, _, fw in CIRCUITS:
        for op in ("read", "write") if write else ("read",):
            run = s.fw_loop if fw else s.hw_loop
            tally = None if gaps is None else gaps.setdefault((circuit, op), measure.Tally())
            res[circuit, op] = run(op, lba, sectors, loops, label=f"{what} {circuit} {op}",
                                   gaps=tally)
    return res


