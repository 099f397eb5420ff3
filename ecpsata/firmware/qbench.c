/* SPDX-License-Identifier: BSD-2-Clause */
/* Driver of the queued benchmark engine (qbench.h). */
#include <generated/csr.h>
#include <generated/sata_codes.h>
#include <generated/soc.h>

#include "qbench.h"
#include "run.h"
#include "sata.h"

static const char *const reason_names[] = NCQ_REASON_TEXTS;

const char *qbench_reason_name(uint32_t reason)
{
	return reason < sizeof(reason_names) / sizeof(reason_names[0]) ? reason_names[reason] : "unknown";
}

uint32_t qbench_mix_value(uint32_t read_percent)
{
	return ((100 - read_percent) * QBENCH_MIX_ONE + 50) / 100;
}

#ifdef CSR_SATA_QBENCH_BASE

#define FIELD(value, REG, NAME) \
	(((value) >> CSR_SATA_QBENCH_##REG##_##NAME##_OFFSET) & ((1u << CSR_SATA_QBENCH_##REG##_##NAME##_SIZE) - 1))

int qbench_present(void) { return 1; }

#ifdef CSR_SATA_QBENCH_MIX_ADDR
int qbench_has_mix(void) { return 1; }
#else
int qbench_has_mix(void) { return 0; }
#endif

static const struct run_regs regs = {
	sata_qbench_control_write, sata_qbench_status_read, sata_qbench_lba_base_write,
	sata_qbench_lba_range_write, sata_qbench_sectors_write, sata_qbench_commands_write,
	sata_qbench_seed_write, sata_qbench_capacity_write, sata_qbench_timeout_write,
};

static void collect(struct qbench_run *r)
{
	r->cycles = sata_qbench_cycles_read();
	r->bytes = sata_qbench_bytes_read();
	r->completed = sata_qbench_completed_read();
	r->errors = sata_qbench_errors_read();
	r->depth_max = sata_qbench_depth_max_read();
	r->reissued = sata_qbench_reissued_read();
#ifdef CSR_SATA_QBENCH_COMPLETED_WRITES_ADDR
	r->completed_reads = sata_qbench_completed_reads_read();
	r->completed_writes = sata_qbench_completed_writes_read();
#endif
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
	if (r->op == QBENCH_MIX && (!qbench_has_mix() || r->mix > QBENCH_MIX_ONE))
		return SATA_ERR_REFUSED;
	int err = run_begin();
	if (err)
		return err;
	sata_qbench_config_write(((uint32_t)r->op << CSR_SATA_QBENCH_CONFIG_OP_OFFSET) |
	                         ((uint32_t)(r->random ? 1 : 0) << CSR_SATA_QBENCH_CONFIG_RANDOM_OFFSET) |
	                         (1u << CSR_SATA_QBENCH_CONFIG_STOP_ON_ERROR_OFFSET));
	sata_qbench_qd_write(r->qd);
#ifdef CSR_SATA_QBENCH_MIX_ADDR
	sata_qbench_mix_write(r->mix);
#endif
	/* `timeout` is the engine's silence limit here: no progress on any tag for that long */
	struct run_span span = {r->lba, r->range, r->sectors, r->commands, r->seed};
	run_configure(&regs, &span);
	err = run_start_and_wait(&regs, r->commands, r->sectors);
	collect(r);
	return err;
}

#else

int qbench_present(void) { return 0; }
int qbench_has_mix(void) { return 0; }
int qbench_run(struct qbench_run *r) { return SATA_ERR_NO_BENCH; }

#endif
