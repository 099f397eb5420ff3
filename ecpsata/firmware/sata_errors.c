/* SPDX-License-Identifier: BSD-2-Clause */
/* The drive's state and what went wrong, from the error block (ecpsata/frontend/errors.py): the
 * signature, readiness, the device's registers, the reason of the last failed command, SError
 * by libata's bit names, link-level counts. The codes and their texts come from
 * <generated/sata_codes.h> (one definition, in the gateware).
 *
 * Ref: ACS-3 (status and error registers, signatures); Serial ATA AHCI 1.3.1 (PxSIG, PxTFD,
 * PxSERR). */
#include <stdio.h>
#include <string.h>

#include <generated/csr.h>
#include <generated/sata_codes.h>
#include <generated/soc.h>

#include "sata.h"

#define FREQ ((uint64_t)CONFIG_CLOCK_FREQUENCY)
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct bit_name { uint32_t bit; const char *name; };
struct sig_kind { uint32_t sig; const char *kind; };

const char *sata_dec(char *buf, uint64_t v)
{
	char *p = buf + 20;
	*p = 0;
	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	return p;
}

const char *sata_seconds_text(char *buf, uint64_t cycles)
{
	uint64_t tenths = (cycles * 10 + FREQ / 2) / FREQ;
	char d[21];
	snprintf(buf, 24, "%s.%u", sata_dec(d, tenths / 10), (unsigned)(tenths % 10));
	return buf;
}

const char *sata_device_error_text(char *buf, unsigned status, unsigned error)
{
	static const struct bit_name bits[] = ATA_ERROR_BITS;
	int n = snprintf(buf, 96, "status 0x%02x, error 0x%02x", status, error);
	const char *sep = " (";
	for (unsigned i = 0; i < COUNT(bits) && n < 96; i++)
		if (error & bits[i].bit) {
			n += snprintf(buf + n, 96 - n, "%s%s", sep, bits[i].name);
			sep = ", ";
		}
	if (*sep == ',' && n < 95)
		strcpy(buf + n, ")");
	return buf;
}

uint32_t sata_signature(void)
{
#ifdef CSR_SATA_ERRORS_DEV_SIGNATURE_ADDR
	return sata_errors_dev_signature_read();
#else
	return 0;
#endif
}

const char *sata_signature_kind(uint32_t sig)
{
	static const struct sig_kind kinds[] = SIGNATURE_KINDS;
	for (unsigned i = 0; i < COUNT(kinds); i++)
		if (kinds[i].sig == sig)
			return kinds[i].kind;
	return NULL;
}

const char *sata_signature_bytes(char *buf, uint32_t sig)
{
	snprintf(buf, 24, "%02Xh/%02Xh/%02Xh/%02Xh", (unsigned)(sig & 0xff), (unsigned)(sig >> 8 & 0xff),
	         (unsigned)(sig >> 16 & 0xff), (unsigned)(sig >> 24));
	return buf;
}

const char *sata_signature_text(char *buf, uint32_t sig)
{
	const char *kind = sata_signature_kind(sig);
	char bytes[24];
	if (sig == 0)
		return "none yet";
	snprintf(buf, 64, "%s (%s)", kind ? kind : "unknown", sata_signature_bytes(bytes, sig));
	return buf;
}

#ifdef CSR_SATA_ERRORS_BASE

/* Bits of the error block that this gateware has (the older one had neither). */
#ifdef CSR_SATA_ERRORS_SERROR_ADDR
#define HAVE_SERROR 1
#endif

static uint32_t mark_dev, mark_crc, mark_rejected, mark_retries;
#ifdef HAVE_SERROR
static uint32_t mark_failures, mark_serror, mark_escapes, mark_refused;

static void print_serror_bits(uint32_t v)
{
	static const struct bit_name names[] = SERROR_NAMES;
	printf("{");
	for (unsigned i = 0; i < COUNT(names); i++)
		if (v >> names[i].bit & 1)
			printf(" %s", names[i].name);
	printf(" }");
}
#endif

void sata_errors_mark(void)
{
	mark_dev = sata_errors_dev_errors_read();
	mark_crc = sata_errors_fis_crc_errors_read();
	mark_rejected = sata_errors_fis_rejected_read();
	mark_retries = sata_errors_cmd_retries_read();
#ifdef HAVE_SERROR
	mark_failures = sata_errors_cmd_failures_read();
	mark_serror = sata_errors_serror_read();
	mark_escapes = sata_errors_escapes_read();
	mark_refused = sata_errors_fis_refused_read();
#endif
}

void sata_errors_report(void)
{
	uint32_t crc = sata_errors_fis_crc_errors_read() - mark_crc;
	uint32_t rejected = sata_errors_fis_rejected_read() - mark_rejected;
	uint32_t retries = sata_errors_cmd_retries_read() - mark_retries;
	uint32_t escapes = 0, refused = 0;
	char buf[96], a[21];
	if (sata_errors_dev_errors_read() != mark_dev)
		printf("  drive: %s at LBA %s\n",
		       sata_device_error_text(buf, sata_errors_dev_status_read(), sata_errors_dev_error_read()),
		       sata_dec(a, sata_errors_dev_lba_read()));
	else
		printf("  drive: no error register reported (CRC error on data, or a short transfer)\n");
#ifdef HAVE_SERROR
	static const char *const reasons[] = CMD_REASON_TEXTS;
	escapes = sata_errors_escapes_read() - mark_escapes;
	refused = sata_errors_fis_refused_read() - mark_refused;
	if (sata_errors_cmd_failures_read() != mark_failures) {
		unsigned r = sata_errors_cmd_reason_read();
		printf("  last failed command: %s\n", r < COUNT(reasons) ? reasons[r] : "unknown reason");
	}
#endif
	if (crc || rejected || retries || escapes || refused) {
		printf("  link: %u received FIS with a bad CRC, %u FIS refused by the drive "
		       "(R_ERR, or SYNC: not seen), %u command retries", (unsigned)crc, (unsigned)rejected, (unsigned)retries);
		if (escapes)
			printf(", %u frames the drive abandoned (escape)", (unsigned)escapes);
		if (refused)
			printf(", %u FIS refused by the host (type, length, place)", (unsigned)refused);
		printf("\n");
	}
#ifdef HAVE_SERROR
	uint32_t appeared = sata_errors_serror_read() & ~mark_serror;
	if (appeared) {
		printf("  SError: ");
		print_serror_bits(appeared);
		printf("\n");
	}
#endif
}

int sata_errors_need_reset(void)
{
#ifdef HAVE_SERROR
	if (sata_errors_cmd_failures_read() != mark_failures)
		return CMD_RESET_REASONS_MASK >> sata_errors_cmd_reason_read() & 1;
#endif
	return 0;
}

void sata_errors_status(void)
{
#ifdef HAVE_SERROR
	static const char *const reasons[] = CMD_REASON_TEXTS;
	char s[24], sig[64];
	uint32_t busy = sata_errors_dev_busy_time_read();
	printf("drive        ");
	if (sata_errors_dev_ready_read())
		printf("ready (busy %s s after the reset)", sata_seconds_text(s, busy));
	else if (sata_errors_dev_never_ready_read())
		printf("never ready (busy %s s)", sata_seconds_text(s, busy));
	else if (sata_phy_status_read() >> CSR_SATA_PHY_STATUS_READY_OFFSET & 1)
		printf("busy for %s s (spinning up?)", sata_seconds_text(s, busy));
	else
		printf("-");
	unsigned tf = sata_errors_dev_tf_status_read();
	printf("; last status 0x%02x%s%s%s\n", tf, tf & STATUS_BSY ? " BSY" : "",
	       tf & STATUS_DRDY ? " DRDY" : "", tf & STATUS_ERR ? " ERR" : "");
	printf("signature    %s\n", sata_signature_text(sig, sata_signature()));
	printf("busy limit   %s s after a reset ('spinup')\n",
	       sata_seconds_text(s, sata_errors_ready_timeout_read()));
	sata_serror_print(0);
	uint32_t failures = sata_errors_cmd_failures_read();
	if (failures) {
		unsigned r = sata_errors_cmd_reason_read();
		printf("last failed  %s (%u failed commands)\n",
		       r < COUNT(reasons) ? reasons[r] : "unknown reason", (unsigned)failures);
	}
	printf("FIS errors   %u bad CRC, %u refused by the drive, %u retries, %u escapes, "
	       "%u refused by the host\n", (unsigned)sata_errors_fis_crc_errors_read(),
	       (unsigned)sata_errors_fis_rejected_read(), (unsigned)sata_errors_cmd_retries_read(),
	       (unsigned)sata_errors_escapes_read(), (unsigned)sata_errors_fis_refused_read());
#endif
}

void sata_serror_print(int clear)
{
#ifdef HAVE_SERROR
	uint32_t v = sata_errors_serror_read();
	printf("SError       0x%08lx ", (unsigned long)v);
	print_serror_bits(v);
	if (clear && v) {
		sata_errors_serror_write(v);   /* write 1 to clear: only the bits shown */
		printf(" (cleared)");
	}
	printf("\n");
#else
	printf("SError       not in this gateware\n");
#endif
}

#else

void sata_errors_mark(void) { }
void sata_errors_report(void) { }
void sata_errors_status(void) { }
int sata_errors_need_reset(void) { return 0; }
void sata_serror_print(int clear) { printf("SError       not in this gateware\n"); }

#endif
