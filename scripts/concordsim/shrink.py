"""Shortening a failing run: delta debugging over its list of steps."""

from __future__ import annotations

import shutil
import tempfile
import time

from .simulation import run_steps


def shrink(args, steps, ndev, seed, failure, deadline):
    """The shortest list of steps found in time that fails the same way (the same signature).

    Each candidate is replayed in a fresh folder, with the oracle. First whole kinds of steps are
    dropped (clock skews, airplane toggles, ...), then chunks of steps, then single steps."""
    tries = 0
    # The oracle's cheaper comparisons (conflicts, sync reports, work tree) suffice to see again a
    # failure of a kind they raise; versions, contents and listings need every comparison.
    light = failure.kind not in ("versions", "nothing lost", "documents", "show", "unexpected error")

    def fails(candidate):
        nonlocal tries
        tries += 1
        root = tempfile.mkdtemp(prefix="concord-shrink-")
        try:
            got, _ = run_steps(args, candidate, ndev, seed, root, twins=(failure.kind == "determinism"), light=light)
            return got is not None and got.signature() == failure.signature()
        finally:
            shutil.rmtree(root, ignore_errors=True)

    for kind in ("skew", "quiet", "outage", "race", "airplane", "resolve2", "resolve-all", "resolve", "rm", "slow"):
        if time.monotonic() >= deadline:
            break
        candidate = [s for s in steps if s["op"] != kind]
        if len(candidate) < len(steps) and fails(candidate):
            steps = candidate
    n = 2
    while len(steps) >= 2 and time.monotonic() < deadline:
        size = -(-len(steps) // n)
        chunks = [steps[i:i + size] for i in range(0, len(steps), size)]
        reduced = False
        for i in range(len(chunks)):
            if time.monotonic() >= deadline:
                break
            candidate = [s for j, c in enumerate(chunks) if j != i for s in c]
            if fails(candidate):
                steps, n, reduced = candidate, max(n - 1, 2), True
                break
        if not reduced:
            if n >= len(steps):
                break
            n = min(len(steps), n * 2)
    return steps, tries
