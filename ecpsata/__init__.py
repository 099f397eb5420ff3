# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata: a SATA host core for Lattice ECP5 and a benchmark SoC around it, for LiteX.

The package follows the protocol stack (doc/architecture.md):

- ``ecpsata.phy``: the PHY above the SerDes seam (OOB, speed negotiation, ALIGN, 8b10b words to
  dwords); ``ecpsata.phy.ecp5``: the ECP5 DCU wrapper, its reset sequencer, SCI access, a
  behavioural model of the DCUA for simulation; ``ecpsata.phy.sim_serdes``: the simulation SerDes.
- ``ecpsata.core``: link, transport, command and queued (NCQ) command layers; ``core.common``
  holds every SATA/ATA number and reason code (the only copy; the firmware's header is generated
  from it at build time).
- ``ecpsata.frontend``: the crossbar and user ports (LiteSATA's frontends work on them), the
  registered user port, the sector buffer, the error and readiness block.
- ``ecpsata.engines``: the hardware benchmark engines (non-queued and queued).
- ``ecpsata.soc``, ``ecpsata.platforms``: the benchmark SoC and its targets; ``ecpsata.firmware``
  the console's C sources; ``ecpsata.sim``: the virtual SATA drive (C) and simulator modules.
- ``ecpsata.host``: the host CLI (the ``ecpsata`` command, ``python -m ecpsata``).

The core in a LiteX SoC (``doc/core.md``; ``examples/`` has SoCs that the tests build)::

    from ecpsata import add_ecpsata_ecp5, sata_pads
    add_ecpsata_ecp5(soc, sata_pads(platform.request("sata")), refclk, dual=1, channel=0)

or piece by piece: ``from ecpsata import ECP5SATASerDes, ECPSATAPHY, ECPSATACore, ECPSATACrossbar``.
The names in ``__all__`` are imported when first used (``import ecpsata`` alone loads no Migen).

What this core changes of LiteSATA's behaviour (checked against LiteSATA 2024.12, the version
requirements.txt pins; a LiteSATA upgrade must be checked against this list):

- Link layer: replaced (``ecpsata.core.link``), since 2024.12. LiteSATA's link answers R_OK on a
  good CRC alone; ours answers after the transport layer's verdict on the frame (R_ERR for a frame
  the host cannot use, so that the device sends it again), follows device escapes (SYNC during a
  frame) and DMAT, and survives a lost EOF. LiteSATA's scrambler and CRC inserter / checker are
  used unchanged (imported).
- Transport layer, receive side: replaced (``ecpsata.core.transport``). LiteSATA's drops frames of
  an unknown type without a trace and counts a FIS's dwords by its type; ours judges every frame's
  type, length and place in the command, and decodes the fields NCQ needs. The transmit side is
  LiteSATA's ``LiteSATATransportTX``, unchanged (imported).
- Command layer: replaced (``ecpsata.core.command``): 65,536-sector and 28-bit commands, non-data
  commands, IDENTIFY in any number of DRQ blocks, timeouts and named failure reasons; the queued
  layer (``ecpsata.core.ncq``) has no LiteSATA counterpart.
- Crossbar and ports: subclassed (``ecpsata.frontend.crossbar``). Only the constructors change, so
  that the ports carry our command fields (``lba28``, ``nodata``, ...); the arbitration is
  LiteSATA's and relies on its attribute names ``users``, ``master`` and ``dw``.
- Stream layouts, primitive and FIS type codes (``litesata.common``) and the IDENTIFY frontend
  (``litesata.frontend.identify``): imported unchanged. LiteSATA's PHYs are not used (ours sits
  above a 20-bit SerDes seam, ``ecpsata.phy.serdes``).

Nothing in LiteSATA is modified in place: no monkey-patching, no edits of its FSMs' actions.
"""

# public name -> the module that defines it (the deep paths keep working)
_EXPORTS = {
    "ECP5SATASerDes":           "ecpsata.phy.ecp5.serdes",
    "sata_pads":                "ecpsata.phy.ecp5.serdes",
    "ECPSATAPHY":               "ecpsata.phy.phy",
    "ECPSATACore":              "ecpsata.core.core",
    "ECPSATACrossbar":          "ecpsata.frontend.crossbar",
    "ECPSATASectorBuffer":      "ecpsata.frontend.buffer",
    "ECPSATAErrors":            "ecpsata.frontend.errors",
    "ECPSATAEventLog":          "ecpsata.frontend.events",
    "ECPSATABenchEngine":       "ecpsata.engines.engine",
    "ECPSATAQueuedBenchEngine": "ecpsata.engines.queued",
    "add_ecpsata":              "ecpsata.soc.integration",
    "add_ecpsata_ecp5":         "ecpsata.soc.integration",
}
__all__ = list(_EXPORTS)

# Names of earlier releases, kept working (with a DeprecationWarning) for one release: every
# class of ours now carries the ECPSATA prefix (doc/architecture.md, "Names").
_RENAMED = {
    "SATAPHY":           "ECPSATAPHY",
    "SATASectorBuffer":  "ECPSATASectorBuffer",
    "SATAErrors":        "ECPSATAErrors",
    "EventLog":          "ECPSATAEventLog",
    "BenchEngine":       "ECPSATABenchEngine",
    "QueuedBenchEngine": "ECPSATAQueuedBenchEngine",
}


def __getattr__(name):
    if name in _RENAMED:
        import warnings
        warnings.warn(f"ecpsata.{name} is now ecpsata.{_RENAMED[name]}", DeprecationWarning,
                      stacklevel=2)
        return __getattr__(_RENAMED[name])
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ecpsata' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + __all__)
