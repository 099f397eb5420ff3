/* SPDX-License-Identifier: BSD-2-Clause */
/* Word-level SATA host for tests (see host.h). Uses the library's internal tables for speed; the
 * Python host model (ecpsata/sim/vdrive/host_model.py) is the independent implementation. */
#include "host.h"

#include "../src/internal.h"

void host_init(host_t *h, vdrive_t *vd, int gen)
{
    memset(h, 0, sizeof(*h));
    h->vd = vd;
    h->gen = gen;
    h->junk = 0x12345678;
    h->timeout_words = 400000000ull;
}

static void rx_dword(host_t *h, uint32_t dw, int kind)
{
    if (kind == 2)
        h->bad_dwords++;
    if (kind == 1) {
        int p = vd_prim_id(dw);
        if (p == P_ALIGN) {
            h->aligns_rx++;
            h->rprim = P_ALIGN;      /* visible to negotiation only */
            h->rvalid = 2;
            return;
        }
        if (p == P_ALIGN_N) {        /* inverted line: flip the receiver */
            h->saw_align_n++;
            h->rx_invert ^= 1;
            h->aligned = 0;
            return;
        }
        if (p == P_CONT) {
            h->rx_cont = 1;
            return;
        }
        h->rx_cont = 0;
        h->rvalid = 1;
        h->rprim = p;
        if (p == P_PMREQ && h->level != P_PMREQ) {
            h->pmreqs_seen++;
            h->pmreq_dw = dw;
        }
        h->level = p;
        return;
    }
    if (h->rx_cont)
        return;
    h->rvalid = 1;
    h->rprim = kind == 2 ? P_UNKNOWN : P_NONE;
    h->level = P_NONE;
    h->rdata = dw;
}

static void rx_process(host_t *h, uint32_t w)
{
    uint64_t buf = (uint64_t)w << 20 | h->rx_prev;
    h->rx_prev = w;
    if (!h->aligned) {
        int o;
        for (o = 0; o < 20; o++) {
            unsigned s = (unsigned)(buf >> o) & 0x3FF;
            if (s == 0x17C || s == 0x283)
                break;
        }
        if (o == 20)
            return;
        h->aligned = 1;
        h->off = o;
        h->phase = 0;
        h->rd = (((unsigned)(buf >> o) & 0x3FF) == 0x17C) ? 0 : 1;
    }
    uint32_t sw = (uint32_t)(buf >> h->off) & VD_WORD_MASK;
    int err = 0;
    unsigned s0 = vd_8b10b_dec(sw & 0x3FF, &h->rd, &err);
    unsigned s1 = vd_8b10b_dec(sw >> 10, &h->rd, &err);
    if (err) {
        h->dec_errors++;
        h->err_score += 16;
        if (h->err_score > 64) {
            h->aligned = 0;
            h->err_score = 0;
            return;
        }
    } else if (h->err_score) {
        h->err_score--;
    }
    if (s1 == VD_K28_5) {
        h->aligned = 0;
        return;
    }
    if (h->phase == 0 || s0 == VD_K28_5) {
        h->rx_half = (s0 & 0xFF) | (s1 & 0xFF) << 8;
        h->half_k = (int)((s0 >> 8) | (s1 >> 8) << 1);
        h->half_err = err;
        h->phase = 1;
        return;
    }
    h->phase = 0;
    uint32_t dw = h->rx_half | (s0 & 0xFF) << 16 | (s1 & 0xFF) << 24;
    int kb = h->half_k | (int)((s0 >> 8) << 2 | (s1 >> 8) << 3);
    int kind = (err || h->half_err) ? 2 : kb == 0 ? 0 : kb == 1 ? 1 : 2;
    if (kind == 1 && dw != PRIM_ALIGN && dw != PRIM_ALIGN_N)
        h->raw_non_align++;
    rx_dword(h, dw, kind);
}

uint32_t host_word(host_t *h, uint32_t tx)
{
    if (h->tx_invert)
        tx ^= VD_WORD_MASK;
    int los;
    if (h->record && h->record_n < h->record_cap)
        h->record[h->record_n++] = tx;
    uint32_t rx = vdrive_step(h->vd, tx, h->gen, &los);
    h->los = los;
    h->words++;
    if (h->rx_invert)
        rx ^= VD_WORD_MASK;
    rx_process(h, rx);
    return rx;
}

/* In place of SYNC while the drive's PMREQ lasts: PMNAK, PMACK, or one PMNAK dword (NAK_ONCE). */
static uint32_t pm_answer(host_t *h)
{
    static const uint32_t prim[] = { PRIM_SYNC, PRIM_PMNAK, PRIM_PMACK, PRIM_PMNAK };
    if (h->level != P_PMREQ) {
        h->pm_once = 0;
        return PRIM_SYNC;
    }
    if (h->pm_reply == HOST_PM_NAK_ONCE && h->pm_once++)
        return PRIM_SYNC;
    return prim[h->pm_reply & 3];
}

int host_cycle(host_t *h, uint32_t dw, int k)
{
    int sent = 1;
    if (h->pm_reply && k && dw == PRIM_SYNC)
        dw = pm_answer(h);
    h->rvalid = 0;
    if (h->tx_align_cnt >= 254) {
        dw = PRIM_ALIGN;
        k = 1;
        sent = 0;
        h->tx_align_cnt = (h->tx_align_cnt + 1) % 256;
    } else {
        h->tx_align_cnt++;
        if (h->use_cont) {
            if (k && dw == h->cont_last && dw != PRIM_SOF && dw != PRIM_EOF) {
                if (++h->cont_rep == 2) {
                    dw = PRIM_CONT;
                } else if (h->cont_rep > 2) {
                    h->junk = h->junk * 1103515245u + 12345u;
                    dw = h->junk;
                    k = 0;
                }
            } else if (!k && h->cont_rep >= 2) {
                dw = h->cont_last;       /* data after CONT (junk or not): the primitive first */
                k = 1;
                sent = 0;
                h->cont_rep = 0;
            } else {
                h->cont_last = k ? dw : 0;
                h->cont_rep = 0;
            }
        }
    }
    int rd = h->tx_rd;
    unsigned c0 = vd_8b10b_enc((dw & 0xFF) | (k ? 0x100u : 0), &rd);
    unsigned c1 = vd_8b10b_enc((dw >> 8) & 0xFF, &rd);
    unsigned c2 = vd_8b10b_enc((dw >> 16) & 0xFF, &rd);
    unsigned c3 = vd_8b10b_enc(dw >> 24, &rd);
    h->tx_rd = rd;
    host_word(h, c0 | c1 << 10);
    host_word(h, c2 | c3 << 10);
    return sent;
}

void host_send_oob(host_t *h, int wake)
{
    int bw = h->gen == 2 ? 16 : 8;
    int gw = wake ? bw : 3 * bw;
    for (int b = 0; b < 6; b++) {
        for (int i = 0; i < bw; i++)
            host_word(h, (i & 1) ? 0xF0F0Fu : 0x0F0F0u);
        for (int i = 0; i < gw; i++)
            host_word(h, 0);
    }
}

int host_wait_oob(host_t *h, uint64_t max_words)
{
    int in_burst = 0, seen = 0, n_init = 0, n_wake = 0;
    uint64_t gap = 0;
    double word_ns = h->gen == 2 ? 20.0 / 3.0 : 40.0 / 3.0;
    for (uint64_t i = 0; i < max_words; i++) {
        host_word(h, 0);
        if (!h->los) {
            if (!in_burst && seen) {
                double ns = (double)gap * word_ns;
                if (ns >= 35 && ns < 175) {
                    n_init = 0;
                    if (++n_wake == 4) return 1;
                } else if (ns >= 175 && ns < 525) {
                    n_wake = 0;
                    if (++n_init == 4) return 0;
                } else {
                    n_wake = n_init = 0;
                }
            }
            in_burst = seen = 1;
            gap = 0;
        } else {
            in_burst = 0;
            gap++;
        }
    }
    return -1;
}

int host_link_up(host_t *h, uint64_t max_words)
{
    uint64_t end = h->words + max_words;
    host_send_oob(h, 0);
    if (host_wait_oob(h, 2000000) != 0)
        return -1;
    host_send_oob(h, 1);
    if (host_wait_oob(h, 100000) != 1)
        return -2;
    h->aligned = 0;
    /* D10.2 until the device's ALIGN is seen, then ALIGN until 3 non-ALIGN primitives arrive */
    int aligns = 0;
    while (h->words < end) {
        h->rvalid = 0;
        host_word(h, 0xAAAAAu);
        host_word(h, 0xAAAAAu);
        if (h->rvalid == 2 && ++aligns >= 2)
            break;
    }
    for (int i = 0; i < h->skew; i++)
        host_word(h, 0xAAAAAu);
    /* ALIGN until three non-ALIGN primitives arrive */
    h->raw_non_align = 0;
    h->bad_dwords = 0;
    while (h->words < end) {
        uint64_t before = h->raw_non_align;
        host_cycle(h, PRIM_ALIGN, 1);
        if (h->raw_non_align == before && h->rvalid == 2)
            h->raw_non_align = 0;
        if (h->raw_non_align >= 3)
            break;
    }
    if (h->words >= end)
        return -3;
    h->tx_align_cnt = 0;
    h->linkup_ps = vdrive_time_ps(h->vd);
    for (int i = 0; i < 8; i++)
        host_cycle(h, PRIM_SYNC, 1);
    /* a drive reports its signature in a Register D2H FIS after reset */
    h->sig_n = host_recv_fis(h, h->sig, 5, NULL, 4000);
    return 0;
}

int host_fis_len(uint8_t type)
{
    switch (type) {
    case 0x27: case 0x34: case 0x5F: return 5;
    case 0x39: return 1;
    case 0x41: return 7;
    case 0xA1: return 2;
    case 0x58: return 3;
    case 0x46: return -1;
    default: return 0;
    }
}

/* SATA 3.x §9.6: a transmitter that receives DMAT ends its frame early (CRC, then EOF). */
int host_send_fis(host_t *h, const uint32_t *fis, int n, uint64_t max_words)
{
    static uint32_t s[VD_FRAME_MAX + 1];
    uint32_t crc = vdrive_crc32(fis, (size_t)n);
    if (h->bad_crc_at && --h->bad_crc_at == 0)
        crc = ~crc;                          /* a CRC error the drive must see */
    for (int i = 0; i < n; i++)
        s[i] = fis[i] ^ vdrive_scrambler((size_t)i);
    s[n] = crc ^ vdrive_scrambler((size_t)n);
    uint64_t end = h->words + max_words;
    int i = 0, st = 0, result = -1, level = h->level, last = n, held = 0;
    h->dmat_seen = 0;
    h->sent_dwords = n;
    while (h->words < end) {
        uint32_t out;
        int k = 1;
        switch (st) {
        case 0: out = PRIM_X_RDY; break;
        case 1: out = PRIM_SOF; break;
        case 2:
            if (level == P_HOLD && held >= h->holda_delay) {
                out = PRIM_HOLDA;
            } else {
                if (level == P_DMAT && !h->ignore_dmat && i >= 1 && i < last) {
                    last = i;            /* the CRC of what went out takes this place */
                    s[i] = vdrive_crc32(fis, (size_t)i) ^ vdrive_scrambler((size_t)i);
                    h->dmat_seen = 1;
                    h->sent_dwords = i;
                }
                out = s[i];
                k = 0;
            }
            break;
        case 3: out = PRIM_EOF; break;
        case 4: out = PRIM_WTRM; break;
        default: out = PRIM_SYNC; break;
        }
        int sent = host_cycle(h, out, k);
        if (h->level == P_HOLD && level != P_HOLD && st == 2)
            h->holds_seen++;
        level = h->level;
        held = level == P_HOLD ? held + 1 : 0;
        h->hold_dwords += held && st == 2;
        if (!sent)
            continue;
        switch (st) {
        case 0:
            if (level == P_R_RDY)
                st = 1;
            else if (level == P_X_RDY)
                return -2;                   /* collision: the host yields (SATA 3.x §9.6) */
            break;
        case 1: st = 2; break;
        case 2: if (!k && ++i == last + 1) st = 3; break;
        case 3: st = 4; break;
        case 4:
            if (level == P_R_OK) { result = 1; st = 5; }
            else if (level == P_R_ERR) { result = 0; st = 5; }
            break;
        default:
            /* the device leaves R_OK/R_ERR for SYNC, or straight for X_RDY */
            if (level != P_R_OK && level != P_R_ERR && level != P_NONE && level != P_R_IP) {
                h->r_err = result == 0;
                return result;
            }
            break;
        }
    }
    return -1;
}

/* Frames up to VD_FRAME_MAX + 1 dwords are taken when their CRC is right (and, strict, when their
 * type is known and their length is the type's); longer ones are refused (unless accept_long) but
 * recorded whole, up to the longest frame the drive can send. */
#define RX_MAX (VD_TX_FRAME_MAX + 16)
int host_recv_fis(host_t *h, uint32_t *fis, int max, int *crc_ok, uint64_t max_words)
{
    static uint32_t f[RX_MAX];
    uint64_t end = h->words + max_words;
    int st = 0, n = 0, level = h->level, ok = 0, hold_left = 0, since_hold = 0;
    int delay = 0;                           /* answer_delay left before this answer */
    while (h->words < end) {
        uint32_t out;
        switch (st) {
        case 0: out = PRIM_SYNC; break;
        case 1: out = delay ? (delay--, PRIM_SYNC) : PRIM_R_RDY; break;
        case 2:
            if (level == P_HOLD) out = PRIM_HOLDA;
            else if (hold_left) { out = PRIM_HOLD; hold_left--; }
            else out = PRIM_R_IP;
            break;
        case 3: out = delay ? (delay--, PRIM_R_IP) : ok ? PRIM_R_OK : PRIM_R_ERR; break;
        default: out = ok ? PRIM_R_OK : PRIM_R_ERR; break;
        }
        host_cycle(h, out, 1);
        int lv = h->level;
        if (lv == P_HOLD && level != P_HOLD && st == 2)
            h->holds_seen++;
        level = lv;
        if (st == 2 && lv == P_NONE && h->rvalid != 1)
            continue;                        /* no new data dword this cycle */
        switch (st) {
        case 0:
            if (lv == P_X_RDY) {
                st = 1;
                delay = h->answer_delay;
                h->xrdy_ps = vdrive_time_ps(h->vd);
            }
            break;
        case 1: if (lv == P_SOF) { st = 2; n = 0; } break;
        case 2:
            if (lv == P_NONE || lv == P_UNKNOWN) {
                if (n < RX_MAX)
                    f[n] = h->rdata ^ vdrive_scrambler((size_t)n);
                n++;
                if (h->hold_every && ++since_hold >= h->hold_every) {
                    since_hold = 0;
                    hold_left = 8;
                }
            } else if (lv == P_EOF) {
                int good = n >= 2 && n <= RX_MAX && vdrive_crc32(f, (size_t)(n - 1)) == f[n - 1];
                int want = good ? host_fis_len((uint8_t)f[0]) : 0;
                ok = good && (n <= VD_FRAME_MAX + 1 || h->accept_long);
                if (h->strict && ok)
                    ok = want > 0 ? n - 1 == want : want < 0 ? n >= 3 : 0;
                if (h->refuse_frames > 0) {
                    h->refuse_frames--;
                    ok = 0;
                }
                h->rx_len = n - 1;
                h->rx_crc_good = good;
                h->rx_refused = !ok;
                delay = h->answer_delay;
                st = 3;
            } else if (lv == P_SYNC) {
                st = 0;                      /* the drive abandoned the frame: drop it */
                h->escapes++;
                h->escape_len = n;
            }
            break;
        default:
            if (lv == P_SYNC) {
                if (crc_ok) *crc_ok = ok;
                int m = n - 1 < max ? n - 1 : max;
                m = m < RX_MAX ? m : RX_MAX;
                memcpy(fis, f, (size_t)m * 4);
                return n - 1;
            }
            break;
        }
    }
    return -1;
}

void host_reg_h2d(uint32_t fis[5], uint8_t op, uint8_t features, uint64_t lba, uint32_t count)
{
    int is28 = op == 0xC8 || op == 0xCA;
    uint32_t dev = 0x40 | (is28 ? (uint32_t)((lba >> 24) & 0xF) : 0);
    fis[0] = 0x27 | 0x80u << 8 | (uint32_t)op << 16 | (uint32_t)features << 24;
    fis[1] = (uint32_t)(lba & 0xFFFFFF) | dev << 24;
    fis[2] = is28 ? 0 : (uint32_t)((lba >> 24) & 0xFFFFFF);
    fis[3] = count & 0xFFFF;
    fis[4] = 0;
}

#define CMD_WORDS h->timeout_words

/* A non-queued command. PIO data-in comes in DRQ blocks, each a PIO Setup (E_Status: BSY while
 * another block follows) and a Data FIS of its transfer count; the command ends with the Data FIS
 * of the block whose E_Status has BSY clear. DMA: Data FISes or DMA Activates, then a Register
 * D2H with BSY and DRQ clear (AHCI: one with BSY or DRQ set is not the end). A refused frame is no
 * part of it. */
static int command_fis(host_t *h, const uint32_t fis[5], int pio, uint8_t *rbuf, size_t rlen,
                       const uint8_t *wbuf, size_t wlen, uint8_t *status, uint8_t *error);

static int command(host_t *h, uint8_t op, uint8_t feat, uint64_t lba, uint32_t count,
                   uint8_t *rbuf, size_t rlen, const uint8_t *wbuf, size_t wlen,
                   uint8_t *status, uint8_t *error)
{
    uint32_t fis[5];
    host_reg_h2d(fis, op, feat, lba, count);
    return command_fis(h, fis, op == 0xEC || op == 0x2F, rbuf, rlen, wbuf, wlen, status, error);
}

int host_command(host_t *h, uint8_t op, uint16_t features, uint64_t lba, uint32_t count,
                 uint8_t *rbuf, size_t rlen, int pio, uint8_t *status, uint8_t *error)
{
    uint32_t fis[5];
    host_reg_h2d(fis, op, (uint8_t)features, lba, count);
    fis[2] |= (uint32_t)(features >> 8) << 24;   /* Features 15:8 */
    return command_fis(h, fis, pio, rbuf, rlen, NULL, 0, status, error);
}

static int command_fis(host_t *h, const uint32_t fis[5], int pio, uint8_t *rbuf, size_t rlen,
                       const uint8_t *wbuf, size_t wlen, uint8_t *status, uint8_t *error)
{
    static uint32_t f[RX_MAX];
    h->pio_setups = h->pio_mismatch = h->protocol_errors = h->interim_seen = 0;
    h->overrun = h->rx_bytes = 0;
    memset(h->d2h, 0, sizeof(h->d2h));
    if (host_send_fis(h, fis, 5, 1000000) != 1)
        return -1;
    size_t rpos = 0, wpos = 0;
    int pio_last = 0;
    uint32_t pio_count = 0;
    for (;;) {
        int ok;
        int n = host_recv_fis(h, f, RX_MAX, &ok, CMD_WORDS);
        if (n < 1)
            return -1;
        if (!ok)
            continue;
        switch (f[0] & 0xFF) {
        case 0x46: {
            size_t b = (size_t)(n - 1) * 4;
            if (rpos + b > rlen)
                h->overrun += rpos + b - (rpos > rlen ? rpos : rlen);
            if (rbuf && rpos < rlen)
                memcpy(rbuf + rpos, &f[1], rpos + b <= rlen ? b : rlen - rpos);
            rpos += b;
            h->rx_bytes = rpos;
            if (pio) {
                h->pio_mismatch += b != pio_count;
                if (pio_last)
                    return 0;                /* the status came with the last PIO Setup */
            }
            break;
        }
        case 0x5F:
            h->pio_setups++;
            pio_count = f[4] & 0xFFFF;
            *status = (uint8_t)(f[3] >> 24);
            *error = (uint8_t)(f[0] >> 24);
            pio_last = !(*status & 0x80);
            break;
        case 0x39: {
            size_t b = wlen - wpos < 8192 ? wlen - wpos : 8192;
            if (!b) {
                h->protocol_errors++;        /* all the data went already */
                break;
            }
            f[0] = 0x46;
            memcpy(&f[1], wbuf + wpos, b);
            if (host_send_fis(h, f, 1 + (int)(b / 4), CMD_WORDS) == 1)
                wpos += h->dmat_seen ? (size_t)(h->sent_dwords - 1) * 4 : b;
            break;
        }
        case 0x34:
            if (f[0] >> 16 & 0x88) {
                h->interim_seen++;           /* BSY or DRQ: not a completion */
                break;
            }
            *status = (uint8_t)(f[0] >> 16);
            *error = (uint8_t)(f[0] >> 24);
            memcpy(h->d2h, f, sizeof(h->d2h));
            return 0;
        default:
            h->protocol_errors++;
            break;
        }
    }
}

static size_t sector_bytes(const host_t *h)
{
    return h->sector_bytes ? h->sector_bytes : 512;
}

int host_identify(host_t *h, uint16_t id[256], uint8_t *status, uint8_t *error)
{
    return command(h, 0xEC, 0, 0, 0, (uint8_t *)id, 512, NULL, 0, status, error);
}

int host_read(host_t *h, uint8_t op, uint64_t lba, uint32_t count, uint8_t *buf, uint8_t *status,
              uint8_t *error)
{
    return command(h, op, 0, lba, count, buf, (size_t)count * sector_bytes(h), NULL, 0, status,
                   error);
}

int host_write(host_t *h, uint8_t op, uint64_t lba, uint32_t count, const uint8_t *buf,
               uint8_t *status, uint8_t *error)
{
    return command(h, op, 0, lba, count, NULL, 0, buf, (size_t)count * sector_bytes(h), status,
                   error);
}

int host_nodata(host_t *h, uint8_t op, uint8_t features, uint8_t *status, uint8_t *error)
{
    return command(h, op, features, 0, 0, NULL, 0, NULL, 0, status, error);
}

int host_set_features(host_t *h, uint8_t features, uint8_t count, uint8_t *status, uint8_t *error)
{
    return command(h, 0xEF, features, 0, count, NULL, 0, NULL, 0, status, error);
}

int host_read_log(host_t *h, uint8_t log, uint8_t *buf, uint8_t *status, uint8_t *error)
{
    return command(h, 0x2F, 0, log, 1, buf, 512, NULL, 0, status, error);
}

int host_trim(host_t *h, const uint8_t *entries, uint32_t blocks, uint8_t *status, uint8_t *error)
{
    return command(h, 0x06, 0x01, 0, blocks, NULL, 0, entries, (size_t)blocks * 512, status, error);
}

/* ---- test helpers ------------------------------------------------------------------------------ */

vdrive_t *test_drive(const char *cfg)
{
    char err[256];
    vdrive_t *vd = vdrive_create_str(cfg, err, sizeof(err));
    if (!vd) {
        printf("create('%s') failed: %s\n", cfg, err);
        exit(1);
    }
    return vd;
}

vdrive_t *test_linked(const char *cfg, host_t *h, int gen, int strict)
{
    vdrive_t *vd = test_drive(cfg);
    host_init(h, vd, gen);
    h->strict = strict;
    if (host_link_up(h, 3000000) != 0) {
        printf("link up failed (%s)\n", cfg);
        exit(1);
    }
    return vd;
}

vdrive_stats_t test_stats(vdrive_t *vd)
{
    vdrive_stats_t st;
    vdrive_get_stats(vd, &st);
    return st;
}

void test_fill(uint8_t *b, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        b[i] = (uint8_t)(seed >> 16);
    }
}
