#!/usr/bin/env python3
"""Concord's benchmarks, side by side with the git CLI doing the same work.

Run through scripts/bench (which builds the release binary). Each figure is measured on both tools
alternately (the order flips every repetition), after the same untimed setup. For each container
size N (--sizes; documents 100 per folder, 3 levels: f00/g00/doc000000.txt), and for flat
containers (--flat N,..., default 10,000: all N documents side by side in the container's root, no
folders; reported as "10,000 flat"), and for each way of saving the devices' offline edits
(--saves, default both: "batch", then "single", reported as "10,000, one save per document"):

  import            per repetition, fresh folders: `concord init DIR --device one` (no remote) and
                    `git init` + user.name/email; the same N documents written into both work trees
                    (plain file writes, then `sync`), all untimed; then
                      import     concord save --all      | git add -A + git commit -q -m import
                    with another `sync` between the two (untimed), so that neither pays for writing
                    back what the other left in the page cache.
                    checked after (untimed): concord's main holds the N documents in one commit on
                    top of Concord's first, git's index and HEAD hold N files in one commit.
                    (Once per size: with the first of --saves only, it does not depend on the way.)
  setup (untimed)   device 1 = `concord init` + N documents added with `git fast-import` +
                    `git read-tree -u --reset main` (index removed after) + `git push`; device 2 =
                    `concord clone` of the still-empty container, then the same plumbing
                    (`--concord-clone`: a real clone of the full container, minutes at 100,000);
                    the git pair = two `git clone`s of a copy of that cloud (all made by the
                    shared fixture, scripts/concordsim/bulk_fixture.py).
                    Device 1 saves 100 documents and syncs (pushes); device 2 saves 100 documents,
                    50 of them the same as device 1's with different contents, and stays offline.
                    The git pair does the same and device 1 pushes. The 100 edits are saved
                      batch      the 100 files written into the work tree, then one
                                 concord save --all      | git commit -qam   (one commit per device)
                      single     per document:
                                 concord save DOC --file F
                                                         | write DOC + git add DOC + git commit -q
                                                           (100 commits per device)
                    so that the round's sync and resolve are measured on both kinds of history.
  airplane round    per repetition, fresh copies (cp -a) of device 2 and its cloud and of git's
                    device 2 and its cloud (then `git update-index --refresh`, untimed, so that git
                    does not pay for the copy's new inodes), then:
                      sync       concord sync            | git fetch + git merge (exits 1: 50 conflicts)
                                                           + git commit -qam (the markers, like Concord's
                                                           provisional merge) + git push
                                 (Concord's sync pushes its merge, so git's does too: from a second copy
                                 of its device 2 to its fresh cloud; the conflicts and resolve below work
                                 on the first copy, merged untimed)
                      conflicts  concord conflicts (x2)  | git ls-files -u (x2)
                      resolve    concord resolve --all --latest
                                                         | git checkout --theirs -- P + git add P + git commit
  save              concord save DOC --file F            | git add DOC + git commit -q -m x
                    (on device 1 of each side, after one untimed warm-up each; once per size, with
                    the first of --saves)

With --cloud daemon|ssh|https, the airplane round goes through a real server on 127.0.0.1 (a `git
daemon`, OpenSSH's sshd with a key and known_hosts made for the run, or lighttpd + git http-backend
with basic authentication and a certificate from an authority made for the run; see servers.py):
each repetition's fresh cloud copies are served by it (git's fetch and push go through it too), and
                      clone      concord clone URL       | git clone URL   (after resolve, of the clouds as they then are)
Results then go to benchmarks/results-CLOUD.json and .md.

Text merge (--merge-sizes, default 1 and 10 MB; not tied to a container): generated BASE, OURS
and OTHER files of 57-byte lines; OURS changes every 100th line and inserts a line before every
1000th, OTHER changes the lines halfway between and deletes every 1000th+525th, so that every edit
is at least 40 lines from the other side's and the merge is clean. Per repetition, fresh copies of
OURS (untimed), then
                      merge      concord merge-file --policy text BASE CUR OTHER
                                                         | git merge-file CUR BASE OTHER
both writing the merged text into their copy CUR (both must exit 0; the two results are compared).
Throughput = BASE's size / median wall time. --reps repetitions. (scripts/bench-merge runs only
this part.)

Process start (not tied to a container): `concord --version` vs `git --version`, and the smallest
read, `concord conflicts` in a container of one document vs `git ls-files -u`.

Wall time is measured around each process (spawn to wait4), run under GNU time, whose %M is its
peak RSS (a process forked straight from this Python process would report Python's own peak: the
kernel keeps the old memory's high-water mark across exec). Each figure: median, min, max.

scripts/bench also runs two rounds of their own: --history N,... / --rounds N (long use;
scripts/bench.d/history.py --help) and --devices N (many devices on one cloud, issue 41;
scripts/bench.d/devices.py --help).
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import servers  # noqa: E402  (scripts/bench.d/servers.py: git daemon, sshd, HTTPS git server)
from concordsim.bulk_fixture import DOCS_PER_FOLDER, BulkFixture, doc_path, write_docs  # noqa: E402  (the containers)

REPO = Path(__file__).resolve().parents[2]
EDITS = 100          # documents each device changes offline
SHARED_EDITS = 50    # of which changed on both devices (the conflicts)
PARTS = ("import", "airplane", "save", "merge", "start")   # what --only chooses from
SERVER: "servers.Server | None" = None   # the server of --cloud daemon|ssh|https; None for a local path
CLOUD = "local"                          # --cloud, or the cloud of the results.json being rendered


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Processes


class Failed(RuntimeError):
    pass


def git_env(workdir: Path) -> dict:
    """Plain git: no system or user configuration (Concord ignores them too), C locale."""
    env = dict(os.environ)
    env.update({
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(workdir / "gitconfig"),
        "LC_ALL": "C",
        "GIT_TERMINAL_PROMPT": "0",
    })
    return env


ENV: dict = dict(os.environ)
LAST_CPU = 0.0
TIME = "/usr/bin/time"  # GNU time, for each process's peak RSS (Debian package `time`)


def run(argv, cwd=None, input: bytes | None = None, ok=(0,)) -> str:
    """Untimed helper."""
    p = subprocess.run(argv, cwd=cwd, input=input, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    if p.returncode not in ok:
        raise Failed(f"{' '.join(map(str, argv))} exited {p.returncode}: {p.stderr.decode(errors='replace').strip()[-2000:]}")
    return p.stdout.decode(errors="replace")


def timed(argv, cwd=None, ok=(0,), env: dict | None = None) -> tuple[float, int, str]:
    """One process: (seconds from spawn to reaped, peak RSS in KiB, stdout). Its CPU time
    (user + system, its waited-for children included) goes to LAST_CPU. `env`: ENV unless given."""
    global LAST_CPU
    with tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile() as peak:
        # A process forked from this (large) Python process inherits its peak RSS: the kernel
        # records the old memory's high-water mark at exec. GNU time forks the command from its
        # own small process and reports the command's true peak.
        start = time.perf_counter()
        p = subprocess.Popen([TIME, "-q", "-f", "%M", "-o", peak.name, *map(str, argv)], cwd=cwd, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=err, env=ENV if env is None else env)
        out = p.stdout.read()
        p.stdout.close()
        _, status, usage = os.wait4(p.pid, 0)
        seconds = time.perf_counter() - start
        p.returncode = os.waitstatus_to_exitcode(status)
        LAST_CPU = usage.ru_utime + usage.ru_stime
        if p.returncode not in ok:
            err.seek(0)
            raise Failed(f"{' '.join(map(str, argv))} exited {p.returncode}: {err.read().decode(errors='replace').strip()[-2000:]}")
        peak_kb = int(Path(peak.name).read_text().split()[-1])
    return seconds, peak_kb, out.decode(errors="replace")


def timed_chain(steps) -> tuple[float, int, list[float], list[str]]:
    """Several processes run one after the other (`a && b`): total seconds, peak RSS, per-step seconds, outputs."""
    global LAST_CPU
    total, peak, parts, outs, cpu = 0.0, 0, [], [], 0.0
    for argv, ok in steps:
        s, rss, out = timed(argv, ok=ok)
        cpu += LAST_CPU
        total += s
        peak = max(peak, rss)
        parts.append(s)
        outs.append(out)
    LAST_CPU = cpu
    return total, peak, parts, outs


# ---------------------------------------------------------------------------------------------
# Containers


def edited_content(i: int, device: str) -> bytes:
    return f"Document {i}\nEdited offline on device {device}.\nA third line.\nAnd a fourth, from {device}.\n".encode()


SAVES = ("batch", "single")   # how the devices save their offline edits (--saves): one commit, or one per document


def size_label(n: int, flat: bool, saves: str = "batch") -> str:
    return (f"{n:,} flat" if flat else f"{n:,}") + (", one save per document" if saves == "single" else "")


class Size:
    """The containers of one size N (nested folders, or flat), with the devices' offline edits saved
    one way (saves: "batch" or "single"), and what the measurements need."""

    def __init__(self, args, n: int, flat: bool = False, saves: str = "batch"):
        self.args = args
        self.n = n
        self.flat = flat
        self.way = saves
        # Results and setup are keyed by this: the size for nested containers, "flatN" for a flat one
        # (as results.json files from before --saves have them), with "-single" after it when each
        # document was saved on its own.
        base = f"flat{n}" if flat else n
        self.key = base if saves == "batch" else f"{base}-single"
        self.label = size_label(n, flat, saves)
        self.root = Path(args.workdir) / ((f"flat{n}" if flat else f"n{n}") + ("" if saves == "batch" else "-single"))
        self.cloud = self.root / "cloud.git"
        self.dev1 = self.root / "dev1"
        self.dev2 = self.root / "dev2"
        self.gcloud = self.root / "gcloud.git"
        self.g1 = self.root / "g1"
        self.g2 = self.root / "g2"
        self.tmp = self.root / "tmp"
        rng = random.Random(n)
        picked = rng.sample(range(n), SHARED_EDITS + 2 * (EDITS - SHARED_EDITS))
        shared = picked[:SHARED_EDITS]
        self.edits1 = shared + picked[SHARED_EDITS:EDITS]
        self.edits2 = shared + picked[EDITS:]
        self.conflicted = sorted(self.path(i) for i in shared)
        untouched = sorted(set(range(n)) - set(picked))
        self.save_doc = self.path(untouched[len(untouched) // 2])
        self.setup: dict = {}

    def path(self, i: int) -> str:
        return doc_path(i, self.flat)

    def concord(self, *args) -> list[str]:
        return [self.args.concord, *map(str, args)]

    def build(self) -> None:
        a, n = self.args, self.n
        if self.root.exists():
            run(["rm", "-rf", self.root])
        self.tmp.mkdir(parents=True)
        started = time.perf_counter()

        # Device 1 and its cloud; N documents in one commit on top of Concord's first commit, which
        # device 2, joined while the container was still empty, receives with git plumbing too (a
        # `concord clone` of 100,000 documents takes minutes).
        fx = BulkFixture(a.concord, self.root, env=ENV)
        times = fx.setup_filled(n, self.flat, join=[] if a.concord_clone else None)
        self.setup["fast_import_and_checkout_s"] = round(times["fill"], 3)

        # The git pair shares the same history through its own copy of the cloud.
        fx.copy_cloud(self.gcloud.name)
        t = time.perf_counter()
        for g in (self.g1, self.g2):
            fx.git_clone(self.gcloud, g.name)
        self.setup["git_clone_s"] = round((time.perf_counter() - t) / 2, 3)

        # Device 2 gets the N documents.
        if a.concord_clone:
            two = fx.devices[1]
            s, rss, _ = timed(fx.argv(None, "clone", fx.cloud.url, two.path, "--device", two.name),
                              env={**ENV, "CONCORD_DEVICE_ID": two.id})
            self.setup["concord_clone_s"] = round(s, 3)
            self.setup["concord_clone_peak_rss_kb"] = rss
        else:
            self.setup["device2_fetch_and_checkout_s"] = round(times["receive two"], 3)

        # Offline edits: 100 documents on each device, 50 of them the same, saved the same way on
        # both sides: all in one commit (batch), or one commit per document (single), which gives
        # the sync and the resolve of the round a longer history to walk.
        for device, dev, edits in (("one", self.dev1, self.edits1), ("two", self.dev2, self.edits2)):
            before = int(run(["git", "-C", dev, "rev-list", "--count", "main"]))
            if self.way == "batch":
                for i in edits:
                    (dev / self.path(i)).write_bytes(edited_content(i, device))
                s, _, _ = timed(self.concord("-C", dev, "save", "--all"))
                self.setup.setdefault("concord_setup_save_all_s", []).append(round(s, 3))
            else:
                save_times = []
                for i in edits:
                    f = self.tmp / "content"
                    f.write_bytes(edited_content(i, device))
                    s, _, _ = timed(self.concord("-C", dev, "save", self.path(i), "--file", f))
                    save_times.append(s)
                self.setup.setdefault("concord_setup_saves_median_s", []).append(round(statistics.median(save_times), 4))
            # Checked (untimed): the edits are saved, as the commits this way makes.
            commits = int(run(["git", "-C", dev, "rev-list", "--count", "main"])) - before
            changed = run(["git", "-C", dev, "diff", "--name-only", f"main~{commits}" if commits else "main", "main"]).split()
            expected = 1 if self.way == "batch" else len(edits)
            if commits != expected or sorted(changed) != sorted(self.path(i) for i in edits):
                raise Failed(f"concord's offline edits on {device} at N={self.label}: {commits} commits changing "
                             f"{len(changed)} files, expected {expected} changing {len(edits)}")
        report = json.loads(timed(self.concord("-C", self.dev1, "sync", "--json"))[2])
        if report["outcome"] != "pushed":
            raise Failed(f"device 1's sync: {report}")
        t = time.perf_counter()
        for device, g, edits in (("one", self.g1, self.edits1), ("two", self.g2, self.edits2)):
            if self.way == "batch":
                for i in edits:
                    (g / self.path(i)).write_bytes(edited_content(i, device))
                run(["git", "-C", g, "commit", "-q", "-am", f"{EDITS} offline edits on {device}"])
            else:
                for i in edits:
                    (g / self.path(i)).write_bytes(edited_content(i, device))
                    run(["git", "-C", g, "add", "--", self.path(i)])
                    run(["git", "-C", g, "commit", "-q", "-m", f"{self.path(i)} edited offline on {device}"])
            commits = int(run(["git", "-C", g, "rev-list", "--count", "origin/main..main"]))
            if commits != (1 if self.way == "batch" else len(edits)):
                raise Failed(f"git's offline edits on {device} at N={self.label}: {commits} commits")
        self.setup["git_setup_edits_s"] = round(time.perf_counter() - t, 3)
        run(["git", "-C", self.g1, "push", "-q", "origin", "main"])
        self.setup["total_s"] = round(time.perf_counter() - started, 1)
        log(f"N={self.label}: built in {self.setup['total_s']} s {self.setup}")

    # -- one repetition of the airplane round, with conflicts and resolve on its result --------

    def fresh_copies(self, rep: Path) -> tuple[Path, Path]:
        if rep.exists():
            run(["rm", "-rf", rep])
        rep.mkdir(parents=True)
        cloud, dev2, g2 = rep / "cloud.git", rep / "dev2", rep / "g2"
        run(["cp", "-a", self.cloud, cloud])
        run(["cp", "-a", self.dev2, dev2])
        run(["git", "-C", dev2, "remote", "set-url", "origin", self.cloud_url(cloud)])
        run(["cp", "-a", self.g2, g2])
        # git's side pushes too, as Concord's sync does: from its own copy of g2 to its own fresh
        # cloud (through the --cloud server when there is one); g2 keeps the build's cloud, read
        # only, for the conflicted merge that the conflicts and resolve below work on.
        run(["cp", "-a", self.gcloud, rep / "gcloud.git"])
        run(["cp", "-a", self.g2, rep / "g2push"])
        run(["git", "-C", rep / "g2push", "remote", "set-url", "origin", self.git_cloud_url(rep / "gcloud.git")])
        run(["git", "-C", rep / "g2push", "update-index", "-q", "--refresh"], ok=(0, 1))
        if isinstance(SERVER, servers.HTTPSServer):
            SERVER.store_credentials(dev2, self.cloud_url(cloud))
        # The copy has new inodes and ctimes: refresh the index so that git's timings are those of
        # a device, not of a freshly copied folder (concord keeps no such cache).
        run(["git", "-C", g2, "update-index", "-q", "--refresh"], ok=(0, 1))
        run(["git", "-C", g2, "status", "--porcelain", "-uno"])
        run(["sync"])
        return dev2, g2

    def relative(self, path: Path) -> str:
        return str(path.relative_to(self.args.workdir))

    def cloud_url(self, cloud: Path) -> str:
        """The URL a device reaches `cloud` by: its path, or the --cloud server's URL for it."""
        return SERVER.url(self.relative(cloud)) if SERVER else str(cloud)

    def git_cloud_url(self, cloud: Path) -> str:
        """The URL git reaches `cloud` by: its path, or the --cloud server's URL for git."""
        return SERVER.git_url(self.relative(cloud)) if SERVER else str(cloud)

    def airplane_rep(self, rep_index: int, results: "Results") -> None:
        rep = self.root / "rep"
        dev2, g2 = self.fresh_copies(rep)
        concord_first = rep_index % 2 == 0
        n = self.key  # the size, or "flatN"

        def concord_sync():
            s, rss, out = timed(self.concord("-C", dev2, "sync", "--json"))
            r = json.loads(out)
            if r["outcome"] != "integrated" or len(r["newConflicts"]) != SHARED_EDITS or r["pushed"] < 1:
                raise Failed(f"concord sync at N={n}: unexpected report {json.dumps(r)[:500]}")
            results.add(n, "sync", "concord", s, rss)

        def git_merge():
            # What Concord's sync does, the git CLI's way: fetch, merge (it stops at the 50
            # conflicts, exit 1), commit the files with their markers (Concord's provisional merge
            # commits the conflicts too) and push that to the cloud.
            g = rep / "g2push"
            steps = [
                (["git", "-C", g, "fetch", "-q", "origin"], (0,)),
                (["git", "-C", g, "merge", "-q", "--no-edit", "origin/main"], (1,)),
                (["git", "-C", g, "commit", "-qam", "merge with conflict markers"], (0,)),
                (["git", "-C", g, "push", "-q", "origin", "HEAD:main"], (0,)),
            ]
            total, rss, parts, outs = timed_chain(steps)
            results.add(n, "sync", "git", total, rss, parts=dict(zip(["fetch", "merge", "commit", "push"], parts)))
            # The conflicts and resolve below work on g2's conflicted merge (untimed here); `sync`
            # so that concord's fsyncs, when it runs next, do not write back what this left.
            run(["git", "-C", g2, "fetch", "-q", "origin"])
            run(["git", "-C", g2, "merge", "-q", "--no-edit", "origin/main"], ok=(1,))
            run(["sync"])

        for f in ((concord_sync, git_merge) if concord_first else (git_merge, concord_sync)):
            f()

        def concord_conflicts():
            s, rss, out = timed(self.concord("-C", dev2, "conflicts", "--json"))
            docs = sorted(c["document"] for c in json.loads(out))
            if docs != self.conflicted:
                raise Failed(f"concord conflicts at N={n}: {len(docs)} documents, expected {len(self.conflicted)}")
            results.add(n, "conflicts", "concord", s, rss)

        def git_conflicts():
            s, rss, out = timed(["git", "-C", g2, "ls-files", "-u"])
            paths = sorted({line.split("\t", 1)[1] for line in out.splitlines()})
            if paths != self.conflicted or out.count("\n") != 3 * SHARED_EDITS:
                raise Failed(f"git ls-files -u at N={n}: {len(paths)} paths, expected {len(self.conflicted)}")
            results.add(n, "conflicts", "git", s, rss)

        for _ in range(self.args.conflicts_per_rep):
            for f in ((concord_conflicts, git_conflicts) if concord_first else (git_conflicts, concord_conflicts)):
                f()

        def concord_resolve():
            s, rss, _ = timed(self.concord("-C", dev2, "resolve", "--all", "--latest"))
            left = json.loads(run(self.concord("-C", dev2, "conflicts", "--json")))
            if left:
                raise Failed(f"concord resolve --all --latest at N={n} left {len(left)} conflicts")
            results.add(n, "resolve", "concord", s, rss)

        def git_resolve():
            total, rss, parts, _ = timed_chain([
                (["git", "-C", g2, "checkout", "--theirs", "--", *self.conflicted], (0,)),
                (["git", "-C", g2, "add", "--", *self.conflicted], (0,)),
                (["git", "-C", g2, "commit", "-q", "-m", "x"], (0,)),
            ])
            if run(["git", "-C", g2, "ls-files", "-u"]).strip():
                raise Failed(f"git resolve at N={n} left conflicts")
            results.add(n, "resolve", "git", total, rss, parts={"checkout": parts[0], "add": parts[1], "commit": parts[2]})

        for f in ((concord_resolve, git_resolve) if concord_first else (git_resolve, concord_resolve)):
            f()

        def concord_clone():
            s, rss, _ = timed(self.concord("clone", self.cloud_url(rep / "cloud.git"), rep / "cclone", "--device", "three"))
            results.add(n, "clone", "concord", s, rss)

        def git_clone():
            s, rss, _ = timed(["git", "clone", "-q", self.git_cloud_url(rep / "gcloud.git"), rep / "gclone"])
            results.add(n, "clone", "git", s, rss)

        if SERVER:
            run(["sync"])
            for f in ((concord_clone, git_clone) if concord_first else (git_clone, concord_clone)):
                f()
                run(["sync"])

        if not self.args.keep:
            run(["rm", "-rf", rep])

    # -- save of one document -----------------------------------------------------------------

    def saves(self, reps: int, results: "Results") -> None:
        doc, n = self.save_doc, self.key
        source = self.tmp / "save-source"
        counter = iter(range(1_000_000))

        def concord_save(record=True):
            source.write_bytes(f"{doc}\nsaved by concord, take {next(counter)}\n".encode())
            s, rss, _ = timed(self.concord("-C", self.dev1, "save", doc, "--file", source))
            if record:
                results.add(n, "save", "concord", s, rss)

        def git_save(record=True):
            (self.g1 / doc).write_bytes(f"{doc}\nsaved by git, take {next(counter)}\n".encode())
            total, rss, parts, _ = timed_chain([
                (["git", "-C", self.g1, "add", "--", doc], (0,)),
                (["git", "-C", self.g1, "commit", "-q", "-m", "x"], (0,)),
            ])
            if record:
                results.add(n, "save", "git", total, rss, parts={"add": parts[0], "commit": parts[1]})

        concord_save(record=False)
        git_save(record=False)
        for r in range(reps):
            for f in ((concord_save, git_save) if r % 2 == 0 else (git_save, concord_save)):
                f()

    # -- import of the N documents into a new container ---------------------------------------

    def import_rep(self, rep_index: int, results: "Results") -> None:
        """Fresh folders each time: `concord init` and `git init`, the N documents written into
        both work trees (untimed); then `concord save --all` vs `git add -A` + `git commit`."""
        n, key = self.n, self.key
        rep = self.root / "import"
        if rep.exists():
            run(["rm", "-rf", rep])
        rep.mkdir(parents=True)
        c, g = rep / "concord", rep / "git"
        t = time.perf_counter()
        run(self.concord("init", c, "--device", "one"))
        run(["git", "init", "-q", g])
        run(["git", "-C", g, "config", "user.name", "one"])
        run(["git", "-C", g, "config", "user.email", "one@bench.invalid"])
        write_docs(c, n, self.flat)
        write_docs(g, n, self.flat)
        run(["sync"])
        self.setup.setdefault("import_init_and_write_both_s", round(time.perf_counter() - t, 3))

        def concord_import():
            s, rss, _ = timed(self.concord("-C", c, "save", "--all"))
            results.add(key, "import", "concord", s, rss)

        def git_import():
            total, rss, parts, _ = timed_chain([
                (["git", "-C", g, "add", "-A"], (0,)),
                (["git", "-C", g, "commit", "-q", "-m", "import"], (0,)),
            ])
            results.add(key, "import", "git", total, rss, parts={"add": parts[0], "commit": parts[1]})

        for k, f in enumerate((concord_import, git_import) if rep_index % 2 == 0 else (git_import, concord_import)):
            if k:
                # git leaves its N new objects for the kernel to write back; without this, Concord's
                # first fsync (ext4 commits the whole journal) would pay for writing them.
                run(["sync"])
            f()

        # Check (untimed) that both imported exactly the N documents, in one commit.
        expected = sorted(self.path(i) for i in range(n))
        tree = run(["git", "-C", c, "ls-tree", "-r", "--name-only", "main"]).splitlines()
        docs = sorted(f for f in tree if not f.startswith(".concord/"))
        commits = run(["git", "-C", c, "rev-list", "--count", "main"]).strip()
        if docs != expected or commits != "2":
            raise Failed(f"concord save --all at N={key}: main holds {len(docs)} documents in {commits} commits, "
                         f"expected {n} in 2 (Concord's first commit + the import)")
        staged = sorted(run(["git", "-C", g, "ls-files"]).splitlines())
        committed = sorted(run(["git", "-C", g, "ls-tree", "-r", "--name-only", "HEAD"]).splitlines())
        commits = run(["git", "-C", g, "rev-list", "--count", "HEAD"]).strip()
        if staged != expected or committed != expected or commits != "1":
            raise Failed(f"git add -A + commit at N={key}: {len(staged)} files in the index, {len(committed)} in HEAD, "
                         f"{commits} commits; expected {n}, {n}, 1")
        if not self.args.keep:
            run(["rm", "-rf", rep])


# ---------------------------------------------------------------------------------------------
# Text merge (not tied to a container)


SENTENCE = "the quick brown fox jumps over the lazy dog, again and again and again"


def merge_inputs(megabytes: int, prefix: Path) -> dict:
    """Writes PREFIX.base, PREFIX.ours and PREFIX.theirs. Lines are 57 bytes; ours changes every
    100th line and inserts a line before every 1000th, theirs changes the lines halfway between and
    deletes every 1000th+525th, so every edit is at least 40 lines from the other side's and the
    merge is clean."""
    rng = random.Random(42)
    base, ours, theirs = [], [], []
    for i in range(megabytes * 1024 * 1024 // 57):
        k = rng.randrange(10)
        text = f"{i:07d} {SENTENCE[k:k + 48]}\n"
        base.append(text)
        if i % 1000 == 0:
            ours.append(f"ours inserted before {i}\n")
        ours.append(f"ours changed {text}" if i % 100 == 0 else text)
        if i % 1000 == 525:
            continue
        theirs.append(f"theirs changed {text}" if i % 100 == 50 else text)
    files = {}
    for name, lines in (("base", base), ("ours", ours), ("theirs", theirs)):
        files[name] = prefix.with_name(f"{prefix.name}.{name}")
        files[name].write_text("".join(lines))
    return files


def merge_round(args, megabytes: int, results: "Results", setup: dict) -> dict:
    """concord merge-file --policy text vs git merge-file on one generated size; returns its case."""
    key = f"merge{megabytes}mb"
    root = Path(args.workdir) / "merge"
    if root.exists():
        run(["rm", "-rf", root])
    root.mkdir(parents=True)
    info = setup.setdefault(key, {})
    info["loadavg_at_start"] = loadavg()
    files = merge_inputs(megabytes, root / f"text-{megabytes}mb")
    size = files["base"].stat().st_size
    info["base_bytes"] = size
    info["ours_bytes"] = files["ours"].stat().st_size
    info["theirs_bytes"] = files["theirs"].stat().st_size
    c_cur, g_cur = root / "concord.current", root / "git.current"
    concord = [args.concord, "merge-file", "--policy", "text", files["base"], c_cur, files["theirs"]]
    git = ["git", "merge-file", g_cur, files["base"], files["theirs"]]
    same = True
    for r in range(args.reps):
        for cur in (c_cur, g_cur):
            cur.write_bytes(files["ours"].read_bytes())
        run(["sync"])
        for tool, argv in ((("concord", concord), ("git", git)) if r % 2 == 0 else (("git", git), ("concord", concord))):
            s, rss, _ = timed(argv)
            results.add(key, "merge", tool, s, rss)
        same = same and c_cur.read_bytes() == g_cur.read_bytes()
    info["same_result_as_git"] = same
    if not same:
        log(f"warning: concord and git merged the {megabytes} MB file differently")
    info["loadavg_at_end"] = loadavg()
    if not args.keep:
        run(["rm", "-rf", root])
    return {"key": key, "n": size, "layout": "text", "label": f"{megabytes} MB text file", "same_result_as_git": same}


# ---------------------------------------------------------------------------------------------
# Results


OPS = {
    "import": ("import: `concord save --all` (N new documents, one commit)", "`git add -A` + `git commit -q -m import`"),
    "sync": ("airplane round: `concord sync`",
             "`git fetch` + `git merge` (exits 1, 50 conflicts) + `git commit -qam` (the markers) + `git push`"),
    "clone": ("`concord clone URL`", "`git clone URL`"),
    "conflicts": ("`concord conflicts`", "`git ls-files -u`"),
    "resolve": ("`concord resolve --all --latest` (50)", "`git checkout --theirs` + `git add` + `git commit` (50 paths)"),
    "save": ("`concord save DOC --file F`", "`git add DOC` + `git commit -q -m x`"),
    "merge": ("`concord merge-file --policy text`", "`git merge-file`"),
    "start": ("process start: `concord --version`", "`git --version`"),
    "start-read": ("process start and a read: `concord conflicts` (one document)", "`git ls-files -u`"),
}


def op_names(r) -> tuple[str, str]:
    """A row's operation as tables show it: concord's command, git's. The sync of results.json files
    from before git's sync pushed on a local cloud (its parts: fetch and merge only) says so."""
    mine, theirs = OPS[r["op"]]
    parts = r["git"].get("parts_s") or {}
    if r["op"] == "sync" and parts and "push" not in parts:
        theirs = "`git fetch` + `git merge` (exits 1, 50 conflicts)"
    return mine, theirs


def git_sync_name(rows) -> str:
    """What git's sync figure holds, for the targets: fetch + merge + commit + push, or in results.json
    files from before, on a local cloud, fetch + merge only."""
    syncs = [r for r in rows if r["op"] == "sync"]
    if syncs and not any("push" in (r["git"].get("parts_s") or {}) for r in syncs):
        return "git fetch + merge"
    return "git fetch + merge + commit + push"


class Results:
    def __init__(self):
        # (key, op, tool) -> {"s": [...], "cpu": [...], "rss": [...], "parts": {name: [...]}}; the key
        # is the size N (int) for nested containers, "flatN" for a flat one (either with "-single" after
        # it when the offline edits were saved one document at a time), "mergeNmb" for a text merge.
        self.samples: dict = {}

    def add(self, key, op, tool, seconds, rss_kb, parts=None):
        e = self.samples.setdefault((key, op, tool), {"s": [], "cpu": [], "rss": [], "parts": {}})
        e["s"].append(seconds)
        e["cpu"].append(LAST_CPU)
        e["rss"].append(rss_kb)
        for k, v in (parts or {}).items():
            e["parts"].setdefault(k, []).append(v)

    @staticmethod
    def stats(values):
        return {"median": statistics.median(values), "min": min(values), "max": max(values)}

    def figure(self, key, op, tool):
        e = self.samples.get((key, op, tool))
        if not e:
            return None
        f = {"reps": len(e["s"]), "seconds": self.stats(e["s"]), "samples_s": [round(x, 5) for x in e["s"]],
             "cpu_seconds": self.stats(e["cpu"]),
             "peak_rss_kb": max(e["rss"]), "rss_kb": e["rss"]}
        if e["parts"]:
            f["parts_s"] = {k: self.stats(v) for k, v in e["parts"].items()}
        return f

    def rows(self, cases):
        """cases: {"key", "n", "layout" ("nested", "flat" or "text"), "label", and for containers "saves"
        ("batch" or "single")}. A row's n is the number of documents, or for a text merge the size in bytes
        of BASE; label tells the row apart in tables."""
        rows = []
        for op in OPS:
            for case in cases:
                c, g = self.figure(case["key"], op, "concord"), self.figure(case["key"], op, "git")
                if not c or not g:
                    continue
                row = {"n": case["n"], "layout": case["layout"], "label": case["label"], "op": op, "concord": c, "git": g,
                       "ratio": c["seconds"]["median"] / g["seconds"]["median"]}
                if "saves" in case:
                    row["saves"] = case["saves"]
                if op == "merge":
                    megabytes = case["n"] / (1024 * 1024)
                    row["throughput_mb_s"] = {"concord": megabytes / c["seconds"]["median"],
                                              "git": megabytes / g["seconds"]["median"]}
                    row["same_result_as_git"] = case.get("same_result_as_git")
                rows.append(row)
        return rows


def start_round(args, results: "Results") -> dict:
    """What a command costs before it does anything: `concord --version` against `git --version`,
    and the smallest read (`concord conflicts` in a container of one document against
    `git ls-files -u`), each --reps x 4 times, alternating."""
    root = Path(args.workdir) / "start"
    run(["rm", "-rf", root])
    root.mkdir(parents=True)
    run([args.concord, "init", root / "dev", "--device", "one"])
    (root / "dev" / "note.txt").write_bytes(b"one document\n")
    run([args.concord, "-C", root / "dev", "save", "note.txt"])
    run(["git", "init", "-q", root / "g"])
    for rep in range(args.reps * 4):
        for op, mine, theirs in (("start", [args.concord, "--version"], ["git", "--version"]),
                                 ("start-read", [args.concord, "-C", root / "dev", "conflicts"], ["git", "-C", root / "g", "ls-files", "-u"])):
            for tool, argv in ((("concord", mine), ("git", theirs)) if rep % 2 == 0 else (("git", theirs), ("concord", mine))):
                seconds, rss, _ = timed(argv)
                results.add("start", op, tool, seconds, rss)
    if not args.keep:
        run(["rm", "-rf", root])
    return {"key": "start", "n": 1, "layout": "start", "label": "process start"}


def label(r) -> str:
    """A row's size as tables show it (results.json files from before labels: the number of documents)."""
    return r.get("label") or f"{r['n']:,}"


def setup_label(key: str) -> str:
    if key.endswith("-single"):
        return setup_label(key[:-len("-single")]) + ", one save per document"
    if key.isdigit():
        return f"{int(key):,} documents"
    if key.startswith("flat"):
        return f"{int(key[4:]):,} documents in one folder (flat)"
    if key.startswith("merge"):
        return f"text merge of {key[5:-2]} MB"
    return key


def ms(x: float) -> str:
    v = x * 1000
    return f"{v:.1f}" if v < 100 else f"{v:.0f}"


def fig(f) -> str:
    s = f["seconds"]
    return f"{ms(s['median'])} ({ms(s['min'])}–{ms(s['max'])})"


def mb(kb: int) -> str:
    return f"{kb / 1024:.1f} MB"


def targets(rows, metric="seconds"):
    """The issues' targets, from the wall-time medians (metric "seconds") or the CPU-time ones ("cpu_seconds").
    The first ones are judged on the rows whose offline edits were saved in one batch (all rows of
    results.json files from before --saves), issue 21's on those saved one document at a time."""
    batch = [r for r in rows if r.get("saves", "batch") == "batch"]
    nested = [r for r in batch if r.get("layout", "nested") == "nested"]
    by = {(r["n"], r["op"]): r for r in nested}
    med = lambda n, op, tool: by[(n, op)][tool][metric]["median"] if (n, op) in by else None
    single = {(r.get("layout", "nested"), r["n"], r["op"]): r for r in rows if r.get("saves") == "single"}
    one = lambda layout, n, op, tool: single[(layout, n, op)][tool][metric]["median"] if (layout, n, op) in single else None
    big, small, flat = 100_000, 1_000, 10_000
    out = []

    def target(name, value, limit, unit="×", at_least=False):
        if value is None:
            met = None
        elif at_least:
            met = value >= limit
        else:
            met = value <= limit if unit == "×" else value < limit
        out.append({"target": name, "value": value, "limit": limit, "unit": unit, "met": met})

    def ratio(a, b):
        return None if a is None or b is None else a / b

    git_sync = git_sync_name(rows)
    target(f"sync at 100,000 ≤ 0.25× {git_sync} at 100,000", ratio(med(big, "sync", "concord"), med(big, "sync", "git")), 0.25)
    if CLOUD != "local":
        target("clone at 100,000 ≤ 1.0× git clone", ratio(med(big, "clone", "concord"), med(big, "clone", "git")), 1.0)
    target("sync at 100,000 ≤ 1.5× sync at 1,000", ratio(med(big, "sync", "concord"), med(small, "sync", "concord")), 1.5)
    target("resolve --all --latest (50) at 100,000 ≤ 0.25× git's", ratio(med(big, "resolve", "concord"), med(big, "resolve", "git")), 0.25)
    target("conflicts at 100,000 ≤ 1.0× git ls-files -u", ratio(med(big, "conflicts", "concord"), med(big, "conflicts", "git")), 1.0)
    target("conflicts flat in N: at 100,000 ≤ 1.5× at 1,000", ratio(med(big, "conflicts", "concord"), med(small, "conflicts", "concord")), 1.5)
    target("save at 100,000 ≤ 1.5× save at 1,000", ratio(med(big, "save", "concord"), med(small, "save", "concord")), 1.5)
    target("save at 100,000 ≤ 0.5× git add + commit", ratio(med(big, "save", "concord"), med(big, "save", "git")), 0.5)
    rss = by[(big, "sync")]["concord"]["peak_rss_kb"] / 1024 if (big, "sync") in by else None
    target("peak RSS of a sync at 100,000 < 100 MB", rss, 100, unit="MB")
    # Import: judged at 100,000 when measured, else at the largest nested size measured.
    imported = sorted(r["n"] for r in nested if r["op"] == "import")
    at = big if big in imported or not imported else imported[-1]
    target(f"import of {at:,} documents (`save --all`) ≤ 1.0× git add -A + commit",
           ratio(med(at, "import", "concord"), med(at, "import", "git")), 1.0)
    # Text merge: concord's throughput / git merge-file's on the largest file measured (10 MB by default).
    merges = sorted((r for r in rows if r["op"] == "merge"), key=lambda r: r["n"])
    m = merges[-1] if merges else None
    target(f"text merge throughput ({m['label'] if m else '10 MB text file'}) ≥ 1.0× git merge-file's",
           ratio(m["git"][metric]["median"], m["concord"][metric]["median"]) if m else None, 1.0, at_least=True)
    # Issue 21: the same round when each device saved its 100 edits one document at a time (100
    # commits each, on both sides), in a flat folder of 10,000 and of 100,000 and nested at 100,000.
    each = "one save per document"
    target(f"{each}, 10,000 flat: sync ≤ 0.5× {git_sync}",
           ratio(one("flat", flat, "sync", "concord"), one("flat", flat, "sync", "git")), 0.5)
    target(f"{each}, 10,000 flat: resolve --all --latest (50) ≤ 1.0× git's",
           ratio(one("flat", flat, "resolve", "concord"), one("flat", flat, "resolve", "git")), 1.0)
    rss = single[("flat", flat, "sync")]["concord"]["peak_rss_kb"] / 1024 if ("flat", flat, "sync") in single else None
    target(f"{each}, 10,000 flat: peak RSS of sync < 100 MB", rss, 100, unit="MB")
    target(f"{each}, nested 100,000: sync ≤ 0.25× {git_sync}",
           ratio(one("nested", big, "sync", "concord"), one("nested", big, "sync", "git")), 0.25)
    target(f"{each}, nested 100,000: resolve --all --latest (50) ≤ 0.25× git's",
           ratio(one("nested", big, "resolve", "concord"), one("nested", big, "resolve", "git")), 0.25)
    target(f"{each}, 100,000 flat: sync ≤ 1.5× the 10,000 flat sync",
           ratio(one("flat", big, "sync", "concord"), one("flat", flat, "sync", "concord")), 1.5)
    target(f"{each}, 100,000 flat: resolve ≤ 1.5× the 10,000 flat resolve",
           ratio(one("flat", big, "resolve", "concord"), one("flat", flat, "resolve", "concord")), 1.5)
    return out


def load_warning(data) -> list[str]:
    """A visible line when other work kept the cores busy: wall times then include waiting for a core."""
    loads = []
    for s in data["setup"].values():
        for key in ("loadavg_at_start", "loadavg_at_end"):
            try:
                loads.append(float(s.get(key, "").split()[0]))
            except (ValueError, IndexError):
                pass
    cores = data["machine"].get("nproc") or 1
    if not loads or max(loads) <= cores:
        return []
    return [f"**The machine was busy with other work during this run: 1-minute load average "
            f"{min(loads):.1f}–{max(loads):.1f} on {cores} cores.** Wall times include waiting for a core "
            f"and are noisy; the CPU-time table below is the steadier comparison. Both tools ran alternately, "
            f"so both saw the same load.", ""]


def markdown(data) -> str:
    m = data["machine"]
    lines = [
        "# Concord benchmarks",
        "",
        f"{data['date']} · {m['cpu']} · {m['nproc']} cores · {m['memory']} · {m['os']}  ",
        f"{m['swift']} · {m['git']} · libgit2 {m['libgit2']} · concord built from {data['source']}  ",
        f"`{data['command']}` · work folder on {m['workdir_fs']} · total {data['elapsed_s']:.0f} s · "
        f"cloud: {data['config'].get('cloud', 'local')}",
        "",
        *load_warning(data),
        "Times in ms: median (min–max) over the repetitions, concord and git run alternately in the same run.",
        "Peak RSS: GNU time's %M for each process, which forks it from its own small process (for git, the largest of the chain's processes and their children).",
        "",
        "| size | operation | concord | git CLI (same work) | concord / git | concord peak RSS | git peak RSS | reps |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in data["rows"]:
        c, g = r["concord"], r["git"]
        name_c, name_g = op_names(r)
        lines.append(f"| {label(r)} | {name_c} vs {name_g} | {fig(c)} | {fig(g)} | {r['ratio']:.2f}× | "
                     f"{mb(c['peak_rss_kb'])} | {mb(g['peak_rss_kb'])} | {c['reps']} / {g['reps']} |")
    lines += ["", "CPU time (user + system, ms, median (min–max)): on a loaded machine wall time includes waiting for a core.", "",
              "| size | operation | concord CPU | git CPU | concord / git |", "|---:|---|---:|---:|---:|"]
    for r in data["rows"]:
        c, g = r["concord"]["cpu_seconds"], r["git"]["cpu_seconds"]
        ratio = c["median"] / g["median"] if g["median"] else float("nan")
        lines.append(f"| {label(r)} | {r['op']} | {fig({'seconds': c})} | {fig({'seconds': g})} | {ratio:.2f}× |")
    merges = [r for r in data["rows"] if r["op"] == "merge"]
    if merges:
        lines += ["", "Text merge throughput (size of BASE / median wall time; 1 MB = 1,048,576 bytes):", "",
                  "| file | concord merge-file --policy text | git merge-file | concord / git | same result |",
                  "|---:|---:|---:|---:|---|"]
        for r in merges:
            t = r["throughput_mb_s"]
            same = r.get("same_result_as_git")
            lines.append(f"| {label(r)} ({r['n']:,} bytes) | {t['concord']:.1f} MB/s | {t['git']:.1f} MB/s | "
                         f"{t['concord'] / t['git']:.2f}× | {'n/a' if same is None else 'yes' if same else '**no**'} |")
    if any(r["git"].get("parts_s") for r in data["rows"]):
        lines += ["", "Parts of git's figures (medians, ms):", ""]
    for r in data["rows"]:
        parts = r["git"].get("parts_s")
        if parts:
            lines.append(f"- {label(r)} {r['op']}: " + ", ".join(f"{k} {ms(v['median'])}" for k, v in parts.items()))
    lines += ["", "Targets, judged on wall-time medians (the CPU-time figure is given for comparison):", "",
              "| target | value (wall) | met | value (CPU time) |", "|---|---:|---|---:|"]
    value = lambda t: "n/a" if t["value"] is None else f"{t['value']:.2f}{' MB' if t['unit'] == 'MB' else '×'}"
    for t, c in zip(targets(data["rows"]), targets(data["rows"], "cpu_seconds")):
        met = "not measured" if t["met"] is None else ("**met**" if t["met"] else "**not met**")
        lines.append(f"| {t['target']} | {value(t)} | {met} | {value(c) if c['unit'] != 'MB' else '—'} |")
    lines += ["", "Setup (untimed in the figures above):", ""]
    for n, s in data["setup"].items():
        lines.append(f"- {setup_label(n)}: " + ", ".join(f"{k} {v}" for k, v in s.items()))
    lines += ["", "Notes:", ""] + [f"- {x}" for x in data["notes"]]
    return "\n".join(lines) + "\n"


def loadavg() -> str:
    """The 1-, 5- and 15-minute load averages: other work on the machine shows here."""
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "unknown"


def machine(args) -> dict:
    def first(cmd):
        try:
            return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout.strip().splitlines()[0]
        except Exception:
            return "unknown"
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "unknown"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB RAM"
    except OSError:
        pass
    libgit2 = first(["pkg-config", "--modversion", "libgit2"])
    linked = ""
    try:
        ldd = subprocess.run(["ldd", args.concord], stdout=subprocess.PIPE, text=True).stdout
        hit = re.search(r"(libgit2\.so\S*) => (\S+)", ldd)
        if hit:
            linked = f" (linked: {os.path.realpath(hit.group(2))})"
    except Exception:
        pass
    fs = first(["df", "-T", "--output=fstype,source", args.workdir]) if False else \
        " ".join(subprocess.run(["df", "-T", args.workdir], stdout=subprocess.PIPE, text=True).stdout.splitlines()[-1].split()[:2])
    os_name = platform.platform()
    try:
        for line in open("/etc/os-release"):
            if line.startswith("PRETTY_NAME="):
                os_name = line.split("=", 1)[1].strip().strip('"') + f", kernel {platform.release()}"
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu": cpu, "memory": mem, "os": os_name,
            "swift": first(["swift", "--version"]), "git": first(["git", "--version"]),
            "libgit2": libgit2 + linked, "workdir_fs": fs}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--concord", help="the concord binary (required unless --render)")
    p.add_argument("--source", default="unknown", help="what the binary was built from (for the report)")
    p.add_argument("--quick", action="store_true",
                   help="1,000 documents, 3 repetitions, no flat container, text merge of 1 MB only (a smoke run; "
                        "an explicit --flat or --merge-sizes still applies)")
    p.add_argument("--sizes", default="1000,10000,100000", help="comma-separated container sizes (folders of 100 documents)")
    p.add_argument("--flat", default=None, metavar="N,...",
                   help="also measure flat containers of N documents, all in their root folder, reported as "
                        "'N flat' (comma list; default 10000,100000; 0: none; --quick: none)")
    p.add_argument("--saves", default=",".join(SAVES), metavar="WAYS",
                   help="comma list of the ways the devices save their 100 offline edits before the airplane round, "
                        "each container built and measured once per way: batch (the files written, then one "
                        "`concord save --all` / `git commit -am`), single (one `concord save DOC --file F` / "
                        "`git add DOC` + `git commit` per document, rows 'N, one save per document'). "
                        "Default batch,single; import and save run with the first way only")
    p.add_argument("--merge-sizes", default=None, metavar="MB,...",
                   help="sizes in MB of the generated text files merged (default 1,10; --quick: 1)")
    p.add_argument("--only", default=",".join(PARTS), metavar="PARTS",
                   help=f"comma list of the parts to run, of: {', '.join(PARTS)} (default: all). airplane = sync, "
                        "conflicts and resolve. When --only leaves a part out, results are not written unless --write is given")
    p.add_argument("--reps", type=int, default=5,
                   help="repetitions of the import and the airplane round below --slow-from, of save and of the text merge")
    p.add_argument("--slow-reps", type=int, default=3, help="repetitions of the import and the airplane round at --slow-from and above")
    p.add_argument("--slow-from", type=int, default=10_000,
                   help="sizes from which the import and the airplane round (they take seconds) run --slow-reps times")
    p.add_argument("--conflicts-per-rep", type=int, default=2, help="concord conflicts / git ls-files -u pairs per airplane round")
    p.add_argument("--workdir", default=str(REPO / "benchmarks" / "tmp"))
    p.add_argument("--out", default=str(REPO / "benchmarks"), help="where results.json and results.md go")
    p.add_argument("--no-write", action="store_true", help="print the table only")
    p.add_argument("--write", action="store_true", help="write results.json and results.md even with --only")
    p.add_argument("--keep", action="store_true", help="keep the containers under --workdir")
    p.add_argument("--concord-clone", action="store_true",
                   help="make device 2 with `concord clone` of the full container (slow at 100,000) "
                        "instead of an empty clone filled with git plumbing")
    p.add_argument("--render", metavar="JSON", help="only rewrite the markdown table from a results.json")
    p.add_argument("--cloud", choices=("local", "daemon", "ssh", "https"), default="local",
                   help="how device 2 reaches its cloud in the airplane round: a local path (default), or a real git daemon, "
                        "sshd or HTTPS git server on 127.0.0.1 (then git pushes too, clones are compared, and results go to "
                        "results-CLOUD.json/.md)")
    args = p.parse_args()
    global ENV, SERVER, CLOUD
    if args.render:
        data = json.loads(Path(args.render).read_text())
        CLOUD = data["config"].get("cloud", "local")
        md = markdown(data)
        print(md)
        if not args.no_write:
            (Path(args.out) / "results.md").write_text(md)
        return 0
    if not args.concord:
        p.error("--concord is required")
    if args.quick:
        args.sizes, args.reps, args.slow_reps = "1000", 3, 3
    if args.flat is None:
        args.flat = "0" if args.quick else "10000,100000"
    if args.merge_sizes is None:
        args.merge_sizes = "1" if args.quick else "1,10"
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s]
    try:
        flats = [n for n in (int(s.strip().replace("_", "")) for s in args.flat.split(",") if s.strip()) if n > 0]
    except ValueError:
        p.error(f"--flat takes a comma list of sizes (0: none); got {args.flat!r}")
    saves = [x.strip() for x in args.saves.split(",") if x.strip()]
    if not saves or any(x not in SAVES for x in saves) or len(set(saves)) != len(saves):
        p.error(f"--saves takes a comma list of {', '.join(SAVES)}; got {args.saves!r}")
    merge_sizes = [int(s) for s in args.merge_sizes.split(",") if s]
    only = [x.strip() for x in args.only.split(",") if x.strip()]
    unknown = [x for x in only if x not in PARTS]
    if unknown or not only:
        p.error(f"--only takes a comma list of {', '.join(PARTS)}; got {args.only!r}")
    everything = set(only) == set(PARTS)
    write = not args.no_write and (everything or args.write)
    args.concord = str(Path(args.concord).resolve())
    args.workdir = str(Path(args.workdir).resolve())
    Path(args.workdir).mkdir(parents=True, exist_ok=True)
    # gc.auto = 0: a `git commit` of thousands of new files starts `git gc --auto` in the
    # background, which would run during the next measurements (and races the cleanup).
    Path(args.workdir, "gitconfig").write_text("[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n[gc]\n\tauto = 0\n")
    CLOUD = args.cloud
    ENV = git_env(Path(args.workdir))
    if args.cloud != "local":
        SERVER = servers.start(args.cloud, Path(args.workdir), Path(args.workdir) / f"server-{args.cloud}")
        ENV.update(SERVER.concord_env())
        ENV.update(SERVER.git_env())
        log(f"cloud: {args.cloud} on 127.0.0.1:{SERVER.port} (pid {SERVER.process.pid})")
    try:
        return measure(args, sizes, flats, saves, merge_sizes, only, everything, write)
    finally:
        if SERVER:
            SERVER.stop()


def measure(args, sizes, flats, saves, merge_sizes, only, everything, write) -> int:
    command = os.environ.get("BENCH_COMMAND") or "scripts/bench.d/bench.py " + " ".join(sys.argv[1:])
    started = time.perf_counter()
    results = Results()
    setup = {}
    cases = []
    # Each container once per way of saving the offline edits; the import and the save of one
    # document do not depend on the way, they run with the first.
    containers = [(n, flat, way) for n, flat in [(n, False) for n in sizes] + [(n, True) for n in flats] for way in saves]
    if not {"import", "airplane", "save"} & set(only):
        containers = []
    for n, flat, way in containers:
        size = Size(args, n, flat, way)
        key = size.key
        first_way = way == saves[0]
        if not first_way and "airplane" not in only:
            continue
        cases.append({"key": key, "n": n, "layout": "flat" if flat else "nested", "label": size.label, "saves": way})
        setup[str(key)] = size.setup
        size.setup["loadavg_at_start"] = loadavg()
        reps = args.slow_reps if n >= args.slow_from else args.reps
        e = lambda op, tool: results.samples[(key, op, tool)]["s"][-1] * 1000
        if "import" in only and first_way:
            log(f"N={size.label}: import, {reps} repetitions")
            for r in range(reps):
                size.import_rep(r, results)
                log(f"N={size.label} import {r + 1}/{reps}: concord save --all {e('import', 'concord'):.0f} ms "
                    f"vs git add -A + commit {e('import', 'git'):.0f} ms")
        if "airplane" in only or ("save" in only and first_way):
            log(f"N={size.label}: building containers in {size.root}")
            size.build()
        if "airplane" in only:
            for r in range(reps):
                size.airplane_rep(r, results)
                log(f"N={size.label} rep {r + 1}/{reps}: sync {e('sync', 'concord'):.0f} ms vs git {e('sync', 'git'):.0f} ms; "
                    f"conflicts {e('conflicts', 'concord'):.1f} vs {e('conflicts', 'git'):.1f}; "
                    f"resolve {e('resolve', 'concord'):.0f} vs {e('resolve', 'git'):.0f}"
                    + (f"; clone {e('clone', 'concord'):.0f} vs {e('clone', 'git'):.0f}" if SERVER else ""))
        if "save" in only and first_way:
            size.saves(args.reps, results)
        size.setup["loadavg_at_end"] = loadavg()
        log(f"N={size.label}: done; load average {size.setup['loadavg_at_end']}")
        if not args.keep:
            run(["rm", "-rf", size.root])
    if "merge" in only:
        for megabytes in merge_sizes:
            log(f"text merge of {megabytes} MB: {args.reps} repetitions")
            cases.append(merge_round(args, megabytes, results, setup))
            e = lambda tool: results.samples[(cases[-1]["key"], "merge", tool)]["s"]
            log(f"text merge of {megabytes} MB: concord {statistics.median(e('concord')) * 1000:.1f} ms, "
                f"git {statistics.median(e('git')) * 1000:.1f} ms (medians)")

    if "start" in only:
        cases.append(start_round(args, results))
        e = lambda op, tool: statistics.median(results.samples[("start", op, tool)]["s"]) * 1000
        log(f"process start: concord {e('start', 'concord'):.1f} ms vs git {e('start', 'git'):.1f} ms; "
            f"conflicts {e('start-read', 'concord'):.1f} ms vs git ls-files -u {e('start-read', 'git'):.1f} ms")

    rows = results.rows(cases)
    different = [c["label"] for c in cases if c.get("same_result_as_git") is False]
    data = {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": command.strip(),
        "source": args.source,
        "machine": machine(args),
        "config": {"cloud": args.cloud, "sizes": sizes, "flat": flats, "saves": saves, "merge_sizes_mb": merge_sizes, "only": only,
                   "reps": args.reps, "slow_reps": args.slow_reps, "slow_from": args.slow_from,
                   "conflicts_per_rep": args.conflicts_per_rep, "docs_per_folder": DOCS_PER_FOLDER,
                   "edits_per_device": EDITS, "conflicting_edits": SHARED_EDITS},
        "setup": setup,
        "rows": rows,
        "targets": targets(rows),
        "targets_cpu_time": targets(rows, "cpu_seconds"),
        "notes": ([] if everything else [f"Only part of the bench ran (--only {','.join(only)})."]) + [
            "Import: per repetition, a new container (`concord init DIR --device one`, no remote) and a new "
            "`git init` repository each get the same N documents written into their work tree (untimed); measured: "
            "`concord save --all` (one commit of the N documents, each document with its version) vs `git add -A` + "
            "`git commit -q -m import`, with a `sync` (untimed) before each, so that Concord's fsyncs do not write back "
            "git's unsynced objects. Both results are checked: N documents in one new commit.",
            "Durability: Concord fsyncs every object, reference and work-tree file it writes (a version reported saved "
            "survives a power cut); git does not fsync loose objects by default (core.fsync), and the bench leaves "
            "both as they are. This weighs most on the import (N objects) and on resolve (one commit per document). "
            "CONCORD_UNSAFE_NO_FSYNC=1 would turn Concord's off, for measuring what durability costs; the bench "
            + ("**ran with it set**." if os.environ.get("CONCORD_UNSAFE_NO_FSYNC") == "1" else "does not set it."),
            "Sizes are containers of N documents in folders of 100 (3 levels: f00/g00/doc000000.txt); \"N flat\" is "
            "a container whose N documents all sit in its root folder (no folders), measured the same way.",
            "Airplane round: device 1 and device 2 share history; each saved 100 documents offline (50 the same, with "
            "different contents); device 1 pushed. Measured: device 2's `concord sync` (fetch + integrate + push, "
            "exit 0, 50 new conflicts) vs, on an equivalent plain clone, `git fetch` + `git merge` (which stops with "
            "50 conflicts, exit 1) + `git commit -qam` (the conflict markers, like Concord's provisional merge) + "
            "`git push` to its own fresh copy of the cloud"
            + (" (a local path, as Concord's)." if args.cloud == "local" else
               f", through the same server (--cloud {args.cloud}); clone: `concord clone URL` vs `git clone URL` of "
               "the two clouds after the round."),
            "The devices' offline edits were saved the same way on both sides (--saves "
            + ",".join(saves) + "): rows \"N\" and \"N flat\" in one batch (the 100 files written, then one "
            "`concord save --all` / one `git commit -qam` per device: one commit each); rows \"…, one save per "
            "document\" one document at a time (`concord save DOC --file F` / the file written + `git add DOC` + "
            "`git commit` per document: 100 commits each). Import and save do not depend on this: they are "
            "measured once per size, with " + saves[0] + ".",
            "Each repetition starts from fresh copies (cp -a, untimed) of device 2 and of the cloud, on both sides (git: "
            "its cloud and two copies of its device 2, one that syncs and pushes, one merged untimed for conflicts and "
            "resolve); the git copies' indexes are refreshed untimed (`git update-index --refresh`) so that git does "
            "not pay for the copy.",
            "conflicts: run after the airplane round, on its result (concord: the conflict records; git: the "
            "conflicted merge's index), several times per round.",
            "resolve: concord makes one commit for the 50 documents, as git does for the 50 paths.",
            "save: on device 1 of each side after the rounds, one untimed warm-up each first.",
            "Concord's devices get the N documents with `git read-tree -u`, after which the index it leaves is "
            "removed: a Concord container has none, and libgit2 would read all of it at each attribute lookup "
            "(a 100,000-entry index made a save 4× slower).",
            "Text merge: generated files of 57-byte lines, edits on both sides at least 40 lines apart (a clean "
            "merge); measured: `concord merge-file --policy text BASE CUR OTHER` vs `git merge-file CUR BASE OTHER`, "
            "both writing the result into their own fresh copy CUR of the current version (exit 0 required). "
            "Throughput is BASE's size over the median wall time.",
            "git runs with no system configuration (GIT_CONFIG_NOSYSTEM) and a global one that only sets "
            "init.defaultBranch = main, advice.detachedHead = false and gc.auto = 0 (no background `git gc` during the measurements), as concord ignores them too.",
        ] + ([f"**concord and git merged differently**: {', '.join(different)} (the results were compared after "
              f"each repetition)."] if different else []),
    }
    data["elapsed_s"] = time.perf_counter() - started
    md = markdown(data)
    print(md)
    if not write and not args.no_write:
        log("--only: results.json and results.md not written (add --write to write them)")
    if write:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        stem = "results" if args.cloud == "local" else f"results-{args.cloud}"
        (out / f"{stem}.json").write_text(json.dumps(data, indent=2) + "\n")
        (out / f"{stem}.md").write_text(md)
        log(f"wrote {out / f'{stem}.json'} and {out / f'{stem}.md'}")
    return 0


def exit_with(main) -> None:
    """Runs a bench's `main()` and exits with its status; a failure (Failed, or a fixture's command
    that failed) ends it with one line on stderr and exit 1."""
    try:
        sys.exit(main())
    except RuntimeError as e:
        print(f"bench: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    exit_with(main)
