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
                         input wire [127 : 0]  addr,
                         output wire [127 : 0] s,
                         output wire [127 : 0] s2
                        );

  function [7 : 0] xtime;
    input [7 : 0] b;
    begin
      xtime = {b[6 : 0], 1'b0} ^ (b[7] ? 8'h1b : 8'h00);
    end
  endfunction

  genvar i;
  generate
    if (ROM != 0) begin : g_rom
      for (i = 0 ; i < 16 ; i = i + 1) begin : g_byte
        aes_sbox_rom u_rom(.clk(clk), .ce(ce), .addr(addr[8 * i + 7 : 8 * i]),
                         .s(s[8 * i + 7 : 8 * i]), .s2(s2[8 * i + 7 : 8 * i]));
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
          if (ce)
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
