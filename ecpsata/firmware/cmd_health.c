/* SPDX-License-Identifier: BSD-2-Clause */
/* `health`: SMART's overall status and attribute table (IDs and raw values: the host's
 * `ecpsata health` names and decodes them), the General Purpose Log Directory's logs and the SATA
 * Phy Event Counters, read with ATA commands through the sector buffer (sata_ata.c). A drive that
 * lacks a section says so; a page whose checksum fails is called damaged, not shown.
 *
 * Ref: ACS-3 (SMART READ DATA, READ THRESHOLDS, RETURN STATUS; READ LOG EXT; IDENTIFY words 76,
 * 82, 84, 85); Serial ATA Revision 3.x (SATA Phy Event Counters log). */
#include <stdio.h>
#include <string.h>

#include <generated/csr.h>
#include <generated/sata_codes.h>

#include "console.h"
#include "sata.h"

#define ATTRS 30          /* SMART data page: 30 entries of 12 bytes from byte 2 */

static uint8_t page[SATA_SECTOR], thr[SATA_SECTOR];

static int word_bit(int w, int b)
{
	uint16_t v = sata_id.words[w];
	return v != 0 && v != 0xFFFF && (v >> b & 1);
}

static int sum_ok(const uint8_t *p)
{
	uint8_t s = 0;
	for (int i = 0; i < SATA_SECTOR; i++)
		s += p[i];
	return s == 0;
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int threshold_of(int id)
{
	for (int i = 0; i < ATTRS; i++)
		if (thr[2 + 12 * i] == id)
			return thr[3 + 12 * i];
	return -1;
}

static int smart(uint32_t timeout)
{
	if (!word_bit(82, 0)) {
		printf("SMART: the drive does not offer SMART (IDENTIFY word 82 bit 0 clear)\n");
		return 0;
	}
	struct sata_tf tf;
	int err = sata_ata_nodata_tf(ATA_SMART, SMART_RETURN_STATUS, SMART_LBA, 0, &tf, timeout);
	if (err)
		return -1;
	unsigned mid = tf.lba >> 8 & 0xFF, high = tf.lba >> 16 & 0xFF;
	printf("SMART overall status: %s (LBA mid/high %02Xh/%02Xh)\n",
	       mid == 0x4F && high == 0xC2 ? "PASSED" : mid == 0xF4 && high == 0x2C ? "FAILED" :
	       "UNKNOWN", mid, high);
	if (sata_ata_in(ATA_SMART, SMART_READ_DATA, SMART_LBA, 1, 1, page, timeout) ||
	    sata_ata_in(ATA_SMART, SMART_READ_THRESHOLDS, SMART_LBA, 1, 1, thr, timeout))
		return -1;
	if (!sum_ok(page) || !sum_ok(thr)) {
		printf("SMART %s page damaged: its checksum fails (not decoded)\n",
		       sum_ok(page) ? "thresholds" : "data");
		return 0;
	}
	printf("ID#  FLAGS VALUE WORST THRESH RAW (hex)      RAW\n");
	for (int i = 0; i < ATTRS; i++) {
		const uint8_t *a = &page[2 + 12 * i];
		if (a[0] == 0)
			continue;
		int t = threshold_of(a[0]);
		uint64_t raw = le(&a[5], 6);
		printf("%3u 0x%04x  %3u   %3u   ", a[0], (unsigned)le(&a[1], 2), a[3], a[4]);
		if (t < 0)
			printf("---");
		else
			printf("%3d", t);
		printf("    %012llx %llu%s\n", (unsigned long long)raw, (unsigned long long)raw,
		       t > 0 && a[3] <= t ? "  FAILING_NOW" : "");
	}
	return 0;
}

static int logs(uint32_t timeout)
{
	if (!(sata_id.words[84] >> 14 == 1 && (sata_id.words[84] >> 5 & 1))) {
		printf("GP logs: the drive does not offer General Purpose Logging (IDENTIFY word 84 bit 5)\n");
		return 0;
	}
	if (sata_ata_in(ATA_READ_LOG_EXT, 0, LOG_DIRECTORY, 1, 1, page, timeout))
		return -1;
	printf("GP log directory, version %u:", (unsigned)le(page, 2));
	for (int a = 1; a < 256; a++)
		if (le(&page[2 * a], 2))
			printf(" %02Xh(%u)", a, (unsigned)le(&page[2 * a], 2));
	printf("\n");
	if (!word_bit(76, 10) || !le(&page[2 * LOG_PHY_EVENT_COUNTERS], 2)) {
		printf("SATA Phy Event Counters: the drive does not report them (IDENTIFY word 76 bit 10, "
		       "log 11h)\n");
		return 0;
	}
	if (sata_ata_in(ATA_READ_LOG_EXT, 0, LOG_PHY_EVENT_COUNTERS, 1, 1, page, timeout))
		return -1;
	if (!sum_ok(page)) {
		printf("SATA Phy Event Counters page damaged: its checksum fails (not decoded)\n");
		return 0;
	}
	printf("SATA Phy Event Counters (ID: count):");
	for (int off = 4; off + 2 <= SATA_SECTOR - 1;) {
		unsigned id = le(&page[off], 2);
		if ((id & 0x8FFF) == 0)
			break;
		int bytes = 2 * (id >> 12 & 7);
		if (bytes < 2 || bytes > 8 || off + 2 + bytes > SATA_SECTOR - 1) {
			printf(" (entry %03Xh malformed)", id & 0xFFF);
			break;
		}
		printf(" %03Xh: %llu", id & 0xFFF, (unsigned long long)le(&page[off + 2], bytes));
		off += 2 + bytes;
	}
	printf("\n");
	return 0;
}

static int cmd_health(int argc, char **argv)
{
	(void)argc;
	if (!sata_id_valid) {
		int err = sata_identify(sata_cmd_timeout_us());
		if (err) {
			printf("%s: %s\n", argv[0], sata_strerror(err));
			return -1;
		}
	}
	uint32_t timeout = sata_cmd_timeout_us();
	if (smart(timeout) || logs(timeout))
		return -1;
	return 0;
}

const struct command health_commands[] = {
	{"health", "", "SMART status and attributes, GP log directory, SATA Phy event counters",
	 cmd_health},
	{NULL, NULL, NULL, NULL},
};
