/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test stand-in for <scsi/scsi_proto.h>: the SPC-4/SBC-3 numbers a block
 * target uses, taken from the T10 standards (opcode tables, SAM status,
 * sense keys, peripheral device types).  Add what sbc.c/spc.c start using.
 */
#ifndef UT_SCSI_PROTO_H
#define UT_SCSI_PROTO_H

#include "../ut_kernel.h"

/* operation codes */
#define TEST_UNIT_READY		0x00
#define REQUEST_SENSE		0x03
#define FORMAT_UNIT		0x04
#define READ_6			0x08
#define WRITE_6			0x0a
#define INQUIRY			0x12
#define MODE_SELECT		0x15
#define RESERVE			0x16
#define RELEASE			0x17
#define MODE_SENSE		0x1a
#define START_STOP		0x1b
#define RECEIVE_DIAGNOSTIC	0x1c
#define SEND_DIAGNOSTIC		0x1d
#define ALLOW_MEDIUM_REMOVAL	0x1e
#define READ_CAPACITY		0x25
#define READ_10			0x28
#define WRITE_10		0x2a
#define WRITE_VERIFY		0x2e
#define VERIFY			0x2f
#define PRE_FETCH		0x34
#define SYNCHRONIZE_CACHE	0x35
#define WRITE_BUFFER		0x3b
#define READ_BUFFER		0x3c
#define WRITE_SAME		0x41
#define UNMAP			0x42
#define LOG_SELECT		0x4c
#define LOG_SENSE		0x4d
#define MODE_SELECT_10		0x55
#define RESERVE_10		0x56
#define RELEASE_10		0x57
#define MODE_SENSE_10		0x5a
#define PERSISTENT_RESERVE_IN	0x5e
#define PERSISTENT_RESERVE_OUT	0x5f
#define VARIABLE_LENGTH_CMD	0x7f
#define EXTENDED_COPY		0x83
#define RECEIVE_COPY_RESULTS	0x84
#define READ_16			0x88
#define COMPARE_AND_WRITE	0x89
#define WRITE_16		0x8a
#define WRITE_VERIFY_16		0x8e
#define VERIFY_16		0x8f
#define SYNCHRONIZE_CACHE_16	0x91
#define WRITE_SAME_16		0x93
#define SERVICE_ACTION_IN_16	0x9e
#define REPORT_LUNS		0xa0
#define SECURITY_PROTOCOL_IN	0xa2
#define MAINTENANCE_IN		0xa3
#define MAINTENANCE_OUT		0xa4
#define READ_12			0xa8
#define WRITE_12		0xaa
#define WRITE_VERIFY_12		0xae
#define VERIFY_12		0xaf
#define SECURITY_PROTOCOL_OUT	0xb5

/* service actions */
#define SAI_READ_CAPACITY_16	0x10
#define SAI_GET_LBA_STATUS	0x12
#define MI_REPORT_TARGET_PGS	0x0a
#define MI_REPORT_SUPPORTED_OPERATION_CODES	0x0c
#define MI_REPORT_SUPPORTED_TASK_MANAGEMENT_FUNCTIONS	0x0d
#define MI_REPORT_TIMESTAMP	0x0f
#define MI_EXT_HDR_PARAM_FMT	0x20	/* RTPG byte 1, PARAMETER DATA FORMAT */
#define MO_SET_TARGET_PGS	0x0a

/* SAM status */
enum sam_status {
	SAM_STAT_GOOD			= 0x00,
	SAM_STAT_CHECK_CONDITION	= 0x02,
	SAM_STAT_BUSY			= 0x08,
	SAM_STAT_RESERVATION_CONFLICT	= 0x18,
	SAM_STAT_TASK_SET_FULL		= 0x28,
	SAM_STAT_TASK_ABORTED		= 0x40,
};

/* sense keys */
#define NO_SENSE		0x00
#define RECOVERED_ERROR		0x01
#define NOT_READY		0x02
#define MEDIUM_ERROR		0x03
#define HARDWARE_ERROR		0x04
#define ILLEGAL_REQUEST		0x05
#define UNIT_ATTENTION		0x06
#define DATA_PROTECT		0x07
#define COPY_ABORTED		0x0a
#define ABORTED_COMMAND		0x0b
#define MISCOMPARE		0x0e

/* peripheral device types */
#define TYPE_DISK		0x00
#define TYPE_ROM		0x05
#define TYPE_NO_LUN		0x7f

/* INQUIRY version descriptors */
#define SCSI_VERSION_DESCRIPTOR_SAM5	0x00a0
#define SCSI_VERSION_DESCRIPTOR_SPC4	0x0460
#define SCSI_VERSION_DESCRIPTOR_SBC3	0x04c0

#define SCSI_ACCESS_STATE_OPTIMAL	0x00
#define SCSI_ACCESS_STATE_ACTIVE	0x01
#define SCSI_ACCESS_STATE_STANDBY	0x02
#define SCSI_ACCESS_STATE_UNAVAILABLE	0x03
#define SCSI_ACCESS_STATE_LBA		0x04
#define SCSI_ACCESS_STATE_OFFLINE	0x0e
#define SCSI_ACCESS_STATE_TRANSITIONING	0x0f
#define SCSI_ACCESS_STATE_MASK		0x0f
#define SCSI_ACCESS_STATE_PREFERRED	0x80

#endif /* UT_SCSI_PROTO_H */
