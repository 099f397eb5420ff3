/* SPDX-License-Identifier: BSD-2-Clause */
/* Helpers of the health tests (test_health.c, test_sanitize.c): the commands as a host issues
 * them, the fields of their answers. */
#ifndef VDRIVE_TEST_HEALTH_CMDS_H
#define VDRIVE_TEST_HEALTH_CMDS_H

#include <string.h>

#include "host.h"
#include "../src/internal.h"

#define SMART_LBA      0xC24F00u
#define SMART_FAIL_LBA 0x2CF400u
#define KEY_BLOCK      0x426B4572u
#define KEY_CRYPTO     0x43727970u
#define KEY_FREEZE     0x46724C6Bu
#define KEY_ANTIFREEZE 0x416E7469u

static inline uint8_t sum512(const uint8_t *p)
{
    uint8_t s = 0;
    for (int i = 0; i < 512; i++)
        s = (uint8_t)(s + p[i]);
    return s;
}

static inline int smart(host_t *h, uint8_t sub, uint8_t *buf, uint8_t *s, uint8_t *e)
{
    int pio = sub == 0xD0 || sub == 0xD1;
    return host_command(h, 0xB0, sub, SMART_LBA, pio, buf, pio ? 512 : 0, pio, s, e);
}

/* READ LOG EXT (or DMA EXT): page number in LBA 15:8 and 39:32 */
static inline int read_log(host_t *h, uint8_t log, uint16_t page, uint16_t count, uint16_t feat,
                    uint8_t *buf, int dma, uint8_t *s, uint8_t *e)
{
    uint64_t lba = log | (uint64_t)(page & 0xFF) << 8 | (uint64_t)(page >> 8) << 32;
    return host_command(h, dma ? 0x47 : 0x2F, feat, lba, count, buf, (size_t)count * 512, !dma,
                        s, e);
}

static inline int sanitize(host_t *h, uint16_t feat, uint64_t lba, uint8_t *s, uint8_t *e)
{
    return host_command(h, 0xB4, feat, lba, 0, NULL, 0, 0, s, e);
}

static inline uint64_t d2h_lba(const host_t *h)
{
    return (h->d2h[1] & 0xFFFFFF) | (uint64_t)(h->d2h[2] & 0xFFFFFF) << 24;
}

static inline unsigned d2h_count(const host_t *h)
{
    return h->d2h[3] & 0xFFFF;
}

/* The 12-byte entry of attribute `id` in a SMART data / thresholds page, or NULL. */
static inline const uint8_t *attr(const uint8_t *page, uint8_t id)
{
    for (int i = 0; i < 30; i++)
        if (page[2 + 12 * i] == id)
            return page + 2 + 12 * i;
    return NULL;
}

static inline uint64_t raw48(const uint8_t *e)
{
    uint64_t v = 0;
    for (int i = 0; i < 6; i++)
        v |= (uint64_t)e[5 + i] << (8 * i);
    return v;
}

/* A device statistic: the value bits 55:0, the flags byte apart. */
static inline uint64_t devstat(const uint8_t *page, unsigned off, uint8_t *flags)
{
    uint64_t v = 0;
    for (int i = 0; i < 7; i++)
        v |= (uint64_t)page[off + i] << (8 * i);
    *flags = page[off + 7];
    return v;
}

static inline void idle_us(host_t *h, uint64_t us)
{
    uint64_t end = vdrive_time_ps(h->vd) + us * 1000000;
    while (vdrive_time_ps(h->vd) < end)
        host_cycle(h, PRIM_SYNC, 1);
}

#endif
