/* SPDX-License-Identifier: BSD-2-Clause */
/* The SerDes self-test without a drive (`ecpsata selftest` on the host does the same, with JSON):
 *   selftest [MS [t2r|LB_CTL|far]]
 * PRBS31 data dwords through the whole PHY and back (ecpsata/phy/selftest.py): near-end inside
 * the DCU, by default with TN1261's serial TX-to-RX loopback (t2r: lb_ctl, SCI channel register
 * 0x15 bits 0-3, = 1, as LiteICLink's ECP5 SerDes; LOOPBACK_MODES of ecpsata/phy/ecp5/bringup.py),
 * any other lb_ctl value, or "far" through a loopback plug or cable.
 * MS is the window per rate in ms of the target's time (default 10000 on a board, 2 on a simulated
 * SoC, which runs about 250 times slower). Gen2, then Gen1; PASS or FAIL with the reason. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <generated/csr.h>
#include <generated/sata_codes.h>
#include <generated/soc.h>

#include "clock.h"
#include "cmd_args.h"
#include "console.h"

#if defined(CSR_SATA_PHY_SELFTEST_CONTROL_ADDR) && defined(CSR_SATA_SERDES_BRINGUP_SCI_CONTROL_ADDR)

#define FIELD(reg, NAME, v) (((v) >> CSR_##reg##_##NAME##_OFFSET) & ((1u << CSR_##reg##_##NAME##_SIZE) - 1))
#define PUT(reg, NAME, v)   ((uint32_t)(v) << CSR_##reg##_##NAME##_OFFSET)
#define LOCK_TIMEOUT_MS 10     /* of the target's time: PLL and CDR lock in microseconds */
#define STALL_US        2000000

struct result {
	unsigned gen, pll, cdr;
	uint32_t lock_time, elapsed, dword_errors, bit_errors, code_errors, disp_errors;
	uint32_t aligns, aligns_inverted, sync_losses;
	uint64_t dwords;
};

/* "BER < m.me-E" for no error in `bits`: the Poisson limit 2.996 / bits (95 % confidence). */
static void print_bound(uint64_t bits)
{
	uint64_t num = 2996, den = bits;  /* value = num / den * 1e-3 */
	int e = -3;
	while (num < den) {
		num *= 10;
		e--;
	}
	while (num >= 10 * den) {
		den *= 10;
		e++;
	}
	unsigned tenths = (unsigned)(num * 10 / den);
	printf("BER < %u.%ue%d at 95 %%", tenths / 10, tenths % 10, e);
}

struct loopback {
	const char *name;
	unsigned mask, value;
};
static const struct loopback loopbacks[] = LOOPBACK_MODES;

static int run(unsigned gen, uint32_t cycles, const struct loopback *lb, struct result *r)
{
	uint32_t control = sata_phy_control_read() & ~PUT(SATA_PHY_CONTROL, RESTART, 1);
	int old_lb = 0;
	if (lb) {
		old_lb = phy_sci(0, SCI_CH_LOOPBACK, -1);
		if (old_lb < 0 || phy_sci(0, SCI_CH_LOOPBACK, (old_lb & ~lb->mask) | lb->value) < 0)
			return -1;
	}
	uint32_t c = control & ~PUT(SATA_PHY_CONTROL, FORCE_GEN, (1u << CSR_SATA_PHY_CONTROL_FORCE_GEN_SIZE) - 1);
	sata_phy_control_write(c | PUT(SATA_PHY_CONTROL, FORCE_GEN, gen));
	sata_phy_selftest_control_write(0);
	sata_phy_selftest_duration_write(cycles);
	sata_phy_selftest_control_write(1);
	uint32_t lock_cycles = (uint32_t)((uint64_t)CONFIG_CLOCK_FREQUENCY * LOCK_TIMEOUT_MS / 1000);
	uint32_t last = 0;
	uint64_t moved = clock_us();
	int err = 0;
	for (;;) {
		uint32_t st = sata_phy_selftest_status_read();
		uint32_t elapsed = sata_phy_selftest_elapsed_read();
		if (FIELD(SATA_PHY_SELFTEST_STATUS, DONE, st) ||
		    (sata_phy_selftest_lock_time_read() == 0 && elapsed > lock_cycles))
			break;
		if (elapsed != last) {
			last = elapsed;
			moved = clock_us();
		} else if (clock_us() - moved > STALL_US) {
			printf("selftest: the self-test's cycle counter stopped at %lu: gateware fault\n",
			       (unsigned long)elapsed);
			err = -1;
			break;
		}
	}
	uint32_t s = sata_serdes_bringup_status_read();
	r->gen = gen;
	r->pll = FIELD(SATA_SERDES_BRINGUP_STATUS, TX_PLL_LOCKED, s);
	r->cdr = FIELD(SATA_SERDES_BRINGUP_STATUS, RX_CDR_LOCKED, s);
	r->lock_time = sata_phy_selftest_lock_time_read();
	r->elapsed = sata_phy_selftest_elapsed_read();
	r->dwords = sata_phy_selftest_dwords_read();
	r->dword_errors = sata_phy_selftest_dword_errors_read();
	r->bit_errors = sata_phy_selftest_bit_errors_read();
	r->code_errors = sata_phy_selftest_code_errors_read();
	r->disp_errors = sata_phy_selftest_disp_errors_read();
	r->aligns = sata_phy_selftest_aligns_read();
	r->aligns_inverted = sata_phy_selftest_aligns_inverted_read();
	r->sync_losses = sata_phy_selftest_sync_losses_read();
	sata_phy_selftest_control_write(0);
	if (lb && phy_sci(0, SCI_CH_LOOPBACK, old_lb) < 0)
		err = -1;
	sata_phy_control_write(control);
	return err;
}

/* PASS (1) or FAIL (0), printing the reason (the host's ecpsata/host/selftest.py words it the same). */
static int verdict(const struct result *r, const struct loopback *lb)
{
	printf("Gen%u: ", r->gen == 2 ? 2 : 1);
	if (!r->pll) {
		printf("FAIL: TX PLL not locked (D_FFS_PLOL high): no reference clock, or a PLL multiplier "
		       "that does not work\n");
		return 0;
	}
	if (!r->cdr) {
		printf("FAIL: CDR not locked (CHx_FFS_RLOL high): %s\n",
		       !lb ? "nothing comes back from the connector: check the loopback plug or cable"
			   : "the DCU's internal loopback may not loop on this silicon: try another "
			     "lb_ctl, or far with a loopback plug");
		return 0;
	}
	if (!r->lock_time) {
		if (r->aligns_inverted && !r->aligns)
			printf("FAIL: %lu ALIGNs received inverted and the data never matched: a pair's "
			       "polarity is swapped\n", (unsigned long)r->aligns_inverted);
		else if (r->code_errors || r->disp_errors)
			printf("FAIL: %lu 8b10b code and %lu disparity errors and the data never matched: a "
			       "stuck or broken bit, or a word clock off its rate\n",
			       (unsigned long)r->code_errors, (unsigned long)r->disp_errors);
		else
			printf("FAIL: the CDR locked but no PRBS data came back\n");
		return 0;
	}
	uint64_t bits = r->dwords * 32;
	if (r->bit_errors || r->code_errors || r->disp_errors || r->sync_losses || !bits) {
		char b[21];
		printf("FAIL: %lu bit errors, %lu code, %lu disparity errors, %lu losses of the stream in "
		       "%s bits\n", (unsigned long)r->bit_errors, (unsigned long)r->code_errors,
		       (unsigned long)r->disp_errors, (unsigned long)r->sync_losses, u64s(b, bits));
		return 0;
	}
	char b[21];
	printf("PASS: 0 errors in %s bits: ", u64s(b, bits));
	print_bound(bits);
	printf("\n");
	return 1;
}

static int cmd_selftest(int argc, char **argv)
{
	uint64_t ms = (identity_features_read() >> IDENTITY_FEATURE_SIMULATED & 1) ? 2 : 10000;
	static struct loopback custom = {"lb_ctl", 0x0f, 0};
	const struct loopback *lb = NULL;
	for (unsigned i = 0; i < sizeof(loopbacks) / sizeof(loopbacks[0]); i++)
		if (strcmp(loopbacks[i].name, LOOPBACK_DEFAULT) == 0)
			lb = &loopbacks[i];
	uint64_t v = 1;
	if (argc > 3)
		return console_usage("selftest");
	if (argc >= 2 && console_number(argv, 1, "window (ms)", &ms))
		return -1;
	if (argc == 3) {
		lb = NULL;
		for (unsigned i = 0; i < sizeof(loopbacks) / sizeof(loopbacks[0]); i++)
			if (strcmp(argv[2], loopbacks[i].name) == 0)
				lb = &loopbacks[i];
		if (!lb && strcmp(argv[2], "far") != 0) {
			if (console_number(argv, 2, "lb_ctl", &v))
				return -1;
			custom.value = (unsigned)v;
			lb = &custom;
		}
	}
	uint64_t cycles = ms * (CONFIG_CLOCK_FREQUENCY / 1000);
	if (ms == 0 || cycles >= (1ull << 32) || v == 0 || v > 15) {
		printf("selftest: the window is 1..%lu ms, lb_ctl 1..15: nothing run\n",
		       (unsigned long)(0xffffffffull / (CONFIG_CLOCK_FREQUENCY / 1000)));
		return -1;
	}
#ifdef CSR_SATA_SERDES_BRINGUP_GEN1_METHOD_ADDR
	if (sata_serdes_bringup_gen1_method_read()) {
		printf("selftest: gen1_method is dividers, which makes Gen1 only, and the self-test runs "
		       "Gen2 too: phy set gen1_method pins first: nothing run\n");
		return -1;
	}
#endif
	if (lb)
		printf("selftest: near-end loopback inside the DCU (%s", lb->name);
	else
		printf("selftest: far-end (loopback plug or cable");
	printf("), PRBS31, %lu ms per rate\n", (unsigned long)ms);
	printf("rate  PLL CDR  lock(us)  dwords      dword_err  bit_err  code  disp  aligns  inverted\n");
	struct result r[2];
	static const unsigned gens[2] = {2, 1};
	for (int i = 0; i < 2; i++) {
		if (run(gens[i], (uint32_t)cycles, lb, &r[i]) < 0)
			return -1;
		char b[21];
		printf("Gen%u  %u   %u    %-8lu  %-10s  %-9lu  %-7lu  %-4lu  %-4lu  %-6lu  %lu\n",
		       gens[i], r[i].pll, r[i].cdr,
		       (unsigned long)((uint64_t)r[i].lock_time * 1000000 / CONFIG_CLOCK_FREQUENCY),
		       u64s(b, r[i].dwords), (unsigned long)r[i].dword_errors,
		       (unsigned long)r[i].bit_errors, (unsigned long)r[i].code_errors,
		       (unsigned long)r[i].disp_errors, (unsigned long)r[i].aligns,
		       (unsigned long)r[i].aligns_inverted);
	}
	int pass = 1;
	for (int i = 0; i < 2; i++)
		pass &= verdict(&r[i], lb);
	printf("selftest: %s\n", pass ? "PASS" : "FAIL");
	return pass ? 0 : -1;
}

#else

static int cmd_selftest(int argc, char **argv)
{
	printf("selftest: this gateware has no PHY self-test with a DCU loopback (an ECP5 board build "
	       "has one)\n");
	return -1;
}

#endif

const struct command selftest_commands[] = {
	{"selftest", "[MS [t2r|LB_CTL|far]]",
	 "the SerDes without a drive: PRBS31 through the PHY in a loopback, Gen2 and Gen1, PASS/FAIL",
	 cmd_selftest},
	{NULL, NULL, NULL, NULL},
};
