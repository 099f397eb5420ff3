/* SPDX-License-Identifier: BSD-2-Clause */
/* `phy scan [MS]` on the console: which PHY settings link with this board and this drive, as the
 * host's `ecpsata phy scan` finds out (ecpsata/host/physcan.py, whose default list this is:
 * PHY_SCAN_SETS, generated from it). For each set: write its fields of the PHY's control
 * register over the values the scan started from, COMRESET, wait up to MS ms of the target's time
 * for the link (default PHY_SCAN_WINDOW_MS, PHY_SCAN_SIM_WINDOW_MS on a simulated SoC), then
 * IDENTIFY and PHY_SCAN_SECTORS sectors read from LBA 0 (reads only: nothing on the drive
 * changes), counting what went wrong meanwhile. The table ranks the sets (linked first, then
 * fewest errors, fewest failed attempts, shortest time to link); the best one is applied. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <generated/csr.h>
#include <generated/mem.h>
#include <generated/sata_codes.h>
#include <generated/soc.h>

#include "console.h"
#include "sata.h"

#if defined(CSR_SATA_PHY_CONTROL_ADDR) && defined(CSR_SATA_BUFFER_BASE)

#define PHY_SCAN_PUT(NAME, v) \
	(((uint32_t)(v) & ((1u << CSR_SATA_PHY_CONTROL_##NAME##_SIZE) - 1)) << CSR_SATA_PHY_CONTROL_##NAME##_OFFSET)

struct scan_set {
	const char *name, *text;
	uint32_t value, mask;
};
static const struct scan_set sets[] = PHY_SCAN_SETS;
#define N_SETS (sizeof(sets) / sizeof(sets[0]))

/* The counters a set's row shows, in the table's order; 0 on a gateware without one. */
#define N_COUNTERS 5
static const char *const counter_names[N_COUNTERS] = {"code", "disp", "CRC", "R_ERR", "escapes"};

static void counters(uint32_t *c)
{
	memset(c, 0, N_COUNTERS * sizeof(*c));
	c[0] = sata_phy_code_errors_read();
	c[1] = sata_phy_disp_errors_read();
#ifdef CSR_SATA_ERRORS_FIS_CRC_ERRORS_ADDR
	c[2] = sata_errors_fis_crc_errors_read();
	c[3] = sata_errors_fis_rejected_read();
	c[4] = sata_errors_escapes_read();
#endif
}

struct row {
	int linked, gen, read_err;
	uint32_t link_us, retries, sectors, errors, counts[N_COUNTERS];
};

/* Sort key of a row: 1 when row a ranks after row b. */
static int after(const struct row *a, const struct row *b)
{
	if (a->linked != b->linked)
		return b->linked;
	if (a->errors != b->errors)
		return a->errors > b->errors;
	if (a->retries != b->retries)
		return a->retries > b->retries;
	return a->link_us > b->link_us;
}

static void try_set(uint32_t base, const struct scan_set *s, uint32_t window_us, struct row *r)
{
	uint8_t *const sectors = (uint8_t *)MAIN_RAM_BASE;   /* scratch, as the console's reads */
	uint32_t before[N_COUNTERS], now[N_COUNTERS], cycles = 0;
	memset(r, 0, sizeof(*r));
	sata_phy_control_write((base & ~s->mask) | s->value);
	uint32_t retries = sata_phy_retries_read();
	counters(before);
	int err = sata_link_init(window_us, &cycles);
	uint32_t st = sata_phy_status_read();
	r->linked = (st >> CSR_SATA_PHY_STATUS_READY_OFFSET) & 1;
	r->retries = sata_phy_retries_read() - retries;
	if (r->linked) {
		r->gen = ((st >> CSR_SATA_PHY_STATUS_GEN_OFFSET) & 1) + 1;
		r->link_us = cycles / (CONFIG_CLOCK_FREQUENCY / 1000000);
		if (err == SATA_OK)
			err = sata_identify(sata_cmd_timeout_us());
		for (uint32_t lba = 0; err == SATA_OK && lba < PHY_SCAN_SECTORS; lba += SATA_BUF_SECTORS) {
			uint32_t n = PHY_SCAN_SECTORS - lba;
			if (n > SATA_BUF_SECTORS)
				n = SATA_BUF_SECTORS;
			err = sata_read(lba, n, sectors, sata_cmd_timeout_us());
			if (err == SATA_OK)
				r->sectors += n;
		}
		r->read_err = err;
	}
	counters(now);
	for (int i = 0; i < N_COUNTERS; i++) {
		r->counts[i] = now[i] - before[i];
		r->errors += r->counts[i];
	}
	r->errors += r->read_err != SATA_OK;
}

int phy_scan(int argc, char **argv)
{
	uint64_t ms = (identity_features_read() >> IDENTITY_FEATURE_SIMULATED & 1) ?
		      PHY_SCAN_SIM_WINDOW_MS : PHY_SCAN_WINDOW_MS;
	if (argc > 3 || (argc == 3 && console_number(argv, 2, "window (ms)", &ms)))
		return argc > 3 ? console_usage("phy") : -1;
	if (ms < 1 || ms > 60000) {
		printf("phy scan: the window is 1..60000 ms of the target's time: nothing changed\n");
		return -1;
	}
#ifdef CSR_SATA_SERDES_BRINGUP_GEN1_METHOD_ADDR
	if (sata_serdes_bringup_gen1_method_read()) {
		printf("phy scan: gen1_method is dividers, which makes Gen1 only, and the sets change "
		       "the rate: set gen1_method pins first: nothing changed\n");
		return -1;
	}
#endif
	uint32_t base = sata_phy_control_read() & ~PHY_SCAN_PUT(RESTART, 1);
	struct row rows[N_SETS];
	unsigned order[N_SETS];
	printf("phy scan: %u sets, up to %lu ms of the target's time each to link, then %u sectors "
	       "read from LBA 0 (reads only)\n", (unsigned)N_SETS, (unsigned long)ms, PHY_SCAN_SECTORS);
	for (unsigned i = 0; i < N_SETS; i++) {
		printf("[%u/%u] %s: %s\n", i + 1, (unsigned)N_SETS, sets[i].name, sets[i].text);
		try_set(base, &sets[i], ms * 1000, &rows[i]);
		unsigned j = i;             /* insertion into the ranking; equal rows keep the list's order */
		for (; j > 0 && after(&rows[order[j - 1]], &rows[i]); j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	printf("  rank  set             linked  gen   time to link  failed attempts  sectors");
	for (int c = 0; c < N_COUNTERS; c++)
		printf("  %s", counter_names[c]);
	printf("\n");
	for (unsigned k = 0; k < N_SETS; k++) {
		const struct row *r = &rows[order[k]];
		char link[16] = "-", gen[8] = "-";
		if (r->linked) {
			snprintf(link, sizeof(link), "%lu us", (unsigned long)r->link_us);
			snprintf(gen, sizeof(gen), "Gen%d", r->gen);
		}
		printf("  %-4u  %-14s  %-6s  %-4s  %-12s  %-15lu  %-7lu", k + 1, sets[order[k]].name,
		       r->linked ? "yes" : "no", gen, link,
		       (unsigned long)r->retries, (unsigned long)r->sectors);
		for (int c = 0; c < N_COUNTERS; c++)     /* the last column unpadded */
			printf("  %-*lu", c < N_COUNTERS - 1 ? (int)strlen(counter_names[c]) : 0,
			       (unsigned long)r->counts[c]);
		printf("\n");
	}
	for (unsigned k = 0; k < N_SETS; k++)
		if (rows[order[k]].read_err != SATA_OK)
			printf("  %s: the read failed: %s\n", sets[order[k]].name,
			       sata_strerror(rows[order[k]].read_err));
	if (!rows[order[0]].linked) {
		printf("phy scan: no set linked: see doc/bringup.md, \"What to try when link-up fails\"; "
		       "the settings are left as the last set had them\n");
		return -1;
	}
	const struct scan_set *best = &sets[order[0]];
	sata_phy_control_write((base & ~best->mask) | best->value);
	if (sata_link_init(ms * 1000, NULL) == SATA_ERR_LINK_DOWN) {
		printf("phy scan: the best set (%s) did not link again when applied\n", best->name);
		return -1;
	}
	printf("phy scan: applied %s (%s)\n", best->name, best->text);
	return 0;
}

#else

int phy_scan(int argc, char **argv)
{
	printf("phy scan: this gateware has no SATA PHY control or sector buffer\n");
	return -1;
}

#endif
