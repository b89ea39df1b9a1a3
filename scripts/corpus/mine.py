#!/usr/bin/env python3
"""Lists the real three-way merges of single files in a git repository's history.

For every two-parent merge commit reachable from HEAD (visited in a seeded random order) whose
parents have exactly one merge base, each path changed on both sides (base -> first parent and
base -> second parent, no rename detection) becomes a candidate when:

- the path exists in the base, both parents and the merge commit;
- both parents differ from the base and from each other;
- no version is larger than --max-bytes;
- every version is UTF-8 text without NUL bytes;
- for a `.json` path, the base and both parents parse as strict JSON (no NaN, no duplicate
  member names); the merge commit's file may be anything people committed, except
- the merge commit's file holds no conflict marker line that neither parent holds (a conflict
  committed by mistake is not a resolution).

Each candidate is classified by `git merge-file -p ours base theirs`: "clean" (exit 0) or
"conflict". Candidates are written as JSON lines (one object a line) with the commit ids, the
path, the blob ids and sizes, the kind (json or text) and the stratum. Reading stops when every
(kind, stratum) pair has --enough candidates, or at --max-merges merges.

Usage: mine.py GIT_DIR NAME OUTPUT.jsonl [--seed 2026] [--max-bytes 40000] [--enough 400]
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

MARKERS = (b"<<<<<<< ", b">>>>>>> ")


def git(git_dir, *args, input_bytes=None, check=True):
    result = subprocess.run(["git", "--git-dir", git_dir, *args], input=input_bytes,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    if check and result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} exited {result.returncode}")
    return result


class Blobs:
    """One long-running `git cat-file --batch` for reading blobs by `COMMIT:PATH` or id."""

    def __init__(self, git_dir):
        self.process = subprocess.Popen(["git", "--git-dir", git_dir, "cat-file", "--batch"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def read(self, spec):
        """Returns (blob id, bytes), or None when the spec names nothing or not a blob."""
        self.process.stdin.write(spec.encode() + b"\n")
        self.process.stdin.flush()
        header = self.process.stdout.readline().split()
        if len(header) < 3:
            return None
        size = int(header[2])
        data = self.process.stdout.read(size)
        self.process.stdout.read(1)
        if header[1] != b"blob":
            return None
        return header[0].decode(), data


def strict_json(data):
    def no_constant(name):
        raise ValueError(f"not JSON: {name}")

    def unique(pairs):
        keys = [key for key, _ in pairs]
        if len(keys) != len(set(keys)):
            raise ValueError("duplicate member name")
        return dict(pairs)

    try:
        json.loads(data.decode("utf-8"), parse_constant=no_constant, object_pairs_hook=unique)
        return True
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False


def is_text(data):
    if b"\0" in data:
        return False
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def marker_lines(data):
    return {line for line in data.split(b"\n") if line.startswith(MARKERS) or line == b"======="}


def merge_file_clean(base, ours, theirs, scratch):
    paths = []
    for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
        path = os.path.join(scratch, name)
        with open(path, "wb") as handle:
            handle.write(data)
        paths.append(path)
    result = subprocess.run(["git", "merge-file", "-p", *paths], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if result.returncode < 0 or result.returncode > 127:
        raise RuntimeError("git merge-file failed")
    return result.returncode == 0


def changed_paths(git_dir, base, side):
    output = git(git_dir, "diff-tree", "-r", "-z", "--no-renames", "--name-only", base, side).stdout
    return {name.decode("utf-8", "surrogateescape") for name in output.split(b"\0") if name}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("git_dir")
    parser.add_argument("name")
    parser.add_argument("output")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--max-bytes", type=int, default=40000)
    parser.add_argument("--enough", type=int, default=400)
    parser.add_argument("--max-merges", type=int, default=30000)
    parser.add_argument("--max-seconds", type=float, default=1800)
    args = parser.parse_args()

    lines = git(args.git_dir, "rev-list", "--merges", "--parents", "HEAD").stdout.decode().splitlines()
    merges = [line.split() for line in lines]
    merges = [m for m in merges if len(m) == 3]
    merges.sort()
    random.Random(args.seed).shuffle(merges)
    head = git(args.git_dir, "rev-parse", "HEAD").stdout.decode().strip()
    blobs = Blobs(args.git_dir)
    seen = set()
    counts = {}
    started = time.time()
    visited = 0
    with tempfile.TemporaryDirectory() as scratch, open(args.output, "w") as out:
        for merge, ours, theirs in merges[: args.max_merges]:
            if time.time() - started > args.max_seconds:
                break
            if counts and all(counts.get((k, s), 0) >= args.enough for k in ("json", "text") for s in ("clean", "conflict")):
                break
            visited += 1
            bases = git(args.git_dir, "merge-base", "--all", ours, theirs, check=False).stdout.decode().split()
            if len(bases) != 1:
                continue
            base = bases[0]
            both = changed_paths(args.git_dir, base, ours) & changed_paths(args.git_dir, base, theirs)
            for path in sorted(both):
                kind = "json" if path.lower().endswith(".json") else "text"
                versions = {}
                for role, commit in (("base", base), ("ours", ours), ("theirs", theirs), ("merged", merge)):
                    found = blobs.read(f"{commit}:{path}")
                    if found is None or len(found[1]) > args.max_bytes or not is_text(found[1]):
                        break
                    versions[role] = found
                if len(versions) != 4:
                    continue
                ids = {role: blob_id for role, (blob_id, _) in versions.items()}
                data = {role: content for role, (_, content) in versions.items()}
                if len({ids["base"], ids["ours"], ids["theirs"]}) != 3:
                    continue
                key = (ids["base"], ids["ours"], ids["theirs"])
                if key in seen:
                    continue
                seen.add(key)
                if marker_lines(data["merged"]) - marker_lines(data["ours"]) - marker_lines(data["theirs"]):
                    continue
                if kind == "json" and not all(strict_json(data[r]) for r in ("base", "ours", "theirs")):
                    continue
                stratum = "clean" if merge_file_clean(data["base"], data["ours"], data["theirs"], scratch) else "conflict"
                counts[(kind, stratum)] = counts.get((kind, stratum), 0) + 1
                out.write(json.dumps({
                    "repository": args.name, "head": head, "merge": merge, "ours": ours, "theirs": theirs,
                    "base": base, "path": path, "kind": kind, "stratum": stratum, "blobs": ids,
                    "bytes": sum(len(d) for d in data.values()),
                }) + "\n")
                out.flush()
    summary = ", ".join(f"{k} {s} {counts.get((k, s), 0)}" for k in ("json", "text") for s in ("clean", "conflict"))
    print(f"{args.name}: {visited} of {len(merges)} merges read in {time.time() - started:.0f}s; {summary}", file=sys.stderr)


if __name__ == "__main__":
    main()
