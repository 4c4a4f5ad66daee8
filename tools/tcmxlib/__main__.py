# SPDX-License-Identifier: GPL-2.0
"""python3 -m tcmxlib clean|clean-intree (from tools/, or with tools/ on
the path): empty configfs if tcmx (clean) or the in-tree LIO
(clean-intree) owns it, and unload that stack (make unload, tools/demo)."""
import sys

from .kmod import unload

if sys.argv[1:] == ["clean"]:
    unload(stack="tcmx")
elif sys.argv[1:] == ["clean-intree"]:
    unload(stack="lio")
else:
    sys.exit("usage: python3 -m tcmxlib clean|clean-intree")
