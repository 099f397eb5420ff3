/* SPDX-License-Identifier: BSD-2-Clause */
/* Driver of the queued benchmark engine (qbench.h). */
#include <generated/csr.h>
#include <generated/sata_codes.h>
#include <generated/soc.h>

#include "clock.h"
#include "qbench.h"
#include "sata.h"

#define FREQ ((uint64_t)CONFIG_CLOCK_FREQUENCY)

static const char *const reason_names[] = NCQ_REASON_TEXTS;

const char *qbench_reason_name(uint32_t reason)
{
	return reason < sizeof(reason_names) / sizeof(reason_names[0]) ? reason_names[reason] : "unknown";
}

#ifdef CSR_SATA_QBENCH_BASE

#define FIELD(value, REG, NAME) \
	(((value) >> CSR_SATA_QBENCH_##REG##_##NAME##_OFFSET) & ((1u << CSR_SATA_QBENCH_##REG##_##NAME##_SIZE) - 1))
#define CONTROL(NAME) (1u << CSR_SATA_QBENCH_CONTROL_##NAME##_OFFSET)

int qbench_present(void) { return 1; }

/* The engine's silence limit: 2 s plus 10 MB/s worth of the command's data (as bench.c). */
static uint32_t silence_cycles(uint32_t sectors)
{
	uint64_t c = sata_timeout_ms ? sata_timeout_ms * (FREQ / 1000)
	                             : 2 * FREQ + (uint64_t)sectors * 512 * (FREQ / 10000) / 1000;
	return c > 0xffffffffull ? 0xffffffffu : (uint32_t)c;
}

static void collect(struct qbench_run *r)
{
	r->cycles = sata_qbench_cycles_read();
	r->bytes = sata_qbench_bytes_read();
	r->completed = sata_qbench_completed_read();
	r->errors = sata_qbench_errors_read();
	r->depth_max = sata_qbench_depth_max_read();
	r->reissued = sata_qbench_reissued_read();
	r->lat.min = sata_qbench_lat_min_read();
	r->lat.max = sata_qbench_lat_max_read();
	r->lat.sum = sata_qbench_lat_sum_read();
	r->lat.count = sata_qbench_lat_count_read();
	r->ncq_errors = sata_qbench_ncq_errors_read();
	r->ncq_reason = sata_qbench_ncq_reason_read();
	uint32_t t = sata_qbench_ncq_tag_read();
	r->ncq_tag = FIELD(t, NCQ_TAG, TAG);
	r->ncq_tag_valid = FIELD(t, NCQ_TAG, VALID);
	r->ncq_lba = sata_qbench_ncq_lba_read();
}

int qbench_run(struct qbench_run *r)
{
	int err = bench_ready();
	if (err)
		return err;
	uint32_t downs = sata_phy_link_downs_read();
	sata_errors_mark();
	uint32_t silence = silence_cycles(r->sectors);
	sata_qbench_config_write(((uint32_t)r->op << CSR_SATA_QBENCH_CONFIG_OP_OFFSET) |
	                         ((uint32_t)(r->random ? 1 : 0) << CSR_SATA_QBENCH_CONFIG_RANDOM_OFFSET) |
	                         (1u << CSR_SATA_QBENCH_CONFIG_STOP_ON_ERROR_OFFSET));
	sata_qbench_qd_write(r->qd);
	sata_qbench_lba_base_write(r->lba);
	sata_qbench_lba_range_write(r->range);
	sata_qbench_sectors_write(r->sectors);
	sata_qbench_commands_write(r->commands);
	sata_qbench_seed_write(r->seed);
	sata_qbench_capacity_write(sata_id_valid ? sata_id.sectors : 0);
	sata_qbench_timeout_write(silence);
	sata_qbench_control_write(CONTROL(START));
	/* Backstop: every command given the whole silence limit, plus a second. */
	uint64_t limit_us = (uint64_t)r->commands * (silence / (FREQ / 1000000)) + 1000000;
	uint64_t t0 = clock_us();
	uint32_t st;
	for (;;) {
		st = sata_qbench_status_read();
		unsigned state = FIELD(st, STATUS, STATE);
		if (state == BENCH_STATE_DONE || state == BENCH_STATE_ERROR)
			break;
		if (clock_us() - t0 > limit_us) {
			sata_qbench_control_write(CONTROL(ABORT));
			collect(r);
			return SATA_ERR_TIMEOUT;
		}
	}
	collect(r);
	if (sata_phy_link_downs_read() != downs)
		return SATA_ERR_LINK_DOWN;
	switch (FIELD(st, STATUS, REASON)) {
	case BENCH_REASON_OK:           return SATA_OK;
	case BENCH_REASON_DEVICE_ERROR: return SATA_ERR_DEVICE;
	case BENCH_REASON_TIMEOUT:      return SATA_ERR_TIMEOUT;
	case BENCH_REASON_REFUSED:      return SATA_ERR_REFUSED;
	case BENCH_REASON_LINK_LOST:    return SATA_ERR_LINK_DOWN;
	default:                  return SATA_ERR_ABORTED;
	}
}

#else

int qbench_present(void) { return 0; }
int qbench_run(struct qbench_run *r) { return SATA_ERR_NO_BENCH; }

#endif
