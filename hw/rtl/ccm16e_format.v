//======================================================================
// ccm16e_format.v
// IEEE 802.16e AES-CCM formatting in hardware (seed 001's AESCCM6
// Construct_Nonce): nonce = the first 5 octets of the generic MAC header
// as transmitted (HCS excluded) || 4 reserved zero octets || PN, least
// significant octet first (IEEE 802.16-2004 7.5.1.2.3, Figure 137; the
// readings are written down in crates/wsec/src/cipher/ccm16e.rs).
// There is no AAD: B0 flags 0x19 (built by the engine).
//======================================================================
`default_nettype none

module ccm16e_format(
                     input wire [39 : 0]   gmh5,
                     input wire [31 : 0]   pn,
                     output wire [103 : 0] nonce
                    );

  assign nonce = {gmh5, 32'h0, pn[7 : 0], pn[15 : 8], pn[23 : 16], pn[31 : 24]};

endmodule // ccm16e_format
`default_nettype wire
