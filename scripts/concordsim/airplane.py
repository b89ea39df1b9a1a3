"""The airplane-mode scenario and the randomized multi-device simulation of Concord.

Run it through `scripts/airplane-mode`, which builds the `concord` command line first.
Everything here drives that command line, exactly as a user would: there is no second
implementation of sync or resolution. `git` is used only to read (tree ids, `fsck`, contents by
blob id) and, for the git-daemon cloud, to create the empty bare repository and serve it.

  scripts/airplane-mode                                  the two-device scenario, latest-wins
  scripts/airplane-mode --policy merge                   ... resolved by merging
  scripts/airplane-mode --cloud git-daemon --keep        ... over a real `git daemon`, folder kept
  scripts/airplane-mode --random --devices 3 --steps 300 --seed 1
  scripts/airplane-mode --random --devices 5 --steps 200 --seeds 1-1000 --jobs 2   (the soak)
  scripts/airplane-mode --replay FILE                    replays a step list written on a failure

The random run keeps an oracle beside the devices (concordsim/oracle.py) and compares every
device a step touched with it after every step.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from .scenario import scenario
from .shrink import shrink
from .simulation import Simulation, as_failure, short_step
from .world import PROFILE

SUMMARY_PASS = "invariants hold"


def random_run(args, seed, ndev, nsteps, replay_steps=None) -> int:
    start = time.monotonic()
    root = tempfile.mkdtemp(prefix=f"concord-sim-{seed}-")
    sim = Simulation(args, root, ndev, seed, verbose=args.verbose)
    tmpdir = os.environ.get("TMPDIR", "/tmp")
    svg = os.path.join(tmpdir, f"concord-airplane-{'replay' if replay_steps else 'seed'}-{seed}-{ndev}x{nsteps}.svg")
    failure = None
    index = 0
    try:
        sim.setup()
        if not args.quiet_seeds:
            print(f"random run: seed {seed}, {ndev} devices ({', '.join(sim.names)}), {nsteps} steps, "
                  f"cloud {args.cloud}; policies: {', '.join(sim.policies)}"
                  + ("" if sim.oracle else "; no oracle (--chaos)"), flush=True)
        if replay_steps is not None:
            for i, step in enumerate(replay_steps):
                index = i + 1
                sim.steps.append(step)
                sim.execute(step, index)
        else:
            while index < nsteps:
                index += 1
                step = {"op": "quiet"} if index % args.quiet_every == 0 else sim.choose()
                sim.steps.append(step)
                sim.execute(step, index)
                if not args.quiet_seeds and not args.verbose and index % 50 == 0:
                    print(f"  step {index}: {sim.stats.summary()}", flush=True)
        sim.final_checks(index + 1)
    except (Exception, subprocess.TimeoutExpired) as error:  # bad JSON, a hung command, a bug here: reported too
        failure = as_failure(error)
        sim.timeline.add(0, "failure", str(failure))
    finally:
        sim.world.close()
    sim.timeline.write(svg, f"Concord random run: seed {seed}, {ndev} devices, {len(sim.steps)} steps"
                       + (" - FAILED" if failure else ""))
    elapsed = time.monotonic() - start

    if failure is None:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
        if not args.quiet_seeds:
            print(f"timeline: {svg}")
        for issue, (example, count) in sorted((sim.checker.known if sim.checker else {}).items()):
            print(f"seed {seed}: KNOWN ISSUE ({count}x, not failing; --strict fails): {issue}; first: {example}")
        checked = (f"{sim.stats.checks} oracle comparisons, " if sim.oracle else "")
        print(f"seed {seed}: {sim.stats.summary()}, {SUMMARY_PASS} ({checked}{sim.stats.twins} integrations "
              f"replayed, {sim.stats.quiet} quiet rounds, {sim.stats.gcs} gc, {sim.stats.hostile} hostile "
              f"commits refused, {sim.stats.scratch} editors' temporary files passed over, {sim.stats.renames} renames, "
              f"{sim.stats.flips} files made folders or back, {sim.stats.slow} slow writers ({sim.stats.slow_seconds:.1f}s), {elapsed:.1f}s)", flush=True)
        return 0

    print(f"INVARIANT FAILED at step {index} of seed {seed}: {failure}", flush=True)
    print("last commands:")
    for line in sim.world.transcript[-10:]:
        print(f"  {line}")
    steps_file = os.path.join(tmpdir, f"concord-airplane-seed-{seed}-steps.json")
    steps = sim.steps
    shortened = steps
    if args.shrink_seconds > 0 and len(steps) > 1:
        print(f"shrinking {len(steps)} steps (at most {args.shrink_seconds:.0f}s)...", flush=True)
        shortened, tries = shrink(args, steps, ndev, seed, failure, time.monotonic() + args.shrink_seconds)
        print(f"  {tries} replays", flush=True)
    with open(steps_file, "w", encoding="utf-8") as f:
        json.dump({"seed": seed, "devices": ndev, "failure": str(failure), "steps": shortened}, f, indent=1)
    print(f"seed {seed}: {failure.kind} fails; {len(shortened)} of {len(steps)} steps still reproduce it "
          f"(then a quiet round and the final checks):")
    for i, step in enumerate(shortened, 1):
        print(f"  {i:3d}. {short_step(step, sim.names)}")
    if replay_steps is None:
        print(f"reproduce: scripts/airplane-mode --random --devices {ndev} --steps {nsteps} --seed {seed}")
    print(f"replay the shortened list: scripts/airplane-mode --replay {steps_file} --verbose")
    print(f"kept {root}")
    print(f"timeline: {svg}")
    print(f"seed {seed}: {sim.stats.summary()}, INVARIANT FAILED ({failure.kind})", flush=True)
    return 1


def parse_seeds(text):
    seeds = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            seeds += range(int(a), int(b) + 1)
        elif part:
            seeds.append(int(part))
    return seeds


def soak(args, argv) -> int:
    """Many seeds, one after the other, or split over `--jobs` processes (each a run of this
    program with its share of the seeds); stops at the first failing seed of each process."""
    seeds = parse_seeds(args.seeds)
    start = time.monotonic()
    if args.jobs > 1:
        shares = [seeds[i::args.jobs] for i in range(args.jobs)]
        base = [a for a in argv if not a.startswith("--jobs") and a != str(args.jobs)]
        base = [a for a in base if not a.startswith("--seeds=")]
        if "--seeds" in base:
            i = base.index("--seeds")
            del base[i:i + 2]
        procs = []
        for share in shares:
            if share:
                command = [sys.executable, "-B", "-m", "concordsim.airplane", *base,
                           "--seeds", ",".join(map(str, share)), "--jobs", "1"]
                procs.append(subprocess.Popen(command, env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(__file__)))))
        codes = [p.wait() for p in procs]
        status = max(codes)
        print(f"soak: {len(seeds)} seeds over {len(procs)} processes: "
              f"{'every process passed' if status == 0 else 'a process FAILED (see above)'} "
              f"({time.monotonic() - start:.0f}s)")
        return status
    for n, seed in enumerate(seeds, 1):
        code = random_run(args, seed, args.devices, args.steps)
        if code != 0:
            print(f"soak: seed {seed} failed after {n - 1} passing seeds")
            return code
    print(f"soak: {len(seeds)} seeds x {args.devices} devices x {args.steps} steps, {SUMMARY_PASS} "
          f"({time.monotonic() - start:.0f}s)", flush=True)
    return 0


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(prog="airplane-mode", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--concord", default=os.environ.get("CONCORD_BIN", "concord"), help="the concord binary")
    p.add_argument("--policy", choices=["latest", "merge"], default="latest")
    p.add_argument("--cloud", choices=["local", "git-daemon", "ssh", "https"], default="local")
    p.add_argument("--keep", action="store_true", help="leave the folder for inspection")
    p.add_argument("--random", action="store_true", help="a seeded random run instead of the scenario")
    p.add_argument("--devices", type=int, default=3)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--seeds", help="several seeds, e.g. 1-1000 or 3,7,9 (a soak); stops at the first failure")
    p.add_argument("--jobs", type=int, default=1, help="with --seeds: split the seeds over this many processes")
    p.add_argument("--replay", help="replay a step list written by a failed run")
    p.add_argument("--quiet-every", type=int, default=25, help="a quiet round every N steps (default 25)")
    p.add_argument("--shrink-seconds", type=float, default=180, help="time bound for shortening a failure (0: none)")
    p.add_argument("--verbose", "-v", action="store_true", help="one line per step")
    p.add_argument("--chaos", action="store_true",
                   help="also race syncs of several devices (and a save) at the same moment; "
                        "the output is then not reproducible, and the oracle is off")
    p.add_argument("--no-oracle", action="store_true", help="only the checks that need no model (faster)")
    p.add_argument("--no-history-check", action="store_true",
                   help="do not compare each history index extension with a rebuild (CONCORD_CHECK_HISTORY_INDEX)")
    p.add_argument("--strict", action="store_true", help="fail on the known issues too (see the end of a run)")
    p.add_argument("--inject-fault", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--profile", action="store_true", help="print time spent per subcommand on stderr")
    args = p.parse_args(argv)
    if os.sep in args.concord:
        args.concord = os.path.abspath(args.concord)  # the runs change folder
    if args.profile:
        import atexit

        def report():
            for name, (count, total) in sorted(PROFILE.items(), key=lambda kv: -kv[1][1]):
                print(f"profile: {name:<10} {count:6d} calls {total:8.1f}s {1000 * total / count:7.1f}ms each",
                      file=sys.stderr)
        atexit.register(report)
    args.quiet_seeds = False
    if args.devices < 2:
        p.error("--devices must be at least 2")
    if args.replay:
        with open(args.replay, encoding="utf-8") as f:
            data = json.load(f)
        args.shrink_seconds = 0
        return random_run(args, data["seed"], data["devices"], len(data["steps"]), replay_steps=data["steps"])
    if args.seeds:
        return soak(args, argv)
    if args.random:
        return random_run(args, args.seed, args.devices, args.steps)
    return scenario(args)


if __name__ == "__main__":
    sys.exit(main())
