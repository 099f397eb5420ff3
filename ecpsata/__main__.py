# SPDX-License-Identifier: BSD-2-Clause
"""`python -m ecpsata`: the host CLI (the same as the `ecpsata` command)."""
import sys

from ecpsata.host.cli import main

sys.exit(main())
