#!/usr/bin/env python3
"""Builds the fuzz targets (libFuzzer with AddressSanitizer) and runs each for a bounded time.

Run through scripts/fuzz, which installs what is missing. The targets are the folders of
Tests/Fuzz/Fuzzers (one executable each, `fuzz-<target>`, calling FuzzTarget in
Tests/GitFormatFuzzing); they are built with CONCORD_FUZZ=1 in their own scratch path
(.build-fuzz, git-ignored), optimized (-c release: several times the inputs a second of a debug
build; `swift test` replays every saved input in a debug build, bounds checks of unsafe buffers
included) with `-sanitize=fuzzer,address` (coverage-guided, every read and write checked against
its allocation: each part of an input is copied to an allocation of its own size). Each runs for --seconds with a fixed
--seed over its committed seed corpus (Tests/Fuzz/Corpus/<target>, read only) and the crashes
saved before (Tests/Fuzz/Crashes/<target>, replayed first), with limits on memory (-rss_limit_mb,
and -malloc_limit_mb for any one allocation: every reader is given small limits, so a larger
allocation is a size believed before it was checked) and on the time of one input (-timeout).

A crash, a wrong answer (the target stops the process with a message), a leak, a time-out or an
out-of-memory fails the run (exit 1): libFuzzer's reproducer is saved under
Tests/Fuzz/Crashes/<target>/ to be committed, and `swift test` (FuzzCorpusTests) replays it from
then on. New corpus entries stay in a temporary folder unless --keep-corpus, which merges those
that add coverage into the committed corpus (libFuzzer's -merge=1).

  scripts/fuzz --list
  scripts/fuzz --seconds 20                       every target, 20 s each (CI runs --seconds 15)
  scripts/fuzz --seconds 3600 --seed 7 tree pack  two targets for an hour each, one after the other
  scripts/fuzz --build-only; scripts/fuzz --no-build --seconds 3600 tree & scripts/fuzz --no-build --seconds 3600 pack
                                                  two at once (two cores)
  scripts/fuzz --seeds                            write the seed corpora again from a new repository
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUZZ = os.path.join(ROOT, "Tests", "Fuzz")
SCRATCH = os.path.join(ROOT, ".build-fuzz")
ARTIFACTS = ("crash-", "leak-", "timeout-", "oom-", "slow-unit-")
# Swift's own crash handler stays out of the way: it would read the crashed process's memory
# under AddressSanitizer (a second error, in CrashHandlerLinux.cpp) instead of letting libFuzzer
# and AddressSanitizer report the first one.
ENVIRONMENT = dict(os.environ, SWIFT_BACKTRACE=os.environ.get("SWIFT_BACKTRACE", "enable=no"))


def targets() -> list[str]:
    folder = os.path.join(FUZZ, "Fuzzers")
    return sorted(name for name in os.listdir(folder) if os.path.isdir(os.path.join(folder, name)))


def files(folder: str) -> list[str]:
    if not os.path.isdir(folder):
        return []
    return sorted(name for name in os.listdir(folder) if not name.startswith("."))


def build() -> str:
    """Builds every fuzz executable; returns the folder that holds them."""
    # The manifest lists the folders of Tests/Fuzz/Fuzzers, which SwiftPM's manifest cache does not
    # see: a cached evaluation from before a target was added would leave its executable unbuilt.
    command = ["swift", "build", "-q", "-c", "release", "--scratch-path", SCRATCH, "--manifest-cache", "none",
               "-Xswiftc", "-sanitize=fuzzer,address", "-Xswiftc", "-use-ld=lld"]
    env = dict(os.environ, CONCORD_FUZZ="1")
    print("==> " + " ".join(["CONCORD_FUZZ=1"] + command), flush=True)
    started = time.monotonic()
    subprocess.run(command, cwd=ROOT, env=env, check=True)
    print(f"fuzz: built in {time.monotonic() - started:.0f} s", flush=True)
    return subprocess.run(command[:2] + command[3:] + ["--show-bin-path"], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def run(binary: str, target: str, args, log_folder: str) -> bool:
    """Fuzzes one target; True when nothing was found."""
    corpus = os.path.join(FUZZ, "Corpus", target)
    crashes = os.path.join(FUZZ, "Crashes", target)
    saving = os.path.join(args.crashes, target) if args.crashes else crashes
    work = tempfile.mkdtemp(prefix=f"concord-fuzz-{target}-")
    try:
        found, artifacts = os.path.join(work, "corpus"), os.path.join(work, "artifacts")
        os.makedirs(found)
        os.makedirs(artifacts)
        inputs = [found, corpus] + ([crashes] if files(crashes) else [])
        command = [binary, f"-max_total_time={args.seconds}", f"-seed={args.seed}", f"-rss_limit_mb={args.rss_limit_mb}",
                   f"-malloc_limit_mb={args.malloc_limit_mb}", f"-timeout={args.timeout}", "-print_final_stats=1",
                   f"-artifact_prefix={artifacts}/"] + inputs
        log = os.path.join(log_folder, f"{target}.log")
        started = time.monotonic()
        with open(log, "wb") as out:
            try:
                status = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=ENVIRONMENT, timeout=args.seconds + 300).returncode
            except subprocess.TimeoutExpired:
                status = "no end"
        seconds = time.monotonic() - started
        with open(log, encoding="utf-8", errors="replace") as f:
            text = f.read()
        runs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", text)
        coverage = re.findall(r"\bcov: (\d+)", text)
        summary = (f"{int(runs[-1]):,} runs" if runs else "? runs") + (f", coverage {coverage[-1]}" if coverage else "")
        if status == 0:
            added = files(found)
            print(f"fuzz: {target}: ok, {seconds:.0f} s, {summary}, {len(added)} new corpus entries", flush=True)
            if args.keep_corpus and added:
                subprocess.run([binary, "-merge=1", f"-rss_limit_mb={args.rss_limit_mb}", corpus, found],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENVIRONMENT, check=True)
                print(f"fuzz: {target}: corpus {len(files(corpus))} files after merging", flush=True)
            return True
        saved = []
        for name in files(artifacts):
            if name.startswith(ARTIFACTS):
                os.makedirs(saving, exist_ok=True)
                shutil.copyfile(os.path.join(artifacts, name), os.path.join(saving, name))
                saved.append(os.path.relpath(os.path.join(saving, name), ROOT))
        print(f"fuzz: {target}: FAILED (status {status}) after {seconds:.0f} s, {summary}; log {log}", flush=True)
        lines = text.splitlines()
        first = next((n for n, line in enumerate(lines) if re.search(r"Fatal error|==\d+==ERROR|ERROR: libFuzzer|deadly signal", line)),
                     max(len(lines) - 40, 0))
        print("\n".join("    " + line for line in lines[first:first + 40]), flush=True)
        for path in saved:
            print(f"fuzz: {target}: reproducer saved: {path} (replay: {binary} {path}; commit it: swift test replays it)", flush=True)
        return False
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="fuzz", description=__doc__.splitlines()[0],
                                epilog=__doc__.split("\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("targets", nargs="*", metavar="TARGET", help="targets to run (default: all; see --list)")
    p.add_argument("--list", action="store_true", help="list the targets with their corpus and saved crashes, and exit")
    p.add_argument("--seconds", type=int, default=20, help="how long each target runs (default 20)")
    p.add_argument("--seed", type=int, default=1, help="libFuzzer's random seed (default 1)")
    p.add_argument("--keep-corpus", action="store_true",
                   help="merge the new corpus entries that add coverage into Tests/Fuzz/Corpus/<target>")
    p.add_argument("--seeds", action="store_true", help="write the seed corpora again (scripts/fuzz.d/seeds.py) and exit")
    p.add_argument("--rss-limit-mb", type=int, default=2048, help="memory limit of the process (default 2048)")
    p.add_argument("--malloc-limit-mb", type=int, default=64, help="the largest single allocation (default 64)")
    p.add_argument("--timeout", type=int, default=10, help="seconds one input may take (default 10)")
    p.add_argument("--no-build", action="store_true", help="use the executables already in .build-fuzz")
    p.add_argument("--build-only", action="store_true", help="build the executables and exit")
    p.add_argument("--crashes", metavar="FOLDER",
                   help="save reproducers under FOLDER/<target> instead of Tests/Fuzz/Crashes/<target> (scripts/mutate: "
                        "a mutation's crashes must not be replayed by the checks of the next)")
    args = p.parse_args(argv)
    known = targets()
    if args.list:
        for target in known:
            corpus, crashes = files(os.path.join(FUZZ, "Corpus", target)), files(os.path.join(FUZZ, "Crashes", target))
            print(f"{target:<14} corpus {len(corpus):>3} files, saved crashes {len(crashes)}")
        return 0
    if args.seeds:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import seeds
        seeds.make(os.path.join(FUZZ, "Corpus"))
        return 0
    if args.seconds < 1:
        p.error("--seconds must be 1 or more (libFuzzer takes 0 for no limit)")
    unknown = [t for t in args.targets if t not in known]
    if unknown:
        p.error(f"unknown target {', '.join(unknown)} (targets: {', '.join(known)})")
    chosen = args.targets or known
    if args.no_build:
        folder = os.path.join(SCRATCH, "release")
    else:
        folder = build()
    if args.build_only:
        return 0
    missing = [t for t in chosen if not os.path.isfile(os.path.join(folder, f"fuzz-{t}"))]
    if missing:
        print(f"fuzz: no executable for {', '.join(missing)} in {folder}"
              + (" (build first: scripts/fuzz --build-only)" if args.no_build else ""), file=sys.stderr, flush=True)
        return 1
    logs = os.path.join(SCRATCH, "logs")
    os.makedirs(logs, exist_ok=True)
    started = time.monotonic()
    failed = [t for t in chosen if not run(os.path.join(folder, f"fuzz-{t}"), t, args, logs)]
    print(f"fuzz: {len(chosen) - len(failed)} of {len(chosen)} targets passed in {time.monotonic() - started:.0f} s"
          + (f"; FAILED: {', '.join(failed)}" if failed else ""), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
