//======================================================================
// tb_ccm_engine.v
// Self-checking testbench of ccm_engine (parameters MODE, K, R, ROM),
// driven by a `wsec hw-vectors` file (+vec=FILE): every ciphertext block
// and every MIC must equal the software's. Frames 0 and 1 run at full
// speed (frame 1, a 1500-octet body, is timed); from frame 2 on, with
// +stall, the payload input has random gaps and the output random
// backpressure. Prints the cycles of frame 1 (descriptor accepted to MIC
// beat) and the totals. ROM = 3 (key table): the bench is the host, it
// expands each frame's key (FIPS-197 5.2, its own code) into slot f mod 2
// of the table, once the frame two before has left the engine.
//
// DEC = 1 (the engine's runtime direction): every vector frame runs three
// times, as frames of the engine in this order: decapsulated (its
// ciphertext and MIC in, its plaintext and m_ok = 1 out), encapsulated (as
// with DEC = 0; the descriptor's received MIC is garbage, m_ok = 1), and
// decapsulated again with one bit flipped, chosen pseudo-randomly in a
// ciphertext octet within len, the MIC, an address octet of the header
// (A1, A2, A3) or the PN: m_ok must be 0 (every such frame is counted).
// Where the flip leaves the nonce alone (ciphertext, MIC, A1, A3) the
// plaintext is still checked (with the flipped bit, for the ciphertext),
// and the computed MIC must be the vector's exactly when the flip was in
// the received MIC. Frame 1's cycles are printed for both directions.
//======================================================================
`timescale 1ns/1ps
`default_nettype none

module tb_ccm_engine;
  parameter MODE = 0;
  parameter K    = 1;
  parameter R    = 1;
  parameter ROM  = 0;
  parameter DEC  = 0;
  localparam MAXF = 1100;
  localparam MAXJ = (DEC != 0) ? 3 * MAXF : MAXF;   // engine frames
  localparam MAXB = 1100 * 146;

  reg clk = 1'b0;
  reg reset_n = 1'b0;
  always #5 clk = ~clk;

  reg          s_desc_valid;
  wire         s_desc_ready;
  reg  [127:0] s_desc_key;
  reg  [255:0] s_desc_hdr;
  reg  [47:0]  s_desc_pn;
  reg  [15:0]  s_desc_len;
  reg          s_desc_spp;
  reg          s_valid;
  wire         s_ready;
  reg  [127:0] s_data;
  wire         m_valid;
  reg          m_ready;
  wire [127:0] m_data;
  wire         m_tag;
  wire         m_ok;
  reg          s_desc_dec;
  reg  [63:0]  s_desc_mic;
  reg  [4:0]   s_desc_kidx;
  reg          kt_we;
  reg  [8:0]   kt_addr;
  reg  [127:0] kt_data;

  ccm_engine #(.MODE(MODE), .K(K), .R(R), .ROM(ROM), .DEC(DEC)) dut(
    .clk(clk), .reset_n(reset_n),
    .s_desc_valid(s_desc_valid), .s_desc_ready(s_desc_ready), .s_desc_key(s_desc_key),
    .s_desc_hdr(s_desc_hdr), .s_desc_pn(s_desc_pn), .s_desc_len(s_desc_len),
    .s_desc_spp(s_desc_spp), .s_desc_dec(s_desc_dec), .s_desc_mic(s_desc_mic), .s_desc_kidx(s_desc_kidx),
    .kt_we(kt_we), .kt_addr(kt_addr), .kt_data(kt_data),
    .s_valid(s_valid), .s_ready(s_ready), .s_data(s_data),
    .m_valid(m_valid), .m_ready(m_ready), .m_data(m_data), .m_tag(m_tag), .m_ok(m_ok));

  reg [127:0] fkey [0:MAXF-1];
  reg [255:0] fhdr [0:MAXF-1];
  reg [47:0]  fpn  [0:MAXF-1];
  reg [15:0]  flen [0:MAXF-1];
  reg [7:0]   fflg [0:MAXF-1];
  reg [63:0]  fmic [0:MAXF-1];
  integer     fb0  [0:MAXF-1];
  reg [127:0] pblk [0:MAXB-1];
  reg [127:0] cblk [0:MAXB-1];
  integer     tdesc [0:MAXJ-1];
  // DEC = 1: frame f's tamper (XOR masks; tblk the ciphertext block, or -1;
  // tpred: the plaintext is still predictable, the nonce untouched).
  reg [255:0] thdr [0:MAXF-1];
  reg [47:0]  tpn  [0:MAXF-1];
  reg [63:0]  tmic [0:MAXF-1];
  integer     tblk [0:MAXF-1];
  reg [127:0] tbm  [0:MAXF-1];
  reg         tpred [0:MAXF-1];

  reg xin;
  integer nf, nb, fd, rc, f, j, nblk, nin, errors, stall, cycle;
  integer in_f, in_b, out_f, out_b, t1, bytes, t_end;
  integer kw, kf, kr, n_acc;
  integer nj, in_j, out_j, fi, ki, fo, ko, t1d, ntamp, nrej, tcat, toct, tbit;
  reg [31:0] tseed;
  reg [127:0] want;
  reg [127:0] rk;
  reg [31:0] cnt;
  reg [127:0] a, b;
  reg [255:0] h;
  reg [47:0] pn;
  reg [15:0] len;
  reg [7:0] flg;
  reg [63:0] mic;
  reg [8*256-1:0] vec;

  always @(posedge clk) cycle <= cycle + 1;

  // FIPS-197 5.2, one step: round key j from round key j - 1.
`include "aes_ref.vh"
  reg [7:0] sbt [0:255];   // ref_sbox, tabulated once
  function [7:0] sbox;
    input [7:0] x;
    sbox = sbt[x];
  endfunction
  function [127:0] next_rk;
    input [127:0] w;
    input [7:0] rcon;
    reg [31:0] t, n0, n1, n2, n3;
    begin
      t  = {sbox(w[23:16]) ^ rcon, sbox(w[15:8]), sbox(w[7:0]), sbox(w[31:24])};
      n0 = w[127:96] ^ t;
      n1 = w[95:64] ^ n0;
      n2 = w[63:32] ^ n1;
      n3 = w[31:0] ^ n2;
      next_rk = {n0, n1, n2, n3};
    end
  endfunction

  // DEC = 1: engine frame j is vector frame j / 3, kind j % 3 (0 decapsulate,
  // 1 encapsulate, 2 decapsulate tampered); DEC = 0: frame j, encapsulated.
  function integer jframe;
    input integer jj;
    jframe = (DEC != 0) ? jj / 3 : jj;
  endfunction
  function integer jkind;
    input integer jj;
    jkind = (DEC != 0) ? jj % 3 : 1;
  endfunction
  // The tamper's pseudo-random numbers (an LCG of the bench's own, fixed seed).
  function [31:0] lcg;
    input [31:0] x;
    lcg = x * 32'd1103515245 + 32'd12345;
  endfunction

  function integer blocks;
    input [15:0] l;
    begin
      blocks = (l + 15) / 16;
    end
  endfunction

  initial begin
    cycle = 0;
    for (kr = 0; kr < 256; kr = kr + 1) sbt[kr] = ref_sbox(kr[7:0]);
    if (!$value$plusargs("vec=%s", vec)) begin $display("FAIL no +vec=FILE"); $finish; end
    stall = $test$plusargs("stall");
    fd = $fopen(vec, "r");
    if (fd == 0) begin $display("FAIL cannot open %0s", vec); $finish; end
    rc = $fscanf(fd, "%h", cnt);
    nf = 0; nb = 0;
    for (f = 0; f < cnt && f < MAXF; f = f + 1) begin
      rc = $fscanf(fd, "%h %h %h %h %h", a, h, pn, len, flg);
      fkey[f] = a; fhdr[f] = h; fpn[f] = pn; flen[f] = len; fflg[f] = flg; fb0[f] = nb;
      nblk = blocks(len);
      for (j = 0; j < nblk; j = j + 1) begin
        rc = $fscanf(fd, "%h %h", a, b);
        pblk[nb] = a; cblk[nb] = b; nb = nb + 1;
      end
      rc = $fscanf(fd, "%h", mic);
      fmic[f] = mic;
      nf = nf + 1;
    end
    $fclose(fd);

    nj = (DEC != 0) ? 3 * nf : nf;
    tseed = 32'h5eed0034;
    for (f = 0; f < nf && DEC != 0; f = f + 1) begin
      thdr[f] = 0; tpn[f] = 0; tmic[f] = 0; tblk[f] = -1; tbm[f] = 0; tpred[f] = 1'b1;
      tseed = lcg(tseed); tcat = tseed[31:16] % 4;
      if (tcat == 0 && flen[f] == 0) tcat = 1;
      tseed = lcg(tseed);
      case (tcat)
        0: begin   // a ciphertext bit within len
          tbit = tseed[31:8] % (8 * flen[f]);
          tblk[f] = tbit / 128; tbm[f] = 128'h1 << (127 - tbit % 128);
        end
        1: tmic[f] = 64'h1 << (tseed[31:16] % 64);
        2: begin   // an address octet: CCMP A1, A2, A3 (A2 is in the nonce); 802.16e the GMH
          toct = (MODE == 0) ? 4 + tseed[31:16] % 18 : tseed[31:16] % 5;
          thdr[f] = 256'h1 << (255 - 8 * toct - tseed[10:8]);
          tpred[f] = (MODE == 0) && !(toct >= 10 && toct < 16);
        end
        default: begin
          tpn[f] = 48'h1 << (tseed[31:16] % ((MODE == 0) ? 48 : 32));
          tpred[f] = 1'b0;
        end
      endcase
    end

    errors = 0; bytes = 0; t1 = -1; t1d = -1; ntamp = 0; nrej = 0;
    s_desc_valid = 0; s_valid = 0; m_ready = 1; s_desc_dec = 0; s_desc_mic = 0;
    s_desc_key = 0; s_desc_hdr = 0; s_desc_pn = 0; s_desc_len = 0; s_desc_spp = 0; s_data = 0;
    s_desc_kidx = 0; kt_we = 0; kt_addr = 0; kt_data = 0; kw = (ROM == 3) ? 0 : nf; n_acc = 0;
    repeat (3) @(posedge clk);
    reset_n = 1'b1;
    in_f = 0; in_b = 0; out_f = 0; out_b = 0; in_j = 0; out_j = 0;
    // The bench changes its inputs and samples handshakes at the falling
    // edge; the engine samples at the rising edge: no race either way.
    @(negedge clk);
    fork
      begin : keys
        // ROM = 3: slot f mod 2 is free once descriptor f - 1 is accepted
        // (the engine takes a descriptor only when the frame before is done).
        for (kf = 0; kf < nf && ROM == 3; kf = kf + 1) begin
          while (n_acc < kf) @(negedge clk);
          rk = fkey[kf];
          for (kr = 1; kr <= 10; kr = kr + 1) begin
            rk = next_rk(rk, (kr <= 8) ? (8'h01 << (kr - 1)) : (kr == 9) ? 8'h1b : 8'h36);
            kt_we = 1'b1; kt_addr = {kf[4:0] & 5'd1, kr[3:0]}; kt_data = rk;
            @(negedge clk);
          end
          kt_we = 1'b0;
          kw = kf + 1;
        end
      end
      begin : feed
        while (in_j < nj) begin
          fi = jframe(in_j); ki = jkind(in_j);
          in_f = fi;
          while (kw <= fi) @(negedge clk);
          s_desc_valid = 1'b1;
          s_desc_kidx = fi[4:0] & 5'd1;
          s_desc_key = fkey[fi]; s_desc_hdr = fhdr[fi] ^ ((ki == 2) ? thdr[fi] : 256'h0);
          s_desc_pn = fpn[fi] ^ ((ki == 2) ? tpn[fi] : 48'h0);
          s_desc_len = flen[fi]; s_desc_spp = fflg[fi][0];
          // Encapsulation must ignore the received MIC: give it a wrong one.
          s_desc_dec = (ki != 1);
          s_desc_mic = (ki == 1) ? ~fmic[fi] : fmic[fi] ^ ((ki == 2) ? tmic[fi] : 64'h0);
          while (!s_desc_ready) @(negedge clk);
          tdesc[in_j] = cycle;
          if (jkind(in_j) == ((DEC != 0) ? 0 : 1)) n_acc = fi + 1;
          @(negedge clk);
          s_desc_valid = 1'b0;
          in_b = 0;
          nin = blocks(flen[fi]);
          while (in_b < nin) begin
            s_valid = !(stall && fi >= 2) || ($random & 1);
            // Octets past the length are garbage: the engine must ignore them.
            s_data  = ((ki == 1) ? pblk[fb0[fi] + in_b] :
                       cblk[fb0[fi] + in_b] ^ ((ki == 2 && in_b == tblk[fi]) ? tbm[fi] : 128'h0)) |
                      ((in_b == nin - 1 && flen[fi] % 16 != 0) ? ({128{1'b1}} >> (8 * (flen[fi] % 16))) : 128'h0);
            #1; // let the other process set its inputs (ready may depend on them)
            xin = s_valid && s_ready;
            @(negedge clk);
            if (xin) in_b = in_b + 1;
          end
          s_valid = 1'b0;
          in_j = in_j + 1;
          in_f = jframe(in_j);
        end
      end
      begin : check
        while (out_j < nj) begin
          fo = jframe(out_j); ko = jkind(out_j);
          out_f = fo;
          m_ready = !(stall && fo >= 2) || ($random & 1);
          #1;
          if (m_valid && m_ready) begin
            nblk = blocks(flen[fo]);
            if (out_b < nblk) begin
              want = (ko == 1) ? cblk[fb0[fo] + out_b] :
                     pblk[fb0[fo] + out_b] ^ ((ko == 2 && out_b == tblk[fo]) ? tbm[fo] : 128'h0);
              if (m_tag !== 1'b0 || ((ko != 2 || tpred[fo]) && m_data !== want)) begin
                errors = errors + 1;
                if (errors < 10)
                  $display("FAIL frame %0d (%0s) block %0d: tag %b got %032x want %032x", fo,
                           (ko == 1) ? "enc" : (ko == 0) ? "dec" : "dec tampered", out_b, m_tag, m_data, want);
              end
              out_b = out_b + 1;
            end
            else begin
              if (ko == 2) begin
                ntamp = ntamp + 1;
                if (m_ok === 1'b0) nrej = nrej + 1;
              end
              if (m_tag !== 1'b1 || m_data[63:0] !== 64'h0 ||
                  (ko != 2 && (m_data[127:64] !== fmic[fo] || m_ok !== 1'b1)) ||
                  (ko == 2 && (m_ok !== 1'b0 || ((tmic[fo] != 0) ? (m_data[127:64] !== fmic[fo])
                                                                  : (m_data[127:64] === fmic[fo]))))) begin
                errors = errors + 1;
                if (errors < 10)
                  $display("FAIL frame %0d (%0s) MIC: tag %b ok %b got %016x vector %016x", fo,
                           (ko == 1) ? "enc" : (ko == 0) ? "dec" : "dec tampered", m_tag, m_ok,
                           m_data[127:64], fmic[fo]);
              end
              if (fo == 1 && ko == 1) t1 = cycle - tdesc[out_j] + 1;
              if (fo == 1 && ko == 0) t1d = cycle - tdesc[out_j] + 1;
              bytes = bytes + flen[fo];
              out_j = out_j + 1;
              out_f = jframe(out_j);
              out_b = 0;
            end
          end
          @(negedge clk);
        end
        t_end = cycle;
      end
    join
    $display("INFO MODE=%0d K=%0d R=%0d ROM=%0d frames=%0d cycles_frame_1500=%0d total_cycles=%0d payload_bytes=%0d stall=%0d",
             MODE, K, R, ROM, nf, t1, t_end, bytes, stall);
    if (DEC != 0) begin
      $display("INFO DEC=%0d engine_frames=%0d cycles_frame_1500_dec=%0d tampered=%0d rejected=%0d",
               DEC, nj, t1d, ntamp, nrej);
      if (errors == 0 && ntamp == nf && nrej == ntamp)
        $display("PASS tb_ccm_engine MODE=%0d K=%0d R=%0d ROM=%0d DEC=1: %0d frames bit-exact encapsulated and decapsulated, %0d of %0d tampered frames rejected",
                 MODE, K, R, ROM, nf, nrej, ntamp);
      else $display("FAIL tb_ccm_engine MODE=%0d K=%0d R=%0d ROM=%0d DEC=1: %0d errors, %0d of %0d tampered frames rejected",
                    MODE, K, R, ROM, errors, nrej, ntamp);
    end
    else if (errors == 0) $display("PASS tb_ccm_engine MODE=%0d K=%0d R=%0d ROM=%0d: %0d frames bit-exact", MODE, K, R, ROM, nf);
    else $display("FAIL tb_ccm_engine MODE=%0d K=%0d R=%0d ROM=%0d: %0d errors", MODE, K, R, ROM, errors);
    $finish;
  end

  initial begin
    repeat (50000000) @(posedge clk);
    $display("FAIL tb_ccm_engine: timeout (frame in %0d, out %0d)", in_f, out_f);
    $finish;
  end

endmodule
`default_nettype wire
