/* SPDX-License-Identifier: BSD-2-Clause */
/* IDENTIFY DEVICE data (ACS-3 section 7.12.7), built from the configuration and the current
 * settings; rebuilt for every IDENTIFY DEVICE (word 77 is the speed of the link it goes over).
 * Only what the model does is claimed. */
#include "internal.h"

/* ATA strings: space padded, two characters per word, first character in the high byte. */
static void put_string(uint16_t *w, int words, const char *s)
{
    size_t len = strlen(s);
    for (int i = 0; i < words * 2; i++) {
        uint8_t c = (size_t)i < len ? (uint8_t)s[i] : ' ';
        if (i & 1)
            w[i / 2] = (uint16_t)(w[i / 2] | c);
        else
            w[i / 2] = (uint16_t)(c << 8);
    }
}

/* Modes claimed below: PIO 0-4 (3-4 with IORDY), multiword DMA 0-2, Ultra DMA 0-6. */
#define PIO_MAX   4
#define MWDMA_MAX 2
#define UDMA_MAX  6

/* SET FEATURES 03h, Count = transfer mode: bits 7:3 the type, 2:0 the mode number. PIO settings
 * are accepted and change nothing visible (word 51 is obsolete); a DMA setting selects one mode
 * in word 63 or 88 and deselects the other word's. */
int vd_identify_set_xfer(vdrive_t *vd, uint8_t mode)
{
    unsigned n = mode & 7;
    switch (mode >> 3) {
    case 0x00:                           /* PIO default; n = 1 disables IORDY: not offered */
        return n == 0 ? 0 : -1;
    case 0x01:                           /* PIO flow control mode n */
        return n <= PIO_MAX ? 0 : -1;
    case 0x04:                           /* multiword DMA mode n */
        if (n > MWDMA_MAX)
            return -1;
        break;
    case 0x08:                           /* Ultra DMA mode n */
        if (n > UDMA_MAX)
            return -1;
        break;
    default:                             /* single-word DMA (retired), reserved types */
        return -1;
    }
    vd->xfer_dma = mode;
    return 0;
}

/* Default CHS translation (ATA-6 rules; CHS is obsolete in ACS-3 but BIOSes and hdparm still
 * read it): 16383/16/63 from 16,514,064 sectors (8.4 GB) up; below that the geometry never covers
 * more than the capacity: 63 sectors per track, the fewest heads that keep the cylinders at or
 * under 1024 up to 528 MB (1,032,192 sectors), 16 heads above; a disk under one track gets one
 * cylinder of one head with as many sectors as it has. */
static void chs_geometry(uint64_t cap, unsigned *c, unsigned *h, unsigned *s)
{
    if (cap >= 16383ull * 16 * 63) {
        *c = 16383; *h = 16; *s = 63;
    } else if (cap < 63) {
        *c = 1; *h = 1; *s = (unsigned)cap;
    } else {
        unsigned heads = (unsigned)((cap + 1024 * 63 - 1) / (1024 * 63));
        *h = heads > 16 ? 16 : heads;
        *s = 63;
        *c = (unsigned)(cap / (*h * 63u));
    }
}

void vd_identify_build(vdrive_t *vd)
{
    uint16_t *w = vd->identify;
    const vdrive_config_t *c = &vd->cfg;
    uint64_t cap = vd->cap_img >> vd->lss;   /* logical sectors */
    uint32_t cap28 = cap > 0x0FFFFFFF ? 0x0FFFFFFF : (uint32_t)cap;
    int wc = vd->pers.write_cache;

    memset(w, 0, 512);
    w[0] = 0x0040;                       /* fixed device, ATA */
    unsigned cyl, heads, spt;
    chs_geometry(cap, &cyl, &heads, &spt);
    w[1] = (uint16_t)cyl; w[3] = (uint16_t)heads; w[6] = (uint16_t)spt;
    put_string(&w[10], 10, c->serial);
    put_string(&w[23], 4, c->firmware);
    put_string(&w[27], 20, c->model);
    /* READ/WRITE MULTIPLE and SET MULTIPLE MODE abort: no block size offered (bits 7:0 = 0) and
     * word 59 bit 8 clear (no valid current setting). */
    w[47] = 0x8000;
    /* Sanitize Device: bit 12 the feature set, 15 BLOCK ERASE EXT, 13 CRYPTO SCRAMBLE EXT, 10
     * SANITIZE ANTIFREEZE LOCK EXT (OVERWRITE EXT, bit 14, is not offered) */
    w[59] = (uint16_t)(vd_sanitize_ok(vd) ? (1u << 15 | 1u << 13 | 1u << 12 | 1u << 10) : 0);
    /* PIO 3/4 (word 64) need IORDY flow control: bit 11 set. Bit 10 (IORDY may be disabled)
     * clear, so SET FEATURES transfer mode 01h (PIO default, IORDY off) aborts. */
    w[49] = 1u << 11 | 1u << 9 | 1u << 8;   /* IORDY, LBA, DMA */
    w[50] = 0x4000;
    w[51] = 0x0200;                      /* legacy PIO timing mode 2 (modes 3/4 are in word 64) */
    w[53] = 0x0007;                      /* words 54-58, 64-70 and 88 valid */
    w[54] = w[1]; w[55] = w[3]; w[56] = w[6];   /* current CHS = default (no INITIALIZE DEVICE
                                                   PARAMETERS), 57-58 its capacity */
    uint32_t chs_cap = (uint32_t)cyl * heads * spt;
    w[57] = (uint16_t)(chs_cap & 0xFFFF);
    w[58] = (uint16_t)(chs_cap >> 16);
    w[60] = (uint16_t)(cap28 & 0xFFFF);
    w[61] = (uint16_t)(cap28 >> 16);
    unsigned dma_sel = 1u << (vd->xfer_dma & 7);
    w[63] = (uint16_t)((1u << (MWDMA_MAX + 1)) - 1);          /* multiword DMA 0-2 supported */
    if ((vd->xfer_dma >> 3) == 0x04)
        w[63] = (uint16_t)(w[63] | dma_sel << 8);
    w[64] = 0x0003;                      /* PIO 3-4 */
    w[65] = w[66] = 120;                 /* MWDMA 2 cycle time, ns */
    w[67] = w[68] = 120;                 /* PIO 4 cycle time without / with IORDY (67 >= 68) */
    /* TRIM: deterministic zeros after TRIM (bits 14, 5) */
    int trim = c->trim && c->lba48;
    w[69] = (uint16_t)(trim ? (1u << 14 | 1u << 5) : 0);
    w[75] = (uint16_t)(c->ncq ? c->ncq_depth - 1 : 0);   /* queue depth - 1 */
    /* Serial ATA capabilities. Bit 9 (host-initiated power management requests) stays 0: PMREQ
     * is always answered with PMNAK, the drive has no partial or slumber state. Bit 10 the Phy
     * Event Counters log, bit 15 READ LOG DMA EXT (with GPL). */
    int gpl = vd_gpl_ok(vd), smart = vd_smart_ok(vd);
    w[76] = (uint16_t)(1u << 1 | (c->max_gen >= 2 ? 1u << 2 : 0) | (c->max_gen >= 3 ? 1u << 3 : 0) |
                       (c->ncq ? 1u << 8 : 0) | (vd_phy_events_ok(vd) ? 1u << 10 : 0) |
                       (gpl ? 1u << 15 : 0));
    w[77] = (uint16_t)((vd->st.gen & 7) << 1);            /* current speed, 0 = link down */
    /* Serial ATA features supported: DMA Setup auto-activate (with NCQ), device-initiated power
     * management (done only with the pmreq key, whatever word 79 says), software settings
     * preservation; word 79: enabled */
    w[78] = (uint16_t)((c->ncq ? 1u << 2 : 0) | 1u << 3 | 1u << 6);
    w[79] = (uint16_t)((vd->sata_aa ? 1u << 2 : 0) | (vd->sata_dipm ? 1u << 3 : 0) |
                       (vd->sata_ssp ? 1u << 6 : 0));
    w[80] = 0x01F0;                      /* ATA/ATAPI-4 .. ACS-2 */
    /* NOP (always aborts, as ACS-3 says it does), write cache, look-ahead, SMART supported */
    w[82] = (uint16_t)(0x4000 | 1u << 5 | 1u << 6 | (smart ? 1u : 0));
    w[83] = (uint16_t)(0x4000 | 1u << 12 | (c->lba48 ? (1u << 10 | 1u << 13) : 0));
    /* GPL (READ LOG EXT / DMA EXT). Bits 1:0 stay 0: no SMART self-test, no SMART error log */
    w[84] = (uint16_t)(0x4000 | (gpl ? 1u << 5 : 0));
    w[85] = (uint16_t)(0x4000 | (vd->pers.look_ahead ? 1u << 6 : 0) | (wc ? 1u << 5 : 0) |
                       (smart && vd->smart_on ? 1u : 0));
    w[86] = (uint16_t)(1u << 12 | (c->lba48 ? (1u << 10 | 1u << 13) : 0));
    w[87] = (uint16_t)(0x4000 | (gpl ? 1u << 5 : 0));
    w[88] = (uint16_t)((1u << (UDMA_MAX + 1)) - 1);           /* Ultra DMA 0-6 supported */
    if ((vd->xfer_dma >> 3) == 0x08)
        w[88] = (uint16_t)(w[88] | dma_sel << 8);
    w[93] = 0;
    if (c->lba48) {
        w[100] = (uint16_t)(cap & 0xFFFF);
        w[101] = (uint16_t)(cap >> 16);
        w[102] = (uint16_t)(cap >> 32);
        w[103] = (uint16_t)(cap >> 48);
    }
    w[105] = (uint16_t)(trim ? 8 : 0);   /* DATA SET MANAGEMENT: 512-byte blocks per command */
    /* Sector sizes: bit 12 logical sector longer than 256 words (size in words 117-118); bit 13
     * several logical sectors per physical one, 2^(bits 3:0) of them (alignment in word 209) */
    if (c->logical_sector == 4096) {
        w[106] = 0x4000 | 1u << 12;
        w[117] = 2048;
        w[118] = 0;
    } else if (c->physical_sector == 4096) {
        w[106] = 0x4000 | 1u << 13 | 3;
        w[209] = 0x4000;                 /* LBA 0 at the start of a physical sector */
    } else {
        w[106] = 0x4000;
    }
    w[169] = (uint16_t)(trim ? 1 : 0);   /* DATA SET MANAGEMENT TRIM */
    w[217] = (uint16_t)(c->rpm > 1 ? c->rpm : 1);
    w[222] = 0x101F;                     /* serial transport, SATA 1.0a .. 2.6 */

    /* word 255: signature 0xA5, then the byte that makes all 512 bytes sum to zero */
    w[255] = 0x00A5;
    uint8_t sum = 0;
    for (int i = 0; i < 511; i++)
        sum = (uint8_t)(sum + ((i & 1) ? (w[i / 2] >> 8) : (w[i / 2] & 0xFF)));
    w[255] = (uint16_t)(w[255] | (uint8_t)(0u - sum) << 8);
}
