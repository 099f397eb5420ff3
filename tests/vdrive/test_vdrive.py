# SPDX-License-Identifier: BSD-2-Clause
"""Tests of the virtual SATA drive (ecpsata/sim/vdrive) through its ctypes binding, driven by the pure-Python
word-level host model (ecpsata/sim/vdrive/host_model.py), which shares no tables with the C library."""

import ctypes
import os
import random

import pytest

from ecpsata.paths import PACKAGE
from ecpsata.sim.vdrive import VirtualDrive, library
from ecpsata.sim.vdrive.host_model import ENC, PRIM, Host, HostTimeout, crc32, scrambler


def linked(config, gen=2):
    drive = VirtualDrive(config)
    host = Host(drive, gen)
    assert host.link_up(), "no link with " + config
    return drive, host


def pattern(n, seed):
    rnd = random.Random(seed)
    return bytes(rnd.getrandbits(8) for _ in range(n))


# --- binding ---------------------------------------------------------------------------------

def test_binding_step_and_stats():
    with VirtualDrive("persona=ideal,capacity=2048,cominit_interval_us=0") as d:
        rx, los = d.step(0, 2)
        assert (rx, los) == (0, 1)            # a quiet drive before any OOB
        rxs, loss = d.step_n([0] * 100, 1)
        assert rxs == [0] * 100 and loss == [1] * 100
        st = d.stats()
        assert st["words"] == 101 and st["link_ups"] == 0 and st["persona"] == "ideal"
        assert d.time_ps() == 1340000         # one Gen2 word (6.667 ns) + 100 Gen1 (13.333 ns)
        with pytest.raises(ValueError):
            d.step(0, 0)                      # 0 is the signal encoding, not a rate
    assert VirtualDrive.gen_from_signal(1) == 2 and VirtualDrive.gen_from_signal(0) == 1


@pytest.mark.parametrize("config, key", [
    ("capcity=2048", "unknown key 'capcity'"),
    ("capacity=x", "bad value 'x' for key 'capacity'"),
    ("persona=floppy", "key 'persona'"),
    ("max_gen=4", "bad value '4' for key 'max_gen' (1, 2 or 3)"),
    ("echo_ns=1001", "bad value '1001' for key 'echo_ns' (off or 0..1000 ns)"),
    ("echo_ns=yes", "key 'echo_ns'"),
    ("align_dwell_us=1001", "bad value '1001' for key 'align_dwell_us' (0..1000 us)"),
    ("align_dwell_us=x", "key 'align_dwell_us'"),
    ("rx_slip=20", "key 'rx_slip'"),
    ("error_kind=boom", "key 'error_kind'"),
    ("ber_d2h=-1", "key 'ber_d2h'"),
    ("lba48", "key 'lba48'"),
])
def test_bad_config_names_key(config, key):
    with pytest.raises(ValueError) as e:
        VirtualDrive(config)
    assert key in str(e.value) and str(e.value).startswith("vdrive: ")


def test_known_answers_against_python_reference():
    lib = library()
    assert lib.vdrive_scrambler(0) == 0xC2D2768D == scrambler(1)[0]
    fis = [0x00EC8027, 0, 0, 0, 0]
    arr = (ctypes.c_uint32 * 5)(*fis)
    assert lib.vdrive_crc32(arr, 5) == crc32(fis)
    mism = 0
    for (rd, k, b), (code, rdo) in ENC.items():
        r = ctypes.c_int(0 if rd < 0 else 1)
        mism += lib.vdrive_8b10b_encode(b, k, ctypes.byref(r)) != code or r.value != (rdo > 0)
    assert mism == 0 and len(ENC) == 2 * (256 + 12)


def test_crc_and_scrambler_match_litesata_gateware():
    """LiteSATA's CRC and scrambler run on real drives: the model must agree with them."""
    from migen import run_simulation
    from litesata.core.link import LiteSATACRC, Scrambler
    lib = library()
    fis = [0x00EC8027, 0, 0, 0, 0x12345678, 0xDEADBEEF]
    crc, scr = LiteSATACRC(), Scrambler()
    got = {}

    def gen():
        yield crc.ce.eq(1)
        for d in fis:
            yield crc.data.eq(d)
            yield
        yield crc.ce.eq(0)
        yield
        got["crc"] = (yield crc.value)

    def gen_scr():
        yield scr.ce.eq(1)
        vals = []
        for _ in range(4):
            yield                      # ce reaches the register one cycle after it is written
            vals.append((yield scr.value))
        got["scr"] = vals

    run_simulation(crc, gen())
    run_simulation(scr, gen_scr())
    arr = (ctypes.c_uint32 * len(fis))(*fis)
    assert got["crc"] == lib.vdrive_crc32(arr, len(fis)) == crc32(fis)
    assert got["scr"] == [lib.vdrive_scrambler(i) for i in range(4)]


# --- word-level round trips --------------------------------------------------------------------

def test_identify_write_read_round_trip():
    d, h = linked("persona=ideal,capacity=1M,model=PYTEST DRIVE,serial=S42,firmware=F1")
    assert h.signature is not None and h.signature[0] & 0xFF == 0x34
    errors_at_link = h.code_errors                     # aligning mid-stream may cost a symbol
    ident = h.identify()
    assert ident.status == 0x50
    w = ident.data
    model = b"".join(x.to_bytes(2, "big") for x in w[27:47]).decode()
    assert model.startswith("PYTEST DRIVE ")
    assert w[49] & (1 << 9) and w[83] & (1 << 10)
    assert w[100] | w[101] << 16 == 1000000 // 512
    assert sum(b for x in w for b in x.to_bytes(2, "little")) % 256 == 0 and w[255] & 0xFF == 0xA5
    data = pattern(20 * 512, 1)                        # two Data FISes (8192 + 2048 bytes)
    assert h.write(300, data).status == 0x50
    r = h.read(300, 20)
    assert r.status == 0x50 and r.data == data
    assert d.read_sectors(300, 20) == data
    r = h.read(299, 1)                                 # never written: zeros
    assert r.data == bytes(512)
    st = d.stats()
    assert st["bytes_written"] == st["bytes_read"] - 512 == 20 * 512
    assert st["cmd_write_dma_ext"] == 1 and st["cmd_read_dma_ext"] == 2 and st["cmd_identify"] == 1
    assert st["crc_errors_rx"] == 0 and h.code_errors == errors_at_link


def test_ncq_fpdma_by_hand():
    """READ FPDMA QUEUED for two tags through the independent Python host: Register D2H with BSY
    clear per command, then per tag a DMA Setup (tag, direction, byte count) and its data, and Set
    Device Bits with the finished tags."""
    d, h = linked("persona=slc,capacity=1M")
    data = pattern(16 * 512, 3)
    d.write_sectors(100, data)
    for tag, lba in ((3, 100), (9, 108)):
        r = h.command(0x60, features=8, lba=lba, count=tag << 3)
        assert (r.status, r.error) == (0x40, 0)
    got, done = {}, 0
    while done != (1 << 3 | 1 << 9):
        fis = h.recv_fis()
        kind = fis[0] & 0xFF
        if kind == 0x41:
            assert len(fis) == 7 and fis[0] >> 13 & 1 and fis[5] == 8 * 512
            tag = fis[1] & 31
            got[tag] = b""
        elif kind == 0x46:
            got[tag] += b"".join(x.to_bytes(4, "little") for x in fis[1:])
        else:
            assert kind == 0xA1 and (fis[0] >> 16) & 0xFF == 0x40 and fis[0] >> 14 & 1
            assert fis[1] & ~((1 << 3 | 1 << 9) & ~done) == 0
            done |= fis[1]
    assert got == {3: data[:4096], 9: data[4096:]}
    st = d.stats()
    assert st["cmd_fpdma_read"] == 2 and st["ncq_max_depth"] == 2 and st["ncq_errors"] == 0
    # ncq=0: the same command is unknown
    d, h = linked("persona=ideal,capacity=1M")
    r = h.command(0x60, features=8, lba=0, count=0)
    assert (r.status, r.error) == (0x51, 0x04)


def test_28bit_commands_and_28bit_only_drive():
    d, h = linked("persona=mlc28,capacity=100000", gen=1)
    assert d.stats()["gen"] == 1
    w = h.identify().data
    assert not w[83] & (1 << 10) and (w[76] & 6) == 2
    data = pattern(3 * 512, 2)
    assert h.write(77, data, ext=False).status == 0x50
    assert h.read(77, 3, ext=False).data == data
    r = h.read(77, 3)                                  # READ DMA EXT on a 28-bit drive
    assert (r.status, r.error) == (0x51, 0x04)


def test_gen1_drive_links_at_gen1_not_gen2():
    d = VirtualDrive("max_gen=1,cominit_interval_us=0")
    assert not Host(d, 2).link_up(max_words=40000)
    assert d.stats()["link_ups"] == 0
    d, h = linked("max_gen=1", gen=1)
    assert d.stats()["link_ups"] == 1 and d.stats()["gen"] == 1
    assert h.read(0, 1).status == 0x50


def test_gen2_drive_steps_down_for_gen1_host():
    d, h = linked("max_gen=2", gen=1)
    st = d.stats()
    assert st["speed_downs"] == 1 and st["gen"] == 1
    # the host must have waited through 54.6 us of Gen2 ALIGN it could not decode
    assert d.time_ps() > 54_600_000


# --- impairments of a real link -----------------------------------------------------------------

def echo_seen(config, words, gen=2):
    """rx_los for ``words`` sent to a quiet drive: the indexes where it is low."""
    d = VirtualDrive("cominit_interval_us=0," + config)
    rx, los = d.step_n(words, gen)
    return [i for i, level in enumerate(los) if not level]


def test_echo_of_host_activity_on_rx_los():
    burst = [0] * 10 + [0x0F0F0, 0xF0F0F] * 8 + [0] * 60       # 16 words = 106.7 ns at Gen2
    assert echo_seen("", burst) == []                            # off by default
    assert echo_seen("echo_ns=off", burst) == []
    assert echo_seen("echo_ns=0", burst) == list(range(10, 26))
    assert echo_seen("echo_ns=20", burst) == list(range(13, 29))  # 3 words of 6.67 ns
    assert echo_seen("echo_ns=320", burst) == list(range(58, 74))
    # a word without a transition is no activity, whatever its level
    assert echo_seen("echo_ns=0", [0xFFFFF] * 20) == []


def test_echo_does_not_touch_the_link():
    d, h = linked("echo_ns=20")
    data = pattern(2 * 512, 7)
    assert h.write(3, data).status == 0x50 and h.read(3, 2).data == data


def test_align_dwell_delays_sync():
    plain = VirtualDrive("cominit_interval_us=0")
    assert Host(plain).link_up()
    d, h = linked("cominit_interval_us=0,align_dwell_us=25")
    extra_ps = d.time_ps() - plain.time_ps()
    assert 24_900_000 < extra_ps < 25_200_000
    assert d.stats()["link_ups"] == 1 and h.read(0, 1).status == 0x50


def test_gen3_drive_steps_down():
    d, h = linked("max_gen=3")
    st = d.stats()
    assert st["speed_downs"] == 1 and st["gen"] == 2
    assert 54_600_000 < d.time_ps() < 66_000_000                # Gen3 phase, then Gen2
    assert h.identify().data[76] & 0xE == 0xE                    # Gen1, Gen2, Gen3 supported
    d, h = linked("max_gen=3", gen=1)
    assert d.stats()["speed_downs"] == 2 and d.time_ps() > 109_200_000
    d = VirtualDrive("max_gen=1")
    d.set_max_gen(3)
    with pytest.raises(ValueError):
        d.set_max_gen(4)


def test_tx_polarity_without_auto_polarity_needs_the_host():
    d = VirtualDrive("tx_polarity=1,auto_polarity=0,cominit_interval_us=0")
    assert not Host(d).link_up(max_words=40000)
    d = VirtualDrive("tx_polarity=1,auto_polarity=0,cominit_interval_us=0")
    h = Host(d)
    h.tx_invert = True
    assert h.link_up() and d.stats()["polarity_flips"] == 0


@pytest.mark.parametrize("config", [
    "rx_slip=5", "tx_slip=17", "rx_polarity=1", "tx_polarity=1",
    "rx_polarity=1,tx_polarity=1,rx_slip=10,tx_slip=3", "cont=1",
])
def test_polarity_slip_cont(config):
    d, h = linked("persona=ideal," + config)
    data = pattern(4 * 512, 3)
    assert h.write(10, data).status == 0x50
    assert h.read(10, 4).data == data
    if "rx_polarity=1" in config:
        assert h.rx_invert                               # the host had to flip
    if "tx_polarity=1" in config:
        assert d.stats()["polarity_flips"] == 1           # the drive flipped


def test_image_file_offset(tmp_path):
    img = tmp_path / "disk.img"
    d, h = linked("capacity=1T,image={}".format(img))
    data = pattern(8 * 512, 4)
    lba = 123456789
    assert h.write(lba, data).status == 0x50
    d.close()
    assert img.stat().st_size == 10 ** 12
    assert img.stat().st_blocks * 512 < 10 ** 7          # sparse
    with open(img, "rb") as f:
        f.seek(lba * 512)
        assert f.read(len(data)) == data


def test_idnf_beyond_capacity_and_abrt():
    d, h = linked("capacity=2048")
    r = h.read(2047, 2)
    assert (r.status, r.error) == (0x51, 0x10)
    assert h.read(2046, 2).status == 0x50
    r = h.command(0xB0)                                  # SMART: unsupported
    assert (r.status, r.error) == (0x51, 0x04)
    r = h.command(0xEF, features=0x82)                   # write cache off
    assert r.status == 0x50 and not h.identify().data[85] & (1 << 5)
    assert d.stats()["cmd_errors"] == 2


def test_faults_seeded():
    d, h = linked("corrupt_lba=5,seed=7")
    data = pattern(8 * 512, 5)
    h.write(0, data)
    r = h.read(0, 8)
    diff = [i for i in range(len(data)) if data[i] != r.data[i]]
    assert r.status == 0x50 and len(diff) == 1 and diff[0] // 512 == 5
    assert d.read_sectors(0, 8) == data                  # the media is intact
    d, h = linked("error_lba=40,error_kind=idnf")
    r = h.read(32, 16)
    assert (r.status, r.error) == (0x51, 0x10)
    d, h = linked("stop_after_cmds=1")                   # a drive that stops answering
    assert h.read(0, 1).status == 0x50
    with pytest.raises(HostTimeout):
        h.command(0x25, lba=0, count=1, max_words=30000)
    assert h.link_up() and h.read(0, 1).status == 0x50  # COMRESET brings it back
    assert d.stats()["injected_stops"] == 1
    d, h = linked("crc_error_fis=2")                     # 1 = signature, 2 = the Data FIS
    r = h.read(0, 1)
    assert (r.status, r.error) == (0x51, 0x84)
    assert d.stats()["r_err_received"] == 1


def test_device_hold_and_host_hold():
    d, h = linked("persona=slc")
    h.hold_every = 200
    r = h.read(0, 16)
    st = d.stats()
    assert r.status == 0x50 and st["holds_sent"] > 0 and st["holds_received"] > 0
    assert h.holds_seen > 0


def test_stats_file(tmp_path):
    path = tmp_path / "stats.json"
    d, h = linked("stats_file={}".format(path))
    h.read(0, 1)
    d.close()
    import json
    st = json.loads(path.read_text())
    assert st["link_ups"] == 1 and st["cmd_read_dma_ext"] == 1
    assert st["fuzz_log"] == []                        # no fuzzer, no actions


# --- real-drive behaviours and protocol faults ----------------------------------------------------

@pytest.mark.parametrize("config, msg", [
    ("spinup_ms=60001", "bad value '60001' for key 'spinup_ms' (0..60000 ms)"),
    ("device=scsi", "bad value 'scsi' for key 'device' (ata|atapi|pm|semb)"),
    ("pio_blocks=3", "bad value '3' for key 'pio_blocks' (1, 2, 4, 8, 16, 32, 64 or 128)"),
    ("logical_sector=520", "bad value '520' for key 'logical_sector' (512 or 4096)"),
    ("fault_repeat=-1", "key 'fault_repeat'"),
    ("fuzz=2", "bad value '2' for key 'fuzz' (0..1)"),
    ("pmreq=doze", "bad value 'doze' for key 'pmreq' (off|partial|slumber)"),
    ("pmreq_idle_us=0", "bad value '0' for key 'pmreq_idle_us' (1..100000 us)"),
    ("interim_status=0x50", "key 'interim_status' (0 or a status with BSY 0x80 or DRQ 0x08)"),
    ("data_fis_dwords=16385", "bad value '16385' for key 'data_fis_dwords' (1..16384)"),
    ("setup_offset=2", "key 'setup_offset' (0..1073741824 bytes, a multiple of 4)"),
    ("setup_count_delta=-2", "key 'setup_count_delta'"),
    ("rx_fifo=2000", "bad value '2000' for key 'rx_fifo' (0..1024 dwords)"),
    ("rx_hold_every=8", "key 'rx_hold_every' (16..8192 dwords)"),
    ("temperature_c=101", "bad value '101' for key 'temperature_c' (0..100 C)"),
    ("sanitize_ms=600001", "bad value '600001' for key 'sanitize_ms' (0..600000 ms)"),
    ("health_time_scale=0", "bad value '0' for key 'health_time_scale'"),
    ("smart=maybe", "bad value 'maybe' for key 'smart'"),
])
def test_new_keys_bad_values(config, msg):
    with pytest.raises(ValueError) as e:
        VirtualDrive(config)
    assert msg in str(e.value)


def test_spinup_pio_blocks_and_stats():
    """spinup_ms: the link comes up at once, the signature 1 ms later (spinup_ps, within a dword);
    pio_blocks: IDENTIFY in 8 DRQ blocks; the new statistics come through stats()."""
    d, h = linked("spinup_ms=1,pio_blocks=8,device=ata")
    assert h.signature is None                         # 4000 words after link-up: still BSY
    sig = h.recv_fis()
    assert sig[0] & 0xFF == 0x34 and (sig[0] >> 16) & 0xFF == 0x50 and sig[1] & 0xFFFFFF == 1
    st = d.stats()
    assert 1_000_000_000 <= st["spinup_ps"] < 1_000_000_000 + 13_334
    ident = h.identify()
    assert ident.status == 0x50 and len(ident.data) == 256
    assert sum(b for x in ident.data for b in x.to_bytes(2, "little")) % 256 == 0
    assert ident.data[77] == 2 << 1                    # linked at Gen2
    st = d.stats()
    assert st["pio_setups"] == 8 and st["cmd_while_busy"] == 0
    for key in ("busy_fis_sent", "flush_ps", "cache_bytes_max", "dmat_sent", "injected_escapes",
                "injected_long_fis", "fault_repeats", "fuzz_applied", "fuzz_drop", "cmd_dsm"):
        assert st[key] == 0


# --- health: SMART, logs, sanitize ---------------------------------------------------------------

HEALTH_STATS = ("cmd_smart", "cmd_sanitize", "sanitize_blocked", "cmd_icrc", "r_err_rx_data",
                "r_err_rx_nondata", "r_err_tx_data_crc", "r_err_tx_data_other",
                "r_err_tx_nondata_crc", "r_err_tx_nondata_other", "nondata_retries",
                "phyrdy_lost", "sig_after_comreset", "rx_fis_crc_errors", "rx_fis_other_errors",
                "phy_event_resets", "read_cmds", "write_cmds", "sectors_read", "sectors_written",
                "poweron_hours", "temp_c", "temp_min_c", "temp_max_c", "temp_avg_c",
                "overtemp_minutes", "endurance_used", "pending_sectors", "reallocated_sectors")


def phy_counters(page):
    """SATA Phy Event Counters (log 11h) by identifier: bytes 0-3 reserved, then identifier words
    (bits 14:12 the value's size in 16-bit words) each followed by its value; a zero identifier
    ends the list."""
    out, off = {}, 4
    while True:
        ident = int.from_bytes(page[off:off + 2], "little")
        if ident == 0:
            return out
        words = ident >> 12 & 7
        out[ident & 0xFFF] = int.from_bytes(page[off + 2:off + 2 + 2 * words], "little")
        off += 2 + 2 * words


def test_health_logs_against_stats(tmp_path):
    """The Python host (no code shared with the drive) reads SMART and the logs: the phy event
    counters equal stats(), the device statistics count what the host did, the stats file has
    the new counters."""
    path = tmp_path / "stats.json"
    d, h = linked("persona=ideal,capacity=4096,crc_error_fis=2,stats_file={}".format(path))
    r = h.read(0, 4)                                   # the host refuses its Data FIS (bad CRC)
    assert (r.status, r.error) == (0x51, 0x84)
    assert h.write(8, pattern(2048, 1)).status == 0x50
    assert h.read(8, 4).status == 0x50
    assert h.command(0xB0, 0xDA, 0xC24F00).status == 0x50          # SMART RETURN STATUS
    smart = h.command(0xB0, 0xD0, 0xC24F00, 1)                       # SMART READ DATA
    assert smart.status == 0x50 and len(smart.data) == 512 and sum(smart.data) % 256 == 0
    attrs = {smart.data[2 + 12 * i]: int.from_bytes(smart.data[7 + 12 * i:13 + 12 * i], "little")
             for i in range(30) if smart.data[2 + 12 * i]}
    assert attrs[241] == 4 and attrs[242] == 4 and attrs[12] == 1 and attrs[194] & 0xFF == 30
    log = h.command(0x2F, lba=0x11, count=1)
    assert log.status == 0x50 and sum(log.data) % 256 == 0
    pe, st = phy_counters(log.data), d.stats()
    assert all(key in st for key in HEALTH_STATS)
    assert pe[0x01] == st["cmd_icrc"] == 1 and pe[0x03] == st["r_err_rx_data"] == 1
    assert pe[0x02] == 1 and pe[0x0A] == st["sig_after_comreset"] == 1 and pe[0x0B] == 0
    devstat = h.command(0x47, lba=0x04 | 0x01 << 8, count=1)        # READ LOG DMA EXT, page 01h
    assert devstat.status == 0x50 and devstat.data[2] == 0x01
    value = [int.from_bytes(devstat.data[off:off + 6], "little") for off in range(0x08, 0x38, 8)]
    assert value == [1, 0, 4, 1, 4, 1] and devstat.data[0x0F] == 0xC0
    d.close()
    import json
    st = json.loads(path.read_text())
    assert st["cmd_smart"] == 2 and st["cmd_read_log"] == 2 and st["sectors_written"] == 4


HOST_RULE_STATS = ("pio_lost_data", "pmreq_sent", "pmnak_received", "pmack_received",
                   "pmreq_xrdy", "pmreq_unanswered", "interim_status_sent",
                   "dwords_sent_in_host_hold", "frames_not_resent", "rx_hold_count",
                   "rx_hold_dwords_max", "rx_hold_over_budget", "fuzz_interim", "fuzz_pmreq",
                   "fuzz_no_resend", "fuzz_setup", "fuzz_long_data")


def test_host_rule_keys():
    """interim_status: a DRQ status before each command, the Python host waits for BSY and DRQ
    clear; pio_lost_data: the PIO Setup, then ICRC|ABRT; the statistics come through stats()."""
    d, h = linked("persona=ideal")
    assert all(d.stats()[k] == 0 for k in HOST_RULE_STATS)
    d, h = linked("interim_status=0x58,pio_lost_data=2")
    data = pattern(2048, 4)
    d.write_sectors(0, data)
    assert h.identify().status == 0x50
    r = h.identify()
    assert (r.status, r.error, r.data) == (0x51, 0x84, [])
    r = h.read(0, 4)
    assert r.status == 0x50 and r.data == data
    st = d.stats()
    assert st["pio_lost_data"] == 1 and st["interim_status_sent"] == 3


def test_pmreq_answered_by_python_host():
    """pmreq=slumber: PMREQ_S after 10 us of idle; a PMNAK with CONT around it ends it."""
    d, h = linked("pmreq=slumber,cont=1")
    n = 0
    while h.level != "PMREQ_S":
        h.cycle(PRIM["SYNC"])
        n += 1
        assert n < 1500
    assert n > 700                                     # 10 us = 750 Gen2 dwords
    h.cycle(PRIM["PMNAK"])
    h.cycle(PRIM["PMNAK"])
    h.cycle(PRIM["CONT"])
    for _ in range(20):
        h.cycle(0x12345678, k=False)                   # CONT junk
    for _ in range(1500):
        h.cycle(PRIM["SYNC"])
    st = d.stats()
    assert (st["pmreq_sent"], st["pmnak_received"], st["pmreq_unanswered"]) == (1, 1, 0)
    assert h.level == "SYNC" and h.read(0, 1).status == 0x50


def test_escape_and_device_signature():
    d, h = linked("escape_fis=2")                      # 1 signature, 2 the read's Data FIS
    r = h.read(0, 4)
    assert (r.status, r.error) == (0x51, 0x04) and r.data == b""
    assert d.stats()["injected_escapes"] == 1
    d, h = linked("atapi=1")
    assert h.signature[1] & 0xFFFFFF == 0xEB1401 and h.identify().status == 0x51


def fuzzed(seed, more=""):
    d = VirtualDrive("persona=ideal,fuzz=0.5,seed={}{}".format(seed, more))
    h = Host(d)
    assert h.link_up()
    for _ in range(3):
        try:
            h.command(0x25, lba=0, count=16, max_words=30000)
        except HostTimeout:
            assert h.link_up()                         # COMRESET brings the drive back
    return d.fuzz_log(), d.stats()


def test_fuzz_log_reproducible():
    import re
    log, st = fuzzed(7)
    assert 0 < len(log) <= 64 and st["fuzz_applied"] == sum(
        st[k] for k in ("fuzz_long", "fuzz_short", "fuzz_unknown", "fuzz_stray", "fuzz_extra",
                        "fuzz_field", "fuzz_dup", "fuzz_drop", "fuzz_interim", "fuzz_pmreq",
                        "fuzz_no_resend", "fuzz_setup", "fuzz_long_data"))
    for line in log:
        assert re.fullmatch(r"\d+ [0-9A-F]{2} (long|short|unknown|stray|extra|dup|drop|no_resend|"
                            r"long_data|field (bsy|drq|err|count|xfer_count|lba|i|d|tag|pm_port)|"
                            r"interim (bsy|drq)|pmreq (partial|slumber)|setup (offset|xfer_count))",
                            line)
    assert fuzzed(7) == (log, st)
    assert fuzzed(8)[0] != log
    assert VirtualDrive("").fuzz_log() == []


FUZZ_KINDS_ERROR = ("vdrive: bad value '{}' for key 'fuzz_kinds' (all, or kinds joined by +, or "
                    "-kind-kind... to leave kinds out; kinds: long short unknown stray extra field "
                    "dup drop interim pmreq no_resend setup long_data)")


@pytest.mark.parametrize("value", ["x", "", "long-drop", "-drop+long", "fuzz_drop", "+long",
                                   "-", "all+long", "Drop"])
def test_fuzz_kinds_bad_values(value):
    with pytest.raises(ValueError) as e:
        VirtualDrive("fuzz=0.5,fuzz_kinds=" + value)
    assert str(e.value) == FUZZ_KINDS_ERROR.format(value)


def test_fuzz_kinds_and_fuzz_log_in_stats_file(tmp_path):
    """fuzz_kinds=-drop: the same seed's actions without the drops; drop: drops only. The stats
    file carries the fuzz log (what vdrive_fuzz_log gives) under "fuzz_log"."""
    import json
    for value in ("all", "-drop", "-drop-no_resend", "long+short+unknown", "drop"):
        VirtualDrive("fuzz_kinds=" + value).close()
    log, st = fuzzed(7, ",fuzz_kinds=-drop")
    assert st["fuzz_drop"] == 0 and st["fuzz_applied"] > 0
    assert not [line for line in log if line.split()[2] == "drop"]
    full, full_st = fuzzed(7)
    assert full_st["fuzz_applied"] == len(full)         # the whole run's log
    drops = [i for i, line in enumerate(full) if line.split()[2] == "drop"]
    assert drops and drops[0] > 0 and log[:drops[0]] == full[:drops[0]]   # the same decisions
    log, st = fuzzed(7, ",fuzz_kinds=drop")
    assert st["fuzz_applied"] == st["fuzz_drop"] > 0 and all(l.endswith(" drop") for l in log)

    path = tmp_path / "stats.json"
    d = VirtualDrive("persona=ideal,fuzz=0.5,seed=7,fuzz_kinds=-drop,stats_file={}".format(path))
    h = Host(d)
    assert h.link_up()
    for _ in range(3):
        try:
            h.command(0x25, lba=0, count=16, max_words=30000)
        except HostTimeout:
            assert h.link_up()
    log, st = d.fuzz_log(), d.stats()
    d.close()
    written = json.loads(path.read_text())
    assert written.pop("fuzz_log") == log and 0 < len(log) <= 64
    assert written == st


def test_litex_module_smoke(tmp_path):
    """The LiteX sim module in a tiny Verilator design: COMRESET/COMINIT, COMWAKE, then ALIGN."""
    import subprocess
    import sys
    script = os.path.join(PACKAGE, "sim", "vdrive", "litex", "smoke.py")
    r = subprocess.run([sys.executable, script, str(tmp_path / "smoke")], capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "vdrive smoke: PASS" in r.stdout
