/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The negotiable keys of tpgt_<t>/param/, in the in-tree order, one line
 * each:
 *
 *   TCMX_ISCSI_KEY(id, "Name", kind, "default", min, max)
 *
 * kind is an enum tcmx_iscsi_key_kind (iscsi.h); min and max bound a
 * number (RFC 7143 and the in-tree ranges), 0 and 0 for the others (for
 * IFMarkInt/OFMarkInt, each end of "a~b").  No include guard: each user
 * defines TCMX_ISCSI_KEY(), includes this file and undefines it (iscsi.h:
 * the enum; params.c: the table; tpg_cfs.c: the files).
 */
TCMX_ISCSI_KEY(AUTH_METHOD, "AuthMethod", TCMX_KEY_LIST, "CHAP", 0, 0)
TCMX_ISCSI_KEY(HEADER_DIGEST, "HeaderDigest", TCMX_KEY_LIST, "CRC32C,None", 0, 0)
TCMX_ISCSI_KEY(DATA_DIGEST, "DataDigest", TCMX_KEY_LIST, "CRC32C,None", 0, 0)
TCMX_ISCSI_KEY(MAX_CONNECTIONS, "MaxConnections", TCMX_KEY_MIN, "1", 1, 65535)
TCMX_ISCSI_KEY(TARGET_ALIAS, "TargetAlias", TCMX_KEY_DECL, "LIO Target", 0, 0)
TCMX_ISCSI_KEY(INITIAL_R2T, "InitialR2T", TCMX_KEY_OR, "Yes", 0, 0)
TCMX_ISCSI_KEY(IMMEDIATE_DATA, "ImmediateData", TCMX_KEY_AND, "Yes", 0, 0)
TCMX_ISCSI_KEY(MAX_RECV_DSL, "MaxRecvDataSegmentLength", TCMX_KEY_DECL_NUM,
	       "8192", 512, 16777215)
TCMX_ISCSI_KEY(MAX_XMIT_DSL, "MaxXmitDataSegmentLength", TCMX_KEY_DECL_NUM,
	       "262144", 512, 16777215)
TCMX_ISCSI_KEY(MAX_BURST, "MaxBurstLength", TCMX_KEY_MIN, "262144", 512,
	       16777215)
TCMX_ISCSI_KEY(FIRST_BURST, "FirstBurstLength", TCMX_KEY_MIN, "65536", 512,
	       16777215)
TCMX_ISCSI_KEY(TIME2WAIT, "DefaultTime2Wait", TCMX_KEY_MAX, "2", 0, 3600)
TCMX_ISCSI_KEY(TIME2RETAIN, "DefaultTime2Retain", TCMX_KEY_MIN, "20", 0, 3600)
TCMX_ISCSI_KEY(MAX_R2T, "MaxOutstandingR2T", TCMX_KEY_MIN, "1", 1, 65535)
TCMX_ISCSI_KEY(DATA_PDU_IN_ORDER, "DataPDUInOrder", TCMX_KEY_OR, "Yes", 0, 0)
TCMX_ISCSI_KEY(DATA_SEQ_IN_ORDER, "DataSequenceInOrder", TCMX_KEY_OR, "Yes",
	       0, 0)
TCMX_ISCSI_KEY(ERL, "ErrorRecoveryLevel", TCMX_KEY_MIN, "0", 0, 2)
TCMX_ISCSI_KEY(IFMARKER, "IFMarker", TCMX_KEY_AND, "No", 0, 0)
TCMX_ISCSI_KEY(OFMARKER, "OFMarker", TCMX_KEY_AND, "No", 0, 0)
TCMX_ISCSI_KEY(IFMARKINT, "IFMarkInt", TCMX_KEY_RANGE, "Reject", 1, 65535)
TCMX_ISCSI_KEY(OFMARKINT, "OFMarkInt", TCMX_KEY_RANGE, "Reject", 1, 65535)
