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

  function [7:0] gmul;
    input [7:0] a, b;
    reg [7:0] p, aa, bb;
    integer k;
    begin
      p = 0; aa = a; bb = b;
      for (k = 0; k < 8; k = k + 1) begin
        if (bb[0]) p = p ^ aa;
        aa = {aa[6:0], 1'b0} ^ (aa[7] ? 8'h1b : 8'h00);
        bb = bb >> 1;
      end
      gmul = p;
    end
  endfunction

  function [7:0] ref_sbox;
    input [7:0] v;
    reg [7:0] inv, r;
    integer k;
    begin
      inv = 0;
      for (k = 1; k < 256; k = k + 1)
        if (gmul(v, k[7:0]) == 8'h01) inv = k[7:0];
      for (k = 0; k < 8; k = k + 1)
        r[k] = inv[k] ^ inv[(k + 4) % 8] ^ inv[(k + 5) % 8] ^ inv[(k + 6) % 8] ^
               inv[(k + 7) % 8] ^ (8'h63 >> k);
      ref_sbox = r;
    end
  endfunction

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
