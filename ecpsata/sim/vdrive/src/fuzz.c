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
 * and, appended later with a small weight (1/8 of the fuzzed frames they fit, together):
 *   interim    before a Register D2H, a copy with status BSY (80h) or DRQ (58h), error 0, I=0
 *   pmreq      a PMREQ_P or PMREQ_S request once the link is idle (pm.c), the FIS itself intact
 *   no_resend  refused with R_ERR, the (non-data) FIS counts as taken and is not sent again
 *   setup      a DMA Setup with a non-zero buffer offset or a transfer count 4 bytes off
 *   long_data  a Data FIS padded with zero dwords to 2049 payload dwords (SATA allows 2048)
 * They are drawn from the low bits of the draw that decides whether to fuzz (unused before), so
 * the draws of a seed stay as they were up to the first frame that gets one of them.
 * A field change alters the copy on the wire, never the drive's state, and never touches a Data
 * FIS (a changed payload with a good CRC is out of any host's reach). Fuzz faults are not
 * repeated by fault_repeat. The last VD_FUZZ_LOG actions are kept for vdrive_fuzz_log().
 * fuzz_kinds leaves kinds out (cfg.fuzz_skip): a frame that draws one of them goes out intact,
 * not fuzzed, counted or logged, but every draw the kind would have made is still made (not
 * redrawn, no draw fewer), so the other kinds fall on the same frames as with every kind.
 */
#include "internal.h"

enum { FF_BSY, FF_DRQ, FF_ERR, FF_COUNT, FF_XCOUNT, FF_LBA, FF_I, FF_D, FF_TAG, FF_PMPORT,
       FF_OFFSET, FF_PARTIAL, FF_SLUMBER, FF_NONE };

#define KIND_NAME(k) #k,
static const char *const kind_name[] = { VD_FUZZ_KIND_NAMES(KIND_NAME) };
_Static_assert(sizeof(kind_name) / sizeof(kind_name[0]) == FZ_KINDS, "a name for every kind");
static const char *const field_name[FF_NONE] = {
    "bsy", "drq", "err", "count", "xfer_count", "lba", "i", "d", "tag", "pm_port",
    "offset", "partial", "slumber"
};
#define FZ_MORE_ONE_IN 8         /* the later kinds: 256 of the 2048 values of the spare bits */

int vd_fuzz_kind(const char *name, size_t len)
{
    for (int k = 0; k < FZ_KINDS; k++)
        if (!strncmp(kind_name[k], name, len) && !kind_name[k][len])
            return k;
    return -1;
}

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

/* The later kinds; field: what was done (FF_*), returns VF_* to add. Without apply (a kind left
 * out) the same draws are made and nothing is changed. */
static unsigned more_kind(vdrive_t *vd, struct vd_txframe *f, int kind, int *field, int apply)
{
    struct vd_faults *F = &vd->flt;
    switch (kind) {
    case FZ_INTERIM:
        *field = pick(vd, 2) ? FF_DRQ : FF_BSY;
        if (apply)
            F->interim_status = *field == FF_DRQ ? 0x58 : 0x80;
        return VF_INTERIM;
    case FZ_PMREQ:
        *field = pick(vd, 2) ? FF_SLUMBER : FF_PARTIAL;
        if (apply)
            F->pm_due = *field == FF_SLUMBER ? VDRIVE_PMREQ_SLUMBER : VDRIVE_PMREQ_PARTIAL;
        return 0;
    case FZ_NO_RESEND:
        if (apply)
            f->no_resend = 1;
        return 0;
    case FZ_SETUP:
        if (pick(vd, 2)) {
            *field = FF_OFFSET;
            uint32_t offset = 4 * (1 + pick(vd, 2048));      /* 4..8192 bytes */
            if (apply)
                f->dw[4] = offset;
        } else {
            *field = FF_XCOUNT;
            uint32_t delta = pick(vd, 2) ? 4u : (uint32_t)-4;
            if (apply)
                f->dw[5] += delta;
        }
        return 0;
    default:
        return VF_LONG_DATA;
    }
}

unsigned vd_fuzz_frame(vdrive_t *vd, struct vd_txframe *f, int n)
{
    struct vd_faults *F = &vd->flt;
    uint64_t draw = vd_rng_next(&F->rng);
    double u = (double)(draw >> 11) * 0x1p-53;
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
    uint8_t more[FZ_KINDS];
    uint32_t nm = 0;
    if (type == FIS_REG_D2H)
        more[nm++] = FZ_INTERIM;
    more[nm++] = FZ_PMREQ;
    if (!f->is_data)
        more[nm++] = FZ_NO_RESEND;
    if (type == FIS_DMA_SETUP)
        more[nm++] = FZ_SETUP;
    if (f->is_data && n - 1 <= VD_DATA_MAX_DW)
        more[nm++] = FZ_LONG_DATA;
    uint32_t spare = (uint32_t)(draw & 0x7FF);
    if (spare < 0x800 / FZ_MORE_ONE_IN)
        kind = more[spare % nm];
    /* a kind left out: its draws are made on copies, the frame goes out as it is */
    int apply = !(vd->cfg.fuzz_skip >> kind & 1);
    uint32_t scratch[8];
    unsigned r = 0;
    uint64_t *count[FZ_KINDS] = {
        &vd->st.fuzz_long, &vd->st.fuzz_short, &vd->st.fuzz_unknown, &vd->st.fuzz_stray,
        &vd->st.fuzz_extra, &vd->st.fuzz_field, &vd->st.fuzz_dup, &vd->st.fuzz_drop,
        &vd->st.fuzz_interim, &vd->st.fuzz_pmreq, &vd->st.fuzz_no_resend, &vd->st.fuzz_setup,
        &vd->st.fuzz_long_data
    };
    switch (kind) {
    case FZ_LONG:    r = VF_LONG; break;
    case FZ_SHORT:   r = VF_SHORT; break;
    case FZ_UNKNOWN: r = VF_UNKNOWN; break;
    case FZ_STRAY:   r = VF_STRAY; break;
    case FZ_EXTRA:   r = VF_EXTRA; break;
    case FZ_FIELD:
        if (!apply)
            memcpy(scratch, f->dw, sizeof(scratch));
        field = change_field(vd, apply ? f->dw : scratch);
        break;
    case FZ_DUP:     r = VF_DUP; break;
    case FZ_DROP:    f->drop = apply; break;
    default:         r = more_kind(vd, f, kind, &field, apply); break;
    }
    if (!apply)
        return 0;
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
