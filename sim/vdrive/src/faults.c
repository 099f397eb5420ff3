/* Fault injection, reproducible from the seed: line bit errors, device errors on an LBA, silent
 * corruption of a sector on read. (CRC corruption, R_ERR, link drop and the hung drive live where
 * they act: link.c and command.c.) */
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

int vd_fault_dev_error(vdrive_t *vd, uint64_t lba, uint32_t n, uint8_t *status, uint8_t *error,
                       uint64_t *err_lba)
{
    int64_t e = vd->cfg.error_lba;
    if (e < 0 || (uint64_t)e < lba || (uint64_t)e >= lba + n)
        return 0;
    static const uint8_t codes[] = { 0, 0x04, 0x40, 0x10 };
    *status = 0x51;
    *error = codes[vd->cfg.error_kind & 3];
    *err_lba = (uint64_t)e;
    vd->st.injected_dev_errors++;
    return 1;
}

void vd_fault_corrupt(vdrive_t *vd, uint64_t lba, uint32_t n, uint8_t *buf)
{
    int64_t c = vd->cfg.corrupt_lba;
    if (c < 0 || (uint64_t)c < lba || (uint64_t)c >= lba + n)
        return;
    /* flip one bit at a seed-dependent place of the sector */
    uint64_t h = (vd->cfg.seed + 1) * 0x9E3779B97F4A7C15ull;
    unsigned byte = (unsigned)(h >> 32) % 512, bit = (unsigned)(h >> 20) % 8;
    buf[((uint64_t)c - lba) * 512 + byte] ^= (uint8_t)(1u << bit);
    vd->st.injected_corruptions++;
}
