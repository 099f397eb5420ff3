# SPDX-License-Identifier: BSD-2-Clause
"""Our behavioural model of the ECP5 block RAM (ecpsata/checks/dp16kd_sim.v), which the gate-level
run puts in place of Yosys's black box: the two modes Yosys maps our memories to, against what the
ECP5 and ECP5-5G Memory Usage Guide and Yosys's own mapping of the cell say."""

import os
import subprocess

from ecpsata.checks import gatesim

MODEL = os.path.join(os.path.dirname(gatesim.__file__), gatesim.BRAM_MODEL)

BENCH = r"""
`timescale 1ps/1ps
module tb;
reg clk = 0;
always #5 clk = ~clk;
reg [13:0] ada = 0, adb = 0;
reg [17:0] dia = 0, dib = 0;
reg wea = 0, web = 0, rstb = 0;
wire [17:0] doa, dob;
// 18-bit true dual port, READBEFOREWRITE on A, WRITETHROUGH on B; word 1 from INITVAL_00
DP16KD #(.DATA_WIDTH_A(18), .DATA_WIDTH_B(18), .WRITEMODE_A("READBEFOREWRITE"),
         .WRITEMODE_B("WRITETHROUGH"), .INITVAL_00({280'd0, 18'h2abcd, 2'b0, 18'h00011}))
  tdp(.CLKA(clk), .CEA(1'b1), .OCEA(1'b1), .WEA(wea), .RSTA(1'b0), .CSA2(1'b0), .CSA1(1'b0),
      .CSA0(1'b0), .CLKB(clk), .CEB(1'b1), .OCEB(1'b1), .WEB(web), .RSTB(rstb), .CSB2(1'b0),
      .CSB1(1'b0), .CSB0(1'b0),
      @ADA@
      @ADB@
      @DI@
      @DO@);
// 36-bit pseudo dual port: port A writes {dib2, dia2}, port B reads {dob2, doa2}
reg [13:0] wad = 0, rad = 0;
reg [35:0] wdata = 0;
wire [17:0] doa2, dob2;
DP16KD #(.DATA_WIDTH_A(36), .DATA_WIDTH_B(36), .RESETMODE("ASYNC"))
  pdp(.CLKA(clk), .CEA(1'b1), .OCEA(1'b0), .WEA(1'b1), .RSTA(1'b0), .CSA2(1'b0), .CSA1(1'b0),
      .CSA0(1'b0), .CLKB(clk), .CEB(1'b1), .OCEB(1'b1), .WEB(1'b0), .RSTB(1'b0), .CSB2(1'b0),
      .CSB1(1'b0), .CSB0(1'b0),
      @ADA2@
      @ADB2@
      @DI2@
      @DO2@);
task tick; begin @(posedge clk); #1; end endtask
initial begin
    // the initial contents: word 0 and word 1 of INITVAL_00 (20-bit stride), read a cycle late
    adb = 14'd0 << 4; tick; $display("INIT0 %h", dob);
    adb = 14'd1 << 4; tick; $display("INIT1 %h", dob);
    // a write on A (both bytes) returns the old word; B reads the new one the next cycle
    ada = (14'd5 << 4) | 2'b11; dia = 18'h1f00f; wea = 1; tick; wea = 0; $display("RBW %h", doa);
    adb = 14'd5 << 4; tick; $display("READ5 %h", dob);
    // byte enables: only the upper byte (bits 9-17) of word 5
    ada = (14'd5 << 4) | 2'b10; dia = 18'h3ffff; wea = 1; tick; wea = 0;
    tick; $display("BYTE %h", dob);
    // a write on B is write-through: the new word at once
    adb = (14'd7 << 4) | 2'b11; dib = 18'h12345; web = 1; tick; web = 0; $display("WT %h", dob);
    // a synchronous reset clears B's output
    rstb = 1; tick; rstb = 0; $display("RST %h", dob);
    // 36 bits: byte enables in AD[3:0], the word at AD[13:5]; read back whole
    wad = (14'd9 << 5) | 4'b1111; wdata = 36'h9_8765_4321; tick;
    wad = (14'd9 << 5) | 4'b0100; wdata = 36'h0_01ff_0000; tick;     // byte 2 only: bits 18-26 (7f)
    rad = 14'd9 << 5; tick; tick; $display("W36 %h", {dob2, doa2});
    $finish;
end
endmodule
"""


def pins(prefix, signal, n=18):
    return ", ".join(f".{prefix}{i}({signal}[{i}])" for i in range(n))


def test_the_block_ram_model_reads_writes_and_starts_as_yosys_maps_it(tmp_path):
    bench = BENCH
    for tag, prefix, signal in (("@ADA@", "ADA", "ada"), ("@ADB@", "ADB", "adb"),
                                ("@ADA2@", "ADA", "wad"), ("@ADB2@", "ADB", "rad")):
        bench = bench.replace(tag, pins(prefix, signal, 14) + ",")
    bench = (bench.replace("@DI@", pins("DIA", "dia") + ", " + pins("DIB", "dib") + ",")
             .replace("@DO@", pins("DOA", "doa") + ", " + pins("DOB", "dob"))
             .replace("@DI2@", pins("DIA", "wdata") + ", "
                      + ", ".join(f".DIB{i}(wdata[{18 + i}])" for i in range(18)) + ",")
             .replace("@DO2@", pins("DOA", "doa2") + ", " + pins("DOB", "dob2")))
    (tmp_path / "tb.v").write_text(bench)
    r = subprocess.run(["iverilog", "-g2012", "-o", "sim.vvp", "tb.v", MODEL], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = subprocess.run(["vvp", "-n", "sim.vvp"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=60).stdout
    got = dict(line.split() for line in out.splitlines() if len(line.split()) == 2)
    assert got == {"INIT0": "00011", "INIT1": "2abcd", "RBW": "00000", "READ5": "1f00f",
                   "BYTE": "3fe0f", "WT": "12345", "RST": "00000", "W36": "981fd4321"}, out
