#!/usr/bin/env python3
"""Writes the fuzz seeds in seeds/: guest memory images holding well-formed virtio-i2c requests
(the layout virtio_i2c_fuzz.cpp expects: a 4-entry descriptor table at guest 0x1000)."""
import os
import struct

BASE = 0x1000
NEXT, WRITE, INDIRECT = 1, 2, 4


def desc(addr, length, flags, nxt=0):
    return struct.pack("<QIHH", addr, length, flags, nxt)


def image(table, blobs):
    mem = bytearray(4096)
    mem[0:len(table)] = table
    for off, blob in blobs:
        mem[off:off + len(blob)] = blob
    return bytes(mem)


def header(addr, flags):
    return struct.pack("<HHI", addr << 1, 0, flags)


here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds")
os.makedirs(here, exist_ok=True)
seeds = {
    # SMBus read of the ID register: write [0x60] (FAIL_NEXT), then read 4 bytes.
    "id_read": image(
        desc(BASE + 0x100, 8, NEXT, 1) + desc(BASE + 0x110, 1, NEXT, 2) +
        desc(BASE + 0x118, 1, WRITE) + desc(0, 0, 0),
        [(0x100, header(0x2e, 1)), (0x110, b"\x60")]),
    # commandReady, then a FIFO write, through indirect tables.
    "indirect_writes": image(
        desc(BASE + 0x200, 48, INDIRECT) + desc(BASE + 0x240, 48, INDIRECT) +
        desc(0, 0, 0) + desc(0, 0, 0),
        [(0x200, desc(BASE + 0x300, 8, NEXT, 1) + desc(BASE + 0x310, 2, NEXT, 2) +
          desc(BASE + 0x318, 1, WRITE)),
         (0x240, desc(BASE + 0x320, 8, NEXT, 1) + desc(BASE + 0x330, 13, NEXT, 2) +
          desc(BASE + 0x348, 1, WRITE)),
         (0x300, header(0x2e, 0)), (0x310, b"\x00\x40"),
         (0x320, header(0x2e, 0)),
         (0x330, b"\x20\x80\x01\x00\x00\x00\x0c\x00\x00\x01\x44\x00\x00")]),
    # A read of the status register: pointer write and read as a chain of direct descriptors.
    "status_read": image(
        desc(BASE + 0x100, 8, NEXT, 1) + desc(BASE + 0x110, 1, WRITE) +
        desc(0, 0, 0) + desc(0, 0, 0),
        [(0x100, header(0x2e, 2))]),
    # ST33ZP24: a register pointer write as st33zp24/i2c.c does it before a read ([reg, 0xaa]).
    "st33_pointer": image(
        desc(BASE + 0x100, 8, NEXT, 1) + desc(BASE + 0x110, 2, NEXT, 2) +
        desc(BASE + 0x118, 1, WRITE) + desc(0, 0, 0),
        [(0x100, header(0x13, 0)), (0x110, b"\x00\xaa")]),
    # ST33ZP24: requestUse and commandReady written with the direction bit, then TPM_STS read
    # with its burst count: pointer write, then a 3-byte read. One indirect request each.
    "st33_sequence": image(
        desc(BASE + 0x200, 48, INDIRECT) + desc(BASE + 0x240, 48, INDIRECT) +
        desc(BASE + 0x280, 48, INDIRECT) + desc(BASE + 0x2c0, 48, INDIRECT),
        [(0x200, desc(BASE + 0x300, 8, NEXT, 1) + desc(BASE + 0x310, 2, NEXT, 2) +
          desc(BASE + 0x318, 1, WRITE)),
         (0x240, desc(BASE + 0x320, 8, NEXT, 1) + desc(BASE + 0x330, 2, NEXT, 2) +
          desc(BASE + 0x338, 1, WRITE)),
         (0x280, desc(BASE + 0x340, 8, NEXT, 1) + desc(BASE + 0x350, 2, NEXT, 2) +
          desc(BASE + 0x358, 1, WRITE)),
         (0x2c0, desc(BASE + 0x370, 8, NEXT, 1) + desc(BASE + 0x380, 3, NEXT | WRITE, 2) +
          desc(BASE + 0x390, 1, WRITE)),
         (0x300, header(0x13, 0)), (0x310, b"\x80\x02"),
         (0x320, header(0x13, 0)), (0x330, b"\x98\x40"),
         (0x340, header(0x13, 0)), (0x350, b"\x18\xaa"),
         (0x370, header(0x13, 2))]),
    # ak8974 (register framing): CTRL3 = FORCE, then STATUS polled: [0x18] and a 1-byte read.
    "ak8974_measure": image(
        desc(BASE + 0x200, 48, INDIRECT) + desc(BASE + 0x240, 48, INDIRECT) +
        desc(BASE + 0x280, 48, INDIRECT) + desc(0, 0, 0),
        [(0x200, desc(BASE + 0x300, 8, NEXT, 1) + desc(BASE + 0x310, 2, NEXT, 2) +
          desc(BASE + 0x318, 1, WRITE)),
         (0x240, desc(BASE + 0x320, 8, NEXT, 1) + desc(BASE + 0x330, 1, NEXT, 2) +
          desc(BASE + 0x338, 1, WRITE)),
         (0x280, desc(BASE + 0x340, 8, NEXT, 1) + desc(BASE + 0x350, 1, NEXT | WRITE, 2) +
          desc(BASE + 0x358, 1, WRITE)),
         (0x300, header(0x0e, 0)), (0x310, b"\x1d\x40"),
         (0x320, header(0x0e, 1)), (0x330, b"\x18"),
         (0x340, header(0x0e, 2))]),
    # hmc6352 (command framing): 'A', then the 2-byte heading.
    "hmc6352_heading": image(
        desc(BASE + 0x200, 48, INDIRECT) + desc(BASE + 0x240, 48, INDIRECT) +
        desc(0, 0, 0) + desc(0, 0, 0),
        [(0x200, desc(BASE + 0x300, 8, NEXT, 1) + desc(BASE + 0x310, 1, NEXT, 2) +
          desc(BASE + 0x318, 1, WRITE)),
         (0x240, desc(BASE + 0x320, 8, NEXT, 1) + desc(BASE + 0x330, 2, NEXT | WRITE, 2) +
          desc(BASE + 0x338, 1, WRITE)),
         (0x300, header(0x21, 0)), (0x310, b"A"),
         (0x320, header(0x21, 2))]),
    # max6900: the century write (a busy write cycle) and the burst write that follows at once.
    "max6900_writes": image(
        desc(BASE + 0x200, 48, INDIRECT) + desc(BASE + 0x240, 48, INDIRECT) +
        desc(0, 0, 0) + desc(0, 0, 0),
        [(0x200, desc(BASE + 0x300, 8, NEXT, 1) + desc(BASE + 0x310, 2, NEXT, 2) +
          desc(BASE + 0x318, 1, WRITE)),
         (0x240, desc(BASE + 0x320, 8, NEXT, 1) + desc(BASE + 0x330, 9, NEXT, 2) +
          desc(BASE + 0x348, 1, WRITE)),
         (0x300, header(0x50, 0)), (0x310, b"\x92\x20"),
         (0x320, header(0x50, 0)), (0x330, b"\xbe\x00\x53\x06\x02\x12\x03\x26\x80")]),
    # The counters at 0x7f: rewind, then read 64 bytes.
    "stats_read": image(
        desc(BASE + 0x200, 48, INDIRECT) + desc(BASE + 0x240, 48, INDIRECT) +
        desc(0, 0, 0) + desc(0, 0, 0),
        [(0x200, desc(BASE + 0x300, 8, NEXT, 1) + desc(BASE + 0x310, 1, NEXT, 2) +
          desc(BASE + 0x318, 1, WRITE)),
         (0x240, desc(BASE + 0x320, 8, NEXT, 1) + desc(BASE + 0x330, 64, NEXT | WRITE, 2) +
          desc(BASE + 0x370, 1, WRITE)),
         (0x300, header(0x7f, 1)), (0x310, b"\x00"),
         (0x320, header(0x7f, 2))]),
    # cr50 (at 0x51 in the fuzzer: 0x50 is the max6900's): TPM_STS read as the driver does it:
    # the register byte written, then (after the interrupt) all 4 bytes read, the read as an
    # indirect chain.
    "cr50_status": image(
        desc(BASE + 0x100, 8, NEXT, 1) + desc(BASE + 0x110, 1, NEXT, 2) +
        desc(BASE + 0x118, 1, WRITE) + desc(BASE + 0x200, 48, INDIRECT),
        [(0x100, header(0x51, 1)), (0x110, b"\x01"),
         (0x200, desc(BASE + 0x300, 8, NEXT, 1) + desc(BASE + 0x310, 4, NEXT | WRITE, 2) +
          desc(BASE + 0x318, 1, WRITE)),
         (0x300, header(0x51, 2))]),
}
for name, data in seeds.items():
    with open(os.path.join(here, name), "wb") as f:
        f.write(data)


def msg(request, payload=b"", flags=1):
    return struct.pack("<III", request, flags, len(payload)) + payload


# vhost-user streams for vhost_user_fuzz.cpp: QEMU 7.2's start sequence without its fds.
vhost = os.path.join(os.path.dirname(here), "seeds_vhost")
os.makedirs(vhost, exist_ok=True)
u64 = lambda v: struct.pack("<Q", v)
state = lambda i, n: struct.pack("<II", i, n)
start = (msg(1) + msg(15) + msg(16, u64(8)) + msg(3) + msg(1) + msg(13, u64(0x100)) +
         msg(2, u64((1 << 32) | (1 << 30) | 1)) +
         msg(5, struct.pack("<II", 1, 0) + struct.pack("<QQQQ", 0, 0x10000, 0x7f00000000, 0), 9) +
         msg(8, state(0, 4)) + msg(10, state(0, 0)) +
         msg(9, struct.pack("<IIQQQQ", 0, 0, 0x7f00000000, 0x7f00000200, 0x7f00000100, 0)) +
         msg(12, u64(0x100)) + msg(18, state(0, 1), 9) + msg(11, state(0, 0)))
with open(os.path.join(vhost, "qemu_start"), "wb") as f:
    f.write(start)
