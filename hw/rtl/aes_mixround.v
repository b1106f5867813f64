//======================================================================
// aes_mixround.v
// The linear part of an AES round on a SubBytes output s (with 2*s per
// byte in s2): mixed = MixColumns(ShiftRows(s)) ^ rk, and for the last
// round fin = ShiftRows(s) ^ rk (FIPS-197 5.1.2-5.1.4). Combinational.
// State bytes are big-endian in the vector: byte b (column b/4, row b%4)
// is bits [127 - 8b -: 8].
//======================================================================
`default_nettype none

module aes_mixround(
                    input wire [127 : 0]  s,
                    input wire [127 : 0]  s2,
                    input wire [127 : 0]  rk,
                    output wire [127 : 0] mixed,
                    output wire [127 : 0] fin
                   );

  genvar c;
  generate
    for (c = 0 ; c < 4 ; c = c + 1) begin : g_col
      // After ShiftRows, row r of column c is byte (r + 4 * ((c + r) % 4)).
      wire [7 : 0] b0  = s [127 - 8 * (0 + 4 * ((c + 0) % 4)) -: 8];
      wire [7 : 0] b1  = s [127 - 8 * (1 + 4 * ((c + 1) % 4)) -: 8];
      wire [7 : 0] b2  = s [127 - 8 * (2 + 4 * ((c + 2) % 4)) -: 8];
      wire [7 : 0] b3  = s [127 - 8 * (3 + 4 * ((c + 3) % 4)) -: 8];
      wire [7 : 0] d0  = s2[127 - 8 * (0 + 4 * ((c + 0) % 4)) -: 8];
      wire [7 : 0] d1  = s2[127 - 8 * (1 + 4 * ((c + 1) % 4)) -: 8];
      wire [7 : 0] d2  = s2[127 - 8 * (2 + 4 * ((c + 2) % 4)) -: 8];
      wire [7 : 0] d3  = s2[127 - 8 * (3 + 4 * ((c + 3) % 4)) -: 8];
      wire [31 : 0] k  = rk[127 - 32 * c -: 32];

      // 2a ^ 3b ^ c ^ d with 3b = 2b ^ b.
      assign mixed[127 - 32 * c -: 32] = {d0 ^ d1 ^ b1 ^ b2 ^ b3,
                                          b0 ^ d1 ^ d2 ^ b2 ^ b3,
                                          b0 ^ b1 ^ d2 ^ d3 ^ b3,
                                          d0 ^ b0 ^ b1 ^ b2 ^ d3} ^ k;
      assign fin[127 - 32 * c -: 32]   = {b0, b1, b2, b3} ^ k;
    end
  endgenerate

endmodule // aes_mixround
`default_nettype wire
