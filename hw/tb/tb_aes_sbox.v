//======================================================================
// tb_aes_sbox.v
// Self-checking: every entry of the logic S-box (aes_sbox) and of the
// ROM S-box (aes_sbox_rom, both bytes) against the definition of FIPS-197
// 5.1.1 computed here: multiplicative inverse in GF(2^8), affine map.
//======================================================================
`timescale 1ns/1ps
`default_nettype none

module tb_aes_sbox;

  reg        clk = 1'b0;
  reg  [7:0] x;
  wire [7:0] y, rs, rs2;
  integer    i, errors;

  aes_sbox     dut_logic(.x(x), .y(y));
  aes_sbox_rom dut_rom(.clk(clk), .ce(1'b1), .addr(x), .s(rs), .s2(rs2));

`include "aes_ref.vh"

  initial begin
    errors = 0;
    for (i = 0; i < 256; i = i + 1) begin
      x = i[7:0];
      #1 clk = 1'b1; #1 clk = 1'b0;
      if (y !== ref_sbox(x) || rs !== ref_sbox(x) ||
          rs2 !== gmul(ref_sbox(x), 8'h02)) begin
        $display("FAIL sbox[%02x]: logic %02x rom %02x/%02x want %02x", x, y, rs, rs2, ref_sbox(x));
        errors = errors + 1;
      end
    end
    if (errors == 0) $display("PASS tb_aes_sbox: 256 entries, logic and ROM");
    else $display("FAIL tb_aes_sbox: %0d errors", errors);
    $finish;
  end

endmodule
`default_nettype wire
