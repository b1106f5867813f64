//======================================================================
// aes_key_sched.v
// AES-128 key expansion on the fly (FIPS-197 5.2), R steps per clock,
// shared by every AES unit of an engine: all units run the same round in
// the same cycle, so one expander feeds them all.
//
// Why on the fly and not precomputed: an AP engine switches TK from frame
// to frame (one per station); on the fly a new key costs nothing, while a
// stored schedule needs 11 x 128 bits per key (1408 flip-flops, i.e. 1408
// iCE40 logic cells, or 8 EBRs) plus 10 cycles to refill on every switch.
// The price is 4 S-boxes per step and R x 128 flip-flops.
//
// The round keys of a cycle are computed one cycle ahead and registered
// (rks_reg), so the key expansion is never in series with a round.
// Timing (C = 10 / R cycles per block, cycle index cidx = 1 .. C where
// cidx = C is the boundary cycle at which the next block loads): in cycle
// cidx, rks holds round keys R*(cidx-1)+1 .. R*cidx. At a boundary the
// keys of the next cycle are expanded from the cipher key `key` of the
// block that loads.
//
// KROM = 1 (R = 1 only; the ccm_engine's ROM = 2 configurations) puts the
// 4 S-boxes of the schedule in block RAM too. A RAM read is synchronous,
// so its address is the word the next cycle will expand: nk's w3 when
// the next cycle is not a boundary, the cipher key's when it is (nb = 1,
// from the caller; the key must be stable for a cycle before a boundary,
// as the engine's key_reg is). The logic S-box (composite field, ~8 LUT4
// levels) in series with the XOR chain is what limits the R = 1 cores'
// clock with ROM S-boxes in the datapath; the RAM takes it off the path.
//======================================================================
`default_nettype none

module aes_key_sched #(parameter R = 1, parameter KROM = 0)
                     (
                      input wire                 clk,
                      input wire                 ce,
                      input wire                 bnd,
                      input wire                 clr,   // clear the round key register
                      /* verilator lint_off UNUSEDSIGNAL */
                      input wire                 nb,    // KROM: next cycle is a boundary
                      /* verilator lint_on UNUSEDSIGNAL */
                      input wire [3 : 0]         cidx,
                      input wire [127 : 0]       key,
                      output wire [R * 128 - 1 : 0] rks
                     );

  function [7 : 0] rcon;
    input [3 : 0] j;
    begin
      case (j)
        4'd1:    rcon = 8'h01;
        4'd2:    rcon = 8'h02;
        4'd3:    rcon = 8'h04;
        4'd4:    rcon = 8'h08;
        4'd5:    rcon = 8'h10;
        4'd6:    rcon = 8'h20;
        4'd7:    rcon = 8'h40;
        4'd8:    rcon = 8'h80;
        4'd9:    rcon = 8'h1b;
        4'd10:   rcon = 8'h36;
        default: rcon = 8'h00;
      endcase
    end
  endfunction

  reg [R * 128 - 1 : 0] rks_reg;

  // Index of the first round key of the next cycle: 1 after a boundary, else
  // R * cidx + 1.
  wire [3 : 0] j0 = bnd ? 4'd1 :
                    (R == 1) ? cidx + 4'd1 :
                    (R == 2) ? {cidx[2 : 0], 1'b1} : 4'd6;

  genvar i;
  generate
    for (i = 0 ; i < R ; i = i + 1) begin : g_step
      wire [127 : 0] w;
      wire [127 : 0] nk;
      if (i == 0) begin : g_first
        assign w = bnd ? key : rks_reg[128 * R - 1 -: 128];
      end
      else begin : g_next
        assign w = g_step[i - 1].nk;
      end
      wire [31 : 0]  sub;
      wire [3 : 0]  j  = j0 + i[3 : 0];
      wire [31 : 0] t  = sub ^ {rcon(j), 24'h0};
      // n1..n3 as prefix XORs of w (ready early, from registers) with t added
      // last: one LUT level after the S-box instead of a chain of four.
      wire [31 : 0] p0 = w[127 : 96];
      wire [31 : 0] p1 = p0 ^ w[95 : 64];
      wire [31 : 0] p2 = p1 ^ w[63 : 32];
      wire [31 : 0] n0 = p0 ^ t;
      // KROM: n1, n2 as a chain from n0 (fewer LUTs; the RAM-to-RAM path
      // goes through pr, not through these).
      wire [31 : 0] n1 = (KROM != 0) ? n0 ^ w[95 : 64] : p1 ^ t;
      wire [31 : 0] n2 = (KROM != 0) ? n1 ^ w[63 : 32] : p2 ^ t;
      wire [31 : 0] n3;
      // SubWord(RotWord(w3)).
      if (KROM != 0 && R == 1) begin : g_rom
        // The RAM address is nb ? key3 : (pr ^ sub), with pr = p3 ^ rcon(j)
        // precomputed into a register the cycle before, so that the RAM
        // output crosses one LUT4 on its way back to the RAM address: the XOR
        // of the four words of nk is w1 ^ w3 (t and w0, w2 cancel), and
        // before a boundary (nb) the next w is the key. n3 for the round key
        // register is n2 ^ w3, so that the mapper has no reason to share a
        // pr ^ sub LUT between the two.
        reg  [31 : 0] pr_reg;
        wire [31 : 0] pk = key[127 : 96] ^ key[95 : 64] ^ key[63 : 32] ^ key[31 : 0];
        always @ (posedge clk)
          pr_reg <= nb ? (pk ^ {rcon(4'd1), 24'h0}) :
                         (w[95 : 64] ^ w[31 : 0] ^ {rcon(j + 4'd1), 24'h0});
        assign n3 = n2 ^ w[31 : 0];
        // The RAMs read the w3 of the next cycle's w (see above), every cycle.
        wire [31 : 0] w3n = nb ? key[31 : 0] : (pr_reg ^ sub);
        /* verilator lint_off UNUSEDSIGNAL */
        wire [31 : 0] x2_unused;
        /* verilator lint_on UNUSEDSIGNAL */
        aes_sbox_rom sb0(.clk(clk), .ce(1'b1), .addr(w3n[23 : 16]), .s(sub[31 : 24]), .s2(x2_unused[31 : 24]));
        aes_sbox_rom sb1(.clk(clk), .ce(1'b1), .addr(w3n[15 : 8]),  .s(sub[23 : 16]), .s2(x2_unused[23 : 16]));
        aes_sbox_rom sb2(.clk(clk), .ce(1'b1), .addr(w3n[7 : 0]),   .s(sub[15 : 8]),  .s2(x2_unused[15 : 8]));
        aes_sbox_rom sb3(.clk(clk), .ce(1'b1), .addr(w3n[31 : 24]), .s(sub[7 : 0]),   .s2(x2_unused[7 : 0]));
      end
      else begin : g_logic
        aes_sbox sb0(.x(w[23 : 16]), .y(sub[31 : 24]));
        aes_sbox sb1(.x(w[15 : 8]),  .y(sub[23 : 16]));
        aes_sbox sb2(.x(w[7 : 0]),   .y(sub[15 : 8]));
        aes_sbox sb3(.x(w[31 : 24]), .y(sub[7 : 0]));
        assign n3 = p2 ^ w[31 : 0] ^ t;
      end
      assign nk = {n0, n1, n2, n3};

      always @ (posedge clk)
        begin
          if (clr)
            rks_reg[128 * i + 127 : 128 * i] <= 128'h0;
          else if (ce)
            rks_reg[128 * i + 127 : 128 * i] <= nk;
        end
    end
  endgenerate

  assign rks = rks_reg;

endmodule // aes_key_sched
`default_nettype wire
