# SPDX-License-Identifier: GPL-2.0
"""The CI tier this run is in (TCMX_TIER, tests/conftest.py): soak lengths
that prove a bound run long on 6.1 (tier full) and short elsewhere."""
import os

TIER = os.environ.get("TCMX_TIER", "full")


def soak(full, other):
    """full in tiers full and all (6.1, by hand), other in second and
    core (6.12, PREEMPT_RT): the same assertion, a shorter soak."""
    return full if TIER in ("full", "all") else other
