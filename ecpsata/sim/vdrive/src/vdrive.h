/* SPDX-License-Identifier: BSD-2-Clause */
/* vdrive: a virtual SATA drive at the SerDes word level.
 *
 * The host side calls vdrive_step() once per SerDes word clock with the host's raw TX word (two
 * 10-bit symbols, first symbol in bits [0:10], bit 0 of a symbol transmitted first) and gets the
 * device's raw word plus the rx_los level its receiver would see. Everything behind that (OOB,
 * speed negotiation, 8b10b, link, transport, commands, storage, personas, faults) lives here.
 *
 * C11, libc (+libm) only. Not thread-safe per instance; separate instances are independent.
 */
#ifndef VDRIVE_H
#define VDRIVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VDRIVE_GEN1 1
#define VDRIVE_GEN2 2

#define VDRIVE_STR 1024

enum vdrive_error_kind { VDRIVE_ERR_ABRT = 1, VDRIVE_ERR_UNC = 2, VDRIVE_ERR_IDNF = 3 };
/* What the signature names (SATA 3.x §11.3, ACS-3 device signatures). */
enum vdrive_device { VDRIVE_DEV_ATA = 0, VDRIVE_DEV_ATAPI, VDRIVE_DEV_PM, VDRIVE_DEV_SEMB };
/* Device-initiated interface power management requests (SATA 3.x link layer). */
enum vdrive_pmreq { VDRIVE_PMREQ_OFF = 0, VDRIVE_PMREQ_PARTIAL, VDRIVE_PMREQ_SLUMBER };

typedef struct vdrive_config {
    char     persona[16];
    uint64_t capacity;            /* sectors of 512 bytes */
    char     image[VDRIVE_STR];   /* "" = volatile (sparse in memory) */
    char     model[41], serial[21], firmware[9];
    int      max_gen;             /* 1, 2 or 3 (Gen3 is offered only: garbage to the host) */
    int      lba48, ncq;
    uint32_t ncq_depth;               /* queue depth advertised with ncq=1, 1..32 */
    uint32_t ncq_channels;            /* commands whose media time overlaps, 1..32 */
    /* persona */
    uint32_t read_mbps, write_mbps;   /* sustained payload rate, 10^6 B/s; 0 = line rate */
    uint32_t first_data_us;           /* read: command to first data */
    uint32_t cmd_us;                  /* fixed command overhead (non-data commands, status) */
    uint32_t write_cache_kb;          /* write cache size; accepted at line rate until full */
    int      write_cache;             /* initial write cache enable (SET FEATURES 0x02/0x82) */
    uint32_t rpm;                     /* 0 or 1 = non-rotating, else 1025..65534 */
    uint32_t seek_us, track_seek_us;  /* average / track-to-track seek (rotating only) */
    uint32_t read_cache_kb, readahead_kb;
    /* phy */
    uint32_t cominit_interval_us;     /* 0 = no spontaneous COMINIT */
    int      rx_polarity, tx_polarity;/* rx: drive->host inverted, tx: host->drive inverted */
    int      rx_slip, tx_slip;        /* bits, 0..19 */
    int      auto_polarity;           /* drive re-inverts its receiver on inverted ALIGN */
    int      cont;                    /* drive emits CONT for repeated primitives */
    int      signature;               /* send the ATA signature D2H FIS after link-up */
    int32_t  echo_ns;                 /* host TX activity shows on its rx_los N ns later; -1 = off */
    uint32_t align_dwell_us;          /* ALIGN kept up this long after the host's ALIGN */
    int32_t  ppm;                     /* drive's transmit clock against the host's, -5000..5000 */
    int      ssc;                     /* ... with down-spread SSC (0 to -5000 ppm, 31.5 kHz) */
    /* faults */
    uint64_t seed;
    double   ber_h2d, ber_d2h;
    uint32_t crc_error_fis, rerr_fis; /* 1-based FIS number, 0 = off */
    uint32_t bad_fis;                 /* 1-based D2H FIS whose content takes a bit error */
    int64_t  error_lba;               /* -1 = off */
    int      error_kind;              /* enum vdrive_error_kind */
    uint64_t drop_after_dwords;       /* 0 = off */
    uint32_t stop_after_cmds;         /* 0 = off */
    int64_t  corrupt_lba;             /* -1 = off */
    /* real-drive behaviours */
    uint32_t spinup_ms;               /* signature this long after the first link-up, 0..60000 */
    uint32_t spinup_us;               /* added to spinup_ms (a spin-up scaled down for a test) */
    int      busy_fis;                /* during spin-up: a Register D2H with BSY first */
    int      busy_ignores_cmd;        /* a command FIS during a command is ignored, not served */
    int      device;                  /* enum vdrive_device */
    uint32_t pio_blocks;              /* PIO data-in in 1, 2, 4 .. 128 DRQ blocks */
    uint32_t logical_sector;          /* 512 or 4096 bytes */
    uint32_t physical_sector;         /* 512 or 4096 bytes (IDENTIFY word 106 only) */
    int      trim;                    /* DATA SET MANAGEMENT / TRIM (needs lba48) */
    /* protocol faults: 1-based frame numbers, 0 = off */
    uint32_t escape_fis;              /* Nth D2H FIS aborted with a SYNC escape */
    uint32_t dmat_fis;                /* Nth host Data FIS terminated with DMAT */
    int      dmat_resume;             /* after DMAT: a DMA Activate for the rest, not ABRT */
    uint32_t long_fis, short_fis;     /* Nth D2H FIS 2 dwords longer / 1 dword shorter */
    uint32_t unknown_fis;             /* a reserved-type frame before the Nth D2H FIS */
    uint32_t stray_fis;               /* an unasked Register D2H once idle after the Nth */
    uint32_t extra_data;              /* Nth D2H Data FIS carries one dword more */
    uint32_t lose_sof;                /* the host's Nth SOF taken as a damaged dword: its frame
                                       * never reaches the drive */
    uint32_t fault_repeat;            /* a refused faulted frame is faulted again K times */
    double   fuzz;                    /* probability per D2H frame of a random intact fault */
    uint32_t fuzz_skip;               /* fuzz_kinds: the kinds left out, bit k for the k-th of
                                       * long short unknown stray extra field dup drop interim
                                       * pmreq no_resend setup long_data (bits 0..12); 0 = all */
    /* host-side rules: 0 / off by default */
    uint32_t pio_lost_data;           /* Nth PIO data-in command: its Data FIS "lost", ICRC|ABRT */
    int      pmreq;                   /* enum vdrive_pmreq: device-initiated PMREQ when idle */
    uint32_t pmreq_idle_us;           /* idle this long before PMREQ, 1..100000 */
    uint32_t pmreq_wait_us;           /* no PMACK / PMNAK / X_RDY this long: give up, 1..100000 */
    uint32_t interim_status;          /* status of a Register D2H before each non-queued command's
                                       * work (BSY or DRQ set), 0 = off */
    int      ignore_hold;             /* data dwords instead of HOLDA to the host's HOLD */
    uint32_t data_fis_dwords;         /* most payload dwords per read Data FIS, 1..16384 */
    uint32_t setup_offset;            /* DMA Setup buffer offset (bytes, multiple of 4) */
    int32_t  setup_count_delta;       /* added to the DMA Setup transfer count (multiple of 4) */
    int      no_resend;               /* a frame refused with R_ERR is dropped, not sent again */
    uint32_t rx_fifo;                 /* HOLD budget in dwords of the host's Data FIS, 0 = off */
    uint32_t rx_hold_every;           /* ... HOLD after this many payload dwords, 16..8192 */
    /* health: SMART, the General Purpose Logs, SANITIZE (smart.c, gplog.c, sanitize.c) */
    int      smart;                   /* SMART feature set (B0h); 0 = its commands abort */
    int      smart_bad_checksum;      /* SMART READ DATA page with a wrong checksum */
    int      smart_fail;              /* attribute 5 at or below its threshold (RETURN STATUS) */
    uint32_t temperature_c;           /* idle temperature, 0..100 degrees C */
    uint64_t health_time_scale;       /* health clocks (power-on hours, thermal model) run this
                                       * many times faster than drive time, 1..10^12 */
    int      phy_events;              /* SATA Phy Event Counters log (11h), IDENTIFY word 76 bit 10 */
    int      sanitize;                /* SANITIZE (B4h): CRYPTO SCRAMBLE, BLOCK ERASE, freeze locks */
    uint32_t sanitize_ms;             /* drive time one sanitize operation takes, 0..600000 */
    uint32_t sanitize_drop_ms;        /* once, halfway through a sanitize: the link dropped and
                                       * no OOB answered this long (drive time), 0 = off */
    /* flash model (flash.c; persona=flash) */
    int      flash;                   /* page-mapped flash behind the logical space, with GC */
    uint32_t spare_pct;               /* over-provisioned spare area, % of the capacity, 0..100 */
    char     stats_file[VDRIVE_STR];
    char     control[VDRIVE_STR];     /* file of run-time settings (fuzz), "" = none */
} vdrive_config_t;

typedef struct vdrive_stats {
    uint64_t words;
    uint64_t cmd_identify, cmd_read_dma, cmd_read_dma_ext, cmd_write_dma, cmd_write_dma_ext;
    uint64_t cmd_flush, cmd_set_features, cmd_other, cmd_errors;
    uint64_t bytes_read, bytes_written;          /* payload moved to / from the host */
    uint64_t fis_h2d, fis_d2h;
    uint64_t holds_sent, holds_received;         /* HOLD episodes */
    uint64_t crc_errors_rx;                      /* bad CRC on host FISes */
    uint64_t r_err_received;                     /* host answered R_ERR to a device FIS */
    uint64_t dec_errors, disp_errors;            /* 8b10b code / running disparity errors */
    uint64_t injected_bit_errors_h2d, injected_bit_errors_d2h;
    uint64_t injected_crc, injected_rerr, injected_dev_errors, injected_drops;
    uint64_t injected_stops, injected_corruptions;
    uint64_t link_ups;
    uint64_t comreset_detected, comwake_detected, cominit_sent, comwake_sent;
    uint64_t comreset_ignored;                   /* COMRESETs left unanswered (sanitize_drop_ms) */
    uint64_t speed_downs, polarity_flips, realigns;
    uint64_t cmd_fpdma_read, cmd_fpdma_write, cmd_read_log;
    uint64_t ncq_max_depth;                      /* most tags outstanding at once */
    uint64_t ncq_sdb, ncq_sdb_multi;             /* SDB completions; those with several tags */
    uint64_t ncq_errors, ncq_aborted;            /* NCQ errors; tags dropped by queue aborts */
    /* real-drive behaviours */
    uint64_t cmd_while_busy;                     /* command FISes ignored while BSY */
    uint64_t busy_fis_sent;                      /* Register D2H with BSY during spin-up */
    uint64_t spinup_ps;                          /* first link-up to the spin-up signature */
    uint64_t pio_setups;                         /* PIO Setup FISes sent */
    uint64_t cmd_nop, cmd_dsm, bytes_trimmed;    /* NOP, DATA SET MANAGEMENT, TRIM ranges */
    uint64_t flush_ps;                           /* drive time in FLUSH CACHE (EXT), total */
    uint64_t cache_bytes_max;                    /* most bytes held in the write cache */
    uint64_t dmat_sent, dmat_dwords_after;       /* DMAT episodes; payload after the first DMAT */
    /* protocol faults (every faulted transmission, repeats included) */
    uint64_t injected_escapes, injected_long_fis, injected_short_fis, injected_unknown_fis;
    uint64_t injected_stray_fis, injected_extra_data, fault_repeats;
    uint64_t injected_lost_sof;                  /* host frames lost with their SOF */
    uint64_t fuzz_applied, fuzz_long, fuzz_short, fuzz_unknown, fuzz_stray, fuzz_extra;
    uint64_t fuzz_field, fuzz_dup, fuzz_drop;
    /* host-side rules */
    uint64_t pio_lost_data;                      /* PIO data-in commands whose data was "lost" */
    uint64_t pmreq_sent;                         /* device PMREQ_P / PMREQ_S requests started */
    uint64_t pmnak_received, pmack_received;     /* ... answered PMNAK / PMACK */
    uint64_t pmreq_xrdy, pmreq_unanswered;       /* ... the host's X_RDY came instead; no answer */
    uint64_t interim_status_sent;                /* Register D2H FISes with the interim status */
    uint64_t dwords_sent_in_host_hold;           /* frame dwords sent while the host sent HOLD */
    uint64_t frames_not_resent;                  /* refused frames dropped (no_resend, fuzz) */
    uint64_t rx_hold_count;                      /* rx_fifo HOLDs sent into host Data FISes */
    uint64_t rx_hold_dwords_max;                 /* most dwords received from HOLD to HOLDA */
    uint64_t rx_hold_over_budget;                /* dwords beyond rx_fifo, summed over HOLDs */
    uint64_t fuzz_interim, fuzz_pmreq, fuzz_no_resend, fuzz_setup, fuzz_long_data;
    /* health commands and logs (README "Health: SMART, logs, SANITIZE") */
    uint64_t cmd_smart, cmd_sanitize;            /* SMART (B0h), SANITIZE (B4h) commands */
    uint64_t sanitize_blocked;                   /* commands aborted: a sanitize was running */
    /* what the SATA Phy Event Counters log reports (lifetime; the log counts from its last
     * reset, phy_event_resets) */
    uint64_t cmd_icrc;                           /* commands ended with ICRC in Error (0001h) */
    uint64_t r_err_rx_data, r_err_rx_nondata;    /* the host's R_ERR to a drive Data / non-Data
                                                  * FIS (0003h, 0006h) */
    uint64_t r_err_tx_data_crc, r_err_tx_data_other;         /* R_ERR sent to a host Data FIS:
                                                              * bad CRC / another reason */
    uint64_t r_err_tx_nondata_crc, r_err_tx_nondata_other;   /* ... to a host non-Data FIS */
    uint64_t nondata_retries;                    /* non-Data FISes sent again (0008h) */
    uint64_t phyrdy_lost;                        /* PHYRDY to PHYRDYn transitions (0009h) */
    uint64_t sig_after_comreset;                 /* signature FISes after a COMRESET (000Ah) */
    uint64_t rx_fis_crc_errors, rx_fis_other_errors;   /* host FISes with a bad CRC / a code
                                                        * error (000Bh, 000Dh); crc_errors_rx is
                                                        * their sum */
    uint64_t phy_event_resets;                   /* log 11h read with Features bit 0 */
    /* what the Device Statistics log and the SMART attributes report (health.c) */
    uint64_t read_cmds, write_cmds;              /* read / write commands ended without error */
    uint64_t sectors_read, sectors_written;      /* logical sectors moved (bytes / sector size) */
    uint64_t poweron_hours;                      /* drive time x health_time_scale, hours */
    uint64_t temp_c, temp_min_c, temp_max_c;     /* temperature now, lowest, highest (C) */
    uint64_t temp_avg_c;                         /* short-term average temperature (C) */
    uint64_t overtemp_minutes;                   /* health minutes above 70 C */
    uint64_t endurance_used;                     /* percentage used endurance indicator */
    uint64_t pending_sectors, reallocated_sectors;   /* SMART 197, 5 */
    /* flash model (flash.c): write amplification = nand / host pages */
    uint64_t flash_host_pages_written;           /* 4 KiB pages programmed with host data */
    uint64_t flash_nand_pages_written;           /* ... plus the garbage collector's copies */
    uint64_t flash_gc_runs;                      /* victim blocks reclaimed (copied, erased) */
    uint64_t flash_free_blocks;                  /* erased blocks in the pool, now */
    /* the host's answer times at the drive's link layer, summed (ps) and counted (answers.c) */
    uint64_t host_r_rdy_ps, host_r_rdy_n;        /* our X_RDY to the host's R_RDY */
    uint64_t host_r_rdy_coll_ps, host_r_rdy_coll_n;  /* ... of those, after a collision */
    uint64_t host_rok_data_ps, host_rok_data_n;  /* our EOF to its R_OK / R_ERR: a Data FIS, */
    uint64_t host_rok_d2h_ps, host_rok_d2h_n;    /* ... a Register D2H, */
    uint64_t host_rok_setup_ps, host_rok_setup_n;    /* ... a DMA Setup, */
    uint64_t host_rok_sdb_ps, host_rok_sdb_n;    /* ... a Set Device Bits, */
    uint64_t host_rok_other_ps, host_rok_other_n;    /* ... any other frame */
    uint64_t host_sof_ps, host_sof_n;            /* our R_RDY to its SOF */
    uint64_t host_sync_ps, host_sync_n;          /* our R_OK / R_ERR to its SYNC */
    uint64_t host_idle_ps, host_idle_n;          /* our SYNC after its R_OK / R_ERR to its SYNC */
    uint64_t xrdy_collisions;                    /* our X_RDY met by the host's X_RDY */
    uint64_t line_idle_dwords;                   /* dword times with nothing to send either way,
                                                  * a command outstanding */
    uint32_t gen;                                /* current device line rate, 0 = no link */
} vdrive_stats_t;

typedef struct vdrive vdrive_t;

/* Configuration. vdrive_config_parse() applies "key=value,..." over *cfg (persona first, then the
 * other keys in order). On error returns -1 and writes a message naming the key into err. */
void vdrive_config_defaults(vdrive_config_t *cfg);
int  vdrive_config_parse(vdrive_config_t *cfg, const char *str, char *err, size_t errlen);

/* Create / destroy. On failure create returns NULL, writes err (if given) and sets the message
 * returned by vdrive_last_error(). destroy flushes the image and writes stats_file if set. */
vdrive_t *vdrive_create(const vdrive_config_t *cfg, char *err, size_t errlen);
vdrive_t *vdrive_create_str(const char *str, char *err, size_t errlen);
const char *vdrive_last_error(void);
void vdrive_destroy(vdrive_t *vd);

/* One SerDes word clock. host_gen: 1 = Gen1 (13.333 ns/word), 2 = Gen2 (6.667 ns/word).
 * Returns the device's raw 20-bit word; *rx_los (if not NULL) gets the host receiver's LOS. */
uint32_t vdrive_step(vdrive_t *vd, uint32_t tx_word, int host_gen, int *rx_los);
/* The two halves of vdrive_step, for a drive whose transmit clock is not the host's (ppm, ssc):
 * vdrive_receive() once per host TX word clock, vdrive_transmit() once per drive word clock (at
 * the host's current rate, scaled by vdrive_clock_offset_ppm()). vdrive_step() is receive then
 * transmit. */
void     vdrive_receive(vdrive_t *vd, uint32_t tx_word, int host_gen);
uint32_t vdrive_transmit(vdrive_t *vd, int host_gen, int *rx_los);
/* The drive's word clock against the host's now, in ppm (ppm key plus the SSC triangle). */
double   vdrive_clock_offset_ppm(const vdrive_t *vd);
/* n steps at once (rx_los may be NULL). */
void vdrive_step_n(vdrive_t *vd, const uint32_t *tx, uint32_t *rx, uint8_t *rx_los, size_t n,
                   int host_gen);

/* The drive's highest supported rate, 1..3 (takes effect at the next speed negotiation). */
void vdrive_set_max_gen(vdrive_t *vd, int gen);
/* Model time in ps since creation (derived from the word count and rates). */
uint64_t vdrive_time_ps(const vdrive_t *vd);

void vdrive_get_stats(const vdrive_t *vd, vdrive_stats_t *st);
/* JSON object of the statistics; returns the length (as snprintf). */
int  vdrive_stats_json(const vdrive_t *vd, char *buf, size_t len);
/* That JSON to a file, with one key more: "fuzz_log", the lines of vdrive_fuzz_log() as an array
 * of strings. 0, or -1 if the file cannot be written. */
int  vdrive_write_stats(const vdrive_t *vd, const char *path);
int  vdrive_flush(vdrive_t *vd);
/* The fuzzer's probability per frame, changed at run time (0 stops it). The `control` key does the
 * same from a file: the drive reads it again whenever it changes (checked every VDRIVE_CONTROL_WORDS
 * host words), lines "fuzz=P". Returns 0, or -1 for a value outside 0..1 (nothing changed). */
int  vdrive_set_fuzz(vdrive_t *vd, double p);
#define VDRIVE_CONTROL_WORDS 8192
/* The last (up to 64) fuzz actions, oldest first, one line each:
 * "<frame> <FIS type, 2 hex digits> <kind>[ <detail>]\n" (frame: the D2H FIS number the fault keys
 * count). Returns the length of the whole text (as snprintf); buf may be NULL. */
int  vdrive_fuzz_log(const vdrive_t *vd, char *buf, size_t len);

/* Direct media access for tests and tools (no timing, no faults). 0 on success. */
int vdrive_read_sectors(vdrive_t *vd, uint64_t lba, uint32_t count, void *buf);
int vdrive_write_sectors(vdrive_t *vd, uint64_t lba, uint32_t count, const void *buf);

/* Known-answer helpers, exported for tests and host models. */
uint32_t vdrive_crc32(const uint32_t *dwords, size_t n);          /* SATA CRC over dwords */
uint32_t vdrive_scrambler(size_t index);                          /* index-th scrambler dword */
/* 8b10b: encode byte (k = control) with running disparity *rd (0 = -, 1 = +); returns 10 bits. */
uint32_t vdrive_8b10b_encode(uint8_t byte, int k, int *rd);
/* decode: returns byte | k << 8, or -1 (invalid code) / -2 (disparity error); updates *rd. */
int vdrive_8b10b_decode(uint32_t code, int *rd);

#ifdef __cplusplus
}
#endif
#endif
