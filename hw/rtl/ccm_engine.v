//======================================================================
// ccm_engine.v
// AES-CCM encapsulation engine for the access point (seeds 000 and 001):
// K CBC-MAC lanes and K CTR units run side by side, one AES-128 unit each
// (aes_core, R rounds per clock, C = 10 / R cycles per block), all in
// lockstep on one shared key schedule: expanded on the fly, or (ROM = 3)
// read from the host's key table.
//
// MODE 0 = CCMP (IEEE 802.11-2020 12.5.3) with the formatter ccmp_format;
//   K = 1 is CCMP bit for bit, K = 2, 4, 8 is wsec's Enhanced CCMP
//   (ECCMP-K, docs/eccmp.md): lane l runs D_l then every X_j with
//   j mod K == l, and the MIC is the XOR of the lane outputs.
// MODE 1 = IEEE 802.16e AES-CCM (seed 001's AESCCM6) with ccm16e_format
//   (no AAD, B0 flags 0x19); K = 1 only.
//
// ROM: 0 logic S-boxes; 1 the datapath's S-boxes in block RAM; 2 the key
// schedule's too (R = 1); 3 as 2, but the round keys are precomputed by
// the host into a key table (aes_key_table, 32 slots: one per station)
// instead of expanded on the fly (R = 1, K = 1).
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
//   pn[31:0]), len (payload octets), spp (SPP A-MSDU in use, CCMP);
//   ROM = 3: kidx, the key table slot holding the key's round keys 1..10
//   (the key itself stays in the descriptor: it is round key 0).
// - kt (ROM = 3): the host's write port of the key table, one 128-bit
//   round key per beat at {slot, round}.
// - s: ceil(len / 16) payload blocks (octets past len are ignored).
// - m: ceil(len / 16) ciphertext blocks (zero past len), then one beat
//   with the MIC in [127:64] and m_tag = 1.
//
// Decapsulation (DEC = 1; DEC = 0 builds none of it, m_ok = 1). One engine
// then both encapsulates and opens received frames, chosen per frame by
// the descriptor's direction bit:
// - s_desc_dec: 1 = decapsulate; s_desc_mic: the received MIC (dec only).
// - s: the ceil(len / 16) ciphertext blocks (octets past len ignored).
// - m: the plaintext blocks (zero past len), then the tag beat (m_tag = 1)
//   with the computed MIC in [127:64] and m_ok = 1 iff it equals
//   s_desc_mic (encapsulation: m_ok = 1). m_ok is valid on the tag beat
//   only; the comparison is an XOR and an OR of all 64 bits into one
//   register, so its time does not depend on where the tags differ.
// CTR decryption is the XOR the engine forms anyway (stage ^ keystream at
// the boundary); what changes is the CBC-MAC input of the payload blocks:
// the recovered plaintext (stage ^ keystream, cleared past len in the last
// block) instead of the stage.
// The plaintext of a frame is out before its MIC is checked: the consumer
// must hold the plaintext beats until the tag beat and drop them when
// m_ok = 0 (the DMA writes the frame's completion, with its pass/fail
// status, only after the tag beat), so a forged frame's plaintext is
// never marked valid.
//======================================================================
`default_nettype none

module ccm_engine #(parameter MODE = 0,
                    parameter K    = 1,
                    parameter R    = 1,
                    parameter ROM  = 0,
                    // 1: runtime direction (s_desc_dec), decapsulation too.
                    parameter DEC  = 0,
                    // Width of the block counters: frames of up to
                    // 16 * (2^NW - 4) octets (NW = 10: 16 320, above
                    // 802.11-2020's largest MPDU, 11 454, and 802.16e's
                    // 2047-octet PDU). Longer frames are not supported.
                    parameter NW   = 10)
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
                   /* verilator lint_off UNUSEDSIGNAL */
                   input wire            s_desc_dec,    // DEC = 1 only
                   input wire [63 : 0]   s_desc_mic,    // DEC = 1 only
                   input wire [4 : 0]    s_desc_kidx,   // ROM = 3 only
                   input wire            kt_we,
                   input wire [8 : 0]    kt_addr,
                   input wire [127 : 0]  kt_data,
                   /* verilator lint_on UNUSEDSIGNAL */

                   input wire            s_valid,
                   output wire           s_ready,
                   input wire [127 : 0]  s_data,

                   output wire           m_valid,
                   input wire            m_ready,
                   output wire [127 : 0] m_data,
                   output wire           m_tag,
                   output wire           m_ok           // on the tag beat
                  );

  localparam C  = 10 / R;
  localparam LK = (K == 1) ? 1 : $clog2(K);
  localparam A  = (MODE == 0) ? 2 : 0;
  localparam [NW - 1 : 0] KN = K[NW - 1 : 0];
  localparam [NW - 1 : 0] AN = A[NW - 1 : 0];
  localparam [NW - 1 : 0] N0 = 0;
  localparam [NW - 1 : 0] N1 = 1;
  localparam [NW - 1 : 0] N2 = 2;
  localparam [7 : 0] B0_FLAGS = (MODE == 0) ? 8'h59 : 8'h19;
  // PRE: the AES units register their boundary term a cycle early
  // (aes_core PRE); the CBC-MAC unit then always chains, from a state and
  // round key cleared in ST_SETUP (ROM >= 2: the DP16KD's output reset).
  // Not with DEC = 1: the CBC-MAC input of a decapsulated payload block is
  // stage ^ keystream, and the keystream (ctr_dout) is only there in the
  // boundary cycle itself, so din cannot be registered a cycle early. The
  // key table (ROM = 3) and the ROM = 2 key schedule then run with clr = 0
  // (their round key is loaded at every boundary anyway).
  localparam PRE = (DEC == 0 && K == 1 && R == 1 && ROM >= 2) ? 1 : 0;

  localparam ST_IDLE  = 2'd0;
  localparam ST_SETUP = 2'd1;
  localparam ST_RUN   = 2'd2;

  //----------------------------------------------------------------
  // Registers, each with its next value (_new) and write enable (_we),
  // computed by the combinational blocks desc_logic, ctrl_logic and
  // dp_logic; reg_update (control, reset) and dp_reg_update (datapath,
  // not reset) only copy _new to _reg where _we is set.
  //----------------------------------------------------------------
  // Descriptor (one shared write enable: taken together in ST_IDLE).
  reg [127 : 0] key_reg;
  reg [127 : 0] key_new;
  /* verilator lint_off UNUSEDSIGNAL */
  reg [4 : 0]   kidx_reg;    // ROM = 3
  /* verilator lint_on UNUSEDSIGNAL */
  reg [4 : 0]   kidx_new;
  /* verilator lint_off UNUSEDSIGNAL */
  reg [255 : 0] hdr_reg;
  reg [47 : 0]  pn_reg;
  /* verilator lint_on UNUSEDSIGNAL */
  reg [255 : 0] hdr_new;
  reg [47 : 0]  pn_new;
  reg [15 : 0]  len_reg;
  reg [15 : 0]  len_new;
  /* verilator lint_off UNUSEDSIGNAL */
  reg           spp_reg;     // CCMP only
  /* verilator lint_on UNUSEDSIGNAL */
  reg           spp_new;
  reg           desc_we;

  // Control.
  reg [1 : 0]      st_reg;
  reg [1 : 0]      st_new;
  reg              st_we;
  reg [NW - 1 : 0] n_reg;       // blocks in the formatted stream
  reg [NW - 1 : 0] n_new;
  reg              n_we;
  reg [NW - 1 : 0] nm1_reg;     // n - 1, the last block (an equality, not a subtraction, on the path)
  reg [NW - 1 : 0] nm1_new;
  reg              nm1_we;
  reg [NW - 1 : 0] ns_reg;      // slots (the final boundary is slot ns)
  reg [NW - 1 : 0] ns_new;
  reg              ns_we;
  reg [7 : 0]      rp_reg;      // K > 1: lanes 0 .. rp-1 start in slot 0
  reg [7 : 0]      rp_new;
  reg              rp_we;
  reg [NW - 1 : 0] slot_reg;    // index of the next boundary
  reg [NW - 1 : 0] slot_new;
  reg              slot_we;
  reg [NW - 1 : 0] cnt1_reg;    // K = 1: CTR counter of the slot (0 in the last: A_0)
  reg [NW - 1 : 0] cnt1_new;
  reg              cnt1_we;
  reg [NW - 1 : 0] wend1_reg;   // X blocks needed before boundary slot
  reg [NW - 1 : 0] wend1_new;
  reg              wend1_we;
  reg [NW - 1 : 0] pj_reg;      // X blocks produced into the stage
  reg [NW - 1 : 0] pj_new;
  reg              pj_we;
  reg [NW - 1 : 0] ocap1_reg;   // X blocks whose ciphertext is captured
  reg [NW - 1 : 0] ocap1_new;
  reg              ocap1_we;
  reg [NW - 1 : 0] oj_reg;      // next X block to emit as ciphertext
  reg [NW - 1 : 0] oj_new;
  reg              oj_we;
  reg [3 : 0]      cyc_reg;     // 0 = boundary cycle
  reg [3 : 0]      cyc_new;
  reg              cyc_we;
  reg              micv_reg;    // the MIC beat is on m
  reg              micv_new;
  reg              micv_we;
  reg              ok_reg;      // C > 1: cond of the cycle before (see go)
  reg              ok_new;
  reg              ok_we;
  // K = 1 flags that replace NW-bit compares (see have_reg's use below).
  reg              fin_reg;     // the next boundary is the final one
  reg              fin_new;
  reg              fin_we;
  reg              have_reg;    // pj == wend1
  reg              have_new;
  reg              have_we;
  reg              done_reg;    // pj == n
  reg              done_new;
  reg              done_we;
  reg              outv_reg;    // oj < ocap1
  reg              outv_new;
  reg              outv_we;
  reg              spay_reg;    // slot >= A + 1: the boundary captures a payload block
  reg              spay_new;
  reg              spay_we;
  reg              pay_reg;     // pj >= A + 1: the producer takes payload
  reg              pay_new;
  reg              pay_we;

  // Datapath: lane l's stage (the X block it takes at the next boundary)
  // and output register in bits [128 l +: 128]; the K > 1 MIC.
  reg [128 * K - 1 : 0] stage_reg;
  reg [128 * K - 1 : 0] stage_new;
  reg [K - 1 : 0]       stage_we;
  reg [128 * K - 1 : 0] out_reg;
  reg [128 * K - 1 : 0] out_new;
  reg [K - 1 : 0]       out_we;
  /* verilator lint_off UNUSEDSIGNAL */
  reg [63 : 0]          mic_reg;     // K > 1 (K = 1: the MIC goes through out_reg)
  /* verilator lint_on UNUSEDSIGNAL */
  reg [63 : 0]          mic_new;
  reg                   mic_we;

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
  // K = 1: the final boundary is slot n, flagged at the boundary of slot n - 1.
  wire final_b  = (K == 1) ? fin_reg : (slot_reg == ns_reg);
  wire [NW - 1 : 0] slot_p1 = slot_reg + N1;
  // K = 1: the producer is at most one block ahead of the boundaries (pj
  // is wend1 - 1 or wend1) and the output register holds one block, so
  // flags replace the NW-bit compares (carry chains) that K > 1 needs:
  // have = (pj == wend1), done = (pj == n), outv = (oj < ocap1), and
  // fin, spay, pay.
  wire stage_ok = final_b || ((K == 1) ? have_reg : (pj_reg >= wend1_reg));

  wire m_fire      = m_valid && m_ready;
  wire m_fire_data = m_fire && !micv_reg;
  wire drained     = (K == 1) ? (!outv_reg || m_fire_data) :
                     ((oj_reg >= ocap1_reg) || ((oj_reg + N1 == ocap1_reg) && m_fire_data));
  // K = 1 keeps the MIC in out_reg, which the next frame's boundaries must
  // not overwrite before it is taken.
  wire cond        = stage_ok && drained && !((final_b || K == 1) && micv_reg);

  // With C > 1 the boundary decision is registered (ok_reg = cond of the
  // cycle before): cond only turns true between two boundaries (every term
  // moves one way until go), so this costs at most one cycle per frame, and
  // it takes the 16-bit compares and m_ready off the path to ce, which
  // enables every register and RAM of the datapath.
  wire go = running && at_bnd && ((C > 1) ? ok_reg : cond);
  wire ce = (running && !at_bnd) || go;
  // The next cycle is a boundary (the key schedule's RAM S-boxes, ROM = 2).
  /* verilator lint_off UNUSEDSIGNAL */
  wire nb = !running || (at_bnd ? !(go && !final_b && (C > 1)) : (cyc_reg == C[3 : 0] - 4'd1));
  /* verilator lint_on UNUSEDSIGNAL */

  wire [3 : 0]  cidx       = at_bnd ? C[3 : 0] : cyc_reg;
  wire [NW - 1 : 0] wend1_next = (K > 1 && slot_reg == N0) ? {{(NW - 8){1'b0}}, rp_reg} :
                                 wend1_reg + KN;

  // Producer: X_j into stage lane j mod K.
  // is_pay = (pj >= A + 1), as a flag set when X_A is produced.
  wire          is_pay  = pay_reg;
  wire          fill_ok = running &&
                          ((K == 1) ? (!done_reg && (!have_reg || go)) :
                           ((pj_reg < n_reg) && ((pj_reg < wend1_reg) || (go && (pj_reg < wend1_next)))));
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
  wire           lastcap  = (slot_reg == nm1_reg);   // wend1 == n (K = 1: wend1 = slot + 1)
  /* verilator lint_on UNUSEDSIGNAL */

  reg [127 : 0] xblk;
  always @*
    begin
      if (PRE == 0 && pj_reg == N0)
        xblk = {B0_FLAGS, nonce, len_reg};
      else if (A > 0 && pj_reg == N1)
        xblk = x1;
      else if (A > 1 && pj_reg == N2)
        xblk = x2;
      else if (PRE != 0)
        xblk = s_data;     // tail: cleared in the stage register (dp_logic)
      else
        xblk = s_data & ((pj_reg == nm1_reg) ? lastmask : {128{1'b1}});
    end
  /* verilator lint_off UNUSEDSIGNAL */
  wire ptail = (pj_reg == nm1_reg);   // K = 1
  /* verilator lint_on UNUSEDSIGNAL */

  //----------------------------------------------------------------
  // Datapath: key schedule, K CBC-MAC lanes, K CTR units.
  //----------------------------------------------------------------
  wire [R * 128 - 1 : 0] rks;
  wire [127 : 0]         cbc_dout [0 : K - 1];
  wire [127 : 0]         ctr_dout [0 : K - 1];
  /* verilator lint_off UNUSEDSIGNAL */
  wire                   dec_run;   // DEC = 1: the frame is decapsulated
  /* verilator lint_on UNUSEDSIGNAL */
  /* verilator lint_off UNOPTFLAT */
  wire [127 : 0]         tag_x    [0 : K];   // XOR chain, not a loop
  /* verilator lint_on UNOPTFLAT */
  assign tag_x[0] = 128'h0;

  generate
    if (ROM == 3) begin : g_kt
      aes_key_table #(.KA(5))
        kt(.clk(clk), .ce(ce), .bnd(at_bnd), .clr(clr), .cidx(cidx), .kidx(kidx_reg),
           .we(kt_we), .waddr(kt_addr), .wdata(kt_data), .rk(rks[127 : 0]));
    end
    else begin : g_ks
      aes_key_sched #(.R(R), .KROM(ROM == 2 ? 1 : 0))
        ks(.clk(clk), .ce(ce), .bnd(at_bnd), .clr(clr), .nb(nb), .cidx(cidx), .key(key_reg), .rks(rks));
    end
  endgenerate

  genvar l;
  generate
    for (l = 0 ; l < K ; l = l + 1) begin : g_lane
      // CBC-MAC lane l: D_l (K > 1) or the stage.
      wire hi   = (LN >= {{(NW - 8){1'b0}}, rp_reg});
      wire is_d = (K > 1) && (((slot_reg == N0) && !hi) || ((slot_reg == N1) && hi));
      localparam integer DF = 128 + 16 * l + 4 * (LK - 1) + A;
      localparam [NW - 1 : 0] LN = l;
      wire [7 : 0]   dflags = DF[7 : 0];
      // PRE: B0 enters at slot 0 here (the unit registers din ^ rk0 anyway,
      // so the 2:1 choice shares that LUT), and the stage carries X_1 on.
      // DEC: a payload block of a decapsulated frame enters as plaintext
      // (cbc_dst, g_ddin). DEC = 0 elaborates the expression it always had
      // and nothing else: even logic that synthesis removes again changes
      // the order of Yosys's netlist, and with it what ABC maps (6 more
      // iCE40 LUT4 on ccmp-k1-r1-rom2, 4 fewer on eccmp2-r1-rom, when the
      // DEC terms were there, constant-folded).
      /* verilator lint_off UNUSEDSIGNAL */
      wire [127 : 0] cbc_dst;   // DEC = 1: the stage, or the plaintext
      /* verilator lint_on UNUSEDSIGNAL */
      wire [127 : 0] cbc_din = is_d ? {dflags, nonce, len_reg} :
                               (PRE != 0 && slot_reg == N0) ? {B0_FLAGS, nonce, len_reg} :
                               (DEC != 0) ? cbc_dst :
                               stage_reg[128 * l +: 128];
      if (DEC != 0) begin : g_ddin
        // d_pay, d_last: this boundary's block is payload, is the last.
        wire           d_pay;
        wire           d_last;
        wire [127 : 0] d_pt = (stage_reg[128 * l +: 128] ^ ctr_dout[l]) & (d_last ? lastmask : {128{1'b1}});
        assign cbc_dst = (dec_run && d_pay) ? d_pt : stage_reg[128 * l +: 128];
        if (K > 1) begin : g_dflags
          // The flags of the block lane l takes at the next boundary, X_jn
          // (the block whose keystream the CTR unit starts now), registered
          // at go; cleared in ST_SETUP (slot 0: D_l or nothing). is_d has
          // priority (slot 1's wrapped jn of the lanes that start late).
          reg dpay_reg;
          reg dpay_new;
          reg dlast_reg;
          reg dlast_new;
          reg dfl_we;
          // jn of the CTR unit below (one adder: synthesis merges the two).
          wire [NW - 1 : 0] jn_d = (slot_reg << LK) + LN - (hi ? KN : N0);
          always @*
            begin
              dfl_we    = (st_reg == ST_SETUP) || go;
              dpay_new  = (st_reg != ST_SETUP) && (jn_d > AN);
              dlast_new = (st_reg != ST_SETUP) && (jn_d == nm1_reg);
            end
          always @ (posedge clk)
            begin
              if (dfl_we)
                begin
                  dpay_reg  <= dpay_new;
                  dlast_reg <= dlast_new;
                end
            end
          assign d_pay  = dpay_reg;
          assign d_last = dlast_reg;
        end
        else begin : g_k1flags
          // K = 1: X_slot is captured at this boundary: payload from slot
          // A + 1 on (spay), the last at slot n - 1 (lastcap).
          assign d_pay  = spay_reg;
          assign d_last = lastcap;
        end
      end
      else begin : g_din
        assign cbc_dst = 128'h0;
      end
      wire           chain   = (PRE != 0) ? 1'b1 : (K == 1) ? (slot_reg != N0) : !is_d;

      aes_core #(.R(R), .ROM(ROM), .PRE(PRE)) cbc(.clk(clk), .ce(ce), .bnd(at_bnd), .chain(chain), .clr(clr),
                                       .din(cbc_din), .rk0(key_reg), .rks(rks),
                                       .dout(cbc_dout[l]));

      // CTR unit l: counter of lane l's block in the next window (j - A),
      // or A_0 in unit 0 in the last slot.
      wire [NW - 1 : 0] jn  = (K == 1) ? slot_reg + N1 :
                              (slot_reg << LK) + LN - (hi ? KN : N0);
      wire              a0  = (l == 0) && (slot_reg + N1 == ns_reg);
      // K = 1: the same counter as a register (slot + 1 - A, 0 for A_0).
      // (only the counters of payload blocks, < 2^NW, are ever used)
      wire [NW - 1 : 0] cnt = (K == 1) ? cnt1_reg : a0 ? N0 : jn - AN;

      aes_core #(.R(R), .ROM(ROM), .PRE(PRE)) ctr(.clk(clk), .ce(ce), .bnd(at_bnd), .chain(1'b0), .clr(1'b0),
                                       .din({8'h01, nonce, {(16 - NW){1'b0}}, cnt}), .rk0(key_reg), .rks(rks),
                                       .dout(ctr_dout[l]));

      assign tag_x[l + 1] = tag_x[l] ^ cbc_dout[l];
    end
  endgenerate

  //----------------------------------------------------------------
  // Decapsulation: the direction and received MIC (taken with the
  // descriptor) and the MIC check, one register written at the final
  // boundary: computed MIC ^ received MIC, OR-reduced.
  //----------------------------------------------------------------
  generate
    if (DEC != 0) begin : g_dec
      wire [63 : 0] mic_calc = tag_x[K][127 : 64] ^ ctr_dout[0][127 : 64];
      reg          dec_reg;
      reg          dec_new;
      reg [63 : 0] rmic_reg;
      reg [63 : 0] rmic_new;
      reg          pass_reg;
      reg          pass_new;
      reg          pass_we;
      always @*
        begin
          dec_new  = s_desc_dec;
          rmic_new = s_desc_mic;
          pass_new = !dec_reg || !(|(mic_calc ^ rmic_reg));
          pass_we  = go && final_b;
        end
      always @ (posedge clk)
        begin
          if (desc_we)
            begin
              dec_reg  <= dec_new;
              rmic_reg <= rmic_new;
            end
          if (pass_we)
            pass_reg <= pass_new;
        end
      assign dec_run = dec_reg;
      assign m_ok    = pass_reg;
    end
    else begin : g_nodec
      assign dec_run = 1'b0;
      assign m_ok    = 1'b1;
    end
  endgenerate

  //----------------------------------------------------------------
  // Sequencing.
  //----------------------------------------------------------------
  // n = ceil(len / 16) + A + 1 (used by K > 1) and n - 1, each one adder
  // from len (< 2^(NW + 4), see NW).
  localparam [NW + 3 : 0] NADD = 16 * (A + 1) + 15;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [NW + 3 : 0] n_sum  = s_desc_len[NW + 3 : 0] + NADD;
  wire [NW - 1 : 0] m1_sum = s_desc_len[NW + 3 : 4] + AN + {{(NW - 1){1'b0}}, (s_desc_len[3 : 0] != 4'd0)};
  /* verilator lint_on UNUSEDSIGNAL */
  // ((n - 1) mod K) + 1.
  /* verilator lint_off UNUSEDSIGNAL */
  wire [NW - 1 : 0] rp_first = ((n_reg - N1) & (KN - N1)) + N1;
  /* verilator lint_on UNUSEDSIGNAL */

  //----------------------------------------------------------------
  // reg_update: the control registers, asynchronously reset.
  //----------------------------------------------------------------
  always @ (posedge clk or negedge reset_n)
    begin : reg_update
      if (!reset_n)
        begin
          st_reg    <= ST_IDLE;
          n_reg     <= N0;
          nm1_reg   <= N0;
          ns_reg    <= N0;
          rp_reg    <= 8'd1;
          slot_reg  <= N0;
          cnt1_reg  <= N0;
          wend1_reg <= N0;
          pj_reg    <= N0;
          ocap1_reg <= N0;
          oj_reg    <= N0;
          cyc_reg   <= 4'd0;
          micv_reg  <= 1'b0;
          ok_reg    <= 1'b0;
          fin_reg   <= 1'b0;
          have_reg  <= 1'b0;
          done_reg  <= 1'b0;
          outv_reg  <= 1'b0;
          spay_reg  <= 1'b0;
          pay_reg   <= 1'b0;
        end
      else
        begin
          if (st_we)    st_reg    <= st_new;
          if (n_we)     n_reg     <= n_new;
          if (nm1_we)   nm1_reg   <= nm1_new;
          if (ns_we)    ns_reg    <= ns_new;
          if (rp_we)    rp_reg    <= rp_new;
          if (slot_we)  slot_reg  <= slot_new;
          if (cnt1_we)  cnt1_reg  <= cnt1_new;
          if (wend1_we) wend1_reg <= wend1_new;
          if (pj_we)    pj_reg    <= pj_new;
          if (ocap1_we) ocap1_reg <= ocap1_new;
          if (oj_we)    oj_reg    <= oj_new;
          if (cyc_we)   cyc_reg   <= cyc_new;
          if (micv_we)  micv_reg  <= micv_new;
          if (ok_we)    ok_reg    <= ok_new;
          if (fin_we)   fin_reg   <= fin_new;
          if (have_we)  have_reg  <= have_new;
          if (done_we)  done_reg  <= done_new;
          if (outv_we)  outv_reg  <= outv_new;
          if (spay_we)  spay_reg  <= spay_new;
          if (pay_we)   pay_reg   <= pay_new;
        end
    end

  //----------------------------------------------------------------
  // dp_reg_update: the datapath registers, not reset (nothing valid
  // depends on them before they are first written). Kept out of
  // reg_update on purpose: the K = 1 output register's (and with PRE
  // the stage's) octet clears map onto the flip-flops' synchronous
  // reset, which an iCE40 or ECP5 flip-flop cannot have beside an
  // asynchronous one. Everything in reg_update, reset, costs 177 iCE40
  // LUT4 on ccmp-k1-r1-logic (5034 instead of 4857). And registers
  // without a reset must not share a block with reset ones: simulation
  // would hold them during reset, where synthesis loads them.
  //----------------------------------------------------------------
  always @ (posedge clk)
    begin : dp_reg_update
      integer i;
      if (desc_we)
        begin
          key_reg  <= key_new;
          kidx_reg <= kidx_new;
          hdr_reg  <= hdr_new;
          pn_reg   <= pn_new;
          len_reg  <= len_new;
          spp_reg  <= spp_new;
        end
      for (i = 0 ; i < K ; i = i + 1)
        begin
          if (stage_we[i])
            stage_reg[128 * i +: 128] <= stage_new[128 * i +: 128];
          if (out_we[i])
            out_reg[128 * i +: 128] <= out_new[128 * i +: 128];
        end
      if (mic_we)
        mic_reg <= mic_new;
    end

  //----------------------------------------------------------------
  // desc_logic: a descriptor is taken in ST_IDLE.
  //----------------------------------------------------------------
  always @*
    begin : desc_logic
      key_new  = s_desc_key;
      kidx_new = s_desc_kidx;
      hdr_new  = s_desc_hdr;
      pn_new   = s_desc_pn;
      len_new  = s_desc_len;
      spp_new  = s_desc_spp;
      desc_we  = (st_reg == ST_IDLE) && s_desc_valid;
    end

  //----------------------------------------------------------------
  // ctrl_logic: the frame's state machine, slot and block counters.
  // A _new value is a don't-care (x) where its _we is not set: synthesis
  // then takes the write conditions from _we alone instead of building
  // them a second time into a mux tree for _new (with 0 defaults the
  // engine's own logic takes 755 iCE40 LUT4 instead of 699), and a 4-state
  // simulator shows x if a _we is ever set without its _new.
  //----------------------------------------------------------------
  always @*
    begin : ctrl_logic
      // Registers with one source: their next value, written or not.
      n_new     = n_sum[NW + 3 : 4];
      nm1_new   = m1_sum;
      ns_new    = (K == 1) ? n_reg : ((n_reg + KN - N1) >> LK) + N1;
      rp_new    = (K == 1) ? 8'd1 : rp_first[7 : 0];
      ok_new    = running && cond && !go;
      ok_we     = 1'b1;

      n_we      = 1'b0;
      nm1_we    = 1'b0;
      ns_we     = 1'b0;
      rp_we     = 1'b0;
      st_new    = 2'bxx;
      st_we     = 1'b0;
      slot_new  = {NW{1'bx}};
      slot_we   = 1'b0;
      cnt1_new  = {NW{1'bx}};
      cnt1_we   = 1'b0;
      wend1_new = {NW{1'bx}};
      wend1_we  = 1'b0;
      pj_new    = {NW{1'bx}};
      pj_we     = 1'b0;
      ocap1_new = {NW{1'bx}};
      ocap1_we  = 1'b0;
      oj_new    = {NW{1'bx}};
      oj_we     = 1'b0;
      cyc_new   = 4'bxxxx;
      cyc_we    = 1'b0;
      micv_new  = 1'bx;
      micv_we   = 1'b0;
      fin_new   = 1'bx;
      fin_we    = 1'b0;
      have_new  = 1'bx;
      have_we   = 1'b0;
      done_new  = 1'bx;
      done_we   = 1'b0;
      outv_new  = 1'bx;
      outv_we   = 1'b0;
      spay_new  = 1'bx;
      spay_we   = 1'b0;
      pay_new   = 1'bx;
      pay_we    = 1'b0;

      // The MIC beat is taken; the ciphertext beats count oj on.
      if (m_fire && micv_reg)
        begin
          micv_new = 1'b0;
          micv_we  = 1'b1;
        end
      if (m_fire_data)
        begin
          oj_new = oj_reg + N1;
          oj_we  = 1'b1;
        end
      // K = 1 flags (see have_reg): a boundary captures X_slot, a payload
      // block from slot A + 1 on.
      if (go && !final_b)
        begin
          outv_new = spay_reg;
          outv_we  = 1'b1;
        end
      else if (m_fire_data)
        begin
          outv_new = 1'b0;
          outv_we  = 1'b1;
        end

      case (st_reg)
        ST_IDLE:
          if (s_desc_valid)
            begin
              st_new = ST_SETUP;
              st_we  = 1'b1;
              n_we   = 1'b1;
              nm1_we = 1'b1;
            end

        ST_SETUP:
          begin
            st_new    = ST_RUN;
            st_we     = 1'b1;
            slot_new  = N0;
            slot_we   = 1'b1;
            cnt1_new  = (nm1_reg == N0) ? N0 : N1 - AN;
            cnt1_we   = 1'b1;
            fin_new   = 1'b0;
            fin_we    = 1'b1;
            spay_new  = 1'b0;
            spay_we   = 1'b1;
            pj_new    = N0;
            pj_we     = 1'b1;
            have_new  = 1'b0;
            have_we   = 1'b1;
            done_new  = 1'b0;
            done_we   = 1'b1;
            pay_new   = 1'b0;
            pay_we    = 1'b1;
            oj_new    = AN + N1;
            oj_we     = 1'b1;
            ocap1_new = N0;
            ocap1_we  = 1'b1;
            ns_we     = 1'b1;
            rp_we     = 1'b1;
            wend1_new = (K == 1) ? N1 : N0;
            wend1_we  = 1'b1;
          end

        default: // ST_RUN
          begin
            if (produce)
              begin
                pj_new = pj_reg + N1;
                pj_we  = 1'b1;
              end
            if (produce && !go)
              begin
                have_new = 1'b1;
                have_we  = 1'b1;
              end
            else if (go && !produce)
              begin
                have_new = 1'b0;
                have_we  = 1'b1;
              end
            if (produce && ptail)
              begin
                done_new = 1'b1;
                done_we  = 1'b1;
              end
            if (produce && pj_reg == AN)
              begin
                pay_new = 1'b1;
                pay_we  = 1'b1;
              end
            if (go)
              begin
                slot_new = slot_p1;
                slot_we  = 1'b1;
                if (slot_reg == nm1_reg)
                  begin
                    fin_new = 1'b1;
                    fin_we  = 1'b1;
                  end
                if (slot_reg == AN)
                  begin
                    spay_new = 1'b1;
                    spay_we  = 1'b1;
                  end
                // K = 1 (ns = n): the next slot is the last (slot + 2 == ns).
                cnt1_new  = (slot_p1 == nm1_reg) ? N0 : cnt1_reg + N1;
                cnt1_we   = 1'b1;
                wend1_new = wend1_next;
                wend1_we  = 1'b1;
                if (final_b)
                  begin
                    st_new   = ST_IDLE;
                    st_we    = 1'b1;
                    micv_new = 1'b1;
                    micv_we  = 1'b1;
                  end
                else
                  begin
                    ocap1_new = wend1_reg;
                    ocap1_we  = 1'b1;
                    if (C > 1)
                      begin
                        cyc_new = 4'd1;
                        cyc_we  = 1'b1;
                      end
                  end
              end
            else if (!at_bnd)
              begin
                cyc_new = (cyc_reg == C[3 : 0] - 4'd1) ? 4'd0 : cyc_reg + 4'd1;
                cyc_we  = 1'b1;
              end
          end
      endcase
    end

  //----------------------------------------------------------------
  // dp_logic: the stage and output registers of the lanes, the MIC.
  // K = 1: the output register is loaded where the block is captured
  // (X_{wend1-1}), its octets past len cleared, and takes the MIC at the
  // final boundary (drained by then), so m_data is the register itself.
  // The octet clears are written as a choice of zero, so that synthesis
  // maps them onto the flip-flops' synchronous reset (no mask LUTs).
  //----------------------------------------------------------------
  always @*
    begin : dp_logic
      integer i;
      integer b;
      reg [127 : 0] ct;
      reg [127 : 0] d;
      reg           zero;
      stage_new = {(128 * K){1'b0}};
      stage_we  = {K{1'b0}};
      out_new   = {(128 * K){1'b0}};
      out_we    = {K{1'b0}};
      for (i = 0 ; i < K ; i = i + 1)
        begin
          // Producer: X_j into stage lane j mod K. PRE only: the octets past
          // len of the last block are cleared here (synchronous reset);
          // elsewhere the mask stays in xblk, since on iCE40 the clear's
          // path from produce (s_valid and the 16-bit compares) to the
          // flip-flops' SR input set the clock (63.2 -> 52.4 MHz).
          stage_we[i] = produce && (pidx == i[LK - 1 : 0]);
          for (b = 0 ; b < 16 ; b = b + 1)
            stage_new[128 * i + 127 - 8 * b -: 8] =
              (PRE != 0 && ptail && (lastmask[127 - 8 * b] == 1'b0)) ? 8'h0 : xblk[127 - 8 * b -: 8];

          ct = stage_reg[128 * i +: 128] ^ ctr_dout[i];
          if (K == 1)
            begin
              out_we[i] = go;
              d = {final_b ? (tag_x[K][127 : 64] ^ ctr_dout[0][127 : 64]) : ct[127 : 64], ct[63 : 0]};
              for (b = 0 ; b < 16 ; b = b + 1)
                begin
                  zero = final_b ? (b >= 8) : (lastcap && (lastmask[127 - 8 * b] == 1'b0));
                  out_new[128 * i + 127 - 8 * b -: 8] = zero ? 8'h0 : d[127 - 8 * b -: 8];
                end
            end
          else
            begin
              out_we[i] = go && !final_b;
              out_new[128 * i +: 128] = ct;
            end
        end

      mic_new = tag_x[K][127 : 64] ^ ctr_dout[0][127 : 64];
      mic_we  = (K > 1) && go && final_b;
    end

  //----------------------------------------------------------------
  // Outputs.
  //----------------------------------------------------------------
  wire [LK - 1 : 0] oidx = (K == 1) ? {LK{1'b0}} : oj_reg[LK - 1 : 0];

  assign s_desc_ready = (st_reg == ST_IDLE);
  assign s_ready      = fill_ok && is_pay;
  assign m_valid      = micv_reg || ((K == 1) ? outv_reg : (oj_reg < ocap1_reg));
  assign m_tag        = micv_reg;
  // m_ok: g_dec (DEC = 0: 1).
  assign m_data       = (K == 1) ? out_reg[127 : 0] :
                        micv_reg ? {mic_reg, 64'h0} :
                        out_reg[128 * oidx +: 128] & ((oj_reg == nm1_reg) ? lastmask : {128{1'b1}});

endmodule // ccm_engine
`default_nettype wire
