/* SPDX-License-Identifier: BSD-2-Clause */
/* Run control shared by the benchmark engines' drivers (run.h). */
#include <generated/csr.h>
#include <generated/soc.h>

#include "bench.h"
#include "clock.h"
#include "run.h"
#include "sata.h"

#define FREQ ((uint64_t)CONFIG_CLOCK_FREQUENCY)

#ifdef CSR_SATA_BENCH_BASE    /* (the queued engine comes only with the bench engine) */

/* The control and status fields of both engines (the bench engine's generated offsets). */
#define RUN_START     (1u << CSR_SATA_BENCH_CONTROL_START_OFFSET)
#define RUN_ABORT     (1u << CSR_SATA_BENCH_CONTROL_ABORT_OFFSET)
#define RUN_FIELD(s, NAME) \
	(((s) >> CSR_SATA_BENCH_STATUS_##NAME##_OFFSET) & ((1u << CSR_SATA_BENCH_STATUS_##NAME##_SIZE) - 1))

static uint32_t downs_at_start;

uint32_t run_timeout_cycles(uint32_t sectors)
{
	uint64_t c = sata_timeout_ms ? sata_timeout_ms * (FREQ / 1000)
	                             : 2 * FREQ + (uint64_t)sectors * 512 * (FREQ / 10000) / 1000;
	return c > 0xffffffffull ? 0xffffffffu : (uint32_t)c;
}

int run_begin(void)
{
	int err = bench_ready();
	if (err)
		return err;
	downs_at_start = sata_phy_link_downs_read();
	sata_errors_mark();
	return SATA_OK;
}

void run_configure(const struct run_regs *regs, const struct run_span *span)
{
	regs->lba_base(span->lba);
	regs->lba_range(span->range);
	regs->sectors(span->sectors);
	regs->commands(span->commands);
	regs->seed(span->seed);
	regs->capacity(sata_id_valid ? sata_id.sectors : 0);
	regs->timeout(run_timeout_cycles(span->sectors));
}

int run_start_and_wait(const struct run_regs *regs, uint64_t commands, uint32_t sectors)
{
	uint64_t limit_us = commands * (run_timeout_cycles(sectors) / (FREQ / 1000000)) + 1000000;
	regs->control(RUN_START);
	uint64_t t0 = clock_us();
	uint32_t st;
	for (;;) {
		st = regs->status();
		unsigned state = RUN_FIELD(st, STATE);
		if (state == BENCH_STATE_DONE || state == BENCH_STATE_ERROR)
			break;
		if (clock_us() - t0 > limit_us) {
			regs->control(RUN_ABORT);
			return SATA_ERR_TIMEOUT;
		}
	}
	if (sata_phy_link_downs_read() != downs_at_start)
		return SATA_ERR_LINK_DOWN;
	switch (RUN_FIELD(st, REASON)) {
	case BENCH_REASON_OK:
	case BENCH_REASON_DATA_MISMATCH: return SATA_OK;
	case BENCH_REASON_DEVICE_ERROR:  return SATA_ERR_DEVICE;
	case BENCH_REASON_TIMEOUT:       return SATA_ERR_TIMEOUT;
	case BENCH_REASON_REFUSED:       return SATA_ERR_REFUSED;
	case BENCH_REASON_LINK_LOST:     return SATA_ERR_LINK_DOWN;
	default:                         return SATA_ERR_ABORTED;
	}
}

#endif
