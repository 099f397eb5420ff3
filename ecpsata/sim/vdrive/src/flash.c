/* SPDX-License-Identifier: BSD-2-Clause */
/* Flash model (persona=flash, key flash=1): page-mapped NAND behind the drive's logical space, as
 * in a consumer SATA SSD. Deterministic: no randomness, the same writes give the same figures.
 *
 * Geometry. The logical space is cut into 4 KiB pages (8 image sectors; a partial last page
 * counts whole). The media holds the capacity plus a spare area of spare_pct percent, and at least
 * FLASH_RESERVE blocks more than the capacity needs, in erase blocks of FLASH_PPB pages. The map
 * (logical -> physical page, 4 bytes a page) is sized for the capacity only; the capacity is
 * limited to FLASH_MAX_PAGES pages (4 GiB) so the model stays small (a 1 GiB drive: 4,383 blocks,
 * about 2 MiB of tables).
 *
 * Writes. Host pages are programmed in order into the open block, at write_mbps (persona.c does
 * that time); a full block is closed and the next one comes from the free pool (oldest erase
 * first). The last page programmed stays in the program buffer: a write to it again at once (the
 * rest of a 4 KiB page in the next Data FIS) is merged, not programmed twice.
 *
 * Garbage collection (greedy). Before a host page is programmed, while fewer than FLASH_GC_LOW
 * blocks are free, one GC run takes the full block with the fewest valid pages (the lowest number
 * among equals), copies its valid pages to the open block and erases it. It costs, in the media's
 * time before the host's page: FLASH_COPY (a page read at read_mbps plus a page program at
 * write_mbps) per page copied and FLASH_ERASE_US per erase. Sequential overwrites leave whole
 * blocks without valid pages (no copies: write amplification near 1); random 4 KiB overwrites over
 * the whole span leave victims mostly valid, and the less spare, the more copies per host page.
 *
 * TRIM unmaps the 4 KiB pages a range covers whole; then every full block without valid pages is
 * erased at once and goes back to the pool (a background erase: it costs the host nothing).
 * SANITIZE erases every block: the drive is fresh again.
 */
#include "internal.h"

#define FLASH_PAGE_SECTORS 8
#define FLASH_PPB          64         /* pages per erase block (256 KiB) */
#define FLASH_GC_LOW       2          /* GC runs while fewer blocks are free */
#define FLASH_RESERVE      3          /* blocks beyond the capacity, whatever spare_pct */
#define FLASH_ERASE_US     100        /* one block erase, as the host sees it (dies in parallel) */
#define FLASH_MAX_PAGES    (1u << 20) /* 4 GiB of capacity */

enum { B_FREE, B_OPEN, B_FULL };

static uint64_t cap_pages(const vdrive_config_t *c)
{
    unsigned lss = c->logical_sector == 4096 ? 3 : 0;
    uint64_t sectors = (c->capacity >> lss) << lss;
    return (sectors + FLASH_PAGE_SECTORS - 1) / FLASH_PAGE_SECTORS;
}

int vd_flash_check(const vdrive_config_t *c, char *err, size_t errlen)
{
    if (!c->flash)
        return 0;
    if (cap_pages(c) > FLASH_MAX_PAGES) {
        vd_set_error(err, errlen, "vdrive: bad value '%llu' for key 'capacity' (the flash model "
                     "holds at most %llu sectors, 4 GiB)", (unsigned long long)c->capacity,
                     (unsigned long long)FLASH_MAX_PAGES * FLASH_PAGE_SECTORS);
        return -1;
    }
    if (c->spare_pct > 100) {
        vd_set_error(err, errlen, "vdrive: bad value '%u' for key 'spare_pct' (0..100 %%)",
                     c->spare_pct);
        return -1;
    }
    return 0;
}

static void pool_push(struct vd_flash *f, uint32_t b)
{
    f->ring[(f->ring_head + f->nfree) % f->nblocks] = b;
    f->nfree++;
    f->state[b] = B_FREE;
}

static uint32_t pool_pop(struct vd_flash *f)
{
    uint32_t b = f->ring[f->ring_head];
    f->ring_head = (f->ring_head + 1) % f->nblocks;
    f->nfree--;
    return b;
}

static void count_free(vdrive_t *vd)
{
    vd->st.flash_free_blocks = vd->flash.nfree;
}

/* Every block erased, nothing mapped. */
static void reset(vdrive_t *vd)
{
    struct vd_flash *f = &vd->flash;
    for (uint32_t i = 0; i < f->lpages; i++)
        f->l2p[i] = VD_FLASH_NONE;
    for (uint64_t i = 0; i < (uint64_t)f->nblocks * f->ppb; i++)
        f->p2l[i] = VD_FLASH_NONE;
    f->ring_head = f->nfree = 0;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        f->valid[b] = 0;
        pool_push(f, b);
    }
    f->open = VD_FLASH_NONE;
    f->wp = 0;
    f->buf_lpn = f->buf_ppn = VD_FLASH_NONE;
    count_free(vd);
}

int vd_flash_open(vdrive_t *vd, char *err, size_t errlen)
{
    struct vd_flash *f = &vd->flash;
    memset(f, 0, sizeof(*f));
    if (!vd->cfg.flash)
        return 0;
    uint64_t lp = cap_pages(&vd->cfg);
    uint64_t need = (lp + FLASH_PPB - 1) / FLASH_PPB;
    uint64_t phys = (lp * (100 + vd->cfg.spare_pct) + 99) / 100;
    uint64_t nb = (phys + FLASH_PPB - 1) / FLASH_PPB;
    if (nb < need + FLASH_RESERVE)
        nb = need + FLASH_RESERVE;
    f->ppb = FLASH_PPB;
    f->lpages = (uint32_t)lp;
    f->nblocks = (uint32_t)nb;
    f->l2p = malloc(lp * sizeof(*f->l2p));
    f->p2l = malloc(nb * FLASH_PPB * sizeof(*f->p2l));
    f->valid = malloc(nb * sizeof(*f->valid));
    f->state = malloc(nb);
    f->ring = malloc(nb * sizeof(*f->ring));
    if (!f->l2p || !f->p2l || !f->valid || !f->state || !f->ring) {
        vd_flash_close(vd);
        vd_set_error(err, errlen, "vdrive: out of memory (flash model)");
        return -1;
    }
    /* one 4 KiB page read plus one program, at the persona's media rates (ticks per dword) */
    f->copy_ticks = ((1024 * vd->pers.rd_tpd_q16) >> 16) + ((1024 * vd->pers.wr_tpd_q16) >> 16);
    f->erase_ticks = FLASH_ERASE_US * VD_TICKS_PER_US;
    reset(vd);
    return 0;
}

void vd_flash_close(vdrive_t *vd)
{
    struct vd_flash *f = &vd->flash;
    free(f->l2p);
    free(f->p2l);
    free(f->valid);
    free(f->state);
    free(f->ring);
    memset(f, 0, sizeof(*f));
}

static void unmap(struct vd_flash *f, uint32_t lpn)
{
    uint32_t old = f->l2p[lpn];
    if (old == VD_FLASH_NONE)
        return;
    f->p2l[old] = VD_FLASH_NONE;
    f->valid[old / f->ppb]--;
    f->l2p[lpn] = VD_FLASH_NONE;
}

/* Program lpn into the next page of the open block (a new one from the pool when it is full). */
static void program(vdrive_t *vd, uint32_t lpn)
{
    struct vd_flash *f = &vd->flash;
    if (f->open == VD_FLASH_NONE || f->wp == f->ppb) {
        if (f->open != VD_FLASH_NONE)
            f->state[f->open] = B_FULL;
        f->open = pool_pop(f);
        f->state[f->open] = B_OPEN;
        f->wp = 0;
    }
    uint32_t ppn = f->open * f->ppb + f->wp++;
    unmap(f, lpn);
    f->l2p[lpn] = ppn;
    f->p2l[ppn] = lpn;
    f->valid[f->open]++;
    vd->st.flash_nand_pages_written++;
}

static void erase(struct vd_flash *f, uint32_t b)
{
    f->valid[b] = 0;
    pool_push(f, b);
}

/* One greedy GC run; returns its media time (0 and nothing done when no block is full). */
static uint64_t gc_run(vdrive_t *vd)
{
    struct vd_flash *f = &vd->flash;
    uint32_t victim = VD_FLASH_NONE;
    for (uint32_t b = 0; b < f->nblocks; b++)
        if (f->state[b] == B_FULL && (victim == VD_FLASH_NONE || f->valid[b] < f->valid[victim]))
            victim = b;
    if (victim == VD_FLASH_NONE)
        return 0;
    uint64_t copies = 0;
    for (uint32_t i = 0; i < f->ppb && f->valid[victim]; i++) {
        uint32_t lpn = f->p2l[victim * f->ppb + i];
        if (lpn == VD_FLASH_NONE)
            continue;
        program(vd, lpn);
        copies++;
    }
    erase(f, victim);
    vd->st.flash_gc_runs++;
    return copies * f->copy_ticks + f->erase_ticks;
}

uint64_t vd_flash_write(vdrive_t *vd, uint64_t lba, uint32_t sectors)
{
    struct vd_flash *f = &vd->flash;
    if (!f->lpages || !sectors)
        return 0;
    uint64_t first = lba / FLASH_PAGE_SECTORS, last = (lba + sectors - 1) / FLASH_PAGE_SECTORS;
    uint64_t t = 0;
    for (uint64_t lpn = first; lpn <= last && lpn < f->lpages; lpn++) {
        if (lpn == f->buf_lpn && f->l2p[lpn] == f->buf_ppn)
            continue;                    /* still in the program buffer: merged */
        while (f->nfree < FLASH_GC_LOW) {
            uint64_t g = gc_run(vd);
            if (!g)
                break;
            t += g;
        }
        program(vd, (uint32_t)lpn);
        vd->st.flash_host_pages_written++;
        f->buf_lpn = (uint32_t)lpn;
        f->buf_ppn = f->l2p[lpn];
    }
    count_free(vd);
    return t;
}

void vd_flash_trim(vdrive_t *vd, uint64_t lba, uint64_t n)
{
    struct vd_flash *f = &vd->flash;
    if (!f->lpages || !n)
        return;
    uint64_t first = (lba + FLASH_PAGE_SECTORS - 1) / FLASH_PAGE_SECTORS;
    uint64_t end = (lba + n) / FLASH_PAGE_SECTORS;
    if ((lba + n) >= (uint64_t)f->lpages * FLASH_PAGE_SECTORS)
        end = f->lpages;                 /* a partial last page ends with the capacity */
    for (uint64_t lpn = first; lpn < end; lpn++)
        unmap(f, (uint32_t)lpn);
    for (uint32_t b = 0; b < f->nblocks; b++)
        if (f->state[b] == B_FULL && !f->valid[b])
            erase(f, b);                 /* background erase */
    if (f->buf_lpn != VD_FLASH_NONE && f->l2p[f->buf_lpn] != f->buf_ppn)
        f->buf_lpn = f->buf_ppn = VD_FLASH_NONE;
    count_free(vd);
}

void vd_flash_erase(vdrive_t *vd)
{
    if (vd->flash.lpages)
        reset(vd);
}
