/* SPDX-License-Identifier: BSD-2-Clause */
/* Media: a sparse disk image file (offset = LBA * 512, ftruncate to the capacity, pread/pwrite),
 * or volatile storage (a hash of written 4 KiB pages; unwritten sectors read as zeros). */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE_SECTORS 8
#define PAGE_BYTES   (PAGE_SECTORS * 512)
#define EMPTY_KEY    UINT64_MAX

int vd_store_open(vdrive_t *vd, char *err, size_t errlen)
{
    struct vd_store *s = &vd->store;
    s->fd = -1;
    s->sectors = vd->cfg.capacity;
    if (vd->cfg.image[0]) {
        s->fd = open(vd->cfg.image, O_RDWR | O_CREAT, 0644);
        if (s->fd < 0) {
            vd_set_error(err, errlen, "vdrive: cannot open image '%s': %s", vd->cfg.image,
                         strerror(errno));
            return -1;
        }
        struct stat sb;
        uint64_t want = vd->cfg.capacity * 512;
        if (fstat(s->fd, &sb) == 0 && (uint64_t)sb.st_size < want && ftruncate(s->fd, (off_t)want)) {
            vd_set_error(err, errlen, "vdrive: cannot size image '%s': %s", vd->cfg.image,
                         strerror(errno));
            close(s->fd);
            s->fd = -1;
            return -1;
        }
    }
    return 0;
}

/* The volatile store gives back every page it holds. */
static void free_pages(struct vd_store *s)
{
    for (size_t i = 0; i < s->slots; i++)
        free(s->pages[i]);
    free(s->pages);
    free(s->keys);
    s->pages = NULL;
    s->keys = NULL;
    s->slots = s->used = 0;
}

void vd_store_close(vdrive_t *vd)
{
    struct vd_store *s = &vd->store;
    if (s->fd >= 0) {
        fsync(s->fd);
        close(s->fd);
        s->fd = -1;
    }
    free_pages(s);
}

int vd_store_flush(vdrive_t *vd)
{
    return vd->store.fd >= 0 ? fsync(vd->store.fd) : 0;
}

static inline size_t slot_of(uint64_t key, size_t mask)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & mask;
}

static uint8_t *page_find(struct vd_store *s, uint64_t key)
{
    if (!s->slots)
        return NULL;
    size_t mask = s->slots - 1;
    for (size_t i = slot_of(key, mask);; i = (i + 1) & mask) {
        if (s->keys[i] == key)
            return s->pages[i];
        if (s->keys[i] == EMPTY_KEY)
            return NULL;
    }
}

static int grow(struct vd_store *s)
{
    size_t n = s->slots ? s->slots * 2 : 1024;
    uint64_t *keys = malloc(n * sizeof(*keys));
    uint8_t **pages = calloc(n, sizeof(*pages));
    if (!keys || !pages) {
        free(keys);
        free(pages);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        keys[i] = EMPTY_KEY;
    for (size_t i = 0; i < s->slots; i++) {
        if (s->keys[i] == EMPTY_KEY)
            continue;
        size_t j = slot_of(s->keys[i], n - 1);
        while (keys[j] != EMPTY_KEY)
            j = (j + 1) & (n - 1);
        keys[j] = s->keys[i];
        pages[j] = s->pages[i];
    }
    free(s->keys);
    free(s->pages);
    s->keys = keys;
    s->pages = pages;
    s->slots = n;
    return 0;
}

static uint8_t *page_get(struct vd_store *s, uint64_t key)
{
    uint8_t *p = page_find(s, key);
    if (p)
        return p;
    if ((s->used + 1) * 4 > s->slots * 3 && grow(s))
        return NULL;
    p = calloc(1, PAGE_BYTES);
    if (!p)
        return NULL;
    size_t mask = s->slots - 1;
    size_t i = slot_of(key, mask);
    while (s->keys[i] != EMPTY_KEY)
        i = (i + 1) & mask;
    s->keys[i] = key;
    s->pages[i] = p;
    s->used++;
    return p;
}

int vd_store_read(vdrive_t *vd, uint64_t lba, uint32_t n, uint8_t *buf)
{
    struct vd_store *s = &vd->store;
    if (lba + n > s->sectors)
        return -1;
    if (s->fd >= 0) {
        size_t len = (size_t)n * 512;
        off_t off = (off_t)(lba * 512);
        while (len) {
            ssize_t r = pread(s->fd, buf, len, off);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {                 /* beyond EOF of a shorter image: zeros */
                memset(buf, 0, len);
                break;
            }
            buf += r;
            off += r;
            len -= (size_t)r;
        }
        return 0;
    }
    while (n) {
        uint64_t key = lba / PAGE_SECTORS;
        uint32_t in = (uint32_t)(lba % PAGE_SECTORS);
        uint32_t k = PAGE_SECTORS - in < n ? PAGE_SECTORS - in : n;
        const uint8_t *p = page_find(s, key);
        if (p)
            memcpy(buf, p + in * 512, (size_t)k * 512);
        else
            memset(buf, 0, (size_t)k * 512);
        buf += (size_t)k * 512;
        lba += k;
        n -= k;
    }
    return 0;
}

int vd_store_write(vdrive_t *vd, uint64_t lba, uint32_t n, const uint8_t *buf)
{
    struct vd_store *s = &vd->store;
    if (lba + n > s->sectors)
        return -1;
    if (s->fd >= 0) {
        size_t len = (size_t)n * 512;
        off_t off = (off_t)(lba * 512);
        while (len) {
            ssize_t r = pwrite(s->fd, buf, len, off);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                return -1;
            buf += r;
            off += r;
            len -= (size_t)r;
        }
        return 0;
    }
    while (n) {
        uint64_t key = lba / PAGE_SECTORS;
        uint32_t in = (uint32_t)(lba % PAGE_SECTORS);
        uint32_t k = PAGE_SECTORS - in < n ? PAGE_SECTORS - in : n;
        uint8_t *p = page_get(s, key);
        if (!p)
            return -1;
        memcpy(p + in * 512, buf, (size_t)k * 512);
        buf += (size_t)k * 512;
        lba += k;
        n -= k;
    }
    return 0;
}

/* Sanitize: the whole media reads as zeros; a file's blocks are punched out (or zeroed), the
 * volatile store gives back every page it held. */
int vd_store_erase(vdrive_t *vd)
{
    struct vd_store *s = &vd->store;
    if (s->fd >= 0)
        return vd_store_trim(vd, 0, s->sectors);
    free_pages(s);
    return 0;
}

/* TRIM: the sectors read back as zeros. A file image gets a hole punched (zeros written where
 * the file system cannot); volatile storage clears the pages it holds, never allocating any. */
int vd_store_trim(vdrive_t *vd, uint64_t lba, uint64_t n)
{
    struct vd_store *s = &vd->store;
    if (lba > s->sectors || n > s->sectors - lba)
        return -1;
    if (s->fd >= 0) {
        off_t off = (off_t)(lba * 512), len = (off_t)(n * 512);
        if (fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len) == 0)
            return 0;
        static const uint8_t zero[65536];
        while (len) {
            size_t k = len < (off_t)sizeof(zero) ? (size_t)len : sizeof(zero);
            ssize_t r = pwrite(s->fd, zero, k, off);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                return -1;
            off += r;
            len -= r;
        }
        return 0;
    }
    if (!n || !s->used)
        return 0;
    uint64_t first = lba / PAGE_SECTORS, last = (lba + n - 1) / PAGE_SECTORS;
    if (last - first + 1 > s->slots) {          /* a long range: walk the pages held */
        for (size_t i = 0; i < s->slots; i++) {
            uint64_t k = s->keys[i];
            if (k == EMPTY_KEY || k < first || k > last)
                continue;
            uint64_t a = k * PAGE_SECTORS, b = a + PAGE_SECTORS;
            a = a < lba ? lba : a;
            b = b > lba + n ? lba + n : b;
            memset(s->pages[i] + (a % PAGE_SECTORS) * 512, 0, (size_t)(b - a) * 512);
        }
        return 0;
    }
    for (uint64_t k = first; k <= last; k++) {
        uint8_t *p = page_find(s, k);
        if (!p)
            continue;
        uint64_t a = k * PAGE_SECTORS, b = a + PAGE_SECTORS;
        a = a < lba ? lba : a;
        b = b > lba + n ? lba + n : b;
        memset(p + (a % PAGE_SECTORS) * 512, 0, (size_t)(b - a) * 512);
    }
    return 0;
}

int vdrive_read_sectors(vdrive_t *vd, uint64_t lba, uint32_t count, void *buf)
{
    return vd_store_read(vd, lba, count, buf);
}

int vdrive_write_sectors(vdrive_t *vd, uint64_t lba, uint32_t count, const void *buf)
{
    return vd_store_write(vd, lba, count, buf);
}
