// SPDX-License-Identifier: GPL-2.0
/*
 * tcmx_loop: the files of $T/loopback/<wwn>/tpgt_<t>/ (nexus,
 * transport_status, address) and of its attrib/ (fabric_prot_type), as
 * tcm_loop has them.  Setting the nexus publishes the TPG to the fast path
 * (struct loop_host) and registers the I_T nexus with the core, clearing
 * it undoes both.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

#include "loop.h"

static ssize_t loop_tpg_nexus_show(struct config_item *item, char *page)
{
	struct loop_tpg *lt = to_loop_tpg(tcmx_item_to_tpg(item));
	ssize_t ret = -ENODEV;

	mutex_lock(&lt->hba->lock);
	if (lt->nexus.name[0])
		ret = snprintf(page, PAGE_SIZE, "%s\n", lt->nexus.name);
	mutex_unlock(&lt->hba->lock);
	return ret;
}

/* a value with a NUL in it would be read only up to the NUL: refused */
static bool loop_value_has_nul(const char *page, size_t count, u16 tag,
			       const char *attr)
{
	if (!memchr(page, '\0', count))
		return false;
	pr_err("tpgt_%u: %s: the value has a NUL byte\n", tag, attr);
	return true;
}

static ssize_t loop_tpg_nexus_store(struct config_item *item,
				    const char *page, size_t count)
{
	struct loop_tpg *lt = to_loop_tpg(tcmx_item_to_tpg(item));
	char name[LOOP_NAME_LEN];
	size_t len = count;
	ssize_t ret = count;

	if (loop_value_has_nul(page, count, lt->tpg.tag, "nexus"))
		return -EINVAL;
	if (len && page[len - 1] == '\n')
		len--;

	mutex_lock(&lt->hba->lock);
	if (len == 4 && !strncmp(page, "NULL", 4)) {
		if (!lt->nexus.name[0]) {
			pr_err("tpgt_%u: no I_T nexus to drop\n", lt->tpg.tag);
			ret = -ENODEV;
		} else {
			/* -EPERM while a LUN of the TPG is linked */
			ret = loop_drop_nexus(lt) ?: count;
		}
	} else if (loop_port_kind(page, len, false) !=
		   loop_port_kind(tcmx_wwn_name(&lt->hba->wwn),
				  strlen(tcmx_wwn_name(&lt->hba->wwn)), true)) {
		pr_err("tpgt_%u: initiator port %.*s is not a port name of the WWN's kind (naa.<16 or 32 hex digits>, fc.<16 hex digits>, iqn.<name>)\n",
		       lt->tpg.tag, (int)min_t(size_t, len, 64), page);
		ret = -EINVAL;
	} else if (lt->nexus.name[0]) {
		pr_err("tpgt_%u: I_T nexus %s exists, write NULL first\n",
		       lt->tpg.tag, lt->nexus.name);
		ret = -EEXIST;
	} else {
		/* loop_port_kind() took only names shorter than LOOP_NAME_LEN */
		memcpy(name, page, len);
		name[len] = '\0';
		ret = loop_add_nexus(lt, name) ?: count;
	}
	mutex_unlock(&lt->hba->lock);
	return ret;
}

static ssize_t loop_tpg_transport_status_show(struct config_item *item,
					      char *page)
{
	struct loop_tpg *lt = to_loop_tpg(tcmx_item_to_tpg(item));

	return snprintf(page, PAGE_SIZE, "%s\n",
			READ_ONCE(lt->offline) ? "offline" : "online");
}

static ssize_t loop_tpg_transport_status_store(struct config_item *item,
					       const char *page, size_t count)
{
	struct loop_tpg *lt = to_loop_tpg(tcmx_item_to_tpg(item));

	if (loop_value_has_nul(page, count, lt->tpg.tag, "transport_status"))
		return -EINVAL;
	if (sysfs_streq(page, "online")) {
		WRITE_ONCE(lt->offline, false);
		return count;
	}
	if (sysfs_streq(page, "offline")) {
		WRITE_ONCE(lt->offline, true);
		return count;
	}
	pr_err("tpgt_%u: transport_status must be online or offline\n",
	       lt->tpg.tag);
	return -EINVAL;
}

static ssize_t loop_tpg_address_show(struct config_item *item, char *page)
{
	struct loop_tpg *lt = to_loop_tpg(tcmx_item_to_tpg(item));

	return snprintf(page, PAGE_SIZE, "%u:0:%u\n",
			lt->hba->shost->host_no, lt->tpg.tag);
}

CONFIGFS_ATTR(loop_tpg_, nexus);
CONFIGFS_ATTR(loop_tpg_, transport_status);
CONFIGFS_ATTR_RO(loop_tpg_, address);

struct configfs_attribute *loop_tpg_attrs[] = {
	&loop_tpg_attr_nexus,
	&loop_tpg_attr_transport_status,
	&loop_tpg_attr_address,
	NULL,
};

/* ---- tpgt_<t>/attrib/ ---- */

static ssize_t loop_tpg_attrib_fabric_prot_type_show(struct config_item *item,
						     char *page)
{
	return snprintf(page, PAGE_SIZE, "0\n");	/* no T10 PI */
}

static ssize_t loop_tpg_attrib_fabric_prot_type_store(struct config_item *item,
						      const char *page,
						      size_t count)
{
	struct tcmx_tpg *tpg = tcmx_attrib_item_to_tpg(item);
	unsigned int val;
	int ret;

	if (loop_value_has_nul(page, count, tpg->tag, "fabric_prot_type"))
		return -EINVAL;
	ret = kstrtouint(page, 0, &val);
	if (ret) {
		pr_err("tpgt_%u: fabric_prot_type is not a number\n", tpg->tag);
		return ret;
	}
	if (val) {
		pr_err("tpgt_%u: fabric_prot_type %u unsupported, only 0 (no protection)\n",
		       tpg->tag, val);
		return -EINVAL;
	}
	return count;
}

CONFIGFS_ATTR(loop_tpg_attrib_, fabric_prot_type);

struct configfs_attribute *loop_tpg_attrib_attrs[] = {
	&loop_tpg_attrib_attr_fabric_prot_type,
	NULL,
};
