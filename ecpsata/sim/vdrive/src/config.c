/* SPDX-License-Identifier: BSD-2-Clause */
/* Configuration: defaults, presets and the "key=value,..." string. Errors name the key. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>

#include "internal.h"

void vd_set_error(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

void vdrive_config_defaults(vdrive_config_t *c)
{
    memset(c, 0, sizeof(*c));
    c->capacity = 2097152;                 /* 1 GiB */
    snprintf(c->serial, sizeof(c->serial), "VD0000000001");
    snprintf(c->firmware, sizeof(c->firmware), "1.0");
    c->max_gen = 2;
    c->lba48 = 1;
    c->write_cache = 1;
    c->cominit_interval_us = 10000;
    c->auto_polarity = 1;
    c->signature = 1;
    c->seed = 1;
    c->error_lba = -1;
    c->error_kind = VDRIVE_ERR_ABRT;
    c->corrupt_lba = -1;
    c->echo_ns = -1;
    c->ncq_depth = 32;
    c->pio_blocks = 1;
    c->logical_sector = 512;
    c->physical_sector = 512;
    c->pmreq_idle_us = 10;
    c->pmreq_wait_us = 10;
    c->data_fis_dwords = 2048;
    c->rx_hold_every = 256;
    c->smart = 1;
    c->temperature_c = 30;
    c->health_time_scale = 1;
    c->phy_events = 1;
    c->sanitize_ms = 5;
    c->spare_pct = 7;
    vd_persona_preset(c, "ideal");
}

enum ktype { K_STR, K_U32, K_U64, K_BOOL, K_DBL, K_CAP, K_LBA, K_KIND, K_GEN, K_SLIP, K_OFF, K_PPM,
             K_DEV, K_ATAPI, K_POW2, K_SECT, K_DW, K_SDW, K_STATUS, K_PM, K_FUZZK };

/* K_U32 / K_OFF / K_PPM take an upper bound (0: the type's), K_U32 a lower one too; K_OFF is an
 * int32_t where off / -1 = -1; K_PPM an int32_t in -max..max (an optional sign); K_POW2 a power of
 * two 1..max; K_SECT 512 or 4096; K_DEV a device type name; K_ATAPI a boolean that sets the device
 * type; K_DW a uint32_t multiple of 4 in 0..max (bytes that must be whole dwords), K_SDW the same
 * signed in -max..max; K_STATUS 0 or a status byte with BSY or DRQ set; K_PM off|partial|slumber;
 * K_FUZZK the fuzzer's kinds as a uint32_t of kinds left out (parse_fuzz_kinds).
 * hint, if set, is appended to a "bad value" message. */
struct key {
    const char *name;
    enum ktype type;
    size_t off, size;
    uint32_t min, max;
    const char *hint;
};

#define STR_(x) #x
#define STR(x) STR_(x)
#define KIND_HINT(k) " " #k
#define FUZZ_KINDS_HINT "all, or kinds joined by +, or -kind-kind... to leave kinds out; kinds:" \
                        VD_FUZZ_KIND_NAMES(KIND_HINT)

#define FIELD(field) offsetof(vdrive_config_t, field), sizeof(((vdrive_config_t *)0)->field)
#define F(field) FIELD(field), 0, 0, NULL
#define R(field, max, hint) FIELD(field), 0, max, hint   /* with a range and its description */
#define RR(field, min, max, hint) FIELD(field), min, max, hint
static const struct key keys[] = {
    { "capacity", K_CAP, F(capacity) },
    { "image", K_STR, F(image) },
    { "model", K_STR, F(model) },
    { "serial", K_STR, F(serial) },
    { "firmware", K_STR, F(firmware) },
    { "max_gen", K_GEN, R(max_gen, 3, "1, 2 or 3") },
    { "lba48", K_BOOL, F(lba48) },
    { "ncq", K_BOOL, F(ncq) },
    { "ncq_depth", K_U32, R(ncq_depth, 32, "1..32") },
    { "ncq_channels", K_U32, R(ncq_channels, 32, "1..32") },
    { "read_mbps", K_U32, F(read_mbps) },
    { "write_mbps", K_U32, F(write_mbps) },
    { "first_data_us", K_U32, F(first_data_us) },
    { "cmd_us", K_U32, F(cmd_us) },
    { "write_cache_kb", K_U32, F(write_cache_kb) },
    { "write_cache", K_BOOL, F(write_cache) },
    { "rpm", K_U32, F(rpm) },
    { "seek_us", K_U32, F(seek_us) },
    { "track_seek_us", K_U32, F(track_seek_us) },
    { "read_cache_kb", K_U32, F(read_cache_kb) },
    { "readahead_kb", K_U32, F(readahead_kb) },
    { "cominit_interval_us", K_U32, F(cominit_interval_us) },
    { "rx_polarity", K_BOOL, F(rx_polarity) },
    { "tx_polarity", K_BOOL, F(tx_polarity) },
    { "auto_polarity", K_BOOL, F(auto_polarity) },
    { "rx_slip", K_SLIP, F(rx_slip) },
    { "tx_slip", K_SLIP, F(tx_slip) },
    { "cont", K_BOOL, F(cont) },
    { "signature", K_BOOL, F(signature) },
    { "echo_ns", K_OFF, R(echo_ns, VD_ECHO_NS_MAX, "off or 0.." STR(VD_ECHO_NS_MAX) " ns") },
    { "align_dwell_us", K_U32, R(align_dwell_us, VD_ALIGN_DWELL_US_MAX,
                                 "0.." STR(VD_ALIGN_DWELL_US_MAX) " us") },
    { "ppm", K_PPM, R(ppm, VD_PPM_MAX, "-" STR(VD_PPM_MAX) ".." STR(VD_PPM_MAX)) },
    { "ssc", K_BOOL, F(ssc) },
    { "seed", K_U64, F(seed) },
    { "ber_h2d", K_DBL, F(ber_h2d) },
    { "ber_d2h", K_DBL, F(ber_d2h) },
    { "crc_error_fis", K_U32, F(crc_error_fis) },
    { "bad_fis", K_U32, F(bad_fis) },
    { "rerr_fis", K_U32, F(rerr_fis) },
    { "error_lba", K_LBA, F(error_lba) },
    { "error_kind", K_KIND, F(error_kind) },
    { "drop_after_dwords", K_U64, F(drop_after_dwords) },
    { "stop_after_cmds", K_U32, F(stop_after_cmds) },
    { "corrupt_lba", K_LBA, F(corrupt_lba) },
    { "spinup_ms", K_U32, R(spinup_ms, VD_SPINUP_MS_MAX, "0.." STR(VD_SPINUP_MS_MAX) " ms") },
    { "spinup_us", K_U32, R(spinup_us, VD_SPINUP_US_MAX, "0.." STR(VD_SPINUP_US_MAX) " us") },
    { "busy_fis", K_BOOL, F(busy_fis) },
    { "busy_ignores_cmd", K_BOOL, F(busy_ignores_cmd) },
    { "device", K_DEV, R(device, 0, "ata|atapi|pm|semb") },
    { "atapi", K_ATAPI, F(device) },
    { "pio_blocks", K_POW2, R(pio_blocks, 128, "1, 2, 4, 8, 16, 32, 64 or 128") },
    { "logical_sector", K_SECT, R(logical_sector, 0, "512 or 4096") },
    { "physical_sector", K_SECT, R(physical_sector, 0, "512 or 4096") },
    { "trim", K_BOOL, F(trim) },
    { "escape_fis", K_U32, F(escape_fis) },
    { "dmat_fis", K_U32, F(dmat_fis) },
    { "dmat_resume", K_BOOL, F(dmat_resume) },
    { "long_fis", K_U32, F(long_fis) },
    { "short_fis", K_U32, F(short_fis) },
    { "unknown_fis", K_U32, F(unknown_fis) },
    { "stray_fis", K_U32, F(stray_fis) },
    { "extra_data", K_U32, F(extra_data) },
    { "lose_sof", K_U32, F(lose_sof) },
    { "fault_repeat", K_U32, R(fault_repeat, VD_FAULT_REPEAT_MAX,
                               "0.." STR(VD_FAULT_REPEAT_MAX)) },
    { "fuzz", K_DBL, R(fuzz, 0, "0..1") },
    { "fuzz_kinds", K_FUZZK, R(fuzz_skip, 0, FUZZ_KINDS_HINT) },
    { "pio_lost_data", K_U32, F(pio_lost_data) },
    { "pmreq", K_PM, R(pmreq, 0, "off|partial|slumber") },
    { "pmreq_idle_us", K_U32, RR(pmreq_idle_us, 1, VD_PM_US_MAX, "1.." STR(VD_PM_US_MAX) " us") },
    { "pmreq_wait_us", K_U32, RR(pmreq_wait_us, 1, VD_PM_US_MAX, "1.." STR(VD_PM_US_MAX) " us") },
    { "interim_status", K_STATUS, R(interim_status, 0, "0 or a status with BSY 0x80 or DRQ 0x08") },
    { "ignore_hold", K_BOOL, F(ignore_hold) },
    { "data_fis_dwords", K_U32, RR(data_fis_dwords, 1, VD_TX_DATA_MAX_DW,
                                   "1.." STR(VD_TX_DATA_MAX_DW)) },
    { "setup_offset", K_DW, R(setup_offset, VD_SETUP_MAX,
                              "0.." STR(VD_SETUP_MAX) " bytes, a multiple of 4") },
    { "setup_count_delta", K_SDW, R(setup_count_delta, VD_SETUP_MAX,
                                    "-" STR(VD_SETUP_MAX) ".." STR(VD_SETUP_MAX)
                                    " bytes, a multiple of 4") },
    { "no_resend", K_BOOL, F(no_resend) },
    { "rx_fifo", K_U32, R(rx_fifo, VD_RX_FIFO_MAX, "0.." STR(VD_RX_FIFO_MAX) " dwords") },
    { "rx_hold_every", K_U32, RR(rx_hold_every, VD_RX_HOLD_EVERY_MIN, VD_RX_HOLD_EVERY_MAX,
                                 STR(VD_RX_HOLD_EVERY_MIN) ".." STR(VD_RX_HOLD_EVERY_MAX)
                                 " dwords") },
    { "smart", K_BOOL, F(smart) },
    { "smart_bad_checksum", K_BOOL, F(smart_bad_checksum) },
    { "smart_fail", K_BOOL, F(smart_fail) },
    { "temperature_c", K_U32, R(temperature_c, VD_TEMPERATURE_MAX, "0.." STR(VD_TEMPERATURE_MAX)
                                " C") },
    { "health_time_scale", K_U64, F(health_time_scale) },
    { "phy_events", K_BOOL, F(phy_events) },
    { "sanitize", K_BOOL, F(sanitize) },
    { "flash", K_BOOL, F(flash) },
    { "spare_pct", K_U32, R(spare_pct, 100, "0..100 %") },
    { "sanitize_ms", K_U32, R(sanitize_ms, VD_SANITIZE_MS_MAX, "0.." STR(VD_SANITIZE_MS_MAX) " ms") },
    { "sanitize_drop_ms", K_U32, R(sanitize_drop_ms, VD_SANITIZE_MS_MAX,
                                   "0.." STR(VD_SANITIZE_MS_MAX) " ms") },
    { "stats_file", K_STR, F(stats_file) },
    { "control", K_STR, F(control) },
};

static int parse_u64(const char *v, uint64_t *out)
{
    if (!*v || *v == '-' || isspace((unsigned char)*v))
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (errno || *end)
        return -1;
    *out = x;
    return 0;
}

/* Plain number: sectors. With a suffix: bytes, K/M/G/T decimal, KiB/MiB/GiB/TiB binary. */
static int parse_capacity(const char *v, uint64_t *out)
{
    if (!isdigit((unsigned char)*v))
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno)
        return -1;
    if (!*end) {
        *out = x;
        return x ? 0 : -1;
    }
    static const char *const suf[] = { "K", "M", "G", "T", "KiB", "MiB", "GiB", "TiB", "KB", "MB",
                                       "GB", "TB" };
    for (int i = 0; i < 12; i++) {
        if (strcmp(end, suf[i]))
            continue;
        int p = i % 4 + 1;
        unsigned long long m = 1, base = (i >= 4 && i < 8) ? 1024 : 1000;
        while (p--)
            m *= base;
        if (x > UINT64_MAX / m)
            return -1;
        x *= m;
        if (x < 512)
            return -1;
        *out = x / 512;
        return 0;
    }
    return -1;
}

static int parse_bool(const char *v, int *out)
{
    if (!strcmp(v, "1") || !strcmp(v, "on") || !strcmp(v, "true") || !strcmp(v, "yes"))
        *out = 1;
    else if (!strcmp(v, "0") || !strcmp(v, "off") || !strcmp(v, "false") || !strcmp(v, "no"))
        *out = 0;
    else
        return -1;
    return 0;
}

/* fuzz_kinds: "all"; kinds joined by '+' ("long+short+unknown": only those); or each after a '-'
 * ("-drop-no_resend": every kind but those). Kind names hold '_', never '+' or '-'. *skip gets the
 * kinds left out (bit 1 << FZ_*). */
static int parse_fuzz_kinds(const char *v, uint32_t *skip)
{
    if (!strcmp(v, "all")) {
        *skip = 0;
        return 0;
    }
    int leave_out = *v == '-';
    char sep = leave_out ? '-' : '+';
    uint32_t named = 0;
    for (const char *s = v + leave_out;; ) {
        size_t len = strcspn(s, "+-");
        int kind = vd_fuzz_kind(s, len);
        if (kind < 0)
            return -1;
        named |= 1u << kind;
        if (!s[len])
            break;
        if (s[len] != sep)
            return -1;                   /* "long-drop", "-drop+long": one form or the other */
        s += len + 1;
    }
    *skip = leave_out ? named : VD_FZ_ALL & ~named;
    return 0;
}

static int set_key(vdrive_config_t *c, const struct key *k, const char *v)
{
    char *p = (char *)c + k->off;
    uint64_t u;
    switch (k->type) {
    case K_STR:
        if (strlen(v) >= k->size)
            return -1;
        memcpy(p, v, strlen(v) + 1);
        return 0;
    case K_U32:
        if (parse_u64(v, &u) || u < k->min || u > (k->max ? k->max : UINT32_MAX))
            return -1;
        *(uint32_t *)p = (uint32_t)u;
        return 0;
    case K_DW:
        if (parse_u64(v, &u) || u > k->max || u % 4)
            return -1;
        *(uint32_t *)p = (uint32_t)u;
        return 0;
    case K_SDW: {
        int neg = *v == '-';
        if (parse_u64(v + (neg || *v == '+'), &u) || u > k->max || u % 4)
            return -1;
        *(int32_t *)p = neg ? -(int32_t)u : (int32_t)u;
        return 0;
    }
    case K_STATUS:
        /* a status that cannot end a command: BSY or DRQ set (AHCI completes a command only when
         * BSY, DRQ and ERR are clear) */
        if (parse_u64(v, &u) || u > 0xFF || (u && !(u & (VD_ST_BSY | VD_ST_DRQ))))
            return -1;
        *(uint32_t *)p = (uint32_t)u;
        return 0;
    case K_PM: {
        static const char *const names[] = { "off", "partial", "slumber" };
        for (int i = 0; i < 3; i++) {
            if (!strcmp(v, names[i])) {
                *(int *)p = i;
                return 0;
            }
        }
        return -1;
    }
    case K_OFF:
        if (!strcmp(v, "off") || !strcmp(v, "-1")) {
            *(int32_t *)p = -1;
            return 0;
        }
        if (parse_u64(v, &u) || u > (k->max ? k->max : INT32_MAX))
            return -1;
        *(int32_t *)p = (int32_t)u;
        return 0;
    case K_PPM: {
        int neg = *v == '-';
        if (parse_u64(v + (neg || *v == '+'), &u) || u > k->max)
            return -1;
        *(int32_t *)p = neg ? -(int32_t)u : (int32_t)u;
        return 0;
    }
    case K_U64:
        if (parse_u64(v, &u))
            return -1;
        *(uint64_t *)p = u;
        return 0;
    case K_BOOL:
        return parse_bool(v, (int *)p);
    case K_DBL: {
        char *end;
        errno = 0;
        double d = strtod(v, &end);
        if (!*v || errno || *end || !(d >= 0.0 && d <= 1.0))
            return -1;
        *(double *)p = d;
        return 0;
    }
    case K_CAP:
        if (parse_capacity(v, &u))
            return -1;
        *(uint64_t *)p = u;
        return 0;
    case K_LBA:
        if (!strcmp(v, "off") || !strcmp(v, "-1")) {
            *(int64_t *)p = -1;
            return 0;
        }
        if (parse_u64(v, &u) || u >= (1ull << 48))
            return -1;
        *(int64_t *)p = (int64_t)u;
        return 0;
    case K_KIND:
        if (!strcmp(v, "abrt")) *(int *)p = VDRIVE_ERR_ABRT;
        else if (!strcmp(v, "unc")) *(int *)p = VDRIVE_ERR_UNC;
        else if (!strcmp(v, "idnf")) *(int *)p = VDRIVE_ERR_IDNF;
        else return -1;
        return 0;
    case K_GEN:
        if (!strcmp(v, "1") || !strcmp(v, "2") || !strcmp(v, "3")) {
            *(int *)p = v[0] - '0';
            return 0;
        }
        return -1;
    case K_SLIP:
        if (parse_u64(v, &u) || u > 19)
            return -1;
        *(int *)p = (int)u;
        return 0;
    case K_DEV: {
        static const char *const names[] = { "ata", "atapi", "pm", "semb" };
        for (int i = 0; i < 4; i++) {
            if (!strcmp(v, names[i])) {
                *(int *)p = i;
                return 0;
            }
        }
        return -1;
    }
    case K_ATAPI: {
        int on;
        if (parse_bool(v, &on))
            return -1;
        *(int *)p = on ? VDRIVE_DEV_ATAPI : VDRIVE_DEV_ATA;
        return 0;
    }
    case K_POW2:
        if (parse_u64(v, &u) || u < 1 || u > k->max || (u & (u - 1)))
            return -1;
        *(uint32_t *)p = (uint32_t)u;
        return 0;
    case K_SECT:
        if (parse_u64(v, &u) || (u != 512 && u != 4096))
            return -1;
        *(uint32_t *)p = (uint32_t)u;
        return 0;
    case K_FUZZK:
        return parse_fuzz_kinds(v, (uint32_t *)p);
    }
    return -1;
}

static void trim(char **s)
{
    char *a = *s;
    while (isspace((unsigned char)*a))
        a++;
    char *e = a + strlen(a);
    while (e > a && isspace((unsigned char)e[-1]))
        *--e = 0;
    *s = a;
}

/* field=1: the line a board meets, every impairment of the real world at once (the keys it sets can
 * be overridden by keys after it): the host's own TX echoed on its rx_los, a drive that dwells in
 * ALIGN, the host's TX pair swapped (and a drive that does not adapt to it), the drive's clock
 * +350 ppm with SSC, CONT compression. */
static const char FIELD_PRESET[] =
    "echo_ns=20,align_dwell_us=30,tx_polarity=1,auto_polarity=0,ppm=350,ssc=1,cont=1";

static int parse_pass(vdrive_config_t *c, const char *str, int pass, char *err, size_t errlen);

static int apply_field(vdrive_config_t *c, const char *val, int pass, char *err, size_t errlen)
{
    if (!strcmp(val, "1"))
        return pass == 1 ? parse_pass(c, FIELD_PRESET, 1, err, errlen) : 0;
    if (!strcmp(val, "0"))
        return 0;
    vd_set_error(err, errlen, "vdrive: bad value '%s' for key 'field' (0 or 1)", val);
    return -1;
}

/* pass 0: persona only; pass 1: every other key, in order */
static int parse_pass(vdrive_config_t *c, const char *str, int pass, char *err, size_t errlen)
{
    char *copy = strdup(str);
    if (!copy) {
        vd_set_error(err, errlen, "vdrive: out of memory");
        return -1;
    }
    int rc = 0;
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        trim(&item);
        if (!*item)
            continue;
        char *eq = strchr(item, '=');
        if (!eq) {
            vd_set_error(err, errlen, "vdrive: missing '=' after key '%s'", item);
            rc = -1;
            break;
        }
        *eq = 0;
        char *key = item, *val = eq + 1;
        trim(&key);
        trim(&val);
        if (!strcmp(key, "persona")) {
            if (pass == 0 && vd_persona_preset(c, val)) {
                vd_set_error(err, errlen,
                             "vdrive: bad value '%s' for key 'persona' (ideal|slc|mlc28|hdd7200|flash)",
                             val);
                rc = -1;
                break;
            }
            continue;
        }
        if (!strcmp(key, "field")) {
            if (apply_field(c, val, pass, err, errlen)) {
                rc = -1;
                break;
            }
            continue;
        }
        const struct key *k = NULL;
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
            if (!strcmp(keys[i].name, key))
                k = &keys[i];
        if (!k) {
            vd_set_error(err, errlen, "vdrive: unknown key '%s'", key);
            rc = -1;
            break;
        }
        if (pass == 1 && set_key(c, k, val)) {
            if (k->hint)
                vd_set_error(err, errlen, "vdrive: bad value '%s' for key '%s' (%s)", val, key,
                             k->hint);
            else
                vd_set_error(err, errlen, "vdrive: bad value '%s' for key '%s'", val, key);
            rc = -1;
            break;
        }
    }
    free(copy);
    return rc;
}

int vdrive_config_parse(vdrive_config_t *cfg, const char *str, char *err, size_t errlen)
{
    if (!str)
        return 0;
    vdrive_config_t tmp = *cfg;
    if (parse_pass(&tmp, str, 0, err, errlen) || parse_pass(&tmp, str, 1, err, errlen))
        return -1;
    *cfg = tmp;
    return 0;
}

/* ---- run-time settings --------------------------------------------------------------------- */

int vdrive_set_fuzz(vdrive_t *vd, double p)
{
    if (!(p >= 0.0 && p <= 1.0))
        return -1;
    vd_fault_fuzz_set(vd, p);
    return 0;
}

/* The `control` file: read again when its modification time changes. Lines "key=value" of the
 * keys that may change at run time (fuzz); anything else is ignored (the file is a test
 * harness's, written while the drive runs). */
void vd_control_poll(vdrive_t *vd)
{
    struct stat sb;
    if (stat(vd->cfg.control, &sb) != 0)
        return;
    int64_t mtime = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    if (mtime == vd->control_mtime_ns)
        return;
    vd->control_mtime_ns = mtime;
    FILE *f = fopen(vd->cfg.control, "r");
    if (!f)
        return;
    char line[128];
    while (fgets(line, sizeof line, f)) {
        double p;
        if (sscanf(line, " fuzz = %lf", &p) == 1)
            vdrive_set_fuzz(vd, p);
    }
    fclose(f);
}
