/* SPDX-License-Identifier: BSD-2-Clause */
/* Throughput console commands: the experiments of doc/benchmarks.md on the benchmark engine, printed
 * as the seed documents' tables (the read-only access-time ones are in cmd_access.c). Every time
 * is a count of the engine's cycle counters (the CPU path of `cpu` is timed by the SoC's uptime
 * counter, a gateware counter too); MB/s = 10^6 B/s at the SoC's nominal clock. Arguments are
 * KEY=VALUE words plus flags (`write`, `check`, `noflush`).
 *
 * A write run ends with FLUSH CACHE EXT inside its timed interval unless `noflush`: a drive with
 * its volatile write cache on acknowledges writes once they are in its RAM, so without the flush
 * a write figure measures the cache, not the medium. */
#include <stdio.h>
#include <string.h>

#include <generated/csr.h>
#include <generated/mem.h>
#include <generated/sata_codes.h>
#include <generated/soc.h>

#include "bench.h"
#include "clock.h"
#include "cmd_args.h"
#include "console.h"
#include "sata.h"

/* The flush's share of a write run, in a table column ("-" when none). */
static void put_flush(const struct bench_run *r, int width)
{
	if (r->flush_cycles)
		put_us(r->flush_cycles, width);
	else
		printf("%*s", width, "-");
}

/* single --------------------------------------------------------------------------------------- */

static int single_run(int write, uint64_t lba, uint64_t sectors, uint64_t seed, int lba28,
                      const struct write_opts *w)
{
	struct bench_run r = {0};
	r.op = write ? BENCH_WRITE : BENCH_READ;
	r.lba28 = lba28;
	r.lba = lba;
	r.range = r.sectors = sectors;
	r.commands = 1;
	r.seed = seed;
	r.flush = w->flush;
	int err = bench_hw_run(&r);
	if (err)
		return fail("single", err);
	char a[21], b[21], c[21];
	printf("single: one %s of %s sectors (%s bytes) at LBA %s\n", write ? "write" : "read",
	       u64s(a, sectors), u64s(b, r.bytes), u64s(c, lba));
	print_mode(lba28);
	printf("cycles       %s\n", u64s(a, r.cycles));
	printf("time         ");
	put_us(r.cycles, 0);
	printf(" us\nfirst data   ");
	put_us(r.first_data.min, 0);
	printf(" us\n%s MB/s  ", write ? "write" : "read ");
	put_mbps(r.bytes, r.cycles, 0);
	printf("\n");
	if (write && r.flush_cycles) {
		printf("flush        ");
		put_us(r.flush_cycles, 0);
		printf(" us (FLUSH CACHE EXT, included in the time and MB/s)\nbefore flush ");
		put_mbps(r.bytes, r.cycles - r.flush_cycles, 0);
		printf(" MB/s (up to the drive's last acknowledgement)\n");
	} else if (write) {
		write_opts_note(w);
	}
	return 0;
}

static int cmd_single(int argc, char **argv)
{
	uint64_t lba, sectors, seed;
	struct write_opts w;
	if (check_args(argc, argv, "read write lba sectors seed " WRITE_KEYS) ||
	    opt(argc, argv, "lba", 0, &lba) || opt(argc, argv, "sectors", BENCH_MAX_SECTORS, &sectors) ||
	    opt(argc, argv, "seed", BENCH_DEFAULT_SEED, &seed))
		return -1;
	int write = flag(argc, argv, "write");
	if (write_opts_parse(argc, argv, write, &w))
		return -1;
	int err = bench_ready();
	if (err)
		return fail("single", err);
	int lba28 = bench_auto_lba28();
	if (check_command_size("single", sectors, lba28) || prepare("single", lba, sectors, write) ||
	    write_opts_begin("single", &w))
		return -1;
	err = single_run(write, lba, sectors, seed, lba28, &w);
	write_opts_end(&w);
	return err;
}

/* long, hwloop, overhead ---------------------------------------------------------------------- */

struct loop_args {
	uint64_t lba, loops, sectors;
	int write, lba28;
	struct write_opts w;
};

static int loop_args(int argc, char **argv, uint64_t def_loops, struct loop_args *a)
{
	if (check_args(argc, argv, "lba loops sectors write " WRITE_KEYS) ||
	    opt(argc, argv, "lba", 0, &a->lba) || opt(argc, argv, "loops", def_loops, &a->loops))
		return -1;
	a->write = flag(argc, argv, "write");
	if (write_opts_parse(argc, argv, a->write, &a->w))
		return -1;
	int err = bench_ready();
	if (err)
		return fail(argv[0], err);
	a->lba28 = bench_auto_lba28();
	if (opt(argc, argv, "sectors", bench_max_command(a->lba28), &a->sectors) ||
	    check_command_size(argv[0], a->sectors, a->lba28))
		return -1;
	if (a->loops == 0 || a->loops > 0xffffffffull / a->sectors) {
		printf("%s: loops must be at least 1\n", argv[0]);
		return -1;
	}
	if (prepare(argv[0], a->lba, a->loops * a->sectors, a->write))
		return -1;
	return write_opts_begin(argv[0], &a->w);
}

static int long_body(struct loop_args *a)
{
	char s[21];
	printf("long: firmware loop of %s-sector commands at consecutive LBAs from ", u64s(s, a->sectors));
	printf("%s (SATA-IP AN1 Tables 5-1, 5-2)\n", u64s(s, a->lba));
	print_mode(a->lba28);
	printf("loop count  xfr bytes         write MB/s   read MB/s%s\n", a->write ? "    flush us" : "");
	uint64_t wsum = 0, rsum = 0, fsum = 0, rows = 0;
	for (uint64_t n = 1; ; n = n * 2 > a->loops && n < a->loops ? a->loops : n * 2) {
		struct bench_run w = {0}, r;
		if (a->write) {
			int err = bench_loop(1, BENCH_WRITE, a->lba28, a->lba, a->sectors, n, a->w.flush, &w);
			if (err)
				return fail("long: write", err);
		}
		int err = bench_loop(1, BENCH_READ, a->lba28, a->lba, a->sectors, n, 0, &r);
		if (err)
			return fail("long: read", err);
		put_u64(n, 10);
		put_u64(r.bytes, 11);
		printf("       ");
		if (a->write) {
			put_mbps(w.bytes, w.cycles, 12);
			wsum += bench_mbps_x100(w.bytes, w.cycles);
			fsum += w.flush_cycles;
		} else {
			printf("%12s", "-");
		}
		put_mbps(r.bytes, r.cycles, 12);
		rsum += bench_mbps_x100(r.bytes, r.cycles);
		rows++;
		if (a->write)
			put_flush(&w, 12);
		printf("\n");
		if (n >= a->loops)
			break;
	}
	printf("%-28s", "average");
	if (a->write)
		put_x100(wsum / rows, 12);
	else
		printf("%12s", "-");
	put_x100(rsum / rows, 12);
	if (a->write) {
		struct bench_run avg = {0};
		avg.flush_cycles = fsum / rows;
		put_flush(&avg, 12);
	}
	printf("\n");
	if (a->write)
		write_opts_note(&a->w);
	return 0;
}

static int cmd_long(int argc, char **argv)
{
	struct loop_args a;
	if (loop_args(argc, argv, 512, &a))
		return -1;
	int err = long_body(&a);
	write_opts_end(&a.w);
	return err;
}

/* Firmware loop and hardware loop, read (and write): MB/s and status-to-first-data gaps. */
static int compare_loops(struct loop_args *a, struct bench_run res[2][2])
{
	for (int fw = 1; fw >= 0; fw--)
		for (int w = 0; w < 2; w++) {
			memset(&res[fw][w], 0, sizeof(res[fw][w]));
			if (w && !a->write)
				continue;
			int err = bench_loop(fw, w ? BENCH_WRITE : BENCH_READ, a->lba28, a->lba, a->sectors,
			                     a->loops, w && a->w.flush, &res[fw][w]);
			if (err) {
				printf("%s loop, %s: ", fw ? "firmware" : "hardware", w ? "write" : "read");
				return fail("run", err);
			}
		}
	return 0;
}

static int hwloop_body(struct loop_args *a)
{
	struct bench_run res[2][2];
	if (compare_loops(a, res))
		return -1;
	char s[21];
	printf("hwloop: %s commands of ", u64s(s, a->loops));
	printf("%s sectors from LBA ", u64s(s, a->sectors));
	printf("%s (SATA-IP AN1 Table 6-1)\n", u64s(s, a->lba));
	print_mode(a->lba28);
	printf("%-16s %-18s %14s %12s %12s%s\n", "circuit", "loop process", "xfer bytes", "write MB/s",
	       "read MB/s", a->write ? "     flush us" : "");
	for (int fw = 1; fw >= 0; fw--) {
		printf("%-16s %-18s", fw ? "firmware loop" : "state machine", fw ? "CPU firmware" : "engine hardware");
		put_u64(res[fw][0].bytes, 15);
		if (a->write)
			put_mbps(res[fw][1].bytes, res[fw][1].cycles, 13);
		else
			printf("%13s", "-");
		put_mbps(res[fw][0].bytes, res[fw][0].cycles, 13);
		if (a->write)
			put_flush(&res[fw][1], 13);
		printf("\n");
	}
	if (a->write)
		write_opts_note(&a->w);
	return 0;
}

static int cmd_hwloop(int argc, char **argv)
{
	struct loop_args a;
	if (loop_args(argc, argv, 4, &a))
		return -1;
	int err = hwloop_body(&a);
	write_opts_end(&a.w);
	return err;
}

static int overhead_body(struct loop_args *a)
{
	struct bench_run res[2][2];
	if (compare_loops(a, res))
		return -1;
	char s[21];
	printf("overhead: status of one command to first data of the next, %s commands of ", u64s(s, a->loops));
	printf("%s sectors (SATA-IP AN1 Table 6-2)\n", u64s(s, a->sectors));
	print_mode(a->lba28);
	printf("%-16s %12s %12s\n", "circuit", "WRITE us", "READ us");
	for (int fw = 1; fw >= 0; fw--) {
		printf("%-16s", fw ? "firmware loop" : "state machine");
		for (int w = 1; w >= 0; w--) {
			struct bench_stat *g = &res[fw][w].gap;
			if (g->count)
				put_us(g->sum / g->count, 13);
			else
				printf("%13s", "-");
		}
		printf("\n");
	}
	printf("%-16s %-6s %10s %10s %10s %6s\n", "detail", "op", "min us", "avg us", "max us", "gaps");
	for (int fw = 1; fw >= 0; fw--)
		for (int w = 0; w < 2; w++) {
			struct bench_stat *g = &res[fw][w].gap;
			if (!g->count)
				continue;
			printf("%-16s %-6s", fw ? "firmware loop" : "state machine", w ? "write" : "read");
			put_us(g->min, 11);
			put_us(g->sum / g->count, 11);
			put_us(g->max, 11);
			put_u64(g->count, 7);
			printf("\n");
		}
	if (a->write && a->w.flush) {
		/* after the last write: in the runs' time, not in any gap */
		printf("write flush  firmware loop ");
		put_us(res[1][1].flush_cycles, 0);
		printf(" us, state machine ");
		put_us(res[0][1].flush_cycles, 0);
		printf(" us (FLUSH CACHE EXT after the last write, not in the gaps)\n");
	} else if (a->write) {
		write_opts_note(&a->w);
	}
	return 0;
}

static int cmd_overhead(int argc, char **argv)
{
	struct loop_args a;
	if (loop_args(argc, argv, 4, &a))
		return -1;
	int err = -1;
	if (a.loops < 2)
		printf("overhead: needs loops >= 2 (the gap is between commands)\n");
	else
		err = overhead_body(&a);
	write_opts_end(&a.w);
	return err;
}

/* lba28 ---------------------------------------------------------------------------------------- */

static int lba28_body(int write, uint64_t lba, uint64_t count, const struct write_opts *w)
{
	char s[21];
	printf("lba28: %s sectors from LBA ", u64s(s, count));
	printf("%s, 256 sectors per command (SATA-IP AN1 Table 7-1)\n", u64s(s, lba));
	printf("commands     READ DMA / WRITE DMA (28-bit), %s\n",
	       sata_id.lba48 ? "forced: the drive also supports 48-bit LBA"
	                     : "chosen automatically: the drive has no 48-bit LBA (IDENTIFY word 83 bit 10 clear)");
	printf("%-6s %12s %10s %14s %10s%s\n", "op", "sectors", "commands", "cycles", "MB/s",
	       write ? "   flush us" : "");
	for (int wr = write; wr >= 0; wr--) {
		struct bench_run r;
		int err = bench_span(wr ? BENCH_WRITE : BENCH_READ, 0, 1, lba, count, BENCH_DEFAULT_SEED,
		                     wr && w->flush, &r);
		if (err)
			return fail(wr ? "lba28: write" : "lba28: read", err);
		printf("%-6s", wr ? "write" : "read");
		put_u64(r.bytes / SATA_SECTOR, 13);
		put_u64(r.completed, 11);
		put_u64(r.cycles, 15);
		put_mbps(r.bytes, r.cycles, 11);
		if (write)
			put_flush(&r, 11);
		printf("\n");
	}
	if (write)
		write_opts_note(w);
	return 0;
}

static int cmd_lba28(int argc, char **argv)
{
	uint64_t lba, count;
	struct write_opts w;
	if (check_args(argc, argv, "lba count write " WRITE_KEYS) || opt(argc, argv, "lba", 0, &lba))
		return -1;
	int write = flag(argc, argv, "write");
	if (write_opts_parse(argc, argv, write, &w))
		return -1;
	int err = bench_ready();
	if (err)
		return fail("lba28", err);
	uint64_t cap = sata_id.sectors < BENCH_LBA28_LIMIT ? sata_id.sectors : BENCH_LBA28_LIMIT;
	if (opt(argc, argv, "count", lba < cap ? cap - lba : 0, &count))
		return -1;
	if (lba + count > BENCH_LBA28_LIMIT) {
		printf("lba28: 28-bit commands reach LBAs below 2^28 only: nothing sent\n");
		return -1;
	}
	if (prepare("lba28", lba, count, write) || write_opts_begin("lba28", &w))
		return -1;
	err = lba28_body(write, lba, count, &w);
	write_opts_end(&w);
	return err;
}

/* cpu ------------------------------------------------------------------------------------------ */

/* CPU path: 16-sector commands through the sector buffer, the CPU copying every dword between the
 * buffer and main RAM (as `dd` through an OS), timed by the uptime counter; a write ends with
 * FLUSH CACHE EXT through the buffer, inside the interval, unless noflush. */
static int cpu_path(int w, uint64_t lba, uint64_t count, int flush, uint64_t *cycles, uint64_t *flush_cycles)
{
	uint32_t *ram = (uint32_t *)MAIN_RAM_BASE;
	sata_errors_mark();
	uint64_t t0 = clock_cycles();
	*flush_cycles = 0;
	for (uint64_t done = 0; done < count; done += SATA_BUF_SECTORS) {
		int err;
		if (w) {
			for (int i = 0; i < SATA_BUF_SECTORS * SATA_SECTOR / 4; i++)
				ram[i] = (uint32_t)(lba + done) * 0x9e3779b9u + i;
			err = sata_write(lba + done, SATA_BUF_SECTORS, ram, 1000000);
		} else {
			err = sata_read(lba + done, SATA_BUF_SECTORS, ram, 1000000);
		}
		if (err)
			return fail("cpu: CPU path", err);
	}
	if (w && flush) {
		uint64_t t1 = clock_cycles();
		int err = sata_nodata(ATA_FLUSH_CACHE_EXT, 0, 0, 0, sata_flush_timeout_us());
		if (err) {   /* sata_nodata printed it */
			sata_recover_if_needed(err);
			return err;
		}
		*flush_cycles = clock_cycles() - t1;
	}
	*cycles = clock_cycles() - t0;
	return 0;
}

static int cpu_body(int write, uint64_t lba, uint64_t count, const struct write_opts *wo)
{
	int lba28 = bench_auto_lba28();
	char s[21];
	printf("cpu: %s sectors from LBA ", u64s(s, count));
	printf("%s: data through the CPU vs through the engine (FPGA Drive dd test)\n", u64s(s, lba));
	printf("%-6s %-44s %10s %8s%s\n", "op", "path", "MB/s", "ratio", write ? "   flush us" : "");
	for (int w = write; w >= 0; w--) {
		uint64_t cpu_cycles = 0, cpu_flush = 0;
		struct bench_run r16, rbig, rcpu = {0};
		int flush = w && wo->flush;
		int err = cpu_path(w, lba, count, flush, &cpu_cycles, &cpu_flush);
		if (err)
			return err;
		rcpu.flush_cycles = cpu_flush;
		err = bench_loop(0, w ? BENCH_WRITE : BENCH_READ, lba28, lba, SATA_BUF_SECTORS,
		                 count / SATA_BUF_SECTORS, flush, &r16);
		if (!err)
			err = bench_span(w ? BENCH_WRITE : BENCH_READ, 0, lba28, lba, count, BENCH_DEFAULT_SEED,
			                 flush, &rbig);
		if (err)
			return fail("cpu: engine", err);
		uint64_t bytes = count * SATA_SECTOR, cpu = bench_mbps_x100(bytes, cpu_cycles);
		const char *op = w ? "write" : "read";
		printf("%-6s %-44s", op, "CPU copies every dword, 16-sector commands");
		put_x100(cpu, 11);
		printf("%9s", "1.00");
		if (write)
			put_flush(&rcpu, 11);
		printf("\n%-6s %-44s", op, "engine, 16-sector commands");
		put_mbps(r16.bytes, r16.cycles, 11);
		put_x100(cpu ? bench_mbps_x100(r16.bytes, r16.cycles) * 100 / cpu : 0, 9);
		if (write)
			put_flush(&r16, 11);
		printf("\n%-6s %-44s", op, "engine, largest commands");
		put_mbps(rbig.bytes, rbig.cycles, 11);
		put_x100(cpu ? bench_mbps_x100(rbig.bytes, rbig.cycles) * 100 / cpu : 0, 9);
		if (write)
			put_flush(&rbig, 11);
		printf("\n");
	}
	if (write)
		write_opts_note(wo);
	return 0;
}

static int cmd_cpu(int argc, char **argv)
{
	uint64_t lba, count;
	struct write_opts w;
	if (check_args(argc, argv, "lba count write " WRITE_KEYS) || opt(argc, argv, "lba", 0, &lba) ||
	    opt(argc, argv, "count", 256, &count))
		return -1;
	int write = flag(argc, argv, "write");
	if (write_opts_parse(argc, argv, write, &w))
		return -1;
	if (count % SATA_BUF_SECTORS) {
		printf("cpu: count must be a multiple of %d sectors\n", SATA_BUF_SECTORS);
		return -1;
	}
	if (prepare("cpu", lba, count, write) || write_opts_begin("cpu", &w))
		return -1;
	int err = cpu_body(write, lba, count, &w);
	write_opts_end(&w);
	return err;
}

/* verify --------------------------------------------------------------------------------------- */

static int verify_body(int check, uint64_t lba, uint64_t count, uint64_t seed, const struct write_opts *w)
{
	int lba28 = bench_auto_lba28();
	struct bench_run r;
	int err = bench_span(check ? BENCH_READ : BENCH_WRITE_VERIFY, 1, lba28, lba, count, seed,
	                     !check && w->flush, &r);
	if (err)
		return fail("verify", err);
	char s[21];
	printf("verify: %s sectors from LBA ", u64s(s, count));
	printf("%s, seed 0x%08lx, %s\n", u64s(s, lba), (unsigned long)seed,
	       check ? "read and checked" : "written, read back and checked");
	print_mode(lba28);
	printf("commands     %s", u64s(s, r.completed));
	printf(", %s failed\n", u64s(s, r.errors));
	if (!check && r.flush_cycles) {
		printf("flush        ");
		put_us(r.flush_cycles, 0);
		printf(" us (FLUSH CACHE EXT before the read-back)\n");
	} else if (!check) {
		write_opts_note(w);
	}
	printf("bad sectors  %s\n", u64s(s, r.mismatch_sectors));
	printf("bad dwords   %s\n", u64s(s, r.mismatch_dwords));
	if (r.mismatch_sectors)
		printf("first bad    LBA %s\n", u64s(s, r.first_bad_lba));
	printf("result       %s\n", r.mismatch_sectors || r.errors ? "FAIL" : "PASS");
	return r.mismatch_sectors || r.errors;
}

static int cmd_verify(int argc, char **argv)
{
	uint64_t lba, count, seed;
	struct write_opts w;
	if (check_args(argc, argv, "lba count seed check " WRITE_KEYS) || opt(argc, argv, "lba", 0, &lba) ||
	    opt(argc, argv, "count", 2048, &count) || opt(argc, argv, "seed", BENCH_DEFAULT_SEED, &seed))
		return -1;
	if (seed > 0xffffffffull) {
		printf("verify: seed is 32 bits\n");
		return -1;
	}
	int check = flag(argc, argv, "check");   /* read back an earlier run's pattern only */
	if (write_opts_parse(argc, argv, !check, &w) || prepare("verify", lba, count, !check) ||
	    write_opts_begin("verify", &w))
		return -1;
	int err = verify_body(check, lba, count, seed, &w);
	write_opts_end(&w);
	return err;
}

const struct command bench_commands[] = {
	{CONSOLE_SINGLE, cmd_single},
	{CONSOLE_LONG, cmd_long},
	{CONSOLE_HWLOOP, cmd_hwloop},
	{CONSOLE_OVERHEAD, cmd_overhead},
	{CONSOLE_LBA28, cmd_lba28},
	{CONSOLE_CPU, cmd_cpu},
	{CONSOLE_VERIFY, cmd_verify},
	{NULL, NULL, NULL, NULL},
};
