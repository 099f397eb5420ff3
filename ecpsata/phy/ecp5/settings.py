# SPDX-License-Identifier: BSD-2-Clause
"""The PHY's run-time settings, as data: each named setting's values, what it writes (a field of
the PHY's control register, a field of a DCU register through the SCI, the TX driver's slices, the
Gen1 method register) and where its values come from; and the defaults of `phy scan`.

The host reads and writes them at run time (ecpsata/host/phy.py); the firmware's console gets
the scan's default sets from here through its generated header (ecpsata/soc/codes.py). Both
look down at this file, which imports nothing above the PHY.
"""

from ecpsata.phy.common import COMRESET_RETRY_INTERVAL
from ecpsata.phy.ecp5.bringup import DUAL, SCI_FIELDS
from ecpsata.phy.ecp5.serdes import TX_SWING, VCO_CK_DIV

SERDES = "sata_serdes_bringup_"     # the SerDes bring-up block's CSR prefix


class Setting:
    """A named setting: `values` maps a value's name to what is written; `source` says where its
    values come from, `link` whether it applies at the next link attempt."""
    def __init__(self, values, text, source, link=True):
        self.values, self.text, self.source, self.link = values, text, source, link


class ControlField(Setting):
    """Fields of the PHY's control register (sata_phy_control): `values` maps a name to the
    fields' values {field: value}."""
    reg = "sata_phy_control"


class SCIField(Setting):
    """A field of a DCU register (SCI_FIELDS: address, lowest bit, bits, build parameter; DUAL set
    in the address for a dual register), through the SCI; `values` maps a name to the field's
    value."""
    def __init__(self, key, values, text, source, link=False):
        adr, lo, size, param = SCI_FIELDS[key]
        self.aux, self.adr, self.lo, self.size = bool(adr & DUAL), adr & 0x3F, lo, size
        kind = "dual" if self.aux else "channel"
        where = f"SCI {kind} register 0x{self.adr:02x} " + \
            (f"bits {lo}-{lo + size - 1}" if size > 1 else f"bit {lo}")
        built = f", {param.replace('CHX', 'CHx')} at build time" if param else ""
        super().__init__(values, f"{text} ({where}{built})", source, link)


class TxSwing(Setting):
    """The TX driver's slices as a whole, set to the build's drive for a nominal swing
    (bringup.tx_swing_writes); reads as the swing whose bits all match, or "custom"."""
    def __init__(self, text, source):
        super().__init__({str(v): v for v in TX_SWING}, text, source, link=False)


class Gen1Method(Setting):
    """How a Gen2 build runs Gen1: the channel's half-rate pins, or /2 in the TX and CDR dividers
    (``tx_vco_div``, ``rx_dco_div``) with the pins at full rate. Written as the dividers first,
    then the gateware's choice (sata_serdes_bringup_gen1_method), whose change resets both lanes.
    The gateware does not rewrite the dividers at a speed change: `dividers` needs `gen=gen1`."""
    reg = SERDES + "gen1_method"
    divider = {"pins": 1, "dividers": 2}

    def __init__(self, text, source):
        super().__init__({"pins": 0, "dividers": 1}, text, source)


def _raw(size):
    return {str(v): v for v in range(1 << size)}


_DIVIDERS = {f"/{n}": int(code, 0) for n, code in VCO_CK_DIV.items()}

SETTINGS = {
    "gen": ControlField(
        {"auto": {"force_gen": 0}, "gen1": {"force_gen": 1}, "gen2": {"force_gen": 2}},
        "line rates tried: auto starts at Gen2 and falls back to Gen1",
        "SATA speed negotiation (a host offers its fastest rate, then the lower ones)"),
    "tx_polarity": ControlField(
        {"auto": {"tx_polarity_auto": 1, "tx_polarity": 0},
         "auto-inverted": {"tx_polarity_auto": 1, "tx_polarity": 1},
         "normal": {"tx_polarity_auto": 0, "tx_polarity": 0},
         "inverted": {"tx_polarity_auto": 0, "tx_polarity": 1}},
        "TX pair polarity: auto tries the other one after a failed attempt",
        "a board's TX pair polarity is not known in advance; LiteSATA's ECP5 PHY flips it after a "
        "failed attempt"),
    "rx_polarity": ControlField(
        {"auto": {"rx_polarity_auto": 1, "rx_polarity": 0},
         "normal": {"rx_polarity_auto": 0, "rx_polarity": 0},
         "inverted": {"rx_polarity_auto": 0, "rx_polarity": 1}},
        "RX pair polarity: auto learns it from ALIGN and its inverted form",
        "SATA's ALIGN tells the two polarities apart; forcing it rules the learning out while "
        "looking for another fault"),
    "pacing": ControlField(
        {f"{COMRESET_RETRY_INTERVAL * 1e3 * (1 << n):g}ms": {"pacing": n} for n in range(4)},
        "COMRESET no more often than this (before the back-off after failed attempts)",
        "drives answer within 10 ms and beacon COMINIT every 10 ms while the link is down; "
        "public ECP5 bring-ups saw drives wedge under floods of OOB: slower pacing"),
    "oob_gaps": ControlField(
        {"zero-words": {"oob_ei_gaps": 0}, "ei-comreset": {"oob_ei_gaps": 1}},
        "OOB gaps: all-zero words, or electrical idle in COMRESET's 320 ns gaps (COMWAKE's "
        "107 ns gaps are shorter than the ~220 ns the DCU takes to engage it)",
        "all-zero words made drives answer on ECP5 hardware; electrical idle is what the SATA "
        "specification describes for OOB gaps"),
    "lb_ctl": SCIField(
        "lb_ctl", {"off": 0, "t2r": 1, **_raw(4)},
        "DCU channel loopback control: bit 0 the serializer's line into the receiver (t2r, "
        "near-end), bit 1 the equaliser's output to the TX driver, bits 2/3 the CDR's clock / "
        "data to it (far-end echoes, with tdrv_dat_sel)",
        "TN1261's register map; t2r is what LiteICLink's ECP5 SerDes writes for its loopback, "
        "which it notes may not be enough on silicon; off is the reset value"),
    "tdrv_dat_sel": SCIField(
        "tdrv_dat_sel", {"serializer": 0, "clock": 1, "cdr-echo": 2, "eq-echo": 3},
        "the TX driver's input: our serializer, its rate clock, the CDR's echo of the received "
        "line (lb_ctl bit 2 or 3) or the equaliser's (lb_ctl bit 1)",
        "TN1261's register map; LUNA's USB 3 PHY writes eq-echo with lb_ctl 2 for USB 3's "
        "loopback (the device echoes what it receives); serializer is the build's"),
    "tx_swing": TxSwing(
        "TX driver: the six slices' selects and currents for a nominal swing in mV (SCI channel "
        "registers 0x12-0x15; custom once a slice is set on its own)",
        "the build's sets (its TX_SWING): 600, liteiclink's 6 mA drive that linked with a drive, "
        "is the default; 800 and 1000 are Diamond's 8 and 10 mA sets. SATA Gen2i allows 400-700 "
        "mVppd at the connector; slices 4 and 5's selects sit in 0x13 bits 0-3, which TN1261 "
        "marks internal (prjtrellis's bit order places them there)"),
    "tx_slice2": SCIField(
        "tx_slice2", {"power-down": 0, "main": 1, "pre": 2, "post": 3},
        "TX driver slice 2 (3.2 mA of the build's 6 mA main-data drive): main data, post-cursor "
        "data (de-emphasis), pre-cursor data, or off (less swing)",
        "LUNA's ECP5 PHY for USB 3 writes these bits (post data for its 3.5 dB de-emphasis); the "
        "select codes are TN1261's tdrv_slice2_sel; main is the build's value"),
    "rx_term": SCIField(
        "rx_term", {"50ohm": 19, "luna": 22, "off": 0, **_raw(5)},
        "RX termination (TN1261's rterm_rx: 19 is 50.0 ohm, 22 47.8 ohm, 0 5 kohm)",
        "LUNA's ECP5 PHY writes 22 there with its termination on and 0 with it off; 19 (50 ohm) "
        "is the build's, as LiteICLink's"),
    "rx_term_cm": SCIField(
        "rx_term_cm", {"supply": 0, "floating": 1, "gnd": 2, "3": 3},
        "RX termination's common mode: the RX input supply, floating (AC ground) or ground",
        "TN1261's rxterm_cm; gnd is the build's and LUNA's, with which loss of signal followed "
        "the line on an ECPIX-5"),
    "rx_eq": SCIField(
        "rx_eq", {"off": 0, "on": 1},
        "receive equaliser",
        "TN1261's req_en; LUNA's ECP5 PHY writes its equaliser through this register (0x19); on "
        "is the build's and LUNA's"),
    "rx_eq_pole": SCIField(
        "rx_eq_pole", _raw(4),
        "the receive equaliser's pole position (TN1261's rx_rate_sel; the values' meaning is not "
        "published)",
        "10 is the build's; LUNA builds with 9 and sweeps all 16 with the 4 levels, keeping the "
        "pair with the fewest 8b10b errors"),
    "rx_eq_level": SCIField(
        "rx_eq_level", {"6db": 0, "9db": 1, "12db": 2, "3": 3},
        "the receive equaliser's level (TN1261's req_lvl_set; 3 is marked unused)",
        "9db is the build's and LUNA's; LUNA notes that Lattice's reference designs use 3"),
    "pden": SCIField(
        "pden", {"keep": 0, "off-in-los": 1},
        "the CDR's phase detector during loss of signal: kept on, or off (TN1261's pden_sel)",
        "keep is the build's (OOB bursts reach the CDR at once); LUNA builds with off-in-los"),
    "los_lvl": SCIField(
        "los_lvl", _raw(3),
        "loss-of-signal threshold, peak to peak (TN1261's rx_los_lvl; volts per step not "
        "published): COMINIT and COMWAKE are seen only above it",
        "2 is the build's, with which loss of signal followed the line on an ECPIX-5; LUNA "
        "builds with 4"),
    "los_ceq": SCIField(
        "los_ceq", _raw(2),
        "equalisation at the loss-of-signal detector's input (TN1261's rx_los_ceq)",
        "3 is the build's and LUNA's"),
    "los_hyst": SCIField(
        "los_hyst", {"off": 0, "on": 1},
        "hysteresis on the loss-of-signal threshold (TN1261's rx_los_hyst_en)",
        "off is the build's and LUNA's: the public SATA work on ECP5 saw loss of signal follow "
        "OOB with it off"),
    "cdr_lol": SCIField(
        "cdr_lol", {"1000ppm": 0, "2000ppm": 1, "4000ppm": 2, "300ppm": 3},
        "the CDR's lock window (TN1261's cdr_lol_set: lock / unlock at +-1000 x2 / +-1500 x2, "
        "+-2000 / +-2500, +-4000 / +-7000 or +-300 / +-450 ppm), for the whole DCU",
        "4000ppm is the build's and LUNA's: a drive with spread-spectrum clocking moves its "
        "rate by up to 5000 ppm down (SATA allows it)"),
    "gen1_method": Gen1Method(
        "how Gen1 is made: the channel's half-rate pins, or /2 in the TX and CDR dividers with "
        "the pins at full rate (writes tx_vco_div and rx_dco_div; needs gen=gen1, the dividers "
        "are not rewritten at a speed change)",
        "pins is the build's (FFC_RATE_MODE_TX/RX, the DCU's half-rate mode); dividers is how "
        "Diamond builds a low-rate channel (GbE at 1.25 Gb/s), and left the receiver dead in "
        "LiteSATA's ECP5 work with the Gen2 CDR profile: a setting to try, not a proven one"),
    "tx_vco_div": SCIField(
        "tx_vco_div", {**_DIVIDERS, **_raw(3)},
        "the TX PLL's output divider, for the whole DCU (TN1261's tx_vco_ck_div; codes 00x /1, "
        "01x /2, 100 /4 and up)",
        "/1 is the build's at Gen2; gen1_method writes it; its bits in the register are where "
        "prjtrellis's frame order puts them"),
    "rx_dco_div": SCIField(
        "rx_dco_div", {**_DIVIDERS, **_raw(3)},
        "the CDR's output divider (TN1261's rx_dco_ck_div, the same codes)",
        "/1 is the build's at Gen2; gen1_method writes it; bits as for tx_vco_div"),
}
# Bits the gateware keeps and rewrites itself (ecpsata/phy/ecp5/sci.py): shown, not set.
KEPT = {"rx_invert": (0x01, 0, "the RX polarity in use (rx_polarity above)"),
        "tx_invert": (0x01, 1, "the TX polarity in use (tx_polarity above)"),
        "cdr_hold": (0x18, 6, "TN1261's fc2dco_floop (the DCO held on its frequency loop): held "
                              "while the line carries OOB, released for ALIGN")}
KEPT_REGISTERS = {0x01, 0x18}

# `phy scan`'s defaults, for the host and the console alike. The default list: today's defaults
# first, then each rate with each TX polarity forced (the settings public ECP5 bring-ups had to
# change first: the line rate, a swapped TX pair).
SCAN_SETS = [
    {"name": "defaults", "settings": {"gen": "auto", "tx_polarity": "auto"}},
    {"name": "gen2 normal", "settings": {"gen": "gen2", "tx_polarity": "normal"}},
    {"name": "gen2 inverted", "settings": {"gen": "gen2", "tx_polarity": "inverted"}},
    {"name": "gen1 normal", "settings": {"gen": "gen1", "tx_polarity": "normal"}},
    {"name": "gen1 inverted", "settings": {"gen": "gen1", "tx_polarity": "inverted"}},
]
SCAN_SECTORS = 64         # sectors read after each link
SCAN_HW_WINDOW = 0.5      # target seconds per set: tens of paced COMRESET attempts
SCAN_SIM_WINDOW = 0.05    # on a simulated SoC (about 250 times slower than real time)
