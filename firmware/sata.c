#include <stdio.h>
#include <string.h>

#include <generated/csr.h>
#include <generated/mem.h>
#include <system.h>

#include "clock.h"
#include "sata.h"

struct sata_identity sata_id;
int sata_id_valid;
uint32_t sata_timeout_ms;

#define DEFAULT_CMD_TIMEOUT_US 1000000
#define RECOVER_LINK_TIMEOUT_US 2000000

uint32_t sata_cmd_timeout_us(void)
{
	return sata_timeout_ms ? sata_timeout_ms * 1000 : DEFAULT_CMD_TIMEOUT_US;
}

#define FIELD(value, REG, NAME) \
	(((value) >> CSR_##REG##_##NAME##_OFFSET) & ((1u << CSR_##REG##_##NAME##_SIZE) - 1))

const char *sata_strerror(int err)
{
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
	case SATA_ERR_REFUSED: return "the benchmark engine refused the parameters: nothing sent";
	case SATA_ERR_ABORTED: return "the benchmark run was aborted";
	case SATA_ERR_NO_BENCH: return "no benchmark engine in this gateware";
	default: return "unknown error";
	}
}

const char *sata_state_name(unsigned state)
{
	static const char *const names[] = {
		"HP1_HR_Reset", "HP1_HR_COMRESET", "HP2_HR_AwaitCOMINIT", "HP2B_HR_AwaitNoCOMINIT",
		"HP3_HR_Calibrate", "HP4_HR_COMWAKE", "HP5_HR_AwaitCOMWAKE", "HP5B_HR_AwaitNoCOMWAKE",
		"HP6_HR_AwaitAlign", "HP7_HR_SendAlign", "HP8_HR_Ready", "HR_Disabled",
	};
	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "?";
}

#ifdef CSR_SATA_PHY_BASE

/* Link up, and the drive has answered since (its signature FIS): a command sent before would
 * take the signature for its own status. */
int sata_link_ready(void)
{
	if (!FIELD(sata_phy_status_read(), SATA_PHY_STATUS, READY))
		return 0;
#ifdef CSR_SATA_ERRORS_BASE
	return sata_errors_dev_ready_read();
#else
	return 1;
#endif
}

int sata_recover(void)
{
	int err = sata_link_init(RECOVER_LINK_TIMEOUT_US, NULL);
	printf("the link was reset (COMRESET) and is %s\n", err ? "not up yet" : "up again");
	if (err)
		return err;
	/* a reset drive may not be the same one: read IDENTIFY again, as a host revalidates */
	err = sata_identify(sata_cmd_timeout_us());
	if (err)
		printf("identify after the reset: %s\n", sata_strerror(err));
	return err;
}

int sata_link_init(uint32_t timeout_us, uint32_t *time_to_link_cycles)
{
	uint32_t ctrl = sata_phy_control_read();
	sata_id_valid = 0;
	sata_phy_control_write(ctrl | (1u << CSR_SATA_PHY_CONTROL_RESTART_OFFSET));
	uint64_t t0 = clock_us();
	/* the restart pulse takes the link down first; then wait for it to come up */
	while (clock_us() - t0 < timeout_us) {
		if (clock_us() - t0 > 1 && sata_link_ready()) {
			if (time_to_link_cycles)
				*time_to_link_cycles = sata_phy_time_to_link_read();
			return SATA_OK;
		}
	}
	return SATA_ERR_LINK_DOWN;
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

static int identify_once(uint32_t timeout_us)
{
	uint16_t *w = sata_id.words;
	uint32_t downs = sata_phy_link_downs_read();
	sata_id_valid = 0;
	if (!sata_link_ready())
		return SATA_ERR_LINK_DOWN;
	sata_identify_start_write(1);
	uint64_t t0 = clock_us();
	int n = 0;
	while (n < 128) {
		if (sata_phy_link_downs_read() != downs)
			return SATA_ERR_LINK_DOWN;
		if (clock_us() - t0 > timeout_us)
			return SATA_ERR_TIMEOUT;
		if (sata_identify_source_valid_read()) {
			uint32_t d = sata_identify_source_data_read();
			sata_identify_source_ready_write(1);
			w[2 * n] = d & 0xffff;
			w[2 * n + 1] = d >> 16;
			n++;
		}
	}
	/* word 255: signature 0xA5 in the low byte, checksum making all bytes sum to 0 */
	if ((w[255] & 0xff) == 0xa5) {
		uint8_t sum = 0;
		for (int i = 0; i < 256; i++)
			sum += (w[i] & 0xff) + (w[i] >> 8);
		if (sum != 0)
			return SATA_ERR_CHECKSUM;
	}
	copy_string(sata_id.serial, &w[10], 10);
	copy_string(sata_id.firmware, &w[23], 4);
	copy_string(sata_id.model, &w[27], 20);
	sata_id.lba48 = (w[83] >> 10) & 1;
	if (sata_id.lba48)
		sata_id.sectors = (uint64_t)w[100] | ((uint64_t)w[101] << 16) |
		                  ((uint64_t)w[102] << 32) | ((uint64_t)w[103] << 48);
	else
		sata_id.sectors = (uint64_t)w[60] | ((uint64_t)w[61] << 16);
	sata_id.ncq = (w[76] >> 8) & 1;
	sata_id.queue_depth = (w[75] & 0x1f) + 1;
	sata_id.gen1 = (w[76] >> 1) & 1;
	sata_id.gen2 = (w[76] >> 2) & 1;
	sata_id.gen3 = (w[76] >> 3) & 1;
	sata_id.rotation = w[217];
	sata_id_valid = 1;
	return SATA_OK;
}

/* IDENTIFY only reads: it goes out again (IDENTIFY_TRIES times in all) when its data cannot be
 * trusted, a bad CRC on its Data FIS or a failed checksum, so that a bit error on the line costs
 * a retry rather than an unusable drive. */
#define IDENTIFY_TRIES 3   /* sata_strerror(SATA_ERR_CHECKSUM) names the count */

int sata_identify(uint32_t timeout_us)
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

int sata_check_range(uint64_t lba, uint64_t count)
{
	if (!sata_id_valid)
		return SATA_ERR_NO_IDENTIFY;
	if (count == 0 || lba >= sata_id.sectors || count > sata_id.sectors - lba)
		return SATA_ERR_RANGE;
	return SATA_OK;
}

/* One command through the sector buffer (gateware/sata_buffer.py). */
static int buffer_command(uint64_t lba, uint32_t count, int write, uint32_t timeout_us)
{
	int err = sata_check_range(lba, count);
	if (err)
		return err;
	if (count > SATA_BUF_SECTORS)
		return SATA_ERR_RANGE;
	if (!sata_link_ready())
		return SATA_ERR_LINK_DOWN;
	uint32_t downs = sata_phy_link_downs_read();
	/* the buffer gives up on its own a little after our deadline (the reset value is 2 s) */
	sata_buffer_timeout_write(sata_timeout_ms ? (sata_timeout_ms + 1) * (CONFIG_CLOCK_FREQUENCY / 1000)
	                                          : 2 * CONFIG_CLOCK_FREQUENCY);
	sata_buffer_lba_write(lba);
	sata_buffer_count_write(count);
	sata_buffer_control_write((1u << CSR_SATA_BUFFER_CONTROL_START_OFFSET) |
	                          ((write ? 1u : 0u) << CSR_SATA_BUFFER_CONTROL_WRITE_OFFSET));
	uint64_t t0 = clock_us();
	uint32_t st;
	while (!((st = sata_buffer_status_read()) >> CSR_SATA_BUFFER_STATUS_DONE_OFFSET & 1)) {
		if (sata_phy_link_downs_read() != downs)
			return SATA_ERR_LINK_DOWN;
		if (clock_us() - t0 > timeout_us)
			return SATA_ERR_TIMEOUT;
	}
	if (sata_phy_link_downs_read() != downs)
		return SATA_ERR_LINK_DOWN;
	if (st >> CSR_SATA_BUFFER_STATUS_TIMEOUT_OFFSET & 1)
		return SATA_ERR_TIMEOUT;
	if (st >> CSR_SATA_BUFFER_STATUS_REFUSED_OFFSET & 1)
		return SATA_ERR_RANGE;
	if (st >> CSR_SATA_BUFFER_STATUS_FAILED_OFFSET & 1)
		return SATA_ERR_DEVICE;
	return SATA_OK;
}

int sata_read(uint64_t lba, uint32_t count, void *buf, uint32_t timeout_us)
{
	int err = buffer_command(lba, count, 0, timeout_us);
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
	return buffer_command(lba, count, 1, timeout_us);
}

#else

int sata_link_ready(void) { return 0; }
int sata_link_init(uint32_t timeout_us, uint32_t *t) { return SATA_ERR_NO_SATA; }
int sata_recover(void) { return SATA_ERR_NO_SATA; }
int sata_identify(uint32_t timeout_us) { return SATA_ERR_NO_SATA; }
int sata_read(uint64_t lba, uint32_t count, void *buf, uint32_t timeout_us) { return SATA_ERR_NO_SATA; }
int sata_write(uint64_t lba, uint32_t count, const void *buf, uint32_t timeout_us) { return SATA_ERR_NO_SATA; }
int sata_check_range(uint64_t lba, uint64_t count) { return SATA_ERR_NO_SATA; }

#endif

/* Device errors and link-level counts (gateware/sata_errors.py) ------------------------------- */

#ifdef CSR_SATA_ERRORS_BASE
static uint32_t mark_dev, mark_crc, mark_rejected, mark_retries;

void sata_errors_mark(void)
{
	mark_dev = sata_errors_dev_errors_read();
	mark_crc = sata_errors_fis_crc_errors_read();
	mark_rejected = sata_errors_fis_rejected_read();
	mark_retries = sata_errors_cmd_retries_read();
}

static const char *dec48(char *buf, uint64_t v)
{
	char *p = buf + 20;
	*p = 0;
	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	return p;
}

void sata_errors_report(void)
{
	static const struct { uint8_t bit; const char *name; } kinds[] = {
		{0x80, "ICRC: interface CRC error"}, {0x40, "UNC: uncorrectable data"},
		{0x10, "IDNF: address not found"}, {0x04, "ABRT: command aborted"},
	};
	uint32_t crc = sata_errors_fis_crc_errors_read() - mark_crc;
	uint32_t rejected = sata_errors_fis_rejected_read() - mark_rejected;
	uint32_t retries = sata_errors_cmd_retries_read() - mark_retries;
	if (sata_errors_dev_errors_read() != mark_dev) {
		unsigned status = sata_errors_dev_status_read(), error = sata_errors_dev_error_read();
		char buf[21];
		printf("  drive: status 0x%02x error 0x%02x (", status, error);
		const char *sep = "";
		for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (error & kinds[i].bit) {
				printf("%s%s", sep, kinds[i].name);
				sep = ", ";
			}
		printf("%s) at LBA %s\n", *sep ? "" : "no error bit", dec48(buf, sata_errors_dev_lba_read()));
	} else {
		printf("  drive: no error register reported (CRC error on data, or a short transfer)\n");
	}
	if (crc || rejected || retries)
		printf("  link: %u received FIS with a bad CRC, %u FIS refused by the drive (R_ERR), "
		       "%u command retries\n", (unsigned)crc, (unsigned)rejected, (unsigned)retries);
}
#else
void sata_errors_mark(void) { }
void sata_errors_report(void) { }
#endif
