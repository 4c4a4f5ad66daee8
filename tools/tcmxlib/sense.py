# SPDX-License-Identifier: GPL-2.0
"""SCSI status and sense data: the status codes and their names, the
(key, asc, ascq) triples the tests expect, by name, and kcq(), which
decodes fixed or descriptor sense data into such a triple."""

GOOD, CHECK, BUSY, CONFLICT, TASK_SET_FULL = 0x00, 0x02, 0x08, 0x18, 0x28
STATUS = {GOOD: "GOOD", CHECK: "CHECK CONDITION", BUSY: "BUSY",
          CONFLICT: "RESERVATION CONFLICT", TASK_SET_FULL: "TASK SET FULL"}

# (sense key, additional sense code, qualifier)
NOT_READY_TRANSITIONING = (0x2, 0x04, 0x0a)
NOT_READY_STANDBY = (0x2, 0x04, 0x0b)
NOT_READY_UNAVAILABLE = (0x2, 0x04, 0x0c)
NOT_READY_OFFLINE = (0x2, 0x04, 0x12)
NOT_READY_SANITIZE = (0x2, 0x04, 0x1b)
INVALID_IU_FIELD = (0x5, 0x0e, 0x03)
PARAM_LEN = (0x5, 0x1a, 0x00)
ILLEGAL_OPCODE = (0x5, 0x20, 0x00)
LBA_RANGE = (0x5, 0x21, 0x00)
INVALID_FIELD = (0x5, 0x24, 0x00)
INVALID_PARAM = (0x5, 0x26, 0x00)
TOO_MANY_CSCD = (0x5, 0x26, 0x06)
UNSUPP_CSCD = (0x5, 0x26, 0x07)
TOO_MANY_SEG = (0x5, 0x26, 0x08)
COMMAND_SEQUENCE = (0x5, 0x2c, 0x00)
SAVING = (0x5, 0x39, 0x00)
POWER_ON = (0x6, 0x29, 0x00)
MODE_CHANGED = (0x6, 0x2a, 0x01)
RES_PREEMPTED = (0x6, 0x2a, 0x03)
RES_RELEASED = (0x6, 0x2a, 0x04)
REG_PREEMPTED = (0x6, 0x2a, 0x05)
ALUA_CHANGED = (0x6, 0x2a, 0x06)
INQUIRY_CHANGED = (0x6, 0x3f, 0x03)
LUNS_CHANGED = (0x6, 0x3f, 0x0e)
WRITE_PROTECT = (0x7, 0x27, 0x00)
SPACE_ALLOC_FAILED = (0x7, 0x27, 0x07)
COPY_ABORTED = (0xa, 0x0d, 0x02)
MISCOMPARE = (0xe, 0x1d, 0x00)
COMMAND_ABORTED = (0xb, 0x00, 0x00)

# the names above, by triple (for messages)
SENSE_NAMES = {v: k for k, v in list(globals().items())
               if isinstance(v, tuple) and len(v) == 3 and k.isupper()}


def kcq(sense):
    """(key, asc, ascq) of fixed or descriptor sense data."""
    if not sense:
        return None
    if sense[0] & 0x7f in (0x72, 0x73):
        return sense[1] & 0xf, sense[2], sense[3]
    assert sense[0] & 0x7f in (0x70, 0x71), sense.hex()
    return sense[2] & 0xf, sense[12], sense[13]


def sense_name(triple):
    """"05/24/00 INVALID_FIELD" for a triple; without a name if it has
    none."""
    if triple is None:
        return "no sense"
    name = SENSE_NAMES.get(tuple(triple))
    return "%x/%02x/%02x" % tuple(triple) + (" " + name if name else "")
