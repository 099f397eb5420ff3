/* SPDX-License-Identifier: BSD-2-Clause */
/* Run control shared by the drivers of the two benchmark engines (bench.c, qbench.c). In the
 * gateware both engines take their control and status fields and their range registers from one
 * module (ecpsata/engines/run.py), so one driver serves both: an engine is named by the table of
 * its CSR accessors. */
#ifndef ECPSATA_RUN_H
#define ECPSATA_RUN_H

#include <stdint.h>

struct run_regs {
	void (*control)(uint32_t);
	uint32_t (*status)(void);
	void (*lba_base)(uint64_t);
	void (*lba_range)(uint64_t);
	void (*sectors)(uint32_t);
	void (*commands)(uint32_t);
	void (*seed)(uint32_t);
	void (*capacity)(uint64_t);
	void (*timeout)(uint32_t);
};

struct run_span {
	uint64_t lba, range;
	uint32_t sectors, commands, seed;
};

/* Cycles the engine allows a command of `sectors` sectors: 2 s plus 10 MB/s worth of its data,
 * or what the console's `timeout` set. */
uint32_t run_timeout_cycles(uint32_t sectors);
/* Before a run: the drive ready and identified, the link-down count and the error counters
 * marked. Returns a sata_err code. */
int run_begin(void);
/* The range, the drive's capacity (from IDENTIFY; 0 refuses every run) and the timeout. */
void run_configure(const struct run_regs *regs, const struct run_span *span);
/* Start the engine (or one firmware-loop command) and wait for done or error. The engine times a
 * stuck command out by itself; the CPU's deadline (each of `commands` given the whole timeout,
 * plus a second) is a backstop in case it never answers: then the run is aborted. Returns a
 * sata_err code; a data mismatch is a result, not an error (the caller reports its counters). */
int run_start_and_wait(const struct run_regs *regs, uint64_t commands, uint32_t sectors);

#endif
