#!/usr/bin/env python3
"""Draws the merge corpus from the candidates mine.py listed, and writes it.

Only data files are drawn (JSON, Markdown and other prose, change logs, translation tables,
YAML and other settings; see DATA_EXTENSIONS and DATA_NAMES): no source code. For each
repository named in the plan (a TSV file: repository, set, git directory, URL, licence,
kinds of documents), the candidates of each (kind, stratum) pair -- kind json or text, stratum
clean or conflict as `git merge-file` decides -- are shuffled with
`random.Random(f"{SEED}-{repository}-{kind}-{stratum}")` and taken in that order while:

- the pair has fewer than --per-stratum cases from this repository;
- the path has fewer than --per-path cases in this pair from this repository (so that one
  busy file, a package.json bumped by a bot, does not stand for a whole repository);
- the four versions together are at most --case-bytes bytes.

OUT/cases.tsv lists every case with its set, repository, kind, stratum, commits and path,
numbered per repository; extract.py then writes the files.

Usage: build.py PLAN.tsv CANDIDATES_DIR OUT [--seed 2026] [--per-stratum 30] [--per-path 10]
"""

import argparse
import json
import os
import random


DATA_EXTENSIONS = {".json", ".md", ".markdown", ".txt", ".rst", ".adoc", ".asciidoc", ".yml", ".yaml", ".po",
                   ".pot", ".xlf", ".xliff", ".properties", ".ini", ".toml", ".csv", ".neon"}
DATA_NAMES = {"NEWS", "CHANGES", "CHANGELOG", "ChangeLog", "AUTHORS", "README", "THANKS", "UPGRADING",
              "CONTRIBUTORS", "RelNotes"}


def is_data(path):
    name = os.path.basename(path)
    return os.path.splitext(name)[1].lower() in DATA_EXTENSIONS or name in DATA_NAMES


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("plan")
    parser.add_argument("candidates")
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--per-stratum", type=int, default=30)
    parser.add_argument("--per-path", type=int, default=10)
    parser.add_argument("--case-bytes", type=int, default=64000)
    args = parser.parse_args()

    plan = []
    with open(args.plan) as handle:
        for line in handle:
            if line.startswith("#") or not line.strip():
                continue
            name, corpus_set, git_dir, url, licence, kinds = line.rstrip("\n").split("\t")
            plan.append((name, corpus_set, git_dir))

    os.makedirs(args.out, exist_ok=True)
    rows = []
    for name, corpus_set, git_dir in plan:
        with open(os.path.join(args.candidates, f"{name}.jsonl")) as handle:
            candidates = [json.loads(line) for line in handle]
        chosen = []
        for kind in ("json", "text"):
            for stratum in ("clean", "conflict"):
                pool = sorted((c for c in candidates
                               if c["kind"] == kind and c["stratum"] == stratum and is_data(c["path"])),
                              key=lambda c: (c["merge"], c["path"]))
                random.Random(f"{args.seed}-{name}-{kind}-{stratum}").shuffle(pool)
                per_path = {}
                taken = 0
                for candidate in pool:
                    if taken >= args.per_stratum:
                        break
                    if candidate["bytes"] > args.case_bytes or per_path.get(candidate["path"], 0) >= args.per_path:
                        continue
                    per_path[candidate["path"]] = per_path.get(candidate["path"], 0) + 1
                    chosen.append(candidate)
                    taken += 1
        chosen.sort(key=lambda c: (c["kind"], c["stratum"], c["merge"], c["path"]))
        for number, candidate in enumerate(chosen, start=1):
            case = f"{name}/{number:03d}"
            rows.append([case, corpus_set, name, candidate["kind"], candidate["stratum"], candidate["merge"],
                         candidate["ours"], candidate["theirs"], candidate["base"], candidate["path"]])
    with open(os.path.join(args.out, "cases.tsv"), "w") as out:
        out.write("case\tset\trepository\tkind\tstratum\tmerge\tours (first parent)\ttheirs (second parent)\t"
                  "base (merge-base)\tpath\n")
        for row in rows:
            out.write("\t".join(row) + "\n")
    counts = {}
    for row in rows:
        key = (row[1], row[3], row[4])
        counts[key] = counts.get(key, 0) + 1
    for key in sorted(counts):
        print(" ".join(key), counts[key])


if __name__ == "__main__":
    main()
