//======================================================================
// aes_subbytes_reg.v
// The clocked SubBytes layer of an AES unit: state register placed after
// the S-boxes, so that with ROM = 1 the register is the block RAM's own
// output register (16 x aes_sbox_rom) and with ROM = 0 it is 128 flops
// after 16 logic S-boxes. Outputs S and 2*S of the registered state.
//======================================================================
`default_nettype none

module aes_subbytes_reg #(parameter ROM = 0)
                        (
                         input wire            clk,
                         input wire            ce,
                         input wire            clr,   // clear the state (S and 2S = 0)
                         input wire [127 : 0]  addr,
                         output wire [127 : 0] s,
                         output wire [127 : 0] s2
                        );

`include "aes_gf.vh"

  genvar i;
  generate
    if (ROM != 0) begin : g_rom
      // Bytes 2i and 2i + 1 share a two-port ROM.
      for (i = 0 ; i < 8 ; i = i + 1) begin : g_pair
        wire [15 : 0] qa;
        wire [15 : 0] qb;
        aes_sbox_rom2 u_rom(.clk(clk), .ce(ce), .clr(clr),
                            .addr_a(addr[16 * i + 7 : 16 * i]), .addr_b(addr[16 * i + 15 : 16 * i + 8]),
                            .q_a(qa), .q_b(qb));
        assign s[16 * i + 7 : 16 * i]       = qa[15 : 8];
        assign s2[16 * i + 7 : 16 * i]      = qa[7 : 0];
        assign s[16 * i + 15 : 16 * i + 8]  = qb[15 : 8];
        assign s2[16 * i + 15 : 16 * i + 8] = qb[7 : 0];
      end
    end
    else begin : g_logic
      reg [127 : 0]  s_reg;
      wire [127 : 0] s_new;
      /* verilator lint_off UNUSEDSIGNAL */
      wire [127 : 0] s2_unused;
      /* verilator lint_on UNUSEDSIGNAL */
      aes_subbytes sub(.x(addr), .s(s_new), .s2(s2_unused));

      always @ (posedge clk)
        begin
          if (clr)
            s_reg <= 128'h0;
          else if (ce)
            s_reg <= s_new;
        end

      assign s = s_reg;
      for (i = 0 ; i < 16 ; i = i + 1) begin : g_xt
        assign s2[8 * i + 7 : 8 * i] = xtime(s_reg[8 * i + 7 : 8 * i]);
      end
    end
  endgenerate

endmodule // aes_subbytes_reg
`default_nettype wire
