/* SPDX-License-Identifier: BSD-2-Clause */
/* 8b10b line code (IBM / ANSI X3.230, as used by SATA) with running disparity.
 *
 * Codes are stored with bit 0 = 'a' = first bit on the line (the SerDes seam's convention), so
 * K28.5 is 0x17C with RD- and 0x283 with RD+. Tables are generated at start-up from the 5b/6b and
 * 3b/4b sub-block tables and checked for uniqueness.
 */
#include "internal.h"

/* 5b/6b for RD- written as "abcdei" strings; RD+ is the complement for unbalanced codes. */
static const char *const sb6[32] = {
    "100111", "011101", "101101", "110001", "110101", "101001", "011001", "111000",
    "111001", "100101", "010101", "110100", "001101", "101100", "011100", "010111",
    "011011", "100011", "010011", "110010", "001011", "101010", "011010", "111010",
    "110011", "100110", "010110", "110110", "001110", "101110", "011110", "101011",
};
/* 3b/4b "fghj" for RD- (data); index 8 is the alternate A7. */
static const char *const sb4d[9] = {
    "1011", "1001", "0101", "1100", "1101", "1010", "0110", "1110", "0111",
};
/* 3b/4b for K28.y with RD- at the 4b boundary. */
static const char *const sb4k[8] = {
    "1011", "0110", "1010", "1100", "1101", "0101", "1001", "0111",
};

uint16_t vd_enc_tab[2][512];
uint16_t vd_dec_tab[1024];
static int tables_ready;

static unsigned bits_of(const char *s)
{
    unsigned v = 0;
    for (int i = 0; s[i]; i++)
        if (s[i] == '1')
            v |= 1u << i;
    return v;
}

static int ones(unsigned v) { return __builtin_popcount(v); }

/* Encode one symbol (byte, k) from running disparity rd (0 = -, 1 = +); -1 if not a valid K. */
static int encode_ref(unsigned byte, int k, int rd, int *rd_out)
{
    unsigned x = byte & 31, y = byte >> 5;
    if (k && !(x == 28 || (y == 7 && (x == 23 || x == 27 || x == 29 || x == 30))))
        return -1;
    unsigned six = bits_of(k && x == 28 ? "001111" : sb6[x]);
    int n6 = ones(six);
    if (n6 != 3 || x == 7) {       /* unbalanced, or D.07 which has two forms */
        if (rd) six = ~six & 0x3F;
    }
    if (n6 != 3)
        rd = !rd;
    unsigned four;
    if (k && x == 28) {
        four = bits_of(sb4k[y]);
    } else if (y == 7 && (k || (!rd && (x == 17 || x == 18 || x == 20)) ||
                          (rd && (x == 11 || x == 13 || x == 14)))) {
        four = bits_of(sb4d[8]);
    } else {
        four = bits_of(sb4d[y]);
    }
    int n4 = ones(four);
    if (n4 != 2 || y == 3 || (k && x == 28)) {   /* K28.y: every 4b code has two forms */
        if (rd) four = ~four & 0xF;
    }
    if (n4 != 2)
        rd = !rd;
    *rd_out = rd;
    return (int)(six | four << 6);
}

void vd_8b10b_init(void)
{
    if (tables_ready)
        return;
    for (int c = 0; c < 1024; c++)
        vd_dec_tab[c] = VD_DEC_INVALID;
    for (int k = 0; k < 2; k++) {
        for (int b = 0; b < 256; b++) {
            for (int rd = 0; rd < 2; rd++) {
                int rdo;
                int code = encode_ref((unsigned)b, k, rd, &rdo);
                if (code < 0) {
                    vd_enc_tab[rd][k << 8 | b] = vd_enc_tab[rd][b] | VD_ENC_BADK;
                    continue;
                }
                vd_enc_tab[rd][k << 8 | b] = (uint16_t)(code | (rdo << 10));
                uint16_t e = vd_dec_tab[code];
                uint16_t val = (uint16_t)(b | k << 8);
                if (!(e & VD_DEC_INVALID) && (e & 0x1FF) != val) {
                    /* two symbols share a code: the tables are wrong */
                    fprintf(stderr, "vdrive: 8b10b table conflict at 0x%03x\n", code);
                    abort();
                }
                if (e & VD_DEC_INVALID)
                    e = val;
                e |= rd ? VD_DEC_OK_POS : VD_DEC_OK_NEG;
                if (rdo != rd)
                    e |= VD_DEC_FLIP;
                vd_dec_tab[code] = e;
            }
        }
    }
    /* Where a symbol is wrong, resynchronise the running disparity from the code's own weight. */
    for (int c = 0; c < 1024; c++) {
        int n = ones((unsigned)c);
        if (n > 5) vd_dec_tab[c] |= VD_DEC_SET_POS;
        else if (n < 5) vd_dec_tab[c] |= VD_DEC_SET_NEG;
    }
    tables_ready = 1;
}

uint32_t vdrive_8b10b_encode(uint8_t byte, int k, int *rd)
{
    vd_8b10b_init();
    uint16_t e = vd_enc_tab[*rd & 1][(k ? 256 : 0) | byte];
    *rd = (e >> 10) & 1;
    return e & 0x3FF;
}

int vdrive_8b10b_decode(uint32_t code, int *rd)
{
    vd_8b10b_init();
    int err = 0;
    unsigned v = vd_8b10b_dec(code & 0x3FF, rd, &err);
    if (err & VD_SYM_INVALID) return -1;
    if (err & VD_SYM_DISP) return -2;
    return (int)v;
}
