#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Install everything ecpsata needs on a Debian machine, idempotently and quickly on a second run:
# Debian packages (only those missing), then the project-local virtual environment .venv with the
# pinned PyPI packages of requirements.txt (reinstalled only when that file changes).
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential git make python3 python3-venv
  verilator libevent-dev libjson-c-dev zlib1g-dev   # LiteX's Verilator simulator
  gcc-riscv64-unknown-elf meson ninja-build         # firmware and the LiteX libraries
  openocd openfpgaloader                            # loading bitstreams on boards
  iproute2                                          # the simulated ECPIX-5's network namespace
  iverilog                                          # the four-state run (make xprop)
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] installing Debian packages: ${missing[*]}"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv"
  python3 -m venv .venv
fi
want=$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
have=$(cat .venv/.requirements.sha256 2>/dev/null || true)
if [ "$want" != "$have" ] || [ ! -x .venv/bin/ecpsata ]; then
  echo "[setup] installing pinned Python packages into .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
  # ecpsata itself, editable: the package is this clone's ecpsata/ (no copy to keep in step).
  echo "[setup] installing ecpsata (editable) into .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
  echo "$want" > .venv/.requirements.sha256
fi
scripts/venv-tool-links.sh "$PWD/.venv"
