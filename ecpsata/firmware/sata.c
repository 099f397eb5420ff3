/* SPDX-License-Identifier: BSD-2-Clause */
/* SATA driver: link and readiness after a reset, signature, IDENTIFY, and the sector buffer's
 * reads, writes and non-data commands.
 *
 * Ref: Serial ATA Revision 3.x (11.2 power-on and reset: the drive is busy until its signature
 * Register D2H FIS); ACS-3 (IDENTIFY DEVICE data, FLUSH CACHE EXT, SET FEATURES); Serial ATA AHCI
 * 1.3.1 (a host issues nothing while PxTFD.BSY is set). */
#include <stdio.h>
#include <string.h>

#include <generated/csr.h>
#include <generated/mem.h>
#include <generated/sata_codes.h>
#include <system.h>

#include "clock.h"
#include "sata.h"

#define FREQ ((uint64_t)CONFIG_CLOCK_FREQUENCY)

struct sata_identity sata_id;
int sata_id_valid;
uint32_t sata_timeout_ms;
int sata_autoact = 1;

#define DEFAULT_CMD_TIMEOUT_US   1000000
#define DEFAULT_FLUSH_TIMEOUT_US 30000000
#define RECOVER_LINK_TIMEOUT_US  2000000
#define BACKSTOP_US              1000000   /* beyond the gateware's own limits */

/* What the drive said when an error that carries figures happened (sata_strerror). */
static uint64_t not_ready_busy, not_ready_limit;
static uint32_t bad_signature;
static unsigned id_status, id_error;

uint32_t sata_cmd_timeout_us(void)
{
	return sata_timeout_ms ? sata_timeout_ms * 1000 : DEFAULT_CMD_TIMEOUT_US;
}

uint32_t sata_flush_timeout_us(void)
{
	return sata_timeout_ms ? sata_timeout_ms * 1000 : DEFAULT_FLUSH_TIMEOUT_US;
}

#define FIELD(value, REG, NAME) \
	(((value) >> CSR_##REG##_##NAME##_OFFSET) & ((1u << CSR_##REG##_##NAME##_SIZE) - 1))

const char *sata_strerror(int err)
{
	static char text[240];
	char a[24], b[24];
	switch (err) {
	case SATA_OK: return "ok";
	case SATA_ERR_NO_SATA: return "no SATA in this gateware";
	case SATA_ERR_LINK_DOWN: return "link down, or it dropped during the command";
	case SATA_ERR_TIMEOUT: return "timeout: the drive did not answer";
	case SATA_ERR_DEVICE: return "the command failed";
	case SATA_ERR_RANGE: return "LBA range outside the drive";
	case SATA_ERR_NO_IDENTIFY: return "capacity unknown: run 'identify' first";
	case SATA_ERR_CHECKSUM:
		return "IDENTIFY data damaged 3 times (bad CRC or checksum): the link has bit errors";
	case SATA_ERR_REFUSED:
		return "the benchmark engine refused the parameters or the other engine ran: nothing sent";
	case SATA_ERR_ABORTED: return "the benchmark run was aborted";
	case SATA_ERR_NO_BENCH: return "no benchmark engine in this gateware";
	case SATA_ERR_NOT_READY:
		snprintf(text, sizeof(text), "the drive stayed busy (BSY) for %s s after reset: a hard disk "
		         "that does not spin up (no 12 V?), or a device that never finishes its power-on "
		         "diagnostics (limit %s s, 'spinup' sets it)",
		         sata_seconds_text(a, not_ready_busy), sata_seconds_text(b, not_ready_limit));
		return text;
	case SATA_ERR_NOT_ATA: {
		const char *kind = sata_signature_kind(bad_signature);
		char bytes[24];
		sata_signature_bytes(bytes, bad_signature);
		if (!kind)
			snprintf(text, sizeof(text), "the device has an unknown signature (%s)", bytes);
		else   /* "an ATAPI device", "a port multiplier", "an enclosure bridge (SEMB)" */
			snprintf(text, sizeof(text), "the device is %s %s%s (signature %s)",
			         strchr("AEIOUaeiou", kind[0]) ? "an" : "a", kind,
			         strncmp(kind, "ATA", 3) == 0 ? " device" : "", bytes);
		strncat(text, ": only ATA drives are supported (nothing sent)", sizeof(text) - strlen(text) - 1);
		return text;
	}
	case SATA_ERR_ID_ABORTED: {
		char regs[96];
		snprintf(text, sizeof(text), "IDENTIFY aborted by the drive: %s: it does not take IDENTIFY "
		         "DEVICE (an ATAPI device, or a drive that refuses it)",
		         sata_device_error_text(regs, id_status, id_error));
		return text;
	}
	case SATA_ERR_SECTOR_SIZE:
		snprintf(text, sizeof(text), "the drive has logical sectors of %s bytes (IDENTIFY words 106, "
		         "117-118): the bench moves %d-byte sectors", sata_dec(a, sata_id.sector_bytes),
		         SATA_SECTOR);
		return text;
	case SATA_ERR_NO_NODATA: return "this gateware's sector buffer sends no non-data commands";
	case SATA_ERR_NO_CUSTOM:
		return "this gateware's sector buffer sends only reads and writes: rebuild it";
	case SATA_ERR_NO_FLUSH:
		return "this gateware's benchmark engine cannot end a write with FLUSH CACHE EXT: add "
		       "'noflush', or rebuild it";
	default: return "unknown error";
	}
}

const char *sata_state_name(unsigned state)
{
	static const char *const names[] = PHY_STATE_NAMES;
	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "?";
}

int sata_check_sector_size(void)
{
	return sata_id_valid && sata_id.sector_bytes != SATA_SECTOR ? SATA_ERR_SECTOR_SIZE : SATA_OK;
}

#ifdef CSR_SATA_PHY_BASE

static int phy_up(void)
{
	return FIELD(sata_phy_status_read(), SATA_PHY_STATUS, READY);
}

int sata_link_ready(void)
{
	if (!phy_up())
		return 0;
#ifdef CSR_SATA_ERRORS_BASE
	return sata_errors_dev_ready_read();
#else
	return 1;
#endif
}

/* No timed fallback: a command sent to a busy drive is ignored, and its late signature would be
 * taken for that command's status. The gateware's limit (ready_timeout) ends the wait; the CPU's
 * deadline is only a backstop should the gateware never answer. */
int sata_wait_drive(void)
{
	if (!phy_up())
		return SATA_ERR_LINK_DOWN;
#ifdef CSR_SATA_ERRORS_DEV_NEVER_READY_ADDR
	uint32_t downs = sata_phy_link_downs_read();
	uint64_t t0 = clock_cycles(), shown = t0;
	int printed = 0;
	char s[24];
	while (!sata_errors_dev_ready_read()) {
		uint64_t now = clock_cycles();
		uint64_t busy = sata_errors_dev_busy_time_read(), limit = sata_errors_ready_timeout_read();
		if (sata_phy_link_downs_read() != downs || !phy_up())
			return SATA_ERR_LINK_DOWN;
		if (sata_errors_dev_never_ready_read() || now - t0 > limit + 2 * FREQ) {
			not_ready_busy = busy;
			not_ready_limit = limit;
			return SATA_ERR_NOT_READY;
		}
		if (now - shown >= FREQ) {
			printf("drive busy after reset (spinning up?): %s s\n", sata_seconds_text(s, busy));
			shown = now;
			printed = 1;
		}
	}
	if (printed)
		printf("drive ready after %s s busy\n", sata_seconds_text(s, sata_errors_dev_busy_time_read()));
	return SATA_OK;
#else
	uint64_t t0 = clock_us();
	while (!sata_link_ready())
		if (clock_us() - t0 > RECOVER_LINK_TIMEOUT_US)
			return SATA_ERR_LINK_DOWN;
	return SATA_OK;
#endif
}

int sata_check_ata(void)
{
	uint32_t sig = sata_signature();
	if (sig != 0 && sig != SIGNATURE_ATA) {
		bad_signature = sig;
		return SATA_ERR_NOT_ATA;
	}
	return SATA_OK;
}

int sata_recover(void)
{
	int err = sata_link_init(RECOVER_LINK_TIMEOUT_US, NULL);
	if (err == SATA_ERR_LINK_DOWN)
		printf("the link was reset (COMRESET) and is not up yet\n");
	else if (err)
		printf("the link was reset (COMRESET) and is up, but %s\n", sata_strerror(err));
	else
		printf("the link was reset (COMRESET) and is up again\n");
	if (err)
		return err;
	/* a reset drive may not be the same one: read IDENTIFY again, as a host revalidates */
	err = sata_identify(sata_cmd_timeout_us());
	if (err)
		printf("identify after the reset: %s\n", sata_strerror(err));
	return err;
}

void sata_recover_if_needed(int err)
{
	if (err == SATA_ERR_TIMEOUT || (err == SATA_ERR_DEVICE && sata_errors_need_reset()))
		sata_recover();
}

int sata_link_init(uint32_t timeout_us, uint32_t *time_to_link_cycles)
{
	uint32_t ctrl = sata_phy_control_read();
	sata_id_valid = 0;
	sata_phy_control_write(ctrl | (1u << CSR_SATA_PHY_CONTROL_RESTART_OFFSET));
	uint64_t t0 = clock_us();
	/* the restart pulse takes the link down first; then wait for it to come up */
	while (!(clock_us() - t0 > 1 && phy_up()))
		if (clock_us() - t0 > timeout_us)
			return SATA_ERR_LINK_DOWN;
	if (time_to_link_cycles)
		*time_to_link_cycles = sata_phy_time_to_link_read();
	return sata_wait_drive();
}

static void copy_string(char *dst, const uint16_t *words, int nwords)
{
	/* ATA strings: two characters per word, first one in the high byte; trailing spaces */
	for (int i = 0; i < nwords; i++) {
		dst[2 * i] = words[i] >> 8;
		dst[2 * i + 1] = words[i] & 0xff;
	}
	int n = 2 * nwords;
	dst[n] = 0;
	while (n > 0 && dst[n - 1] == ' ')
		dst[--n] = 0;
}

/* Words 83 and 106 mean something only when bits 15:14 read 01; 78-79 and 82-85 not when they
 * read 0000h or FFFFh (not reported). */
static int valid_word(uint16_t w) { return (w & 0xc000) == 0x4000; }
static int bit(const uint16_t *w, int word, int b)
{
	return w[word] != 0 && w[word] != 0xffff && (w[word] >> b & 1);
}

static void decode_identify(void)
{
	const uint16_t *w = sata_id.words;
	copy_string(sata_id.serial, &w[10], 10);
	copy_string(sata_id.firmware, &w[23], 4);
	copy_string(sata_id.model, &w[27], 20);
	/* a drive that sets bit 10 but leaves words 100-103 at 0 gets 28-bit commands and the
	 * capacity of words 60-61, as Linux libata does */
	uint64_t sectors48 = (uint64_t)w[100] | ((uint64_t)w[101] << 16) | ((uint64_t)w[102] << 32) |
	                     ((uint64_t)w[103] << 48);
	sata_id.lba48 = valid_word(w[83]) && (w[83] >> 10 & 1) && sectors48 != 0;
	sata_id.sectors = sata_id.lba48 ? sectors48 : (uint64_t)w[60] | ((uint64_t)w[61] << 16);
	sata_id.sector_bytes = SATA_SECTOR;
	if (valid_word(w[106]) && (w[106] >> 12 & 1))
		sata_id.sector_bytes = 2 * ((uint64_t)w[117] | ((uint64_t)w[118] << 16));
	sata_id.ncq = (w[76] >> 8) & 1;
	sata_id.queue_depth = (w[75] & 0x1f) + 1;
	sata_id.gen1 = (w[76] >> 1) & 1;
	sata_id.gen2 = (w[76] >> 2) & 1;
	sata_id.gen3 = (w[76] >> 3) & 1;
	sata_id.rotation = w[217];
	sata_id.write_cache = bit(w, 82, 5);
	sata_id.write_cache_on = bit(w, 85, 5);
	sata_id.look_ahead = bit(w, 82, 6);
	sata_id.look_ahead_on = bit(w, 85, 6);
	sata_id.auto_activate = bit(w, 78, 2);
	sata_id.auto_activate_on = bit(w, 79, 2);
	sata_id.dipm = bit(w, 78, 3);
	sata_id.dipm_on = bit(w, 79, 3);
}

/* Why an IDENTIFY ended early: the drive's refusal is final (ID_ABORTED); a damaged frame is
 * worth another try (CHECKSUM: a bad CRC, an escape, the drive's ICRC); anything else is
 * reported with the command's reason (DEVICE). */
static int identify_failed(int failures_changed, uint32_t dev_errors0)
{
#ifdef CSR_SATA_ERRORS_BASE
	unsigned reason = failures_changed ? sata_errors_cmd_reason_read() : CMD_REASON_DEVICE;
	if (reason == CMD_REASON_DATA_CRC || reason == CMD_REASON_ESCAPE)
		return SATA_ERR_CHECKSUM;
	/* ICRC: the drive ended it for a transfer damaged on the line (its Data FIS lost) */
	if (reason == CMD_REASON_DEVICE && sata_errors_dev_errors_read() != dev_errors0 &&
	    (sata_errors_dev_error_read() & ERROR_ICRC))
		return SATA_ERR_CHECKSUM;
	if (reason == CMD_REASON_DEVICE && sata_errors_dev_errors_read() != dev_errors0) {
		id_status = sata_errors_dev_status_read();
		id_error = sata_errors_dev_error_read();
		return SATA_ERR_ID_ABORTED;
	}
#endif
	return SATA_ERR_DEVICE;
}

static int identify_once(uint32_t timeout_us)
{
	uint16_t *w = sata_id.words;
	uint32_t downs = sata_phy_link_downs_read();
	uint32_t failures0 = 0, dev_errors0 = 0;
#ifdef CSR_SATA_ERRORS_BASE
	failures0 = sata_errors_cmd_failures_read();
	dev_errors0 = sata_errors_dev_errors_read();
#endif
	sata_id_valid = 0;
	sata_identify_start_write(1);
	uint64_t t0 = clock_us();
	int n = 0;
	while (n < 128) {
		/* done before valid: once the frontend is done no more data enters its FIFO */
		int done = sata_identify_done_read();
		if (sata_identify_source_valid_read()) {
			uint32_t d = sata_identify_source_data_read();
			sata_identify_source_ready_write(1);
			w[2 * n] = d & 0xffff;
			w[2 * n + 1] = d >> 16;
			n++;
			continue;
		}
#ifdef CSR_SATA_ERRORS_BASE
		if (sata_errors_cmd_failures_read() != failures0)
			return identify_failed(1, dev_errors0);
#endif
		/* fewer than 128 dwords: the command ended without its data (valid read again: the
		 * FIFO's output register may lag the frontend's last beat) */
		if (done && !sata_identify_source_valid_read())
			return identify_failed(0, dev_errors0);
		if (sata_phy_link_downs_read() != downs)
			return SATA_ERR_LINK_DOWN;
		if (clock_us() - t0 > timeout_us)
			return SATA_ERR_TIMEOUT;
	}
	/* word 255: signature 0xA5 in the low byte, checksum making all bytes sum to 0 */
	if ((w[255] & 0xff) == 0xa5) {
		uint8_t sum = 0;
		for (int i = 0; i < 256; i++)
			sum += (w[i] & 0xff) + (w[i] >> 8);
		if (sum != 0)
			return SATA_ERR_CHECKSUM;
	}
	decode_identify();
	sata_id_valid = 1;
	return SATA_OK;
}

/* IDENTIFY only reads: it goes out again (IDENTIFY_TRIES times in all) when its data cannot be
 * trusted, a bad CRC on its Data FIS or a failed checksum, so that a bit error on the line costs
 * a retry rather than an unusable drive. */
#define IDENTIFY_TRIES 3   /* sata_strerror(SATA_ERR_CHECKSUM) names the count */

static int identify_tries(uint32_t timeout_us)
{
	int err = SATA_ERR_CHECKSUM;
	for (int tries = 0; tries < IDENTIFY_TRIES; tries++) {
#ifdef CSR_SATA_ERRORS_BASE
		uint32_t crc = sata_errors_fis_crc_errors_read();
#endif
		err = identify_once(timeout_us);
#ifdef CSR_SATA_ERRORS_BASE
		if (err == SATA_OK && sata_errors_fis_crc_errors_read() != crc) {
			sata_id_valid = 0;
			err = SATA_ERR_CHECKSUM;
		}
#endif
		if (err != SATA_ERR_CHECKSUM)
			return err;
	}
	return err;
}

int sata_identify(uint32_t timeout_us)
{
	sata_id_valid = 0;
	sata_errors_mark();
	int err = sata_wait_drive();
	if (!err)
		err = sata_check_ata();
	if (!err)
		err = identify_tries(timeout_us);
	if (err || !sata_autoact || !sata_id.auto_activate || sata_id.auto_activate_on)
		return err;
	/* DMA Setup auto-activate saves the drive a DMA Activate FIS round trip per queued write. A
	 * drive that refuses it is used without; one that stops answering needs the caller's reset. */
	err = sata_nodata(ATA_SET_FEATURES, SF_SATA_FEATURE_ON, SATA_FEATURE_AUTO_ACTIVATE, 0, timeout_us);
	if (err == SATA_ERR_TIMEOUT || err == SATA_ERR_LINK_DOWN) {
		sata_id_valid = 0;
		return err;
	}
	if (err) {
		printf("DMA Setup auto-activate left off: carrying on\n");
		return SATA_OK;
	}
	err = identify_tries(timeout_us);
	if (!err)
		printf("note: enabled DMA Setup auto-activate (SET FEATURES 10h/02h)\n");
	return err;
}

int sata_check_range(uint64_t lba, uint64_t count)
{
	if (!sata_id_valid)
		return SATA_ERR_NO_IDENTIFY;
	if (sata_check_sector_size())
		return SATA_ERR_SECTOR_SIZE;
	if (count == 0 || lba >= sata_id.sectors || count > sata_id.sectors - lba)
		return SATA_ERR_RANGE;
	return SATA_OK;
}

/* One command through the sector buffer (ecpsata/frontend/buffer.py). The CPU's deadline comes
 * first and the buffer's own limit 1 ms later: in this SoC the buffer's timeout resets the core
 * and the buffer with it, which clears its timeout flag, so the CPU must not rely on that flag
 * alone; a command that ends past the deadline is a timeout whatever the flags say. After a
 * CPU timeout the buffer gives up by itself 1 ms later (or the caller's COMRESET resets it).
 * The callers mark the error counters (sata_errors_mark), once per run: eight CSR reads per
 * command would slow the CPU path that `cpu` measures. */
static int buffer_done(void)
{
	return sata_buffer_status_read() >> CSR_SATA_BUFFER_STATUS_DONE_OFFSET & 1;
}

int sata_buffer_run(uint64_t lba, uint32_t count, uint32_t control, uint32_t timeout_us)
{
	int err = sata_wait_drive();
	if (err)
		return err;
	/* an abandoned command still in the buffer: it ends within 1 ms of its deadline */
	uint64_t t0 = clock_us();
	while (!buffer_done())
		if (clock_us() - t0 > BACKSTOP_US)
			return SATA_ERR_TIMEOUT;
	uint32_t downs = sata_phy_link_downs_read();
	uint64_t cycles = ((uint64_t)timeout_us + 1000) * (FREQ / 1000000);
	sata_buffer_timeout_write(cycles > 0xffffffffull ? 0xffffffffu : (uint32_t)cycles);
	sata_buffer_lba_write(lba);
	sata_buffer_count_write(count);
	sata_buffer_control_write((1u << CSR_SATA_BUFFER_CONTROL_START_OFFSET) | control);
	t0 = clock_us();
	uint32_t st;
	while (!((st = sata_buffer_status_read()) >> CSR_SATA_BUFFER_STATUS_DONE_OFFSET & 1)) {
		if (sata_phy_link_downs_read() != downs)
			return SATA_ERR_LINK_DOWN;
		if (clock_us() - t0 > timeout_us)
			return SATA_ERR_TIMEOUT;
	}
	uint64_t took = clock_us() - t0;
	if (sata_phy_link_downs_read() != downs)
		return SATA_ERR_LINK_DOWN;
	if ((st >> CSR_SATA_BUFFER_STATUS_TIMEOUT_OFFSET & 1) || took > timeout_us)
		return SATA_ERR_TIMEOUT;
	if (st >> CSR_SATA_BUFFER_STATUS_REFUSED_OFFSET & 1)
		return SATA_ERR_RANGE;
	if (st >> CSR_SATA_BUFFER_STATUS_FAILED_OFFSET & 1)
		return SATA_ERR_DEVICE;
	return SATA_OK;
}

int sata_read(uint64_t lba, uint32_t count, void *buf, uint32_t timeout_us)
{
	int err = sata_check_range(lba, count);
	if (!err && count > SATA_BUF_SECTORS)
		err = SATA_ERR_RANGE;
	if (!err)
		err = sata_buffer_run(lba, count, 0, timeout_us);
	if (err == SATA_OK)
		memcpy(buf, (const void *)SATA_BUFFER_BASE, count * SATA_SECTOR);
	return err;
}

int sata_write(uint64_t lba, uint32_t count, const void *buf, uint32_t timeout_us)
{
	int err = sata_check_range(lba, count);
	if (err)
		return err;
	if (count > SATA_BUF_SECTORS)
		return SATA_ERR_RANGE;
	memcpy((void *)SATA_BUFFER_BASE, buf, count * SATA_SECTOR);
	return sata_buffer_run(lba, count, 1u << CSR_SATA_BUFFER_CONTROL_WRITE_OFFSET, timeout_us);
}

static const char *nodata_name(char *buf, int size, uint8_t command, uint16_t features, uint16_t count)
{
	if (command == ATA_FLUSH_CACHE_EXT)
		return "FLUSH CACHE EXT";
	if (command != ATA_SET_FEATURES)
		snprintf(buf, size, "command %02Xh", command);
	else if (features == SF_WRITE_CACHE_ON || features == SF_WRITE_CACHE_OFF)
		snprintf(buf, size, "SET FEATURES %02Xh (write cache %s)", features,
		         features == SF_WRITE_CACHE_ON ? "on" : "off");
	else if ((features == SF_SATA_FEATURE_ON || features == SF_SATA_FEATURE_OFF) &&
	         count == SATA_FEATURE_AUTO_ACTIVATE)
		snprintf(buf, size, "SET FEATURES %02Xh/%02Xh (DMA Setup auto-activate %s)", features, count,
		         features == SF_SATA_FEATURE_ON ? "on" : "off");
	else
		snprintf(buf, size, "SET FEATURES %02Xh/%02Xh", features, count);
	return buf;
}

int sata_nodata(uint8_t command, uint16_t features, uint16_t count, uint64_t lba, uint32_t timeout_us)
{
#ifdef CSR_SATA_BUFFER_COMMAND_ADDR
	int err = sata_wait_drive();
	if (!err)
		err = sata_check_ata();
	if (!err) {
		sata_errors_mark();
		sata_buffer_command_write(command);
		sata_buffer_features_write(features);
		err = sata_buffer_run(lba, count, 1u << CSR_SATA_BUFFER_CONTROL_NODATA_OFFSET, timeout_us);
	}
#else
	int err = SATA_ERR_NO_NODATA;
#endif
	if (err) {
		char name[64];
		printf("%s: %s\n", nodata_name(name, sizeof(name), command, features, count), sata_strerror(err));
		if (err == SATA_ERR_DEVICE)
			sata_errors_report();
	}
	return err;
}

int sata_set_write_cache(int on)
{
	int err = sata_nodata(ATA_SET_FEATURES, on ? SF_WRITE_CACHE_ON : SF_WRITE_CACHE_OFF, 0, 0,
	                      sata_cmd_timeout_us());
	if (err)
		return err;
	/* show the drive's state, not the one asked for */
	err = sata_identify(sata_cmd_timeout_us());
	if (err)
		printf("identify after SET FEATURES: %s\n", sata_strerror(err));
	return err;
}

#else

int sata_link_ready(void) { return 0; }
int sata_wait_drive(void) { return SATA_ERR_NO_SATA; }
int sata_check_ata(void) { return SATA_ERR_NO_SATA; }
int sata_link_init(uint32_t timeout_us, uint32_t *t) { return SATA_ERR_NO_SATA; }
int sata_recover(void) { return SATA_ERR_NO_SATA; }
void sata_recover_if_needed(int err) { }
int sata_identify(uint32_t timeout_us) { return SATA_ERR_NO_SATA; }
int sata_read(uint64_t lba, uint32_t count, void *buf, uint32_t timeout_us) { return SATA_ERR_NO_SATA; }
int sata_write(uint64_t lba, uint32_t count, const void *buf, uint32_t timeout_us) { return SATA_ERR_NO_SATA; }
int sata_check_range(uint64_t lba, uint64_t count) { return SATA_ERR_NO_SATA; }
int sata_nodata(uint8_t command, uint16_t features, uint16_t count, uint64_t lba, uint32_t timeout_us)
{
	return SATA_ERR_NO_SATA;
}
int sata_set_write_cache(int on) { return SATA_ERR_NO_SATA; }

#endif

