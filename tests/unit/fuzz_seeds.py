#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the fuzzer's seed inputs (fuzz_cdb.c's format) into fuzz-corpus/.

An input: 5 set-up bytes, then per command h0 (LUN, direction, length
kind), h1 (0xff: the CDB's own opcode), h2 (CDB length - 1), the CDB, a
3-byte buffer length, a 2-byte data-out length and the data-out bytes.
"""
import os
import struct
import sys

# set-up: block size 512, thin (TPU, TPWS), 64 blocks, WRITE SAME up to 48,
# 32 LBAs / 4 descriptors per UNMAP, one command per input unless more given
THIN = bytes([0x06, 0x85, 0x0a, 0x00, 0x00])


def cmd(cdb, length, out=b'', lun_sel=0):
    cdb = bytes(cdb)
    h0 = lun_sel | 0xc0                 # direction: the row's; length: given
    return (bytes([h0, 0xff, 0x80 | (len(cdb) - 1)]) + cdb +
            struct.pack('>I', length)[1:] + struct.pack('>H', len(out)) + out)


def seq(*cmds, setup=THIN):
    return (setup[:3] + bytes([len(cmds) - 1]) + setup[4:] +
            b''.join(cmds))


def pro(sa, typ=0):
    """PERSISTENT RESERVE OUT with a 24-byte parameter list."""
    return [0x5f, sa, typ, 0, 0, 0, 0, 0, 24, 0]


def be(n, v):
    return v.to_bytes(n, 'big')


def main(out_dir):
    blk = bytes(range(256)) * 2
    unmap = be(2, 22) + be(2, 16) + bytes(4) + be(8, 3) + be(4, 5) + bytes(4)
    pr_reg = bytes(8) + be(8, 0x1234) + bytes(8)
    pr_res = be(8, 0x1234) + bytes(16)
    # MODE SELECT(10): control page with SWP, D_SENSE
    ctl = bytes(8) + bytes([0x0a, 0x0a, 0x06, 0x10, 0x08, 0x40]) + bytes(6)
    # EXTENDED COPY: 2 CSCDs naming the fixture's device (its NAA, VPD
    # page 83h), one block to block segment of 4 blocks from LBA 8 to 40,
    # list identifier 5 held for COPY STATUS
    naa = bytes.fromhex('60014053a5b071204c14f5e9e4b01234')
    cscd = (bytes([0xe4, 0, 0, 0, 0x01, 0x03, 0, 16]) + naa + bytes(5) +
            be(3, 512))
    seg = (bytes([0x02, 0]) + be(2, 0x18) + be(2, 0) + be(2, 1) + bytes(2) +
           be(2, 4) + be(8, 8) + be(8, 40))
    xlist = (bytes([5, 0]) + be(2, 64) + bytes(4) + be(4, 28) + bytes(4) +
             cscd * 2 + seg)
    seeds = {
        'tur': seq(cmd([0x00, 0, 0, 0, 0, 0], 0)),
        'inquiry': seq(cmd([0x12, 0, 0, 0, 96, 0], 96),
                       cmd([0x12, 1, 0x83, 0, 255, 0], 255),
                       cmd([0x12, 1, 0xb0, 0, 255, 0], 255)),
        'read_capacity': seq(cmd([0x25] + [0] * 9, 8),
                             cmd([0x9e, 0x10] + [0] * 11 + [32, 0, 0], 32)),
        'read_write': seq(cmd([0x2a, 0, 0, 0, 0, 1, 0, 0, 1, 0], 512, blk),
                          cmd([0x28, 0, 0, 0, 0, 1, 0, 0, 1, 0], 512),
                          cmd([0x88, 0] + list(be(8, 63)) + list(be(4, 1)) + [0, 0], 512),
                          cmd([0x0a, 0, 0, 2, 1, 0], 512, blk)),
        'mode': seq(cmd([0x1a, 0, 0x3f, 0, 255, 0], 255),
                    cmd([0x55, 0x10, 0, 0, 0, 0, 0, 0, len(ctl), 0], len(ctl), ctl),
                    cmd([0x5a, 0, 0x0a, 0, 0, 0, 0, 0, 64, 0], 64)),
        'reports': seq(cmd([0xa0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0], 256),
                       cmd([0xa3, 0x0c, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0], 4096),
                       cmd([0xa3, 0x0a, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0], 256),
                       cmd([0x03, 0, 0, 0, 252, 0], 252)),
        'lbp': seq(cmd([0x42, 0, 0, 0, 0, 0, 0, 0, len(unmap), 0], len(unmap), unmap),
                   cmd([0x93, 0x08] + list(be(8, 10)) + list(be(4, 4)) + [0, 0], 512, bytes(512)),
                   cmd([0x9e, 0x12] + list(be(8, 0)) + list(be(4, 64)) + [0, 0], 64),
                   cmd([0x41, 0, 0, 0, 0, 20, 0, 0, 3, 0], 512, blk)),
        'integrity': seq(cmd([0x89, 0] + list(be(8, 2)) + [0, 0, 0, 1, 0, 0], 1024,
                             bytes([0xa5]) * 512 + blk),
                         cmd([0x8f, 0x02] + list(be(8, 2)) + list(be(4, 1)) + [0, 0], 512, blk),
                         cmd([0x2e, 0, 0, 0, 0, 5, 0, 0, 1, 0], 512, blk),
                         cmd([0x8b, 0] + list(be(8, 6)) + list(be(4, 1)) + [0, 0], 512, blk)),
        'pr': seq(cmd([0x5f, 0x00, 0, 0, 0, 0, 0, 0, 24, 0], 24, pr_reg),
                  cmd([0x5f, 0x01, 0x01, 0, 0, 0, 0, 0, 24, 0], 24, pr_res),
                  cmd([0x2a, 0, 0, 0, 0, 0, 0, 0, 1, 0], 512, blk, lun_sel=3),
                  cmd([0x5e, 0x01, 0, 0, 0, 0, 0, 0x20, 0, 0], 0x2000)),
        'misc': seq(cmd([0x35] + [0] * 9, 0),
                    cmd([0x1b, 0, 0, 0, 1, 0], 0),
                    cmd([0x3b, 0x0a, 0, 0, 0, 0, 0, 0, 16, 0], 16, blk[:16]),
                    cmd([0x3c, 0x0a, 0, 0, 0, 0, 0, 0, 16, 0], 16)),
        'format': seq(cmd([0x04, 0, 0, 0, 0, 0], 0),
                      cmd([0x48, 0x02, 0, 0, 0, 0, 0, 0, 0, 0], 0),
                      cmd([0x84, 0x03] + [0] * 8 + list(be(4, 512)) + [0, 0], 512)),
        'xcopy': seq(cmd([0x83] + [0] * 9 + list(be(4, len(xlist))) + [0, 0],
                         len(xlist), xlist),
                     cmd([0x84, 0x00, 5] + [0] * 10 + [12, 0, 0], 12),
                     cmd([0x28, 0, 0, 0, 0, 40, 0, 0, 4, 0], 2048)),
        'mode6': seq(cmd([0x15, 0x10, 0, 0, 16, 0], 16, bytes(4) +
                         bytes([0x0a, 0x0a, 0x02, 0x10, 0x00, 0x40]) + bytes(6)),
                     cmd([0x1a, 0x08, 0x0a, 0, 255, 0], 255)),
        'pr_preempt': seq(cmd(pro(0), 24, pr_reg),
                          cmd(pro(0), 24, bytes(8) + be(8, 0x5678) + bytes(8),
                              lun_sel=3),
                          cmd(pro(1, 1), 24, pr_res),
                          cmd(pro(4, 1), 24, be(8, 0x5678) + be(8, 0x1234) +
                              bytes(8), lun_sel=3)),
        'pr_preempt_abort': seq(cmd(pro(0), 24, pr_reg),
                                cmd(pro(0), 24, bytes(8) + be(8, 0x5678) +
                                    bytes(8), lun_sel=3),
                                cmd(pro(1, 1), 24, pr_res),
                                cmd(pro(5, 1), 24, be(8, 0x5678) +
                                    be(8, 0x1234) + bytes(8), lun_sel=3)),
        'pr_release': seq(cmd(pro(0), 24, pr_reg),
                          cmd(pro(1, 3), 24, pr_res),
                          cmd(pro(2, 3), 24, pr_res),
                          cmd(pro(3), 24, pr_res)),
        'spc2': seq(cmd([0x16, 0, 0, 0, 0, 0], 0),
                    cmd([0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0], 512, lun_sel=3),
                    cmd([0x17, 0, 0, 0, 0, 0], 0)),
        'sanitize': seq(cmd([0x48, 0x01, 0, 0, 0, 0, 0, 0, 8, 0], 8,
                            bytes([0x01, 0]) + be(2, 4) + b'\x5a\x5a\x00\x01'),
                        cmd([0x48, 0x1f] + [0] * 8, 0)),
        'atomic': seq(cmd([0x9c, 0] + list(be(8, 4)) + [0, 0] + list(be(2, 2)) + [0, 0],
                          1024, blk * 2),
                      cmd([0x37, 0x18, 0, 0, 0, 0, 0, 0, 64, 0], 64),
                      cmd([0xb7, 0x18] + [0] * 4 + list(be(4, 64)) + [0, 0], 64),
                      cmd([0x34, 0] + list(be(4, 4)) + [0, 0, 8, 0], 0)),
        'vpd': seq(cmd([0x12, 1, 0x00, 0, 255, 0], 255),
                   cmd([0x12, 1, 0x86, 0, 255, 0], 255),
                   cmd([0x12, 1, 0x8f, 0, 255, 0], 255),
                   cmd([0x12, 1, 0xb1, 0, 255, 0], 255)),
        'caching': seq(cmd([0x15, 0x10, 0, 0, 24, 0], 24, bytes(4) +
                           bytes([0x08, 0x12, 0x04]) + bytes(17)),
                       cmd([0x5a, 0, 0x08, 0, 0, 0, 0, 0, 64, 0], 64)),
        'huge_capacity': seq(cmd([0x25] + [0] * 9, 8),
                             cmd([0x88, 0] + list(be(8, 0xffffffff)) + list(be(4, 1)) + [0, 0], 512),
                             cmd([0x41, 0, 0xff, 0xff, 0xff, 0xfe, 0, 0, 1, 0], 512, blk),
                             setup=bytes([0x06, 0x0c, 0x0a, 0, 0])),
    }
    os.makedirs(out_dir, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(out_dir, name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else
         os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fuzz-corpus'))
