/* SPDX-License-Identifier: BSD-2-Clause */
/* General Purpose Logging, device side: the logs READ LOG EXT (2Fh, PIO data-in) and READ LOG DMA
 * EXT (47h, DMA data-in) return, built from the drive's state when they are sent.
 *
 * Ref: ACS-3 / ACS-4 (READ LOG EXT: log address in LBA 7:0, page number in LBA 15:8 and 39:32,
 * Count = pages; the General Purpose Log Directory; the Device Statistics log and its pages),
 * SATA 3.x (the SATA Phy Event Counters log, its counter identifiers; Features bit 0 resets the
 * counters once they are read).
 *
 * Logs (pages):
 *   00h  General Purpose Log Directory (1): word 0 version 0001h, word N the pages of log N
 *   04h  Device Statistics (8): pages 00h list, 01h General, 05h Temperature, 07h Solid State
 *        (non-rotating media only); 02h-04h, 06h abort
 *   10h  NCQ Command Error (1), with ncq (ncq.c builds it; reading it ends the NCQ halt)
 *   11h  SATA Phy Event Counters (1), with phy_events
 * A log the drive lacks, a page beyond its end or one it does not support, or Count 0 abort the
 * command (ABRT) before any data. Device statistics: each value a qword, bits 63 supported and
 * 62 valid current value set (flags byte C0h), the value in the low bytes; page header: revision
 * 0001h in bytes 0-1, the page number in byte 2.
 *
 * Phy event counters: every count the drive keeps (lifetime statistics, fed by link.c, phy.c,
 * transport.c and command.c) minus its value at the last reset; power-on sets them to zero,
 * COMRESET and SRST keep them (SATA 3.x), a counter stops at its largest value.
 */
#include "internal.h"

#define LOG_DIR     0x00
#define LOG_DEVSTAT 0x04
#define LOG_NCQ     0x10
#define LOG_PHY     0x11
#define DEVSTAT_PAGES 8
#define FLAGS_SUPPORTED_VALID 0xC0u     /* bits 63 and 62 of a statistic's qword */

void vd_page_checksum(uint8_t *p)
{
    uint8_t sum = 0;
    for (int i = 0; i < 511; i++)
        sum = (uint8_t)(sum + p[i]);
    p[511] = (uint8_t)(0u - sum);
}

int vd_gpl_ok(const vdrive_t *vd)
{
    /* READ LOG EXT is a 48-bit command; NCQ has always had log 10h */
    return vd->cfg.device == VDRIVE_DEV_ATA && (vd->cfg.lba48 || vd->cfg.ncq);
}

int vd_phy_events_ok(const vdrive_t *vd)
{
    return vd->cfg.phy_events && vd_gpl_ok(vd);
}

static unsigned log_pages(const vdrive_t *vd, unsigned log)
{
    switch (log) {
    case LOG_DIR: return 1;
    case LOG_DEVSTAT: return DEVSTAT_PAGES;
    case LOG_NCQ: return vd->cfg.ncq ? 1 : 0;
    case LOG_PHY: return vd_phy_events_ok(vd) ? 1 : 0;
    default: return 0;
    }
}

static int devstat_page_ok(const vdrive_t *vd, unsigned page)
{
    return page == 0x00 || page == 0x01 || page == 0x05 || (page == 0x07 && vd->cfg.rpm <= 1);
}

int vd_gplog_check(const vdrive_t *vd, uint8_t log, uint16_t page, uint32_t count)
{
    unsigned n = log_pages(vd, log);
    if (!count || page >= n || count > n - page)
        return -1;
    if (log == LOG_DEVSTAT)
        for (unsigned p = page; p < page + count; p++)
            if (!devstat_page_ok(vd, p))
                return -1;
    return 0;
}

/* ---- 00h: directory ------------------------------------------------------------------------- */

static void log_directory(const vdrive_t *vd, uint8_t *b)
{
    b[0] = 0x01;                         /* version 0001h */
    for (unsigned log = 1; log < 256; log++) {
        unsigned n = log_pages(vd, log);
        b[2 * log] = (uint8_t)n;
        b[2 * log + 1] = (uint8_t)(n >> 8);
    }
}

/* ---- 04h: device statistics ----------------------------------------------------------------- */

/* A statistic of `bytes` bytes (negative: a signed byte) at offset off, saturated. */
static void put_stat(uint8_t *b, unsigned off, int bytes, int64_t v)
{
    uint64_t u;
    if (bytes < 0) {
        v = v < -128 ? -128 : v > 127 ? 127 : v;
        u = (uint8_t)(int8_t)v;
    } else {
        uint64_t max = bytes >= 7 ? (1ull << 56) - 1 : (1ull << (8 * bytes)) - 1;
        u = v < 0 ? 0 : (uint64_t)v > max ? max : (uint64_t)v;
    }
    for (int i = 0; i < 7; i++)
        b[off + i] = (uint8_t)(u >> (8 * i));
    b[off + 7] = FLAGS_SUPPORTED_VALID;
}

static void devstat_page(const vdrive_t *vd, unsigned page, uint8_t *b)
{
    vdrive_stats_t st = vd->st;
    vd_health_stats(vd, &st);
    b[0] = 0x01;                         /* revision 0001h */
    b[2] = (uint8_t)page;
    switch (page) {
    case 0x00: {
        static const uint8_t list[] = { 0x00, 0x01, 0x05, 0x07 };
        unsigned n = 0;
        for (unsigned i = 0; i < sizeof(list); i++)
            if (devstat_page_ok(vd, list[i]))
                b[9 + n++] = list[i];
        b[8] = (uint8_t)n;
        break;
    }
    case 0x01:                           /* General Statistics */
        put_stat(b, 0x08, 4, 1);         /* lifetime power-on resets: the drive's creation */
        put_stat(b, 0x10, 4, (int64_t)st.poweron_hours);
        put_stat(b, 0x18, 6, (int64_t)st.sectors_written);
        put_stat(b, 0x20, 6, (int64_t)st.write_cmds);
        put_stat(b, 0x28, 6, (int64_t)st.sectors_read);
        put_stat(b, 0x30, 6, (int64_t)st.read_cmds);
        break;
    case 0x05:                           /* Temperature Statistics */
        put_stat(b, 0x08, -1, (int64_t)st.temp_c);
        put_stat(b, 0x10, -1, (int64_t)st.temp_avg_c);
        put_stat(b, 0x20, -1, (int64_t)st.temp_max_c);
        put_stat(b, 0x28, -1, (int64_t)st.temp_min_c);
        put_stat(b, 0x50, 4, (int64_t)st.overtemp_minutes);
        put_stat(b, 0x58, -1, VD_TEMP_MAX_OP);
        break;
    case 0x07:                           /* Solid State Device Statistics */
        put_stat(b, 0x08, 1, (int64_t)st.endurance_used);
        break;
    default:
        break;
    }
}

/* ---- 11h: SATA Phy Event Counters ----------------------------------------------------------- */

/* Identifier and size in 16-bit words (the identifier word carries it in bits 14:12), in the
 * VD_PE_* order. */
static const struct { uint16_t id; uint8_t words; } pe_ids[VD_PE_COUNT] = {
    [VD_PE_ICRC] = { 0x001, 1 },              /* command failed, ICRC bit set in Error */
    [VD_PE_RERR_DATA] = { 0x002, 2 },         /* R_ERR response for a Data FIS */
    [VD_PE_RERR_D2H_DATA] = { 0x003, 2 },     /* ... device-to-host Data FIS */
    [VD_PE_RERR_H2D_DATA] = { 0x004, 2 },     /* ... host-to-device Data FIS */
    [VD_PE_RERR_NONDATA] = { 0x005, 2 },      /* R_ERR response for a non-Data FIS */
    [VD_PE_RERR_D2H_NONDATA] = { 0x006, 2 },  /* ... device-to-host non-Data FIS */
    [VD_PE_RERR_H2D_NONDATA] = { 0x007, 2 },  /* ... host-to-device non-Data FIS */
    [VD_PE_NONDATA_RETRIES] = { 0x008, 1 },   /* device-to-host non-Data FIS retries */
    [VD_PE_PHYRDY_LOST] = { 0x009, 1 },       /* transitions from PHYRDY to PHYRDYn */
    [VD_PE_SIG_COMRESET] = { 0x00A, 1 },      /* signature Register D2H FISes after COMRESET */
    [VD_PE_H2D_CRC] = { 0x00B, 2 },           /* CRC errors within a host-to-device FIS */
    [VD_PE_H2D_OTHER] = { 0x00D, 2 },         /* non-CRC errors within a host-to-device FIS */
    [VD_PE_RERR_H2D_DATA_CRC] = { 0x00F, 2 },       /* R_ERR for a H2D Data FIS: CRC */
    [VD_PE_RERR_H2D_DATA_OTHER] = { 0x010, 2 },     /* ... : not CRC */
    [VD_PE_RERR_H2D_NONDATA_CRC] = { 0x012, 2 },    /* R_ERR for a H2D non-Data FIS: CRC */
    [VD_PE_RERR_H2D_NONDATA_OTHER] = { 0x013, 2 },  /* ... : not CRC */
};

void vd_phy_events(const vdrive_t *vd, uint64_t v[VD_PE_COUNT])
{
    const vdrive_stats_t *s = &vd->st;
    v[VD_PE_ICRC] = s->cmd_icrc;
    v[VD_PE_RERR_D2H_DATA] = s->r_err_rx_data;
    v[VD_PE_RERR_H2D_DATA_CRC] = s->r_err_tx_data_crc;
    v[VD_PE_RERR_H2D_DATA_OTHER] = s->r_err_tx_data_other;
    v[VD_PE_RERR_H2D_DATA] = s->r_err_tx_data_crc + s->r_err_tx_data_other;
    v[VD_PE_RERR_DATA] = v[VD_PE_RERR_D2H_DATA] + v[VD_PE_RERR_H2D_DATA];
    v[VD_PE_RERR_D2H_NONDATA] = s->r_err_rx_nondata;
    v[VD_PE_RERR_H2D_NONDATA_CRC] = s->r_err_tx_nondata_crc;
    v[VD_PE_RERR_H2D_NONDATA_OTHER] = s->r_err_tx_nondata_other;
    v[VD_PE_RERR_H2D_NONDATA] = s->r_err_tx_nondata_crc + s->r_err_tx_nondata_other;
    v[VD_PE_RERR_NONDATA] = v[VD_PE_RERR_D2H_NONDATA] + v[VD_PE_RERR_H2D_NONDATA];
    v[VD_PE_NONDATA_RETRIES] = s->nondata_retries;
    v[VD_PE_PHYRDY_LOST] = s->phyrdy_lost;
    v[VD_PE_SIG_COMRESET] = s->sig_after_comreset;
    v[VD_PE_H2D_CRC] = s->rx_fis_crc_errors;
    v[VD_PE_H2D_OTHER] = s->rx_fis_other_errors;
}

/* Bytes 0-3 reserved, then identifier words each followed by its value, a zero identifier after
 * the last; Features bit 0: the counters start again from zero once read. */
static void phy_event_page(vdrive_t *vd, uint16_t feat, uint8_t *b)
{
    uint64_t v[VD_PE_COUNT];
    vd_phy_events(vd, v);
    unsigned off = 4;
    for (int i = 0; i < VD_PE_COUNT; i++) {
        unsigned words = pe_ids[i].words;
        uint64_t max = (1ull << (16 * words)) - 1;
        uint64_t n = v[i] - vd->pe_base[i];
        uint16_t id = (uint16_t)(pe_ids[i].id | words << 12);
        b[off] = (uint8_t)id;
        b[off + 1] = (uint8_t)(id >> 8);
        off += 2;
        if (n > max)
            n = max;
        for (unsigned k = 0; k < 2 * words; k++)
            b[off + k] = (uint8_t)(n >> (8 * k));
        off += 2 * words;
    }
    vd_page_checksum(b);
    if (feat & 1) {
        memcpy(vd->pe_base, v, sizeof(v));
        vd->st.phy_event_resets++;
    }
}

/* ---- pages out ------------------------------------------------------------------------------ */

/* count pages of log `log` from `page` (vd_gplog_check said yes) into buf, 512 bytes each. */
void vd_gplog_fill(vdrive_t *vd, uint8_t log, uint16_t page, uint32_t count, uint16_t feat,
                   uint8_t *buf)
{
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *b = buf + (size_t)i * 512;
        memset(b, 0, 512);
        switch (log) {
        case LOG_DIR:
            log_directory(vd, b);
            break;
        case LOG_DEVSTAT:
            devstat_page(vd, page + i, b);
            break;
        case LOG_NCQ:
            memcpy(b, vd_ncq_log(vd), 512);
            break;
        case LOG_PHY:
            phy_event_page(vd, feat, b);
            break;
        default:
            break;
        }
    }
}
