// aes_gf.vh: xtime, multiplication by x (i.e. by 02) in GF(2^8) modulo the AES polynomial
// x^8 + x^4 + x^3 + x + 1 (FIPS-197 4.2.1). The one definition of the RTL; included inside
// every module that doubles a byte (the 2*S of SubBytes for MixColumns, and the ROM
// S-boxes through aes_sbox_rom_init.vh).
// No include guard: a function belongs to the module it is included in, so each module
// includes it itself (a guard macro would hide it from every module after the first).
// The testbenches keep their own GF(2^8) arithmetic (tb/aes_ref.vh), so that they check
// the RTL against an independent definition.

  function [7 : 0] xtime;
    input [7 : 0] b;
    begin
      xtime = {b[6 : 0], 1'b0} ^ (b[7] ? 8'h1b : 8'h00);
    end
  endfunction
