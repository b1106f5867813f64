//======================================================================
// aes_core.v
// AES-128 encipher datapath with R round units per clock (R = 1, 2, 5,
// 10: seed 003's 1x10, 2x5, 5x2, 10x1), C = 10 / R cycles per block and
// no load or unload cycle: the state register sits after SubBytes, so
// the last round of one block, the whitening of the next (and for
// CBC-MAC the chaining XOR) and the next SubBytes share one clock.
//
// ROM = 1 puts the clocked S-box layer in block RAM (as seed 003's
// Table 4 does: one layer of 16 S-boxes in RAM, the other R - 1 layers
// in logic, since block RAM reads are synchronous).
//
// In a boundary cycle (bnd = 1, the C-th cycle of a block) dout is the
// ciphertext of the block that ends, and the unit loads
// din ^ rk0 ^ (chain ? dout : 0). rks carries the R round keys of the
// cycle (aes_key_sched). ce = 0 freezes the unit (dout stays valid).
//======================================================================
`default_nettype none

module aes_core #(parameter R = 1, parameter ROM = 0)
                (
                 input wire                     clk,
                 input wire                     ce,
                 input wire                     bnd,
                 input wire                     chain,
                 input wire [127 : 0]           din,
                 input wire [127 : 0]           rk0,
                 input wire [R * 128 - 1 : 0]   rks,
                 output wire [127 : 0]          dout
                );

  // Chains through arrays of nets, not loops.
  /* verilator lint_off UNOPTFLAT */
  wire [127 : 0] s  [0 : R - 1];
  wire [127 : 0] s2 [0 : R - 1];
  /* verilator lint_on UNOPTFLAT */
  wire [127 : 0] mixed_last;
  wire [127 : 0] addr;

  aes_subbytes_reg #(.ROM(ROM)) sreg(.clk(clk), .ce(ce), .addr(addr),
                                      .s(s[0]), .s2(s2[0]));

  genvar i;
  generate
    for (i = 0 ; i < R - 1 ; i = i + 1) begin : g_round
      wire [127 : 0] mixed;
      /* verilator lint_off UNUSEDSIGNAL */
      wire [127 : 0] fin_unused;
      /* verilator lint_on UNUSEDSIGNAL */
      aes_mixround mr(.s(s[i]), .s2(s2[i]), .rk(rks[128 * i + 127 : 128 * i]),
                      .mixed(mixed), .fin(fin_unused));
      aes_subbytes sb(.x(mixed), .s(s[i + 1]), .s2(s2[i + 1]));
    end
  endgenerate

  aes_mixround mr_last(.s(s[R - 1]), .s2(s2[R - 1]),
                       .rk(rks[128 * R - 1 : 128 * (R - 1)]),
                       .mixed(mixed_last), .fin(dout));

  assign addr = bnd ? (din ^ rk0 ^ (chain ? dout : 128'h0)) : mixed_last;

endmodule // aes_core
`default_nettype wire
