/* SPDX-License-Identifier: BSD-2-Clause */
/* Link-layer arithmetic: SATA CRC-32, scrambler sequence, primitive identification.
 *
 * CRC: polynomial 0x04C11DB7, seed 0x52325032, dwords fed most significant bit first, no final
 * inversion. Scrambler: LFSR x^16+x^15+x^13+x^4+1, reset at every SOF. The spec's parallel form
 * starts from context 0xF0F6; the equivalent serial Galois register starts from 0xFFFF and emits
 * bit 15 as the next output bit (least significant bit of the dword first). First dword
 * 0xC2D2768D, second 0x1F26B368.
 */
#include "internal.h"

uint32_t vd_scr_tab[VD_SCR_LEN];
static uint32_t crc_tab[4][256];
static int ready;

void vd_crc_init(void)
{
    if (ready)
        return;
    uint16_t ctx = 0xFFFF;
    for (int i = 0; i < VD_SCR_LEN; i++) {
        uint32_t v = 0;
        for (int b = 0; b < 32; b++) {
            unsigned out = (ctx >> 15) & 1;
            v |= (uint32_t)out << b;
            ctx = (uint16_t)(ctx << 1);
            if (out)
                ctx ^= 0xA011;
        }
        vd_scr_tab[i] = v;
    }
    /* slicing-by-4, MSB first */
    for (int i = 0; i < 256; i++) {
        uint32_t c = (uint32_t)i << 24;
        for (int b = 0; b < 8; b++)
            c = (c & 0x80000000u) ? (c << 1) ^ 0x04C11DB7u : c << 1;
        crc_tab[0][i] = c;
    }
    for (int i = 0; i < 256; i++)
        for (int t = 1; t < 4; t++)
            crc_tab[t][i] = (crc_tab[t - 1][i] << 8) ^ crc_tab[0][crc_tab[t - 1][i] >> 24];
    ready = 1;
}

uint32_t vd_crc_update(uint32_t crc, const uint32_t *dw, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t c = crc ^ dw[i];
        crc = crc_tab[3][c >> 24] ^ crc_tab[2][(c >> 16) & 0xFF] ^ crc_tab[1][(c >> 8) & 0xFF] ^
              crc_tab[0][c & 0xFF];
    }
    return crc;
}

uint32_t vdrive_crc32(const uint32_t *dwords, size_t n)
{
    vd_crc_init();
    return vd_crc_update(VD_CRC_SEED, dwords, n);
}

uint32_t vdrive_scrambler(size_t index)
{
    vd_crc_init();
    if (index < VD_SCR_LEN)
        return vd_scr_tab[index];
    /* the sequence repeats every 65535 bits; long indices are only used by tests */
    uint16_t ctx = 0xFFFF;
    uint32_t v = 0;
    for (size_t i = 0; i <= index; i++) {
        v = 0;
        for (int b = 0; b < 32; b++) {
            unsigned out = (ctx >> 15) & 1;
            v |= (uint32_t)out << b;
            ctx = (uint16_t)(ctx << 1);
            if (out)
                ctx ^= 0xA011;
        }
    }
    return v;
}

int vd_prim_id(uint32_t dw)
{
    switch (dw) {
    case PRIM_ALIGN:   return P_ALIGN;
    case PRIM_ALIGN_N: return P_ALIGN_N;
    case PRIM_CONT:    return P_CONT;
    case PRIM_SYNC:    return P_SYNC;
    case PRIM_R_RDY:   return P_R_RDY;
    case PRIM_R_OK:    return P_R_OK;
    case PRIM_R_ERR:   return P_R_ERR;
    case PRIM_R_IP:    return P_R_IP;
    case PRIM_X_RDY:   return P_X_RDY;
    case PRIM_WTRM:    return P_WTRM;
    case PRIM_SOF:     return P_SOF;
    case PRIM_EOF:     return P_EOF;
    case PRIM_HOLD:    return P_HOLD;
    case PRIM_HOLDA:   return P_HOLDA;
    case PRIM_DMAT:    return P_DMAT;
    case PRIM_PMREQ_P:
    case PRIM_PMREQ_S: return P_PMREQ;
    case PRIM_PMACK:   return P_PMACK;
    case PRIM_PMNAK:   return P_PMNAK;
    default:           return P_UNKNOWN;
    }
}
