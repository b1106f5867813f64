// aes_sbox_rom_init.vh: the T-box half ROM of the ROM S-boxes (aes_sbox_rom, aes_sbox_rom2),
// declared and filled in one place: 256 words of {S(x), 2*S(x)}, the shape of one iCE40
// EBR (256 x 16) and of half an ECP5 DP16KD. Included inside such a module, after
// aes_gf.vh (xtime) and aes_sbox_table.vh (aes_sbox_f); the module adds its read ports.

  reg [15 : 0] rom [0 : 255];
  integer      rom_i;

  initial begin
    for (rom_i = 0 ; rom_i < 256 ; rom_i = rom_i + 1)
      rom[rom_i] = {aes_sbox_f(rom_i[7 : 0]), xtime(aes_sbox_f(rom_i[7 : 0]))};
  end
