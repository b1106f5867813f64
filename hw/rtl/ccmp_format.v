//======================================================================
// ccmp_format.v
// CCMP formatting in hardware (seed 001's Format_N&Q and Format_AAD):
// from the first 32 octets of the MAC header and the PN it builds
// - the CCM nonce, IEEE 802.11-2020 12.5.3.3.4: Nonce Flags (Priority =
//   TID of a QoS Data frame in b0-b3, Management in b4) || A2 || PN5..PN0;
// - the AAD, 12.5.3.3.3: FC with Retry/PwrMgt/MoreData masked, subtype
//   b4-b6 masked in data frames, Order masked in QoS Data frames,
//   Protected set; A1 A2 A3; Sequence Control with only the Fragment
//   Number; A4 if To DS = From DS = 1; QoS Control reduced to the TID
//   (plus A-MSDU Present if SPP A-MSDU is in use) in QoS Data frames;
// - the CCM blocks X1, X2 = len(AAD) (2 octets) || AAD, zero padded
//   (22-30 octets of AAD always make two blocks).
// Combinational. hdr octet i is hdr[255 - 8i -: 8] (Frame Control first).
//======================================================================
`default_nettype none

module ccmp_format(
                   /* verilator lint_off UNUSEDSIGNAL */
                   input wire [255 : 0]  hdr,
                   /* verilator lint_on UNUSEDSIGNAL */
                   input wire [47 : 0]   pn,
                   input wire            spp,
                   output wire [103 : 0] nonce,
                   output wire [127 : 0] x1,
                   output wire [127 : 0] x2
                  );

  function [7 : 0] oct;
    input [255 : 0] h;
    input integer   i;
    begin
      oct = h[255 - 8 * i -: 8];
    end
  endfunction

  wire [7 : 0] fc0     = oct(hdr, 0);
  wire [7 : 0] fc1     = oct(hdr, 1);
  wire         is_mgmt = (fc0[3 : 2] == 2'b00);
  wire         is_data = (fc0[3 : 2] == 2'b10);
  wire         qos     = is_data && fc0[7];
  wire         a4      = is_data && fc1[0] && fc1[1];

  // Masked Frame Control (FC b0-b7 in fc0, b8-b15 in fc1).
  wire [7 : 0] mfc0 = is_data ? (fc0 & 8'h8f) : fc0;
  wire [7 : 0] mfc1 = (fc1 & (qos ? 8'h47 : 8'hc7)) | 8'h40;

  wire [7 : 0]   qc   = a4 ? oct(hdr, 30) : oct(hdr, 24);
  wire [7 : 0]   mqc  = qc & (spp ? 8'h8f : 8'h0f);
  wire [15 : 0]  qcf  = qos ? {mqc, 8'h00} : 16'h0;
  wire [47 : 0]  addr4 = hdr[255 - 8 * 24 -: 48];
  // AAD octets 22-29 (after FC, A1, A2, A3 and SC): [A4] [QC], zero padded.
  wire [63 : 0]  tail = a4 ? {addr4, qcf} : {qcf, 48'h0};
  wire [15 : 0]  alen = 16'd22 + (a4 ? 16'd6 : 16'd0) + (qos ? 16'd2 : 16'd0);
  wire [7 : 0]   sc0  = oct(hdr, 22) & 8'h0f;

  // len || FC || A1 A2 A3 || SC || tail = exactly 32 octets.
  wire [255 : 0] blocks = {alen, mfc0, mfc1, hdr[255 - 32 -: 144], sc0, 8'h00, tail};

  wire [7 : 0] nflags = is_mgmt ? 8'h10 : (qos ? {4'h0, qc[3 : 0]} : 8'h00);

  assign nonce = {nflags, hdr[255 - 80 -: 48], pn};
  assign x1    = blocks[255 : 128];
  assign x2    = blocks[127 : 0];

endmodule // ccmp_format
`default_nettype wire
