# SPDX-License-Identifier: BSD-2-Clause
import sys

from bench.cli import main

sys.exit(main())
