//======================================================================
// aes_sbox.v
// One AES S-box as combinational logic (FIPS-197 5.1.1): an asynchronous
// 256 x 8 table, which synthesis turns into LUTs (block RAM reads are
// synchronous, so it cannot go there). Written as a table rather than a
// case statement so that simulators look it up instead of comparing.
//======================================================================
`default_nettype none

module aes_sbox(
                input wire [7 : 0]  x,
                output wire [7 : 0] y
               );

`include "aes_sbox_table.vh"

  reg [7 : 0] tbl [0 : 255];
  integer i;

  initial begin
    for (i = 0 ; i < 256 ; i = i + 1)
      tbl[i] = aes_sbox_f(i[7 : 0]);
  end

  assign y = tbl[x];

endmodule // aes_sbox
`default_nettype wire
