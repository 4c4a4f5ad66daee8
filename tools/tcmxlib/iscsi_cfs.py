# SPDX-License-Identifier: GPL-2.0
"""The iSCSI fabric's configfs tree ($T/iscsi): paths, and the defaults
the in-tree iscsi_target_mod has (iscsi-configfs-contract.md, sections
5-7), which tcmx_iscsi must have too."""
import os

from .configfs import T

ISCSI = T + "/iscsi"

# tpgt_N/attrib/
TPG_ATTRIB = {
    "authentication": 1, "login_timeout": 15, "netif_timeout": 2,
    "generate_node_acls": 0, "default_cmdsn_depth": 64,
    "cache_dynamic_acls": 0, "demo_mode_write_protect": 1,
    "prod_mode_write_protect": 0, "demo_mode_discovery": 1,
    "default_erl": 0, "t10_pi": 0, "fabric_prot_type": 0,
    "tpg_enabled_sendtargets": 1, "login_keys_workaround": 1,
}
# tpgt_N/param/
TPG_PARAM = {
    "AuthMethod": "CHAP", "HeaderDigest": "CRC32C,None",
    "DataDigest": "CRC32C,None", "MaxConnections": "1",
    "TargetAlias": "LIO Target", "InitialR2T": "Yes",
    "ImmediateData": "Yes", "MaxRecvDataSegmentLength": "8192",
    "MaxXmitDataSegmentLength": "262144", "MaxBurstLength": "262144",
    "FirstBurstLength": "65536", "DefaultTime2Wait": "2",
    "DefaultTime2Retain": "20", "MaxOutstandingR2T": "1",
    "DataPDUInOrder": "Yes", "DataSequenceInOrder": "Yes",
    "ErrorRecoveryLevel": "0", "IFMarker": "No", "OFMarker": "No",
    "IFMarkInt": "Reject", "OFMarkInt": "Reject",
}
# acls/<initiator>/attrib/
ACL_ATTRIB = {
    "dataout_timeout": 3, "dataout_timeout_retries": 5, "default_erl": 0,
    "nopin_timeout": 15, "nopin_response_timeout": 30,
    "random_datain_pdu_offsets": 0, "random_datain_seq_offsets": 0,
    "random_r2t_offsets": 0, "authentication": -1,
}
# acls/<initiator>/param/ (read-only: the session's values)
ACL_PARAM = ("MaxConnections", "InitialR2T", "ImmediateData",
             "MaxBurstLength", "FirstBurstLength", "DefaultTime2Wait",
             "DefaultTime2Retain", "MaxOutstandingR2T", "DataPDUInOrder",
             "DataSequenceInOrder", "ErrorRecoveryLevel")
AUTH_FILES = ("userid", "password", "authenticate_target", "userid_mutual",
              "password_mutual")
STAT_GROUPS = ("iscsi_instance", "iscsi_sess_err", "iscsi_tgt_attr",
               "iscsi_login_stats", "iscsi_logout_stats")


def iscsi_dir():
    """$T/iscsi, made if missing (loads the stack's iSCSI fabric)."""
    if not os.path.isdir(ISCSI):
        os.mkdir(ISCSI)
    return ISCSI


def mk_iscsi_tpg(iqn, tag=1):
    """$T/iscsi/<iqn>/tpgt_<tag>, made with what it needs; its path."""
    tpg = "%s/%s/tpgt_%d" % (iscsi_dir(), iqn, tag)
    os.makedirs(tpg, exist_ok=True)
    return tpg


def ipv6_loopback():
    """::1 is configured on lo."""
    try:
        with open("/proc/net/if_inet6") as f:
            return any(ln.split()[0] == "0" * 31 + "1" for ln in f)
    except OSError:
        return False
