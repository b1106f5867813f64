//======================================================================
// aes_sbox_rom2.v
// Two AES S-boxes in one synchronous ROM with two read ports, each
// holding {S(x), 2*S(x)} (as aes_sbox_rom). An ECP5 DP16KD has two
// ports, so a layer of 16 S-boxes takes 8 block RAMs instead of 16 and
// the 8-lane engine's 16 AES units fit an LFE5U-85F (208 DP16KD). An
// iCE40 EBR has one read port: the tools give each port its own EBR.
//======================================================================
`default_nettype none

module aes_sbox_rom2(
                     input wire          clk,
                     input wire          ce,
                     input wire          clr,    // synchronous clear of both outputs (DP16KD RST)
                     input wire [7 : 0]  addr_a,
                     input wire [7 : 0]  addr_b,
                     output wire [15 : 0] q_a,   // {S(a), 2*S(a)}
                     output wire [15 : 0] q_b
                    );

`include "aes_gf.vh"
`include "aes_sbox_table.vh"
`include "aes_sbox_rom_init.vh"

  reg [15 : 0] qa_reg;
  reg [15 : 0] qb_reg;

  always @ (posedge clk)
    begin
      if (clr)
        begin
          qa_reg <= 16'h0;
          qb_reg <= 16'h0;
        end
      else if (ce)
        begin
          qa_reg <= rom[addr_a];
          qb_reg <= rom[addr_b];
        end
    end

  assign q_a = qa_reg;
  assign q_b = qb_reg;

endmodule // aes_sbox_rom2
`default_nettype wire
