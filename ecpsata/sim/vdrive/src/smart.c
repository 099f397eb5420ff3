/* SPDX-License-Identifier: BSD-2-Clause */
/* SMART feature set (B0h), device side.
 *
 * Ref: ACS-3 section 7.48 (SMART, LBA mid/high 4Fh/C2h, RETURN STATUS), ATA8-ACS (the SMART data
 * structure: revision, 30 attribute entries of 12 bytes, the off-line and self-test fields,
 * checksum in byte 511); the attributes' meaning is the one drives and smartmontools share.
 *
 * Sub-commands (Features): D0h READ DATA and D1h READ ATTRIBUTE THRESHOLDS (PIO data-in, one
 * page), D8h ENABLE / D9h DISABLE OPERATIONS, DAh RETURN STATUS (non-data: LBA mid/high 4Fh/C2h,
 * or F4h/2Ch when an attribute is at or below its threshold). Everything else aborts (no off-line
 * collection, self-tests, SMART logs or autosave: the page and IDENTIFY word 84 say so), as does a
 * command without 4Fh/C2h in LBA mid/high, and any but ENABLE while SMART is disabled.
 *
 * Attributes (raw values from the drive's state, health.c; 48-bit little-endian raw field):
 *   5 Reallocated Sector Count   value 100 x (2048 - raw) / 2048, threshold 10 (smart_fail: 1900)
 *   9 Power-On Hours             raw hours of health time
 *  12 Power Cycle Count          raw 1 (the drive's creation)
 * 194 Temperature Celsius        value 100 - now, worst 100 - highest; raw bytes now, 0, lowest,
 *                                0, highest, 0
 * 197 Current Pending Sector     raw sectors a read found unreadable (error_lba, unc)
 * 199 UDMA CRC Error Count       raw host FISes received with a CRC or code error (crc_errors_rx)
 * 241 Total LBAs Written, 242 Total LBAs Read   raw logical sectors
 */
#include "internal.h"

#define SMART_LBA       0xC24F00u   /* LBA mid 4Fh, high C2h */
#define SMART_FAIL_LBA  0x2CF400u   /* LBA mid F4h, high 2Ch: a threshold is exceeded */
#define SMART_REVISION  0x0010
#define ENTRY_BYTES     12
#define ENTRIES         30

/* Attribute flags: bit 0 pre-failure, 1 on-line collection, 4 event count, 5 self-preserving. */
static const struct attr {
    uint8_t id;
    uint16_t flags;
    uint8_t threshold;
} attrs[] = {
    { 5, 0x0033, 10 }, { 9, 0x0032, 0 }, { 12, 0x0032, 0 }, { 194, 0x0022, 0 },
    { 197, 0x0032, 0 }, { 199, 0x0032, 0 }, { 241, 0x0032, 0 }, { 242, 0x0032, 0 },
};
#define NATTR (sizeof(attrs) / sizeof(attrs[0]))

struct attr_val {
    uint8_t value, worst;
    uint64_t raw;
};

int vd_smart_ok(const vdrive_t *vd)
{
    return vd->cfg.smart && vd->cfg.device == VDRIVE_DEV_ATA;
}

static uint8_t norm(int v)
{
    return (uint8_t)(v < 1 ? 1 : v > 253 ? 253 : v);
}

static void values(const vdrive_stats_t *st, struct attr_val v[NATTR])
{
    for (size_t i = 0; i < NATTR; i++) {
        v[i].value = v[i].worst = 100;
        switch (attrs[i].id) {
        case 5: {
            uint64_t r = st->reallocated_sectors;
            int left = r >= VD_SPARE_SECTORS ? 0 : (int)(VD_SPARE_SECTORS - r);
            v[i].value = v[i].worst = norm(100 * left / VD_SPARE_SECTORS);
            v[i].raw = r;
            break;
        }
        case 9: v[i].raw = st->poweron_hours; break;
        case 12: v[i].raw = 1; break;
        case 194:
            v[i].value = norm(100 - (int)st->temp_c);
            v[i].worst = norm(100 - (int)st->temp_max_c);
            v[i].raw = st->temp_c | st->temp_min_c << 16 | st->temp_max_c << 32;
            break;
        case 197: v[i].raw = st->pending_sectors; break;
        case 199: v[i].raw = st->crc_errors_rx; break;
        case 241: v[i].raw = st->sectors_written; break;
        case 242: v[i].raw = st->sectors_read; break;
        default: break;
        }
        v[i].raw &= 0xFFFFFFFFFFFFull;
    }
}

static void now_stats(const vdrive_t *vd, vdrive_stats_t *st)
{
    *st = vd->st;
    vd_health_stats(vd, st);
}

/* A pre-failure attribute at or below its (non-zero) threshold. */
static int failing(const vdrive_t *vd)
{
    vdrive_stats_t st;
    struct attr_val v[NATTR];
    now_stats(vd, &st);
    values(&st, v);
    for (size_t i = 0; i < NATTR; i++)
        if ((attrs[i].flags & 1) && attrs[i].threshold && v[i].value <= attrs[i].threshold)
            return 1;
    return 0;
}

int vd_smart_command(vdrive_t *vd, uint8_t feat, uint64_t lba, uint64_t *out_lba)
{
    *out_lba = 0;
    if (!vd_smart_ok(vd) || (lba & 0xFFFF00u) != SMART_LBA)
        return -1;
    if (!vd->smart_on && feat != 0xD8)
        return -1;
    switch (feat) {
    case 0xD0:
        return VD_SRC_SMART_DATA;
    case 0xD1:
        return VD_SRC_SMART_THRESH;
    case 0xD8: case 0xD9:
        vd->smart_on = feat == 0xD8;     /* kept through resets, as a drive keeps it */
        return 0;
    case 0xDA:
        *out_lba = failing(vd) ? SMART_FAIL_LBA : SMART_LBA;
        return 0;
    default:
        return -1;
    }
}

/* READ DATA (src VD_SRC_SMART_DATA) or READ ATTRIBUTE THRESHOLDS, built when they are sent. */
void vd_smart_page(vdrive_t *vd, int src, uint8_t *buf)
{
    vdrive_stats_t st;
    struct attr_val v[NATTR];
    now_stats(vd, &st);
    values(&st, v);
    memset(buf, 0, 512);
    buf[0] = (uint8_t)SMART_REVISION;
    buf[1] = (uint8_t)(SMART_REVISION >> 8);
    for (size_t i = 0; i < NATTR && i < ENTRIES; i++) {
        uint8_t *e = buf + 2 + i * ENTRY_BYTES;
        e[0] = attrs[i].id;
        if (src == VD_SRC_SMART_THRESH) {
            e[1] = attrs[i].threshold;
            continue;
        }
        e[1] = (uint8_t)attrs[i].flags;
        e[2] = (uint8_t)(attrs[i].flags >> 8);
        e[3] = v[i].value;
        e[4] = v[i].worst;
        for (int b = 0; b < 6; b++)
            e[5 + b] = (uint8_t)(v[i].raw >> (8 * b));
    }
    /* Bytes 362-374 stay 0: off-line collection never started and not supported (367 = 0),
     * no self-test run or supported, no SMART error logging (370 bit 0 = 0), no autosave. */
    vd_page_checksum(buf);
    if (src == VD_SRC_SMART_DATA && vd->cfg.smart_bad_checksum)
        buf[511] = (uint8_t)(buf[511] + 1);
}
