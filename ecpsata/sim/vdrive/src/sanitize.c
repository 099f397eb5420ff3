/* SPDX-License-Identifier: BSD-2-Clause */
/* Sanitize Device feature set (SANITIZE, B4h), device side.
 *
 * Ref: ACS-3 (SANITIZE STATUS EXT, CRYPTO SCRAMBLE EXT, BLOCK ERASE EXT, SANITIZE FREEZE LOCK
 * EXT, SANITIZE ANTIFREEZE LOCK EXT; their outputs and the commands a sanitize operation lets
 * through), IDENTIFY DEVICE word 59.
 *
 *   Features  command                    LBA 31:0 (47:32 = 0)
 *   0000h     SANITIZE STATUS EXT        -
 *   0011h     CRYPTO SCRAMBLE EXT        4372_7970h "Cryp"
 *   0012h     BLOCK ERASE EXT            426B_4572h "BkEr"
 *   0020h     SANITIZE FREEZE LOCK EXT   4672_4C6Bh "FrLk"
 *   0040h     SANITIZE ANTIFREEZE LOCK   416E_7469h "Anti"
 *   0014h     OVERWRITE EXT: not supported (word 59 bit 14 clear), aborts
 *
 * Every one is non-data and ends at once; an erase then runs in the background for sanitize_ms
 * of drive time. Normal output (Register D2H): LBA 15:0 the progress indicator (0000h..FFFEh while
 * running, the fraction done x 65536; FFFFh when no operation runs), Count bit 15 the last
 * operation completed without error, 14 an operation is in progress, 13 frozen, 12 antifreeze.
 * Error output (ABRT): LBA 7:0 the reason: 00h none (wrong key, an operation already running),
 * 02h unsupported Features value, 03h frozen, 04h antifreeze.
 *
 * The media is erased when the operation starts (the host cannot read it until the end anyway):
 * every sector reads as zeros afterwards, an image file's blocks are punched out and the volatile
 * store gives its memory back; both methods end in zeros. While it runs, commands other than
 * IDENTIFY DEVICE, READ LOG (DMA) EXT, SMART READ DATA / THRESHOLDS / RETURN STATUS and
 * SANITIZE STATUS EXT abort (0x51/0x04; the drive has no sense data reporting to say why). The
 * operation survives COMRESET and SRST, the freeze and antifreeze locks last until power-on.
 */
#include "internal.h"

#define F_STATUS     0x0000
#define F_CRYPTO     0x0011
#define F_BLOCK      0x0012
#define F_FREEZE     0x0020
#define F_ANTIFREEZE 0x0040
#define KEY_CRYPTO     0x43727970ull
#define KEY_BLOCK      0x426B4572ull
#define KEY_FREEZE     0x46724C6Bull
#define KEY_ANTIFREEZE 0x416E7469ull
#define OUT_DONE       (1u << 15)
#define OUT_RUNNING    (1u << 14)
#define OUT_FROZEN     (1u << 13)
#define OUT_ANTIFREEZE (1u << 12)
enum { WHY_NONE = 0, WHY_UNSUPPORTED = 2, WHY_FROZEN = 3, WHY_ANTIFREEZE = 4 };

int vd_sanitize_ok(const vdrive_t *vd)
{
    /* SANITIZE is a 48-bit command */
    return vd->cfg.sanitize && vd->cfg.lba48 && vd->cfg.device == VDRIVE_DEV_ATA;
}

static void update(vdrive_t *vd)
{
    struct vd_sanitize *s = &vd->san;
    if (s->running && vd->now >= s->t_end) {
        s->running = 0;
        s->done = 1;
    }
}

static void outputs(vdrive_t *vd, uint64_t *lba, uint16_t *count)
{
    const struct vd_sanitize *s = &vd->san;
    uint64_t progress = 0xFFFF;
    if (s->running) {
        progress = (vd->now - s->t0) * 65536 / (s->t_end - s->t0);
        if (progress > 0xFFFE)
            progress = 0xFFFE;
    }
    *lba = progress;
    *count = (uint16_t)((s->done ? OUT_DONE : 0) | (s->running ? OUT_RUNNING : 0) |
                        (s->frozen ? OUT_FROZEN : 0) | (s->antifreeze ? OUT_ANTIFREEZE : 0));
}

int vd_sanitize_blocks(vdrive_t *vd, uint8_t op, uint16_t feat)
{
    update(vd);
    if (!vd->san.running)
        return 0;
    switch (op) {
    case 0xEC: case 0x2F: case 0x47:    /* IDENTIFY DEVICE, READ LOG (DMA) EXT */
        return 0;
    case 0xB0:                           /* SMART READ DATA, THRESHOLDS, RETURN STATUS */
        if ((feat & 0xFF) == 0xD0 || (feat & 0xFF) == 0xD1 || (feat & 0xFF) == 0xDA)
            return 0;
        break;
    case 0xB4:
        if (feat == F_STATUS)
            return 0;
        break;
    default:
        break;
    }
    vd->st.sanitize_blocked++;
    return 1;
}

static void start(vdrive_t *vd)
{
    struct vd_sanitize *s = &vd->san;
    s->running = 1;
    s->done = 0;
    s->t0 = vd->now;
    s->t_end = vd->now + (uint64_t)vd->cfg.sanitize_ms * 1000 * VD_TICKS_PER_US;
    vd_store_erase(vd);
    vd_flash_erase(vd);                  /* flash: every block erased, the drive fresh again */
    vd_persona_forget(vd);               /* cached data and the read stream are gone too */
    vd->health.pending = 0;              /* the unreadable sector was erased */
    vd_fault_sanitize_start(vd, s->t0, s->t_end);   /* sanitize_drop_ms */
    update(vd);                          /* sanitize_ms=0: done at once */
}

int vd_sanitize_command(vdrive_t *vd, uint16_t feat, uint64_t lba, uint64_t *out_lba,
                        uint16_t *out_count)
{
    struct vd_sanitize *s = &vd->san;
    *out_lba = WHY_NONE;
    *out_count = 0;
    if (!vd_sanitize_ok(vd))
        return -1;
    update(vd);
    switch (feat) {
    case F_STATUS:
        break;
    case F_CRYPTO: case F_BLOCK:
        if (lba != (feat == F_CRYPTO ? KEY_CRYPTO : KEY_BLOCK) || s->running)
            return -1;
        if (s->frozen) {
            *out_lba = WHY_FROZEN;
            return -1;
        }
        start(vd);
        break;
    case F_FREEZE:
        if (lba != KEY_FREEZE)
            return -1;
        if (s->antifreeze) {
            *out_lba = WHY_ANTIFREEZE;
            return -1;
        }
        s->frozen = 1;
        break;
    case F_ANTIFREEZE:
        if (lba != KEY_ANTIFREEZE)
            return -1;
        if (s->frozen) {
            *out_lba = WHY_FROZEN;
            return -1;
        }
        s->antifreeze = 1;
        break;
    default:                             /* OVERWRITE EXT and reserved values */
        *out_lba = WHY_UNSUPPORTED;
        return -1;
    }
    outputs(vd, out_lba, out_count);
    return 0;
}
