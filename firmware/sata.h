/* SATA driver of the firmware: link control, IDENTIFY, sector reads/writes through the DMA
 * frontends. Every call returns an error code instead of waiting forever. */
#ifndef ECPSATA_SATA_H
#define ECPSATA_SATA_H

#include <stdint.h>

enum sata_err {
	SATA_OK = 0,
	SATA_ERR_NO_SATA = -1,    /* gateware without SATA */
	SATA_ERR_LINK_DOWN = -2,  /* no link (or it dropped during the command) */
	SATA_ERR_TIMEOUT = -3,    /* the drive did not finish in time */
	SATA_ERR_DEVICE = -4,     /* the drive reported an error */
	SATA_ERR_RANGE = -5,      /* LBA range outside the drive or the buffer */
	SATA_ERR_NO_IDENTIFY = -6,/* capacity unknown: run identify first */
	SATA_ERR_CHECKSUM = -7,   /* IDENTIFY data failed its integrity word */
	SATA_ERR_REFUSED = -8,    /* the benchmark engine refused the parameters: nothing sent */
	SATA_ERR_ABORTED = -9,    /* the benchmark run was aborted */
	SATA_ERR_NO_BENCH = -10,  /* gateware without the benchmark engine */
};

struct sata_identity {
	char model[41], serial[21], firmware[9];
	uint64_t sectors;          /* user-addressable sectors */
	int lba48;                 /* word 83 bit 10 */
	int ncq, queue_depth;      /* word 76 bit 8, word 75 + 1 */
	int gen1, gen2, gen3;      /* word 76 bits 1..3 */
	int rotation;              /* word 217: 1 = non-rotating, else rpm */
	uint16_t words[256];
};

extern struct sata_identity sata_id;  /* valid when sata_id_valid */
extern int sata_id_valid;

const char *sata_strerror(int err);
const char *sata_state_name(unsigned state);
int sata_link_ready(void);
int sata_link_init(uint32_t timeout_us, uint32_t *time_to_link_cycles);
int sata_identify(uint32_t timeout_us);
/* Read/write count sectors at lba to/from buf (in main RAM), count <= SATA_BUF_SECTORS. */
int sata_read(uint64_t lba, uint32_t count, void *buf, uint32_t timeout_us);
int sata_write(uint64_t lba, uint32_t count, const void *buf, uint32_t timeout_us);
int sata_check_range(uint64_t lba, uint64_t count);
/* Command timeout in ms for identify/read/write and for each command of a benchmark run; 0 = the
 * defaults (1 s for a console command, 2 s plus 10 MB/s worth of data for the engine). */
extern uint32_t sata_timeout_ms;
uint32_t sata_cmd_timeout_us(void);
/* After a command timeout: a drive that stopped answering commands only recovers with a COMRESET
 * (as a host's error handler does). Restarts the link, waits for it, reads IDENTIFY again, prints
 * what happened; returns SATA_OK when the drive is back. */
int sata_recover(void);
/* Device error registers and link-level error counts since the last mark (prints nothing on a
 * gateware without them). */
void sata_errors_mark(void);
void sata_errors_report(void);

#define SATA_SECTOR 512
#define SATA_BUF_SECTORS 16

#endif
