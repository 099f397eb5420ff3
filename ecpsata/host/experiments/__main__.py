# SPDX-License-Identifier: BSD-2-Clause
"""`python -m ecpsata.host.experiments [names|readme]`: the registry's experiment names, or the
README's command-table rows made from it (tests/host/test_experiments.py checks the README)."""

import sys

from ecpsata.host import experiments


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    what = argv[0] if argv else "names"
    if what == "names":
        print(" ".join(experiments.NAMES))
    elif what == "readme":
        print(experiments.readme_block())
    else:
        print(f"usage: python -m ecpsata.host.experiments [names|readme], not {what!r}",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
