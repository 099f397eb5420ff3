/* SPDX-License-Identifier: BSD-2-Clause */
/* Driver of the benchmark engine (bench.h). */
#include <string.h>

#include <generated/csr.h>
#include <generated/soc.h>

#include "bench.h"
#include "run.h"
#include "sata.h"

#define FREQ ((uint64_t)CONFIG_CLOCK_FREQUENCY)

uint64_t bench_mbps_x100(uint64_t bytes, uint64_t cycles)
{
	return cycles ? bytes * (FREQ / 10000) / cycles : 0;
}

uint64_t bench_us_x100(uint64_t cycles)
{
	return cycles * 100000 / (FREQ / 1000);
}

int bench_auto_lba28(void)
{
	return sata_id_valid && !sata_id.lba48;
}

uint32_t bench_max_command(int lba28)
{
	return lba28 ? BENCH_MAX_SECTORS28 : BENCH_MAX_SECTORS;
}

#ifdef CSR_SATA_BENCH_BASE

#define CONTROL(NAME) (1u << CSR_SATA_BENCH_CONTROL_##NAME##_OFFSET)

static const struct run_regs regs = {
	sata_bench_control_write, sata_bench_status_read, sata_bench_lba_base_write,
	sata_bench_lba_range_write, sata_bench_sectors_write, sata_bench_commands_write,
	sata_bench_seed_write, sata_bench_capacity_write, sata_bench_timeout_write,
};

int bench_ready(void)
{
	int err = sata_wait_drive();
	if (!err && !sata_id_valid)
		err = sata_identify(sata_cmd_timeout_us());
	return err ? err : sata_check_sector_size();
}

static uint32_t config_word;   /* the firmware loop sets `flush` for its last command */

static int flushes(const struct bench_run *r)
{
	return r->flush && r->op != BENCH_READ;
}

static int configure(const struct bench_run *r, int fw_loop)
{
#ifndef CSR_SATA_BENCH_CONFIG_FLUSH_OFFSET
	if (flushes(r))
		return SATA_ERR_NO_FLUSH;
#endif
	config_word =
		((uint32_t)r->op << CSR_SATA_BENCH_CONFIG_OP_OFFSET) |
		((uint32_t)(r->random ? 1 : 0) << CSR_SATA_BENCH_CONFIG_RANDOM_OFFSET) |
		((uint32_t)(r->verify ? 1 : 0) << CSR_SATA_BENCH_CONFIG_VERIFY_OFFSET) |
		((uint32_t)(r->lba28 ? 1 : 0) << CSR_SATA_BENCH_CONFIG_LBA28_OFFSET) |
		((uint32_t)fw_loop << CSR_SATA_BENCH_CONFIG_FW_LOOP_OFFSET) |
		(1u << CSR_SATA_BENCH_CONFIG_STOP_ON_ERROR_OFFSET) |
		((uint32_t)r->hist_source << CSR_SATA_BENCH_CONFIG_HIST_SOURCE_OFFSET);
#ifdef CSR_SATA_BENCH_CONFIG_FLUSH_OFFSET
	if (flushes(r) && !fw_loop)
		config_word |= 1u << CSR_SATA_BENCH_CONFIG_FLUSH_OFFSET;
#endif
	sata_bench_config_write(config_word);
	struct run_span span = {r->lba, r->range, r->sectors, r->commands, r->seed};
	run_configure(&regs, &span);
	return SATA_OK;
}

/* One statistic of the engine's memory: a source's first entry (BENCH_STAT_LAT, ...) plus a
 * field (BENCH_STAT_FIELD_MIN, ...). */
static uint64_t stat_read(int entry)
{
	sata_bench_stat_select_write(entry);
	return sata_bench_stat_data_read();
}

static void read_stat(struct bench_stat *s, int source)
{
	s->min = stat_read(source + BENCH_STAT_FIELD_MIN);
	s->max = stat_read(source + BENCH_STAT_FIELD_MAX);
	s->sum = stat_read(source + BENCH_STAT_FIELD_SUM);
	s->count = (uint32_t)stat_read(source + BENCH_STAT_FIELD_COUNT);
}

void bench_collect(struct bench_run *r)
{
	r->cycles = sata_bench_cycles_read();
	r->bytes = sata_bench_bytes_read();
#ifdef CSR_SATA_BENCH_FLUSH_CYCLES_ADDR
	r->flush_cycles = sata_bench_flush_cycles_read();
#else
	r->flush_cycles = 0;
#endif
	r->completed = sata_bench_completed_read();
	r->errors = sata_bench_errors_read();
	r->mismatch_dwords = sata_bench_mismatch_dwords_read();
	r->mismatch_sectors = sata_bench_mismatch_sectors_read();
	r->first_bad_lba = sata_bench_first_bad_lba_read();
	read_stat(&r->lat, BENCH_STAT_LAT);
	read_stat(&r->first_data, BENCH_STAT_FIRST_DATA);
	read_stat(&r->gap, BENCH_STAT_GAP);
}

int bench_hw_run(struct bench_run *r)
{
	int err = run_begin();
	if (!err)
		err = configure(r, 0);
	if (err)
		return err;
	/* a flush counts as a command */
	err = run_start_and_wait(&regs, (uint64_t)r->commands * (r->op == BENCH_WRITE_VERIFY ? 2 : 1) +
	                         flushes(r), r->sectors);
	bench_collect(r);
	return err;
}

int bench_fw_begin(struct bench_run *r)
{
	int err = run_begin();
	if (err)
		return err;
	r->commands = 1;
	r->range = r->sectors;
	err = configure(r, 1);
	if (err)
		return err;
	sata_bench_control_write(CONTROL(CLEAR));
	return SATA_OK;
}

int bench_fw_command(struct bench_run *r, uint64_t lba, int last)
{
	int flush = last && flushes(r);
#ifdef CSR_SATA_BENCH_CONFIG_FLUSH_OFFSET
	if (flush)
		sata_bench_config_write(config_word | 1u << CSR_SATA_BENCH_CONFIG_FLUSH_OFFSET);
#endif
	sata_bench_lba_base_write(lba);
	return run_start_and_wait(&regs, 1 + flush, r->sectors);
}

uint32_t bench_hist_bucket(int k)
{
	sata_bench_hist_select_write(k);
	return sata_bench_hist_data_read();
}

/* Sum of the first-data times (sys cycles) of every command since the run began. */
uint64_t bench_first_data_sum(void)
{
	return stat_read(BENCH_STAT_FIRST_DATA + BENCH_STAT_FIELD_SUM);
}

#else

int bench_ready(void) { return SATA_ERR_NO_BENCH; }
int bench_hw_run(struct bench_run *r) { return SATA_ERR_NO_BENCH; }
int bench_fw_begin(struct bench_run *r) { return SATA_ERR_NO_BENCH; }
int bench_fw_command(struct bench_run *r, uint64_t lba, int last) { return SATA_ERR_NO_BENCH; }
void bench_collect(struct bench_run *r) { }
uint32_t bench_hist_bucket(int k) { return 0; }
uint64_t bench_first_data_sum(void) { return 0; }

#endif

int bench_span(int op, int verify, int lba28, uint64_t lba, uint64_t count, uint32_t seed, int flush,
               struct bench_run *sum)
{
	uint32_t per = count < bench_max_command(lba28) ? count : bench_max_command(lba28);
	uint64_t full = count / per, rest = count % per;
	memset(sum, 0, sizeof(*sum));
	sum->flush = flush;
	for (int part = 0; part < 2; part++) {
		struct bench_run r = {0};
		r.op = op;
		r.verify = verify;
		r.lba28 = lba28;
		r.seed = seed;
		r.lba = lba + (part ? full * per : 0);
		r.sectors = part ? rest : per;
		r.commands = part ? 1 : full;
		r.range = (uint64_t)r.sectors * r.commands;
		if (r.commands == 0 || r.sectors == 0)
			continue;
		/* one flush at the end of the span empties everything written before it */
		r.flush = flush && (part == 1 || rest == 0);
		int err = bench_hw_run(&r);
		sum->cycles += r.cycles;
		sum->bytes += r.bytes;
		sum->flush_cycles += r.flush_cycles;
		sum->completed += r.completed;
		sum->errors += r.errors;
		if (r.mismatch_sectors && !sum->mismatch_sectors)
			sum->first_bad_lba = r.first_bad_lba;
		sum->mismatch_dwords += r.mismatch_dwords;
		sum->mismatch_sectors += r.mismatch_sectors;
		sum->lat.sum += r.lat.sum;
		sum->lat.count += r.lat.count;
		if (err)
			return err;
	}
	return SATA_OK;
}

int bench_loop(int fw, int op, int lba28, uint64_t lba, uint32_t sectors, uint32_t commands,
               int flush, struct bench_run *r)
{
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->lba28 = lba28;
	r->seed = BENCH_DEFAULT_SEED;
	r->lba = lba;
	r->sectors = sectors;
	r->hist_source = BENCH_HIST_GAP;
	r->flush = flush;
	if (!fw) {
		r->commands = commands;
		r->range = (uint64_t)sectors * commands;
		return bench_hw_run(r);
	}
	int err = bench_fw_begin(r);
	for (uint32_t i = 0; i < commands && !err; i++)   /* the CPU updates the LBA */
		err = bench_fw_command(r, lba + (uint64_t)i * sectors, i == commands - 1);
	bench_collect(r);
	return err;
}
