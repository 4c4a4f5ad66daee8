# SPDX-License-Identifier: GPL-2.0
"""tcmxlib: the one Python library of the tests (tests/) and the tools
(tools/). Standard library only (no pytest): the tests run it as root
inside tools/vm, the tools inside the VM or on the host, `make unload` on
a real host. tools/* find it beside them (Python puts a script's folder
first on its path); pytest finds it through pytest.ini's pythonpath.

The package imports, for the tests, every name of these modules:
host        run(), sh(), wr(), rd(), err_of(), modules(), loaded(),
            meminfo(), fill(), sha(), Kmsg (kernel messages logged since
            it was created), PREEMPT_RT, GiB, MiB, PAGE
sense       GOOD, CHECK, CONFLICT...; the (key, asc, ascq) triples by
            name (INVALID_FIELD, LBA_RANGE, ...); kcq(), sense_name()
kmod        the stack under test (TCMX_TEST_STACK: "tcmx", the default,
            or "lio", the in-tree target_core_mod + tcm_loop, which
            validates the tests themselves: tests of requirements the
            in-tree LIO does not meet are marked tcmx_only, conftest.py);
            load()/unload() of a stack or of named modules (modprobe;
            insmod from build/<kver>/ with TCMX_LOAD=insmod), modprobe()
configfs    clean() removes everything under /sys/kernel/config/target;
            mk_rd(), mk_target(), link_lun(), unlink_lun(), setup_luns(),
            two_nexuses(), hctl(), disk(), sgdev(), sd_attached()
targetcli   tcli(), tcli_ok(), tree_text()
scsi        sgio(), sg_io(), sgcmd() (SG_IO by ioctl), good(), check(),
            be(), rw_cdb(), caw_cdb(), write_read_block(), prin(), prout(),
            sg_raw(), tur(), unit_attentions(), tool(), field()
libiscsi    iscsi-test-cu over SG_IO (tools/conformance and the tests)

and, imported by name (tcmxlib.stacks...), what the tools use:
stacks      the block stacks the benches compare (tcmx, the in-tree LIO,
            scsi_debug, null_blk, brd): setup() and teardown()
fio         the fio jobs of the benches and the demo, their figures
bench       what tools/bench, bench-fs and bench-scale share
report      the benches' tables and charts
fuzz        the SG_IO CDB fuzzer (tools/fuzz-sgio, tests/test_fuzz_sgio.py)
iscsi       iSCSI on 127.0.0.0/8: the target in configfs, an open-iscsi
            initiator with its own iscsid, libiscsi over iSCSI
            (tests/test_iscsi_*.py, tools/conformance --iscsi)
iscsi_pdu   a raw iSCSI initiator over one TCP socket (hand-made PDUs)
iscsi_fuzz  the raw-socket PDU fuzzer (tools/fuzz-iscsi,
            tests/test_iscsi_fuzz.py)
tier        the CI tier of the run (TCMX_TIER) and soak(): long soaks
            on 6.1, short ones on the other kernels

`python3 -m tcmxlib clean` (in tools/) empties configfs if tcmx owns it
and unloads tcmx (make unload), `... clean-intree` does the same for the
in-tree LIO.
"""
from .tier import soak, TIER
from .host import (BAD_KMSG, BAD_SD, boot_args, CFS, cmdline_icount,
                   DEBUG_KERNEL, err_of,
                   fill, GiB, Kmsg, KVER, loaded, loaded_modules,
                   mem_free_to_use, meminfo, meminfo_kib, MiB, modules,
                   mount_configfs, NOT_ON_RT_WHY, PAGE, PREEMPT_RT, PROJ, rd,
                   run, sh, sha, StackError, USERSPACE_NOT_ON_RT_WHY, wr)
from .sense import (ALUA_CHANGED, BUSY, CHECK, COMMAND_SEQUENCE, CONFLICT,
                    COPY_ABORTED, GOOD, ILLEGAL_OPCODE, INQUIRY_CHANGED,
                    INVALID_FIELD, INVALID_IU_FIELD, INVALID_PARAM, kcq,
                    LBA_RANGE, LUNS_CHANGED, MISCOMPARE, MODE_CHANGED,
                    NOT_READY_OFFLINE, NOT_READY_STANDBY,
                    NOT_READY_TRANSITIONING, NOT_READY_UNAVAILABLE, PARAM_LEN,
                    POWER_ON, REG_PREEMPTED, RES_PREEMPTED, RES_RELEASED,
                    SAVING, sense_name, SENSE_NAMES, SPACE_ALLOC_FAILED,
                    STATUS, TASK_SET_FULL, TOO_MANY_CSCD, TOO_MANY_SEG,
                    UNSUPP_CSCD, WRITE_PROTECT)
from .kmod import (BACKEND_MOD, CORE_MOD, env_setup, FABRIC_MOD, has_module,
                   INTREE, KO, ko_path, LIO, LOAD, load, modprobe, MODULES,
                   STACK, STACKS, unload, unload_users_first)
from .configfs import (AUTOPROBE, clean, disk, free_hba_index, hctl, inject,
                       inject_counter, leftovers, link_lun, LOOP, mk_rd, mk_target, new_wwn, scsi_present,
                       sd_attached, sd_off, setup_luns, sgdev, T, two_nexuses,
                       unlink_lun)
from .targetcli import (ANSI, tcli, tcli_ok, TCLI_TIMES, tree_text)
from .scsi import (be, caw_cdb, check, cmd, field, good, prin, prout, rw_cdb,
                   SG_DXFER_FROM_DEV, SG_DXFER_NONE, SG_DXFER_TO_DEV, SG_IO,
                   sg_io, sg_raw, sgcmd, sgio, SgIoHdr, tool, tur, ua_clear,
                   unit_attentions, vpd83_ports, write_read_block)
from .libiscsi import (iscsi_test_cu, libiscsi_died, LIBISCSI_KNOWN,
                       libiscsi_listing, LIBISCSI_NOT_RUN, libiscsi_parse,
                       libiscsi_run, LIBISCSI_SILENT_SKIP, libiscsi_suite,
                       LIBISCSI_SUITE_LINE, LIBISCSI_TEST_LINE, LIBISCSI_TOOL)

__all__ = [
    "BAD_KMSG", "BAD_SD", "boot_args", "CFS", "cmdline_icount",
    "DEBUG_KERNEL", "err_of",
    "fill", "GiB", "Kmsg", "KVER", "loaded", "loaded_modules",
    "mem_free_to_use", "meminfo", "meminfo_kib", "MiB", "modules",
    "mount_configfs", "NOT_ON_RT_WHY", "PAGE", "PREEMPT_RT", "PROJ", "rd",
    "run", "sh", "sha", "StackError", "USERSPACE_NOT_ON_RT_WHY", "wr",
    "ALUA_CHANGED", "BUSY", "CHECK", "COMMAND_SEQUENCE", "CONFLICT",
    "COPY_ABORTED", "GOOD", "ILLEGAL_OPCODE", "INQUIRY_CHANGED",
    "INVALID_FIELD", "INVALID_IU_FIELD", "INVALID_PARAM", "kcq", "LBA_RANGE",
    "LUNS_CHANGED", "MISCOMPARE", "MODE_CHANGED", "NOT_READY_OFFLINE",
    "NOT_READY_STANDBY", "NOT_READY_TRANSITIONING", "NOT_READY_UNAVAILABLE",
    "PARAM_LEN", "POWER_ON", "REG_PREEMPTED", "RES_PREEMPTED", "RES_RELEASED",
    "SAVING", "sense_name", "SENSE_NAMES", "SPACE_ALLOC_FAILED", "STATUS",
    "TASK_SET_FULL", "TOO_MANY_CSCD", "TOO_MANY_SEG", "UNSUPP_CSCD",
    "WRITE_PROTECT", "BACKEND_MOD", "CORE_MOD", "env_setup", "FABRIC_MOD",
    "has_module", "INTREE", "KO", "ko_path", "LIO", "LOAD", "load", "modprobe",
    "MODULES", "STACK", "STACKS", "unload", "unload_users_first", "AUTOPROBE",
    "clean", "disk", "free_hba_index", "hctl", "inject", "inject_counter",
    "leftovers", "link_lun", "LOOP",
    "mk_rd", "mk_target", "new_wwn", "scsi_present", "sd_attached", "sd_off",
    "setup_luns", "sgdev", "T", "two_nexuses", "unlink_lun", "ANSI", "tcli",
    "tcli_ok", "TCLI_TIMES", "tree_text", "be", "check", "cmd", "field",
    "good", "prin", "prout", "rw_cdb", "caw_cdb", "SG_DXFER_FROM_DEV",
    "SG_DXFER_NONE", "SG_DXFER_TO_DEV", "SG_IO", "sg_io", "sg_raw", "sgcmd", "sgio", "SgIoHdr",
    "tool", "tur", "ua_clear", "unit_attentions", "vpd83_ports",
    "write_read_block", "iscsi_test_cu", "libiscsi_died", "LIBISCSI_KNOWN",
    "libiscsi_listing", "LIBISCSI_NOT_RUN", "libiscsi_parse", "libiscsi_run",
    "LIBISCSI_SILENT_SKIP", "libiscsi_suite", "LIBISCSI_SUITE_LINE",
    "LIBISCSI_TEST_LINE", "LIBISCSI_TOOL", "soak", "TIER",
]
