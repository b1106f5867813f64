// aes_ref.vh: the testbenches' own AES S-box, from its definition (FIPS-197
// 5.1.1: the multiplicative inverse in GF(2^8), then the affine map), not
// taken from the RTL. Included inside a module.

  function [7:0] gmul;
    input [7:0] a, b;
    reg [7:0] p, aa, bb;
    integer k;
    begin
      p = 0; aa = a; bb = b;
      for (k = 0; k < 8; k = k + 1) begin
        if (bb[0]) p = p ^ aa;
        aa = {aa[6:0], 1'b0} ^ (aa[7] ? 8'h1b : 8'h00);
        bb = bb >> 1;
      end
      gmul = p;
    end
  endfunction

  function [7:0] ref_sbox;
    input [7:0] v;
    reg [7:0] inv, r;
    integer k;
    begin
      inv = 0;
      for (k = 1; k < 256; k = k + 1)
        if (gmul(v, k[7:0]) == 8'h01) inv = k[7:0];
      for (k = 0; k < 8; k = k + 1)
        r[k] = inv[k] ^ inv[(k + 4) % 8] ^ inv[(k + 5) % 8] ^ inv[(k + 6) % 8] ^
               inv[(k + 7) % 8] ^ (8'h63 >> k);
      ref_sbox = r;
    end
  endfunction
