/* SPDX-License-Identifier: BSD-2-Clause */
/* Settings the host changes (SET FEATURES) and DATA SET MANAGEMENT / TRIM.
 *
 * SET FEATURES (ACS-3 §7.45): write cache 02h/82h, read look-ahead AAh/55h, transfer mode 03h
 * (mode in Count, identify.c), and the Serial ATA features 10h (enable) / 90h (disable) with Count
 * 02h DMA Setup FIS auto-activate (NCQ only), 03h device-initiated power management (a state in
 * IDENTIFY word 79 only: the drive never initiates power management) and 06h software settings
 * preservation (Serial ATA Revision 3.x). Anything else, or a mode IDENTIFY does not claim, aborts.
 *
 * Settings survive SRST; they survive COMRESET while software settings preservation is enabled
 * (the power-on state), else COMRESET brings back the power-on values.
 *
 * DATA SET MANAGEMENT (ACS-3) with the TRIM bit: 512-byte blocks of 8-byte range entries, LBA
 * in bits 47:0 and a length in bits 63:48 (0: unused entry). Trimmed sectors read back as zeros.
 * An entry beyond the capacity aborts the command before anything is trimmed.
 */
#include "internal.h"

int vd_set_features(vdrive_t *vd, uint8_t feat, uint8_t count)
{
    switch (feat) {
    case 0x02: case 0x82:
        vd->pers.write_cache = feat == 0x02;
        return 0;
    case 0xAA: case 0x55:
        vd->pers.look_ahead = feat == 0xAA;
        return 0;
    case 0x03:
        return vd_identify_set_xfer(vd, count);
    case 0x10: case 0x90: {
        int on = feat == 0x10;
        switch (count) {
        case 0x02:
            if (!vd->cfg.ncq)
                return -1;               /* word 78 bit 2 is claimed with NCQ only */
            vd->sata_aa = on;
            return 0;
        case 0x03:
            vd->sata_dipm = on;
            return 0;
        case 0x06:
            vd->sata_ssp = on;
            return 0;
        default:
            return -1;
        }
    }
    default:
        return -1;
    }
}

void vd_settings_power_on(vdrive_t *vd)
{
    vd->pers.write_cache = vd->cfg.write_cache;
    vd->pers.look_ahead = 1;
    vd->xfer_dma = 0x46;                 /* UDMA 6 */
    vd->sata_aa = 0;
    vd->sata_dipm = 0;
    vd->sata_ssp = 1;
}

void vd_settings_comreset(vdrive_t *vd)
{
    if (vd->sata_ssp)
        return;
    vd_settings_power_on(vd);
    vd->sata_ssp = 0;                    /* the host's choice stays until it changes it */
    vd_identify_build(vd);
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int vd_dsm_trim(vdrive_t *vd, const uint8_t *e, uint32_t bytes)
{
    uint64_t cap = vd->cap_img >> vd->lss;   /* logical sectors */
    for (uint32_t i = 0; i + 8 <= bytes; i += 8) {
        uint64_t v = le64(e + i), lba = v & 0xFFFFFFFFFFFFull, len = v >> 48;
        if (len && (lba >= cap || len > cap - lba))
            return -1;
    }
    for (uint32_t i = 0; i + 8 <= bytes; i += 8) {
        uint64_t v = le64(e + i), lba = v & 0xFFFFFFFFFFFFull, len = v >> 48;
        if (!len)
            continue;
        if (vd_store_trim(vd, lba << vd->lss, len << vd->lss))
            return -1;
        vd_flash_trim(vd, lba << vd->lss, len << vd->lss);   /* flash: the pages unmapped */
        vd->st.bytes_trimmed += (len << vd->lss) * 512;
    }
    return 0;
}
