//======================================================================
// aes_key_table.v
// AES-128 round keys precomputed (FIPS-197 5.2, by the host) in a key
// table in block RAM: 2^KA keys, 16 words each, word j of key slot s at
// address {s, j} holding round key j (j = 1 .. 10; words 0 and 11 .. 15
// are unused). The drop-in for aes_key_sched (R = 1) in the ccm_engine's
// ROM = 3 configuration.
//
// Why: an AP engine serves one key per station, and the host has every
// station's TK from the 4-way handshake before the first frame. Writing
// its 10 round keys once per key (install or rekey, not per frame) takes
// the schedule's 4 S-boxes, its XOR chain and its 128-bit register out
// of the engine: a RAM read replaces them, at no LUT cost on ECP5 (the
// DP16KD's own output register, clock enable and reset are the round
// key register, its ce and its clr). 2^KA = 32 slots x 16 x 128 bits =
// 64 Kbit, 4 DP16KD in 512 x 36 mode.
//
// Timing as aes_key_sched with R = 1: in cycle cidx (1 .. 10; cidx = 10
// is the boundary) rk holds round key cidx, so the RAM reads the key of
// the next cycle: 1 after a boundary, else cidx + 1. The slot index must
// be stable while a block runs (the engine registers it with the
// descriptor). The host must not rewrite a slot that a frame in the
// engine uses.
//======================================================================
`default_nettype none

module aes_key_table #(parameter KA = 5)
                     (
                      input wire                clk,
                      input wire                ce,
                      input wire                bnd,
                      input wire                clr,     // clear the round key (RAM output reset)
                      input wire [3 : 0]        cidx,
                      input wire [KA - 1 : 0]   kidx,    // key slot of the running frame

                      input wire                we,      // host write port
                      input wire [KA + 3 : 0]   waddr,   // {slot, round}
                      input wire [127 : 0]      wdata,

                      output wire [127 : 0]     rk
                     );

  // No read/write collision logic: the host never rewrites a slot in use.
  (* no_rw_check *)
  reg [127 : 0] mem [0 : 16 * (1 << KA) - 1];
  reg [127 : 0] rk_reg;

  wire [3 : 0] j = bnd ? 4'd1 : cidx + 4'd1;

  always @ (posedge clk)
    begin
      if (we)
        mem[waddr] <= wdata;
    end

  always @ (posedge clk)
    begin
      if (clr)
        rk_reg <= 128'h0;
      else if (ce)
        rk_reg <= mem[{kidx, j}];
    end

  assign rk = rk_reg;

endmodule // aes_key_table
`default_nettype wire
