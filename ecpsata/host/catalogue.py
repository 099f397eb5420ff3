# SPDX-License-Identifier: BSD-2-Clause
"""What each experiment measures and the public document it reproduces (doc/benchmarks.md): one
table for the terminal titles, the plot titles and the HTML report.

Documents are named by their title; the short names are the ones help text and tables use.
"""

# short name -> the document's title, as the HTML page and the plot titles print it (in Latin
# script: the plots' font has no Japanese; doc/benchmarks.md gives the e7SATA post's own title)
DOCUMENTS = {
    "SATA-IP AN1": "SATA-IP Application Note 1: SSD Performance Report",
    "FPGA Drive dd test": "Measuring the speed of an NVMe PCIe SSD in PetaLinux",
    "e7SATA read test": "e7SATA board blog (in Japanese): SSD and HDD read performance measured "
                        "with the e7SATA board",
    "Quantum SSD paper": "Understanding the Performance of Solid State Disks",
    "CrystalDiskMark": "CrystalDiskMark",
}

# name -> (short title, document short name or None, where in it, what is timed: one sentence)
EXPERIMENTS = {
    "single":   ("one command, MB/s from the engine's cycle counter", "SATA-IP AN1", "§3.2",
                 "One READ or WRITE DMA EXT of up to 65,536 sectors, timed from its issue to its "
                 "status (a write to the end of its FLUSH CACHE EXT unless the run says no flush)."),
    "long":     ("host loop of commands at consecutive LBAs", "SATA-IP AN1", "Tables 5-1, 5-2",
                 "A loop of such commands issued one by one by the host at consecutive LBAs, the "
                 "loop's own overhead included in the time; latency statistics of the gaps "
                 "between commands (status to the next first data) from the engine's histogram."),
    "hwloop":   ("hardware sequencer vs host loop", "SATA-IP AN1", "Table 6-1",
                 "The same transfer issued back to back by the engine's hardware sequencer, beside "
                 "the host loop."),
    "overhead": ("status of one command to first data of the next", "SATA-IP AN1", "Table 6-2",
                 "The gap from one command's status to the next command's first data, for the "
                 "host loop and the hardware loop; latency statistics and histograms of the gaps "
                 "from the engine's histogram."),
    "lba28":    ("28-bit READ/WRITE DMA, 256 sectors per command", "SATA-IP AN1", "Table 7-1",
                 "READ DMA / WRITE DMA (28-bit LBA), 256 sectors per command."),
    "latency":  ("read time vs transfer size, min and max run dropped", "e7SATA read test", "",
                 "Reads of 16 KiB upwards, several runs per size, the fastest and slowest dropped, "
                 "the first access reported apart; latency statistics per size over every run "
                 "(issue to status) from the engine's histogram."),
    "cpu":      ("data through the bridge and host vs through the engine", "FPGA Drive dd test", "",
                 "The same transfer once through the CPU path (every dword copied by the host, "
                 "as dd does through an operating system) and once through the engine."),
    "access":   ("single-sector reads at random LBAs, issue to first data dword",
                 "Quantum SSD paper", "",
                 "Single-sector reads at random LBAs, one at a time, timed from issue to the "
                 "first data dword; latency statistics from the engine's histogram."),
    "random":   ("request throughput vs request size, queue depth 1", "Quantum SSD paper",
                 "Fig. 5, 6",
                 "IOPS and MB/s against request size, random against sequential LBAs; with queue "
                 "depths, IOPS against queue depth (NCQ)."),
    "quick":    ("summary: SEQ 1 MiB Q8/Q1, RND 4 KiB Q32/Q1, read and write", "CrystalDiskMark",
                 "default profile",
                 "The four tests CrystalDiskMark's default profile prints (sequential 1 MiB "
                 "commands at queue depth 8 and 1, random 4 KiB commands at queue depth 32 and 1, "
                 "each read and write), several loops each: MB/s, IOPS and mean latency from the "
                 "engines' counters, the mean, minimum and maximum over the loops."),
    "verify":   ("pattern written, read back and checked", None, "",
                 "A pattern keyed by LBA and seed written and read back: mismatching dwords and "
                 "the first failing LBA (a check for every other experiment)."),
}


def short_title(name):
    """The terminal title: what is measured and the short reference, e.g. '... (SATA-IP AN1
    §3.2)'."""
    what, doc, where, _ = EXPERIMENTS[name]
    if doc is None:
        return what
    return f"{what} ({' '.join(x for x in (doc, where) if x)})"


def reference(name):
    """The public document an experiment reproduces, by title and place in it; None for none."""
    _, doc, where, _ = EXPERIMENTS[name]
    if doc is None:
        return None
    return DOCUMENTS[doc] + (f", {where}" if where else "")


def description(name):
    return EXPERIMENTS[name][3]
