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
//======================================================================
`timescale 1ns/1ps
`default_nettype none

module tb_ccm_engine;
  parameter MODE = 0;
  parameter K    = 1;
  parameter R    = 1;
  parameter ROM  = 0;
  localparam MAXF = 1100;
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
  reg  [4:0]   s_desc_kidx;
  reg          kt_we;
  reg  [8:0]   kt_addr;
  reg  [127:0] kt_data;

  ccm_engine #(.MODE(MODE), .K(K), .R(R), .ROM(ROM)) dut(
    .clk(clk), .reset_n(reset_n),
    .s_desc_valid(s_desc_valid), .s_desc_ready(s_desc_ready), .s_desc_key(s_desc_key),
    .s_desc_hdr(s_desc_hdr), .s_desc_pn(s_desc_pn), .s_desc_len(s_desc_len),
    .s_desc_spp(s_desc_spp), .s_desc_kidx(s_desc_kidx),
    .kt_we(kt_we), .kt_addr(kt_addr), .kt_data(kt_data),
    .s_valid(s_valid), .s_ready(s_ready), .s_data(s_data),
    .m_valid(m_valid), .m_ready(m_ready), .m_data(m_data), .m_tag(m_tag));

  reg [127:0] fkey [0:MAXF-1];
  reg [255:0] fhdr [0:MAXF-1];
  reg [47:0]  fpn  [0:MAXF-1];
  reg [15:0]  flen [0:MAXF-1];
  reg [7:0]   fflg [0:MAXF-1];
  reg [63:0]  fmic [0:MAXF-1];
  integer     fb0  [0:MAXF-1];
  reg [127:0] pblk [0:MAXB-1];
  reg [127:0] cblk [0:MAXB-1];
  integer     tdesc [0:MAXF-1];

  reg xin;
  integer nf, nb, fd, rc, f, j, nblk, nin, errors, stall, cycle;
  integer in_f, in_b, out_f, out_b, t1, bytes, t_end;
  integer kw, kf, kr, n_acc;
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

    errors = 0; bytes = 0; t1 = -1;
    s_desc_valid = 0; s_valid = 0; m_ready = 1;
    s_desc_key = 0; s_desc_hdr = 0; s_desc_pn = 0; s_desc_len = 0; s_desc_spp = 0; s_data = 0;
    s_desc_kidx = 0; kt_we = 0; kt_addr = 0; kt_data = 0; kw = (ROM == 3) ? 0 : nf; n_acc = 0;
    repeat (3) @(posedge clk);
    reset_n = 1'b1;
    in_f = 0; in_b = 0; out_f = 0; out_b = 0;
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
        while (in_f < nf) begin
          while (kw <= in_f) @(negedge clk);
          s_desc_valid = 1'b1;
          s_desc_kidx = in_f[4:0] & 5'd1;
          s_desc_key = fkey[in_f]; s_desc_hdr = fhdr[in_f]; s_desc_pn = fpn[in_f];
          s_desc_len = flen[in_f]; s_desc_spp = fflg[in_f][0];
          while (!s_desc_ready) @(negedge clk);
          tdesc[in_f] = cycle;
          n_acc = in_f + 1;
          @(negedge clk);
          s_desc_valid = 1'b0;
          in_b = 0;
          nin = blocks(flen[in_f]);
          while (in_b < nin) begin
            s_valid = !(stall && in_f >= 2) || ($random & 1);
            // Octets past the length are garbage: the engine must ignore them.
            s_data  = pblk[fb0[in_f] + in_b] |
                      ((in_b == nin - 1 && flen[in_f] % 16 != 0) ? ({128{1'b1}} >> (8 * (flen[in_f] % 16))) : 128'h0);
            #1; // let the other process set its inputs (ready may depend on them)
            xin = s_valid && s_ready;
            @(negedge clk);
            if (xin) in_b = in_b + 1;
          end
          s_valid = 1'b0;
          in_f = in_f + 1;
        end
      end
      begin : check
        while (out_f < nf) begin
          m_ready = !(stall && out_f >= 2) || ($random & 1);
          #1;
          if (m_valid && m_ready) begin
            nblk = blocks(flen[out_f]);
            if (out_b < nblk) begin
              if (m_tag !== 1'b0 || m_data !== cblk[fb0[out_f] + out_b]) begin
                errors = errors + 1;
                if (errors < 10)
                  $display("FAIL frame %0d block %0d: tag %b got %032x want %032x", out_f, out_b,
                           m_tag, m_data, cblk[fb0[out_f] + out_b]);
              end
              out_b = out_b + 1;
            end
            else begin
              if (m_tag !== 1'b1 || m_data !== {fmic[out_f], 64'h0}) begin
                errors = errors + 1;
                if (errors < 10)
                  $display("FAIL frame %0d MIC: tag %b got %016x want %016x", out_f, m_tag,
                           m_data[127:64], fmic[out_f]);
              end
              if (out_f == 1) t1 = cycle - tdesc[1] + 1;
              bytes = bytes + flen[out_f];
              out_f = out_f + 1;
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
    if (errors == 0) $display("PASS tb_ccm_engine MODE=%0d K=%0d R=%0d ROM=%0d: %0d frames bit-exact", MODE, K, R, ROM, nf);
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
