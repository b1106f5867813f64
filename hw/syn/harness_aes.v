//======================================================================
// harness_aes.v
// Place-and-route harness for aes_block (see harness_ccm.v): key and
// block from an 8-bit shift chain, the result out through an 8-bit shift
// register. Area figures come from synthesis of aes_block alone.
//======================================================================
`default_nettype none

module harness_aes #(parameter R = 1, parameter ROM = 0)
                   (
                    input wire          clk,
                    input wire          reset_n,
                    input wire [7 : 0]  din,
                    input wire          shift,
                    input wire          in_valid,
                    input wire          out_ready,
                    input wire          load_out,
                    output wire [7 : 0] dout,
                    output wire         in_ready,
                    output wire         out_valid
                   );

  reg [255 : 0] sh_reg;
  reg [127 : 0] out_reg;
  wire [127 : 0] out_block;

  always @ (posedge clk)
    begin
      if (shift)
        sh_reg <= {sh_reg[247 : 0], din};
      out_reg <= load_out ? out_block : {out_reg[119 : 0], 8'h00};
    end

  aes_block #(.R(R), .ROM(ROM))
  dut(.clk(clk), .reset_n(reset_n),
      .in_valid(in_valid), .in_ready(in_ready), .in_key(sh_reg[255 : 128]),
      .in_block(sh_reg[127 : 0]),
      .out_valid(out_valid), .out_ready(out_ready), .out_block(out_block));

  assign dout = out_reg[127 : 120];

endmodule // harness_aes
`default_nettype wire
