# SPDX-License-Identifier: GPL-2.0
KVER ?= $(shell ls /boot/vmlinuz-6.1.* 2>/dev/null | sed 's|/boot/vmlinuz-||' | sort -V | tail -1)
KDIR ?= /lib/modules/$(KVER)/build

all: modules
modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules
clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
.PHONY: all modules clean
