/* SPDX-License-Identifier: BSD-2-Clause */
/* Drive console commands: the busy limit after a reset, non-data commands through the sector
 * buffer (FLUSH CACHE EXT, SET FEATURES for the write cache), the auto-activate setting and the
 * SError register.
 *
 * Ref: ACS-3 (FLUSH CACHE EXT, SET FEATURES 02h/82h, 10h/90h); Serial ATA Revision 3.x (DMA Setup
 * FIS auto-activate); Serial ATA AHCI 1.3.1 (PxSERR, write 1 to clear). */
#include <stdio.h>
#include <string.h>

#include <generated/csr.h>
#include <generated/sata_codes.h>
#include <generated/soc.h>

#include "clock.h"
#include "cmd_args.h"
#include "console.h"
#include "sata.h"

#define FREQ ((uint64_t)CONFIG_CLOCK_FREQUENCY)

/* "on" / "off" in argv[1] into *on; -1 (and a message) otherwise. */
static int on_off(char **argv, int *on)
{
	if (strcmp(argv[1], "on") && strcmp(argv[1], "off")) {
		printf("%s: say on or off, not '%s'\n", argv[0], argv[1]);
		return -1;
	}
	*on = strcmp(argv[1], "on") == 0;
	return 0;
}

/* IDENTIFY, unless it is valid already. */
static int identified(const char *what)
{
	int err = sata_id_valid ? SATA_OK : sata_identify(sata_cmd_timeout_us());
	return err ? fail(what, err) : 0;
}

static int cmd_spinup(int argc, char **argv)
{
	if (argc > 2)
		return console_usage(argv[0]);
#ifdef CSR_SATA_ERRORS_READY_TIMEOUT_ADDR
	/* the limit is a 32-bit count of sys cycles: 57 s at 75 MHz */
	uint64_t max_s = 0xffffffffull / FREQ, s;
	if (argc == 2) {
		if (console_number(argv, 1, "S", &s))
			return -1;
		if (s < 1 || s > max_s) {
			printf("spinup: S must be 1..%lu seconds (a 32-bit count of %lu Hz cycles): unchanged\n",
			       (unsigned long)max_s, (unsigned long)FREQ);
			return -1;
		}
		sata_errors_ready_timeout_write((uint32_t)(s * FREQ));
	}
	char t[24];
	printf("spin-up limit %s s: a drive busy (BSY) this long after a reset is reported as never "
	       "ready\n", sata_seconds_text(t, sata_errors_ready_timeout_read()));
	return 0;
#else
	printf("spinup: this gateware has no drive-ready limit (sata_errors_ready_timeout)\n");
	return -1;
#endif
}

static int cmd_flush(int argc, char **argv)
{
	int err = sata_wait_drive();
	if (err)
		return fail("flush", err);
	uint64_t t0 = clock_cycles();
	err = sata_nodata(ATA_FLUSH_CACHE_EXT, 0, 0, 0, sata_flush_timeout_us());
	uint64_t cycles = clock_cycles() - t0;
	if (err) {   /* sata_nodata printed it */
		sata_recover_if_needed(err);
		return err;
	}
	printf("FLUSH CACHE EXT done in ");
	put_us(cycles, 0);
	printf(" us (uptime counter around the command, CPU polling included: a one-off figure)\n");
	return 0;
}

static int cmd_wcache(int argc, char **argv)
{
	int on = -1;
	if (argc > 2)
		return console_usage(argv[0]);
	if (argc == 2 && on_off(argv, &on))
		return -1;
	if (identified("wcache"))
		return -1;
	if (!sata_id.write_cache) {
		printf("wcache: the drive has no volatile write cache to switch (IDENTIFY word 82 bit 5)%s\n",
		       on >= 0 ? ": nothing sent" : "");
		return on >= 0 ? -1 : 0;
	}
	if (on >= 0) {
		int err = sata_set_write_cache(on);
		if (err) {   /* printed by sata_set_write_cache */
			sata_recover_if_needed(err);
			return err;
		}
	}
	printf("write cache  %s (IDENTIFY word 85 bit 5)\n", sata_id.write_cache_on ? "on" : "off");
	return 0;
}

static int cmd_autoact(int argc, char **argv)
{
	int on;
	if (argc > 2)
		return console_usage(argv[0]);
	if (argc == 2) {
		if (on_off(argv, &on))
			return -1;
		sata_autoact = on;
	}
	if (sata_autoact)
		printf("autoact      on: every IDENTIFY enables DMA Setup auto-activate when the drive "
		       "supports it (SET FEATURES 10h/02h)\n");
	else
		printf("autoact      off: IDENTIFY leaves the drive's DMA Setup auto-activate setting as it is\n");
	if (sata_id_valid)
		printf("drive        auto-activate %s\n", !sata_id.auto_activate ? "not supported" :
		       sata_id.auto_activate_on ? "supported, enabled" : "supported, disabled");
	return 0;
}

static int cmd_serror(int argc, char **argv)
{
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "clear"))) {
		printf("serror: the only argument is 'clear'\n");
		return -1;
	}
	sata_serror_print(argc == 2);
	return 0;
}

const struct command drive_commands[] = {
	{"spinup",  "[S]", "seconds a drive may stay busy after a reset (default 31)", cmd_spinup},
	{"flush",   "", "FLUSH CACHE EXT: the drive writes its cache to the medium", cmd_flush},
	{"wcache",  "[on|off]", "the drive's volatile write cache (SET FEATURES 02h/82h)", cmd_wcache},
	{"autoact", "[on|off]", "enable DMA Setup auto-activate after IDENTIFY (default on)", cmd_autoact},
	{"serror",  "[clear]", "SError bits by their libata names; clear writes them back", cmd_serror},
	{NULL, NULL, NULL, NULL},
};
