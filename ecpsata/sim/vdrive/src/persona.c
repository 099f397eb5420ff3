/* SPDX-License-Identifier: BSD-2-Clause */
/* Personas: how fast the media answers, all in ticks (deterministic, no wall clock).
 *
 * Reads: payload dword i of a command becomes available at t0 + (i + ofs) * tpd (never before the
 * command overhead); the link sends a Data FIS once its first sector is available and HOLDs when
 * it catches up with the media (HOLD HOLD CONT, then HOLD again before the data: link.c).
 * Rotating media keep a read stream (the head position in time) with a read cache and
 * read-ahead, so sequential and repeated reads skip seek and rotation.
 * Writes: a write cache of write_cache_kb accepts data at line rate while the media drains it at
 * write_mbps; when the cache is full the drive delays DMA Activate and HOLDs inside a Data FIS.
 * With the cache off (SET FEATURES 0x82) the status waits until the data is on the media.
 * FLUSH CACHE waits until the media has drained the cache: wr_busy_until is when the last byte the
 * host wrote reaches the media, so a sequence of writes plus a FLUSH runs at write_mbps.
 * Flash (persona=flash, flash.c): the garbage collection a write needs is added to the media's
 * busy time before its pages, so it delays non-queued and queued writes as the rate does.
 */
#include <math.h>

#include "internal.h"

struct preset {
    const char *name;
    void (*apply)(vdrive_config_t *c);
};

static void p_ideal(vdrive_config_t *c)
{
    c->sanitize = 0;
    c->read_mbps = c->write_mbps = 0;
    c->first_data_us = c->cmd_us = 0;
    c->write_cache_kb = 0;
    c->rpm = 1;
    c->seek_us = c->track_seek_us = 0;
    c->ncq_channels = 32;
    c->trim = 0;
    c->physical_sector = 512;
    snprintf(c->model, sizeof(c->model), "ecpsata virtual drive (ideal)");
}

static void p_slc(vdrive_config_t *c)
{
    c->sanitize = 1;                    /* SANITIZE: the SSD has it */
    c->capacity = 125045424;             /* 64 GB */
    c->read_mbps = 250;
    c->write_mbps = 170;
    c->first_data_us = 75;
    c->cmd_us = 5;
    c->write_cache_kb = 16 * 1024;
    c->rpm = 1;
    c->ncq = 1;
    c->ncq_channels = 8;
    c->trim = 1;
    c->physical_sector = 512;
    snprintf(c->model, sizeof(c->model), "ecpsata virtual SLC SSD (X25-E class)");
}

static void p_mlc28(vdrive_config_t *c)
{
    c->sanitize = 0;
    c->capacity = 117231408;             /* 60 GB, below the 28-bit limit */
    c->lba48 = 0;
    c->max_gen = 1;
    c->read_mbps = 147;
    c->write_mbps = 90;
    c->first_data_us = 100;
    c->cmd_us = 10;
    c->write_cache_kb = 8 * 1024;
    c->rpm = 1;
    c->ncq_channels = 1;
    c->trim = 0;                         /* DATA SET MANAGEMENT is a 48-bit command */
    c->physical_sector = 512;
    snprintf(c->model, sizeof(c->model), "ecpsata virtual MLC SSD (28-bit)");
}

static void p_hdd7200(vdrive_config_t *c)
{
    c->sanitize = 0;
    c->capacity = 1953525168;            /* 1 TB */
    c->read_mbps = 150;
    c->write_mbps = 150;
    c->first_data_us = 0;
    c->cmd_us = 50;
    c->write_cache_kb = 16 * 1024;
    c->rpm = 7200;
    c->seek_us = 8500;
    c->track_seek_us = 800;
    c->read_cache_kb = 16 * 1024;
    c->readahead_kb = 1024;
    c->ncq = 1;
    c->ncq_channels = 1;
    c->trim = 0;
    c->physical_sector = 4096;           /* 512-byte logical sectors on 4 KiB physical ones */
    snprintf(c->model, sizeof(c->model), "ecpsata virtual HDD 7200 rpm");
}

/* A consumer TLC SATA SSD: faster than a Gen2 line when fresh, slower once its spare area is
 * spent and garbage collection runs (flash.c). */
static void p_flash(vdrive_config_t *c)
{
    c->sanitize = 1;
    c->capacity = 2097152;               /* 1 GiB: the flash model's map is sized for it */
    c->read_mbps = 550;
    c->write_mbps = 500;
    c->first_data_us = 50;
    c->cmd_us = 2;
    c->write_cache_kb = 1024;
    c->rpm = 1;
    c->ncq = 1;
    c->ncq_channels = 8;
    c->trim = 1;
    c->physical_sector = 512;
    c->flash = 1;
    snprintf(c->model, sizeof(c->model), "ecpsata virtual TLC SSD (flash model)");
}

static const struct preset presets[] = {
    { "ideal", p_ideal }, { "slc", p_slc }, { "mlc28", p_mlc28 }, { "hdd7200", p_hdd7200 },
    { "flash", p_flash },
};

int vd_persona_preset(vdrive_config_t *cfg, const char *name)
{
    for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
        if (!strcmp(presets[i].name, name)) {
            presets[i].apply(cfg);
            snprintf(cfg->persona, sizeof(cfg->persona), "%s", name);
            return 0;
        }
    }
    return -1;
}

static uint64_t tpd_q16(uint32_t mbps)
{
    /* 4 bytes at mbps * 10^6 B/s = 4000 / mbps ns = 12000 / mbps ticks */
    return mbps ? (12000ull << 16) / mbps : 0;
}

static int rotating(const vdrive_t *vd)
{
    return vd->cfg.rpm > 1;
}

void vd_persona_init(vdrive_t *vd)
{
    struct vd_persona_state *p = &vd->pers;
    memset(p, 0, sizeof(*p));
    p->rd_tpd_q16 = tpd_q16(vd->cfg.read_mbps);
    p->wr_tpd_q16 = tpd_q16(vd->cfg.write_mbps);
    p->cache_lo = UINT64_MAX;
    if (rotating(vd))
        p->rot_ticks = 60000000ull * VD_TICKS_PER_US / vd->cfg.rpm;
}

uint64_t vd_persona_cmd_ticks(vdrive_t *vd)
{
    return (uint64_t)vd->cfg.cmd_us * VD_TICKS_PER_US;
}

/* Seek: track-to-track plus a square-root law fitted so that random seeks average seek_us. */
static uint64_t seek_ticks(vdrive_t *vd, uint64_t from, uint64_t to)
{
    const vdrive_config_t *c = &vd->cfg;
    uint64_t d = from > to ? from - to : to - from;
    uint64_t track = (uint64_t)c->read_mbps * 1000000ull * 60 / c->rpm / 512 + 1;
    if (d < track)
        return 0;
    double frac = (double)d / (double)c->capacity;
    double avg = c->seek_us, t2t = c->track_seek_us;
    double full = t2t + (avg - t2t) * 15.0 / 8.0;    /* E[sqrt(|U1-U2|)] = 8/15 */
    return (uint64_t)((t2t + (full - t2t) * sqrt(frac)) * VD_TICKS_PER_US);
}

static uint64_t rot_wait(vdrive_t *vd)
{
    return vd->pers.rot_ticks ? vd_rng_next(&vd->rng) % vd->pers.rot_ticks : 0;
}

void vd_persona_read_start(vdrive_t *vd)
{
    struct vd_cmd *c = &vd->cmd;
    struct vd_persona_state *p = &vd->pers;
    uint64_t now = vd->now;
    c->rd_tmin = now + vd_persona_cmd_ticks(vd);
    c->rd_tpd_q16 = p->rd_tpd_q16;
    if (!rotating(vd)) {
        c->rd_t0 = c->rd_tmin + (uint64_t)vd->cfg.first_data_us * VD_TICKS_PER_US;
        c->rd_ofs = 0;
        return;
    }
    uint64_t lba = c->lba, end = lba + c->count;
    uint64_t spd = p->rd_tpd_q16 * 128;               /* ticks per sector, Q16 */
    if (lba >= p->cache_lo && lba <= p->ra_limit) {
        /* the stream has read or will read this without moving the head */
        uint64_t t_lim = p->stream_t0 + (((p->ra_limit - p->stream_lba) * spd) >> 16);
        if (end > p->ra_limit && t_lim < now) {   /* stream stopped at the limit: restart */
            p->stream_t0 = now;
            p->stream_lba = p->ra_limit;
        }
    } else {
        p->stream_t0 = c->rd_tmin + seek_ticks(vd, p->head_lba, lba) + rot_wait(vd);
        p->stream_lba = lba;
        p->cache_lo = lba;
    }
    c->rd_t0 = p->stream_t0;
    c->rd_ofs = ((int64_t)lba - (int64_t)p->stream_lba) * 128;
    p->head_lba = end;
}

void vd_persona_read_end(vdrive_t *vd)
{
    struct vd_persona_state *p = &vd->pers;
    if (!rotating(vd))
        return;
    uint64_t end = vd->cmd.lba + vd->cmd.count;
    uint64_t cache = (uint64_t)vd->cfg.read_cache_kb * 2;
    p->ra_limit = end + (p->look_ahead ? (uint64_t)vd->cfg.readahead_kb * 2 : 0);
    if (p->ra_limit > vd->cfg.capacity)
        p->ra_limit = vd->cfg.capacity;
    if (p->ra_limit > p->cache_lo + cache)
        p->cache_lo = p->ra_limit - cache;
}

static uint64_t write_limit(vdrive_t *vd)
{
    struct vd_persona_state *p = &vd->pers;
    uint64_t bytes = p->write_cache ? (uint64_t)vd->cfg.write_cache_kb * 1024 : 0;
    if (bytes < VD_DATA_MAX_DW * 4)
        bytes = VD_DATA_MAX_DW * 4;          /* the interface buffer holds one Data FIS */
    return ((bytes / 4) * p->wr_tpd_q16) >> 16;
}

/* inflight: dwords of the host's Data FIS received so far; holding: HOLD is being sent (the
 * command layer asks this only while a write runs) */
int vd_persona_write_hold(vdrive_t *vd, int inflight, int holding)
{
    struct vd_persona_state *p = &vd->pers;
    if (!p->wr_tpd_q16 && !vd->cfg.flash)     /* flash: garbage collection takes time anyway */
        return 0;
    uint64_t backlog = p->wr_busy_until > vd->now ? p->wr_busy_until - vd->now : 0;
    /* While holding, resume only once 64 more dwords fit; but never ask for more room than one
     * Data FIS takes (the buffer's size without a cache): a FIS near its end would wait for
     * ever. */
    uint64_t want = (uint64_t)inflight + (holding ? 64 : 0);
    if (want > VD_DATA_MAX_DW)
        want = VD_DATA_MAX_DW;
    return backlog + ((want * p->wr_tpd_q16) >> 16) > write_limit(vd);
}

uint64_t vd_persona_write_room_at(vdrive_t *vd, uint32_t ndw)
{
    struct vd_persona_state *p = &vd->pers;
    if (!p->wr_tpd_q16 && !vd->cfg.flash)
        return 0;
    uint64_t need = ((uint64_t)ndw * p->wr_tpd_q16) >> 16;
    uint64_t lim = write_limit(vd);
    uint64_t t = p->wr_busy_until + need;
    return t > lim ? t - lim : 0;
}

void vd_persona_write_data(vdrive_t *vd, uint64_t lba, uint32_t sectors)
{
    struct vd_persona_state *p = &vd->pers;
    uint64_t start = p->wr_busy_until > vd->now ? p->wr_busy_until : vd->now;
    if (rotating(vd)) {
        if (lba != p->head_lba)
            start += seek_ticks(vd, p->head_lba, lba) + rot_wait(vd);
        p->head_lba = lba + sectors;
        p->cache_lo = UINT64_MAX;            /* the head moved: read stream lost */
        p->ra_limit = 0;
    }
    /* flash: the garbage collection these pages need runs before they are programmed */
    if (vd->cfg.flash)
        start += vd_flash_write(vd, lba, sectors);
    p->wr_busy_until = start + (((uint64_t)sectors * 128 * p->wr_tpd_q16) >> 16);
    if (p->write_cache && p->wr_tpd_q16) {
        /* what the cache holds now: the media backlog at write_mbps (seeks count as data) */
        uint64_t held = ((p->wr_busy_until - vd->now) << 16) / p->wr_tpd_q16 * 4;
        uint64_t size = (uint64_t)vd->cfg.write_cache_kb * 1024;
        if (held > size)
            held = size;
        if (held > vd->st.cache_bytes_max)
            vd->st.cache_bytes_max = held;
    }
}

uint64_t vd_persona_flush_at(vdrive_t *vd)
{
    return vd->pers.wr_busy_until;
}

/* NCQ positioning (rotating media): seek from the head's track, then wait for the sector to come
 * round. Sector lba passes under the head at (lba x time per sector) modulo one revolution, so a
 * command that starts where the last one ended follows it without a wait; the reordering in ncq.c
 * needs this position (the non-queued model draws the rotational wait at random instead). */
uint64_t vd_persona_position_ticks(vdrive_t *vd, uint64_t lba, uint64_t t)
{
    struct vd_persona_state *p = &vd->pers;
    if (!rotating(vd))
        return 0;
    uint64_t seek = seek_ticks(vd, p->head_lba, lba);
    double rot = (double)p->rot_ticks;
    double angle = fmod((double)lba * (double)(p->rd_tpd_q16 * 128) / 65536.0, rot);
    double wait = fmod(angle - fmod((double)(t + seek), rot) + rot, rot);
    if (wait > rot - (double)VD_TICKS_PER_US)
        wait = 0;                        /* rounding: the sector is just under the head */
    return seek + (uint64_t)wait;
}

/* A sanitize operation erased the media: the write cache holds nothing more to drain, the read
 * cache and stream are gone. */
void vd_persona_forget(vdrive_t *vd)
{
    struct vd_persona_state *p = &vd->pers;
    if (p->wr_busy_until > vd->now)
        p->wr_busy_until = vd->now;
    p->cache_lo = UINT64_MAX;
    p->ra_limit = 0;
}

/* An NCQ read moved the head: the non-queued read stream and its cache are gone. */
void vd_persona_ncq_read(vdrive_t *vd, uint64_t lba, uint32_t count)
{
    struct vd_persona_state *p = &vd->pers;
    if (!rotating(vd))
        return;
    p->head_lba = lba + count;
    p->cache_lo = UINT64_MAX;
    p->ra_limit = 0;
}
