"""Concord's scripts that drive the `concord` binary from outside, as a user would.

- `fixture`    a cloud and N devices, and running `concord` on them (shared by every script)
- `bulk_fixture` the same pre-filled with many documents by git plumbing (the benchmarks')
- `content`    document contents (bytes or packages), their keys, the work tree as documents
- `world`      the simulation's world: the fixture plus a virtual clock, skews, outages, checks
- `oracle`     the model of what every device must hold, and the comparison with the real ones
- `simulation` the seeded random steps, played and checked against the oracle after each one
- `shrink`     delta debugging of a failing list of steps
- `scenario`   the two-device airplane-mode story
- `timeline`   the SVG picture of a run
- `airplane`   the command line of scripts/airplane-mode
- `crash`      the crash harness (scripts/crash-harness): kills at every crash point
- `mutate`     deliberate bugs that the checks must catch (scripts/mutate)

Python 3.11 standard library only.
"""
