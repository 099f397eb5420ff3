// SPDX-License-Identifier: BSD-2-Clause
// Behavioural model of the ECP5 DP16KD block RAM (18 Kbit: 1,024 words of two 9-bit bytes), for
// the gate-level run (ecpsata/checks/gatesim.py): Yosys's ECP5 library has the cell as a black box.
//
// Written from the ECP5 and ECP5-5G Memory Usage Guide's description of the primitive and from
// how Yosys's memory mapping connects it (its lattice/brams_map_16kd.v), for the modes that
// mapping uses in our design, and fails the simulation on any other:
// - true dual port, each port 18 bits wide: address AD[13:4], byte enables AD[1:0] (bits 0-8
//   and 9-17), a write needs CE, WE and the byte's enable;
// - the 36-bit pseudo dual port (Yosys's PDPW16KD mapping, DATA_WIDTH_A = DATA_WIDTH_B = 36):
//   port A writes {DIB, DIA} at AD[13:5] with the byte enables AD[3:0], port B reads it into
//   {DOB, DOA}; a 36-bit word is the 18-bit words 2n (low) and 2n+1 (high);
// - reads are synchronous (REGMODE NOREG: the output changes at the clock edge with CE; OUTREG:
//   one more register, enabled by OCE); a write's output follows WRITEMODE (NORMAL: unchanged,
//   WRITETHROUGH: the new data, READBEFOREWRITE: the old data); RST clears the output, at the
//   clock edge whatever CE (RESETMODE SYNC) or at once (ASYNC), and a port in reset does not
//   write; CLKxMUX "INV" inverts the clock;
// - the contents start from INITVAL_00..3F: 16 words of 18 bits per value, at a 20-bit stride;
// - chip selects: only CSDECODE "0b000" with the CS pins at 0 (always selected).
module DP16KD(
    input DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5,
    input DIA4, DIA3, DIA2, DIA1, DIA0,
    input ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
    input CEA, OCEA, CLKA, WEA, RSTA,
    input CSA2, CSA1, CSA0,
    output DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5,
    output DOA4, DOA3, DOA2, DOA1, DOA0,
    input DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5,
    input DIB4, DIB3, DIB2, DIB1, DIB0,
    input ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
    input CEB, OCEB, CLKB, WEB, RSTB,
    input CSB2, CSB1, CSB0,
    output DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5,
    output DOB4, DOB3, DOB2, DOB1, DOB0
);
    parameter DATA_WIDTH_A = 18;
    parameter DATA_WIDTH_B = 18;
    parameter REGMODE_A = "NOREG";
    parameter REGMODE_B = "NOREG";
    parameter RESETMODE = "SYNC";
    parameter ASYNC_RESET_RELEASE = "SYNC";
    parameter CSDECODE_A = "0b000";
    parameter CSDECODE_B = "0b000";
    parameter WRITEMODE_A = "NORMAL";
    parameter WRITEMODE_B = "NORMAL";
    parameter CLKAMUX = "CLKA";
    parameter CLKBMUX = "CLKB";
    parameter GSR = "ENABLED";
    parameter INITVAL_00 = 320'h0;
    parameter INITVAL_01 = 320'h0;
    parameter INITVAL_02 = 320'h0;
    parameter INITVAL_03 = 320'h0;
    parameter INITVAL_04 = 320'h0;
    parameter INITVAL_05 = 320'h0;
    parameter INITVAL_06 = 320'h0;
    parameter INITVAL_07 = 320'h0;
    parameter INITVAL_08 = 320'h0;
    parameter INITVAL_09 = 320'h0;
    parameter INITVAL_0A = 320'h0;
    parameter INITVAL_0B = 320'h0;
    parameter INITVAL_0C = 320'h0;
    parameter INITVAL_0D = 320'h0;
    parameter INITVAL_0E = 320'h0;
    parameter INITVAL_0F = 320'h0;
    parameter INITVAL_10 = 320'h0;
    parameter INITVAL_11 = 320'h0;
    parameter INITVAL_12 = 320'h0;
    parameter INITVAL_13 = 320'h0;
    parameter INITVAL_14 = 320'h0;
    parameter INITVAL_15 = 320'h0;
    parameter INITVAL_16 = 320'h0;
    parameter INITVAL_17 = 320'h0;
    parameter INITVAL_18 = 320'h0;
    parameter INITVAL_19 = 320'h0;
    parameter INITVAL_1A = 320'h0;
    parameter INITVAL_1B = 320'h0;
    parameter INITVAL_1C = 320'h0;
    parameter INITVAL_1D = 320'h0;
    parameter INITVAL_1E = 320'h0;
    parameter INITVAL_1F = 320'h0;
    parameter INITVAL_20 = 320'h0;
    parameter INITVAL_21 = 320'h0;
    parameter INITVAL_22 = 320'h0;
    parameter INITVAL_23 = 320'h0;
    parameter INITVAL_24 = 320'h0;
    parameter INITVAL_25 = 320'h0;
    parameter INITVAL_26 = 320'h0;
    parameter INITVAL_27 = 320'h0;
    parameter INITVAL_28 = 320'h0;
    parameter INITVAL_29 = 320'h0;
    parameter INITVAL_2A = 320'h0;
    parameter INITVAL_2B = 320'h0;
    parameter INITVAL_2C = 320'h0;
    parameter INITVAL_2D = 320'h0;
    parameter INITVAL_2E = 320'h0;
    parameter INITVAL_2F = 320'h0;
    parameter INITVAL_30 = 320'h0;
    parameter INITVAL_31 = 320'h0;
    parameter INITVAL_32 = 320'h0;
    parameter INITVAL_33 = 320'h0;
    parameter INITVAL_34 = 320'h0;
    parameter INITVAL_35 = 320'h0;
    parameter INITVAL_36 = 320'h0;
    parameter INITVAL_37 = 320'h0;
    parameter INITVAL_38 = 320'h0;
    parameter INITVAL_39 = 320'h0;
    parameter INITVAL_3A = 320'h0;
    parameter INITVAL_3B = 320'h0;
    parameter INITVAL_3C = 320'h0;
    parameter INITVAL_3D = 320'h0;
    parameter INITVAL_3E = 320'h0;
    parameter INITVAL_3F = 320'h0;

    localparam PDP = DATA_WIDTH_A == 36 && DATA_WIDTH_B == 36;

    wire [13:0] ada = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2,
                       ADA1, ADA0};
    wire [13:0] adb = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2,
                       ADB1, ADB0};
    wire [17:0] dia = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7,
                       DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
    wire [17:0] dib = {DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7,
                       DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};
    wire clka = CLKAMUX == "INV" ? ~CLKA : CLKA;
    wire clkb = CLKBMUX == "INV" ? ~CLKB : CLKB;
    wire arst_a = RESETMODE == "ASYNC" && RSTA === 1'b1;
    wire arst_b = RESETMODE == "ASYNC" && RSTB === 1'b1;
    wire srst_a = RESETMODE == "SYNC" && RSTA === 1'b1;
    wire srst_b = RESETMODE == "SYNC" && RSTB === 1'b1;

    reg [17:0] mem [0:1023];
    reg [17:0] doa_r = 18'd0, dob_r = 18'd0, doa_q = 18'd0, dob_q = 18'd0;
    wire [17:0] doa = REGMODE_A == "OUTREG" ? doa_q : doa_r;
    wire [17:0] dob = REGMODE_B == "OUTREG" ? dob_q : dob_r;
    assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5,
            DOA4, DOA3, DOA2, DOA1, DOA0} = doa;
    assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5,
            DOB4, DOB3, DOB2, DOB1, DOB0} = dob;

    function [17:0] init_word(input integer w);
        reg [319:0] row;
        begin
            case (w / 16)
            0: row = INITVAL_00;
            1: row = INITVAL_01;
            2: row = INITVAL_02;
            3: row = INITVAL_03;
            4: row = INITVAL_04;
            5: row = INITVAL_05;
            6: row = INITVAL_06;
            7: row = INITVAL_07;
            8: row = INITVAL_08;
            9: row = INITVAL_09;
            10: row = INITVAL_0A;
            11: row = INITVAL_0B;
            12: row = INITVAL_0C;
            13: row = INITVAL_0D;
            14: row = INITVAL_0E;
            15: row = INITVAL_0F;
            16: row = INITVAL_10;
            17: row = INITVAL_11;
            18: row = INITVAL_12;
            19: row = INITVAL_13;
            20: row = INITVAL_14;
            21: row = INITVAL_15;
            22: row = INITVAL_16;
            23: row = INITVAL_17;
            24: row = INITVAL_18;
            25: row = INITVAL_19;
            26: row = INITVAL_1A;
            27: row = INITVAL_1B;
            28: row = INITVAL_1C;
            29: row = INITVAL_1D;
            30: row = INITVAL_1E;
            31: row = INITVAL_1F;
            32: row = INITVAL_20;
            33: row = INITVAL_21;
            34: row = INITVAL_22;
            35: row = INITVAL_23;
            36: row = INITVAL_24;
            37: row = INITVAL_25;
            38: row = INITVAL_26;
            39: row = INITVAL_27;
            40: row = INITVAL_28;
            41: row = INITVAL_29;
            42: row = INITVAL_2A;
            43: row = INITVAL_2B;
            44: row = INITVAL_2C;
            45: row = INITVAL_2D;
            46: row = INITVAL_2E;
            47: row = INITVAL_2F;
            48: row = INITVAL_30;
            49: row = INITVAL_31;
            50: row = INITVAL_32;
            51: row = INITVAL_33;
            52: row = INITVAL_34;
            53: row = INITVAL_35;
            54: row = INITVAL_36;
            55: row = INITVAL_37;
            56: row = INITVAL_38;
            57: row = INITVAL_39;
            58: row = INITVAL_3A;
            59: row = INITVAL_3B;
            60: row = INITVAL_3C;
            61: row = INITVAL_3D;
            62: row = INITVAL_3E;
            63: row = INITVAL_3F;
            endcase
            init_word = row[(w % 16) * 20 +: 18];
        end
    endfunction

    // A word with the bytes `be` of `data` written over `old`.
    function [17:0] merge(input [17:0] old, input [17:0] data, input [1:0] be);
        merge = {be[1] ? data[17:9] : old[17:9], be[0] ? data[8:0] : old[8:0]};
    endfunction

    integer w;
    initial begin
        if (!(PDP || (DATA_WIDTH_A == 18 && DATA_WIDTH_B == 18)) || CSDECODE_A != "0b000" ||
            CSDECODE_B != "0b000") begin
            $display("DP16KD model: widths %0d/%0d, CSDECODE %0s/%0s are not modelled (%m)",
                     DATA_WIDTH_A, DATA_WIDTH_B, CSDECODE_A, CSDECODE_B);
            $finish;
        end
        for (w = 0; w < 1024; w = w + 1)
            mem[w] = init_word(w);
    end

    // Port A: the 18-bit port, or the 36-bit write port.
    wire [9:0] wa = ada[13:4];
    wire [8:0] wa36 = ada[13:5];
    always @(posedge clka or posedge arst_a) begin
        if (arst_a || srst_a) begin
            if (!PDP) doa_r <= 18'd0;           // in PDP mode port B drives DOA
        end else if (CEA === 1'b1) begin
            if (PDP) begin
                if (WEA === 1'b1) begin
                    mem[{wa36, 1'b0}] <= merge(mem[{wa36, 1'b0}], dia, ada[1:0]);
                    mem[{wa36, 1'b1}] <= merge(mem[{wa36, 1'b1}], dib, ada[3:2]);
                end
            end else if (WEA === 1'b1) begin
                mem[wa] <= merge(mem[wa], dia, ada[1:0]);
                if (WRITEMODE_A == "WRITETHROUGH") doa_r <= merge(mem[wa], dia, ada[1:0]);
                else if (WRITEMODE_A == "READBEFOREWRITE") doa_r <= mem[wa];
            end else
                doa_r <= mem[wa];
        end
    end
    // DOA's output register: port B's in PDP mode (its read fills DOA too)
    wire clk_oa = PDP ? clkb : clka;
    wire arst_oa = PDP ? arst_b : arst_a;
    wire srst_oa = PDP ? srst_b : srst_a;
    wire oce_a = PDP ? OCEB : OCEA;
    always @(posedge clk_oa or posedge arst_oa)
        if (arst_oa || srst_oa) doa_q <= 18'd0;
        else if (oce_a === 1'b1) doa_q <= doa_r;

    // Port B: the 18-bit port, or the 36-bit read port (into {DOB, DOA}).
    wire [9:0] wb = adb[13:4];
    wire [8:0] rb36 = adb[13:5];
    always @(posedge clkb or posedge arst_b) begin
        if (arst_b || srst_b) begin
            dob_r <= 18'd0;
            if (PDP) doa_r <= 18'd0;
        end else if (CEB === 1'b1) begin
            if (PDP) begin
                doa_r <= mem[{rb36, 1'b0}];
                dob_r <= mem[{rb36, 1'b1}];
            end else if (WEB === 1'b1) begin
                mem[wb] <= merge(mem[wb], dib, adb[1:0]);
                if (WRITEMODE_B == "WRITETHROUGH") dob_r <= merge(mem[wb], dib, adb[1:0]);
                else if (WRITEMODE_B == "READBEFOREWRITE") dob_r <= mem[wb];
            end else
                dob_r <= mem[wb];
        end
    end
    always @(posedge clkb or posedge arst_b)
        if (arst_b || srst_b) dob_q <= 18'd0;
        else if (OCEB === 1'b1) dob_q <= dob_r;
endmodule
