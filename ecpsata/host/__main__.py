# SPDX-License-Identifier: BSD-2-Clause
import sys

from ecpsata.host.cli import main

sys.exit(main())
