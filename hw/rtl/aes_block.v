//======================================================================
// aes_block.v
// AES-128 block encipher with a valid/ready interface around aes_core
// and aes_key_sched: one block in, one block out, C = 10 / R cycles per
// block back to back. The key is sampled with each input block, so every
// block may use its own key. Used to measure the AES configurations alone
// (seed 003, Tables 3-4) and by tb_aes_block.
//======================================================================
`default_nettype none

module aes_block #(parameter R = 1, parameter ROM = 0)
                 (
                  input wire            clk,
                  input wire            reset_n,

                  input wire            in_valid,
                  output wire           in_ready,
                  input wire [127 : 0]  in_key,
                  input wire [127 : 0]  in_block,

                  output wire           out_valid,
                  input wire            out_ready,
                  output wire [127 : 0] out_block
                 );

  localparam C = 10 / R;

  reg [3 : 0]   cyc_reg;
  reg           busy_reg;
  reg           outv_reg;
  reg [127 : 0] out_reg;

  wire                   at_bnd = (cyc_reg == 4'd0);
  wire                   room   = !busy_reg || !outv_reg || out_ready;
  wire                   go     = at_bnd && (in_valid || busy_reg) && room;
  wire                   ce     = !at_bnd || go;
  wire [3 : 0]           cidx   = at_bnd ? C[3 : 0] : cyc_reg;
  wire [R * 128 - 1 : 0] rks;
  wire [127 : 0]         dout;

  // The key is an input port here (a new one may come with every block), so
  // the schedule's S-boxes stay in logic (KROM needs it a cycle early).
  aes_key_sched #(.R(R), .KROM(0)) ks(.clk(clk), .ce(ce), .bnd(at_bnd), .clr(1'b0), .nb(1'b0),
                                      .cidx(cidx), .key(in_key), .rks(rks));

  aes_core #(.R(R), .ROM(ROM)) core(.clk(clk), .ce(ce), .bnd(at_bnd), .chain(1'b0), .clr(1'b0),
                                    .din(in_block), .rk0(in_key), .rks(rks),
                                    .dout(dout));

  always @ (posedge clk or negedge reset_n)
    begin
      if (!reset_n)
        begin
          cyc_reg  <= 4'd0;
          busy_reg <= 1'b0;
          outv_reg <= 1'b0;
        end
      else
        begin
          if (outv_reg && out_ready)
            outv_reg <= 1'b0;
          if (go)
            begin
              if (busy_reg)
                outv_reg <= 1'b1;
              busy_reg <= in_valid;
              if (in_valid && C > 1)
                cyc_reg <= 4'd1;
            end
          else if (!at_bnd)
            cyc_reg <= (cyc_reg == C[3 : 0] - 4'd1) ? 4'd0 : cyc_reg + 4'd1;
        end
    end

  always @ (posedge clk)
    begin
      if (go && busy_reg)
        out_reg <= dout;
    end

  assign in_ready  = go;
  assign out_valid = outv_reg;
  assign out_block = out_reg;

endmodule // aes_block
`default_nettype wire
