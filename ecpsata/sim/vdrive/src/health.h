/* SPDX-License-Identifier: BSD-2-Clause */
/* vdrive internals: the health state (SMART, the General Purpose Logs, SANITIZE) and the functions
 * of health.c, smart.c, gplog.c and sanitize.c. Included by internal.h before struct vdrive. */
#ifndef VDRIVE_HEALTH_H
#define VDRIVE_HEALTH_H

#include <stdint.h>

#include "vdrive.h"

/* Ranges of the health keys (config.c, vdrive.c; no suffix: they are printed in messages). */
#define VD_TEMPERATURE_MAX    100      /* temperature_c */
#define VD_SANITIZE_MS_MAX    600000   /* sanitize_ms: 10 minutes */
#define VD_HEALTH_SCALE_MAX   1000000000000ull   /* health_time_scale: 10^12 */

/* What fills the pages of a buffered data-in command (struct vd_cmd src). */
enum { VD_SRC_NONE, VD_SRC_IDENTIFY, VD_SRC_LOG, VD_SRC_SMART_DATA, VD_SRC_SMART_THRESH };
#define VD_LOG_PAGES_MAX 8      /* the longest log (Device Statistics, 04h) */

/* Health clocks and the thermal model (health.c): lazily advanced in fixed ticks of drive time,
 * so what they report does not depend on when they are looked at. */
struct vd_health {
    uint64_t tick;              /* thermal ticks done */
    uint64_t acc_bytes;         /* payload bytes moved during the tick in progress */
    double rise;                /* temperature above temperature_c, degrees C */
    double avg;                 /* short-term average temperature, degrees C */
    int t_min, t_max;           /* lowest / highest whole degrees seen */
    double over_s;              /* health seconds above the maximum operating temperature */
    uint32_t pending;           /* sectors a read found unreadable (SMART 197) */
};

/* Sanitize Device feature set state (sanitize.c); survives COMRESET and SRST. */
struct vd_sanitize {
    int running;                /* an operation is in progress */
    int done;                   /* the last operation completed without error */
    int frozen, antifreeze;     /* SANITIZE FREEZE LOCK / ANTIFREEZE LOCK (until power-on) */
    uint64_t t0, t_end;         /* the operation's start and end, ticks */
};

/* The SATA Phy Event Counters (gplog.c), in the order of log 11h. */
enum {
    VD_PE_ICRC, VD_PE_RERR_DATA, VD_PE_RERR_D2H_DATA, VD_PE_RERR_H2D_DATA, VD_PE_RERR_NONDATA,
    VD_PE_RERR_D2H_NONDATA, VD_PE_RERR_H2D_NONDATA, VD_PE_NONDATA_RETRIES, VD_PE_PHYRDY_LOST,
    VD_PE_SIG_COMRESET, VD_PE_H2D_CRC, VD_PE_H2D_OTHER, VD_PE_RERR_H2D_DATA_CRC,
    VD_PE_RERR_H2D_DATA_OTHER, VD_PE_RERR_H2D_NONDATA_CRC, VD_PE_RERR_H2D_NONDATA_OTHER,
    VD_PE_COUNT
};

/* health.c: power-on time, the thermal model, pending sectors, wear; the statistics they give */
#define VD_TEMP_MAX_OP 70       /* specified maximum operating temperature, C */
#define VD_SPARE_SECTORS 2048   /* spare sectors for reallocation (SMART 5's normalised value) */
#define VD_FAIL_REALLOCATED 1900   /* smart_fail: sectors reallocated, value 7 <= threshold 10 */
void vd_health_init(vdrive_t *vd);
void vd_health_bytes(vdrive_t *vd, uint64_t bytes);     /* payload moved to or from the host */
void vd_health_unc(vdrive_t *vd);                       /* a read failed with UNC */
void vd_health_cmd_done(vdrive_t *vd, uint8_t op);      /* a read or write ended without error */
void vd_health_stats(const vdrive_t *vd, vdrive_stats_t *st);   /* fill the derived fields */
/* smart.c: SMART (B0h). 0 = non-data, done (*out_lba: the Register D2H's LBA, 0 = its own);
 * VD_SRC_SMART_* = one page of PIO data-in; -1 = abort */
int  vd_smart_ok(const vdrive_t *vd);                   /* SMART supported (IDENTIFY word 82) */
int  vd_smart_command(vdrive_t *vd, uint8_t feat, uint64_t lba, uint64_t *out_lba);
void vd_smart_page(vdrive_t *vd, int src, uint8_t *buf);
/* gplog.c: READ LOG EXT / READ LOG DMA EXT and the SATA Phy Event Counters */
int  vd_gpl_ok(const vdrive_t *vd);                     /* GPL feature set (word 84 bit 5) */
int  vd_phy_events_ok(const vdrive_t *vd);              /* log 11h (word 76 bit 10) */
int  vd_gplog_check(const vdrive_t *vd, uint8_t log, uint16_t page, uint32_t count);  /* -1 abort */
void vd_gplog_fill(vdrive_t *vd, uint8_t log, uint16_t page, uint32_t count, uint16_t feat,
                   uint8_t *buf);
void vd_phy_events(const vdrive_t *vd, uint64_t v[VD_PE_COUNT]);   /* lifetime counts */
void vd_page_checksum(uint8_t *page);                   /* byte 511: the 512 bytes sum to 0 */
/* sanitize.c: SANITIZE (B4h) */
int  vd_sanitize_ok(const vdrive_t *vd);                /* IDENTIFY word 59 bit 12 */
int  vd_sanitize_blocks(vdrive_t *vd, uint8_t op, uint16_t feat);   /* 1 = abort it */
int  vd_sanitize_command(vdrive_t *vd, uint16_t feat, uint64_t lba, uint64_t *out_lba,
                         uint16_t *out_count);          /* 0 ok, -1 abort (*out_lba: reason) */
#endif
