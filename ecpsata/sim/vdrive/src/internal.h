/* SPDX-License-Identifier: BSD-2-Clause */
/* vdrive internals: the model's state, shared by the layer files. */
#ifndef VDRIVE_INTERNAL_H
#define VDRIVE_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vdrive.h"
#include "health.h"             /* SMART, logs, sanitize: their state and functions */

#define VD_WORD_MASK 0xFFFFFu

/* Time base: one tick is one Gen2 unit interval (333.33 ps), so a Gen2 word is 20 ticks, a Gen1
 * word 40 ticks and a Gen1 UI (the OOB time base) 2 ticks. Everything is counted, never measured. */
#define VD_TICKS_PER_NS 3ull
#define VD_TICKS_PER_US 3000ull
#define VD_NS(x)  ((uint64_t)((x) * 3))
/* Ranges of the impairment keys (config.c; no suffix: they are printed in messages). */
#define VD_ECHO_NS_MAX        1000
#define VD_ALIGN_DWELL_US_MAX 1000
#define VD_PPM_MAX            5000   /* |ppm|; SATA allows 350 */
#define VD_SPINUP_MS_MAX      60000
#define VD_SPINUP_US_MAX      999
#define VD_FAULT_REPEAT_MAX   1000000
#define VD_PM_US_MAX          100000   /* pmreq_idle_us, pmreq_wait_us */
#define VD_SETUP_MAX          1073741824   /* |setup_offset|, |setup_count_delta|, bytes */
#define VD_RX_FIFO_MAX        1024
#define VD_RX_HOLD_EVERY_MIN  16
#define VD_RX_HOLD_EVERY_MAX  8192
#define VD_RX_HOLD_KEEP       32       /* rx_fifo: dword times of HOLD after the host's HOLDA */
/* ATA status bits a command's end must have clear (with ERR: AHCI's completion rule) */
#define VD_ST_BSY             0x80
#define VD_ST_DRQ             0x08
/* Spread-spectrum clocking (ssc=1): down-spread to -5000 ppm, a triangle at 31.5 kHz */
#define VD_SSC_PPM            5000.0
#define VD_SSC_PERIOD_TICKS   95238ull
/* echo_ns history: one entry per 20 ticks (a Gen2 word), a power of two covering the longest
 * echo plus a Gen1 word */
#define VD_ECHO_SLOTS 256
_Static_assert(VD_ECHO_SLOTS >= VD_ECHO_NS_MAX * 3 / 20 + 3, "echo ring too short");

/* ---- 8b10b ---------------------------------------------------------------------------------- */
#define VD_DEC_OK_NEG  (1u << 9)    /* code valid with RD- */
#define VD_DEC_OK_POS  (1u << 10)   /* code valid with RD+ */
#define VD_DEC_FLIP    (1u << 11)   /* unbalanced: flips RD */
#define VD_DEC_SET_POS (1u << 12)   /* after an error: weight says RD+ */
#define VD_DEC_SET_NEG (1u << 13)
#define VD_DEC_INVALID (1u << 14)   /* not an 8b10b code at all */
#define VD_ENC_BADK    (1u << 15)
#define VD_SYM_INVALID 1
#define VD_SYM_DISP    2
#define VD_K28_5       (0x100u | 0xBC)

extern uint16_t vd_enc_tab[2][512];   /* [rd][k << 8 | byte] -> code | rd_out << 10 */
extern uint16_t vd_dec_tab[1024];
void vd_8b10b_init(void);

static inline unsigned vd_8b10b_dec(unsigned code, int *rd, int *err)
{
    unsigned e = vd_dec_tab[code];
    if (e & (*rd ? VD_DEC_OK_POS : VD_DEC_OK_NEG)) {
        *rd ^= (e >> 11) & 1;
        return e & 0x1FF;
    }
    *err |= (e & VD_DEC_INVALID) ? VD_SYM_INVALID : VD_SYM_DISP;
    if (e & VD_DEC_SET_POS) *rd = 1;
    else if (e & VD_DEC_SET_NEG) *rd = 0;
    return e & 0x1FF;
}

static inline unsigned vd_8b10b_enc(unsigned sym, int *rd)
{
    unsigned e = vd_enc_tab[*rd][sym];
    *rd = (e >> 10) & 1;
    return e & 0x3FF;
}

/* ---- primitives (dword, first byte K28.x) ---------------------------------------------------- */
#define PRIM_ALIGN   0x7B4A4ABCu
#define PRIM_ALIGN_N 0x7BB5B5BCu   /* ALIGN seen through an inverted line */
#define PRIM_CONT    0x9999AA7Cu
#define PRIM_SYNC    0xB5B5957Cu
#define PRIM_R_RDY   0x4A4A957Cu
#define PRIM_R_OK    0x3535B57Cu
#define PRIM_R_ERR   0x5656B57Cu
#define PRIM_R_IP    0x5555B57Cu
#define PRIM_X_RDY   0x5757B57Cu
#define PRIM_WTRM    0x5858B57Cu
#define PRIM_SOF     0x3737B57Cu
#define PRIM_EOF     0xD5D5B57Cu
#define PRIM_HOLD    0xD5D5AA7Cu
#define PRIM_HOLDA   0x9595AA7Cu
#define PRIM_DMAT    0x3636B57Cu
#define PRIM_PMREQ_P 0x1717B57Cu
#define PRIM_PMREQ_S 0x7575957Cu
#define PRIM_PMACK   0x9595957Cu
#define PRIM_PMNAK   0xF5F5957Cu

enum vd_prim {
    P_NONE = 0, P_ALIGN, P_CONT, P_SYNC, P_R_RDY, P_R_OK, P_R_ERR, P_R_IP, P_X_RDY, P_WTRM,
    P_SOF, P_EOF, P_HOLD, P_HOLDA, P_DMAT, P_PMREQ, P_PMACK, P_PMNAK, P_ALIGN_N, P_UNKNOWN
};
int vd_prim_id(uint32_t dw);

/* ---- link helpers (crc.c) --------------------------------------------------------------------- */
#define VD_TX_DATA_MAX_DW 16384   /* data_fis_dwords may break the SATA limit of 2048 up to this */
#define VD_TX_FRAME_MAX  (1 + VD_TX_DATA_MAX_DW + 1)
#define VD_SCR_LEN (VD_TX_FRAME_MAX + 16)   /* covers the longest frame, with margin */
extern uint32_t vd_scr_tab[VD_SCR_LEN];
void vd_crc_init(void);
uint32_t vd_crc_update(uint32_t crc, const uint32_t *dw, size_t n);
#define VD_CRC_SEED 0x52325032u

/* ---- FIS ------------------------------------------------------------------------------------- */
#define FIS_REG_H2D   0x27
#define FIS_REG_D2H   0x34
#define FIS_DMA_ACT   0x39
#define FIS_PIO_SETUP 0x5F
#define FIS_DATA      0x46
#define FIS_DMA_SETUP 0x41
#define FIS_SDB       0xA1
/* unknown_fis: a type SATA 3.x lists as "reserved for future Serial ATA definition" */
#define FIS_RESERVED  0xD9
#define VD_DATA_MAX_DW 2048             /* 8192 bytes: the most a Data FIS may carry */
#define VD_FRAME_MAX  (1 + VD_DATA_MAX_DW + 1)
#define VD_FRAME_SLACK 4                /* dwords an injected fault may add (long + extra) */
_Static_assert(VD_TX_FRAME_MAX + VD_FRAME_SLACK <= VD_SCR_LEN, "scrambler table too short");

/* ---- state ----------------------------------------------------------------------------------- */
enum vd_phy_state {
    PS_OFF,          /* link down, line idle; spontaneous COMINIT timer runs */
    PS_RESET_HOLD,   /* COMRESET detected; answer when the host's sequence ends */
    PS_COMINIT,      /* sending COMINIT */
    PS_AWAIT_WAKE,   /* COMINIT sent, waiting for the host's COMWAKE */
    PS_WAKE_HOLD,    /* COMWAKE detected; answer when the host's sequence ends */
    PS_COMWAKE,      /* sending COMWAKE */
    PS_ALIGN,        /* speed negotiation: ALIGN at dev_gen */
    PS_DWELL,        /* host ALIGN seen, ALIGN kept up for align_dwell_us before SYNC */
    PS_LINKED        /* host ALIGN seen: link layer runs */
};

enum vd_link_state {
    L_IDLE, L_SEND_XRDY, L_SEND_SOF, L_SEND_DATA, L_SEND_EOF, L_SEND_WTRM, L_SEND_ESC,
    L_RCV_RDY, L_RCV_DATA, L_RCV_RESP, L_PMNAK,
    L_PMREQ          /* device-initiated PMREQ_P / PMREQ_S (L_TPMPartial / L_TPMSlumber) */
};

/* Who queued the frame in flight; its end goes back there. */
enum { VD_OWN_TP, VD_OWN_CMD, VD_OWN_NCQ, VD_OWN_FAULT };
/* The end of a transmitted frame, as the owners see it. */
#define VD_TX_ESCAPED (-1)       /* the drive aborted it with SYNC (escape_fis) */

struct vd_txframe {
    uint32_t dw[VD_TX_FRAME_MAX + VD_FRAME_SLACK];   /* header..CRC, already scrambled */
    int n, idx;
    int end;                     /* dwords sent before EOF; fewer than n: SYNC escape there */
    int pending;                 /* queued, not yet finished */
    int paced;                   /* data FIS whose payload becomes available over time */
    int is_data;
    int owner;                   /* VD_OWN_* */
    int drop;                    /* fuzz: never sent, finished as if the host took it */
    int no_resend;               /* fuzz: refused (R_ERR), it counts as taken */
};

struct vd_rxframe {
    uint32_t dw[VD_FRAME_MAX + 1];   /* descrambled */
    int n;
    int bad;                          /* code violation or overflow inside the frame */
};

struct vd_store {
    int fd;
    uint64_t sectors;
    /* volatile: open-addressing hash of 4 KiB pages */
    uint64_t *keys;
    uint8_t **pages;
    size_t slots, used;
};

struct vd_cmd {
    int active, phase;
    uint8_t op;
    int is_write, is48;
    uint64_t lba;
    uint32_t count, done;       /* sectors */
    uint32_t chunk;             /* read: payload dwords in the Data FIS in flight */
    uint64_t t_ready;           /* earliest tick for the next step */
    uint8_t status, error;
    uint64_t err_lba;
    /* read stream: payload dword i of the command is available at t0 + (i + ofs) * tpd */
    uint64_t rd_t0, rd_tmin;
    int64_t rd_ofs;
    uint64_t rd_tpd_q16;
    uint64_t dw_sent;           /* payload dwords already sent in this command */
    int retries;
    int ncq;                    /* data phase of a queued command (ncq.c owns the tag) */
    int tag;
    int pio_blk;                /* PIO data-in: DRQ block being sent */
    int dsm;                    /* DATA SET MANAGEMENT: the data-out carries range entries */
    uint32_t part;              /* write: bytes of a sector received so far (after DMAT) */
    int interim;                /* interim_status: 1 its Register D2H is owed, 2 in flight */
    uint32_t ifis[3];           /* ... the command FIS's LBA, device and count dwords */
    int retries_im;             /* ... its resends */
    int pio_lost;               /* pio_lost_data: this command's Data FIS never goes */
    /* data-in from a buffer (IDENTIFY, logs, SMART pages): what fills vd->pio_buf, in pages */
    int src;                    /* VD_SRC_* */
    int pages;                  /* 512-byte pages the command moves (PIO: pio_blocks each) */
    uint8_t log;                /* READ LOG (DMA) EXT: log address, first page, Features */
    uint16_t log_page, log_feat;
    /* outputs of a command whose Register D2H carries more than its own LBA (SMART RETURN
     * STATUS, SANITIZE): LBA and Count as they go to the host */
    int out_set;
    uint64_t out_lba;
    uint16_t out_count;
};

/* Native Command Queuing (ncq.c). A tag is outstanding from its command FIS until an SDB FIS
 * reports it; the data phase of the tag being served runs in struct vd_cmd. */
#define VD_NCQ_MAX 32
enum { NS_FREE, NS_QUEUED, NS_READY, NS_XFER, NS_DONE };
struct vd_ncq_slot {
    uint8_t state, is_write;
    uint64_t lba;
    uint32_t count;
    uint64_t seq;               /* arrival order */
    uint64_t t_arrive;
    uint64_t t_ready;           /* NS_READY: the data phase may start; NS_DONE: report from */
    uint64_t rd_t0;             /* reads: first payload dword available */
};

struct vd_ncq {
    uint32_t active;            /* outstanding tags */
    uint32_t done;              /* finished, waiting for their SDB */
    int reply_pending;          /* Register D2H answering a command FIS */
    uint8_t reply_status, reply_error;
    int err_pending;            /* SDB with ERR */
    uint8_t err_status, err_error;
    uint32_t err_bits;          /* completed tags reported with the error */
    int halted;                 /* after an NCQ error: FPDMA aborts until READ LOG EXT 10h */
    int tx_kind;                /* FIS in flight: 1 reply, 2 SDB, 3 error SDB, 4 DMA Setup */
    uint32_t tx_bits;
    int setup_auto, retries;
    uint64_t seq;
    uint64_t next_t;            /* nothing to do before this tick (when idle) */
    uint64_t chan_free[VD_NCQ_MAX];
    struct vd_ncq_slot slot[VD_NCQ_MAX];
    uint8_t log[512];           /* NCQ command error log (page 10h) */
};

struct vd_persona_state {
    uint64_t rd_tpd_q16, wr_tpd_q16;   /* ticks per payload dword, Q16; 0 = unlimited */
    uint64_t wr_busy_until;            /* media busy with cached writes until */
    uint64_t wr_cache_ticks;           /* cache size expressed in drain ticks */
    int write_cache;
    int look_ahead;                    /* SET FEATURES 0xAA/0x55: read-ahead on rotating media */
    /* rotating media */
    uint64_t head_lba;
    uint64_t stream_lba, stream_t0;    /* read stream: sector stream_lba at stream_t0 */
    uint64_t cache_lo, cache_hi;       /* sectors held in the read cache [lo, hi) */
    uint64_t ra_limit;                 /* read-ahead stops at this sector */
    uint64_t rot_ticks;                /* one revolution */
};

/* flash.c: page-mapped flash behind the logical space (persona=flash) */
struct vd_flash {
    uint32_t ppb;              /* pages (4 KiB) per erase block */
    uint32_t lpages, nblocks;  /* logical pages (the capacity), physical blocks */
    uint32_t *l2p;             /* logical page -> physical page, or VD_FLASH_NONE */
    uint32_t *p2l;             /* physical page -> logical page it holds valid, or VD_FLASH_NONE */
    uint32_t *valid;           /* valid pages per block */
    uint8_t *state;            /* per block: free (erased), open, full */
    uint32_t *ring;            /* the free blocks, oldest erase first */
    uint32_t ring_head, nfree;
    uint32_t open, wp;         /* block being programmed and its next page; VD_FLASH_NONE */
    uint32_t buf_lpn, buf_ppn; /* the last page programmed, still in the program buffer */
    uint64_t copy_ticks, erase_ticks;
};
#define VD_FLASH_NONE UINT32_MAX

struct vd_rng { uint64_t s; };

/* Protocol faults on intact frames, repeats and fuzzing (faults.c, fuzz.c). */
#define VD_FUZZ_LOG 64
enum {                          /* fault kinds on a transmitted frame (bits) */
    VF_CRC = 1, VF_BAD = 2, VF_LONG = 4, VF_SHORT = 8, VF_ESCAPE = 16, VF_UNKNOWN = 32,
    VF_STRAY = 64, VF_EXTRA = 128, VF_DUP = 256, VF_INTERIM = 512, VF_LONG_DATA = 1024
};
/* what fault_repeat repeats on a resent frame (inserted frames repeat themselves) */
#define VF_REPEATABLE (VF_CRC | VF_BAD | VF_LONG | VF_SHORT | VF_ESCAPE)
enum { FZ_LONG, FZ_SHORT, FZ_UNKNOWN, FZ_STRAY, FZ_EXTRA, FZ_FIELD, FZ_DUP, FZ_DROP,
       FZ_INTERIM, FZ_PMREQ, FZ_NO_RESEND, FZ_SETUP, FZ_LONG_DATA, FZ_KINDS };
/* The kinds' names (fuzz log, statistics fuzz_<name>, the fuzz_kinds key), in FZ_* order. */
#define VD_FUZZ_KIND_NAMES(X) X(long) X(short) X(unknown) X(stray) X(extra) X(field) X(dup) \
                              X(drop) X(interim) X(pmreq) X(no_resend) X(setup) X(long_data)
#define VD_FZ_ALL ((1u << FZ_KINDS) - 1)        /* every kind: cfg.fuzz_skip's valid bits */
enum { HOLD_NONE, HOLD_BEHIND, HOLD_DUP };
struct vd_fuzz_entry { uint32_t frame; uint8_t type, kind, field; };
struct vd_faults {
    int tx_any, rx_any;         /* a key or fuzz acts on D2H / H2D frames: take the slow path */
    uint32_t data_n;            /* D2H Data FISes queued (extra_data) */
    uint32_t rx_data_n;         /* H2D Data FISes received (dmat_fis) */
    uint32_t rx_sof_n;          /* host SOFs seen (lose_sof) */
    int rx_dmat;                /* host frame being received: 1 DMAT due, 2 DMAT sent */
    int rx_dmat_at;             /* dwords received when the first DMAT went out */
    int drop_armed;             /* drop_after_dwords: the link drop has not happened yet */
    uint64_t silence_at;        /* sanitize_drop_ms: when the link drops, UINT64_MAX = never */
    int silence_fired;          /* ... it has happened (once per power-on) */
    uint64_t data_dwords;       /* payload dwords moved, for drop_after_dwords */
    uint32_t cmds_seen;         /* commands answered, for stop_after_cmds */
    int stopped;                /* stop_after_cmds reached: commands ignored until COMRESET */
    int stop_fired;
    int short_carry;            /* short_fis met a 1-dword FIS: the next one that can */
    /* repeats of a refused faulted frame (fault_repeat) */
    unsigned cur;               /* repeatable faults on the frame in flight */
    unsigned rep_kind;          /* ... on the last faulted frame */
    uint32_t rep_left;
    int rep_armed;              /* refused: the same FIS, queued next, is faulted again */
    int rep_active;             /* retry limits raised until a frame goes through */
    uint32_t rep_sig[7];
    int rep_n;
    uint32_t rx_left;           /* rerr_fis repeats on the host's resends */
    uint32_t rx_sig[7];
    int rx_n;
    /* inserted frames (unknown, stray, fuzz duplicate) */
    int held;                   /* HOLD_*: what hold is */
    int ins_kind;               /* VF_UNKNOWN, VF_STRAY or 0 (duplicate) in flight */
    int ins_key;                /* ... put there by a key (counted, repeated), not by fuzz */
    uint32_t ins_left;          /* repeats left for the inserted frame */
    int stray_pending;
    uint8_t interim_status;     /* fuzz interim: the status of the Register D2H inserted */
    int pm_due;                 /* fuzz pmreq: VDRIVE_PMREQ_* once the link is idle, 0 none */
    uint32_t pio_cmds;          /* PIO data-in commands (pio_lost_data) */
    struct vd_txframe hold;
    /* fuzz */
    struct vd_rng rng;
    struct vd_fuzz_entry log[VD_FUZZ_LOG];
    uint32_t log_n;             /* entries ever written */
};

/* why the layers reset: creation, COMRESET, a quiet line, a dropped link (fault), SRST */
enum { VD_RESET_NONE, VD_RESET_COMRESET, VD_RESET_LOS, VD_RESET_DROP, VD_RESET_SRST };

/* The layers call down directly; they report up only through this table, which vdrive_create()
 * fills in (vdrive.c). Each group is what one layer asks of the layer above it. */
struct vd_upcalls {
    /* physical layer -> link layer */
    void     (*phy_linked)(vdrive_t *vd);            /* host ALIGN seen: the link layer starts */
    void     (*phy_down)(vdrive_t *vd, int why);     /* VD_RESET_COMRESET, _LOS or _DROP */
    void     (*phy_rx)(vdrive_t *vd, uint32_t dw, int kind);   /* kind 0 data, 1 K, 2 bad */
    uint32_t (*phy_tx)(vdrive_t *vd, int *k);        /* the next dword to send */
    /* link layer -> transport layer */
    void (*link_up)(vdrive_t *vd);                   /* first primitive after ALIGN */
    void (*link_down)(vdrive_t *vd, int why);        /* before the link resets itself */
    int  (*frame_received)(vdrive_t *vd, const uint32_t *dw, int n, int dmat);  /* 1 = R_OK */
    void (*frame_bad)(vdrive_t *vd);                 /* a host frame failed (CRC, R_ERR) */
    void (*frame_sent)(vdrive_t *vd, int ok, int owner);   /* ok: 1, 0 or VD_TX_ESCAPED */
    void (*poll)(vdrive_t *vd);                      /* link idle and want_poll set */
    /* link layer -> whoever moves the data (command layer): flow control inside frames */
    uint64_t (*tx_ready_at)(vdrive_t *vd, uint64_t dw);   /* payload dword dw of the frame */
    int  (*rx_hold)(vdrive_t *vd, int ndw, int holding);  /* 1 = HOLD the host's data */
    /* transport layer -> command layer (queued commands included) */
    void (*cmd_start)(vdrive_t *vd, const uint32_t *fis);
    void (*cmd_reset)(vdrive_t *vd, int why);        /* VD_RESET_*: abort everything */
    void (*cmd_poll)(vdrive_t *vd);
    int  (*cmd_busy)(const vdrive_t *vd);            /* a command or queued tag outstanding */
    void (*cmd_sent)(vdrive_t *vd, int ok, int owner);   /* VD_OWN_CMD or VD_OWN_NCQ frame */
    int  (*cmd_data)(vdrive_t *vd, const uint32_t *dw, int n, int dmat);   /* 0 = refused */
    void (*cmd_data_error)(vdrive_t *vd);            /* a host Data FIS failed */
};

struct vdrive {
    vdrive_config_t cfg;
    const struct vd_upcalls *up;
    vdrive_stats_t st;
    uint64_t now;              /* ticks */
    uint32_t control_words;    /* host words since the control file was last checked */
    int64_t control_mtime_ns;  /* its modification time when it was last read */

    /* --- physical layer --- */
    int ps;
    int dev_gen;               /* rate the drive transmits / receives at */
    uint64_t ps_t0;            /* start of the current phy state */
    uint64_t linkdown_t0;      /* for the spontaneous COMINIT timer */
    uint64_t silent_until;     /* no OOB answered, none sent, before this (sanitize_drop_ms) */
    int oob_kind;              /* sequence being sent: 0 COMINIT, 1 COMWAKE */
    /* OOB receive (host line) */
    uint32_t oob_run;          /* ticks since the last transition on the host line */
    uint32_t oob_active;       /* ticks of activity since the last gap */
    uint32_t oob_last_bit;
    int oob_wake_n, oob_reset_n, oob_pending;
    /* line impairments */
    int h2d_imp, d2h_imp;
    uint32_t h2d_prev, d2h_prev;
    uint64_t ber_h2d_skip, ber_d2h_skip;
    /* drive receiver */
    int rx_aligned, rx_off, rx_phase, rx_rd, rx_inv, rx_err_score;
    uint32_t rx_prev, rx_half;
    int rx_half_kind;
    /* drive transmitter */
    int tx_phase, tx_rd;
    uint32_t tx_next;
    uint64_t garbage;          /* LFSR for rate-mismatched output */
    /* near-end echo of the host's own transmitter on its rx_los (echo_ns) */
    uint8_t echo_ring[VD_ECHO_SLOTS];   /* host line active, per 20-tick slot */
    uint32_t host_word;        /* the host's latest raw word, as it left the host */
    unsigned echo_delay;       /* slots */

    /* --- link layer --- */
    int ls;
    int rx_prim, rx_cont, rx_hold, rx_hold_seen;
    int tx_align_cnt, tx_align_left;
    int tx_holding;            /* we send HOLD as transmitter (read pacing) */
    int rcv_holding;           /* we send HOLD as receiver (write pacing) */
    int rcv_result;            /* R_OK (1) or R_ERR (0) after EOF */
    int pm_nak_left;
    /* device-initiated power management (pmreq, fuzz pmreq; pm.c) */
    struct {
        int on;                 /* pmreq or the fuzzer may ask: check while idle */
        int armed;              /* pmreq may ask (not since a refusal or no answer) */
        uint32_t prim;          /* PMREQ_P or PMREQ_S being sent */
        uint64_t since;         /* idle since */
        uint64_t t0;            /* request started */
    } pm;
    /* rx_fifo: HOLD into the host's Data FIS every rx_hold_every payload dwords */
    struct {
        int state;              /* 0 receiving, 1 HOLD sent (no HOLDA yet), 2 HOLD kept */
        int keep;               /* state 2: dword times of HOLD left */
        int64_t left;           /* payload dwords to take before the next HOLD, from ref */
        int ref;                /* payload dwords of the frame when left was set */
        int n0;                 /* frame dwords received when the HOLD began */
    } rxq;
    uint32_t cont_last; int cont_rep, cont_mode; uint32_t cont_lfsr;
    struct vd_txframe txf;
    struct vd_rxframe rxf;
    int linkup_pending;        /* the link is up at the host's first non-ALIGN primitive */
    struct {                   /* the host's answer times (answers.c) */
        uint64_t since[5];     /* now + 1 when the primitive asking for each went out; 0 idle */
        int kind;              /* the FIS type of the frame whose EOF went out */
        int collided;          /* this X_RDY was answered by the host's X_RDY */
    } ans;
    int want_poll;             /* set by the transport: upper layers have work when idle */
    uint32_t h2d_fis_n, d2h_fis_n;   /* frames received / queued (the frame fault keys count) */

    /* --- transport / commands --- */
    struct vd_cmd cmd;
    struct vd_ncq ncq;
    int sig_pending;           /* send the power-on/reset signature FIS */
    int sig_retries;
    int sig_tx_busy;           /* the signature FIS in flight is the BSY one */
    int tp_busy;               /* a command was outstanding at the last poll update */
    int spin;                  /* 0 waiting for the first link-up, 1 spinning up, 2 ready */
    uint64_t spin_t0, spin_end;
    int busy_due;              /* busy_fis: a BSY Register D2H is owed after this link-up */
    unsigned lss;              /* log2(logical sector / 512): 0 or 3 */
    uint64_t cap_img;          /* usable capacity in 512-byte image sectors (whole logicals) */
    /* settings (SET FEATURES; power-on values again at COMRESET when SSP is disabled) */
    int sata_aa, sata_dipm, sata_ssp;

    /* --- storage / persona / faults --- */
    struct vd_store store;
    struct vd_persona_state pers;
    struct vd_flash flash;
    struct vd_rng rng;
    uint16_t identify[256];
    uint8_t xfer_dma;          /* selected DMA mode, SET FEATURES 03h code: 0x20|n MWDMA, 0x40|n UDMA */
    uint8_t secbuf[VD_DATA_MAX_DW * 4];   /* DATA SET MANAGEMENT range entries */
    uint8_t wr_part[512];                  /* a write's partial sector (after DMAT) */
    uint32_t pio_buf[VD_LOG_PAGES_MAX * 128];   /* data-in pages being sent (PIO or DMA) */
    struct vd_faults flt;

    /* --- health: SMART, logs, sanitize --- */
    struct vd_health health;
    struct vd_sanitize san;
    int smart_on;              /* SMART ENABLE / DISABLE OPERATIONS (power-on: cfg.smart) */
    uint64_t pe_base[VD_PE_COUNT];   /* phy event counts at the last reset of log 11h */
    uint32_t tx_last[7];       /* the last non-Data FIS queued (first dwords), for 0008h */
    int tx_last_n;
    int tx_refused;            /* ... the host refused it (or the drive abandoned it) */
    int sig_comreset;          /* the signature owed is a COMRESET's (000Ah) */
};

/* phy.c */
void vd_phy_reset(vdrive_t *vd);
void vd_phy_drop_link(vdrive_t *vd);   /* fault: drop the link and send COMINIT */
/* link.c (the functions the phy reaches through the table are the vd_link_phy_* ones) */
void vd_link_reset(vdrive_t *vd);
void vd_link_phy_linked(vdrive_t *vd);
void vd_link_phy_down(vdrive_t *vd, int why);
void vd_link_rx(vdrive_t *vd, uint32_t dw, int kind);   /* kind 0 data, 1 K, 2 bad */
uint32_t vd_link_tx(vdrive_t *vd, int *k);
/* queue a FIS (owner VD_OWN_*); faults may change what goes on the wire. paced: the payload
 * becomes available over time (up->tx_ready_at) */
void vd_link_queue(vdrive_t *vd, const uint32_t *fis, int n, int paced, int owner);
uint32_t *vd_link_tx_buf(vdrive_t *vd);             /* fill in place, then vd_link_queue() it */
void vd_link_pm_allow(vdrive_t *vd);   /* a command completed: pmreq may ask again once idle */
void vd_link_set_poll(vdrive_t *vd, int want);      /* call up->poll whenever the link is idle */
void vd_link_seal(struct vd_txframe *f, int n);     /* CRC after n dwords */
void vd_link_arm(struct vd_txframe *f, int end);    /* scramble, ready to send */
/* answers.c: the host's answer times (vdrive_stats_t host_*) */
void vd_answers_reset(vdrive_t *vd);
void vd_answers_sent(vdrive_t *vd, uint32_t dw);   /* a primitive of the link layer's own */
void vd_answers_got(vdrive_t *vd, int p);          /* a primitive from the host, before it acts */
/* pm.c: device-initiated power management requests (link layer, states L_IDLE and L_PMREQ) */
void vd_pm_init(vdrive_t *vd);
void vd_pm_reset(vdrive_t *vd);
uint32_t vd_pm_idle(vdrive_t *vd);        /* idle dword: PMREQ_x when a request starts, else 0 */
uint32_t vd_pm_tx(vdrive_t *vd);          /* L_PMREQ: the dword to send */
void vd_pm_rx(vdrive_t *vd, int p);       /* L_PMREQ: a primitive from the host */
/* transport.c */
void vd_tp_reset(vdrive_t *vd);
void vd_tp_link_up(vdrive_t *vd);
void vd_tp_link_down(vdrive_t *vd, int why);
void vd_tp_poll(vdrive_t *vd);
void vd_tp_update_poll(vdrive_t *vd);
int  vd_tp_rx_fis(vdrive_t *vd, const uint32_t *dw, int n, int dmat);   /* 1 = R_OK */
void vd_tp_tx_done(vdrive_t *vd, int ok, int owner);   /* ok: 1 R_OK, 0 refused, VD_TX_ESCAPED */
void vd_tp_rx_bad(vdrive_t *vd);
/* command.c: the command layer's side of the table, and the queued data phase */
void vd_cmd_start(vdrive_t *vd, const uint32_t *fis);
void vd_cmd_reset(vdrive_t *vd, int why);
void vd_cmd_poll(vdrive_t *vd);
int  vd_cmd_busy(const vdrive_t *vd);
void vd_cmd_sent(vdrive_t *vd, int ok, int owner);
int  vd_cmd_data_fis(vdrive_t *vd, const uint32_t *dw, int n, int dmat);
void vd_cmd_data_error(vdrive_t *vd);
/* ... inside the layer (command.c, dataout.c, cmdhealth.c): the phases of struct vd_cmd, a
 * command's end */
enum {
    CP_IDLE, CP_STATUS, CP_STATUS_WAIT, CP_PIO_SETUP, CP_PIO_SETUP_WAIT, CP_PIO_DATA,
    CP_PIO_DATA_WAIT, CP_READ, CP_READ_WAIT, CP_WRITE_ACT, CP_WRITE_ACT_WAIT, CP_WRITE_DATA,
    CP_BUF_DATA, CP_BUF_DATA_WAIT   /* DMA data-in from vd->pio_buf (READ LOG DMA EXT) */
};
void vd_cmd_finish(vdrive_t *vd, uint8_t status, uint8_t error);   /* status next (or the SDB) */
/* cmdhealth.c: READ LOG (DMA) EXT, SMART, SANITIZE; the pages of buffered data-in */
void vd_cmd_health(vdrive_t *vd, const uint32_t *fis);
void vd_cmd_fill_pages(vdrive_t *vd);    /* vd->pio_buf from cmd.src */
void vd_cmd_send_pages(vdrive_t *vd);    /* READ LOG DMA EXT: the next Data FIS */
void vd_cmd_fail(vdrive_t *vd, uint8_t error, uint64_t lba);       /* ... with ERR, after cmd_us */
uint64_t vd_cmd_tx_ready_at(vdrive_t *vd, uint64_t dw);
int  vd_cmd_rx_hold(vdrive_t *vd, int ndw, int holding);
void vd_identify_build(vdrive_t *vd);
/* features.c: SET FEATURES, DATA SET MANAGEMENT, settings at power-on / COMRESET */
int  vd_set_features(vdrive_t *vd, uint8_t feat, uint8_t count);   /* -1 = abort */
void vd_settings_power_on(vdrive_t *vd);
void vd_settings_comreset(vdrive_t *vd);
int  vd_dsm_trim(vdrive_t *vd, const uint8_t *entries, uint32_t bytes);   /* -1 = abort */
/* ncq.c: called by command.c only; it never calls command.c and never touches vd->cmd. What the
 * command layer must do about a tag's data phase comes back in return values. */
#define VD_NCQ_TAKEN    1       /* vd_ncq_command: the FIS was queued or answered */
#define VD_NCQ_ABORT    2       /* ... a non-queued command with tags outstanding: abort it */
#define VD_NCQ_DROPPED  4       /* ... the queue was dropped: end a queued data phase */
enum { VD_NCQ_IDLE, VD_NCQ_XFER, VD_NCQ_SERVE };   /* vd_ncq_poll */
enum { VD_NCQ_KEEP, VD_NCQ_GO, VD_NCQ_GO_AUTO, VD_NCQ_END };   /* vd_ncq_tx_done */
struct vd_ncq_serve { int tag, is_write; uint64_t lba, rd_t0; uint32_t count; };
void vd_ncq_reset(vdrive_t *vd);
int  vd_ncq_busy(const vdrive_t *vd);
int  vd_ncq_command(vdrive_t *vd, const uint32_t *fis);   /* VD_NCQ_* bits, 0 = not queued */
/* xfer: a tag's data phase runs; VD_NCQ_XFER: go on with it, VD_NCQ_SERVE: open *sv's */
int  vd_ncq_poll(vdrive_t *vd, int xfer, struct vd_ncq_serve *sv);
/* xfer_tag: the tag whose data phase runs (-1 none); returns VD_NCQ_KEEP / GO / GO_AUTO / END */
int  vd_ncq_tx_done(vdrive_t *vd, int ok, int xfer_tag);
/* a tag's data phase is over (command.c has cleared it) */
void vd_ncq_finished(vdrive_t *vd, int tag, uint8_t status, uint8_t error, uint64_t t_ready,
                     uint64_t err_lba);
const uint8_t *vd_ncq_log(vdrive_t *vd);                 /* READ LOG EXT 10h; clears the halt */
int  vd_identify_set_xfer(vdrive_t *vd, uint8_t mode);   /* SET FEATURES 03h; -1 = abort */
/* storage.c */
int  vd_store_open(vdrive_t *vd, char *err, size_t errlen);
void vd_store_close(vdrive_t *vd);
int  vd_store_read(vdrive_t *vd, uint64_t lba, uint32_t n, uint8_t *buf);
int  vd_store_write(vdrive_t *vd, uint64_t lba, uint32_t n, const uint8_t *buf);
int  vd_store_flush(vdrive_t *vd);
int  vd_store_trim(vdrive_t *vd, uint64_t lba, uint64_t n);   /* reads back as zeros */
int  vd_store_erase(vdrive_t *vd);       /* sanitize: all zeros, the memory given back */
/* flash.c */
int  vd_flash_check(const vdrive_config_t *c, char *err, size_t errlen);
int  vd_flash_open(vdrive_t *vd, char *err, size_t errlen);
void vd_flash_close(vdrive_t *vd);
uint64_t vd_flash_write(vdrive_t *vd, uint64_t lba, uint32_t sectors);  /* GC ticks it needs */
void vd_flash_trim(vdrive_t *vd, uint64_t lba, uint64_t n);
void vd_flash_erase(vdrive_t *vd);      /* sanitize: every block erased, nothing mapped */
/* persona.c */
int  vd_persona_preset(vdrive_config_t *cfg, const char *name);
void vd_persona_init(vdrive_t *vd);
void vd_persona_read_start(vdrive_t *vd);
void vd_persona_read_end(vdrive_t *vd);
static inline uint64_t vd_read_avail(const vdrive_t *vd, uint64_t dw)
{
    const struct vd_cmd *c = &vd->cmd;
    int64_t i = (int64_t)dw + c->rd_ofs;
    uint64_t t = c->rd_t0 + (i > 0 ? ((uint64_t)i * c->rd_tpd_q16) >> 16 : 0);
    return t > c->rd_tmin ? t : c->rd_tmin;
}
int  vd_persona_write_hold(vdrive_t *vd, int ndw_inflight, int holding);
uint64_t vd_persona_write_room_at(vdrive_t *vd, uint32_t ndw);
void vd_persona_write_data(vdrive_t *vd, uint64_t lba, uint32_t sectors);
uint64_t vd_persona_flush_at(vdrive_t *vd);
uint64_t vd_persona_cmd_ticks(vdrive_t *vd);
uint64_t vd_persona_position_ticks(vdrive_t *vd, uint64_t lba, uint64_t t);
void vd_persona_ncq_read(vdrive_t *vd, uint64_t lba, uint32_t count);
void vd_persona_forget(vdrive_t *vd);   /* sanitize: nothing cached, no read stream */
/* faults.c */
void vd_rng_seed(struct vd_rng *r, uint64_t seed);
uint64_t vd_rng_next(struct vd_rng *r);
uint64_t vd_ber_skip(vdrive_t *vd, double ber);
uint32_t vd_ber_apply(vdrive_t *vd, uint32_t w, uint64_t *skip, double ber, uint64_t *count);
int  vd_fault_dev_error(vdrive_t *vd, uint64_t lba, uint32_t n, uint8_t *status, uint8_t *error,
                        uint64_t *err_lba);
void vd_fault_corrupt(vdrive_t *vd, uint64_t lba, uint32_t n, uint8_t *buf);
void vd_fault_init(vdrive_t *vd);
void vd_fault_reset(vdrive_t *vd);               /* COMRESET / link reset: nothing held */
void vd_fault_tx(vdrive_t *vd, struct vd_txframe *f, int n);   /* seal + arm, with faults */
int  vd_fault_tx_done(vdrive_t *vd, int ok);     /* 1: it was an inserted frame, handled */
void vd_fault_after(vdrive_t *vd, int ok);       /* after the owner saw the end */
int  vd_fault_rx_refuse(vdrive_t *vd, const uint32_t *dw, int n);   /* rerr_fis: 1 = R_ERR */
void vd_fault_rx_first(vdrive_t *vd, uint32_t dw0);   /* first dword of a host frame */
int  vd_fault_lose_sof(vdrive_t *vd);            /* a host SOF: 1 = lost (lose_sof) */
int  vd_fault_retry_limit(const vdrive_t *vd);   /* resends of a refused non-data FIS */
int  vd_fault_stray_due(const vdrive_t *vd, int busy);   /* busy: a command outstanding */
void vd_fault_send_stray(vdrive_t *vd);
int  vd_fault_dmat_now(vdrive_t *vd, int n);     /* n dwords of a host frame in: 1 = send DMAT */
int  vd_fault_dmat_end(vdrive_t *vd, int n);     /* host frame of n dwords over: 1 = it had DMAT */
void vd_fault_dmat_cancel(vdrive_t *vd);         /* the host aborted its frame */
int  vd_fault_dmat_ends_cmd(const vdrive_t *vd); /* a DMAT-cut Data FIS ends the write */
int  vd_fault_drop_rx(vdrive_t *vd, uint32_t dw0);   /* a host payload dword: 1 = drop the link */
int  vd_fault_drop_tx(vdrive_t *vd, int is_data);    /* a sent frame dword: 1 = drop the link */
int  vd_fault_cmd_ignored(vdrive_t *vd);         /* stop_after_cmds: 1 = ignore this command */
void vd_fault_sanitize_start(vdrive_t *vd, uint64_t t0, uint64_t t_end);   /* arms the drop */
uint64_t vd_fault_silence(vdrive_t *vd);         /* the drop is due: silent until the answer */
void vd_fault_comreset(vdrive_t *vd);            /* COMRESET seen: the stopped drive answers */
void vd_fault_fuzz_set(vdrive_t *vd, double p);  /* fuzz probability changed at run time */
int  vd_fault_pio_lost(vdrive_t *vd);            /* a PIO data-in command starts: 1 = lose data */
uint8_t vd_fault_interim(const vdrive_t *vd);    /* non-queued command: interim status, 0 none */
void vd_fault_dma_setup(vdrive_t *vd, uint32_t *fis);   /* setup_offset, setup_count_delta */
int  vd_fault_no_resend(vdrive_t *vd);           /* R_ERR to the frame in flight: 1 = taken */
int  vd_fault_ignore_hold(const vdrive_t *vd);   /* the host's HOLD: 1 = send data anyway */
/* fuzz.c */
void vd_fuzz_seed(vdrive_t *vd);
unsigned vd_fuzz_frame(vdrive_t *vd, struct vd_txframe *f, int n);   /* VF_* to add */
int  vd_fuzz_kind(const char *name, size_t len);   /* FZ_* of a kind's name, or -1 */
/* config.c */
void vd_control_poll(vdrive_t *vd);     /* the `control` file, when it has changed */
void vd_set_error(char *err, size_t errlen, const char *fmt, ...);

#endif
