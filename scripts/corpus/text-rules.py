#!/usr/bin/env python3
"""Measures finer text merges inside git's conflict hunks, as docs/merge-corpus.md reports them.

For each text merge where `git merge-file` conflicts, every conflict hunk (read from
`git merge-file --diff3`) is given to a rule; when the rule resolves every hunk of the file, the
result is compared with what people committed. The rules:

- lines: both sides' line edits inside the hunk (runs of the ancestor's lines replaced, found by
  difflib) applied together when they touch different lines (adjacent edits allowed);
- insertions, ours first / theirs first: hunks where the ancestor has no line, both sides' lines kept;
- words in different sentences: a word-level three-way merge of the hunk, when no sentence of the
  ancestor is touched by both sides.

Usage:
  text-rules.py CORPUS_DIR [--set development]          the corpus's git-conflict text cases
  text-rules.py --candidates DIR --plan PLAN.tsv NAME... every candidate mine.py listed for those
                                                         repositories (data files only)
"""

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from build import is_data  # noqa: E402


def diff3(base, ours, theirs):
    with tempfile.TemporaryDirectory() as scratch:
        paths = []
        for name, data in (("o", ours), ("b", base), ("t", theirs)):
            path = os.path.join(scratch, name)
            with open(path, "wb") as handle:
                handle.write(data)
            paths.append(path)
        return subprocess.run(["git", "merge-file", "-p", "--diff3", "-L", "O", "-L", "B", "-L", "T", *paths],
                              stdout=subprocess.PIPE).stdout


def segments(output):
    """The merge output as ("text", lines) and ("conflict", ours, base, theirs) segments."""
    lines = output.split(b"\n")
    result, current, index = [], [], 0
    while index < len(lines):
        if lines[index] == b"<<<<<<< O":
            if current:
                result.append(("text", current))
                current = []
            parts, index = [[], [], []], index + 1
            for part, end in ((0, b"||||||| B"), (1, b"======="), (2, b">>>>>>> T")):
                while lines[index] != end:
                    parts[part].append(lines[index])
                    index += 1
                index += 1
            result.append(("conflict", *parts))
        else:
            current.append(lines[index])
            index += 1
    if current:
        result.append(("text", current))
    return result


def edits(base, side):
    matcher = difflib.SequenceMatcher(None, base, side, autojunk=False)
    return [(i1, i2, tuple(side[j1:j2])) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def collide(a, b):
    (s1, e1, _), (s2, e2, _) = a, b
    if s1 == e1 and s2 == e2:
        return s1 == s2
    if s1 == e1:
        return s2 < s1 < e2
    if s2 == e2:
        return s1 < s2 < e1
    return s1 < e2 and s2 < e1


def apply_both(base, ours_edits, theirs_edits):
    if any(collide(x, y) and x != y for x in ours_edits for y in theirs_edits):
        return None
    merged, position = [], 0
    for start, end, lines in sorted(set(ours_edits + theirs_edits), key=lambda e: (e[0], 0 if e[0] == e[1] else 1)):
        if start < position:
            return None
        merged += base[position:start] + list(lines)
        position = end
    return merged + base[position:]


def lines_rule(ours, base, theirs):
    return apply_both(base, edits(base, ours), edits(base, theirs))


def words_rule(ours, base, theirs):
    def tokens(lines):
        return re.findall(rb"\S+|\s+", b"\n".join(lines))
    b, o, t = tokens(base), tokens(ours), tokens(theirs)
    sentence, number = [], 0
    for token in b:
        sentence.append(number)
        if token.endswith((b".", b"!", b"?")) or b"\n" in token:
            number += 1

    def touched(edit_list):
        found = set()
        for start, end, _ in edit_list:
            found |= set(sentence[max(0, min(start, len(b) - 1)):max(start + 1, end)]) if b else {0}
        return found
    ours_edits, theirs_edits = edits(b, o), edits(b, t)
    if touched(ours_edits) & touched(theirs_edits):
        return None
    merged = apply_both(b, ours_edits, theirs_edits)
    return None if merged is None else b"".join(merged).split(b"\n")


RULES = {
    "lines": lines_rule,
    "insertions, ours first": lambda o, b, t: None if b else o + t,
    "insertions, theirs first": lambda o, b, t: None if b else t + o,
    "words in different sentences": words_rule,
}


def resolve(parts, rule):
    out = []
    for segment in parts:
        if segment[0] == "text":
            out += segment[1]
        else:
            resolved = rule(*segment[1:])
            if resolved is None:
                return None
            out += resolved
    return b"\n".join(out)


def cases(args):
    if args.candidates:
        git_dirs = {}
        with open(args.plan) as handle:
            for line in handle:
                if not line.startswith("#") and line.strip():
                    fields = line.rstrip("\n").split("\t")
                    git_dirs[fields[0]] = fields[2]
        for name in args.names:
            with open(os.path.join(args.candidates, f"{name}.jsonl")) as handle:
                for line in handle:
                    item = json.loads(line)
                    if item["kind"] == "text" and item["stratum"] == "conflict" and is_data(item["path"]):
                        yield [subprocess.run(["git", "--git-dir", git_dirs[name], "cat-file", "blob", item["blobs"][role]],
                                              stdout=subprocess.PIPE, check=True).stdout
                               for role in ("base", "ours", "theirs", "merged")]
        return
    with open(os.path.join(args.corpus, "cases.tsv")) as handle:
        rows = [line.rstrip("\n").split("\t") for line in handle][1:]
    for case, corpus_set, _, kind, stratum, *_, path in rows:
        if corpus_set == args.set and kind == "text" and stratum == "conflict":
            extension = os.path.splitext(path)[1] or ".txt"
            files = args.files or args.corpus
            yield [open(os.path.join(files, case, role + extension), "rb").read()
                   for role in ("base", "ours", "theirs", "merged")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", nargs="?", default="Tests/ConcordMergeTests/Corpus")
    parser.add_argument("--files", help="where the cases' files are, when not in CORPUS_DIR")
    parser.add_argument("--set", default="development")
    parser.add_argument("--candidates")
    parser.add_argument("--plan")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    if args.candidates and args.corpus and not args.names:
        args.names = [args.corpus]
    counts = {name: [0, 0] for name in RULES}
    total = 0
    for base, ours, theirs, merged in cases(args):
        total += 1
        parts = segments(diff3(base, ours, theirs))
        for name, rule in RULES.items():
            result = resolve(parts, rule)
            if result is not None:
                counts[name][0] += 1
                counts[name][1] += result == merged
    print(f"{total} text merges where git conflicts")
    for name, (acts, right) in counts.items():
        print(f"{name}: acts on {acts}, right {right}" + (f" ({100 * right // acts}%)" if acts else ""))


if __name__ == "__main__":
    main()
