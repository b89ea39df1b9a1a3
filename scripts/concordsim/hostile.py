"""A hostile cloud: someone who can write to the cloud (a bare repository) crafts objects byte by
byte with git plumbing (`hash-object --literally`, so that a tree can hold any name and mode) and
moves the cloud's `main` to them. Concord must refuse such a commit whole at the next sync or
clone (DESIGN.md: the cloud is input). The same attacks as Tests/ConcordCLITests/HostileCloud.swift.

`git` writes to the cloud here, as the attacker would; it never stands in for concord.
"""

from __future__ import annotations

import subprocess

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
