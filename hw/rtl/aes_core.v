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

module aes_core #(parameter R = 1, parameter ROM = 0, parameter PRE = 0)
                (
                 input wire                     clk,
                 input wire                     ce,
                 input wire                     bnd,
                 input wire                     chain,
                 input wire                     clr,
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
  /* verilator lint_off UNUSEDSIGNAL */
  wire [127 : 0] mixed_last;   // PRE: unused (the round is written out below)
  /* verilator lint_on UNUSEDSIGNAL */
  wire [127 : 0] addr;

  aes_subbytes_reg #(.ROM(ROM)) sreg(.clk(clk), .ce(ce), .clr(clr), .addr(addr),
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

  generate
    if (PRE != 0) begin : g_pre
      // din ^ rk0 registered the cycle before: the caller keeps din and rk0
      // stable for the cycle before a boundary (ccm_engine with C > 1), so
      // the boundary term is one register and the path from the S-box
      // layer back to its address is 2 LUT4 levels, as in a plain round.
      // Per state bit (row r of column c after ShiftRows, bytes b0..b3 of
      // S and d0..d3 of 2S): MixColumns is l1 ^ e (l1 four terms, e one S
      // byte) and ShiftRows alone is f, so with k the round key bit
      //   l2   = k ^ (bnd ? (chain & f) : e)
      //   addr = bnd ? (y ^ l2) : (l1 ^ l2)      (chain = 1)
      //          bnd ? din ^ rk0 : (l1 ^ l2)     (chain = 0, see below)
      // (l1 and l2 kept as nets, so the mapper does not fold them deeper).
      // R = 1 only.
      reg [127 : 0] y_reg;
      always @ (posedge clk)
        y_reg <= din ^ rk0;
      (* keep *) wire [127 : 0] l1;
      (* keep *) wire [127 : 0] l2;
      wire [127 : 0] e;
      wire [127 : 0] f;
      genvar c;
      for (c = 0 ; c < 4 ; c = c + 1) begin : g_col
        wire [7 : 0] b0 = s[0] [127 - 8 * (0 + 4 * ((c + 0) % 4)) -: 8];
        wire [7 : 0] b1 = s[0] [127 - 8 * (1 + 4 * ((c + 1) % 4)) -: 8];
        wire [7 : 0] b2 = s[0] [127 - 8 * (2 + 4 * ((c + 2) % 4)) -: 8];
        wire [7 : 0] b3 = s[0] [127 - 8 * (3 + 4 * ((c + 3) % 4)) -: 8];
        wire [7 : 0] d0 = s2[0][127 - 8 * (0 + 4 * ((c + 0) % 4)) -: 8];
        wire [7 : 0] d1 = s2[0][127 - 8 * (1 + 4 * ((c + 1) % 4)) -: 8];
        wire [7 : 0] d2 = s2[0][127 - 8 * (2 + 4 * ((c + 2) % 4)) -: 8];
        wire [7 : 0] d3 = s2[0][127 - 8 * (3 + 4 * ((c + 3) % 4)) -: 8];
        assign l1[127 - 32 * c -: 32] = {d0 ^ d1 ^ b1 ^ b2,
                                         d1 ^ d2 ^ b2 ^ b3,
                                         b1 ^ d2 ^ d3 ^ b3,
                                         d0 ^ b1 ^ b2 ^ d3};
        assign e[127 - 32 * c -: 32]  = {b3, b0, b0, b0};
        assign f[127 - 32 * c -: 32]  = {b0, b1, b2, b3};
      end
      wire [127 : 0] k = rks[127 : 0];
      // chain = 0 (a constant here, the CTR unit) needs no y register: l2
      // has an input to spare, so it carries din at the boundary and the
      // address LUT adds rk0.
      assign l2   = chain ? (k ^ (bnd ? f : e)) : (bnd ? din : (k ^ e));
      assign addr = bnd ? (chain ? (y_reg ^ l2) : (l2 ^ rk0)) : (l1 ^ l2);
    end
    else begin : g_comb
      assign addr = bnd ? (din ^ rk0 ^ (chain ? dout : 128'h0)) : mixed_last;
    end
  endgenerate

endmodule // aes_core
`default_nettype wire
