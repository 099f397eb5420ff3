/* SPDX-License-Identifier: BSD-2-Clause */
/* fuzz=P: with probability P per FIS the drive queues (the frames the fault keys count), one
 * intact fault (good CRC) picked at random from a generator seeded by `seed`, separate from the
 * rotation and bit-error generator so that fuzzing leaves the rest of the model as it was:
 *   long     two zero dwords before the CRC
 *   short    the last dword left out (FISes of 2 dwords or more)
 *   unknown  a 2-dword frame of the reserved type D9h before it
 *   stray    a Register D2H (50h, I=1) once no command is outstanding
 *   extra    one zero payload dword more (Data FISes only)
 *   field    one field of a control FIS changed (below)
 *   dup      the FIS sent a second time once the host took it
 *   drop     the FIS never sent; the drive goes on as if the host had taken it
 * A field change alters the copy on the wire, never the drive's state, and never touches a Data
 * FIS (a changed payload with a good CRC is out of any host's reach). Fuzz faults are not
 * repeated by fault_repeat. The last VD_FUZZ_LOG actions are kept for vdrive_fuzz_log().
 */
#include "internal.h"

enum { FF_BSY, FF_DRQ, FF_ERR, FF_COUNT, FF_XCOUNT, FF_LBA, FF_I, FF_D, FF_TAG, FF_PMPORT,
       FF_NONE };

static const char *const kind_name[FZ_KINDS] = {
    "long", "short", "unknown", "stray", "extra", "field", "dup", "drop"
};
static const char *const field_name[FF_NONE] = {
    "bsy", "drq", "err", "count", "xfer_count", "lba", "i", "d", "tag", "pm_port"
};

void vd_fuzz_seed(vdrive_t *vd)
{
    vd_rng_seed(&vd->flt.rng, vd->cfg.seed ^ 0xF0221F0221F0221Full);
}

static uint32_t pick(vdrive_t *vd, uint32_t n)
{
    return (uint32_t)(vd_rng_next(&vd->flt.rng) % n);
}

/* A tag with no queued command outstanding, or -1. */
static int free_tag(vdrive_t *vd)
{
    uint32_t busy = vd->ncq.active;
    if (busy == 0xFFFFFFFFu)
        return -1;
    unsigned t = pick(vd, 32);
    while (busy >> t & 1)
        t = (t + 1) & 31;
    return (int)t;
}

/* Status bits BSY, DRQ, ERR (the SDB has no BSY or DRQ); Count; transfer count; LBA; I; D; an NCQ
 * tag not in flight (DMA Setup buffer identifier, an SDB SActive bit); the DMA Activate has no
 * other field than its port multiplier port. */
static int change_field(vdrive_t *vd, uint32_t *dw)
{
    static const uint8_t d2h[] = { FF_BSY, FF_DRQ, FF_ERR, FF_COUNT, FF_LBA, FF_I };
    static const uint8_t pio[] = { FF_BSY, FF_DRQ, FF_ERR, FF_COUNT, FF_XCOUNT, FF_LBA, FF_I, FF_D };
    static const uint8_t setup[] = { FF_XCOUNT, FF_I, FF_D, FF_TAG };
    static const uint8_t sdb[] = { FF_ERR, FF_I, FF_TAG };
    static const uint8_t act[] = { FF_PMPORT };
    const uint8_t *o;
    uint32_t n;
    uint8_t type = dw[0] & 0xFF;
    switch (type) {
    case FIS_REG_D2H:   o = d2h;   n = sizeof(d2h);   break;
    case FIS_PIO_SETUP: o = pio;   n = sizeof(pio);   break;
    case FIS_DMA_SETUP: o = setup; n = sizeof(setup); break;
    case FIS_SDB:       o = sdb;   n = sizeof(sdb);   break;
    case FIS_DMA_ACT:   o = act;   n = sizeof(act);   break;
    default:            return FF_NONE;
    }
    int f = o[pick(vd, n)], tag = 0;
    if (f == FF_TAG && (tag = free_tag(vd)) < 0)
        f = FF_I;                        /* every tag is in flight */
    switch (f) {
    case FF_BSY:    dw[0] ^= 0x80u << 16; break;
    case FF_DRQ:    dw[0] ^= 0x08u << 16; break;
    case FF_ERR:    dw[0] ^= 0x01u << 16; break;
    case FF_COUNT:  dw[3] ^= 0x01u; break;
    case FF_XCOUNT:
        if (type == FIS_DMA_SETUP)
            dw[5] ^= 0x200u;             /* one sector more or less */
        else
            dw[4] ^= 0x4u;               /* one dword more or less */
        break;
    case FF_LBA:    dw[1] ^= 0x01u; break;
    case FF_I:      dw[0] ^= 1u << 14; break;
    case FF_D:      dw[0] ^= 1u << 13; break;
    case FF_TAG:
        if (type == FIS_DMA_SETUP)
            dw[1] = (dw[1] & ~0x1Fu) | (uint32_t)tag;
        else
            dw[1] |= 1u << tag;
        break;
    default:        dw[0] ^= 0xFu << 8; break;   /* FF_PMPORT */
    }
    return f;
}

unsigned vd_fuzz_frame(vdrive_t *vd, struct vd_txframe *f, int n)
{
    struct vd_faults *F = &vd->flt;
    double u = (double)(vd_rng_next(&F->rng) >> 11) * 0x1p-53;
    if (!(u < vd->cfg.fuzz))
        return 0;
    uint8_t type = f->dw[0] & 0xFF;
    int control = type == FIS_REG_D2H || type == FIS_PIO_SETUP || type == FIS_DMA_SETUP ||
                  type == FIS_SDB || type == FIS_DMA_ACT;
    uint8_t kinds[FZ_KINDS];
    uint32_t nk = 0;
    kinds[nk++] = FZ_LONG;
    if (n >= 2)
        kinds[nk++] = FZ_SHORT;
    kinds[nk++] = FZ_UNKNOWN;
    kinds[nk++] = FZ_STRAY;
    if (f->is_data)
        kinds[nk++] = FZ_EXTRA;
    if (control)
        kinds[nk++] = FZ_FIELD;
    kinds[nk++] = FZ_DUP;
    kinds[nk++] = FZ_DROP;
    int kind = kinds[pick(vd, nk)], field = FF_NONE;
    unsigned r = 0;
    uint64_t *count[FZ_KINDS] = {
        &vd->st.fuzz_long, &vd->st.fuzz_short, &vd->st.fuzz_unknown, &vd->st.fuzz_stray,
        &vd->st.fuzz_extra, &vd->st.fuzz_field, &vd->st.fuzz_dup, &vd->st.fuzz_drop
    };
    switch (kind) {
    case FZ_LONG:    r = VF_LONG; break;
    case FZ_SHORT:   r = VF_SHORT; break;
    case FZ_UNKNOWN: r = VF_UNKNOWN; break;
    case FZ_STRAY:   r = VF_STRAY; break;
    case FZ_EXTRA:   r = VF_EXTRA; break;
    case FZ_FIELD:   field = change_field(vd, f->dw); break;
    case FZ_DUP:     r = VF_DUP; break;
    default:         f->drop = 1; break;
    }
    vd->st.fuzz_applied++;
    (*count[kind])++;
    struct vd_fuzz_entry *e = &F->log[F->log_n++ % VD_FUZZ_LOG];
    e->frame = vd->d2h_fis_n;
    e->type = type;
    e->kind = (uint8_t)kind;
    e->field = (uint8_t)field;
    return r;
}

int vdrive_fuzz_log(const vdrive_t *vd, char *buf, size_t len)
{
    const struct vd_faults *F = &vd->flt;
    uint32_t n = F->log_n < VD_FUZZ_LOG ? F->log_n : VD_FUZZ_LOG;
    size_t pos = 0;
    if (buf && len)
        buf[0] = 0;
    for (uint32_t i = F->log_n - n; i != F->log_n; i++) {
        const struct vd_fuzz_entry *e = &F->log[i % VD_FUZZ_LOG];
        int fld = e->field < FF_NONE;
        int r = snprintf(buf && pos < len ? buf + pos : NULL, buf && pos < len ? len - pos : 0,
                         "%u %02X %s%s%s\n", (unsigned)e->frame, e->type, kind_name[e->kind],
                         fld ? " " : "", fld ? field_name[e->field] : "");
        if (r < 0)
            return r;
        pos += (size_t)r;
    }
    return (int)pos;
}
