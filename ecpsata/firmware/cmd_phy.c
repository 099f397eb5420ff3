/* SPDX-License-Identifier: BSD-2-Clause */
/* The PHY and the ECP5 SerDes at run time (`ecpsata phy` on the host does the same):
 *   phy                        the SerDes flags, the word clocks, the settings
 *   phy set KEY VALUE          gen auto|gen1|gen2, tx_polarity and rx_polarity auto|normal|inverted,
 *                              pacing 0..3 (COMRESET interval x1, x2, x4, x8), oob_gaps
 *                              zero-words|ei-comreset, tx_swing 600|800|1000, gen1_method
 *                              pins|dividers (dividers: with gen gen1 only), or a DCU
 *                              register field by number (`phy` lists them: SCI_FIELDS of
 *                              ecpsata/phy/ecp5/bringup.py, from TN1261's register map)
 *   phy sci ADDR [VALUE]       read (or write, then read back) a DCU channel register
 *   phy aux ADDR [VALUE]       the same for a dual (aux) register
 *   phy scan [MS]              the settings that link with this drive (cmd_physcan.c)
 * The SCI is the DCU's configuration port (Lattice TN1261); the gateware starts no access while
 * the channel's electrical idle is on (ecpsata/phy/ecp5/sci.py). */
#include <stdio.h>
#include <string.h>

#include <generated/csr.h>
#include <generated/sata_codes.h>
#include <generated/soc.h>

#include "clock.h"
#include "console.h"

#ifdef CSR_SATA_SERDES_BRINGUP_SCI_CONTROL_ADDR

#define FIELD(reg, NAME, v) (((v) >> CSR_##reg##_##NAME##_OFFSET) & ((1u << CSR_##reg##_##NAME##_SIZE) - 1))
#define PUT(reg, NAME, v)   ((uint32_t)(v) << CSR_##reg##_##NAME##_OFFSET)
#define SCI_TIMEOUT_US 100000

struct sci_field {
	const char *name;
	unsigned adr, lo, size;
};
static const struct sci_field fields[] = SCI_FIELDS;
#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

/* The TX driver's slices for each nominal swing (mV): channel register bits to write. */
struct swing_write {
	unsigned swing, adr, mask, value;
};
static const struct swing_write swing_writes[] = TX_SWING_WRITES;
#define N_SWING_WRITES (sizeof(swing_writes) / sizeof(swing_writes[0]))

/* One SCI access; the value read, or -1 (printed why) when it does not finish. */
int phy_sci(int aux, unsigned adr, int value)
{
	sata_serdes_bringup_sci_control_write(PUT(SATA_SERDES_BRINGUP_SCI_CONTROL, ADR, adr) |
				      PUT(SATA_SERDES_BRINGUP_SCI_CONTROL, DAT_W, value < 0 ? 0 : value) |
				      PUT(SATA_SERDES_BRINGUP_SCI_CONTROL, WE, value >= 0) |
				      PUT(SATA_SERDES_BRINGUP_SCI_CONTROL, AUX, aux));
	uint64_t deadline = clock_us() + SCI_TIMEOUT_US;
	for (;;) {
		uint32_t st = sata_serdes_bringup_sci_status_read();
		if (!FIELD(SATA_SERDES_BRINGUP_SCI_STATUS, BUSY, st))
			return FIELD(SATA_SERDES_BRINGUP_SCI_STATUS, DAT_R, st);
		if (clock_us() > deadline) {
			printf("phy: SCI access to register 0x%02x did not finish: electrical idle held on "
			       "(the gateware waits for it to end), or the DCU not running\n", adr);
			return -1;
		}
	}
}

/* Writes `v` into a register field of SCI_FIELDS; 0, or -1 when the SCI failed. */
static int write_field(const struct sci_field *f, unsigned v)
{
	unsigned mask = ((1u << f->size) - 1) << f->lo;
	int dual = (f->adr & SCI_DUAL) != 0;
	int old = phy_sci(dual, f->adr & 0x3f, -1);
	if (old < 0 || phy_sci(dual, f->adr & 0x3f, ((unsigned)old & ~mask) | (v << f->lo)) < 0)
		return -1;
	return 0;
}

#ifdef CSR_SATA_SERDES_BRINGUP_GEN1_METHOD_ADDR
static const struct sci_field *field_named(const char *name)
{
	for (unsigned i = 0; i < N_FIELDS; i++)
		if (strcmp(fields[i].name, name) == 0)
			return &fields[i];
	return NULL;
}

static int gen1_dividers(void)
{
	return FIELD(SATA_SERDES_BRINGUP_GEN1_METHOD, DIVIDERS, sata_serdes_bringup_gen1_method_read());
}

/* The Gen1 method: both dividers first (/2 or /1), then the gateware's choice, whose change
 * resets both lanes. The dividers make Gen1 only: `dividers` needs gen gen1. 0 when done, -1
 * when not (printed why), 1 when there was nothing to do (printed). */
static int set_gen1_method(int dividers)
{
	unsigned code = dividers ? SCI_DIVIDER_2 : SCI_DIVIDER_1;
	const struct sci_field *tx = field_named("tx_vco_div"), *rx = field_named("rx_dco_div");
	if (!tx || !rx || write_field(tx, code) < 0 || write_field(rx, code) < 0)
		return -1;
	sata_serdes_bringup_gen1_method_write(PUT(SATA_SERDES_BRINGUP_GEN1_METHOD, DIVIDERS, dividers));
	return 0;
}
#else
/* A build with --without-gen1-method: Gen1 through the half-rate pins only. */
static int gen1_dividers(void)
{
	return 0;
}

static int set_gen1_method(int dividers)
{
	if (!dividers) {
		printf("phy: gen1_method = pins (the only method of this build)\n");
		return 1;
	}
	printf("phy: this gateware has no Gen1 method register (built with "
	       "--without-gen1-method; a default build has it): nothing sent\n");
	return -1;
}
#endif

static unsigned mhz_x100(uint32_t count)
{
	uint64_t hz = (uint64_t)count * (1u << SATA_SERDES_METER_DIV_LOG2) * CONFIG_CLOCK_FREQUENCY /
		      SATA_SERDES_METER_WINDOW;
	return (unsigned)(hz / 10000);
}

static const char *const gens[] = {"auto", "gen1", "gen2"};

/* The swing whose slice bits all match the channel registers, 0 for none, -1 if the SCI failed. */
static int tx_swing(void)
{
	int regs[0x16];
	for (unsigned a = 0x12; a <= 0x15; a++)
		if ((regs[a] = phy_sci(0, a, -1)) < 0)
			return -1;
	for (unsigned i = 0; i < N_SWING_WRITES; i++) {
		unsigned swing = swing_writes[i].swing, match = 1;
		for (unsigned j = 0; j < N_SWING_WRITES; j++) {
			const struct swing_write *w = &swing_writes[j];
			if (w->swing == swing && ((unsigned)regs[w->adr] & w->mask) != w->value)
				match = 0;
		}
		if (match)
			return swing;
	}
	return 0;
}

static int show(void)
{
	uint32_t st = sata_serdes_bringup_status_read();
#ifdef CSR_SATA_SERDES_BRINGUP_GEN1_METHOD_ADDR
	unsigned long pins = FIELD(SATA_SERDES_BRINGUP_STATUS, RATE_PINS, st);
#else
	unsigned long pins = FIELD(SATA_SERDES_BRINGUP_STATUS, HALF_RATE, st);
#endif
	printf("SerDes: tx_pll_locked %lu  tx_ready %lu  rx_cdr_locked %lu  rx_ready %lu  rx_los %lu  "
	       "half_rate %lu  rate_pins %lu\n",
	       (unsigned long)FIELD(SATA_SERDES_BRINGUP_STATUS, TX_PLL_LOCKED, st),
	       (unsigned long)FIELD(SATA_SERDES_BRINGUP_STATUS, TX_READY, st),
	       (unsigned long)FIELD(SATA_SERDES_BRINGUP_STATUS, RX_CDR_LOCKED, st),
	       (unsigned long)FIELD(SATA_SERDES_BRINGUP_STATUS, RX_READY, st),
	       (unsigned long)FIELD(SATA_SERDES_BRINGUP_STATUS, RX_LOS, st),
	       (unsigned long)FIELD(SATA_SERDES_BRINGUP_STATUS, HALF_RATE, st), pins);
	unsigned tx = mhz_x100(sata_serdes_bringup_tx_clk_count_read());
	unsigned rx = mhz_x100(sata_serdes_bringup_rx_clk_count_read());
	printf("word clocks (clock meters): tx %u.%02u MHz, rx %u.%02u MHz\n",
	       tx / 100, tx % 100, rx / 100, rx % 100);
	uint32_t c = sata_phy_control_read();
	unsigned g = FIELD(SATA_PHY_CONTROL, FORCE_GEN, c);
	printf("gen          %s\n", g < 3 ? gens[g] : "?");
	printf("tx_polarity  %s%s\n", FIELD(SATA_PHY_CONTROL, TX_POLARITY_AUTO, c) ? "auto, first " : "",
	       FIELD(SATA_PHY_CONTROL, TX_POLARITY, c) ? "inverted" : "normal");
	printf("rx_polarity  %s\n", FIELD(SATA_PHY_CONTROL, RX_POLARITY_AUTO, c) ? "auto" :
	       FIELD(SATA_PHY_CONTROL, RX_POLARITY, c) ? "inverted" : "normal");
	printf("pacing       %lu (COMRESET interval x%u)\n",
	       (unsigned long)FIELD(SATA_PHY_CONTROL, PACING, c), 1u << FIELD(SATA_PHY_CONTROL, PACING, c));
	printf("oob_gaps     %s\n", FIELD(SATA_PHY_CONTROL, OOB_EI_GAPS, c) ? "ei-comreset" : "zero-words");
	printf("gen1_method  %s\n", gen1_dividers() ? "dividers (tx_vco_div, rx_dco_div)" : "pins");
	int swing = tx_swing();
	if (swing < 0)
		return -1;
	if (swing)
		printf("tx_swing     %d (TX driver slices, SCI channel registers 0x12-0x15)\n", swing);
	else
		printf("tx_swing     custom (TX driver slices, SCI channel registers 0x12-0x15)\n");
	for (unsigned i = 0; i < N_FIELDS; i++) {
		const struct sci_field *f = &fields[i];
		int dual = (f->adr & SCI_DUAL) != 0;
		int v = phy_sci(dual, f->adr & 0x3f, -1);
		if (v < 0)
			return -1;
		printf("%-12s %d (SCI %s register 0x%02x bits %u-%u)\n", f->name,
		       (v >> f->lo) & ((1 << f->size) - 1), dual ? "dual" : "channel", f->adr & 0x3f,
		       f->lo, f->lo + f->size - 1);
	}
	return 0;
}

static int set(const char *key, const char *value)
{
	uint32_t c = sata_phy_control_read() & ~PUT(SATA_PHY_CONTROL, RESTART, 1);
	if (strcmp(key, "gen") == 0) {
		for (unsigned g = 0; g < 3; g++)
			if (strcmp(value, gens[g]) == 0) {
				if (g != 1 && gen1_dividers()) {
					printf("phy: gen1_method is dividers, which makes Gen1 only: set "
					       "gen1_method pins first: nothing sent\n");
					return -1;
				}
				c &= ~PUT(SATA_PHY_CONTROL, FORCE_GEN, (1u << CSR_SATA_PHY_CONTROL_FORCE_GEN_SIZE) - 1);
				sata_phy_control_write(c | PUT(SATA_PHY_CONTROL, FORCE_GEN, g));
				printf("phy: gen = %s (applies at the next link attempt)\n", value);
				return 0;
			}
	} else if (strcmp(key, "tx_polarity") == 0) {
		int automatic = strcmp(value, "auto") == 0, inverted = strcmp(value, "inverted") == 0;
		if (automatic || inverted || strcmp(value, "normal") == 0) {
			c &= ~(PUT(SATA_PHY_CONTROL, TX_POLARITY, 1) | PUT(SATA_PHY_CONTROL, TX_POLARITY_AUTO, 1));
			sata_phy_control_write(c | PUT(SATA_PHY_CONTROL, TX_POLARITY, inverted) |
					       PUT(SATA_PHY_CONTROL, TX_POLARITY_AUTO, automatic));
			printf("phy: tx_polarity = %s (applies at the next link attempt)\n", value);
			return 0;
		}
	} else if (strcmp(key, "rx_polarity") == 0) {
		int automatic = strcmp(value, "auto") == 0, inverted = strcmp(value, "inverted") == 0;
		if (automatic || inverted || strcmp(value, "normal") == 0) {
			c &= ~(PUT(SATA_PHY_CONTROL, RX_POLARITY, 1) | PUT(SATA_PHY_CONTROL, RX_POLARITY_AUTO, 1));
			sata_phy_control_write(c | PUT(SATA_PHY_CONTROL, RX_POLARITY, inverted) |
					       PUT(SATA_PHY_CONTROL, RX_POLARITY_AUTO, automatic));
			printf("phy: rx_polarity = %s\n", value);
			return 0;
		}
	} else if (strcmp(key, "pacing") == 0) {
		uint64_t v;
		if (parse_u64(value, &v) == 0 && v < 4) {
			c &= ~PUT(SATA_PHY_CONTROL, PACING, 3);
			sata_phy_control_write(c | PUT(SATA_PHY_CONTROL, PACING, v));
			printf("phy: pacing = %lu (COMRESET interval x%u)\n", (unsigned long)v, 1u << v);
			return 0;
		}
	} else if (strcmp(key, "oob_gaps") == 0) {
		int ei = strcmp(value, "ei-comreset") == 0;
		if (ei || strcmp(value, "zero-words") == 0) {
			c &= ~PUT(SATA_PHY_CONTROL, OOB_EI_GAPS, 1);
			sata_phy_control_write(c | PUT(SATA_PHY_CONTROL, OOB_EI_GAPS, ei));
			printf("phy: oob_gaps = %s (applies at the next COMRESET)\n", value);
			return 0;
		}
	} else if (strcmp(key, "gen1_method") == 0) {
		int dividers = strcmp(value, "dividers") == 0;
		if (dividers || strcmp(value, "pins") == 0) {
			if (dividers && FIELD(SATA_PHY_CONTROL, FORCE_GEN, c) != 1) {
				printf("phy: gen1_method dividers makes Gen1 only and is not rewritten at a "
				       "speed change: set gen gen1 first: nothing sent\n");
				return -1;
			}
			int rc = set_gen1_method(dividers);
			if (rc != 0)
				return rc < 0 ? -1 : 0;
			printf("phy: gen1_method = %s (tx_vco_div and rx_dco_div /%d; the lanes restart)\n",
			       value, dividers ? 2 : 1);
			return 0;
		}
	} else if (strcmp(key, "tx_swing") == 0) {
		uint64_t v;
		int found = 0;
		if (parse_u64(value, &v) == 0)
			for (unsigned i = 0; i < N_SWING_WRITES; i++)
				found |= swing_writes[i].swing == v;
		if (!found) {
			printf("phy: tx_swing takes");
			for (unsigned i = 0; i < N_SWING_WRITES; i++)
				if (i == 0 || swing_writes[i].swing != swing_writes[i - 1].swing)
					printf(" %u", swing_writes[i].swing);
			printf(" (mV nominal): nothing sent\n");
			return -1;
		}
		for (unsigned i = 0; i < N_SWING_WRITES; i++) {
			const struct swing_write *w = &swing_writes[i];
			if (w->swing != v)
				continue;
			int old = phy_sci(0, w->adr, -1);
			if (old < 0 || phy_sci(0, w->adr, ((unsigned)old & ~w->mask) | w->value) < 0)
				return -1;
		}
		printf("phy: tx_swing = %lu\n", (unsigned long)v);
		return 0;
	} else {
		for (unsigned i = 0; i < N_FIELDS; i++) {
			const struct sci_field *f = &fields[i];
			uint64_t v;
			if (strcmp(key, f->name) != 0)
				continue;
			if (parse_u64(value, &v) != 0 || v >= (1u << f->size)) {
				printf("phy: %s takes 0..%u: nothing sent\n", key, (1u << f->size) - 1);
				return -1;
			}
			if (write_field(f, v) < 0)
				return -1;
			printf("phy: %s = %lu\n", key, (unsigned long)v);
			return 0;
		}
		printf("phy: no setting '%s' (gen, tx_polarity, rx_polarity, pacing, oob_gaps, tx_swing, "
		       "gen1_method", key);
		for (unsigned i = 0; i < N_FIELDS; i++)
			printf(", %s", fields[i].name);
		printf(")\n");
		return -1;
	}
	printf("phy: '%s' is not a value of %s (gen auto|gen1|gen2, tx_polarity and rx_polarity "
	       "auto|normal|inverted, pacing 0..3, oob_gaps zero-words|ei-comreset, gen1_method "
	       "pins|dividers)\n", value, key);
	return -1;
}

static int raw(int aux, int argc, char **argv)
{
	uint64_t adr, value = 0;
	if (argc < 3 || argc > 4)
		return console_usage("phy");
	if (console_number(argv, 2, "address", &adr) || (argc == 4 && console_number(argv, 3, "value", &value)))
		return -1;
	if (adr > 0x3f || value > 0xff) {
		printf("phy: SCI addresses are 0x00..0x3f, values 0x00..0xff: nothing sent\n");
		return -1;
	}
	if (argc == 4 && phy_sci(aux, adr, value) < 0)
		return -1;
	int got = phy_sci(aux, adr, -1);
	if (got < 0)
		return -1;
	printf("SCI %s register 0x%02x: reads 0x%02x\n", aux ? "dual" : "channel", (unsigned)adr, got);
	return 0;
}

static int cmd_phy(int argc, char **argv)
{
	if (argc == 1)
		return show();
	if (strcmp(argv[1], "set") == 0 && argc == 4)
		return set(argv[2], argv[3]);
	if (strcmp(argv[1], "sci") == 0)
		return raw(0, argc, argv);
	if (strcmp(argv[1], "aux") == 0)
		return raw(1, argc, argv);
	if (strcmp(argv[1], "scan") == 0)
		return phy_scan(argc, argv);
	return console_usage("phy");
}

#else

static int cmd_phy(int argc, char **argv)
{
	printf("phy: this gateware has no SerDes bring-up registers (an ECP5 board build has them)\n");
	return -1;
}

#endif

const struct command phy_commands[] = {
	{"phy", "[set|sci|aux|scan ...]",
	 "the SerDes state and settings at run time: set KEY VALUE (gen, tx_polarity, rx_polarity, "
	 "pacing, oob_gaps, tx_swing, gen1_method, or a DCU register field by number: `phy` lists "
	 "them), "
	 "sci ADDR [VALUE] (DCU channel registers), aux ADDR [VALUE] (dual registers), scan [MS] (try "
	 "phy scan's default sets with the drive, MS ms each to link; reads only; applies the best)",
	 cmd_phy},
	{NULL, NULL, NULL, NULL},
};
