//======================================================================
// aes_sbox.v
// One AES S-box as combinational logic (FIPS-197 5.1.1), computed in the
// composite field GF((2^4)^2) (the approach of Satoh et al. and Canright):
// map x into the tower basis, invert there with GF(2^4) arithmetic
// (a 4-input inverse table, three multiplications, a square), map back
// through the affine transform. About a third of the LUTs of a 256-entry
// table mapped to logic. The basis matrices were derived from the field
// definitions (tower: GF(2^4) = GF(2)[y]/(y^4+y+1), z^2 = z + 8); every
// entry is checked against the definition by tb_aes_sbox.
//======================================================================
`default_nettype none

module aes_sbox(
                input wire [7 : 0]  x,
                output wire [7 : 0] y
               );

  // GF(2^4) multiplication modulo y^4 + y + 1.
  function [3 : 0] gf16_mul;
    input [3 : 0] a;
    input [3 : 0] b;
    reg [6 : 0] p;
    integer i;
    begin
      p = 7'h0;
      for (i = 0 ; i < 4 ; i = i + 1)
        if (b[i])
          p = p ^ ({3'h0, a} << i);
      for (i = 6 ; i > 3 ; i = i - 1)
        if (p[i])
          p = p ^ (7'b0010011 << (i - 4));
      gf16_mul = p[3 : 0];
    end
  endfunction

  // GF(2^4) inverse (0 -> 0).
  function [3 : 0] gf16_inv;
    input [3 : 0] a;
    begin
      case (a)
        4'h0: gf16_inv = 4'h0;
        4'h1: gf16_inv = 4'h1;
        4'h2: gf16_inv = 4'h9;
        4'h3: gf16_inv = 4'he;
        4'h4: gf16_inv = 4'hd;
        4'h5: gf16_inv = 4'hb;
        4'h6: gf16_inv = 4'h7;
        4'h7: gf16_inv = 4'h6;
        4'h8: gf16_inv = 4'hf;
        4'h9: gf16_inv = 4'h2;
        4'ha: gf16_inv = 4'hc;
        4'hb: gf16_inv = 4'h5;
        4'hc: gf16_inv = 4'ha;
        4'hd: gf16_inv = 4'h4;
        4'he: gf16_inv = 4'h3;
        4'hf: gf16_inv = 4'h8;
        default: gf16_inv = 4'h0;
      endcase
    end
  endfunction

  wire [7 : 0] t;
  wire [7 : 0] u;

  // Input map AES basis -> GF((2^4)^2) tower basis (z^2 = z + lambda, lambda = 8,
  // GF(2^4) = GF(2)[y]/(y^4 + y + 1)).
  assign t = {x[5] ^ x[7], x[2] ^ x[3] ^ x[5] ^ x[7], x[1] ^ x[4] ^ x[6] ^ x[7], x[4] ^ x[5] ^ x[6], x[3] ^ x[4], x[2] ^ x[3] ^ x[4] ^ x[5] ^ x[6] ^ x[7], x[2], x[0] ^ x[5] ^ x[7]};
  // Output map: affine matrix of FIPS-197 5.1.1 times the inverse basis change, plus 0x63.
  assign y = {u[1] ^ u[2], u[4] ^ u[6] ^ u[7], u[1] ^ u[2] ^ u[3] ^ u[5] ^ u[6] ^ u[7], u[0] ^ u[1] ^ u[3] ^ u[4] ^ u[5], u[0] ^ u[2] ^ u[5], u[0] ^ u[3] ^ u[5] ^ u[6], u[0] ^ u[1] ^ u[2] ^ u[3] ^ u[4] ^ u[5], u[0] ^ u[2] ^ u[6]} ^ 8'h63;
  // (a1 z + a0)^-1 = (a1 z + a0 + a1) / (a1^2 lambda + a1 a0 + a0^2).
  wire [3 : 0] a1 = t[7 : 4];
  wire [3 : 0] a0 = t[3 : 0];
  wire [3 : 0] d  = gf16_mul(gf16_mul(a1, a1), 4'h8) ^ gf16_mul(a1, a0) ^ gf16_mul(a0, a0);
  wire [3 : 0] di = gf16_inv(d);
  assign u = {gf16_mul(a1, di), gf16_mul(a0 ^ a1, di)};

endmodule // aes_sbox
`default_nettype wire
