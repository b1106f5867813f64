//======================================================================
// aes_sbox_rom.v
// One AES S-box as a synchronous 256 x 16 ROM holding {S(x), 2*S(x)}:
// the shape of one iCE40 EBR (256 x 16) and half an ECP5 DP16KD, so the
// tools infer block RAM. The second byte (xtime of S(x), a "T-box" half)
// is free in that shape and removes the xtime logic of MixColumns.
// The output register is the RAM's own; ce is its read clock enable.
//======================================================================
`default_nettype none

module aes_sbox_rom(
                    input wire          clk,
                    input wire          ce,
                    input wire [7 : 0]  addr,
                    output wire [7 : 0] s,
                    output wire [7 : 0] s2
                   );

`include "aes_gf.vh"
`include "aes_sbox_table.vh"
`include "aes_sbox_rom_init.vh"

  reg [15 : 0] q_reg;

  always @ (posedge clk)
    begin
      if (ce)
        q_reg <= rom[addr];
    end

  assign s  = q_reg[15 : 8];
  assign s2 = q_reg[7 : 0];

endmodule // aes_sbox_rom
`default_nettype wire
