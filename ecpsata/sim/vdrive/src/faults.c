/* SPDX-License-Identifier: BSD-2-Clause */
/* Fault injection, reproducible from the seed.
 *
 * Line and media: bit errors on either line, device errors on an LBA, silent corruption of a
 * sector on read. The link drops (drop_after_dwords; sanitize_drop_ms, silent for a while) and
 * the hung drive (stop_after_cmds) are decided here too; link.c, phy.c and command.c only carry
 * them out.
 *
 * Every fault is decided in this file (fuzz.c picks the random ones). The layers call one hook at
 * each place a fault can act and do what it answers; a hook that runs per dword sits behind a
 * flag of struct vd_faults (tx_any, rx_any, rx_dmat, drop_armed) so the clean path stays cheap.
 *
 * Frames, through hooks in link.c. The frame keys count the FISes the drive queues, 1-based over
 * its life, retransmissions included and inserted frames (unknown, stray, duplicates) not. They
 * change what goes on the wire, never the drive's own state:
 *   crc_error_fis  one CRC bit inverted
 *   bad_fis        one content bit flipped after the CRC (a line error)
 *   long_fis       two zero dwords before the CRC, with a good CRC
 *   short_fis      the last dword left out, good CRC (a 1-dword FIS passes it to the next FIS)
 *   escape_fis     SOF, min(4, FIS length) dwords, then SYNC (link.c)
 *   extra_data     the Nth Data FIS (counted on Data FISes) carries one zero payload dword more
 *   unknown_fis    a 2-dword frame of the reserved type D9h goes before it
 *   stray_fis      a Register D2H (50h, I=1) once no command is outstanding after it
 * fault_repeat=K: when the host refuses a faulted frame (or the drive escaped it) and the drive
 * queues the same FIS again next, the same faults apply, K times at most; meanwhile the drive's
 * limit on resending a refused FIS is 3 + K. An inserted frame the host refuses is sent again
 * while repeats remain, else dropped. rerr_fis refuses the host's resends of the same FIS K times
 * more. dmat_fis counts the host's Data FISes (link.c sends the DMAT). lose_sof=N counts the
 * SOFs of the host's frames as the drive's receiver sees them, 1-based over its life: the Nth
 * is taken as a dword a bit error damaged, so its frame never reaches the drive (link.c).
 *
 * What a host must get right about intact frames (each off by default):
 *   pio_lost_data      the Nth PIO data-in command: PIO Setup, then no Data FIS, as if the line
 *                      had destroyed it; the command ends with ICRC|ABRT (command.c)
 *   interim_status     a Register D2H with BSY or DRQ set before each non-queued command's work
 *   setup_offset,      every DMA Setup with a non-zero buffer offset / a transfer count that is
 *   setup_count_delta  not the command's
 *   no_resend          a frame the host refuses with R_ERR is not sent again: taken as delivered
 *   ignore_hold        data dwords instead of HOLDA while the host sends HOLD into a Data FIS
 * The fuzzer adds an interim Register D2H before a status (inserted, like unknown), pads a Data
 * FIS beyond 2048 payload dwords, and asks for a PMREQ burst once the link is idle (pm.c).
 */
#include <math.h>

#include "internal.h"

void vd_rng_seed(struct vd_rng *r, uint64_t seed)
{
    r->s = seed ^ 0x9E3779B97F4A7C15ull;
}

uint64_t vd_rng_next(struct vd_rng *r)   /* splitmix64 */
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Bits until the next error: geometric with parameter ber. */
uint64_t vd_ber_skip(vdrive_t *vd, double ber)
{
    if (ber >= 1.0)
        return 0;
    double u = ((double)(vd_rng_next(&vd->rng) >> 11) + 1.0) / 9007199254740993.0;
    double n = floor(log(u) / log1p(-ber));
    return n > 1e18 ? (uint64_t)1e18 : (uint64_t)n;
}

uint32_t vd_ber_apply(vdrive_t *vd, uint32_t w, uint64_t *skip, double ber, uint64_t *count)
{
    if (*skip >= 20) {
        *skip -= 20;
        return w;
    }
    while (*skip < 20) {
        w ^= 1u << *skip;
        (*count)++;
        *skip += 1 + vd_ber_skip(vd, ber);
    }
    *skip -= 20;
    return w;
}

/* error_lba and corrupt_lba are the host's (logical) LBAs; lba / n here are image sectors. */
int vd_fault_dev_error(vdrive_t *vd, uint64_t lba, uint32_t n, uint8_t *status, uint8_t *error,
                       uint64_t *err_lba)
{
    int64_t e = vd->cfg.error_lba;
    if (e < 0)
        return 0;
    uint64_t ei = (uint64_t)e << vd->lss;
    if (ei < lba || ei >= lba + n)
        return 0;
    static const uint8_t codes[] = { 0, 0x04, 0x40, 0x10 };
    *status = 0x51;
    *error = codes[vd->cfg.error_kind & 3];
    *err_lba = ei;
    vd->st.injected_dev_errors++;
    return 1;
}

void vd_fault_corrupt(vdrive_t *vd, uint64_t lba, uint32_t n, uint8_t *buf)
{
    if (vd->cfg.corrupt_lba < 0)
        return;
    uint64_t c = (uint64_t)vd->cfg.corrupt_lba << vd->lss;
    if (c < lba || c >= lba + n)
        return;
    /* flip one bit at a seed-dependent place of the sector */
    uint64_t h = (vd->cfg.seed + 1) * 0x9E3779B97F4A7C15ull;
    unsigned byte = (unsigned)(h >> 32) % 512, bit = (unsigned)(h >> 20) % 8;
    buf[(c - lba) * 512 + byte] ^= (uint8_t)(1u << bit);
    vd->st.injected_corruptions++;
}

/* ---- frames ------------------------------------------------------------------------------- */

void vd_fault_init(vdrive_t *vd)
{
    const vdrive_config_t *c = &vd->cfg;
    struct vd_faults *F = &vd->flt;
    memset(F, 0, sizeof(*F));
    F->tx_any = c->crc_error_fis || c->bad_fis || c->long_fis || c->short_fis || c->escape_fis ||
                c->unknown_fis || c->stray_fis || c->extra_data || c->fuzz > 0;
    /* pio_lost_data, interim_status, setup_*, no_resend and ignore_hold act in their own hooks:
     * none of them needs the per-frame path */
    F->rx_any = c->rerr_fis || c->dmat_fis;
    F->drop_armed = c->drop_after_dwords != 0;
    F->silence_at = UINT64_MAX;
    vd_fuzz_seed(vd);
}

/* vdrive_set_fuzz / the control file: from a non-zero probability on, frames take the slow path */
void vd_fault_fuzz_set(vdrive_t *vd, double p)
{
    vd->cfg.fuzz = p;
    if (p > 0)
        vd->flt.tx_any = vd->pm.on = 1;
}

/* The link was reset: no frame in flight, nothing owed. */
void vd_fault_reset(vdrive_t *vd)
{
    struct vd_faults *F = &vd->flt;
    F->held = HOLD_NONE;
    F->stray_pending = 0;
    F->pm_due = 0;
    F->cur = 0;
    F->rep_armed = F->rep_active = 0;
    F->rx_left = 0;
    F->rx_dmat = 0;
}

/* ---- link drop and hung drive ------------------------------------------------------------------ */

/* drop_after_dwords counts payload dwords both ways; the link drops once, at the Nth. */
static int drop_count(vdrive_t *vd)
{
    if (++vd->flt.data_dwords < vd->cfg.drop_after_dwords)
        return 0;
    vd->flt.drop_armed = 0;
    vd->st.injected_drops++;
    return 1;
}

int vd_fault_drop_rx(vdrive_t *vd, uint32_t dw0)
{
    return (dw0 & 0xFF) == FIS_DATA && drop_count(vd);
}

int vd_fault_drop_tx(vdrive_t *vd, int is_data)
{
    return is_data && drop_count(vd);
}

/* sanitize_drop_ms: once per power-on, halfway through a sanitize operation that takes time, the
 * link drops and the drive stays silent (no COMINIT of its own, COMRESET unanswered) for
 * sanitize_drop_ms of drive time, as a drive busy erasing may; the operation goes on meanwhile.
 * The phy looks at silence_at every word and carries the drop out. */
void vd_fault_sanitize_start(vdrive_t *vd, uint64_t t0, uint64_t t_end)
{
    if (vd->cfg.sanitize_drop_ms && !vd->flt.silence_fired && t_end > t0)
        vd->flt.silence_at = t0 + (t_end - t0) / 2;
}

uint64_t vd_fault_silence(vdrive_t *vd)
{
    vd->flt.silence_at = UINT64_MAX;
    vd->flt.silence_fired = 1;
    vd->st.injected_drops++;
    return vd->now + (uint64_t)vd->cfg.sanitize_drop_ms * 1000 * VD_TICKS_PER_US;
}

/* stop_after_cmds: after N commands the drive ignores commands (link up) until COMRESET. */
int vd_fault_cmd_ignored(vdrive_t *vd)
{
    struct vd_faults *F = &vd->flt;
    if (F->stopped)
        return 1;
    F->cmds_seen++;
    if (vd->cfg.stop_after_cmds && !F->stop_fired && F->cmds_seen > vd->cfg.stop_after_cmds) {
        F->stopped = 1;
        F->stop_fired = 1;
        vd->st.injected_stops++;
        return 1;
    }
    return 0;
}

void vd_fault_comreset(vdrive_t *vd)
{
    vd->flt.stopped = 0;
}

/* ---- rules of the host side ----------------------------------------------------------------- */

/* pio_lost_data counts the PIO data-in commands the drive answers with data, from power-on. */
int vd_fault_pio_lost(vdrive_t *vd)
{
    return ++vd->flt.pio_cmds == vd->cfg.pio_lost_data;
}

uint8_t vd_fault_interim(const vdrive_t *vd)
{
    return (uint8_t)vd->cfg.interim_status;
}

/* DMA Setup (SATA 3.x §10.3.8): dword 4 the DMA Buffer Offset, dword 5 the DMA Transfer Count. A
 * host that has not enabled non-zero offsets (SET FEATURES 10h, Count 01h) must not see one; a
 * count that is not the command's is the drive's error. The data sent stays the command's. */
void vd_fault_dma_setup(vdrive_t *vd, uint32_t *fis)
{
    fis[4] = vd->cfg.setup_offset;
    fis[5] += (uint32_t)vd->cfg.setup_count_delta;     /* modulo 2^32 */
}

/* R_ERR to the frame in flight. no_resend (or the fuzzer) takes it as delivered: a refused status
 * is then never sent again. A Data FIS is never resent anyway (its command fails): not counted. */
int vd_fault_no_resend(vdrive_t *vd)
{
    const struct vd_txframe *f = &vd->txf;
    if (f->is_data || !(vd->cfg.no_resend || f->no_resend))
        return 0;
    vd->st.frames_not_resent++;
    return 1;
}

int vd_fault_ignore_hold(const vdrive_t *vd)
{
    return vd->cfg.ignore_hold && vd->txf.is_data;
}

int vd_fault_retry_limit(const vdrive_t *vd)
{
    return 3 + (vd->flt.rep_active ? (int)vd->cfg.fault_repeat : 0);
}

/* A FIS is told apart by its length and first 7 dwords (the whole of every control FIS). */
static void remember(uint32_t *sig, int *sn, const uint32_t *dw, int n)
{
    *sn = n;
    memcpy(sig, dw, (size_t)(n < 7 ? n : 7) * 4);
}

static int same(const uint32_t *sig, int sn, const uint32_t *dw, int n)
{
    return sn == n && !memcmp(sig, dw, (size_t)(n < 7 ? n : 7) * 4);
}

static void frame_copy(struct vd_txframe *d, const struct vd_txframe *s)
{
    memcpy(d->dw, s->dw, (size_t)s->n * 4);
    d->n = s->n;
    d->idx = s->idx;
    d->end = s->end;
    d->pending = s->pending;
    d->paced = s->paced;
    d->is_data = s->is_data;
    d->owner = s->owner;
    d->drop = s->drop;
    d->no_resend = s->no_resend;
}

static void count_inserted(vdrive_t *vd)
{
    if (!vd->flt.ins_key)
        return;
    if (vd->flt.ins_kind == VF_UNKNOWN)
        vd->st.injected_unknown_fis++;
    else if (vd->flt.ins_kind == VF_STRAY)
        vd->st.injected_stray_fis++;
}

/* A frame of the drive's own making goes out now (txf is free or held). */
static void insert(vdrive_t *vd, const uint32_t *fis, int n, int kind, int key)
{
    struct vd_txframe *f = &vd->txf;
    memcpy(f->dw, fis, (size_t)n * 4);
    f->is_data = f->paced = f->drop = f->no_resend = 0;
    f->owner = VD_OWN_FAULT;
    vd_link_seal(f, n);
    vd_link_arm(f, f->n);
    vd->flt.ins_kind = kind;
    vd->flt.ins_key = key;
    vd->flt.ins_left = key ? vd->cfg.fault_repeat : 0;
    vd->st.fis_d2h++;
    count_inserted(vd);
}

void vd_fault_tx(vdrive_t *vd, struct vd_txframe *f, int n)
{
    const vdrive_config_t *c = &vd->cfg;
    struct vd_faults *F = &vd->flt;
    uint32_t num = vd->d2h_fis_n;
    unsigned k = 0, rep = 0;
    if (f->is_data)
        F->data_n++;
    if (F->rep_armed) {                  /* the refused faulted FIS again? */
        F->rep_armed = 0;
        if (F->rep_left && same(F->rep_sig, F->rep_n, f->dw, n)) {
            rep = F->rep_kind;
            F->rep_left--;
            vd->st.fault_repeats++;
        }
    }
    if (c->crc_error_fis == num) k |= VF_CRC;
    if (c->bad_fis == num) k |= VF_BAD;
    if (c->long_fis == num) k |= VF_LONG;
    if (c->short_fis == num) F->short_carry = 1;
    if (F->short_carry && n >= 2) {
        k |= VF_SHORT;
        F->short_carry = 0;
    }
    if (c->escape_fis == num) k |= VF_ESCAPE;
    if (c->unknown_fis == num) k |= VF_UNKNOWN;
    if (c->stray_fis == num) k |= VF_STRAY;
    if (f->is_data && c->extra_data == F->data_n) k |= VF_EXTRA;
    if (!rep && (k & VF_REPEATABLE)) {   /* a new fault to repeat */
        remember(F->rep_sig, &F->rep_n, f->dw, n);
        F->rep_kind = k & VF_REPEATABLE;
        F->rep_left = c->fault_repeat;
        F->rep_active = 1;
    }
    k |= rep;
    F->cur = k & VF_REPEATABLE;
    vd->st.injected_crc += !!(k & VF_CRC) + !!(k & VF_BAD);
    vd->st.injected_long_fis += !!(k & VF_LONG);
    vd->st.injected_short_fis += !!(k & VF_SHORT);
    vd->st.injected_escapes += !!(k & VF_ESCAPE);
    vd->st.injected_extra_data += !!(k & VF_EXTRA);
    unsigned all = k | (c->fuzz > 0 ? vd_fuzz_frame(vd, f, n) : 0);
    /* fuzz interim: a copy of this Register D2H with BSY or DRQ set goes first */
    uint32_t im[5];
    if (all & VF_INTERIM) {
        memcpy(im, f->dw, sizeof(im));
        im[0] = FIS_REG_D2H | (uint32_t)F->interim_status << 16;   /* error 0, I=0 */
    }

    /* the frame on the wire: zero dwords added before the CRC, or the last dword left out */
    while ((all & VF_LONG_DATA) && n < 2 + VD_DATA_MAX_DW)
        f->dw[n++] = 0;                  /* 2049 payload dwords: one beyond the limit */
    if (all & VF_EXTRA)
        f->dw[n++] = 0;
    if (all & VF_LONG) {
        f->dw[n++] = 0;
        f->dw[n++] = 0;
    }
    if ((all & VF_SHORT) && n >= 2)
        n--;
    vd_link_seal(f, n);
    if (all & VF_CRC)
        f->dw[n] ^= 0x00000100u;
    /* a bit error in the content on the line: after the CRC, so the host sees it fail */
    if (all & VF_BAD)
        f->dw[n > 1 ? 1 : 0] ^= 0x00010000u;
    vd_link_arm(f, (all & VF_ESCAPE) ? (n < 4 ? n : 4) : f->n);

    /* frames around it */
    if ((all & VF_STRAY) && !F->stray_pending)
        F->stray_pending = (k & VF_STRAY) ? 1 : 2;
    if (all & VF_UNKNOWN) {
        frame_copy(&F->hold, f);
        F->held = HOLD_BEHIND;
        uint32_t u[2] = { FIS_RESERVED, 0 };
        insert(vd, u, 2, VF_UNKNOWN, !!(k & VF_UNKNOWN));
    } else if (all & VF_INTERIM) {
        frame_copy(&F->hold, f);
        F->held = HOLD_BEHIND;
        insert(vd, im, 5, VF_INTERIM, 0);
    } else if (all & VF_DUP) {
        frame_copy(&F->hold, f);
        F->hold.owner = VD_OWN_FAULT;
        F->hold.paced = 0;
        F->held = HOLD_DUP;
    }
}

int vd_fault_tx_done(vdrive_t *vd, int ok)
{
    struct vd_faults *F = &vd->flt;
    struct vd_txframe *f = &vd->txf;
    if (f->owner != VD_OWN_FAULT) {
        if (F->cur && ok != 1 && F->rep_left)
            F->rep_armed = 1;
        if (ok == 1)
            F->rep_active = 0;
        F->cur = 0;
        return 0;
    }
    if (ok != 1 && F->ins_left) {        /* refused: the same frame again */
        F->ins_left--;
        vd->st.fault_repeats++;
        vd->st.fis_d2h++;
        count_inserted(vd);
        f->idx = 0;
        f->pending = 1;
        return 1;
    }
    if (F->held == HOLD_BEHIND) {        /* the FIS it went in front of */
        frame_copy(f, &F->hold);
        F->held = HOLD_NONE;
    }
    return 1;
}

void vd_fault_after(vdrive_t *vd, int ok)
{
    struct vd_faults *F = &vd->flt;
    if (F->held != HOLD_DUP)
        return;
    F->held = HOLD_NONE;
    if (ok == 1 && !vd->txf.pending) {   /* taken: here it is once more */
        frame_copy(&vd->txf, &F->hold);
        F->ins_kind = 0;
        F->ins_key = 0;
        F->ins_left = 0;
        vd->st.fis_d2h++;
    }
}

int vd_fault_stray_due(const vdrive_t *vd, int busy)
{
    return vd->flt.stray_pending && !busy;
}

void vd_fault_send_stray(vdrive_t *vd)
{
    int key = vd->flt.stray_pending == 1;
    uint32_t f[5] = { FIS_REG_D2H | 1u << 14 | 0x50u << 16, 0x40000000u, 0, 0, 0 };
    vd->flt.stray_pending = 0;
    insert(vd, f, 5, VF_STRAY, key);
}

/* ---- host frames ---------------------------------------------------------------------------- */

void vd_fault_rx_first(vdrive_t *vd, uint32_t dw0)
{
    if ((dw0 & 0xFF) == FIS_DATA && ++vd->flt.rx_data_n == vd->cfg.dmat_fis)
        vd->flt.rx_dmat = 1;
}

/* dmat_fis: after 16 payload dwords (n counts the header too) DMAT goes out in place of R_IP,
 * until the host's EOF. */
int vd_fault_dmat_now(vdrive_t *vd, int n)
{
    struct vd_faults *F = &vd->flt;
    if (n < 17)
        return 0;
    if (F->rx_dmat == 1) {
        F->rx_dmat = 2;
        F->rx_dmat_at = n;
        vd->st.dmat_sent++;
    }
    return 1;
}

int vd_fault_dmat_end(vdrive_t *vd, int n)
{
    struct vd_faults *F = &vd->flt;
    int was = F->rx_dmat == 2;
    if (was) {
        int after = n - 1 - F->rx_dmat_at;      /* FIS dwords behind the first DMAT */
        vd->st.dmat_dwords_after += after > 0 ? (uint64_t)after : 0;
    }
    F->rx_dmat = 0;
    return was;
}

void vd_fault_dmat_cancel(vdrive_t *vd)
{
    vd->flt.rx_dmat = 0;
}

/* Without dmat_resume the write the DMAT cut short ends with ABRT. */
int vd_fault_dmat_ends_cmd(const vdrive_t *vd)
{
    return !vd->cfg.dmat_resume;
}

int vd_fault_lose_sof(vdrive_t *vd)
{
    if (++vd->flt.rx_sof_n != vd->cfg.lose_sof)
        return 0;
    vd->st.injected_lost_sof++;
    return 1;
}

int vd_fault_rx_refuse(vdrive_t *vd, const uint32_t *dw, int n)
{
    struct vd_faults *F = &vd->flt;
    if (F->rx_left) {                    /* the host's resend of the refused FIS */
        if (same(F->rx_sig, F->rx_n, dw, n)) {
            F->rx_left--;
            vd->st.fault_repeats++;
            vd->st.injected_rerr++;
            return 1;
        }
        F->rx_left = 0;
    }
    if (vd->cfg.rerr_fis && vd->h2d_fis_n == vd->cfg.rerr_fis) {
        remember(F->rx_sig, &F->rx_n, dw, n);
        F->rx_left = vd->cfg.fault_repeat;
        vd->st.injected_rerr++;
        return 1;
    }
    return 0;
}
