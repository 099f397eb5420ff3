# SPDX-License-Identifier: BSD-2-Clause
"""The firmware's copy of the core's codes, generated at build time from their one definition
(ecpsata/core/common.py, ecpsata/engines/common.py, the PHY state names of ecpsata/phy/ctrl.py, the
identity feature names of ecpsata/soc/identity.py, the board names of ecpsata/soc/boards.py, `phy scan`'s default list of
ecpsata/phy/ecp5/settings.py, the console's help lines of the experiments in
ecpsata/host/experiments/): `build_firmware` writes
`software/include/generated/sata_codes.h` beside LiteX's csr.h, and the firmware includes
<generated/sata_codes.h>. Nothing here is edited by hand in C.

    python -m ecpsata.soc.codes FILE      # write the header to FILE (- for the terminal)
"""

import ast
import os
import sys

from ecpsata.paths import PACKAGE
from ecpsata.core import common as sc
from ecpsata.engines import common as bc
from ecpsata.phy.ctrl import STATES as PHY_STATES
from ecpsata.phy.ecp5.bringup import (DUAL, LOOPBACK_DEFAULT, LOOPBACK_MODES, SCI_CH_LOOPBACK,
                                      SCI_FIELDS, tx_swing_writes)
from ecpsata.phy.ecp5.serdes import TX_SWING, VCO_CK_DIV
from ecpsata.phy.ecp5.settings import (SCAN_HW_WINDOW, SCAN_SECTORS, SCAN_SETS, SCAN_SIM_WINDOW,
                                       SETTINGS, ControlField)
from ecpsata.soc.boards import boards
from ecpsata.soc.identity import FEATURES

EXPERIMENTS = os.path.join(PACKAGE, "host", "experiments")


def _c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _table(name, items):
    """A brace initializer as a macro: `static const ... x[] = NAME;` in one C file."""
    body = ", \\\n\t".join(items)
    return f"#define {name} {{ \\\n\t{body} \\\n}}\n"


def _scan_sets():
    """`phy scan`'s default list for the console: each set as the fields of the PHY's control
    register it writes, a value and a mask built with the C file's PHY_SCAN_PUT(FIELD, value)."""
    items = []
    for s in SCAN_SETS:
        put = {}
        for key, value in s["settings"].items():
            setting = SETTINGS[key]
            assert isinstance(setting, ControlField), \
                f"the console's phy scan writes the PHY's control register only, not {key}"
            put.update(setting.values[value])
        value = " | ".join(f"PHY_SCAN_PUT({f.upper()}, {v}u)" for f, v in put.items())
        mask = " | ".join(f"PHY_SCAN_PUT({f.upper()}, ~0u)" for f in put)
        text = ", ".join(f"{k}={v}" for k, v in s["settings"].items())
        items.append(f"{{{_c_string(s['name'])}, {_c_string(text)}, {value}, {mask}}}")
    return _table("PHY_SCAN_SETS", items)


def experiment_files():
    """The experiment modules (ecpsata/host/experiments/, one per experiment)."""
    return [os.path.join(EXPERIMENTS, name) for name in sorted(os.listdir(EXPERIMENTS))
            if name.endswith(".py") and not name.startswith("_")]


def console_lines():
    """[(command, arguments, what it does)]: the console's help lines of the experiments, as
    each experiment module declares them (`Experiment(..., console=(...))`). Read as data, not
    imported: the host tools are a floor above the SoC (tests/test_layers.py), and a build reads
    no more of them than these literals; the build's record of its inputs lists the files
    (`build_sources`, ecpsata/soc/build.py), so a changed line rebuilds the firmware."""
    lines = []
    for path in experiment_files():
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Experiment":
                for kw in node.keywords:
                    if kw.arg == "console":
                        try:
                            lines += ast.literal_eval(kw.value)
                        except ValueError:
                            raise ValueError(f"{os.path.relpath(path, PACKAGE)}: console= must "
                                             "be written as literals (the firmware's build "
                                             "reads it without importing the module)") from None
    return lines


def codes_header():
    out = ["/* Generated from ecpsata/core/common.py and ecpsata/engines/common.py by ecpsata/soc/codes.py:",
           " * do not edit. */",
           "#ifndef ECPSATA_SATA_CODES_H", "#define ECPSATA_SATA_CODES_H", ""]
    consts = ["ATA_FLUSH_CACHE_EXT", "ATA_SET_FEATURES", "ATA_IDENTIFY", "ATA_SMART",
              "ATA_READ_LOG_EXT", "SMART_READ_DATA", "SMART_READ_THRESHOLDS",
              "SMART_RETURN_STATUS", "SMART_LBA", "LOG_DIRECTORY", "LOG_PHY_EVENT_COUNTERS",
              "SF_WRITE_CACHE_ON", "SF_WRITE_CACHE_OFF", "SF_SATA_FEATURE_ON", "SF_SATA_FEATURE_OFF",
              "SATA_FEATURE_AUTO_ACTIVATE", "SATA_FEATURE_DIPM",
              "STATUS_BSY", "STATUS_DRDY", "STATUS_ERR", "ERROR_ICRC", "SIGNATURE_ATA"]
    out += [f"#define {n} 0x{getattr(sc, n):02x}u" for n in consts]
    out.append("")
    out += [f"#define CMD_REASON_{name} {code}" for code, (name, _) in sc.CMD_REASONS.items()]
    out.append(_table("CMD_REASON_TEXTS",
                      [_c_string(text) for _, (_, text) in sorted(sc.CMD_REASONS.items())]))
    reset_mask = sum(1 << r for r in sc.CMD_RESET_REASONS)     # 1 << reason: COMRESET after it
    out.append(f"#define CMD_RESET_REASONS_MASK 0x{reset_mask:x}u")
    out += [f"#define NCQ_REASON_{name} {code}" for code, (name, _) in sc.NCQ_REASONS.items()]
    out.append(_table("NCQ_REASON_TEXTS",
                      [_c_string(text) for _, (_, text) in sorted(sc.NCQ_REASONS.items())]))
    out.append(_table("SERROR_NAMES",
                      [f"{{{bit}, {_c_string(name)}}}" for bit, name, _ in sc.SERROR_BITS]))
    out.append(_table("ATA_ERROR_BITS",
                      [f"{{0x{bit:02x}, {_c_string(text)}}}" for bit, text in sc.ERROR_BITS.items()]))
    out.append(_table("SIGNATURE_KINDS",
                      [f"{{0x{sig:08x}u, {_c_string(kind)}}}" for sig, kind in sc.SIGNATURES.items()]))
    out += [f"#define LINK_EVENT_{name} {code}" for code, (name, _) in sc.LINK_EVENTS.items()]
    out.append(_table("LINK_EVENT_TEXTS",
                      [_c_string(text) for _, (_, text) in sorted(sc.LINK_EVENTS.items())]))
    out.append(_table("PHY_STATE_NAMES", [_c_string(name) for name in PHY_STATES]))
    by_bit = {bit: name for name, bit, _ in FEATURES}
    assert sorted(by_bit) == list(range(len(by_bit))), "identity feature bits are 0, 1, 2, ..."
    out.append(_table("IDENTITY_FEATURE_NAMES", [_c_string(by_bit[b]) for b in sorted(by_bit)]))
    out += [f"#define IDENTITY_FEATURE_{name.upper()} {bit}" for name, bit, _ in FEATURES]
    out.append(_table("BOARD_NAMES", [f"{{{b.code}, {_c_string(b.name)}}}"
                                      for b in boards().values()]))
    out.append(f"#define SCI_CH_LOOPBACK 0x{SCI_CH_LOOPBACK:02x}")
    out.append(_table("LOOPBACK_MODES", [f"{{{_c_string(name)}, 0x{mask:02x}, 0x{value:02x}}}"
                                         for name, (mask, value) in LOOPBACK_MODES.items()]))
    out.append(f"#define LOOPBACK_DEFAULT {_c_string(LOOPBACK_DEFAULT)}")
    out.append(_table("TX_SWING_WRITES", [f"{{{swing}, 0x{adr:02x}, 0x{mask:02x}, 0x{value:02x}}}"
                                          for swing in TX_SWING
                                          for adr, (mask, value) in tx_swing_writes(swing).items()]))
    out.append(f"#define SCI_DUAL 0x{DUAL:02x}")
    out += [f"#define SCI_DIVIDER_{n} {int(code, 0)}" for n, code in VCO_CK_DIV.items() if n <= 2]
    out.append(_table("SCI_FIELDS", [f"{{{_c_string(name)}, 0x{adr:02x}, {lo}, {size}}}"
                                     for name, (adr, lo, size, _) in SCI_FIELDS.items()]))
    out.append(_scan_sets())
    out.append(f"#define PHY_SCAN_SECTORS {SCAN_SECTORS}")
    out.append(f"#define PHY_SCAN_WINDOW_MS {round(SCAN_HW_WINDOW * 1000)}")
    out.append(f"#define PHY_SCAN_SIM_WINDOW_MS {round(SCAN_SIM_WINDOW * 1000)}")
    out += [f"#define BENCH_STATE_{text.upper()} {code}" for code, text in bc.STATES.items()]
    out += [f"#define BENCH_REASON_{text.upper().replace(' ', '_')} {code}"
            for code, text in bc.REASONS.items()]
    out += [f"#define BENCH_STAT_{name.upper()} {bc.stat_entry(name, bc.STAT_FIELDS[0])}"
            for name in bc.STAT_SOURCES]
    out += [f"#define BENCH_STAT_FIELD_{field.upper()} {i}" for i, field in enumerate(bc.STAT_FIELDS)]
    out += [f"#define CONSOLE_{command.upper()} {_c_string(command)}, {_c_string(args)}, "
            f"{_c_string(text)}" for command, args, text in console_lines()]
    out.append(_table("BENCH_REASON_TEXTS",
                      [_c_string(text) for _, text in sorted(bc.REASONS.items())]))
    out += ["", "#endif", ""]
    return "\n".join(out)


def write_codes_header(path):
    text = codes_header()
    try:
        if open(path).read() == text:
            return          # unchanged: make does not rebuild the firmware
    except OSError:
        pass
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m ecpsata.soc.codes FILE (- for the terminal)")
    if sys.argv[1] == "-":
        sys.stdout.write(codes_header())
    else:
        write_codes_header(sys.argv[1])
