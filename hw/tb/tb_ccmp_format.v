//======================================================================
// tb_ccmp_format.v
// Self-checking testbench of ccmp_format: the CCM nonce (IEEE 802.11-2020
// 12.5.3.3.4) and the AAD blocks X1, X2 (12.5.3.3.3; CCM's B1.. =
// 2-octet length || AAD, zero padded) of
// - the IEEE 802.11 CCMP test vector (802.11-2012 M.6.4, J.6.4 in the
//   2016+ lettering; P802.11i/D7.0 CCMP test MPDU 1);
// - P802.11i/D7.0 CCMP test MPDUs 2-8, with the AAD of the current rule
//   (Order masked in QoS Data frames; for MPDUs 3, 4, 5, 8 the AAD of the
//   current rule is not published, it is the D7.0 AAD with FC b15 = 0);
// - the 802.11-2012 M.9.2 unicast Deauthentication frame (management:
//   nonce flag b4, FC subtype kept);
// - a ToDS data frame captured by aircrack-ng (test-decrypt-ccmp.c);
// - hand-built frames for what no published vector has: four addresses
//   (QoS and not), SPP A-MSDU (A-MSDU Present kept in the QoS Control),
//   MoreFrag kept and Retry/PwrMgt/MoreData masked, Order kept in a
//   non-QoS frame. Their AAD is written out from the rules of 12.5.3.3.3.
// The published values are copied from /work/shared/vectors.md (sections
// 1.1-1.4), not produced by the RTL. Every frame runs twice: with the
// octets of the 32-octet window past its header as in the MPDU (or zero),
// and with them and the Duration field random (both must be ignored).
// hdr octet i is hdr[255 - 8i -: 8] (Frame Control first), as ccm_engine
// passes it.
//======================================================================
`timescale 1ns/1ps
`default_nettype none

module tb_ccmp_format;
  localparam NV = 16;

  reg  [255 : 0] hdr;
  reg  [47 : 0]  pn;
  reg            spp;
  wire [103 : 0] nonce;
  wire [127 : 0] x1;
  wire [127 : 0] x2;

  ccmp_format dut(.hdr(hdr), .pn(pn), .spp(spp), .nonce(nonce), .x1(x1), .x2(x2));

  // Vector v: the first 32 octets of the MPDU (header left-aligned), the
  // header length in octets, PN, SPP, the expected AAD (left-aligned, alen
  // octets) and nonce.
  reg [255 : 0]  vhdr  [0 : NV - 1];
  integer        vhlen [0 : NV - 1];
  reg [47 : 0]   vpn   [0 : NV - 1];
  reg            vspp  [0 : NV - 1];
  reg [239 : 0]  vaad  [0 : NV - 1];
  integer        valen [0 : NV - 1];
  reg [103 : 0]  vnon  [0 : NV - 1];
  reg [8*40-1:0] vname [0 : NV - 1];

  integer v, pass, o, errors, checks, nv;
  reg [255 : 0] want;
  reg [255 : 0] h;

  task add;
    input [8*40-1:0] name;
    input [255 : 0]  mpdu;   // left-aligned
    input integer    hlen;
    input [47 : 0]   p;
    input            sp;
    input [239 : 0]  aad;    // left-aligned
    input integer    alen;
    input [103 : 0]  n;
    begin
      vname[nv] = name; vhdr[nv] = mpdu; vhlen[nv] = hlen; vpn[nv] = p; vspp[nv] = sp;
      vaad[nv] = aad; valen[nv] = alen; vnon[nv] = n;
      nv = nv + 1;
    end
  endtask

  task check;
    input [8*16-1:0] what;
    input [127 : 0]  got;
    input [127 : 0]  exp;
    begin
      checks = checks + 1;
      if (got !== exp)
        begin
          errors = errors + 1;
          $display("FAIL %0s (pass %0d) %0s: got %032x want %032x", vname[v], pass, what, got, exp);
        end
    end
  endtask

  initial begin
    nv = 0;
    // 1.1: IEEE 802.11 M.6.4 / J.6.4 (= D7.0 CCMP test MPDU 1). The octets
    // after the 24-octet header are the CCMP header of the protected MPDU.
    add("J.6.4 (D7.0 MPDU 1)",
        {192'h0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033, 64'h0ce70020769703b5}, 24,
        48'hb5039776e70c, 1'b0,
        {176'h08400fd2e128a57c5030f1844408abaea5b8fcba0000, 64'h0}, 22,
        104'h005030f1844408b5039776e70c);
    // 1.2: D7.0 MPDUs 2-8 (their CCMP headers after the MAC header).
    add("D7.0 MPDU 2",
        {192'h38c06a51ea100c846850eec1762c88deaf2ee9f46a07e0cc, 64'hea9700a0bacbf331}, 24,
        48'h31f3cbba97ea, 1'b0,
        {176'h08c0ea100c846850eec1762c88deaf2ee9f46a070000, 64'h0}, 22,
        104'h00eec1762c88de31f3cbba97ea);
    add("D7.0 MPDU 3 (current rule)",
        {208'hb8c8dc61d9577df763c8b6a88adf3691dc4a8bca94dd60822085, 48'haea500a0f3a0}, 26,
        48'h2fdca0f3a5ae, 1'b0,
        {192'h8840d9577df763c8b6a88adf3691dc4a8bca94dd00000000, 48'h0}, 24,
        104'h00b6a88adf36912fdca0f3a5ae);
    add("D7.0 MPDU 4 (current rule)",
        {208'ha8ca3a11712a9ddf11db8ef82273470159140dd646a2c02f67a5, 48'he30f00205aa5}, 26,
        48'hf670a55a0fe3, 1'b0,
        {192'h8842712a9ddf11db8ef82273470159140dd646a200000700, 48'h0}, 24,
        104'h078ef822734701f670a55a0fe3);
    add("D7.0 MPDU 5 (current rule)",
        {208'h88da184145dec69a7480f351946bc96be276fbe6c12780f24b19, 48'h370e00a03ce0}, 26,
        48'ha7ffe03c0e37, 1'b0,
        {192'h884245dec69a7480f351946bc96be276fbe6c12700000b00, 48'h0}, 24,
        104'h0bf351946bc96ba7ffe03c0e37);
    add("D7.0 MPDU 6",
        {208'h8852e11f5af28430fdabbff943b9f9a6ab1d98c7fe7350713d6a, 48'h89890060a4ec}, 26,
        48'h6b81eca48989, 1'b0,
        {192'h88425af28430fdabbff943b9f9a6ab1d98c7fe7300000d00, 48'h0}, 24,
        104'h0dbff943b9f9a66b81eca48989);
    add("D7.0 MPDU 7",
        {192'h187981469b50f4fd56f6efec9520169183570c4ccdee20a0, 64'h23e700e07340ec5e}, 24,
        48'h5eec4073e723, 1'b0,
        {176'h08419b50f4fd56f6efec9520169183570c4ccdee0000, 64'h0}, 22,
        104'h00efec952016915eec4073e723);
    add("D7.0 MPDU 8 (current rule)",
        {208'hb8d94c72552d5f72bb70ca3f3aae60c48ba9b5f82c2f50eb2a55, 48'hddcc00a06e99}, 26,
        48'hcefd996eccdd, 1'b0,
        {192'h8841552d5f72bb70ca3f3aae60c48ba9b5f82c2f00000a00, 48'h0}, 24,
        104'h0aca3f3aae60c4cefd996eccdd);
    // 1.3: M.9.2 Deauthentication (management), PN 1.
    add("M.9.2 Deauthentication",
        {192'hc00000000200000001000200000000000200000000006000, 64'h0100002000000000}, 24,
        48'h000000000001, 1'b0,
        {176'hc0400200000001000200000000000200000000000000, 64'h0}, 22,
        104'h10020000000000000000000001);
    // 1.4: aircrack-ng's captured ToDS data frame, PN 1.
    add("aircrack-ng ToDS capture",
        {192'h08410201000b86c2a4850013ce5598ef000f66e3e401202e, 64'h0100002000000000}, 24,
        48'h000000000001, 1'b0,
        {176'h0841000b86c2a4850013ce5598ef000f66e3e4010000, 64'h0}, 22,
        104'h000013ce5598ef000000000001);
    // Hand-built (rules of 12.5.3.3.3-4). QoS Data, ToDS = FromDS = 1 and
    // MoreFrag, Retry, PwrMgt, MoreData, Protected, Order all 1 (FC 88ff ->
    // 8847); SC 567a -> 000a (fragment number only); A4; QoS Control b5ee:
    // TID 5, A-MSDU Present -> 0500, or 8500 with SPP; nonce flags 05.
    add("4-address QoS, no SPP",
        256'h88ff1234101112131415202122232425303132333435_7a56_404142434445_b5ee, 32,
        48'h0102030405a6, 1'b0,
        240'h8847101112131415202122232425303132333435_0a00_404142434445_0500, 30,
        104'h05202122232425_0102030405a6);
    add("4-address QoS, SPP",
        256'h88ff1234101112131415202122232425303132333435_7a56_404142434445_b5ee, 32,
        48'h0102030405a6, 1'b1,
        240'h8847101112131415202122232425303132333435_0a00_404142434445_8500, 30,
        104'h05202122232425_0102030405a6);
    // Data (not QoS), subtype 0x3 (masked), ToDS = FromDS = 1, Order 1
    // (kept: not a QoS frame), Retry 1: FC 388b -> 08c3; no QoS Control.
    add("4-address data, Order kept",
        {240'h388b5678a0a1a2a3a4a5b0b1b2b3b4b5c0c1c2c3c4c5_0f00_d0d1d2d3d4d5, 16'hffff}, 30,
        48'hfedcba987654, 1'b0,
        {224'h08c3a0a1a2a3a4a5b0b1b2b3b4b5c0c1c2c3c4c5_0f00_d0d1d2d3d4d5, 16'h0}, 28,
        104'h00b0b1b2b3b4b5fedcba987654);
    // QoS Data, ToDS, QoS Control 83xx (A-MSDU Present, TID 3): SPP keeps
    // b7, without SPP only the TID remains.
    add("QoS A-MSDU, SPP",
        {208'h8841000002020202020203030303030304040404040410008377, 48'h0}, 26,
        48'h000000000100, 1'b1,
        {192'h8841020202020202030303030303040404040404_0000_8300, 48'h0}, 24,
        104'h03030303030303000000000100);
    add("QoS A-MSDU, no SPP",
        {208'h8841000002020202020203030303030304040404040410008377, 48'h0}, 26,
        48'h000000000100, 1'b0,
        {192'h8841020202020202030303030303040404040404_0000_0300, 48'h0}, 24,
        104'h03030303030303000000000100);
    // Management (Action, d0) with ToDS/FromDS set: no A4 for a
    // management frame; subtype kept; nonce flag b4.
    add("Action, DS bits set",
        {192'hd0030000_aaaaaaaaaaaa_bbbbbbbbbbbb_cccccccccccc_3412, 64'h1111111111111111}, 24,
        48'h00000000ffff, 1'b0,
        {176'hd043_aaaaaaaaaaaa_bbbbbbbbbbbb_cccccccccccc_0400, 64'h0}, 22,
        104'h10bbbbbbbbbbbb00000000ffff);

    errors = 0; checks = 0;
    for (v = 0 ; v < nv ; v = v + 1)
      for (pass = 0 ; pass < 2 ; pass = pass + 1)
        begin
          h = vhdr[v];
          if (pass == 1)
            begin
              // Duration (octets 2-3) and the octets past the header: random.
              h[255 - 16 -: 16] = $random;
              for (o = vhlen[v] ; o < 32 ; o = o + 1)
                h[255 - 8 * o -: 8] = $random;
            end
          hdr = h; pn = vpn[v]; spp = vspp[v];
          // X1 || X2 = len(AAD) (2 octets, big-endian) || AAD || zeros.
          want = {valen[v][15 : 0], vaad[v]};
          #1;
          check("nonce", {24'h0, nonce}, {24'h0, vnon[v]});
          check("X1", x1, want[255 : 128]);
          check("X2", x2, want[127 : 0]);
        end

    if (errors == 0)
      $display("PASS tb_ccmp_format: %0d frames x 2 (header tail and Duration as given, then random), %0d checks of nonce, X1, X2",
               nv, checks);
    else
      begin
        $display("FAIL tb_ccmp_format: %0d errors in %0d checks", errors, checks);
        $fatal(1, "tb_ccmp_format failed");
      end
    $finish;
  end

endmodule
`default_nettype wire
