//======================================================================
// ccm_engine.v
// AES-CCM encapsulation engine for the access point (seeds 000 and 001):
// K CBC-MAC lanes and K CTR units run side by side, one AES-128 unit each
// (aes_core, R rounds per clock, C = 10 / R cycles per block), all in
// lockstep on one shared on-the-fly key schedule.
//
// MODE 0 = CCMP (IEEE 802.11-2020 12.5.3) with the formatter ccmp_format;
//   K = 1 is CCMP bit for bit, K = 2, 4, 8 is wsec's Enhanced CCMP
//   (ECCMP-K, docs/eccmp.md): lane l runs D_l then every X_j with
//   j mod K == l, and the MIC is the XOR of the lane outputs.
// MODE 1 = IEEE 802.16e AES-CCM (seed 001's AESCCM6) with ccm16e_format
//   (no AAD, B0 flags 0x19); K = 1 only.
//
// Schedule. The formatted stream X_0 .. X_{n-1} (n = 1 + A + ceil(p/16),
// A = 2 AAD blocks for CCMP, 0 for 802.16e) is cut into windows, one per
// "slot" of C cycles; at each slot boundary every lane loads its block of
// the window. With K > 1 the lanes with fewer blocks start one slot later
// (D_l in slot 1 instead of 0), so that every lane ends in the last slot,
// the windows are runs of consecutive j (the input and output streams stay
// in order) and the MIC is one XOR of K outputs at the final boundary.
// CTR unit l computes, one slot ahead, the keystream of lane l's block of
// the next window, so ciphertext = stage ^ keystream is formed at the
// boundary where the plaintext enters the CBC-MAC; A_0 is computed in the
// last slot, when no CTR unit has anything else to do.
//
// Interfaces (valid/ready; data octet 0 in bits [127:120]):
// - s_desc: one beat per frame: key (TK/TEK), hdr (CCMP: the first 32
//   octets of the MAC header, Frame Control first; 802.16e: the 5 GMH
//   octets as transmitted in hdr[255:216]), pn (48-bit PN; 802.16e:
//   pn[31:0]), len (payload octets), spp (SPP A-MSDU in use, CCMP).
// - s: ceil(len / 16) payload blocks (octets past len are ignored).
// - m: ceil(len / 16) ciphertext blocks (zero past len), then one beat
//   with the MIC in [127:64] and m_tag = 1.
//======================================================================
`default_nettype none

module ccm_engine #(parameter MODE = 0,
                    parameter K    = 1,
                    parameter R    = 1,
                    parameter ROM  = 0)
                  (
                   input wire            clk,
                   input wire            reset_n,

                   input wire            s_desc_valid,
                   output wire           s_desc_ready,
                   input wire [127 : 0]  s_desc_key,
                   input wire [255 : 0]  s_desc_hdr,
                   input wire [47 : 0]   s_desc_pn,
                   input wire [15 : 0]   s_desc_len,
                   input wire            s_desc_spp,

                   input wire            s_valid,
                   output wire           s_ready,
                   input wire [127 : 0]  s_data,

                   output wire           m_valid,
                   input wire            m_ready,
                   output wire [127 : 0] m_data,
                   output wire           m_tag
                  );

  localparam C  = 10 / R;
  localparam LK = (K == 1) ? 1 : $clog2(K);
  localparam A  = (MODE == 0) ? 2 : 0;
  localparam [15 : 0] K16 = K[15 : 0];
  localparam [15 : 0] A16 = A[15 : 0];
  localparam [7 : 0] B0_FLAGS = (MODE == 0) ? 8'h59 : 8'h19;
  // PRE: the AES units register their boundary term a cycle early
  // (aes_core PRE); the CBC-MAC unit then always chains, from a state and
  // round key cleared in ST_SETUP (ROM = 2: the DP16KD's output reset).
  localparam PRE = (K == 1 && R == 1 && ROM == 2) ? 1 : 0;

  localparam ST_IDLE  = 2'd0;
  localparam ST_SETUP = 2'd1;
  localparam ST_RUN   = 2'd2;

  //----------------------------------------------------------------
  // Registers.
  //----------------------------------------------------------------
  reg [1 : 0]   st_reg;
  reg [127 : 0] key_reg;
  /* verilator lint_off UNUSEDSIGNAL */
  reg [255 : 0] hdr_reg;
  reg [47 : 0]  pn_reg;
  /* verilator lint_on UNUSEDSIGNAL */
  reg [15 : 0]  len_reg;
  /* verilator lint_off UNUSEDSIGNAL */
  reg           spp_reg;     // CCMP only
  /* verilator lint_on UNUSEDSIGNAL */

  reg [15 : 0]  n_reg;       // blocks in the formatted stream
  reg [15 : 0]  nm1_reg;     // n - 1, the last block (an equality, not a subtraction, on the path)
  reg [15 : 0]  ns_reg;      // slots (the final boundary is slot ns)
  reg [7 : 0]   rp_reg;      // K > 1: lanes 0 .. rp-1 start in slot 0
  reg [15 : 0]  slot_reg;    // index of the next boundary
  reg [15 : 0]  cnt1_reg;    // K = 1: CTR counter of the slot (0 in the last: A_0)
  reg [15 : 0]  wend1_reg;   // X blocks needed before boundary slot
  reg [15 : 0]  pj_reg;      // X blocks produced into the stage
  reg [15 : 0]  ocap1_reg;   // X blocks whose ciphertext is captured
  reg [15 : 0]  oj_reg;      // next X block to emit as ciphertext
  reg [3 : 0]   cyc_reg;     // 0 = boundary cycle
  /* verilator lint_off UNUSEDSIGNAL */
  reg [63 : 0]  mic_reg;     // K > 1 (K = 1: the MIC goes through out_reg)
  /* verilator lint_on UNUSEDSIGNAL */
  reg           micv_reg;

  reg [127 : 0] stage_reg [0 : K - 1];
  reg [127 : 0] out_reg   [0 : K - 1];

  //----------------------------------------------------------------
  // Formatters.
  //----------------------------------------------------------------
  wire [103 : 0] nonce;
  wire [127 : 0] x1;
  wire [127 : 0] x2;

  generate
    if (MODE == 0) begin : g_ccmp
      ccmp_format fmt(.hdr(hdr_reg), .pn(pn_reg), .spp(spp_reg),
                      .nonce(nonce), .x1(x1), .x2(x2));
    end
    else begin : g_16e
      ccm16e_format fmt(.gmh5(hdr_reg[255 : 216]), .pn(pn_reg[31 : 0]), .nonce(nonce));
      assign x1 = 128'h0;
      assign x2 = 128'h0;
    end
  endgenerate

  //----------------------------------------------------------------
  // Control.
  //----------------------------------------------------------------
  wire running  = (st_reg == ST_RUN);
  wire clr      = (PRE != 0) && (st_reg == ST_SETUP);
  wire at_bnd   = (cyc_reg == 4'd0);
  wire final_b  = (slot_reg == ns_reg);
  wire stage_ok = final_b || (pj_reg >= wend1_reg);

  wire m_fire      = m_valid && m_ready;
  wire m_fire_data = m_fire && !micv_reg;
  wire drained     = (oj_reg >= ocap1_reg) ||
                     ((oj_reg + 16'd1 == ocap1_reg) && m_fire_data);
  // K = 1 keeps the MIC in out_reg, which the next frame's boundaries must
  // not overwrite before it is taken.
  wire cond        = stage_ok && drained && !((final_b || K == 1) && micv_reg);

  // With C > 1 the boundary decision is registered (ok_reg = cond of the
  // cycle before): cond only turns true between two boundaries (every term
  // moves one way until go), so this costs at most one cycle per frame, and
  // it takes the 16-bit compares and m_ready off the path to ce, which
  // enables every register and RAM of the datapath.
  reg  ok_reg;
  wire go = running && at_bnd && ((C > 1) ? ok_reg : cond);
  wire ce = (running && !at_bnd) || go;
  // The next cycle is a boundary (the key schedule's RAM S-boxes, ROM = 2).
  wire nb = !running || (at_bnd ? !(go && !final_b && (C > 1)) : (cyc_reg == C[3 : 0] - 4'd1));

  wire [3 : 0]  cidx       = at_bnd ? C[3 : 0] : cyc_reg;
  wire [15 : 0] wend1_next = (K > 1 && slot_reg == 16'd0) ? {8'h0, rp_reg} :
                             wend1_reg + K[15 : 0];

  // Producer: X_j into stage lane j mod K.
  wire          is_pay  = (pj_reg >= A + 1);
  wire          fill_ok = running && (pj_reg < n_reg) &&
                          ((pj_reg < wend1_reg) || (go && (pj_reg < wend1_next)));
  wire          produce = fill_ok && (!is_pay || s_valid);
  wire [LK - 1 : 0] pidx = (K == 1) ? {LK{1'b0}} : pj_reg[LK - 1 : 0];

  // Valid-octet mask of the last payload block.
  function [127 : 0] tailmask;
    input [3 : 0] r;
    integer b;
    begin
      for (b = 0 ; b < 16 ; b = b + 1)
        tailmask[127 - 8 * b -: 8] = ((r == 4'd0) || (b < r)) ? 8'hff : 8'h00;
    end
  endfunction
  wire [127 : 0] lastmask = tailmask(len_reg[3 : 0]);
  // K = 1: the block captured at this boundary is the last one.
  /* verilator lint_off UNUSEDSIGNAL */
  wire           lastcap  = (wend1_reg == n_reg);
  /* verilator lint_on UNUSEDSIGNAL */

  reg [127 : 0] xblk;
  always @*
    begin
      if (PRE == 0 && pj_reg == 16'd0)
        xblk = {B0_FLAGS, nonce, len_reg};
      else if (A > 0 && pj_reg == 16'd1)
        xblk = x1;
      else if (A > 1 && pj_reg == 16'd2)
        xblk = x2;
      else if (PRE != 0)
        xblk = s_data;     // tail: cleared in the stage register (below)
      else
        xblk = s_data & ((pj_reg == nm1_reg) ? lastmask : {128{1'b1}});
    end
  /* verilator lint_off UNUSEDSIGNAL */
  wire ptail = (pj_reg == nm1_reg);   // K = 1
  /* verilator lint_on UNUSEDSIGNAL */
  wire [127 : 0] stage1;   // K = 1: the stage

  //----------------------------------------------------------------
  // Datapath: key schedule, K CBC-MAC lanes, K CTR units.
  //----------------------------------------------------------------
  wire [R * 128 - 1 : 0] rks;
  wire [127 : 0]         cbc_dout [0 : K - 1];
  wire [127 : 0]         ctr_dout [0 : K - 1];
  /* verilator lint_off UNOPTFLAT */
  wire [127 : 0]         tag_x    [0 : K];   // XOR chain, not a loop
  /* verilator lint_on UNOPTFLAT */
  assign tag_x[0] = 128'h0;

  aes_key_sched #(.R(R), .KROM(ROM == 2 ? 1 : 0))
    ks(.clk(clk), .ce(ce), .bnd(at_bnd), .clr(clr), .nb(nb), .cidx(cidx), .key(key_reg), .rks(rks));

  genvar l;
  generate
    for (l = 0 ; l < K ; l = l + 1) begin : g_lane
      // CBC-MAC lane l: D_l (K > 1) or the stage.
      wire hi   = (L16 >= {8'h0, rp_reg});
      wire is_d = (K > 1) && (((slot_reg == 16'd0) && !hi) || ((slot_reg == 16'd1) && hi));
      localparam integer DF = 128 + 16 * l + 4 * (LK - 1) + A;
      localparam [15 : 0] L16 = l;
      wire [7 : 0]   dflags = DF[7 : 0];
      // PRE: B0 enters at slot 0 here (the unit registers din ^ rk0 anyway,
      // so the 2:1 choice shares that LUT), and the stage carries X_1 on.
      wire [127 : 0] cbc_din = is_d ? {dflags, nonce, len_reg} :
                               (PRE != 0 && slot_reg == 16'd0) ? {B0_FLAGS, nonce, len_reg} :
                               (K == 1) ? stage1 : stage_reg[l];
      wire           chain   = (PRE != 0) ? 1'b1 : (K == 1) ? (slot_reg != 16'd0) : !is_d;

      aes_core #(.R(R), .ROM(ROM), .PRE(PRE)) cbc(.clk(clk), .ce(ce), .bnd(at_bnd), .chain(chain), .clr(clr),
                                       .din(cbc_din), .rk0(key_reg), .rks(rks),
                                       .dout(cbc_dout[l]));

      // CTR unit l: counter of lane l's block in the next window (j - A),
      // or A_0 in unit 0 in the last slot.
      wire [15 : 0] jn  = (K == 1) ? slot_reg + 16'd1 :
                          (slot_reg << LK) + L16 - (hi ? K16 : 16'd0);
      wire          a0  = (l == 0) && (slot_reg + 16'd1 == ns_reg);
      // K = 1: the same counter as a register (slot + 1 - A, 0 for A_0).
      wire [15 : 0] cnt = (K == 1) ? cnt1_reg : a0 ? 16'd0 : jn - A16;

      aes_core #(.R(R), .ROM(ROM), .PRE(PRE)) ctr(.clk(clk), .ce(ce), .bnd(at_bnd), .chain(1'b0), .clr(1'b0),
                                       .din({8'h01, nonce, cnt}), .rk0(key_reg), .rks(rks),
                                       .dout(ctr_dout[l]));

      assign tag_x[l + 1] = tag_x[l] ^ cbc_dout[l];

      always @ (posedge clk)
        begin
          if (K > 1 && produce && pidx == l)
            stage_reg[l] <= xblk;
          if (K > 1 && go && !final_b)
            out_reg[l] <= stage_reg[l] ^ ctr_dout[l];
        end
    end
  endgenerate

  // K = 1: the output register (out1) is loaded where the block is
  // captured (X_{wend1-1}) with the tail mask applied as a synchronous clear
  // of the octets past len (an FF's LSR, no LUT), and takes the MIC at the
  // final boundary (drained by then), so m_data is the register itself.
  wire [127 : 0] out1;
  generate
    if (K == 1) begin : g_out1
      wire [127 : 0] ct  = stage1 ^ ctr_dout[0];
      wire [63 : 0]  mic = tag_x[K][127 : 64] ^ ctr_dout[0][127 : 64];
      wire [127 : 0] d   = {final_b ? mic : ct[127 : 64], ct[63 : 0]};
      genvar b;
      // The stage, octets past len of the last block cleared (LSR).
      for (b = 0 ; b < 16 ; b = b + 1) begin : g_st
        reg [7 : 0] s_reg;
        always @ (posedge clk)
          begin
            // PRE only: on iCE40 the clear's path from produce (s_valid and the
            // 16-bit compares) to the flip-flops' SR input set the clock
            // (63.2 -> 52.4 MHz), so there the mask stays in the stage mux.
            if (PRE != 0 && produce && ptail && (lastmask[127 - 8 * b] == 1'b0))
              s_reg <= 8'h0;
            else if (produce)
              s_reg <= xblk[127 - 8 * b -: 8];
          end
        assign stage1[127 - 8 * b -: 8] = s_reg;
      end
      for (b = 0 ; b < 16 ; b = b + 1) begin : g_oct
        reg  [7 : 0] o_reg;
        wire         zero = final_b ? (b >= 8) : (lastcap && (lastmask[127 - 8 * b] == 1'b0));
        always @ (posedge clk)
          begin
            if (go && zero)
              o_reg <= 8'h0;
            else if (go)
              o_reg <= d[127 - 8 * b -: 8];
          end
        assign out1[127 - 8 * b -: 8] = o_reg;
      end
    end
    else begin : g_outk
      assign out1   = 128'h0;
      assign stage1 = 128'h0;
    end
  endgenerate

  //----------------------------------------------------------------
  // Sequencing.
  //----------------------------------------------------------------
  wire [16 : 0] m_blocks = ({1'b0, s_desc_len} + 17'd15) >> 4;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [16 : 0] n_new    = m_blocks + {1'b0, A16} + 17'd1;   // < 2^13
  /* verilator lint_on UNUSEDSIGNAL */
  // ((n - 1) mod K) + 1.
  /* verilator lint_off UNUSEDSIGNAL */
  wire [15 : 0] rp_new   = ((n_reg - 16'd1) & (K[15 : 0] - 16'd1)) + 16'd1;
  /* verilator lint_on UNUSEDSIGNAL */

  always @ (posedge clk or negedge reset_n)
    begin
      if (!reset_n)
        begin
          st_reg    <= ST_IDLE;
          ok_reg    <= 1'b0;
          cyc_reg   <= 4'd0;
          micv_reg  <= 1'b0;
          n_reg     <= 16'd0;
          nm1_reg   <= 16'd0;
          ns_reg    <= 16'd0;
          rp_reg    <= 8'd1;
          slot_reg  <= 16'd0;
          cnt1_reg  <= 16'd0;
          wend1_reg <= 16'd0;
          pj_reg    <= 16'd0;
          ocap1_reg <= 16'd0;
          oj_reg    <= 16'd0;
        end
      else
        begin
          ok_reg <= running && cond && !go;
          if (m_fire && micv_reg)
            micv_reg <= 1'b0;
          if (m_fire_data)
            oj_reg <= oj_reg + 16'd1;

          case (st_reg)
            ST_IDLE:
              if (s_desc_valid)
                begin
                  st_reg <= ST_SETUP;
                  n_reg  <= n_new[15 : 0];
                  nm1_reg <= n_new[15 : 0] - 16'd1;
                end

            ST_SETUP:
              begin
                st_reg    <= ST_RUN;
                slot_reg  <= 16'd0;
                cnt1_reg  <= (n_reg == 16'd1) ? 16'd0 : 16'd1 - A16;
                pj_reg    <= 16'd0;
                oj_reg    <= A + 1;
                ocap1_reg <= 16'd0;
                if (K == 1)
                  begin
                    ns_reg    <= n_reg;
                    rp_reg    <= 8'd1;
                    wend1_reg <= 16'd1;
                  end
                else
                  begin
                    ns_reg    <= ((n_reg + K16 - 16'd1) >> LK) + 16'd1;
                    rp_reg    <= rp_new[7 : 0];
                    wend1_reg <= 16'd0;
                  end
              end

            default: // ST_RUN
              begin
                if (produce)
                  pj_reg <= pj_reg + 16'd1;
                if (go)
                  begin
                    slot_reg  <= slot_reg + 16'd1;
                    cnt1_reg  <= (slot_reg + 16'd2 == ns_reg) ? 16'd0 : cnt1_reg + 16'd1;
                    wend1_reg <= wend1_next;
                    if (final_b)
                      begin
                        st_reg   <= ST_IDLE;
                        micv_reg <= 1'b1;
                      end
                    else
                      begin
                        ocap1_reg <= wend1_reg;
                        if (C > 1)
                          cyc_reg <= 4'd1;
                      end
                  end
                else if (!at_bnd)
                  cyc_reg <= (cyc_reg == C[3 : 0] - 4'd1) ? 4'd0 : cyc_reg + 4'd1;
              end
          endcase
        end
    end

  always @ (posedge clk)
    begin
      if (st_reg == ST_IDLE && s_desc_valid)
        begin
          key_reg <= s_desc_key;
          hdr_reg <= s_desc_hdr;
          pn_reg  <= s_desc_pn;
          len_reg <= s_desc_len;
          spp_reg <= s_desc_spp;
        end
      if (K > 1 && go && final_b)
        mic_reg <= tag_x[K][127 : 64] ^ ctr_dout[0][127 : 64];
    end

  //----------------------------------------------------------------
  // Outputs.
  //----------------------------------------------------------------
  wire [LK - 1 : 0] oidx = (K == 1) ? {LK{1'b0}} : oj_reg[LK - 1 : 0];

  assign s_desc_ready = (st_reg == ST_IDLE);
  assign s_ready      = fill_ok && is_pay;
  assign m_valid      = micv_reg || (oj_reg < ocap1_reg);
  assign m_tag        = micv_reg;
  assign m_data       = (K == 1) ? out1 :
                        micv_reg ? {mic_reg, 64'h0} :
                        out_reg[oidx] & ((oj_reg == nm1_reg) ? lastmask : {128{1'b1}});

endmodule // ccm_engine
`default_nettype wire
