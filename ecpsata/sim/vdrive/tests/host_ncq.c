/* SPDX-License-Identifier: BSD-2-Clause */
/* Word-level test host, NCQ part (see host.h): READ / WRITE FPDMA QUEUED with tags, DMA Setup,
 * DMA Activate, Data and Set Device Bits in the order the drive chooses. */
#include "host.h"

#include "../src/internal.h"

#define CMD_WORDS h->timeout_words

void host_fpdma_fis(uint32_t fis[5], int write, uint64_t lba, uint32_t count, int tag)
{
    fis[0] = 0x27 | 0x80u << 8 | (write ? 0x61u : 0x60u) << 16 | (count & 0xFF) << 24;
    fis[1] = (uint32_t)(lba & 0xFFFFFF) | 0x40u << 24;
    fis[2] = (uint32_t)((lba >> 24) & 0xFFFFFF) | ((count >> 8) & 0xFF) << 24;
    fis[3] = (uint32_t)(tag & 31) << 3;
    fis[4] = 0;
}

int host_ncq_issue(host_t *h, int write, uint64_t lba, uint32_t count, int tag, uint8_t *status,
                   uint8_t *error)
{
    uint32_t fis[5], f[8];
    host_fpdma_fis(fis, write, lba, count, tag);
    if (host_send_fis(h, fis, 5, 1000000) != 1)
        return -1;
    for (;;) {
        int n = host_recv_fis(h, f, 8, NULL, CMD_WORDS);
        if (n < 1)
            return -1;
        if ((f[0] & 0xFF) == 0x34) {
            *status = (uint8_t)(f[0] >> 16);
            *error = (uint8_t)(f[0] >> 24);
            return 0;
        }
    }
}

static int popcount32(uint32_t x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

static size_t ss(const host_t *h)
{
    return h->sector_bytes ? h->sector_bytes : 512;
}

static int send_chunk(host_t *h, host_ncq_req *q)
{
    static uint32_t f[VD_FRAME_MAX + 2];
    size_t total = (size_t)q->count * ss(h), b = total - q->xfer < 8192 ? total - q->xfer : 8192;
    f[0] = 0x46;
    memcpy(&f[1], q->buf + q->xfer, b);
    if (host_send_fis(h, f, 1 + (int)(b / 4), CMD_WORDS) != 1)
        return -1;
    q->xfer += h->dmat_seen ? (size_t)(h->sent_dwords - 1) * 4 : b;   /* cut short by DMAT */
    return 0;
}

int host_ncq_run(host_t *h, host_ncq_req *r, int n, int qd, host_ncq_stats *st)
{
    static uint32_t f[VD_FRAME_MAX + 2];
    int by_tag[32], next = 0, finished = 0, cur = -1;
    uint32_t busy = 0;
    memset(st, 0, sizeof(*st));
    for (int t = 0; t < 32; t++)
        by_tag[t] = -1;
    while (finished < n) {
        if (next < n && cur < 0 && popcount32(busy) < qd) {
            int tag = 0;
            while (busy >> tag & 1)
                tag++;
            uint32_t fis[5];
            host_fpdma_fis(fis, r[next].write, r[next].lba, r[next].count, tag);
            int rs = host_send_fis(h, fis, 5, 1000000);
            if (rs == 1) {
                r[next].tag = tag;
                r[next].state = 1;
                r[next].xfer = 0;
                by_tag[tag] = next++;
                busy |= 1u << tag;
                continue;
            }
            if (rs != -2)
                return -1;
        }
        int m = host_recv_fis(h, f, VD_FRAME_MAX + 1, NULL, CMD_WORDS);
        if (m < 1)
            return -1;
        switch (f[0] & 0xFF) {
        case 0x34:                           /* the answer to a command FIS */
            if (f[0] >> 16 & 1) {
                st->err_d2h++;
                st->err_status = (uint8_t)(f[0] >> 16);
                st->err_error = (uint8_t)(f[0] >> 24);
                for (int t = 0; t < 32; t++)
                    if (busy >> t & 1)
                        r[by_tag[t]].state = 3;
                return 1;
            }
            break;
        case 0x41: {                         /* DMA Setup */
            int tag = (int)(f[1] & 31);
            cur = busy >> tag & 1 ? by_tag[tag] : -1;
            st->setups++;
            /* offset 0: this host never enables non-zero buffer offsets (SET FEATURES 10h/01h) */
            if (cur < 0 || (int)(f[0] >> 13 & 1) == r[cur].write ||
                f[5] != r[cur].count * ss(h) || f[4] != 0) {
                st->protocol_errors++;
                cur = -1;
                break;
            }
            if (r[cur].write && (f[0] >> 15 & 1)) {
                st->auto_activate++;
                if (send_chunk(h, &r[cur]))
                    return -1;
            }
            break;
        }
        case 0x39:                           /* DMA Activate */
            st->activates++;
            if (cur < 0 || !r[cur].write) {
                st->protocol_errors++;
                break;
            }
            if (send_chunk(h, &r[cur]))
                return -1;
            break;
        case 0x46: {
            size_t b = (size_t)(m - 1) * 4;
            if (cur < 0 || r[cur].write || r[cur].xfer + b > (size_t)r[cur].count * ss(h)) {
                st->protocol_errors++;
                break;
            }
            memcpy(r[cur].buf + r[cur].xfer, &f[1], b);
            r[cur].xfer += b;
            break;
        }
        case 0xA1: {                         /* Set Device Bits */
            uint32_t bits = f[1];
            uint8_t status = (uint8_t)(f[0] >> 16);
            if (bits & ~busy)
                st->protocol_errors++;
            bits &= busy;
            for (int t = 0; t < 32; t++) {
                if (!(bits >> t & 1))
                    continue;
                host_ncq_req *q = &r[by_tag[t]];
                if (q->xfer != (size_t)q->count * ss(h))
                    st->protocol_errors++;
                q->state = 2;
                q->t_done_ps = vdrive_time_ps(h->vd);
                if (by_tag[t] == cur)
                    cur = -1;
                finished++;
            }
            busy &= ~bits;
            if (status & 1) {
                st->err_sdb++;
                st->err_status = status;
                st->err_error = (uint8_t)(f[0] >> 24);
                st->err_bits = bits;
                for (int t = 0; t < 32; t++)
                    if (busy >> t & 1)
                        r[by_tag[t]].state = 3;
                return 1;
            }
            st->sdb++;
            if (popcount32(bits) > 1)
                st->sdb_multi++;
            if (popcount32(bits) > st->max_bits)
                st->max_bits = popcount32(bits);
            break;
        }
        default:
            st->protocol_errors++;
            break;
        }
        if (cur >= 0 && r[cur].xfer == (size_t)r[cur].count * ss(h))
            cur = -1;                        /* data phase over; its SDB may come later */
    }
    return 0;
}

double host_ncq_random_read(host_t *h, int qd, int n, uint32_t sectors, uint64_t seed,
                            int *in_order)
{
    host_ncq_req *r = calloc((size_t)n, sizeof(*r));
    uint8_t *buf = malloc((size_t)n * sectors * 512);
    uint64_t *t = malloc((size_t)n * sizeof(*t));
    uint64_t x = seed | 1, slots = h->vd->cfg.capacity / sectors;
    for (int i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        r[i] = (host_ncq_req){ .lba = x % slots * sectors, .count = sectors,
                               .buf = buf + (size_t)i * sectors * 512 };
    }
    host_ncq_stats st;
    double v = -1;
    if (host_ncq_run(h, r, n, qd, &st) == 0 && !st.protocol_errors && n > 2 * qd) {
        int order = 1;
        for (int i = 0; i < n; i++) {
            t[i] = r[i].t_done_ps;
            order &= !i || t[i] >= t[i - 1];
        }
        if (in_order)
            *in_order = order;
        for (int i = 1; i < n; i++)        /* insertion sort: n is small */
            for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
                uint64_t s = t[j];
                t[j] = t[j - 1];
                t[j - 1] = s;
            }
        int a = qd - 1, b = n - qd - 1;
        v = (double)(b - a) / ((double)(t[b] - t[a]) * 1e-12);
    }
    free(t);
    free(buf);
    free(r);
    return v;
}
