//======================================================================
// aes_subbytes.v
// SubBytes on a 128-bit state, combinational (16 logic S-boxes). Also
// gives 2*S per byte (xtime) for the next MixColumns.
//======================================================================
`default_nettype none

module aes_subbytes(
                    input wire [127 : 0]  x,
                    output wire [127 : 0] s,
                    output wire [127 : 0] s2
                   );

`include "aes_gf.vh"

  genvar i;
  generate
    for (i = 0 ; i < 16 ; i = i + 1) begin : g_sbox
      aes_sbox sbox(.x(x[8 * i + 7 : 8 * i]), .y(s[8 * i + 7 : 8 * i]));
      assign s2[8 * i + 7 : 8 * i] = xtime(s[8 * i + 7 : 8 * i]);
    end
  endgenerate

endmodule // aes_subbytes
`default_nettype wire
