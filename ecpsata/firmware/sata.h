/* SPDX-License-Identifier: BSD-2-Clause */
/* SATA driver of the firmware: link control, the drive's readiness and signature, IDENTIFY,
 * sector reads/writes and non-data commands through the sector buffer. Every call returns an
 * error code instead of waiting forever. */
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
	SATA_ERR_REFUSED = -8,    /* bad parameters, or the other engine was running: nothing sent */
	SATA_ERR_ABORTED = -9,    /* the benchmark run was aborted */
	SATA_ERR_NO_BENCH = -10,  /* gateware without the benchmark engine */
	SATA_ERR_NOT_READY = -11, /* the drive stayed busy (BSY) after reset past the limit */
	SATA_ERR_NOT_ATA = -12,   /* the signature is not an ATA device's: nothing sent */
	SATA_ERR_ID_ABORTED = -13,/* the drive aborted IDENTIFY (a device error, not retried) */
	SATA_ERR_SECTOR_SIZE = -14,/* logical sectors other than 512 bytes: nothing sent */
	SATA_ERR_NO_NODATA = -15, /* gateware whose sector buffer sends no non-data commands */
	SATA_ERR_NO_FLUSH = -16,  /* gateware whose engine cannot end a write with a flush */
	SATA_ERR_NO_CUSTOM = -17, /* gateware whose sector buffer sends only reads and writes */
};

struct sata_identity {
	char model[41], serial[21], firmware[9];
	uint64_t sectors;          /* user-addressable logical sectors */
	uint64_t sector_bytes;     /* logical sector: word 106 bit 12, words 117-118; else 512 */
	int lba48;                 /* word 83 bit 10 */
	int ncq, queue_depth;      /* word 76 bit 8, word 75 + 1 */
	int gen1, gen2, gen3;      /* word 76 bits 1..3 */
	int rotation;              /* word 217: 1 = non-rotating, else rpm */
	/* supported / enabled: volatile write cache (words 82 / 85 bit 5), read look-ahead (bit 6),
	 * DMA Setup auto-activate (words 78 / 79 bit 2), device-initiated power management (bit 3) */
	int write_cache, write_cache_on, look_ahead, look_ahead_on;
	int auto_activate, auto_activate_on, dipm, dipm_on;
	uint16_t words[256];
};

extern struct sata_identity sata_id;  /* valid when sata_id_valid */
extern int sata_id_valid;

/* Text of an error code; for the codes that carry figures (not ready, not ATA, IDENTIFY
 * aborted, sector size) the figures the drive gave when it happened. */
const char *sata_strerror(int err);
const char *sata_state_name(unsigned state);
/* Link up and the drive ready (its Register D2H with BSY clear since the link came up). */
int sata_link_ready(void);
/* COMRESET, wait up to timeout_us for the link, then for the drive to be ready (sata_wait_drive). */
int sata_link_init(uint32_t timeout_us, uint32_t *time_to_link_cycles);
/* With the link up, wait for the drive to be ready however long its spin-up takes, printing its
 * busy time about once a second; the gateware's limit (sata_errors_ready_timeout, the `spinup`
 * command) ends the wait with SATA_ERR_NOT_READY, a link drop with SATA_ERR_LINK_DOWN. */
int sata_wait_drive(void);
/* SATA_OK for an ATA device (or a gateware that does not tell); else SATA_ERR_NOT_ATA. */
int sata_check_ata(void);
/* The signature register: count | LBA low << 8 | mid << 16 | high << 24 of the drive's first
 * Register D2H FIS after the reset; 0 before it (or on a gateware without the error block). */
uint32_t sata_signature(void);
/* "ATA", "ATAPI", "port multiplier", "enclosure bridge (SEMB)"; NULL when unknown. */
const char *sata_signature_kind(uint32_t sig);
/* "01h/01h/14h/EBh" (count / LBA low / mid / high) into buf (24 bytes). */
const char *sata_signature_bytes(char *buf, uint32_t sig);
/* "ATAPI (01h/01h/14h/EBh)", "unknown (...)", or "none yet" for 0; buf of 64 bytes. */
const char *sata_signature_text(char *buf, uint32_t sig);
/* Readiness, signature, IDENTIFY (read again after a bit error), then DMA Setup auto-activate
 * enabled when the drive supports it and sata_autoact is set (IDENTIFY read again). */
int sata_identify(uint32_t timeout_us);
extern int sata_autoact;              /* console `autoact`; default 1 */
/* SATA_ERR_SECTOR_SIZE unless the drive's logical sectors are 512 bytes (IDENTIFY valid). */
int sata_check_sector_size(void);
/* Read/write count sectors at lba to/from buf (in main RAM), count <= SATA_BUF_SECTORS. */
int sata_read(uint64_t lba, uint32_t count, void *buf, uint32_t timeout_us);
int sata_write(uint64_t lba, uint32_t count, const void *buf, uint32_t timeout_us);
int sata_check_range(uint64_t lba, uint64_t count);
/* A non-data command (FLUSH CACHE EXT, SET FEATURES) through the sector buffer. A failure is
 * printed here ("NAME: error", and for a device error the drive's registers); after a timeout
 * the buffer has reset the core, and the caller decides on sata_recover(). */
int sata_nodata(uint8_t command, uint16_t features, uint16_t count, uint64_t lba, uint32_t timeout_us);
/* One command through the sector buffer, its fields as given (`control`: the buffer's control
 * bits beside start); SATA_OK or an error code. */
int sata_buffer_run(uint64_t lba, uint32_t count, uint32_t control, uint32_t timeout_us);
/* Any data-in command of count 512-byte blocks (count <= SATA_BUF_SECTORS) into buf: by PIO
 * (pio = 1: SMART READ DATA, READ LOG EXT) or DMA (READ LOG DMA EXT). With `tf`, the drive's
 * last Register D2H: status, error, LBA, count (sata_ata.c). SATA_ERR_NO_CUSTOM on a gateware
 * without the path. A failure is printed here, as sata_nodata does. */
struct sata_tf { uint8_t status, error; uint16_t count; uint64_t lba; };
int sata_ata_in(uint8_t command, uint16_t features, uint64_t lba, uint32_t count, int pio,
                void *buf, uint32_t timeout_us);
/* A non-data command whose answer is in the task file (SMART RETURN STATUS). */
int sata_ata_nodata_tf(uint8_t command, uint16_t features, uint64_t lba, uint16_t count,
                       struct sata_tf *tf, uint32_t timeout_us);
/* Switch the volatile write cache (SET FEATURES 02h/82h), then read IDENTIFY again. */
int sata_set_write_cache(int on);
/* Command timeout in ms for identify/read/write and for each command of a benchmark run; 0 = the
 * defaults (1 s for a console command, 2 s plus 10 MB/s worth of data for the engine). */
extern uint32_t sata_timeout_ms;
uint32_t sata_cmd_timeout_us(void);
/* FLUSH CACHE EXT through the sector buffer: the command timeout when set, else 30 s (a drive
 * may take seconds to write its cache to the medium). */
uint32_t sata_flush_timeout_us(void);
/* After a command timeout: a drive that stopped answering commands only recovers with a COMRESET
 * (as a host's error handler does). Restarts the link, waits for it and the drive, reads IDENTIFY
 * again, prints what happened; returns SATA_OK when the drive is back. */
int sata_recover(void);
/* sata_recover() after an error that leaves the drive's state unknown: a timeout, or a command
 * that failed for one of CMD_RESET_REASONS since the last sata_errors_mark(). */
void sata_recover_if_needed(int err);

/* sata_errors.c: the drive's state and the error block (ecpsata/frontend/errors.py); nothing is
 * printed on a gateware without it. */
/* Counters now, so that sata_errors_report shows what changed since. */
void sata_errors_mark(void);
/* The drive's registers of the last device error, the reason of the last failed command, the
 * SError bits and link-level counts that appeared since the mark. */
void sata_errors_report(void);
/* 1 when a command failed since the mark for a reason that leaves the drive's state unknown
 * (CMD_RESET_REASONS: it broke the protocol, refused the command FIS, sent no status): the
 * caller resets the link (sata_recover) before the next command. */
int sata_errors_need_reset(void);
/* Lines of `sata_status`: readiness, signature, last task-file status, SError, failures. */
void sata_errors_status(void);
/* "SError       0x00400000 { Handshk }"; clear: write the bits back (write 1 to clear). */
void sata_serror_print(int clear);
/* "status 0x51, error 0x04 (ABRT: command aborted)" into buf (96 bytes). */
const char *sata_device_error_text(char *buf, unsigned status, unsigned error);
/* n cycles as seconds with one decimal into buf (24 bytes). */
const char *sata_seconds_text(char *buf, uint64_t cycles);
/* Decimal text of v into buf (21 bytes); returns the start. */
const char *sata_dec(char *buf, uint64_t v);

#define SATA_SECTOR 512
#define SATA_BUF_SECTORS 16

#endif
