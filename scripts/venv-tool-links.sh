#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Expose the YoWASP tools under the names LiteX's trellis flow calls.
set -eu
bin="$1/bin"
for t in yosys nextpnr-ecp5 ecppack ecpbram ecpunpack ecppll; do
  if [ -x "$bin/yowasp-$t" ]; then
    printf '#!/bin/sh\nexec "%s/yowasp-%s" "$@"\n' "$bin" "$t" > "$bin/$t"
    chmod +x "$bin/$t"
  fi
done
