/* SPDX-License-Identifier: BSD-2-Clause */
/* LiteX simulator module "vdrive": attaches the virtual SATA drive to the pads interface
 * "sata_phy" of a simulated SoC.
 *
 * Pads (module's view): clk (1, in: the host's TX word clock), tx (20, in: host raw TX word), gen
 * (1, in: 1 = Gen2, 0 = Gen1), rx (20, out: device word), rx_los (1, out), and rx_clk (1, out: the
 * drive's word clock, which the SoC's receiver runs on, as a SerDes runs on its recovered clock).
 *
 * The drive receives one host word per rising edge of clk. It transmits on its own clock: rx_clk
 * runs at the host's rate scaled by the drive's offset (ppm, ssc), rendered on the simulator's time
 * grid by a phase accumulator (an edge lands on the grid step where its phase is due, so an offset
 * shows as an occasional period one step shorter or longer). A word is written at the falling edge
 * of rx_clk, so the SoC registers it, stable, at the next rising edge. Without an offset the grid
 * can be the host clock's half period; with one it must be finer (ecpsata/platforms/sim.py picks it).
 * Without an rx_clk pad the drive steps in lockstep on clk (receive, then transmit).
 *
 * Args (JSON from sim_config.add_module("vdrive", "sata_phy", clocks=[], args={...})):
 *   "config":  the vdrive "key=value,..." string (see ecpsata/sim/vdrive/README.md).
 *   "word_ps": simulated picoseconds of a Gen2 word (the host's word clock period at Gen2).
 * A bad configuration stops the simulator at start-up with the library's message.
 * Statistics (stats_file) and the image are written when the simulation ends, also on
 * SIGINT/SIGTERM.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "error.h"
#include "modules.h"
#include "vdrive.h"

#define MAX_SESSIONS 8

struct session_s {
    vdrive_t *vd;
    void *clk, *tx, *gen, *rx, *rx_los, *rx_clk;
    size_t tx_len, rx_len;
    int last_clk;
    /* the drive's word clock */
    uint64_t word_ps, last_time;
    int started, level;
    double phase;                 /* half periods */
};

static struct session_s *sessions[MAX_SESSIONS];
static volatile sig_atomic_t got_signal;

static void close_all(void)
{
    for (int i = 0; i < MAX_SESSIONS; i++) {
        if (sessions[i]) {
            vdrive_destroy(sessions[i]->vd);
            sessions[i]->vd = NULL;
            sessions[i] = NULL;
        }
    }
}

static void on_signal(int sig)
{
    got_signal = sig;
}

static int vdrive_start(void *base)
{
    (void)base;
    atexit(close_all);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    printf("[vdrive] loaded\n");
    return RC_OK;
}

static int vdrive_new(void **sess, char *args)
{
    const char *config = "";
    uint64_t word_ps = 0;
    json_object *obj = NULL, *c = NULL, *w = NULL;
    if (args) {
        obj = json_tokener_parse(args);
        if (!obj) {
            fprintf(stderr, "[vdrive] bad module args: %s\n", args);
            return RC_JSERROR;
        }
        if (json_object_object_get_ex(obj, "config", &c))
            config = json_object_get_string(c);
        if (json_object_object_get_ex(obj, "word_ps", &w))
            word_ps = (uint64_t)json_object_get_int64(w);
    }
    char err[256];
    vdrive_t *vd = vdrive_create_str(config, err, sizeof(err));
    if (obj)
        json_object_put(obj);
    if (!vd) {
        fprintf(stderr, "[vdrive] %s\n", err);
        return RC_ERROR;
    }
    struct session_s *s = calloc(1, sizeof(*s));
    if (!s) {
        vdrive_destroy(vd);
        return RC_NOENMEM;
    }
    s->vd = vd;
    s->word_ps = word_ps;
    for (int i = 0; i < MAX_SESSIONS; i++) {
        if (!sessions[i]) {
            sessions[i] = s;
            break;
        }
    }
    *sess = s;
    return RC_OK;
}

static void *find_pad(struct pad_s *pads, const char *name, size_t *len)
{
    for (int i = 0; pads[i].name; i++) {
        if (!strcmp(pads[i].name, name)) {
            if (len)
                *len = pads[i].len;
            return pads[i].signal;
        }
    }
    return NULL;
}

static int vdrive_add_pads(void *sess, struct pad_list_s *plist)
{
    struct session_s *s = sess;
    if (!s || !plist)
        return RC_INVARG;
    if (strcmp(plist->name, "sata_phy"))
        return RC_OK;
    struct pad_s *p = plist->pads;
    s->clk = find_pad(p, "clk", NULL);
    s->tx = find_pad(p, "tx", &s->tx_len);
    s->gen = find_pad(p, "gen", NULL);
    s->rx = find_pad(p, "rx", &s->rx_len);
    s->rx_los = find_pad(p, "rx_los", NULL);
    s->rx_clk = find_pad(p, "rx_clk", NULL);
    if (!s->clk || !s->tx || !s->rx || !s->rx_los) {
        fprintf(stderr, "[vdrive] sata_phy needs pads clk, tx, rx, rx_los (and gen)\n");
        return RC_ERROR;
    }
    if (s->tx_len != 20 || s->rx_len != 20) {
        fprintf(stderr, "[vdrive] sata_phy tx/rx must be 20 bits (got %zu/%zu)\n", s->tx_len,
                s->rx_len);
        return RC_ERROR;
    }
    if (s->rx_clk && !s->word_ps) {
        fprintf(stderr, "[vdrive] sata_phy has rx_clk: the module needs the arg word_ps\n");
        return RC_ERROR;
    }
    return RC_OK;
}

/* The drive's word clock: advance its phase to time_ps; a falling edge sends the next word. */
static void drive_clock(struct session_s *s, uint64_t time_ps, int gen)
{
    if (!s->started) {
        s->started = 1;
        s->last_time = time_ps;
        return;
    }
    double half = (double)s->word_ps * (gen == 2 ? 0.5 : 1.0);
    double step = (double)(time_ps - s->last_time) / half *
                  (1.0 + vdrive_clock_offset_ppm(s->vd) * 1e-6);
    s->last_time = time_ps;
    if (step > 1.0) {
        fprintf(stderr, "[vdrive] the simulator's time step is too coarse for the drive's clock "
                        "offset (%.1f ppm): two edges fall in one step\n",
                vdrive_clock_offset_ppm(s->vd));
        exit(2);
    }
    s->phase += step;
    if (s->phase < 1.0)
        return;
    s->phase -= 1.0;
    s->level ^= 1;
    *(uint8_t *)s->rx_clk = (uint8_t)s->level;
    if (!s->level) {
        int los;
        *(uint32_t *)s->rx = vdrive_transmit(s->vd, gen, &los);
        *(uint8_t *)s->rx_los = (uint8_t)los;
    }
}

static int vdrive_tick(void *sess, uint64_t time_ps)
{
    struct session_s *s = sess;
    if (got_signal) {
        int sig = got_signal;
        close_all();
        signal(sig, SIG_DFL);
        raise(sig);
        return RC_OK;
    }
    if (!s->vd || !s->clk)
        return RC_OK;
    /* Verilator stores 1-bit ports as CData (uint8_t) and 20-bit ports as IData (uint32_t) */
    int gen = s->gen ? (*(uint8_t *)s->gen ? 2 : 1) : 2;
    int clk = *(uint8_t *)s->clk;
    int rising = clk && !s->last_clk;
    s->last_clk = clk;
    if (s->rx_clk) {
        if (rising)
            vdrive_receive(s->vd, *(uint32_t *)s->tx, gen);
        drive_clock(s, time_ps, gen);
        return RC_OK;
    }
    if (!rising)
        return RC_OK;
    int los;
    uint32_t rx = vdrive_step(s->vd, *(uint32_t *)s->tx, gen, &los);
    *(uint32_t *)s->rx = rx;
    *(uint8_t *)s->rx_los = (uint8_t)los;
    return RC_OK;
}

static int vdrive_close(void *sess)
{
    struct session_s *s = sess;
    for (int i = 0; i < MAX_SESSIONS; i++)
        if (sessions[i] == s)
            sessions[i] = NULL;
    if (s->vd)
        vdrive_destroy(s->vd);
    free(s);
    return RC_OK;
}

static struct ext_module_s ext_mod = {
    "vdrive", vdrive_start, vdrive_new, vdrive_add_pads, vdrive_close, vdrive_tick,
};

int litex_sim_ext_module_init(int (*register_module)(struct ext_module_s *))
{
    return register_module(&ext_mod);
}
