# SPDX-License-Identifier: BSD-2-Clause
"""The Icarus Verilog test bench of the four-state run (ecpsata/checks/xprop.py) and the gate-level
run (ecpsata/checks/gatesim.py): the PHY and the core (`xdut`: on the simulation SerDes, or on the
board's DCU wrapper with the DCUA model, ecpsata/checks/dcu_netlist.py) against the virtual drive
through VPI (ecpsata/checks/xprop_vpi.c), and the scenarios they play.

A scenario is a virtual drive configuration and a list of steps:

- ``("link",)``: wait for the PHY's ready (after a drop, for it to come back), then let the drive
  settle;
- ``("identify",)``; ``("write", lba, sectors)``: the data is `pattern_word` of each sector and
  word; ``("read", lba, sectors)``;
- ``("qwrite", lba, tags)``, ``("qread", lba, tags)``: WRITE / READ FPDMA QUEUED of one sector
  each, tags 0 .. tags-1 at LBAs lba .. lba+tags-1, each presented as soon as the layer takes
  the one before; done when every tag is in the queued layer's `done`, or at its error. The
  result gives the deepest the queue went (`depth`: the most tags outstanding at once).

Each step prints ``RESULT ...`` (a command: failed, words, the checksum of its data, its
cycles from presentation to end); `problems` says what in a run's results is not what the
scenario expects (a read of a range written before must return the written data).
"""

import re

from ecpsata.engines.common import (OP_WRITE_VERIFY, REASON_OK, SECTOR_DWORDS, STATE_BUSY,
                                    STATE_DONE, STATE_ERROR, STATE_IDLE)

SYS_CLK_FREQ = 100e6
RESET_CYCLES = 20          # sys cycles in reset at power-up
CHECK_AFTER = 16           # sys cycles after the release before every edge is checked
LINK_TIMEOUT_US = 200      # the link comes up in about 40 us with SHORT_TIMINGS
COMMAND_TIMEOUT_US = 200
SETTLE_US = 60             # after the link: the core's settle time (50 us) and some
BENCH_TIMEOUT_US = 400     # a run of the benchmark engine
BENCH_TIMEOUT = int(BENCH_TIMEOUT_US * SYS_CLK_FREQ / 1e6)
CAPACITY = 4096            # the drive's sectors
DRIVE = f"persona=ideal,capacity={CAPACITY}"

# One write and its read-back, beside IDENTIFY: the PHY, the link's both directions and the
# command layer's three protocols (PIO data-in, DMA out, DMA in).
BASE = (("link",), ("identify",), ("write", 16, 4), ("read", 16, 4))

# name -> (virtual drive configuration, steps). The device FISes the drive queues, as its frame
# fault keys count them: 1 signature, 2-3 IDENTIFY's PIO Setup and Data, 4-5 the write's DMA
# Activate and status, 6-7 the read's Data and status; the host's: 1 IDENTIFY, 2 the write's
# command, 3 its Data.
SCENARIOS = {
    # with a queued write and read-back at QD 4 (the drive takes 5 us to its first data, so
    # that the reads are all outstanding together too)
    "gen2": (DRIVE + ",ncq=1,first_data_us=5", BASE + (("qwrite", 32, 4), ("qread", 32, 4))),
    "gen1": (DRIVE + ",max_gen=1", BASE),
    # the drive refuses the write's command FIS (we send it again), and the write's status comes
    # with a bad CRC (we answer R_ERR, the drive sends it again)
    "r_err": (DRIVE + ",rerr_fis=2,crc_error_fis=5", BASE),
    # the link drops (COMINIT) in the middle of the read's data: the read fails, the link comes
    # back, the read again returns the written data
    "link_drop": (DRIVE + ",drop_after_dwords=840", BASE + (("link",), ("read", 16, 4))),
    # the benchmark engine's hardware loop (its CSRs as the firmware writes them): two 8-sector
    # writes with its pattern, read back through its checker (designs with the engine only)
    "bench": (DRIVE, (("link",), ("bench", 64, 8, 2))),
}
# The commands (by their place among the scenario's commands) that must fail; all others succeed.
MUST_FAIL = {"link_drop": {2}}


def needs_engine(scenario):
    """Whether `scenario` drives the benchmark engine (a design with its CSR bus)."""
    return any(step[0] == "bench" for step in SCENARIOS[scenario][1])


def pattern_word(sector, word):
    """The word a write puts at `word` (0..127) of `sector`."""
    return 0x5A5A0000 ^ ((sector & 0xFFFF) << 9) ^ word


def checksum(words):
    """The test bench's checksum of a command's data words (multiply by 33 and add, modulo 2**32:
    order and position count)."""
    s = 0
    for w in words:
        s = (s * 33 + w) & 0xFFFFFFFF
    return s


def problems(scenario, results):
    """What is wrong with a run's `results` (its RESULT lines) for `scenario`, as lines: a step
    without its result, a link that did not come up, a command that failed (or did not) against
    MUST_FAIL, IDENTIFY without its 128 words, a queued run that never had all its tags
    outstanding, a completed read of sectors written before that did not return the written
    words."""
    steps = SCENARIOS[scenario][1]
    if len(results) != len(steps):
        return [f"{len(results)} results for {len(steps)} steps: {results}"]
    problems, written = [], set()
    commands = [s for s in steps if s[0] != "link"]
    lines = [r for r in results if not r.startswith("link")]
    problems += [r for r in results if r.startswith("link") and not r.startswith("link up")]
    for k, (step, line) in enumerate(zip(commands, lines)):
        want = "failed=1" if k in MUST_FAIL.get(scenario, ()) else "failed=0"
        if not line.startswith(step[0]) or want not in line:
            problems.append(f"{' '.join(map(str, step))}: {line} (expected {want})")
        if step[0] == "identify" and "words=128 " not in line:
            problems.append(f"identify: {line} (expected 128 words)")
        if step[0] == "bench":
            lba, sectors, commands = step[1:]
            # both passes counted: the writes, then the reads through the checker
            want = dict(reason=REASON_OK, completed=2 * commands, errors=0,
                        bytes=2 * commands * sectors * SECTOR_DWORDS * 4, mismatches=0)
            got = dict(re.findall(r"(\w+)=(\d+)", line))
            wrong = [f"{k}={got.get(k)} (expected {v})" for k, v in want.items()
                     if got.get(k) != str(v)]
            if wrong:
                problems.append(f"bench of LBA {lba}, {commands} x {sectors}: " + ", ".join(wrong))
            continue
        lba, n = step[1:] if len(step) == 3 else (0, 0)
        if step[0] in ("qwrite", "qread") and f"depth={n}" not in line:
            problems.append(f"{step[0]} of {n} tags: the queue did not hold them all ({line})")
        if step[0] in ("write", "qwrite"):
            written |= set(range(lba, lba + n))
        elif step[0] in ("read", "qread") and set(range(lba, lba + n)) <= written \
                and "failed=0" in line:
            sectors = [[pattern_word(lba + i // SECTOR_DWORDS, i % SECTOR_DWORDS)
                        for i in range(n * SECTOR_DWORDS)]]
            if step[0] == "qread":      # one checksum per tag (a sector), then of those
                sectors = [[checksum(sectors[0][t * SECTOR_DWORDS:(t + 1) * SECTOR_DWORDS])
                            for t in range(n)]]
            want = checksum(sectors[0])
            if f"words={n * SECTOR_DWORDS} sum={want:08x}" not in line:
                problems.append(f"{step[0]} of LBA {lba} x {n}: not the written data ({line}; "
                                f"written: words={n * SECTOR_DWORDS} sum={want:08x})")
    return problems


TESTBENCH = r"""
`timescale 1ps/1ps
module tb;
reg sys_clk = 0, word_clk = 0, sys_rst = 1, checking = 0;
always #5000 sys_clk = ~sys_clk;     // sys: 100 MHz
always #3333 word_clk = ~word_clk;   // the Gen2 word clock: 150 MHz (the SerDes divides it for Gen1)
wire clk, gen, ready;
wire [19:0] tx;
reg [19:0] rx = 0;
reg rx_los = 1;
reg sink_valid = 0, sink_last = 0, sink_identify = 0, sink_read = 0, sink_write = 0;
reg [47:0] sink_sector = 0;
reg [15:0] sink_count = 0;
reg [31:0] sink_data = 0;
wire sink_ready, source_valid, source_last, source_write, source_read, source_identify;
wire source_end, source_failed;
wire [31:0] source_data;
// the queued layer's ports
reg q_valid = 0, q_write = 0, wr_req_ready = 0, wr_valid = 0;
reg [4:0] q_tag = 0;
reg [47:0] q_lba = 0;
reg [15:0] q_count = 0;
reg [31:0] wr_data = 0;
wire q_ready, rd_valid, rd_last, rd_error, wr_req_valid, wr_ready, q_error;
wire [4:0] rd_tag, wr_req_tag;
wire [22:0] wr_req_offset;
wire [11:0] wr_req_dwords;
wire [31:0] rd_data, q_outstanding, q_done;
wire [3:0] q_reason;
xdut dut(
    .sys_clk(sys_clk), .sys_rst(sys_rst), .word_clk(word_clk), .clk(clk), .tx(tx), .gen(gen),
    .rx(rx), .rx_los(rx_los), .ready(ready),
    .sink_valid(sink_valid), .sink_ready(sink_ready), .sink_first(1'b0), .sink_last(sink_last),
    .sink_payload_data(sink_data), .sink_param_write(sink_write), .sink_param_read(sink_read),
    .sink_param_identify(sink_identify), .sink_param_sector(sink_sector),
    .sink_param_count(sink_count), .sink_param_lba28(1'b0), .sink_param_nodata(1'b0),
    .sink_param_custom(1'b0), .sink_param_command(8'd0), .sink_param_features(16'd0),
    .source_valid(source_valid), .source_ready(1'b1), .source_first(), .source_last(source_last),
    .source_payload_data(source_data), .source_param_write(source_write),
    .source_param_read(source_read), .source_param_identify(source_identify),
    .source_param_end(source_end), .source_param_failed(source_failed),
    .q_valid(q_valid), .q_ready(q_ready), .q_write(q_write), .q_tag(q_tag), .q_lba(q_lba),
    .q_count(q_count), .rd_valid(rd_valid), .rd_ready(1'b1), .rd_data(rd_data), .rd_tag(rd_tag),
    .rd_last(rd_last), .rd_error(rd_error), .wr_req_valid(wr_req_valid),
    .wr_req_ready(wr_req_ready), .wr_req_tag(wr_req_tag), .wr_req_offset(wr_req_offset),
    .wr_req_dwords(wr_req_dwords), .wr_valid(wr_valid), .wr_ready(wr_ready), .wr_data(wr_data),
    .q_outstanding(q_outstanding), .q_done(q_done), .q_error(q_error), .q_reason(q_reason)
    @CSR_PORTS@
);
@CSR_TASKS@

initial $vdrive_open("@DRIVE@");
always @(posedge clk) $vdrive_step(tx, gen, rx, rx_los);

// The line from the release on: words hashed (an X makes the hash X), counted.
reg [63:0] line_hash = 64'd0;
integer line_words = 0, xwords_at_check = 0;
always @(posedge clk) if (checking) begin
    line_hash <= {line_hash[56:0], line_hash[63:57]} ^ {44'd0, tx} ^ (line_words * 64'h9e3779b97f4a7c15);
    line_words <= line_words + 1;
end

@CHECKS@

function [31:0] pattern(input [47:0] sector, input integer word);
    pattern = 32'h5a5a0000 ^ ({16'd0, sector[15:0]} << 9) ^ word;
endfunction

integer cycles, words, failed, i, n;
reg [31:0] sum;
// The command's end on the source: its data words summed (a read's, IDENTIFY's), failed or not.
task finish(input [8*8-1:0] name);
begin
    words = 0; sum = 0; failed = -1;
    while (failed == -1 && cycles < @TIMEOUT@) begin
        @(posedge sys_clk); cycles = cycles + 1;
        if (source_valid === 1'b1) begin
            if (source_end !== 1'b1 || (source_identify === 1'b1 && words == 127)) begin
                sum = sum * 33 + source_data; words = words + 1;
            end
            if (source_end === 1'b1) failed = source_failed;
        end
    end
    if (failed == -1) $display("RESULT %0s timeout", name);
    else $display("RESULT %0s failed=%0d words=%0d sum=%h cycles=%0d", name, failed, words, sum,
                  cycles);
end
endtask

task command(input identify, input read, input [47:0] sector, input [15:0] count);
begin
    sink_identify <= identify; sink_read <= read; sink_sector <= sector; sink_count <= count;
    sink_valid <= 1; sink_last <= 1;
    cycles = 0;
    @(posedge sys_clk);
    while (sink_ready !== 1'b1 && cycles < @TIMEOUT@) begin @(posedge sys_clk); cycles = cycles + 1; end
    sink_valid <= 0; sink_last <= 0; sink_identify <= 0; sink_read <= 0;
    finish(identify ? "identify" : "read");
end
endtask

// A write: its words on the sink, one per accepted beat, the last with `last`.
task write(input [47:0] sector, input [15:0] count);
begin
    sink_write <= 1; sink_sector <= sector; sink_count <= count;
    n = count * @SECTOR_DWORDS@; i = 0; cycles = 0;
    sink_valid <= 1; sink_last <= (n == 1); sink_data <= pattern(sector, 0);
    while (i < n && cycles < @TIMEOUT@) begin
        @(posedge sys_clk); cycles = cycles + 1;
        if (sink_ready === 1'b1) begin
            i = i + 1;
            if (i < n) begin
                sink_last <= (i == n - 1);
                sink_data <= pattern(sector + i / @SECTOR_DWORDS@, i % @SECTOR_DWORDS@);
            end else begin
                sink_valid <= 0; sink_last <= 0;
            end
        end
    end
    sink_valid <= 0; sink_last <= 0; sink_write <= 0;
    finish("write");
end
endtask

// Queued commands (one sector per tag, tag t at q_base + t): the write requests served with the
// pattern, the read data summed per tag, the completions and the first error latched.
reg [47:0] q_base = 0;
reg [22:0] w_off = 0;
reg [11:0] w_left = 0;
reg [4:0] w_tag = 0;
reg w_busy = 0, q_err_seen = 0, q_clear = 0;
integer k, q_depth = 0;
reg [31:0] done_all = 0;
reg [3:0] q_err_reason = 0;
reg [31:0] tag_sum [0:31];
integer tag_words [0:31];
always @(posedge sys_clk) begin
    if (!w_busy) begin
        wr_req_ready <= 1;
        if (wr_req_valid === 1'b1 && wr_req_ready) begin
            w_busy <= 1; wr_req_ready <= 0; w_tag <= wr_req_tag;
            w_off <= wr_req_offset + 1; w_left <= wr_req_dwords;
            wr_valid <= 1; wr_data <= pattern(q_base + wr_req_tag + wr_req_offset / @SECTOR_DWORDS@,
                                 wr_req_offset % @SECTOR_DWORDS@);
        end
    end else if (wr_ready === 1'b1) begin
        if (w_left == 1) begin w_busy <= 0; wr_valid <= 0; end
        else begin
            w_left <= w_left - 1; w_off <= w_off + 1;
            wr_data <= pattern(q_base + w_tag + w_off / @SECTOR_DWORDS@, w_off % @SECTOR_DWORDS@);
        end
    end
    if (q_clear) begin
        done_all <= 0; q_err_seen <= 0; q_err_reason <= 0; q_depth <= 0;
        for (k = 0; k < 32; k = k + 1) begin tag_sum[k] <= 0; tag_words[k] <= 0; end
    end else begin
        if (rd_valid === 1'b1) begin
            tag_sum[rd_tag] <= tag_sum[rd_tag] * 33 + rd_data;
            tag_words[rd_tag] <= tag_words[rd_tag] + 1;
        end
        done_all <= done_all | q_done;
        if ($countones(q_outstanding) > q_depth) q_depth <= $countones(q_outstanding);
        if (q_error === 1'b1 && !q_err_seen) begin q_err_seen <= 1; q_err_reason <= q_reason; end
    end
end

task queued(input write, input [47:0] base, input integer count);
begin
    q_base = base;
    q_clear <= 1; @(posedge sys_clk); q_clear <= 0;       // the collector starts afresh
    cycles = 0;
    for (i = 0; i < count && cycles < @TIMEOUT@; i = i + 1) begin
        q_valid <= 1; q_write <= write; q_tag <= i; q_lba <= base + i; q_count <= 1;
        @(posedge sys_clk); cycles = cycles + 1;
        while (q_ready !== 1'b1 && cycles < @TIMEOUT@) begin @(posedge sys_clk); cycles = cycles + 1; end
    end
    q_valid <= 0; q_write <= 0;
    n = (1 << count) - 1;
    while (done_all[31:0] != n && !q_err_seen && cycles < @TIMEOUT@) begin
        @(posedge sys_clk); cycles = cycles + 1;
    end
    sum = 0; words = 0;
    for (i = 0; i < count; i = i + 1) begin sum = sum * 33 + tag_sum[i]; words = words + tag_words[i]; end
    if (done_all != n && !q_err_seen) $display("RESULT q%0s timeout", write ? "write" : "read");
    else $display("RESULT q%0s failed=%0d words=%0d sum=%h cycles=%0d reason=%0d depth=%0d",
                  write ? "write" : "read", q_err_seen, words, sum, cycles, q_err_reason, q_depth);
end
endtask

task link;
begin
    cycles = 0;
    while (ready !== 1'b1 && cycles < @LINK_TIMEOUT@) begin @(posedge sys_clk); cycles = cycles + 1; end
    if (ready !== 1'b1) $display("RESULT link timeout");
    else $display("RESULT link up after %0d cycles", cycles);
    repeat (@SETTLE@) @(posedge sys_clk);
end
endtask

initial begin
    repeat (@RESET_CYCLES@) @(posedge sys_clk);
    sys_rst <= 0;
    repeat (@CHECK_AFTER@) @(posedge sys_clk);
    checking <= 1;
    xwords_at_check = $vdrive_xwords;
@STEPS@
    $display("LINE words=%0d hash=%h xwords=%0d", line_words, line_hash, $vdrive_xwords - xwords_at_check);
    report_unchecked;
    $display("END");
    $finish;
end
endmodule
"""


# The benchmark engine's CSR bus (a design with `csr_*` ports: ecpsata/checks/dcu_netlist.py):
# a write takes one cycle, a read's word comes a cycle after its address (LiteX's CSR bank).
CSR_TASKS = r"""
reg [13:0] csr_adr = 0;
reg csr_we = 0;
reg [31:0] csr_dat_w = 0;
wire [31:0] csr_dat_r;
reg [63:0] csr_value;
integer bench_state;
task csr_write(input [13:0] adr, input [31:0] value);
begin
    csr_adr <= adr; csr_dat_w <= value; csr_we <= 1;
    @(posedge sys_clk); cycles = cycles + 1;
    csr_we <= 0;
end
endtask
// `words` words from `adr` on, the first the most significant, into csr_value.
task csr_read(input [13:0] adr, input integer words);
integer w;
begin
    csr_value = 0;
    for (w = 0; w < words; w = w + 1) begin
        csr_adr <= adr + w;
        @(posedge sys_clk); @(negedge sys_clk); cycles = cycles + 2;
        csr_value = (csr_value << 32) | csr_dat_r;
    end
end
endtask
"""
CSR_PORTS = ", .csr_adr(csr_adr), .csr_we(csr_we), .csr_dat_w(csr_dat_w), .csr_dat_r(csr_dat_r)"
# What the engine's counters report of a run, by register (RESULT's names).
BENCH_COUNTERS = (("completed", "completed"), ("errors", "errors"), ("bytes", "bytes"),
                  ("mismatches", "mismatch_dwords"), ("cycles", "cycles"))


def _bench(csr, lba, sectors, commands):
    """The engine's hardware loop, write then verify: `commands` commands of `sectors` sectors
    from `lba` on, written with its pattern and read back through its checker, as the firmware
    starts a run (its CSRs), waited for (status), and its counters read."""
    regs, fields = csr
    addr = lambda name: regs[name][0]
    config = (OP_WRITE_VERIFY << fields["config"]["op"]) | (1 << fields["config"]["verify"]) | \
        (1 << fields["config"]["stop_on_error"])
    state, reason = fields["status"]["state"], fields["status"]["reason"]
    running = f"bench_state == {STATE_IDLE} || bench_state == {STATE_BUSY}"
    ended = f"bench_state == {STATE_DONE} || bench_state == {STATE_ERROR}"
    writes = [("config", config), ("sectors", sectors), ("commands", commands),
              ("seed", 0x5A5A), ("capacity", CAPACITY)]
    lines = ["    cycles = 0;"]
    for name, value in writes + [("lba_base", lba), ("lba_range", sectors * commands)]:
        address, words = regs[name]
        for w in range(words):
            word = (value >> (32 * (words - 1 - w))) & 0xFFFFFFFF
            lines.append(f"    csr_write({address + w}, 32'h{word:08x});")
    lines += [f"    csr_write({addr('control')}, {1 << fields['control']['start']});",
              f"    bench_state = {STATE_BUSY};",
              f"    while (({running}) && cycles < {BENCH_TIMEOUT}) begin",
              f"        csr_read({addr('status')}, 1); bench_state = (csr_value >> {state}) & 3;",
              "    end",
              f"    csr_read({addr('status')}, 1);",
              f'    if ({ended}) $write("RESULT bench failed=%0d reason=%0d", '
              f'bench_state == {STATE_ERROR}, (csr_value >> {reason}) & 7);',
              '    else $write("RESULT bench timeout");']
    for label, name in BENCH_COUNTERS:
        lines += [f"    csr_read({addr(name)}, {regs[name][1]});",
                  f'    $write(" {label}=%0d", csr_value);']
    lines.append('    $display("");')
    return lines


def _steps(steps, csr=None):
    lines = []
    for step in steps:
        kind, args = step[0], step[1:]
        if kind == "bench":
            if csr is None:
                raise ValueError("a bench step needs a design with the benchmark engine")
            lines += _bench(csr, *args)
            continue
        call = {"link": "link;", "identify": "command(1, 0, 0, 1);",
                "read": "command(0, 1, {}, {});", "write": "write({}, {});",
                "qread": "queued(0, {}, {});", "qwrite": "queued(1, {}, {});"}[kind]
        lines.append("    " + call.format(*args))
    return "\n".join(lines)


def testbench(checks, scenario="gen2", csr=None):
    """The test bench's text: `checks` (Verilog lines: the X checks and a `report_unchecked`
    task), the scenario's drive and steps; with `csr` (the engine's registers and fields, as
    DCUDUT's `csr_map` and `csr_fields`) the design's CSR bus is driven (idle but for bench
    steps)."""
    drive, steps = SCENARIOS[scenario]
    text = TESTBENCH.replace("@CHECKS@", checks).replace("@STEPS@", _steps(steps, csr))
    text = text.replace("@CSR_PORTS@", CSR_PORTS if csr is not None else "")
    text = text.replace("@CSR_TASKS@", CSR_TASKS if csr is not None else "")
    subs = {"DRIVE": drive, "RESET_CYCLES": RESET_CYCLES, "CHECK_AFTER": CHECK_AFTER,
            "LINK_TIMEOUT": int(LINK_TIMEOUT_US * SYS_CLK_FREQ / 1e6),
            "TIMEOUT": int(COMMAND_TIMEOUT_US * SYS_CLK_FREQ / 1e6),
            "SETTLE": int(SETTLE_US * 1e-6 * SYS_CLK_FREQ), "SECTOR_DWORDS": SECTOR_DWORDS}
    for k, v in subs.items():
        text = text.replace(f"@{k}@", str(v))
    return text
