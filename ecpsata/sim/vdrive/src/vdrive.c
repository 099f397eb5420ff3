/* SPDX-License-Identifier: BSD-2-Clause */
/* Public API glue: create / destroy (where the layers are wired together), statistics. */
#include "internal.h"

static char last_error[256];

/* How each layer reports to the one above it (internal.h): the only upward calls of the stack. */
static const struct vd_upcalls stack = {
    .phy_linked = vd_link_phy_linked,
    .phy_down = vd_link_phy_down,
    .phy_rx = vd_link_rx,
    .phy_tx = vd_link_tx,
    .link_up = vd_tp_link_up,
    .link_down = vd_tp_link_down,
    .frame_received = vd_tp_rx_fis,
    .frame_bad = vd_tp_rx_bad,
    .frame_sent = vd_tp_tx_done,
    .poll = vd_tp_poll,
    .tx_ready_at = vd_cmd_tx_ready_at,
    .rx_hold = vd_cmd_rx_hold,
    .cmd_start = vd_cmd_start,
    .cmd_reset = vd_cmd_reset,
    .cmd_poll = vd_cmd_poll,
    .cmd_busy = vd_cmd_busy,
    .cmd_sent = vd_cmd_sent,
    .cmd_data = vd_cmd_data_fis,
    .cmd_data_error = vd_cmd_data_error,
};

const char *vdrive_last_error(void)
{
    return last_error;
}

static int validate(const vdrive_config_t *c, char *err, size_t errlen)
{
    if (!c->capacity) {
        vd_set_error(err, errlen, "vdrive: bad value '0' for key 'capacity'");
        return -1;
    }
    if (c->capacity >= (1ull << 48)) {
        vd_set_error(err, errlen, "vdrive: bad value '%llu' for key 'capacity' (max 2^48-1)",
                     (unsigned long long)c->capacity);
        return -1;
    }
    if (c->logical_sector != 512 && c->logical_sector != 4096) {
        vd_set_error(err, errlen, "vdrive: bad value '%u' for key 'logical_sector' (512 or 4096)",
                     c->logical_sector);
        return -1;
    }
    if (c->physical_sector != 512 && c->physical_sector != 4096) {
        vd_set_error(err, errlen, "vdrive: bad value '%u' for key 'physical_sector' (512 or 4096)",
                     c->physical_sector);
        return -1;
    }
    unsigned lss = c->logical_sector == 4096 ? 3 : 0;
    if (!(c->capacity >> lss)) {
        vd_set_error(err, errlen, "vdrive: bad value '%llu' for key 'capacity' (less than one "
                     "logical sector)", (unsigned long long)c->capacity);
        return -1;
    }
    if (!c->lba48 && (c->capacity >> lss) > 0x0FFFFFFF) {
        vd_set_error(err, errlen,
                     "vdrive: bad value '%llu' for key 'capacity' (28-bit drive: max 268435455 "
                     "sectors; set lba48=1)", (unsigned long long)c->capacity);
        return -1;
    }
    if (vd_flash_check(c, err, errlen))
        return -1;
    if (c->spinup_ms > VD_SPINUP_MS_MAX) {
        vd_set_error(err, errlen, "vdrive: bad value '%u' for key 'spinup_ms' (0..%d ms)",
                     c->spinup_ms, VD_SPINUP_MS_MAX);
        return -1;
    }
    if (c->device < VDRIVE_DEV_ATA || c->device > VDRIVE_DEV_SEMB) {
        vd_set_error(err, errlen, "vdrive: bad value '%d' for key 'device' (ata|atapi|pm|semb)",
                     c->device);
        return -1;
    }
    if (c->pio_blocks < 1 || c->pio_blocks > 128 || (c->pio_blocks & (c->pio_blocks - 1))) {
        vd_set_error(err, errlen, "vdrive: bad value '%u' for key 'pio_blocks' (1, 2, 4, 8, 16, "
                     "32, 64 or 128)", c->pio_blocks);
        return -1;
    }
    if (c->fault_repeat > VD_FAULT_REPEAT_MAX) {
        vd_set_error(err, errlen, "vdrive: bad value '%u' for key 'fault_repeat' (0..%d)",
                     c->fault_repeat, VD_FAULT_REPEAT_MAX);
        return -1;
    }
    if (!(c->fuzz >= 0.0 && c->fuzz <= 1.0)) {
        vd_set_error(err, errlen, "vdrive: bad value '%g' for key 'fuzz' (0..1)", c->fuzz);
        return -1;
    }
    if (c->fuzz_skip & ~VD_FZ_ALL) {
        vd_set_error(err, errlen, "vdrive: bad value '0x%x' for key 'fuzz_kinds' (fuzz_skip: "
                     "bits 0..%d, one per kind)", c->fuzz_skip, FZ_KINDS - 1);
        return -1;
    }
    if (c->pmreq < VDRIVE_PMREQ_OFF || c->pmreq > VDRIVE_PMREQ_SLUMBER) {
        vd_set_error(err, errlen, "vdrive: bad value '%d' for key 'pmreq' (off|partial|slumber)",
                     c->pmreq);
        return -1;
    }
    if (c->pmreq_idle_us < 1 || c->pmreq_idle_us > VD_PM_US_MAX ||
        c->pmreq_wait_us < 1 || c->pmreq_wait_us > VD_PM_US_MAX) {
        vd_set_error(err, errlen, "vdrive: bad value for key 'pmreq_idle_us'/'pmreq_wait_us' "
                     "(1..%d us)", VD_PM_US_MAX);
        return -1;
    }
    if (c->interim_status > 0xFF ||
        (c->interim_status && !(c->interim_status & (VD_ST_BSY | VD_ST_DRQ)))) {
        vd_set_error(err, errlen, "vdrive: bad value '%u' for key 'interim_status' (0 or a status "
                     "with BSY 0x80 or DRQ 0x08)", c->interim_status);
        return -1;
    }
    if (c->data_fis_dwords < 1 || c->data_fis_dwords > VD_TX_DATA_MAX_DW) {
        vd_set_error(err, errlen, "vdrive: bad value '%u' for key 'data_fis_dwords' (1..%d)",
                     c->data_fis_dwords, VD_TX_DATA_MAX_DW);
        return -1;
    }
    if (c->setup_offset > VD_SETUP_MAX || c->setup_offset % 4 ||
        c->setup_count_delta < -VD_SETUP_MAX || c->setup_count_delta > VD_SETUP_MAX ||
        c->setup_count_delta % 4) {
        vd_set_error(err, errlen, "vdrive: bad value for key 'setup_offset'/'setup_count_delta' "
                     "(bytes, a multiple of 4, at most %d)", VD_SETUP_MAX);
        return -1;
    }
    if (c->rx_fifo > VD_RX_FIFO_MAX || c->rx_hold_every < VD_RX_HOLD_EVERY_MIN ||
        c->rx_hold_every > VD_RX_HOLD_EVERY_MAX) {
        vd_set_error(err, errlen, "vdrive: bad value for key 'rx_fifo'/'rx_hold_every' (0..%d, "
                     "%d..%d dwords)", VD_RX_FIFO_MAX, VD_RX_HOLD_EVERY_MIN, VD_RX_HOLD_EVERY_MAX);
        return -1;
    }
    if (c->temperature_c > VD_TEMPERATURE_MAX) {
        vd_set_error(err, errlen, "vdrive: bad value '%u' for key 'temperature_c' (0..%d C)",
                     c->temperature_c, VD_TEMPERATURE_MAX);
        return -1;
    }
    if (c->health_time_scale < 1 || c->health_time_scale > VD_HEALTH_SCALE_MAX) {
        vd_set_error(err, errlen, "vdrive: bad value '%llu' for key 'health_time_scale' "
                     "(1..%llu)", (unsigned long long)c->health_time_scale,
                     (unsigned long long)VD_HEALTH_SCALE_MAX);
        return -1;
    }
    if (c->sanitize_ms > VD_SANITIZE_MS_MAX) {
        vd_set_error(err, errlen, "vdrive: bad value '%u' for key 'sanitize_ms' (0..%d ms)",
                     c->sanitize_ms, VD_SANITIZE_MS_MAX);
        return -1;
    }
    if (c->sanitize_drop_ms > VD_SANITIZE_MS_MAX) {
        vd_set_error(err, errlen, "vdrive: bad value '%u' for key 'sanitize_drop_ms' (0..%d ms)",
                     c->sanitize_drop_ms, VD_SANITIZE_MS_MAX);
        return -1;
    }
    if (c->max_gen < 1 || c->max_gen > 3) {
        vd_set_error(err, errlen, "vdrive: bad value '%d' for key 'max_gen' (1, 2 or 3)",
                     c->max_gen);
        return -1;
    }
    if (c->echo_ns < -1 || c->echo_ns > VD_ECHO_NS_MAX) {
        vd_set_error(err, errlen, "vdrive: bad value '%d' for key 'echo_ns' (off or 0..%d ns)",
                     (int)c->echo_ns, VD_ECHO_NS_MAX);
        return -1;
    }
    if (c->align_dwell_us > VD_ALIGN_DWELL_US_MAX) {
        vd_set_error(err, errlen, "vdrive: bad value '%u' for key 'align_dwell_us' (0..%d us)",
                     c->align_dwell_us, VD_ALIGN_DWELL_US_MAX);
        return -1;
    }
    if (c->ppm < -VD_PPM_MAX || c->ppm > VD_PPM_MAX) {
        vd_set_error(err, errlen, "vdrive: bad value '%d' for key 'ppm' (-%d..%d)", (int)c->ppm,
                     VD_PPM_MAX, VD_PPM_MAX);
        return -1;
    }
    if (c->rx_slip < 0 || c->rx_slip > 19 || c->tx_slip < 0 || c->tx_slip > 19) {
        vd_set_error(err, errlen, "vdrive: bad value for key 'rx_slip'/'tx_slip' (0..19)");
        return -1;
    }
    if (c->ncq_depth < 1 || c->ncq_depth > 32 || c->ncq_channels < 1 || c->ncq_channels > 32) {
        vd_set_error(err, errlen, "vdrive: bad value for key 'ncq_depth'/'ncq_channels' (1..32)");
        return -1;
    }
    /* IDENTIFY word 217 holds 0001h (non-rotating) or the rpm in 0401h..FFFEh; nothing else */
    if (c->rpm > 1 && (c->rpm < 0x0401 || c->rpm > 0xFFFE)) {
        vd_set_error(err, errlen, "vdrive: bad value '%u' for key 'rpm' (0 or 1 = non-rotating, "
                                  "1025..65534 = rotating)", c->rpm);
        return -1;
    }
    if (c->rpm > 1 && !c->read_mbps) {
        vd_set_error(err, errlen, "vdrive: bad value '0' for key 'read_mbps' (rotating media "
                                  "needs a media rate)");
        return -1;
    }
    return 0;
}

vdrive_t *vdrive_create(const vdrive_config_t *cfg, char *err, size_t errlen)
{
    char buf[256];
    if (!err || !errlen) {
        err = buf;
        errlen = sizeof(buf);
    }
    err[0] = 0;
    vd_8b10b_init();
    vd_crc_init();
    if (!cfg || validate(cfg, err, errlen)) {
        if (!cfg)
            vd_set_error(err, errlen, "vdrive: no configuration");
        snprintf(last_error, sizeof(last_error), "%s", err);
        return NULL;
    }
    vdrive_t *vd = calloc(1, sizeof(*vd));
    if (!vd) {
        vd_set_error(err, errlen, "vdrive: out of memory");
        snprintf(last_error, sizeof(last_error), "%s", err);
        return NULL;
    }
    vd->cfg = *cfg;
    vd->up = &stack;
    if (cfg->device != VDRIVE_DEV_ATA)
        vd->cfg.ncq = 0;                 /* no ATA commands, queued ones neither */
    vd->lss = cfg->logical_sector == 4096 ? 3 : 0;
    vd->cap_img = (cfg->capacity >> vd->lss) << vd->lss;
    if (vd_store_open(vd, err, errlen)) {
        snprintf(last_error, sizeof(last_error), "%s", err);
        free(vd);
        return NULL;
    }
    vd_rng_seed(&vd->rng, cfg->seed);
    vd->garbage = cfg->seed * 0x2545F4914F6CDD1Dull | 1;
    vd->cont_lfsr = (uint32_t)(cfg->seed * 2654435761u) | 1;
    vd->h2d_imp = cfg->tx_polarity || cfg->tx_slip || cfg->ber_h2d > 0;
    /* echo delay in 20-tick slots (Gen2 words), rounded */
    vd->echo_delay = cfg->echo_ns > 0 ? ((unsigned)cfg->echo_ns * 3 + 10) / 20 : 0;
    vd->d2h_imp = cfg->rx_polarity || cfg->rx_slip || cfg->ber_d2h > 0;
    if (cfg->ber_h2d > 0)
        vd->ber_h2d_skip = vd_ber_skip(vd, cfg->ber_h2d);
    if (cfg->ber_d2h > 0)
        vd->ber_d2h_skip = vd_ber_skip(vd, cfg->ber_d2h);
    vd_persona_init(vd);
    if (vd_flash_open(vd, err, errlen)) {
        snprintf(last_error, sizeof(last_error), "%s", err);
        vd_store_close(vd);
        free(vd);
        return NULL;
    }
    vd_settings_power_on(vd);
    vd_health_init(vd);
    vd->smart_on = cfg->smart;
    vd_fault_init(vd);
    vd_pm_init(vd);
    vd->spin = cfg->spinup_ms || cfg->spinup_us ? 0 : 2;
    vd_identify_build(vd);
    vd_link_reset(vd);
    vd_tp_reset(vd);
    vd_phy_reset(vd);
    vd->sig_pending = cfg->signature;
    vd_tp_update_poll(vd);
    return vd;
}

vdrive_t *vdrive_create_str(const char *str, char *err, size_t errlen)
{
    char buf[256];
    if (!err || !errlen) {
        err = buf;
        errlen = sizeof(buf);
    }
    vdrive_config_t cfg;
    vdrive_config_defaults(&cfg);
    if (vdrive_config_parse(&cfg, str, err, errlen)) {
        snprintf(last_error, sizeof(last_error), "%s", err);
        return NULL;
    }
    return vdrive_create(&cfg, err, errlen);
}

void vdrive_destroy(vdrive_t *vd)
{
    if (!vd)
        return;
    if (vd->cfg.stats_file[0])
        vdrive_write_stats(vd, vd->cfg.stats_file);
    vd_store_close(vd);
    vd_flash_close(vd);
    free(vd);
}

/* The drive speaks a higher rate or a lower one from the next negotiation; IDENTIFY word 76 says
 * so at once. */
void vdrive_set_max_gen(vdrive_t *vd, int gen)
{
    vd->cfg.max_gen = gen >= 3 ? 3 : gen >= 2 ? 2 : 1;
    vd_identify_build(vd);
}

int vdrive_flush(vdrive_t *vd)
{
    return vd_store_flush(vd);
}

/* The counters, and the health values as of now (health.c works them out on a copy). */
void vdrive_get_stats(const vdrive_t *vd, vdrive_stats_t *st)
{
    *st = vd->st;
    vd_health_stats(vd, st);
}

#define STAT(name) { #name, offsetof(vdrive_stats_t, name) }
static const struct { const char *name; size_t off; } stat_fields[] = {
    STAT(words), STAT(cmd_identify), STAT(cmd_read_dma), STAT(cmd_read_dma_ext),
    STAT(cmd_write_dma), STAT(cmd_write_dma_ext), STAT(cmd_flush), STAT(cmd_set_features),
    STAT(cmd_other), STAT(cmd_errors), STAT(bytes_read), STAT(bytes_written), STAT(fis_h2d),
    STAT(fis_d2h), STAT(holds_sent), STAT(holds_received), STAT(crc_errors_rx),
    STAT(r_err_received), STAT(dec_errors), STAT(disp_errors), STAT(injected_bit_errors_h2d),
    STAT(injected_bit_errors_d2h), STAT(injected_crc), STAT(injected_rerr),
    STAT(injected_dev_errors), STAT(injected_drops), STAT(injected_stops),
    STAT(injected_corruptions), STAT(link_ups), STAT(comreset_detected), STAT(comreset_ignored),
    STAT(comwake_detected),
    STAT(cominit_sent), STAT(comwake_sent), STAT(speed_downs), STAT(polarity_flips),
    STAT(realigns), STAT(cmd_fpdma_read), STAT(cmd_fpdma_write), STAT(cmd_read_log),
    STAT(ncq_max_depth), STAT(ncq_sdb), STAT(ncq_sdb_multi), STAT(ncq_errors), STAT(ncq_aborted),
    STAT(cmd_while_busy), STAT(busy_fis_sent), STAT(spinup_ps), STAT(pio_setups), STAT(cmd_nop),
    STAT(cmd_dsm), STAT(bytes_trimmed), STAT(flush_ps), STAT(cache_bytes_max), STAT(dmat_sent),
    STAT(dmat_dwords_after), STAT(injected_escapes), STAT(injected_long_fis),
    STAT(injected_short_fis), STAT(injected_unknown_fis), STAT(injected_stray_fis),
    STAT(injected_extra_data), STAT(injected_lost_sof), STAT(fault_repeats), STAT(fuzz_applied),
    STAT(fuzz_long),
    STAT(fuzz_short), STAT(fuzz_unknown), STAT(fuzz_stray), STAT(fuzz_extra), STAT(fuzz_field),
    STAT(fuzz_dup), STAT(fuzz_drop), STAT(pio_lost_data), STAT(pmreq_sent), STAT(pmnak_received),
    STAT(pmack_received), STAT(pmreq_xrdy), STAT(pmreq_unanswered), STAT(interim_status_sent),
    STAT(dwords_sent_in_host_hold), STAT(frames_not_resent), STAT(rx_hold_count),
    STAT(rx_hold_dwords_max), STAT(rx_hold_over_budget), STAT(fuzz_interim), STAT(fuzz_pmreq),
    STAT(fuzz_no_resend), STAT(fuzz_setup), STAT(fuzz_long_data), STAT(cmd_smart),
    STAT(cmd_sanitize), STAT(sanitize_blocked), STAT(cmd_icrc), STAT(r_err_rx_data),
    STAT(r_err_rx_nondata), STAT(r_err_tx_data_crc), STAT(r_err_tx_data_other),
    STAT(r_err_tx_nondata_crc), STAT(r_err_tx_nondata_other), STAT(nondata_retries),
    STAT(phyrdy_lost), STAT(sig_after_comreset), STAT(rx_fis_crc_errors),
    STAT(rx_fis_other_errors), STAT(phy_event_resets), STAT(read_cmds), STAT(write_cmds),
    STAT(sectors_read), STAT(sectors_written), STAT(poweron_hours), STAT(temp_c),
    STAT(temp_min_c), STAT(temp_max_c), STAT(temp_avg_c), STAT(overtemp_minutes),
    STAT(endurance_used), STAT(pending_sectors), STAT(reallocated_sectors),
    STAT(flash_host_pages_written), STAT(flash_nand_pages_written), STAT(flash_gc_runs),
    STAT(flash_free_blocks), STAT(host_r_rdy_ps), STAT(host_r_rdy_n),
    STAT(host_r_rdy_coll_ps), STAT(host_r_rdy_coll_n), STAT(host_rok_data_ps),
    STAT(host_rok_data_n), STAT(host_rok_d2h_ps), STAT(host_rok_d2h_n), STAT(host_rok_setup_ps),
    STAT(host_rok_setup_n), STAT(host_rok_sdb_ps), STAT(host_rok_sdb_n), STAT(host_rok_other_ps),
    STAT(host_rok_other_n), STAT(host_sof_ps), STAT(host_sof_n), STAT(host_sync_ps),
    STAT(host_sync_n), STAT(host_idle_ps), STAT(host_idle_n), STAT(xrdy_collisions), STAT(line_idle_dwords),
};

int vdrive_stats_json(const vdrive_t *vd, char *buf, size_t len)
{
    size_t n = 0;
    int r;
#define PUT(...) do { r = snprintf(buf ? buf + (n < len ? n : len) : NULL,                    \
                                   buf && n < len ? len - n : 0, __VA_ARGS__);                \
                      if (r < 0) return r;                                                      \
                      n += (size_t)r; } while (0)
    vdrive_stats_t st;
    vdrive_get_stats(vd, &st);
    PUT("{\"persona\": \"%s\", \"gen\": %u, \"time_ps\": %llu", vd->cfg.persona, st.gen,
        (unsigned long long)vdrive_time_ps(vd));
    for (size_t i = 0; i < sizeof(stat_fields) / sizeof(stat_fields[0]); i++) {
        const uint64_t *v = (const uint64_t *)((const char *)&st + stat_fields[i].off);
        PUT(", \"%s\": %llu", stat_fields[i].name, (unsigned long long)*v);
    }
    PUT("}");
#undef PUT
    return (int)n;
}

/* The statistics JSON with one key more, "fuzz_log": the lines of vdrive_fuzz_log(), an array of
 * strings (they hold digits, letters, '_' and spaces only: nothing to escape). */
int vdrive_write_stats(const vdrive_t *vd, const char *path)
{
    int n = vdrive_stats_json(vd, NULL, 0), m = vdrive_fuzz_log(vd, NULL, 0);
    if (n < 2 || m < 0)
        return -1;
    char *js = malloc((size_t)n + 1), *log = malloc((size_t)m + 1);
    FILE *f = js && log ? fopen(path, "w") : NULL;
    if (!f) {
        free(js);
        free(log);
        return -1;
    }
    vdrive_stats_json(vd, js, (size_t)n + 1);
    vdrive_fuzz_log(vd, log, (size_t)m + 1);
    js[n - 1] = 0;                       /* its closing brace */
    fprintf(f, "%s, \"fuzz_log\": [", js);
    for (char *p = log, *e; (e = strchr(p, '\n')); p = e + 1)
        fprintf(f, "%s\"%.*s\"", p == log ? "" : ", ", (int)(e - p), p);
    fprintf(f, "]}\n");
    free(js);
    free(log);
    return fclose(f);
}
