#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tools/demo.sh: run inside tools/vm (make demo). Loads tcmx, makes
# $TCMX_DEMO_LUNS (4) 64 MiB ramdisk LUNs on one loopback target with
# targetcli, shows them, runs fio 4k random read/write on all of them
# (results: /out/demo-fio.json) and tears everything down.
# TCMX_DEMO_STACK=lio does the same on the in-tree LIO, for comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
stack=${TCMX_DEMO_STACK:-tcmx}
nluns=${TCMX_DEMO_LUNS:-4}
runtime=${TCMX_DEMO_RUNTIME:-10}
wwn=naa.5001405000000001
step() { echo; echo "=== $* ($SECONDS s)"; }

step "loading the $stack modules"
if [ "$stack" = lio ]; then
	modprobe -a target_core_mod tcm_loop
	clean=clean-intree
else
	modprobe -a tcmx_core tcmx_rd tcmx_loop
	clean=clean
fi
trap '/usr/bin/python3 tests/tcmxlib.py $clean' EXIT
grep -E '^(tcmx|target_core|tcm_loop)' /proc/modules | cut -d' ' -f1-3

step "targetcli: $nluns ramdisk LUNs on loopback/$wwn (one targetcli session)"
{
	echo "set global color_mode=false"
	for i in $(seq 0 $((nluns - 1))); do
		echo "/backstores/ramdisk create name=r$i size=64M"
	done
	echo "/loopback create $wwn"
	for i in $(seq 0 $((nluns - 1))); do
		echo "/loopback/$wwn/luns create /backstores/ramdisk/r$i"
	done
	echo "ls"
	echo "exit"
} | targetcli

step "lsscsi"
disks=()
for _ in $(seq 1 60); do
	mapfile -t disks < <(lsscsi | awk '$2 == "disk" && $NF ~ /^\/dev\// { print $NF }')
	[ ${#disks[@]} -ge "$nluns" ] && break
	sleep 0.5
done
lsscsi
[ ${#disks[@]} -ge "$nluns" ] || { echo "demo: only ${#disks[@]} of $nluns disks"; exit 1; }

step "fio: 4k randrw 75/25, libaio, direct, QD32, $(nproc) jobs, ${runtime}s"
files=$(IFS=:; echo "${disks[*]}")
out=/out
mountpoint -q /out || out=/tmp
fio --name=demo --filename="$files" --rw=randrw --rwmixread=75 --bs=4k \
	--ioengine=libaio --direct=1 --iodepth=32 --numjobs="$(nproc)" \
	--time_based --runtime="$runtime" --group_reporting --eta=never \
	--output-format=json --output="$out/demo-fio.json"
/usr/bin/python3 - "$out/demo-fio.json" "$stack" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
r, w = j["read"], j["write"]
print("%s: %.0f IOPS (read %.0f, write %.0f), read lat mean %.0f us, "
      "errors %d" % (sys.argv[2], r["iops"] + w["iops"], r["iops"],
                     w["iops"], r["clat_ns"]["mean"] / 1000, j["error"]))
sys.exit(1 if j["error"] else 0)
PY

step "teardown"
