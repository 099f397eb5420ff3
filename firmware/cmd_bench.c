/* Benchmark console commands: the experiments of BENCHMARKS.md on the benchmark engine, printed as
 * the seed documents' tables. Every time is a count of the engine's cycle counters (the CPU path
 * of `cpu` is timed by the SoC's uptime counter, a gateware counter too); MB/s = 10^6 B/s at the
 * SoC's nominal clock. Arguments are KEY=VALUE words plus flags (`write`, `force`, `check`). */
#include <stdio.h>
#include <string.h>

#include <generated/csr.h>
#include <generated/mem.h>
#include <generated/soc.h>

#include "bench.h"
#include "clock.h"
#include "cmd_args.h"
#include "console.h"
#include "sata.h"

#define DEFAULT_SEED 1
#define MAX_SAMPLES  4096     /* `access` samples, in main RAM after the CPU-path buffer */

static uint32_t *const samples = (uint32_t *)(MAIN_RAM_BASE + SATA_BUF_SECTORS * SATA_SECTOR);

static void print_mode(int lba28)
{
	printf("commands     %s%s\n", lba28 ? "READ DMA / WRITE DMA (28-bit)" : "READ DMA EXT / WRITE DMA EXT",
	       lba28 && !sata_id.lba48 ? ", chosen automatically: the drive has no 48-bit LBA" : "");
}

/* Sizes beyond one command of the current drive are refused before anything is sent. */
static int check_command_size(const char *what, uint64_t sectors, int lba28)
{
	if (sectors == 0 || sectors > bench_max_command(lba28)) {
		printf("%s: sectors per command must be 1..%lu%s\n", what,
		       (unsigned long)bench_max_command(lba28), lba28 ? " (28-bit commands)" : "");
		return -1;
	}
	return 0;
}

/* Sequential run over [lba, lba + count): as many commands of the largest size as fit, then one
 * command for the rest. Results summed into *sum. */
static int run_span(int op, int verify, int lba28, uint64_t lba, uint64_t count, uint32_t seed,
                    struct bench_run *sum)
{
	uint32_t per = count < bench_max_command(lba28) ? count : bench_max_command(lba28);
	uint64_t full = count / per, rest = count % per;
	memset(sum, 0, sizeof(*sum));
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
		int err = bench_hw_run(&r);
		sum->cycles += r.cycles;
		sum->bytes += r.bytes;
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

/* Commands of `sectors` at consecutive LBAs, issued by the firmware (fw) or the engine. */
static int run_loop(int fw, int op, int lba28, uint64_t lba, uint32_t sectors, uint32_t commands,
                    struct bench_run *r)
{
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->lba28 = lba28;
	r->seed = DEFAULT_SEED;
	r->lba = lba;
	r->sectors = sectors;
	r->hist_source = BENCH_HIST_GAP;
	if (!fw) {
		r->commands = commands;
		r->range = (uint64_t)sectors * commands;
		return bench_hw_run(r);
	}
	int err = bench_fw_begin(r);
	for (uint32_t i = 0; i < commands && !err; i++)
		err = bench_fw_command(r, lba + (uint64_t)i * sectors);  /* the CPU updates the LBA */
	bench_collect(r);
	return err;
}

/* single --------------------------------------------------------------------------------------- */

static int cmd_single(int argc, char **argv)
{
	uint64_t lba, sectors, seed;
	if (check_args(argc, argv, "read write lba sectors seed") || opt(argc, argv, "lba", 0, &lba) ||
	    opt(argc, argv, "sectors", BENCH_MAX_SECTORS, &sectors) ||
	    opt(argc, argv, "seed", DEFAULT_SEED, &seed))
		return -1;
	int write = flag(argc, argv, "write");
	int err = bench_ready();
	if (err)
		return fail("single", err);
	int lba28 = bench_auto_lba28();
	if (check_command_size("single", sectors, lba28) || prepare("single", lba, sectors, write))
		return -1;
	struct bench_run r = {0};
	r.op = write ? BENCH_WRITE : BENCH_READ;
	r.lba28 = lba28;
	r.lba = lba;
	r.range = r.sectors = sectors;
	r.commands = 1;
	r.seed = seed;
	err = bench_hw_run(&r);
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
	return 0;
}

/* long, hwloop, overhead ---------------------------------------------------------------------- */

struct loop_args {
	uint64_t lba, loops, sectors;
	int write, lba28;
};

static int loop_args(int argc, char **argv, uint64_t def_loops, struct loop_args *a)
{
	if (check_args(argc, argv, "lba loops sectors write") || opt(argc, argv, "lba", 0, &a->lba) ||
	    opt(argc, argv, "loops", def_loops, &a->loops))
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
	a->write = flag(argc, argv, "write");
	return prepare(argv[0], a->lba, a->loops * a->sectors, a->write);
}

static int cmd_long(int argc, char **argv)
{
	struct loop_args a;
	if (loop_args(argc, argv, 512, &a))
		return -1;
	char s[21];
	printf("long: firmware loop of %s-sector commands at consecutive LBAs from ", u64s(s, a.sectors));
	printf("%s (seed 000 Tables 5-1, 5-2)\n", u64s(s, a.lba));
	print_mode(a.lba28);
	printf("loop count  xfr bytes         write MB/s   read MB/s\n");
	uint64_t wsum = 0, rsum = 0, rows = 0;
	for (uint64_t n = 1; ; n = n * 2 > a.loops && n < a.loops ? a.loops : n * 2) {
		struct bench_run w, r;
		if (a.write) {
			int err = run_loop(1, BENCH_WRITE, a.lba28, a.lba, a.sectors, n, &w);
			if (err)
				return fail("long: write", err);
		}
		int err = run_loop(1, BENCH_READ, a.lba28, a.lba, a.sectors, n, &r);
		if (err)
			return fail("long: read", err);
		put_u64(n, 10);
		put_u64(r.bytes, 11);
		printf("       ");
		if (a.write) {
			put_mbps(w.bytes, w.cycles, 12);
			wsum += bench_mbps_x100(w.bytes, w.cycles);
		} else {
			printf("%12s", "-");
		}
		put_mbps(r.bytes, r.cycles, 12);
		rsum += bench_mbps_x100(r.bytes, r.cycles);
		rows++;
		printf("\n");
		if (n >= a.loops)
			break;
	}
	printf("%-28s", "average");
	if (a.write)
		put_x100(wsum / rows, 12);
	else
		printf("%12s", "-");
	put_x100(rsum / rows, 12);
	printf("\n");
	return 0;
}

/* Firmware loop and hardware loop, read (and write): MB/s and status-to-first-data gaps. */
static int compare_loops(struct loop_args *a, struct bench_run res[2][2])
{
	for (int fw = 1; fw >= 0; fw--)
		for (int w = 0; w < 2; w++) {
			memset(&res[fw][w], 0, sizeof(res[fw][w]));
			if (w && !a->write)
				continue;
			int err = run_loop(fw, w ? BENCH_WRITE : BENCH_READ, a->lba28, a->lba, a->sectors,
			                   a->loops, &res[fw][w]);
			if (err) {
				printf("%s loop, %s: ", fw ? "firmware" : "hardware", w ? "write" : "read");
				return fail("run", err);
			}
		}
	return 0;
}

static int cmd_hwloop(int argc, char **argv)
{
	struct loop_args a;
	if (loop_args(argc, argv, 4, &a))
		return -1;
	struct bench_run res[2][2];
	if (compare_loops(&a, res))
		return -1;
	char s[21];
	printf("hwloop: %s commands of ", u64s(s, a.loops));
	printf("%s sectors from LBA ", u64s(s, a.sectors));
	printf("%s (seed 000 Table 6-1)\n", u64s(s, a.lba));
	print_mode(a.lba28);
	printf("%-16s %-18s %14s %12s %12s\n", "circuit", "loop process", "xfer bytes", "write MB/s", "read MB/s");
	for (int fw = 1; fw >= 0; fw--) {
		printf("%-16s %-18s", fw ? "firmware loop" : "state machine", fw ? "CPU firmware" : "engine hardware");
		put_u64(res[fw][0].bytes, 15);
		if (a.write)
			put_mbps(res[fw][1].bytes, res[fw][1].cycles, 13);
		else
			printf("%13s", "-");
		put_mbps(res[fw][0].bytes, res[fw][0].cycles, 13);
		printf("\n");
	}
	return 0;
}

static int cmd_overhead(int argc, char **argv)
{
	struct loop_args a;
	if (loop_args(argc, argv, 4, &a))
		return -1;
	if (a.loops < 2) {
		printf("overhead: needs loops >= 2 (the gap is between commands)\n");
		return -1;
	}
	struct bench_run res[2][2];
	if (compare_loops(&a, res))
		return -1;
	char s[21];
	printf("overhead: status of one command to first data of the next, %s commands of ", u64s(s, a.loops));
	printf("%s sectors (seed 000 Table 6-2)\n", u64s(s, a.sectors));
	print_mode(a.lba28);
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
	return 0;
}

/* lba28 ---------------------------------------------------------------------------------------- */

static int cmd_lba28(int argc, char **argv)
{
	uint64_t lba, count;
	if (check_args(argc, argv, "lba count write") || opt(argc, argv, "lba", 0, &lba))
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
	int write = flag(argc, argv, "write");
	if (prepare("lba28", lba, count, write))
		return -1;
	char s[21];
	printf("lba28: %s sectors from LBA ", u64s(s, count));
	printf("%s, 256 sectors per command (seed 000 Table 7-1)\n", u64s(s, lba));
	printf("commands     READ DMA / WRITE DMA (28-bit), %s\n",
	       sata_id.lba48 ? "forced: the drive also supports 48-bit LBA"
	                     : "chosen automatically: the drive has no 48-bit LBA (IDENTIFY word 83 bit 10 clear)");
	printf("%-6s %12s %10s %14s %10s\n", "op", "sectors", "commands", "cycles", "MB/s");
	for (int w = write; w >= 0; w--) {
		struct bench_run r;
		err = run_span(w ? BENCH_WRITE : BENCH_READ, 0, 1, lba, count, DEFAULT_SEED, &r);
		if (err)
			return fail(w ? "lba28: write" : "lba28: read", err);
		printf("%-6s", w ? "write" : "read");
		put_u64(r.bytes / SATA_SECTOR, 13);
		put_u64(r.completed, 11);
		put_u64(r.cycles, 15);
		put_mbps(r.bytes, r.cycles, 11);
		printf("\n");
	}
	return 0;
}

/* latency -------------------------------------------------------------------------------------- */

static int cmd_latency(int argc, char **argv)
{
	uint64_t lba, min_kib, max_kib, runs;
	if (check_args(argc, argv, "lba min max runs") || opt(argc, argv, "lba", 0, &lba) ||
	    opt(argc, argv, "min", 16, &min_kib) || opt(argc, argv, "max", 4096, &max_kib) ||
	    opt(argc, argv, "runs", 10, &runs))
		return -1;
	if (runs < 3 || runs > 64 || min_kib == 0 || min_kib > max_kib || max_kib > 32768) {
		printf("latency: runs 3..64, min 1..max KiB, max <= 32768 KiB\n");
		return -1;
	}
	int err = bench_ready();
	if (err)
		return fail("latency", err);
	int lba28 = bench_auto_lba28();
	if (check_command_size("latency", max_kib * 2, lba28) || prepare("latency", lba, max_kib * 2, 0))
		return -1;
	char s[21];
	printf("latency: reads at LBA %s, ", u64s(s, lba));
	printf("%s runs per size, min and max dropped (seed 003)\n", u64s(s, runs));
	print_mode(lba28);
	printf("%8s %12s %12s %12s %10s %12s\n", "KiB", "first us", "avg cycles", "avg us", "MB/s", "1st data us");
	for (uint64_t kib = min_kib; kib <= max_kib; kib *= 2) {
		uint64_t first = 0, sum = 0, lo = ~0ull, hi = 0, fd = 0, bytes = 0;
		for (uint64_t i = 0; i < runs; i++) {
			struct bench_run r = {0};
			r.op = BENCH_READ;
			r.lba28 = lba28;
			r.lba = lba;
			r.range = r.sectors = kib * 2;
			r.commands = 1;
			err = bench_hw_run(&r);
			if (err)
				return fail("latency", err);
			if (i == 0)
				first = r.cycles;
			sum += r.cycles;
			fd += r.first_data.sum;
			bytes = r.bytes;
			if (r.cycles < lo)
				lo = r.cycles;
			if (r.cycles > hi)
				hi = r.cycles;
		}
		uint64_t avg = (sum - lo - hi) / (runs - 2);
		put_u64(kib, 8);
		put_us(first, 13);
		put_u64(avg, 13);
		put_us(avg, 13);
		put_mbps(bytes, avg, 11);
		put_us(fd / runs, 13);
		printf("\n");
	}
	return 0;
}

/* cpu ------------------------------------------------------------------------------------------ */

static int cmd_cpu(int argc, char **argv)
{
	uint64_t lba, count;
	if (check_args(argc, argv, "lba count write") || opt(argc, argv, "lba", 0, &lba) ||
	    opt(argc, argv, "count", 256, &count))
		return -1;
	int write = flag(argc, argv, "write");
	if (count % SATA_BUF_SECTORS) {
		printf("cpu: count must be a multiple of %d sectors\n", SATA_BUF_SECTORS);
		return -1;
	}
	if (prepare("cpu", lba, count, write))
		return -1;
	int lba28 = bench_auto_lba28();
	uint32_t *ram = (uint32_t *)MAIN_RAM_BASE;
	char s[21];
	printf("cpu: %s sectors from LBA ", u64s(s, count));
	printf("%s: data through the CPU vs through the engine (seed 002)\n", u64s(s, lba));
	printf("%-6s %-44s %10s %8s\n", "op", "path", "MB/s", "ratio");
	for (int w = write; w >= 0; w--) {
		/* CPU path: 16-sector commands through the sector buffer, the CPU copying every dword
		 * between the buffer and main RAM (as `dd` through an OS), timed by the uptime counter. */
		uint64_t t0 = clock_cycles();
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
		uint64_t cpu_cycles = clock_cycles() - t0;
		struct bench_run r16, rbig;
		int err = run_loop(0, w ? BENCH_WRITE : BENCH_READ, lba28, lba, SATA_BUF_SECTORS,
		                   count / SATA_BUF_SECTORS, &r16);
		if (!err)
			err = run_span(w ? BENCH_WRITE : BENCH_READ, 0, lba28, lba, count, DEFAULT_SEED, &rbig);
		if (err)
			return fail("cpu: engine", err);
		uint64_t bytes = count * SATA_SECTOR, cpu = bench_mbps_x100(bytes, cpu_cycles);
		const char *op = w ? "write" : "read";
		printf("%-6s %-44s", op, "CPU copies every dword, 16-sector commands");
		put_x100(cpu, 11);
		printf("%9s\n", "1.00");
		printf("%-6s %-44s", op, "engine, 16-sector commands");
		put_mbps(r16.bytes, r16.cycles, 11);
		put_x100(cpu ? bench_mbps_x100(r16.bytes, r16.cycles) * 100 / cpu : 0, 9);
		printf("\n%-6s %-44s", op, "engine, largest commands");
		put_mbps(rbig.bytes, rbig.cycles, 11);
		put_x100(cpu ? bench_mbps_x100(rbig.bytes, rbig.cycles) * 100 / cpu : 0, 9);
		printf("\n");
	}
	return 0;
}

/* access --------------------------------------------------------------------------------------- */

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void sort_u32(uint32_t *v, int n)
{
	for (int gap = n / 2; gap > 0; gap /= 2)   /* Shell sort: small and fast enough here */
		for (int i = gap; i < n; i++) {
			uint32_t t = v[i];
			int j = i;
			for (; j >= gap && v[j - gap] > t; j -= gap)
				v[j] = v[j - gap];
			v[j] = t;
		}
}

static void print_histogram(void)
{
	printf("histogram (issue to first data):\n%14s %14s %8s\n", "from us", "below us", "count");
	for (int k = 0; k < BENCH_HIST_BUCKETS; k++) {
		uint32_t c = bench_hist_bucket(k);
		if (!c)
			continue;
		put_us(k ? 1ull << k : 0, 14);
		if (k == BENCH_HIST_BUCKETS - 1)
			printf("%15s", "-");
		else
			put_us(2ull << k, 15);
		put_u64(c, 9);
		printf("\n");
	}
}

static int cmd_access(int argc, char **argv)
{
	uint64_t n, lba, range, seed;
	if (check_args(argc, argv, "n lba range seed") || opt(argc, argv, "n", 100, &n) ||
	    opt(argc, argv, "lba", 0, &lba) || opt(argc, argv, "seed", DEFAULT_SEED, &seed))
		return -1;
	int err = bench_ready();
	if (err)
		return fail("access", err);
	if (opt(argc, argv, "range", lba < sata_id.sectors ? sata_id.sectors - lba : 0, &range))
		return -1;
	if (n == 0 || n > MAX_SAMPLES) {
		printf("access: n must be 1..%d\n", MAX_SAMPLES);
		return -1;
	}
	if (prepare("access", lba, range, 0))
		return -1;
	int lba28 = bench_auto_lba28();
	struct bench_run r = {0};
	r.op = BENCH_READ;
	r.lba28 = lba28;
	r.sectors = 1;
	r.hist_source = BENCH_HIST_FIRST_DATA;
	err = bench_fw_begin(&r);
	uint64_t x = 0x9e3779b97f4a7c15ull ^ seed, before = 0;
	for (uint64_t i = 0; i < n && !err; i++) {
		err = bench_fw_command(&r, lba + xorshift(&x) % range);
		uint64_t sum = sata_bench_first_data_sum_read();
		samples[i] = sum - before;
		before = sum;
	}
	if (err)
		return fail("access", err);
	bench_collect(&r);
	sort_u32(samples, n);
	char s[21];
	printf("access: %s single-sector reads at random LBAs in ", u64s(s, n));
	printf("%s..", u64s(s, lba));
	printf("%s, issue to first data dword (seed 004)\n", u64s(s, lba + range - 1));
	print_mode(lba28);
	printf("%10s %10s %10s %10s %10s\n", "min us", "median us", "p99 us", "max us", "avg us");
	put_us(samples[0], 10);
	put_us(samples[(n - 1) / 2], 11);
	put_us(samples[(n * 99 + 99) / 100 - 1], 11);
	put_us(samples[n - 1], 11);
	put_us(r.first_data.sum / r.first_data.count, 11);
	printf("\n");
	print_histogram();
	return 0;
}

/* random --------------------------------------------------------------------------------------- */

static int cmd_random(int argc, char **argv)
{
	uint64_t n, lba, range, max, seed;
	if (check_args(argc, argv, "n lba range max seed") || opt(argc, argv, "n", 200, &n) ||
	    opt(argc, argv, "lba", 0, &lba) || opt(argc, argv, "max", 256, &max) ||
	    opt(argc, argv, "seed", DEFAULT_SEED, &seed))
		return -1;
	int err = bench_ready();
	if (err)
		return fail("random", err);
	if (opt(argc, argv, "range", lba < sata_id.sectors ? sata_id.sectors - lba : 0, &range))
		return -1;
	int lba28 = bench_auto_lba28();
	if (n == 0 || n > 0xffffffffull || max > range) {
		printf("random: n >= 1 and max <= range\n");
		return -1;
	}
	if (check_command_size("random", max, lba28) || prepare("random", lba, range, 0))
		return -1;
	char s[21];
	printf("random: %s reads per size, queue depth 1, LBAs in ", u64s(s, n));
	printf("%s..", u64s(s, lba));
	printf("%s (seed 004 Fig. 5, 6)\n", u64s(s, lba + range - 1));
	print_mode(lba28);
	printf("%8s %12s %10s %12s %10s\n", "sectors", "random IOPS", "MB/s", "seq IOPS", "MB/s");
	for (uint64_t size = 1; size <= max; size *= 2) {
		put_u64(size, 8);
		for (int rnd = 1; rnd >= 0; rnd--) {
			struct bench_run r = {0};
			r.op = BENCH_READ;
			r.random = rnd;
			r.lba28 = lba28;
			r.lba = lba;
			r.range = range / size * size;
			r.sectors = size;
			r.commands = n;
			r.seed = seed;
			err = bench_hw_run(&r);
			if (err)
				return fail("random", err);
			put_u64(r.cycles ? (uint64_t)r.completed * CONFIG_CLOCK_FREQUENCY / r.cycles : 0, 13);
			put_mbps(r.bytes, r.cycles, 11);
		}
		printf("\n");
	}
	return 0;
}

/* verify --------------------------------------------------------------------------------------- */

static int cmd_verify(int argc, char **argv)
{
	uint64_t lba, count, seed;
	if (check_args(argc, argv, "lba count seed check") || opt(argc, argv, "lba", 0, &lba) ||
	    opt(argc, argv, "count", 2048, &count) || opt(argc, argv, "seed", DEFAULT_SEED, &seed))
		return -1;
	if (seed > 0xffffffffull) {
		printf("verify: seed is 32 bits\n");
		return -1;
	}
	int check = flag(argc, argv, "check");   /* read back an earlier run's pattern only */
	if (prepare("verify", lba, count, !check))
		return -1;
	int lba28 = bench_auto_lba28();
	struct bench_run r;
	int err = run_span(check ? BENCH_READ : BENCH_WRITE_VERIFY, 1, lba28, lba, count, seed, &r);
	if (err)
		return fail("verify", err);
	char s[21];
	printf("verify: %s sectors from LBA ", u64s(s, count));
	printf("%s, seed 0x%08lx, %s\n", u64s(s, lba), (unsigned long)seed,
	       check ? "read and checked" : "written, read back and checked");
	print_mode(lba28);
	printf("commands     %s", u64s(s, r.completed));
	printf(", %s failed\n", u64s(s, r.errors));
	printf("bad sectors  %s\n", u64s(s, r.mismatch_sectors));
	printf("bad dwords   %s\n", u64s(s, r.mismatch_dwords));
	if (r.mismatch_sectors)
		printf("first bad    LBA %s\n", u64s(s, r.first_bad_lba));
	printf("result       %s\n", r.mismatch_sectors || r.errors ? "FAIL" : "PASS");
	return r.mismatch_sectors || r.errors;
}

const struct command bench_commands[] = {
	{"single",   "[write] lba= sectors=", "one command, MB/s from the engine's cycle counter", cmd_single},
	{"long",     "lba= loops= [sectors=] [write]", "firmware loop of commands, 1..loops (Tables 5-1/5-2)", cmd_long},
	{"hwloop",   "lba= loops= [sectors=] [write]", "hardware sequencer vs firmware loop (Table 6-1)", cmd_hwloop},
	{"overhead", "lba= loops= [sectors=] [write]", "status to next first data, both loops (Table 6-2)", cmd_overhead},
	{"lba28",    "[lba=] [count=] [write]", "28-bit READ/WRITE DMA over the capacity (Table 7-1)", cmd_lba28},
	{"latency",  "[lba=] [min=] [max=] [runs=]", "read time vs size, KiB (seed 003)", cmd_latency},
	{"cpu",      "[lba=] [count=] [write]", "data through the CPU vs through the engine (seed 002)", cmd_cpu},
	{"access",   "[n=] [lba=] [range=]", "single-sector random read access time (seed 004)", cmd_access},
	{"random",   "[n=] [range=] [max=]", "IOPS and MB/s vs request size, random vs sequential", cmd_random},
	{"verify",   "lba= count= [seed=] [check]", "write a pattern, read it back, count errors (asks first)", cmd_verify},
	{NULL, NULL, NULL, NULL},
};
