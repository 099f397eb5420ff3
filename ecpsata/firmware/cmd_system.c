/* SPDX-License-Identifier: BSD-2-Clause */
/* System commands: identity of the gateware and a status summary. */
#include <stdint.h>
#include <stdio.h>

#include <generated/csr.h>
#include <generated/sata_codes.h>
#include <generated/soc.h>

#include "clock.h"
#include "console.h"
#include "sata.h"

static const struct { unsigned code; const char *name; } board_names[] = BOARD_NAMES;

static const char *board_name(unsigned id)
{
	for (unsigned i = 0; i < sizeof(board_names) / sizeof(board_names[0]); i++)
		if (board_names[i].code == id)
			return board_names[i].name;
	return "unknown";
}


static int cmd_ident(int argc, char **argv)
{
#ifdef CSR_IDENTITY_BASE
	uint32_t f = identity_features_read();
	/* The build stamp (ROM): magic, git revision, flags (bit 0: dirty), build time. */
	const volatile uint32_t *stamp = (const volatile uint32_t *)identity_stamp_read();
	printf("magic      0x%08lx\n", (unsigned long)identity_magic_read());
	if (stamp[0] == ECPSATA_STAMP_MAGIC) {
		printf("git        %08lx%s\n", (unsigned long)stamp[1], stamp[2] & 1 ? " (dirty)" : "");
		printf("built      %lu (unix)\n", (unsigned long)stamp[3]);
	} else {
		printf("git        unknown (no build stamp at 0x%08lx)\n", (unsigned long)identity_stamp_read());
	}
	printf("board      %s\n", board_name(identity_board_read()));
	printf("sys_clk    %lu Hz\n", (unsigned long)identity_sys_clk_read());
	printf("features  ");
	static const char *const names[] = IDENTITY_FEATURE_NAMES;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (f & (1u << i))
			printf(" %s", names[i]);
	printf("\n");
	return 0;
#else
	printf("no identity block in this gateware\n");
	return 1;
#endif
}

static int cmd_status(int argc, char **argv)
{
	printf("uptime     %lu ms\n", (unsigned long)(clock_us() / 1000));
#ifdef CSR_SATA_PHY_BASE
	int up = sata_phy_status_read() >> CSR_SATA_PHY_STATUS_READY_OFFSET & 1;
	printf("sata       link %s%s\n", up ? "up" : "down",
	       !up ? "" : sata_link_ready() ? ", drive ready" : ", drive not ready ('sata_status')");
#else
	printf("sata       not in this gateware\n");
#endif
	return 0;
}

/* mr ADDR [WORDS]: read 32-bit words at a bus address (CSRs, RAM), for bring-up. An address with
 * nothing behind it answers 0xffffffff after the SoC's bus timeout. */
static int cmd_mr(int argc, char **argv)
{
	uint64_t addr, words = 1;
	if (argc < 2 || argc > 3)
		return console_usage(argv[0]);
	if (console_number(argv, 1, "ADDR", &addr) || (argc == 3 && console_number(argv, 2, "WORDS", &words)))
		return -1;
	if ((addr & 3) || addr > 0xffffffffu || words == 0 || words > 256 || addr + 4 * words - 1 > 0xffffffffu) {
		printf("mr: ADDR must be a 32-bit address aligned to 4, WORDS 1..256\n");
		return -1;
	}
	for (uint64_t i = 0; i < words; i++) {
		uint32_t a = (uint32_t)(addr + 4 * i);
		if (i % 4 == 0)
			printf("%s%08lx:", i ? "\n" : "", (unsigned long)a);
		printf(" %08lx", (unsigned long)*(volatile uint32_t *)a);
	}
	printf("\n");
	return 0;
}

const struct command system_commands[] = {
	{"ident",  "", "identity of the gateware (git revision, board, clock, features)", cmd_ident},
	{"status", "", "uptime and link status", cmd_status},
	{"mr",     "ADDR [WORDS]", "read 32-bit words at a bus address", cmd_mr},
	{NULL, NULL, NULL, NULL},
};
