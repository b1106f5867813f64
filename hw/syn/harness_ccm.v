//======================================================================
// harness_ccm.v
// Place-and-route harness for ccm_engine: an FPGA has a few hundred pins,
// the engine's ports are ~700 bits wide, so the wide inputs come from an
// 8-bit shift chain and the 128-bit output leaves through an 8-bit shift
// register. Used only to obtain Fmax from place and route; the area of
// the engine itself is taken from synthesis of ccm_engine alone (see
// docs/hw.md), since the harness adds ~705 flip-flops of its own.
// DEC = 1: the chain also carries the direction bit and the received MIC
// (65 bits more), and m_ok leaves XORed into bit 0 of the output shift
// register (zero on the tag beat, where m_ok is valid) instead of a pin of
// its own, so that the DEC = 0 harness, and with it the placement of every
// DEC = 0 record, stays as it was.
//======================================================================
`default_nettype none

module harness_ccm #(parameter MODE = 0, parameter K = 1, parameter R = 1, parameter ROM = 0,
                     parameter DEC = 0)
                   (
                    input wire          clk,
                    input wire          reset_n,
                    input wire [7 : 0]  din,
                    input wire          shift,
                    input wire          desc_valid,
                    input wire          s_valid,
                    input wire          m_ready,
                    input wire          load_out,
                    input wire          kt_we,
                    output wire [7 : 0] dout,
                    output wire         desc_ready,
                    output wire         s_ready,
                    output wire         m_valid,
                    output wire         m_tag
                   );

  // key, hdr, pn, len, spp, data, kidx, kt_addr (kt_data: the key field);
  // DEC = 1: dec, mic (between kt_addr and data).
  localparam WD = (DEC != 0) ? 1 + 64 : 0;
  localparam W = 128 + 256 + 48 + 16 + 1 + 128 + 5 + 9 + WD;

  reg [W - 1 : 0] sh_reg;
  reg [127 : 0]   out_reg;
  wire [127 : 0]  m_data;
  /* verilator lint_off UNUSEDSIGNAL */
  wire            m_ok;     // DEC = 1
  /* verilator lint_on UNUSEDSIGNAL */
  wire            ok_bit = (DEC != 0) && m_ok;

  always @ (posedge clk)
    begin
      if (shift)
        sh_reg <= {sh_reg[W - 9 : 0], din};
      out_reg <= load_out ? {m_data[127 : 1], m_data[0] ^ ok_bit} : {out_reg[119 : 0], 8'h00};
    end

  ccm_engine #(.MODE(MODE), .K(K), .R(R), .ROM(ROM), .DEC(DEC))
  dut(.clk(clk), .reset_n(reset_n),
      .s_desc_valid(desc_valid), .s_desc_ready(desc_ready),
      .s_desc_key(sh_reg[W - 1 -: 128]), .s_desc_hdr(sh_reg[W - 129 -: 256]),
      .s_desc_pn(sh_reg[W - 385 -: 48]), .s_desc_len(sh_reg[W - 433 -: 16]),
      .s_desc_spp(sh_reg[W - 449]),
      .s_desc_dec((DEC != 0) ? sh_reg[128 + 64] : 1'b0), .s_desc_mic((DEC != 0) ? sh_reg[128 +: 64] : 64'h0),
      .s_desc_kidx(sh_reg[W - 450 -: 5]),
      .kt_we(kt_we), .kt_addr(sh_reg[W - 455 -: 9]), .kt_data(sh_reg[W - 1 -: 128]),
      .s_valid(s_valid), .s_ready(s_ready), .s_data(sh_reg[127 : 0]),
      .m_valid(m_valid), .m_ready(m_ready), .m_data(m_data), .m_tag(m_tag), .m_ok(m_ok));

  assign dout = out_reg[127 : 120];

endmodule // harness_ccm
`default_nettype wire
