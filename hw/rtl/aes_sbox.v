//======================================================================
// aes_sbox.v
// One AES S-box as combinational logic (FIPS-197 5.1.1). The synthesis
// tool turns the 256-entry table into LUTs.
//======================================================================
`default_nettype none

module aes_sbox(
                input wire [7 : 0]  x,
                output wire [7 : 0] y
               );

`include "aes_sbox_table.vh"

  assign y = aes_sbox_f(x);

endmodule // aes_sbox
`default_nettype wire
