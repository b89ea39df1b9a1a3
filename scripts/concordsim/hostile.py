"""A hostile cloud: someone who can write to the cloud (a bare repository) crafts objects byte by
byte with git plumbing (`hash-object --literally`, so that a tree can hold any name and mode) and
moves the cloud's `main` to them. Concord must refuse such a commit whole at the next sync or
clone (DESIGN.md: the cloud is input). The same attacks as Tests/ConcordCLITests/HostileCloud.swift.

`git` writes to the cloud here, as the attacker would; it never stands in for concord.
"""

from __future__ import annotations

import json
import os
import subprocess

from . import craft

# name -> (mode, name bytes, what the entry holds: "pwned" blob, "folder" (a tree holding PWNED),
# "hook" (a .git folder with a hook), "link" (a symbolic link to /tmp))
ATTACKS = {
    "dot-dot-folder": ("40000", b"..", "folder"),
    "dot-dot-in-a-name": ("100644", b"docs/../../PWNED", "pwned"),
    "dot-git-folder-with-a-hook": ("40000", b".git", "hook"),
    "upper-case-dot-git": ("40000", b".GIT", "folder"),
    "escape-in-a-name": ("100644", "title\x1b]0;PWNED\x07".encode(), "pwned"),
    "symbolic-link-out": ("120000", b"outside", "link"),
    "odd-mode": ("100666", b"odd", "pwned"),
}


# Attacks on the cloud's own files (craft.py), repaired by removing what they wrote: FIFOs are left
# to the Swift tests, as git (which the oracle runs on the cloud) would block on them too.
STORAGE_ATTACKS = ["deep-tree", "fanout-past-count", "huge-count-index", "ref-delta-cycle", "packed-blob-claiming-3g",
                   "loose-blob-claiming-3g", "tree-delta-bomb", "garbage-packed-refs"]

# Every attack a step can choose.
ALL_ATTACKS = sorted(ATTACKS) + STORAGE_ATTACKS


def names_the_commit(attack: str) -> bool:
    """True when concord's refusal of `attack` names the hostile commit."""
    return attack in ATTACKS or attack in craft.NAMES_THE_COMMIT


class HostileCloud:
    def __init__(self, git_dir: str):
        self.git_dir = git_dir

    def git(self, *args, input: bytes = b"") -> str:
        p = subprocess.run(["git", "--git-dir", self.git_dir, *args], input=input, capture_output=True)
        if p.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)}: {p.stderr.decode(errors='replace').strip()}")
        return p.stdout.decode().strip()

    def blob(self, data: bytes) -> str:
        return self.git("hash-object", "-w", "--stdin", input=data)

    def tree(self, entries) -> str:
        """A tree of exactly `entries` [(mode, name bytes, id)], in git's order."""
        def key(e):
            return e[1] + (b"/" if e[0] == "40000" else b"")
        data = b"".join(mode.encode() + b" " + name + b"\0" + bytes.fromhex(oid) for mode, name, oid in sorted(entries, key=key))
        return self.git("hash-object", "-t", "tree", "--literally", "-w", "--stdin", input=data)

    def entries(self, tree: str):
        out = subprocess.run(["git", "--git-dir", self.git_dir, "ls-tree", "-z", tree], capture_output=True, check=True).stdout
        result = []
        for item in out.split(b"\0"):
            if item:
                meta, name = item.split(b"\t", 1)
                mode, _, oid = meta.decode().split()
                result.append(("40000" if mode == "040000" else mode, name, oid))
        return result

    def main(self) -> str:
        return self.git("rev-parse", "main")

    # What an attack on the cloud's files wrote, kept in the cloud's folder so that a copy of the
    # cloud (the crash harness's snapshots) can be repaired too.
    MANIFEST = "concord-simulation-repair.json"

    def attack(self, attack: str) -> str:
        """Carries out `attack` (from ALL_ATTACKS); returns the commit main now names. Repair with
        repair(), which also removes every file an attack on the cloud's files wrote."""
        if attack in ATTACKS:
            return self.push(attack)
        before = self._files()
        packed = os.path.join(self.git_dir, "packed-refs")
        packed_refs = open(packed, "rb").read().hex() if os.path.exists(packed) else None
        main = self.main()
        commit = craft.ATTACKS[attack](craft.Cloud(self.git_dir))
        manifest = {"main": main, "packed-refs": packed_refs,
                    "files": sorted(os.path.relpath(f, self.git_dir) for f in self._files() - before)}
        with open(os.path.join(self.git_dir, self.MANIFEST), "w") as f:
            json.dump(manifest, f)
        return commit.hex() if commit else main

    def repair(self, main: str | None = None):
        """Points main back at `main` (by default the main before the attack), and removes what an
        attack on the cloud's files wrote."""
        path = os.path.join(self.git_dir, self.MANIFEST)
        if os.path.exists(path):
            with open(path) as f:
                manifest = json.load(f)
            for name in manifest["files"]:
                os.remove(os.path.join(self.git_dir, name))
            packed = os.path.join(self.git_dir, "packed-refs")
            if manifest["packed-refs"] is None:
                if os.path.exists(packed):
                    os.remove(packed)
            else:
                with open(packed, "wb") as f:
                    f.write(bytes.fromhex(manifest["packed-refs"]))
            main = main or manifest["main"]
            with open(os.path.join(self.git_dir, "refs", "heads", "main"), "w") as f:
                f.write(main + "\n")
            os.remove(path)
        self.set_main(main)

    def _files(self) -> set:
        found = set()
        for top, _, names in os.walk(self.git_dir):
            found.update(os.path.join(top, name) for name in names)
        return found

    def set_main(self, commit: str):
        self.git("update-ref", "refs/heads/main", commit)

    def push(self, attack: str) -> str:
        """Moves main to a new commit whose root tree is main's plus the attack's entry; returns it."""
        mode, name, what = ATTACKS[attack]
        pwned = self.blob(b"PWNED\n")
        if what == "pwned":
            target = pwned
        elif what == "folder":
            target = self.tree([("100644", b"PWNED", pwned)])
        elif what == "hook":
            hook = self.blob(b"#!/bin/sh\ntouch PWNED\n")
            target = self.tree([("40000", b"hooks", self.tree([("100755", b"post-checkout", hook)])),
                                ("100644", b"PWNED", pwned)])
        else:
            target = self.blob(b"/tmp")
        parent = self.main()
        root = self.tree([e for e in self.entries(f"{parent}^{{tree}}") if e[1] != name] + [(mode, name, target)])
        text = (f"tree {root}\nparent {parent}\nauthor Mallory <mallory@example.invalid> 1800000000 +0000\n"
                f"committer Mallory <mallory@example.invalid> 1800000000 +0000\n\nhostile commit\n")
        commit = self.git("hash-object", "-t", "commit", "--literally", "-w", "--stdin", input=text.encode())
        self.set_main(commit)
        return commit
