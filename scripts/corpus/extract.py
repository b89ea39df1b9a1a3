#!/usr/bin/env python3
"""Writes the corpus's files from the repositories' histories, as cases.tsv lists them.

For every case, the file at its path in the merge base, the first parent, the second parent and
the merge commit (`git show COMMIT:PATH`) is written to OUT/<case>/base, ours, theirs and merged,
with the path's extension (`.txt` when it has none). The git directories come from the plan
(repository name, set, git directory, URL, licence, kinds). The files are data taken from public
repositories: they are not committed to Concord (see Corpus/SOURCE.md).

Usage: extract.py PLAN.tsv CASES.tsv OUT
"""

import os
import subprocess
import sys


def main():
    plan_path, cases_path, out = sys.argv[1:4]
    git_dirs = {}
    with open(plan_path) as handle:
        for line in handle:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            git_dirs[fields[0]] = fields[2]
    with open(cases_path) as handle:
        rows = [line.rstrip("\n").split("\t") for line in handle][1:]
    for case, _, repository, _, _, merge, ours, theirs, base, path in rows:
        folder = os.path.join(out, case)
        os.makedirs(folder, exist_ok=True)
        extension = os.path.splitext(path)[1] or ".txt"
        for role, commit in (("base", base), ("ours", ours), ("theirs", theirs), ("merged", merge)):
            data = subprocess.run(["git", "--git-dir", git_dirs[repository], "show", f"{commit}:{path}"],
                                  stdout=subprocess.PIPE, check=True).stdout
            with open(os.path.join(folder, role + extension), "wb") as file:
                file.write(data)
    print(f"wrote {len(rows)} cases to {out}")


if __name__ == "__main__":
    main()
