//======================================================================
// tb_aes_key_sched.v
// Self-checking testbench of aes_key_sched (parameters R, KROM): every
// round key it delivers, in the cycle it must deliver it, against
// - the key expansion of FIPS-197 Appendix A.1 (cipher key
//   2b7e1516 28aed2a6 abf71588 09cf4f3c, words w4 .. w43) and the round
//   keys of Appendix C.1 (key 000102..0f, round[ 1..10].k_sch), written
//   out here from the standard;
// - 60 random keys expanded by the bench's own FIPS-197 5.2 code (its
//   S-box from the definition, aes_ref.vh, not from the RTL).
// aes_key_sched is AES-128 only (CCMP's key size), so Appendix A.2/A.3
// (AES-192/256) do not apply.
//
// The bench drives the schedule as ccm_engine and aes_block do: C = 10 / R
// cycles per block, cidx = C with bnd = 1 in the boundary cycle, then
// cidx = 1 .. C - 1; nb = 1 in the cycle before a boundary, the next key
// on `key` from that cycle on (KROM reads it a cycle early); a new key at
// every boundary; from the third key on a random number of stall cycles
// (ce = 0) at the boundary, during which rks must hold; and once clr,
// which must clear rks. In cycle cidx the round keys R*(cidx-1)+1 ..
// R*cidx must be on rks (the first in bits [127:0]).
//======================================================================
`timescale 1ns/1ps
`default_nettype none

module tb_aes_key_sched;
  parameter R    = 1;
  parameter KROM = 0;
  localparam C     = 10 / R;
  localparam NRAND = 60;
  localparam NKEY  = 4 + NRAND;

  reg                    clk = 1'b0;
  reg                    ce, bnd, clr, nb;
  reg  [3 : 0]           cidx;
  reg  [127 : 0]         key;
  wire [R * 128 - 1 : 0] rks;

  aes_key_sched #(.R(R), .KROM(KROM)) dut(.clk(clk), .ce(ce), .bnd(bnd), .clr(clr), .nb(nb),
                                          .cidx(cidx), .key(key), .rks(rks));

`include "aes_ref.vh"

  // FIPS-197 Appendix A.1: w[0] .. w[43].
  reg [31 : 0] a1w [0 : 43];
  // FIPS-197 Appendix C.1: round[0] .. round[10].k_sch.
  reg [127 : 0] c1k [0 : 10];
  // Round keys 0 .. 10 of every key the bench runs.
  reg [127 : 0] rk  [0 : NKEY - 1][0 : 10];
  reg [127 : 0] keys [0 : NKEY - 1];
  reg [7 : 0]   sbt [0 : 255];

  integer i, k, c, s, n, errors, checks, stalls;
  reg [127 : 0] held;

  // FIPS-197 5.2, one step: round key j from round key j - 1.
  function [127 : 0] next_rk;
    input [127 : 0] w;
    input [7 : 0]   rcon;
    reg [31 : 0] t, n0, n1, n2, n3;
    begin
      t  = {sbt[w[23 : 16]] ^ rcon, sbt[w[15 : 8]], sbt[w[7 : 0]], sbt[w[31 : 24]]};
      n0 = w[127 : 96] ^ t;
      n1 = w[95 : 64] ^ n0;
      n2 = w[63 : 32] ^ n1;
      n3 = w[31 : 0] ^ n2;
      next_rk = {n0, n1, n2, n3};
    end
  endfunction

  function [7 : 0] rcon_of;   // FIPS-197 5.2: x^(j-1) in GF(2^8)
    input integer j;
    integer q;
    begin
      rcon_of = 8'h01;
      for (q = 1 ; q < j ; q = q + 1)
        rcon_of = gmul(rcon_of, 8'h02);
    end
  endfunction

  task tick;
    begin
      #5 clk = 1'b1;
      #5 clk = 1'b0;
    end
  endtask

  // After the clock edge of cycle cidx = cyc: rks must hold round keys
  // R*(cyc-1)+1 .. R*cyc of key kk.
  task expect_keys;
    input integer kk;
    input integer cyc;
    integer q;
    begin
      for (q = 0 ; q < R ; q = q + 1)
        begin
          checks = checks + 1;
          if (rks[128 * q +: 128] !== rk[kk][R * (cyc - 1) + 1 + q])
            begin
              errors = errors + 1;
              if (errors < 10)
                $display("FAIL key %0d round key %0d: got %032x want %032x", kk,
                         R * (cyc - 1) + 1 + q, rks[128 * q +: 128], rk[kk][R * (cyc - 1) + 1 + q]);
            end
        end
    end
  endtask

  initial begin
    a1w[0]  = 32'h2b7e1516; a1w[1]  = 32'h28aed2a6; a1w[2]  = 32'habf71588; a1w[3]  = 32'h09cf4f3c;
    a1w[4]  = 32'ha0fafe17; a1w[5]  = 32'h88542cb1; a1w[6]  = 32'h23a33939; a1w[7]  = 32'h2a6c7605;
    a1w[8]  = 32'hf2c295f2; a1w[9]  = 32'h7a96b943; a1w[10] = 32'h5935807a; a1w[11] = 32'h7359f67f;
    a1w[12] = 32'h3d80477d; a1w[13] = 32'h4716fe3e; a1w[14] = 32'h1e237e44; a1w[15] = 32'h6d7a883b;
    a1w[16] = 32'hef44a541; a1w[17] = 32'ha8525b7f; a1w[18] = 32'hb671253b; a1w[19] = 32'hdb0bad00;
    a1w[20] = 32'hd4d1c6f8; a1w[21] = 32'h7c839d87; a1w[22] = 32'hcaf2b8bc; a1w[23] = 32'h11f915bc;
    a1w[24] = 32'h6d88a37a; a1w[25] = 32'h110b3efd; a1w[26] = 32'hdbf98641; a1w[27] = 32'hca0093fd;
    a1w[28] = 32'h4e54f70e; a1w[29] = 32'h5f5fc9f3; a1w[30] = 32'h84a64fb2; a1w[31] = 32'h4ea6dc4f;
    a1w[32] = 32'head27321; a1w[33] = 32'hb58dbad2; a1w[34] = 32'h312bf560; a1w[35] = 32'h7f8d292f;
    a1w[36] = 32'hac7766f3; a1w[37] = 32'h19fadc21; a1w[38] = 32'h28d12941; a1w[39] = 32'h575c006e;
    a1w[40] = 32'hd014f9a8; a1w[41] = 32'hc9ee2589; a1w[42] = 32'he13f0cc8; a1w[43] = 32'hb6630ca6;
    c1k[0]  = 128'h000102030405060708090a0b0c0d0e0f;
    c1k[1]  = 128'hd6aa74fdd2af72fadaa678f1d6ab76fe;
    c1k[2]  = 128'hb692cf0b643dbdf1be9bc5006830b3fe;
    c1k[3]  = 128'hb6ff744ed2c2c9bf6c590cbf0469bf41;
    c1k[4]  = 128'h47f7f7bc95353e03f96c32bcfd058dfd;
    c1k[5]  = 128'h3caaa3e8a99f9deb50f3af57adf622aa;
    c1k[6]  = 128'h5e390f7df7a69296a7553dc10aa31f6b;
    c1k[7]  = 128'h14f9701ae35fe28c440adf4d4ea9c026;
    c1k[8]  = 128'h47438735a41c65b9e016baf4aebf7ad2;
    c1k[9]  = 128'h549932d1f08557681093ed9cbe2c974e;
    c1k[10] = 128'h13111d7fe3944a17f307a78b4d2b30c5;

    // Keys 0 .. 3: A.1, C.1, A.1 again, C.1 again (a switch between the
    // two at every boundary); then random keys, their round keys from the
    // bench's own expansion.
    for (i = 0 ; i < 256 ; i = i + 1)
      sbt[i] = ref_sbox(i[7 : 0]);
    for (k = 0 ; k < NKEY ; k = k + 1)
      begin
        if (k < 4)
          for (i = 0 ; i <= 10 ; i = i + 1)
            rk[k][i] = (k % 2 == 0) ? {a1w[4 * i], a1w[4 * i + 1], a1w[4 * i + 2], a1w[4 * i + 3]} : c1k[i];
        else
          begin
            rk[k][0] = {$random, $random, $random, $random};
            for (i = 1 ; i <= 10 ; i = i + 1)
              rk[k][i] = next_rk(rk[k][i - 1], rcon_of(i));
          end
        keys[k] = rk[k][0];
      end

    errors = 0; checks = 0; stalls = 0;
    ce = 1'b0; bnd = 1'b1; clr = 1'b0; nb = 1'b1; cidx = C[3 : 0]; key = keys[0];
    // Idle before the first boundary, as the engine between frames.
    tick; tick;
    for (k = 0 ; k < NKEY ; k = k + 1)
      begin
        // Boundary cycle(s): key k enters. From key 2 on, stall 0-3 cycles
        // first (ce = 0, nb = 1): rks must hold the last round keys.
        bnd = 1'b1; cidx = C[3 : 0]; nb = 1'b1; key = keys[k];
        if (k >= 2)
          begin
            held = rks[127 : 0];
            s = $random & 3;
            for (n = 0 ; n < s ; n = n + 1)
              begin
                ce = 1'b0;
                tick;
                stalls = stalls + 1;
                checks = checks + 1;
                if (rks[127 : 0] !== held)
                  begin
                    errors = errors + 1;
                    if (errors < 10)
                      $display("FAIL key %0d: rks changed in a stall cycle", k);
                  end
              end
          end
        // The boundary: the next cycle (cidx 1) has the first R round keys.
        ce = 1'b1;
        nb = (C == 1);
        tick;
        expect_keys(k, 1);
        // Cycles cidx = 1 .. C - 1; in the last, nb = 1 and the next key
        // already on `key`.
        for (c = 1 ; c < C ; c = c + 1)
          begin
            bnd = 1'b0; cidx = c[3 : 0];
            nb = (c == C - 1);
            if (c == C - 1 && k + 1 < NKEY)
              key = keys[k + 1];
            tick;
            expect_keys(k, c + 1);
          end
        // Once, after key 1: clr (as ccm_engine's ST_SETUP with ce = 0)
        // clears the round keys.
        if (k == 1)
          begin
            bnd = 1'b1; cidx = C[3 : 0]; nb = 1'b1; ce = 1'b0; clr = 1'b1; key = keys[k + 1];
            tick;
            clr = 1'b0;
            checks = checks + 1;
            if (rks !== {(R * 128){1'b0}})
              begin
                errors = errors + 1;
                $display("FAIL clr did not clear the round keys: %0x", rks);
              end
          end
      end

    if (errors == 0)
      $display("PASS tb_aes_key_sched R=%0d KROM=%0d: %0d checks, %0d keys (FIPS-197 A.1 and C.1 twice each, %0d random), %0d stall cycles",
               R, KROM, checks, NKEY, NRAND, stalls);
    else
      begin
        $display("FAIL tb_aes_key_sched R=%0d KROM=%0d: %0d errors in %0d checks", R, KROM, errors, checks);
        $fatal(1, "tb_aes_key_sched failed");
      end
    $finish;
  end

endmodule
`default_nettype wire
