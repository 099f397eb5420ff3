/* SPDX-License-Identifier: BSD-2-Clause */
/* SATA console commands: link, IDENTIFY, sector read/write (small transfers through main RAM). */
#include <stdio.h>
#include <string.h>

#include <generated/csr.h>
#include <generated/mem.h>
#include <generated/soc.h>

#include "clock.h"
#include "cmd_args.h"
#include "console.h"
#include "sata.h"

#define LINK_TIMEOUT_US 2000000
#define MAX_TIMEOUT_MS  50000   /* the engine's and the buffer's timeouts are 32-bit cycle counts */

static uint8_t *const buffer = (uint8_t *)MAIN_RAM_BASE;

/* fail() for an error, nothing for SATA_OK. */
static int report(const char *what, int err)
{
	return err ? fail(what, err) : 0;
}

static int cmd_sata_init(int argc, char **argv)
{
	uint32_t cycles = 0;
	int err = sata_link_init(LINK_TIMEOUT_US, &cycles);
	if (report("sata_init", err))
		return err;
#ifdef CSR_SATA_PHY_BASE
	uint32_t st = sata_phy_status_read();
	printf("link up at Gen%lu in %lu us\n",
	       (unsigned long)(((st >> CSR_SATA_PHY_STATUS_GEN_OFFSET) & 1) + 1),
	       (unsigned long)(cycles / (CONFIG_CLOCK_FREQUENCY / 1000000)));
#endif
#ifdef CSR_SATA_ERRORS_DEV_BUSY_TIME_ADDR
	char s[24], sig[64];
	printf("drive ready after %s s busy, signature %s\n",
	       sata_seconds_text(s, sata_errors_dev_busy_time_read()), sata_signature_text(sig, sata_signature()));
#endif
	return 0;
}

static int cmd_sata_status(int argc, char **argv)
{
#ifdef CSR_SATA_PHY_BASE
	uint32_t st = sata_phy_status_read();
#define F(NAME) ((st >> CSR_SATA_PHY_STATUS_##NAME##_OFFSET) & ((1u << CSR_SATA_PHY_STATUS_##NAME##_SIZE) - 1))
	printf("link         %s\n", F(READY) ? "up" : "down");
	printf("state        %s\n", sata_state_name(F(STATE)));
	printf("gen          Gen%lu\n", (unsigned long)(F(GEN) + 1));
	printf("serdes       tx_ready=%lu rx_ready=%lu rx_los=%lu rx_polarity=%lu\n",
	       (unsigned long)F(TX_READY), (unsigned long)F(RX_READY), (unsigned long)F(RX_LOS),
	       (unsigned long)F(RX_POLARITY));
#undef F
	printf("retries      %lu\n", (unsigned long)sata_phy_retries_read());
	printf("link ups     %lu, downs %lu\n", (unsigned long)sata_phy_link_ups_read(),
	       (unsigned long)sata_phy_link_downs_read());
	printf("8b10b errors code %lu, disparity %lu\n", (unsigned long)sata_phy_code_errors_read(),
	       (unsigned long)sata_phy_disp_errors_read());
	printf("time to link %lu us\n",
	       (unsigned long)(sata_phy_time_to_link_read() / (CONFIG_CLOCK_FREQUENCY / 1000000)));
	sata_errors_status();
	return 0;
#else
	return report("sata_status", SATA_ERR_NO_SATA);
#endif
}

static const char *yes(int supported, int enabled)
{
	return !supported ? "not supported" : enabled ? "supported, enabled" : "supported, disabled";
}

static int cmd_identify(int argc, char **argv)
{
	int err = sata_identify(sata_cmd_timeout_us());
	if (report("identify", err))
		return err;
	char a[21], b[21], c[21], sig[64];
	printf("device       %s\n", sata_signature_text(sig, sata_signature()));
	printf("model        %s\n", sata_id.model);
	printf("serial       %s\n", sata_id.serial);
	printf("firmware     %s\n", sata_id.firmware);
	/* bytes from the logical sector: a 4Kn drive counts 4,096-byte sectors */
	uint64_t bytes = sata_id.sectors * sata_id.sector_bytes;
	printf("capacity     %s sectors of %s bytes, ", u64s(a, sata_id.sectors), u64s(b, sata_id.sector_bytes));
	printf("%s bytes (%s MB)\n", u64s(a, bytes), u64s(c, bytes / 1000000));
	printf("sector       %s bytes (logical)\n", u64s(a, sata_id.sector_bytes));
	printf("lba48        %s\n", sata_id.lba48 ? "yes" : "no (28-bit commands)");
	printf("ncq          %s", sata_id.ncq ? "yes" : "no");
	if (sata_id.ncq)
		printf(", depth %d", sata_id.queue_depth);
	printf("\ngens        %s%s%s\n", sata_id.gen1 ? " Gen1" : "", sata_id.gen2 ? " Gen2" : "",
	       sata_id.gen3 ? " Gen3" : "");
	if (sata_id.rotation == 1)
		printf("rotation     non-rotating\n");
	else if (sata_id.rotation > 0x400 && sata_id.rotation < 0xffff)
		printf("rotation     %d rpm\n", sata_id.rotation);
	else
		printf("rotation     not reported\n");
	printf("write cache  %s (volatile)\n", yes(sata_id.write_cache, sata_id.write_cache_on));
	printf("look-ahead   %s\n", yes(sata_id.look_ahead, sata_id.look_ahead_on));
	printf("auto-activate %s (DMA Setup FIS)\n", yes(sata_id.auto_activate, sata_id.auto_activate_on));
	printf("DIPM         %s (device-initiated power management)\n", yes(sata_id.dipm, sata_id.dipm_on));
	if (sata_check_sector_size())
		printf("usable       no: %s\n", sata_strerror(SATA_ERR_SECTOR_SIZE));
	return 0;
}

/* LBA and COUNT from argv[1..2] of a command of nargs words; prints why not. */
static int parse_lba_count(int argc, char **argv, int nargs, uint64_t *lba, uint64_t *count)
{
	if (argc != nargs)
		return console_usage(argv[0]);
	if (console_number(argv, 1, "LBA", lba) || console_number(argv, 2, "COUNT", count))
		return -1;
	return 0;
}

static int check_range(const char *what, uint64_t lba, uint64_t count)
{
	if (count == 0 || count > SATA_BUF_SECTORS) {
		printf("%s: COUNT must be 1..%d\n", what, SATA_BUF_SECTORS);
		return -1;
	}
	return report(what, sata_check_range(lba, count));
}

static int cmd_read(int argc, char **argv)
{
	uint64_t lba, count;
	if (parse_lba_count(argc, argv, 3, &lba, &count) || check_range(argv[0], lba, count))
		return -1;
	sata_errors_mark();
	int err = sata_read(lba, count, buffer, sata_cmd_timeout_us());
	if (report("read", err))
		return err;
	for (uint32_t off = 0; off < count * SATA_SECTOR; off += 16) {
		if (off % SATA_SECTOR == 0) {
			char a[21];
			printf("LBA %s:\n", u64s(a, lba + off / SATA_SECTOR));
		}
		printf("%04lx ", (unsigned long)(off % SATA_SECTOR));
		for (int i = 0; i < 16; i++)
			printf(" %02x", buffer[off + i]);
		printf("  ");
		for (int i = 0; i < 16; i++) {
			uint8_t c = buffer[off + i];
			putchar(c >= 0x20 && c < 0x7f ? c : '.');
		}
		putchar('\n');
	}
	return 0;
}

static int cmd_write(int argc, char **argv)
{
	uint64_t lba, count, pattern;
	if (parse_lba_count(argc, argv, 4, &lba, &count) || console_number(argv, 3, "PATTERN", &pattern))
		return -1;
	if (pattern > 0xffffffffull) {
		printf("write: PATTERN must be a 32-bit word, e.g. 0x12345678\n");
		return -1;
	}
	if (check_range(argv[0], lba, count))
		return -1;
	char a[21];
	printf("this overwrites %lu sector(s) from LBA %s of '%s'\n", (unsigned long)count, u64s(a, lba),
	       sata_id.model);
	if (!console_confirm("yes"))
		return 0;
	uint32_t *w = (uint32_t *)buffer;
	for (uint32_t i = 0; i < count * SATA_SECTOR / 4; i++)
		w[i] = (uint32_t)pattern;
	sata_errors_mark();
	int err = sata_write(lba, count, buffer, sata_cmd_timeout_us());
	if (report("write", err))
		return err;
	printf("wrote %lu sector(s)\n", (unsigned long)count);
	return 0;
}

static int cmd_timeout(int argc, char **argv)
{
	uint64_t ms;
	if (argc > 2)
		return console_usage(argv[0]);
	if (argc == 2) {
		if (console_number(argv, 1, "MS", &ms))
			return -1;
		if (ms > MAX_TIMEOUT_MS) {
			printf("timeout: MS must be 0 (the defaults) .. %d\n", MAX_TIMEOUT_MS);
			return -1;
		}
		sata_timeout_ms = (uint32_t)ms;
	}
	if (sata_timeout_ms)
		printf("command timeout %lu ms\n", (unsigned long)sata_timeout_ms);
	else
		printf("command timeout: the defaults (1 s; benchmarks 2 s plus 10 MB/s of data)\n");
	return 0;
}

const struct command sata_commands[] = {
	{"sata_init",   "", "COMRESET, wait for the link and the drive, print speed and time to link", cmd_sata_init},
	{"sata_status", "", "link state, speed, the drive's state and signature, SError, error counts", cmd_sata_status},
	{"identify",    "", "IDENTIFY DEVICE: model, serial, firmware, capacity, features", cmd_identify},
	{"read",        "LBA COUNT", "read COUNT (<= 16) sectors and hexdump them", cmd_read},
	{"write",       "LBA COUNT PATTERN", "write COUNT (<= 16) sectors of a 32-bit pattern (asks first)", cmd_write},
	{"timeout",     "[MS]", "command timeout (0 = the defaults); a timeout resets the link", cmd_timeout},
	{NULL, NULL, NULL, NULL},
};
