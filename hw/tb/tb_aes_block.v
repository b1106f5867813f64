//======================================================================
// tb_aes_block.v
// Self-checking testbench of aes_block (parameters R, ROM): FIPS-197 C.1,
// then the blocks of a `wsec hw-vectors --suite aes` file (+vec=FILE),
// streamed back to back with a new key per block, then again with random
// gaps and output backpressure. Checks every ciphertext and that blocks
// stream at C = 10 / R cycles each.
//======================================================================
`timescale 1ns/1ps
`default_nettype none

module tb_aes_block;
  parameter R   = 1;
  parameter ROM = 0;
  localparam C = 10 / R;
  localparam MAXV = 4096;

  reg clk = 1'b0;
  reg reset_n = 1'b0;
  always #5 clk = ~clk;

  reg          in_valid;
  wire         in_ready;
  reg  [127:0] in_key, in_block;
  wire         out_valid;
  reg          out_ready;
  wire [127:0] out_block;

  aes_block #(.R(R), .ROM(ROM)) dut(.clk(clk), .reset_n(reset_n),
    .in_valid(in_valid), .in_ready(in_ready), .in_key(in_key), .in_block(in_block),
    .out_valid(out_valid), .out_ready(out_ready), .out_block(out_block));

  reg [127:0] vkey [0:MAXV-1];
  reg [127:0] vpt  [0:MAXV-1];
  reg [127:0] vct  [0:MAXV-1];
  reg xin;
  integer nv, fd, rc, i, ni, no, errors, pass, stall;
  integer t_first, t_last, cycle;
  reg [31:0] cnt;
  reg [127:0] a, b, c;
  reg [8*256-1:0] vec;

  always @(posedge clk) cycle <= cycle + 1;

  initial begin
    cycle = 0;
    // Vector 0: FIPS-197 C.1.
    vkey[0] = 128'h000102030405060708090a0b0c0d0e0f;
    vpt[0]  = 128'h00112233445566778899aabbccddeeff;
    vct[0]  = 128'h69c4e0d86a7b0430d8cdb78070b4c55a;
    nv = 1;
    if ($value$plusargs("vec=%s", vec)) begin
      fd = $fopen(vec, "r");
      if (fd == 0) begin $display("FAIL cannot open %0s", vec); $finish; end
      rc = $fscanf(fd, "%h", cnt);
      for (i = 0; i < cnt && nv < MAXV; i = i + 1) begin
        rc = $fscanf(fd, "%h %h %h", a, b, c);
        vkey[nv] = a; vpt[nv] = b; vct[nv] = c; nv = nv + 1;
      end
      $fclose(fd);
    end
    errors = 0;
    in_valid = 0; out_ready = 1; in_key = 0; in_block = 0;
    repeat (3) @(posedge clk);
    reset_n = 1'b1;
    for (pass = 0; pass < 2; pass = pass + 1) begin
      stall = pass;
      ni = 0; no = 0;
      @(negedge clk);
      fork
        begin : feed
          while (ni < nv) begin
            in_valid = (stall == 0) || ($random & 1);
            in_key   = vkey[ni];
            in_block = vpt[ni];
            #1; // let the other process set its inputs (ready may depend on them)
            xin = in_valid && in_ready;
            @(negedge clk);
            if (xin) ni = ni + 1;
          end
          in_valid = 0;
        end
        begin : check
          while (no < nv) begin
            out_ready = (stall == 0) || ($random & 1);
            #1;
            if (out_valid && out_ready) begin
              if (no == 0) t_first = cycle;
              t_last = cycle;
              if (out_block !== vct[no]) begin
                errors = errors + 1;
                if (errors < 10) $display("FAIL block %0d: got %032x want %032x", no, out_block, vct[no]);
              end
              no = no + 1;
            end
            @(negedge clk);
          end
          out_ready = 1;
        end
      join
      if (pass == 0 && nv > 1 && (t_last - t_first) != C * (nv - 1)) begin
        errors = errors + 1;
        $display("FAIL streaming: %0d blocks in %0d cycles, want %0d per block", nv, t_last - t_first, C);
      end
      if (pass == 0)
        $display("INFO R=%0d ROM=%0d cycles_per_block=%0d", R, ROM, (nv > 1) ? (t_last - t_first) / (nv - 1) : C);
    end
    if (errors == 0) $display("PASS tb_aes_block R=%0d ROM=%0d: %0d blocks x 2 passes", R, ROM, nv);
    else $display("FAIL tb_aes_block R=%0d ROM=%0d: %0d errors", R, ROM, errors);
    $finish;
  end

  initial begin
    repeat (5000000) @(posedge clk);
    $display("FAIL tb_aes_block: timeout");
    $finish;
  end

endmodule
`default_nettype wire
