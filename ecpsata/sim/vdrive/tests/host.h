/* SPDX-License-Identifier: BSD-2-Clause */
/* A small SATA host at the SerDes word level, used by the C unit tests and the benchmark to drive
 * vdrive: OOB, speed negotiation, link layer (host side), Register/Data FISes, commands. */
#ifndef VDRIVE_TEST_HOST_H
#define VDRIVE_TEST_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "vdrive.h"

typedef struct host {
    vdrive_t *vd;
    int gen;                 /* host line rate, 1 or 2 */
    int rx_invert;           /* host receiver polarity */
    int tx_invert;
    uint64_t words;
    int los;                 /* last rx_los */
    /* transmitter */
    int tx_rd, tx_align_cnt;
    /* receiver */
    uint32_t rx_prev, rx_half;
    int aligned, off, phase, rd, half_k, half_err, err_score;
    uint64_t dec_errors;
    /* received dword stream (after ALIGN/CONT removal) */
    int rvalid;              /* a dword arrived in the last cycle */
    int rprim;               /* its primitive id (P_*), 0 = data */
    uint32_t rdata;
    int rx_cont;
    int level;               /* primitive level: last primitive (persists through CONT), 0 after data */
    int saw_align_n;
    uint64_t raw_non_align;  /* non-ALIGN dwords received (negotiation) */
    uint64_t bad_dwords;     /* dwords with a code error or a misplaced K (after lock) */
    uint64_t aligns_rx;      /* ALIGN dwords received */
    int skew;                /* extra D10.2 words before echoing ALIGN (dword phase tests) */
    /* options */
    int hold_every;          /* as receiver: send HOLD for 8 dwords every N data dwords (0 = never) */
    int use_cont;            /* host sends CONT for repeated primitives */
    uint32_t cont_last; int cont_rep, cont_on; uint32_t junk;
    /* results */
    int holds_seen;          /* device HOLD episodes */
    int r_err;               /* last frame answered R_ERR */
    uint32_t sig[5];         /* signature FIS received after link-up */
    int sig_n;
    uint64_t timeout_words;  /* per command (default 400M) */
    uint32_t *record;        /* if set, every TX word is stored here (bench replay) */
    size_t record_n, record_cap;
    /* what a correct host checks and does (tests of the drive's real-world and fault keys) */
    uint32_t sector_bytes;   /* logical sector size of the drive (0 = 512) */
    int strict;              /* R_ERR to a FIS of an unknown type or the wrong length */
    int ignore_dmat;         /* keep sending after DMAT (a host that does not honour it) */
    int rx_len;              /* last received frame: FIS dwords (without the CRC) */
    int rx_crc_good;         /* ... its CRC was right over everything received */
    int rx_refused;          /* ... the host answered R_ERR */
    uint64_t escapes;        /* frames the drive abandoned with SYNC */
    int escape_len;          /* ... dwords of the last one before its SYNC */
    int dmat_seen;           /* the last frame sent was cut short by the drive's DMAT */
    int sent_dwords;         /* FIS dwords of the last frame sent (without the CRC) */
    uint64_t linkup_ps;      /* drive time when the host sent its first SYNC after ALIGN */
    uint64_t xrdy_ps;        /* drive time when the last received frame's X_RDY arrived */
    int pio_setups;          /* PIO Setup FISes in the last command */
    int pio_mismatch;        /* PIO Data FISes whose length differs from the transfer count */
    size_t overrun;          /* data bytes beyond what the last command asked for */
    int protocol_errors;     /* non-queued: a FIS that has no place in the command */
    size_t rx_bytes;         /* data bytes the last command delivered */
    int refuse_frames;       /* answer R_ERR to this many frames to come, whatever they hold */
    /* the drive's PMREQ_P / PMREQ_S, its HOLD, its long frames */
    int pm_reply;            /* in place of SYNC while PMREQ arrives: HOST_PM_* */
    int pmreqs_seen;         /* PMREQ episodes received */
    uint32_t pmreq_dw;       /* ... the last one's primitive (PMREQ_P or PMREQ_S) */
    uint64_t hold_dwords;    /* dword times the drive's HOLD lasted while we sent frames */
    int holda_delay;         /* as transmitter: data dwords still sent after HOLD arrives */
    int accept_long;         /* take Data FISes beyond 2048 payload dwords (to check them) */
    int pm_once;             /* HOST_PM_NAK_ONCE: answered this episode */
    int interim_seen;        /* Register D2H FISes with BSY or DRQ in the last command */
    uint32_t d2h[5];         /* the Register D2H that ended the last command (outputs: LBA in
                              * dwords 1-2, Count in dword 3) */
    int answer_delay;        /* as receiver: dword times of SYNC before R_RDY and of R_IP before
                              * R_OK / R_ERR (a host slower to answer; 0 = at once) */
    int bad_crc_at;          /* the Nth frame the host sends from now (1 = the next) goes with
                              * its CRC inverted; 0 = none */
} host_t;

enum { HOST_PM_NONE, HOST_PM_NAK, HOST_PM_ACK, HOST_PM_NAK_ONCE };

void host_init(host_t *h, vdrive_t *vd, int gen);
/* One word; returns the raw rx word. */
uint32_t host_word(host_t *h, uint32_t tx);
/* One dword time. Sends dw (k = primitive) unless an ALIGN is due; returns 1 if dw was sent.
 * Afterwards h->rvalid / h->rprim / h->rdata describe what arrived. */
int host_cycle(host_t *h, uint32_t dw, int k);
/* OOB + speed negotiation; 0 on link up. */
int host_link_up(host_t *h, uint64_t max_words);
/* OOB only: send COMRESET (0) or COMWAKE (1). */
void host_send_oob(host_t *h, int wake);
/* Wait for a device OOB signal: returns 0 COMINIT, 1 COMWAKE, -1 timeout. */
int host_wait_oob(host_t *h, uint64_t max_words);

/* Link layer. send: 1 R_OK, 0 R_ERR, -1 timeout, -2 the drive sends X_RDY too (the host yields:
 * receive its FIS first). recv: payload dwords (without CRC) or -1. */
int host_send_fis(host_t *h, const uint32_t *fis, int n, uint64_t max_words);
int host_recv_fis(host_t *h, uint32_t *fis, int max, int *crc_ok, uint64_t max_words);

/* Commands. Return 0 when a final status arrived (status/error filled), -1 on timeout. */
int host_identify(host_t *h, uint16_t id[256], uint8_t *status, uint8_t *error);
int host_read(host_t *h, uint8_t op, uint64_t lba, uint32_t count, uint8_t *buf, uint8_t *status,
              uint8_t *error);
int host_write(host_t *h, uint8_t op, uint64_t lba, uint32_t count, const uint8_t *buf,
               uint8_t *status, uint8_t *error);
int host_nodata(host_t *h, uint8_t op, uint8_t features, uint8_t *status, uint8_t *error);
/* SET FEATURES (0xEF) with a Count register value (transfer mode for subcommand 0x03). */
int host_set_features(host_t *h, uint8_t features, uint8_t count, uint8_t *status, uint8_t *error);
void host_reg_h2d(uint32_t fis[5], uint8_t op, uint8_t features, uint64_t lba, uint32_t count);
/* READ LOG EXT (0x2F), one 512-byte page. */
int host_read_log(host_t *h, uint8_t log, uint8_t *buf, uint8_t *status, uint8_t *error);
/* Any non-queued command: 16-bit Features, LBA, Count; data-in into rbuf (rlen bytes), as PIO
 * DRQ blocks when pio, else Data FISes and a Register D2H (kept in h->d2h). */
int host_command(host_t *h, uint8_t op, uint16_t features, uint64_t lba, uint32_t count,
                 uint8_t *rbuf, size_t rlen, int pio, uint8_t *status, uint8_t *error);
/* DATA SET MANAGEMENT (0x06) with TRIM: blocks x 512 bytes of range entries. */
int host_trim(host_t *h, const uint8_t *entries, uint32_t blocks, uint8_t *status,
              uint8_t *error);
/* The length a FIS of this type has (Data: -1), 0 for a type SATA does not define. */
int host_fis_len(uint8_t type);

/* NCQ: READ / WRITE FPDMA QUEUED. */
typedef struct host_ncq_req {
    int write;
    uint64_t lba;
    uint32_t count;          /* sectors, 1..65536 */
    uint8_t *buf;            /* read: filled; write: the data (count * 512 bytes) */
    /* results */
    int tag;
    int state;               /* 0 not issued, 1 outstanding, 2 completed, 3 failed */
    size_t xfer;             /* bytes moved */
    uint64_t t_done_ps;      /* drive time at its SDB */
} host_ncq_req;

typedef struct host_ncq_stats {
    int sdb, sdb_multi, max_bits;          /* completion SDBs, those with several tags */
    int setups, auto_activate, activates;  /* DMA Setup FISes, with A set, DMA Activates */
    int err_sdb, err_d2h;                  /* SDB with ERR; Register D2H with ERR */
    uint8_t err_status, err_error;
    uint32_t err_bits;                     /* SActive of the error SDB */
    int protocol_errors;                   /* unknown tag, wrong direction, count or offset, stray
                                            * bits */
} host_ncq_stats;

/* Build the command FIS: tag in Count 7:3, sectors in Features 15:0. */
void host_fpdma_fis(uint32_t fis[5], int write, uint64_t lba, uint32_t count, int tag);
/* Send one FPDMA command and wait for the drive's Register D2H (status/error). 0, or -1. */
int host_ncq_issue(host_t *h, int write, uint64_t lba, uint32_t count, int tag, uint8_t *status,
                   uint8_t *error);
/* Issue r[0..n) keeping up to qd outstanding (lowest free tag), serve DMA Setup, DMA Activate,
 * Data and SDB FISes in whatever order the drive sends them. 0 when every request completed,
 * 1 when an error ended the queue (failed requests have state 3), -1 on timeout. */
int host_ncq_run(host_t *h, host_ncq_req *r, int n, int qd, host_ncq_stats *st);
/* n random reads of `sectors` (aligned, seeded) over the drive's capacity at queue depth qd; IOPS
 * in drive time from the qd-th completion to the (n - qd)-th, while the queue stays full. Returns
 * -1 if the run failed; *in_order (if not NULL) = completions came in issue order. */
double host_ncq_random_read(host_t *h, int qd, int n, uint32_t sectors, uint64_t seed,
                            int *in_order);

/* Test helpers: a drive from a configuration string (exits with the error if it is refused), one
 * linked to a fresh host at `gen` (strict: the host refuses frames of an unknown type or the
 * wrong length), its statistics, and seeded bytes. */
vdrive_t *test_drive(const char *cfg);
vdrive_t *test_linked(const char *cfg, host_t *h, int gen, int strict);
vdrive_stats_t test_stats(vdrive_t *vd);
void test_fill(uint8_t *b, size_t n, uint32_t seed);

#endif
