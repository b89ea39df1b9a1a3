"""The crash harness: kills concord at every crash point of every write path, then checks the container.

Debug builds of concord carry named crash points inside every write path (objects written,
packs stored, before and after each reference moves, the checkout journal, each work-tree file,
the cloud's reference): `CONCORD_CRASH_TRACE=FILE` lists the points a command passes, and
`CONCORD_CRASH_AT=NAME#N` kills the process with SIGKILL the Nth time it reaches NAME.

For each operation (save, save of a package, save --all, rm, mv of a file and of a package, kv
set, airplane on, sync that pushes, fast-forwards, integrates, integrates with conflicts,
integrates and resolves conflicts on its own (rules ending with auto), integrates a name that is
a file on one side and a folder on the other, resolve --keep, --merge, --all and --keep-both,
clone), from the same starting state each time (a cloud and two devices, one of them holding an
edit it has not saved):

1. a control run, traced: the points it passes, and the state the devices converge to;
2. for each point passed (each occurrence, or with --points first only the first of each name),
   the same command killed there, and then:
   - it was killed (a command that exits without reaching its point, or fails, is a failure);
   - `git fsck` is clean on every device and the cloud;
   - every version of the starting state is still in the killed device's objects;
   - the next command succeeds: the same command again (or, when the killed one already moved
     `main`, a sync) must exit 0;
   - the work tree equals `main` (the unsaved edit aside, which must still be there);
   - the devices converge (each syncs twice) to one `main`, and reach the control run's
     documents, conflicts and histories (every document's versions, by device and content,
     listed by `concord versions --all` and read with `git cat-file` on every device; the
     versions the operation made read back with `concord show`).
3. races, with a command held at a crash point (`CONCORD_CRASH_HOLD`: it stops itself with
   SIGSTOP there): another device syncs meanwhile; the held sync, continued, must then have its
   push refused by the cloud's compare-and-swap and try again.

Usage: scripts/crash-harness [--points all|first] [--only NAMES] [--concord PATH] [--keep] [--list]
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from .content import content_key, tree_keys, version_keys, work_tree_docs
from .fixture import Fixture, blob_id, find_concord, git_fsck, run_git
from .hostile import HostileCloud


# Bugs this harness found in concord, not fixed yet: a failure that matches one (case, kill point,
# message) is reported as known instead of failing the run; --strict fails on them too.
KNOWN_BUGS = [
    # (case, a regular expression over the case name), kill point, message, description
    (r"^audit:", r"", r"\.git/config was moved into place without an fsync of the file first$",
     "the device's configuration (.git/config: device name and id, airplane mode, the cloud's URL) is "
     "moved into place by libgit2 before any flush; Concord flushes the file and its folder right after "
     "(Repository.setConfig), which leaves a power cut between the two"),
    (r"^audit:clone$", r"", r"/\.git/(HEAD|objects/pack/pack-[0-9a-f]+\.(pack|idx)) was moved into place without",
     "clone (libgit2's clone of a cloud on a local path) writes the new device's packs and HEAD without fsync: "
     "a power cut right after a clone that reported success can leave the device without its objects "
     "(the cloud still has them)"),
]

DOCS = ["note.txt", "list.txt", "draft.txt", "sketch.note", "ideas/new.txt"]
UNSAVED = b"draft: an edit on device one that was never saved\n"


class HarnessFailure(Exception):
    pass


class StopRun(Exception):
    """--first-failure: the first failure ends the run."""


class Harness:
    """Two devices (`one` acts, `two` is the other device) and a cloud; `three` joins in the clone case."""

    def __init__(self, concord: str, root: str, verbose=False):
        self.root = root
        self.fx = Fixture(concord, root, names=["one", "two", "three"], env={"CONCORD_LOCK_TIMEOUT": "10"})
        self.one, self.two, self.three = self.fx.devices
        self.verbose = verbose
        self.kills = self.reruns = 0

    def say(self, text):
        if self.verbose:
            print(text, flush=True)

    def run(self, dev, *args, stdin=None, env_extra=None, ok=(0,)):
        result = self.fx.run(dev, *args, stdin=stdin, env_extra=env_extra)
        if ok is not None and result.rc not in ok:
            raise HarnessFailure(f"concord {' '.join(map(str, result.argv[1:]))} exited {result.rc}: "
                                 f"{result.first_error_line() or result.text.strip()[:200]}")
        return result

    def write(self, dev, path, data: bytes | None):
        full = os.path.join(dev.path, path)
        if data is None:
            if os.path.isdir(full):
                shutil.rmtree(full)
            elif os.path.exists(full):
                os.remove(full)
            return
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)

    # -- the starting state every case builds on

    def base(self):
        fx, one, two = self.fx, self.one, self.two
        fx.cloud.start()
        self.run(None, "init", one.path, "--device", "one", "--remote", fx.cloud.url, "--package", "*.note",
                 env_extra={"CONCORD_DEVICE_ID": one.id})
        self.run(None, "clone", fx.cloud.url, two.path, "--device", "two", env_extra={"CONCORD_DEVICE_ID": two.id})
        self.run(one, "save", "note.txt", "--file", "-", stdin=b"note line 1\nnote line 2\nnote line 3\nnote line 4\n")
        self.run(one, "save", "list.txt", "--file", "-", stdin=b"milk\neggs\n")
        self.run(one, "save", "draft.txt", "--file", "-", stdin=b"draft: saved\n")
        self.write(one, "sketch.note/Info.json", b'{"title": "sketch"}\n')
        self.write(one, "sketch.note/body.txt", b"a sketch\n")
        self.run(one, "save", "sketch.note")
        self.run(one, "sync", "--json")
        self.run(two, "sync", "--json")
        self.write(one, "draft.txt", UNSAVED)

    # -- reading the state

    def versions(self, dev, doc) -> list:
        result = self.fx.run(dev, "versions", doc, "--all", "--json")
        if result.rc != 0:
            if "no document" in result.err:
                return []
            raise HarnessFailure(f"{dev.name}: versions {doc} --all exited {result.rc}: {result.first_error_line()}")
        return result.json()

    def history(self, dev) -> dict:
        """doc -> sorted [(device, content key)] of every version `versions --all` lists on `dev`;
        contents read with git from `dev`'s own objects."""
        listing = {doc: self.versions(dev, doc) for doc in DOCS}
        keys = version_keys(dev.path, [(doc, v["id"]) for doc, vs in listing.items() for v in vs if not v["deleted"]])
        result = {}
        for doc, vs in listing.items():
            if vs:
                result[doc] = sorted((v["device"], repr(None if v["deleted"] else keys[(doc, v["id"])])) for v in vs)
        return result

    def object_keys(self, dev, ids) -> dict:
        """Content keys of (doc, commit) pairs, read from `dev`'s objects with git."""
        return version_keys(dev.path, ids)

    def known_versions(self) -> dict:
        """device name -> {(doc, commit): content key} of every version device one and two hold
        at the start (the versions a device saved and did not sync are on it only)."""
        found = {}
        for dev in (self.one, self.two):
            ids = [(doc, v["id"]) for doc in DOCS for v in self.versions(dev, doc) if not v["deleted"]]
            found[dev.name] = self.object_keys(dev, ids)
        return found

    def converge(self, devices):
        for _ in range(2):
            for dev in devices:
                self.run(dev, "sync", "--json")

    def final_state(self, devices, actor) -> dict:
        heads = {dev.name: self.fx.head(dev) for dev in devices}
        heads["cloud"] = self.fx.cloud_head()
        if len(set(heads.values())) != 1:
            raise HarnessFailure(f"the devices did not converge: main is {', '.join(f'{k} {v[:7]}' for k, v in heads.items())}")
        conflicts = None
        for dev in devices:
            found = sorted((c["document"], c["versions"]) for c in json.loads(self.run(dev, "conflicts", "--json").out))
            if conflicts is not None and found != conflicts:
                raise HarnessFailure(f"the devices converged on one main but list different conflicts")
            conflicts = found
        history = self.history(actor)
        return {"documents": tree_keys(actor.path), "conflicts": conflicts, "history": history}

    def objects_readable(self, devices, wanted: dict, label: str):
        """Every (doc, commit) in `wanted[device name]` (every device's, with the key "*") is
        readable with its content on that device."""
        for dev in devices:
            want = wanted.get(dev.name, {}) if "*" not in wanted else wanted["*"]
            found = self.object_keys(dev, list(want))
            lost = [f"{doc}@{commit[:7]}" for (doc, commit), key in want.items() if found.get((doc, commit)) != key]
            if lost:
                raise HarnessFailure(f"{label}: {dev.name} cannot read these saved versions any more: {', '.join(lost)}")

    def work_tree_matches_main(self, dev, unsaved_kept: bool):
        """The work tree holds exactly main's documents, but for device one's unsaved draft edit."""
        main = tree_keys(dev.path)
        disk = {doc: content_key(data) for doc, data in work_tree_docs(dev.path).items()}
        if unsaved_kept:
            if disk.get("draft.txt") != content_key(UNSAVED):
                raise HarnessFailure(f"{dev.name}: the unsaved edit of draft.txt is gone from the work tree")
            disk.pop("draft.txt")
            main.pop("draft.txt", None)
        if disk != main:
            wrong = sorted(d for d in set(disk) | set(main) if disk.get(d) != main.get(d))
            raise HarnessFailure(f"{dev.name}: the work tree differs from main for {', '.join(wrong)} "
                                 f"(work tree: {', '.join('absent' if disk.get(d) is None else disk[d][1][:7] if disk[d][0] == 'file' else 'package' for d in wrong)}; "
                                 f"main: {', '.join('absent' if main.get(d) is None else main[d][1][:7] if main[d][0] == 'file' else 'package' for d in wrong)})")


# ---------------------------------------------------------------------------------------------
# The operations


class Case:
    """One operation: how to reach its starting state from the base, and the command killed."""

    def __init__(self, name, prepare, command, actor="one", moves_main=True, after=None, refused=False):
        self.name = name
        self.refused = refused            # the command must fail (exit 1, "refused"), killed or not
        self.prepare = prepare            # (harness) -> None
        self.command = command            # (harness) -> (device or None, [args], stdin bytes or None)
        self.actor = actor
        self.moves_main = moves_main      # once main moved, the command's work is done: the next command is a sync
        self.after = after                # (harness) -> None, before the devices converge


def _nothing(h):
    pass


def prep_save_package(h):
    h.write(h.one, "sketch.note/body.txt", b"a sketch, edited\n")
    h.write(h.one, "sketch.note/assets/thumb.bin", bytes(range(40)))


def prep_save_all(h):
    h.write(h.one, "note.txt", b"note line 1\nnote line 2, edited in the work tree\nnote line 3\nnote line 4\n")
    h.write(h.one, "ideas/new.txt", b"a new idea\n")
    h.write(h.one, "list.txt", None)


def prep_sync_push(h):
    h.run(h.one, "save", "note.txt", "--file", "-", stdin=b"note line 1\nnote line 2 from one\nnote line 3\nnote line 4\n")
    h.run(h.one, "save", "list.txt", "--file", "-", stdin=b"milk\neggs\nflour\n")


def prep_sync_pull(h):
    two = h.two
    h.run(two, "save", "note.txt", "--file", "-", stdin=b"note line 1\nnote line 2 from two\nnote line 3\nnote line 4\n")
    h.run(two, "save", "ideas/new.txt", "--file", "-", stdin=b"an idea from two\n")
    h.run(two, "rm", "list.txt")
    h.write(two, "sketch.note/body.txt", b"a sketch, edited on two\n")
    h.write(two, "sketch.note/assets/thumb.bin", bytes(range(30)))
    h.run(two, "save", "sketch.note")
    h.run(two, "sync", "--json")


def prep_sync_merge(h):
    two = h.two
    h.run(two, "save", "note.txt", "--file", "-", stdin=b"note line 1\nnote line 2 from two\nnote line 3\nnote line 4\n")
    h.run(two, "rm", "list.txt")
    h.run(two, "sync", "--json")
    h.run(h.one, "save", "ideas/new.txt", "--file", "-", stdin=b"an idea from one\n")


def prep_sync_conflict(h):
    one, two = h.one, h.two
    h.run(one, "save", "note.txt", "--file", "-", stdin=b"note line 1 from one\nnote line 2\nnote line 3\nnote line 4\n")
    h.write(one, "sketch.note/body.txt", b"a sketch, one's way\n")
    h.run(one, "save", "sketch.note")
    time.sleep(0.01)  # two's versions are the later ones: latest-wins makes them current on one
    h.run(two, "save", "note.txt", "--file", "-", stdin=b"note line 1\nnote line 2\nnote line 3\nnote line 4 from two\n")
    h.write(two, "sketch.note/body.txt", b"a sketch, two's way\n")
    h.run(two, "save", "sketch.note")
    h.run(two, "sync", "--json")


AUTO_RULES = b"note.txt text auto\nsketch.note latest auto\n"


def prep_sync_auto_resolve(h):
    """Rules that resolve on their own on both devices, then the conflicts of sync-conflict: one's
    sync integrates, merges note.txt (changes to different lines) and keeps the latest
    sketch.note in one resolution commit on top of the integration, then pushes both."""
    h.run(h.one, "policies", "--file", "-", stdin=AUTO_RULES)
    h.run(h.one, "sync", "--json")
    h.run(h.two, "sync", "--json")
    prep_sync_conflict(h)


def prep_in_conflict(h):
    prep_sync_conflict(h)
    h.run(h.one, "sync", "--json")
    h.run(h.two, "sync", "--json")


def cmd_resolve_keep(h):
    versions = json.loads(h.run(h.one, "versions", "note.txt", "--json").out)
    mine = [v["id"] for v in versions if v["device"] == "one"]
    if not mine:
        raise HarnessFailure("resolve case: no version of note.txt from device one in contention")
    return h.one, ["resolve", "note.txt", "--keep", mine[0], "--json"], None


def prep_gc(h):
    """Several packs and loose objects on device one (each save and sync stores a pack), and an
    object nothing reaches (a blob written and never saved) for gc to drop."""
    for i in range(3):
        h.run(h.one, "save", "note.txt", "--file", "-", stdin=f"note line 1\nnote, round {i}\n".encode())
        h.run(h.two, "save", "list.txt", "--file", "-", stdin=f"milk\neggs\nround {i}\n".encode())
        h.run(h.two, "sync", "--json")
        h.run(h.one, "sync", "--json")
    run_git("-C", h.one.path, "hash-object", "-w", "--stdin", input=b"an object nothing reaches\n")


def prep_hostile(h):
    """The cloud's main moved to a crafted commit holding a `.git` folder with a hook."""
    HostileCloud(h.fx.cloud.dir).push("dot-git-folder-with-a-hook")


def repair_cloud(h):
    cloud = HostileCloud(h.fx.cloud.dir)
    cloud.set_main(cloud.git("rev-parse", "main^"))
    for top, dirs, files in os.walk(h.root):
        dirs[:] = [d for d in dirs if d not in ("objects", "cloud.git")]
        if "PWNED" in files or "post-checkout" in files:
            raise HarnessFailure(f"a file of the hostile commit was written in {top}")


def prep_over_limit(h):
    """The cloud's main moved to a commit naming one file forty times, past device one's limit
    on what one transfer writes (1 MB): its objects arrive, then the arrival check refuses it
    and removes them (craft.py). An attack on the cloud's own files (a lying index, a delta
    loop) is refused before anything is written, so it has no crash point to kill at."""
    run_git("-C", h.one.path, "config", "concord.maxArrivalSize", "1m")
    HostileCloud(h.fx.cloud.dir).attack("one-file-many-names")


def repair_over_limit(h):
    HostileCloud(h.fx.cloud.dir).repair()
    run_git("-C", h.one.path, "config", "--unset", "concord.maxArrivalSize")


def prep_kv(h):
    h.run(h.one, "kv", "set", "theme", '"light"')


def prep_sync_clash(h):
    """A file `plans` on device one, a folder `plans/` of notes on device two (synced first): one's
    sync integrates a name that is a file on one side and a folder on the other."""
    h.run(h.one, "save", "plans", "--file", "-", stdin=b"plans as a file\n")
    h.run(h.two, "save", "plans/monday.txt", "--file", "-", stdin=b"dentist\n")
    h.run(h.two, "save", "plans/tuesday.txt", "--file", "-", stdin=b"groceries\n")
    h.run(h.two, "sync", "--json")


def prep_in_clash(h):
    prep_sync_clash(h)
    h.run(h.one, "sync", "--json")


CASES = [
    Case("save", _nothing, lambda h: (h.one, ["save", "note.txt", "--file", "-"], b"note, saved again\n")),
    Case("save-package", prep_save_package, lambda h: (h.one, ["save", "sketch.note"], None)),
    Case("save-all", prep_save_all, lambda h: (h.one, ["save", "--all"], None)),
    Case("rm", _nothing, lambda h: (h.one, ["rm", "list.txt"], None)),
    Case("mv", _nothing, lambda h: (h.one, ["mv", "list.txt", "lists/groceries.txt"], None)),
    Case("mv-package", _nothing, lambda h: (h.one, ["mv", "sketch.note", "drafts/sketch.note"], None)),
    Case("kv-set", prep_kv, lambda h: (h.one, ["kv", "set", "theme", '"dark"'], None)),
    Case("airplane", _nothing, lambda h: (h.one, ["airplane", "on"], None), moves_main=False,
         after=lambda h: h.run(h.one, "airplane", "off")),
    Case("sync-push", prep_sync_push, lambda h: (h.one, ["sync", "--json"], None), moves_main=False),
    Case("sync-pull", prep_sync_pull, lambda h: (h.one, ["sync", "--json"], None), moves_main=False),
    Case("sync-merge", prep_sync_merge, lambda h: (h.one, ["sync", "--json"], None), moves_main=False),
    Case("sync-conflict", prep_sync_conflict, lambda h: (h.one, ["sync", "--json"], None), moves_main=False),
    Case("sync-auto-resolve", prep_sync_auto_resolve, lambda h: (h.one, ["sync", "--json"], None), moves_main=False),
    Case("resolve-keep", prep_in_conflict, cmd_resolve_keep),
    Case("resolve-merge", prep_in_conflict, lambda h: (h.one, ["resolve", "note.txt", "--merge", "--json"], None)),
    Case("resolve-all", prep_in_conflict, lambda h: (h.one, ["resolve", "--all", "--latest", "--json"], None)),
    Case("sync-clash", prep_sync_clash, lambda h: (h.one, ["sync", "--json"], None), moves_main=False),
    Case("resolve-keep-both", prep_in_clash, lambda h: (h.one, ["resolve", "plans", "--keep-both", "--json"], None)),
    Case("gc", prep_gc, lambda h: (h.one, ["gc"], None), moves_main=False),
    Case("sync-hostile", prep_hostile, lambda h: (h.one, ["sync", "--json"], None), moves_main=False,
         after=repair_cloud, refused=True),
    Case("sync-over-limit", prep_over_limit, lambda h: (h.one, ["sync", "--json"], None), moves_main=False,
         after=repair_over_limit, refused=True),
    Case("clone", _nothing, lambda h: (None, ["clone", h.fx.cloud.url, h.three.path, "--device", "three"], None),
         actor="three", moves_main=False),
]


# ---------------------------------------------------------------------------------------------
# Running a case


def occurrences(points: list, which: str) -> list:
    """NAME#N for each point passed (`all`), or only the first of each name (`first`)."""
    counts, result = {}, []
    for name in points:
        counts[name] = counts.get(name, 0) + 1
        if which == "all" or counts[name] == 1:
            result.append(f"{name}#{counts[name]}")
    return result


class Runner:
    def __init__(self, args, concord, root):
        self.args = args
        self.concord = concord
        self.root = root
        self.failures = []
        self.table = []   # (case, points passed, distinct points, kills, failures, known bugs)
        self.kills = 0
        self.known = {}   # known bug -> ["case at point", ...]
        self.shim = None  # the durability audit's preloaded library

    def fresh(self) -> Harness:
        shutil.rmtree(os.path.join(self.root, "w"), ignore_errors=True)
        return Harness(self.concord, os.path.join(self.root, "w"), verbose=self.args.verbose)

    def run_case(self, case: Case, base_copy: str):
        h = self.fresh()
        h.fx.restore(base_copy)
        case.prepare(h)
        pre = os.path.join(self.root, f"pre-{case.name}")
        shutil.rmtree(pre, ignore_errors=True)
        h.fx.snapshot(pre)
        known = h.known_versions()
        devices, actor = self.devices(case, h)

        # the control run, traced
        trace = os.path.join(self.root, "trace")
        if os.path.exists(trace):
            os.remove(trace)
        dev, argv, stdin = case.command(h)
        env = {"CONCORD_CRASH_TRACE": trace}
        audit_log = os.path.join(self.root, "audit-log")
        if self.shim:
            if os.path.exists(audit_log):
                os.remove(audit_log)
            env.update(LD_PRELOAD=self.shim, CONCORD_AUDIT_LOG=audit_log)
        control = h.fx.run(dev, *argv, stdin=stdin, env_extra=env)
        if not succeeded(case, control):
            raise HarnessFailure(f"{case.name}: the control run exited {control.rc}: {control.first_error_line()}"
                                 + (" (expected exit 1, refused)" if case.refused else ""))
        points = open(trace).read().split() if os.path.exists(trace) else []
        audited = self.audit(case, audit_log, h.root) if self.shim else 0
        if case.after:
            case.after(h)
        h.converge(devices)
        expected = h.final_state(devices, actor)
        new_versions = self.new_versions(h, actor, known)
        targets = occurrences(points, self.args.points)
        print(f"{case.name}: {len(points)} crash points passed ({len(set(points))} distinct): "
              f"{len(targets)} kills", flush=True)
        failures = known_hits = 0
        for target in targets:
            h = self.fresh()
            h.fx.restore(pre)
            try:
                self.kill_at(case, h, target, known, expected)
            except HarnessFailure as failure:
                bug = known_bug(case.name, target, str(failure))
                if bug and not self.args.strict:
                    known_hits += 1
                    self.known.setdefault(bug, []).append(f"{case.name} at {target}")
                    h.say(f"  known bug: {case.name}, killed at {target}: {failure}")
                    self.kills += 1
                    continue
                failures += 1
                where = os.path.join(self.root, f"failed-{case.name}-{target.replace(':', '_').replace('#', '-')}")
                shutil.rmtree(where, ignore_errors=True)
                shutil.copytree(h.root, where, symlinks=True)
                message = f"{case.name}, killed at {target}: {failure}"
                self.failures.append((message, where, case, target))
                print(f"  FAIL {message}", flush=True)
                if self.args.first_failure:
                    raise StopRun()
            self.kills += 1
        self.table.append((case.name, len(points), len(set(points)), len(targets), failures, known_hits, audited))
        return new_versions

    def audit(self, case, log, root) -> int:
        """The durability audit of the control run: every file concord moved into place (rename
        or link) in a container or the cloud was flushed after it was last written and before the
        move (an fsync of the file, or a flush of the whole file system: sync or syncfs), and its
        folder after the move (an fsync of the folder, or a flush of the whole file system).
        Returns how many moves it checked; each problem is a failure (or a known bug)."""
        events = [line.split("\t") for line in open(log).read().splitlines()] if os.path.exists(log) else []
        flushes = [i for i, (kind, _, _) in enumerate(events) if kind == "syncall"]
        last_written = {}
        checked = 0
        for i, (kind, src, dst) in enumerate(events):
            if kind == "written":
                last_written[src] = i
            if kind not in ("rename", "link") or not dst.startswith(root + os.sep):
                continue
            if os.path.basename(dst) in ("FETCH_HEAD", "ORIG_HEAD"):
                continue  # git's fetch bookkeeping: concord never reads it
            checked += 1
            problems = []
            flushed_after = bisect.bisect_right(flushes, i) < len(flushes)
            if case.name == "clone" and "/.git/" in dst and flushed_after:
                # A new device's repository is not used before its clone returns (a clone that
                # does not return is made again): the flush of the file system before it returns
                # covers what libgit2 moved into place. Its work tree is audited like any other.
                continue
            written = last_written.get(src, -1)
            flushed_between = bisect.bisect_right(flushes, written) < bisect.bisect_left(flushes, i)
            if not flushed_between and not any(k == "fsync" and p == src for k, p, _ in events[:i]):
                problems.append("without an fsync of the file first")
            folder = os.path.dirname(dst)
            cache = "/.git/concord/history/" in dst  # a cache: a stale or lost index is detected and rebuilt
            if not cache and not flushed_after and not any(k == "fsync" and p == folder for k, p, _ in events[i + 1:]):
                problems.append("without an fsync of its folder after")
            if problems:
                where = os.path.relpath(dst, root)
                message = f"durability: {where} was moved into place {' and '.join(problems)}"
                bug = known_bug(f"audit:{case.name}", "", message)
                if bug and not self.args.strict:
                    self.known.setdefault(bug, []).append(f"{case.name}")
                    continue
                self.failures.append((f"{case.name}: {message}", None, None, None))
                print(f"  FAIL {case.name}: {message}", flush=True)
                if self.args.first_failure:
                    raise StopRun()
        return checked

    @staticmethod
    def devices(case, h):
        """The devices a case ends with, and the one that runs the command (of this harness)."""
        devices = [h.one, h.two] + ([h.three] if case.actor == "three" else [])
        return devices, {"one": h.one, "three": h.three}[case.actor]

    def new_versions(self, h, actor, known):
        """The versions (not deletions) the actor lists that no device held at the start."""
        old = {pair for versions in known.values() for pair in versions}
        return {(doc, v["id"]) for doc in DOCS for v in h.versions(actor, doc)
                if (doc, v["id"]) not in old and not v["deleted"]}

    def kill_at(self, case, h, target, known, expected):
        devices, actor = self.devices(case, h)
        dev, argv, stdin = case.command(h)
        head_before = h.fx.head(actor) if case.actor != "three" else None
        killed = h.fx.run(dev, *argv, stdin=stdin, env_extra={"CONCORD_CRASH_AT": target})
        if killed.rc != -signal.SIGKILL:
            if succeeded(case, killed):
                raise HarnessFailure(f"not killed: the command finished (exit 0) without reaching {target} "
                                     f"(the control run passed it)")
            raise HarnessFailure(f"the command failed without being killed: exit {killed.rc}: {killed.first_error_line()}")
        h.say(f"  {case.name}: killed at {target}")
        # right after the kill, before any other command
        problems = [p for p in h.fx.fsck_all() if not (case.actor == "three" and p.startswith("three"))]
        if problems:
            raise HarnessFailure("; ".join(problems))
        h.objects_readable([d for d in (h.one, h.two) if os.path.isdir(d.path)], known, "right after the kill")
        # the next command
        if case.moves_main and h.fx.head(actor) != head_before:
            nxt = h.fx.run(actor, "sync", "--json")
            what = "sync (the killed command had moved main)"
        elif case.actor == "three" and h.fx.run(actor, "ls").rc == 0:
            nxt = h.fx.run(actor, "sync", "--json")
            what = "sync (the killed clone left a container that opens)"
        else:
            dev, argv, stdin = case.command(h)
            nxt = h.fx.run(dev, *argv, stdin=stdin)
            what = "the same command again"
        if not succeeded(case, nxt):
            raise HarnessFailure(f"the next command, {what}, exited {nxt.rc}: {nxt.first_error_line() or nxt.text.strip()[:200]}")
        h.work_tree_matches_main(actor, unsaved_kept=actor is h.one and case.name != "save-all")
        if case.after:
            case.after(h)
        h.converge(devices)
        for d in devices:
            h.work_tree_matches_main(d, unsaved_kept=d is h.one and case.name != "save-all")
        got = h.final_state(devices, actor)
        for part in ("documents", "conflicts", "history"):
            if got[part] != expected[part]:
                raise HarnessFailure(f"after converging, the {part} differ from an uninterrupted run's: "
                                     f"{describe_difference(got[part], expected[part])}")
        everything = {pair: key for versions in known.values() for pair, key in versions.items()}
        h.objects_readable(devices, {"*": everything}, "after converging")
        for doc, vid in self.new_versions(h, actor, known):
            shown = h.fx.run(actor, "show", doc, "--version", vid)
            if shown.rc != 0:
                raise HarnessFailure(f"{actor.name}: show {doc} --version {vid[:7]} exited {shown.rc}: {shown.first_error_line()}")
        problems = h.fx.fsck_all()
        if problems:
            raise HarnessFailure("after converging: " + "; ".join(problems))


def succeeded(case, result) -> bool:
    """The command did what it must: exit 0, or for a refused case exit 1 saying it refused."""
    if case.refused:
        return result.rc == 1 and "refused" in result.first_error_line()
    return result.rc == 0


def build_shim(folder) -> str | None:
    """Compiles durability.c (the audit's preloaded library) with the C compiler Swift ships."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "durability.c")
    out = os.path.join(folder, "durability.so")
    for cc in (shutil.which("clang"), "/opt/swift/usr/bin/clang", shutil.which("cc"), shutil.which("gcc")):
        if cc and os.path.exists(cc):
            built = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", out, source, "-ldl", "-lpthread"],
                                   capture_output=True)
            if built.returncode == 0:
                return out
    return None


def known_bug(case, target, message):
    for name, point, pattern, description in KNOWN_BUGS:
        if re.search(name, case) and re.search(point, target) and re.search(pattern, message):
            return description
    return None


def describe_difference(got, want) -> str:
    if isinstance(got, dict):
        keys = sorted(set(got) | set(want), key=str)
        diffs = [f"{k}: {got.get(k, 'absent')!r} instead of {want.get(k, 'absent')!r}" for k in keys if got.get(k) != want.get(k)]
        return "; ".join(diffs[:3])[:600]
    return f"{got!r} instead of {want!r}"[:600]


# ---------------------------------------------------------------------------------------------
# Races: a command paused at a crash point


def wait_stopped(proc, seconds):
    """Waits until `proc` has stopped itself (state T in /proc): True, or False when it exited or
    the time ran out."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] in ("T", "t"):
                    return True
        except OSError:
            return False
        time.sleep(0.01)
    return False


def race_setup(runner, base_copy, prepare_one) -> Harness:
    h = runner.fresh()
    h.fx.restore(base_copy)
    prepare_one(h)
    h.run(h.two, "save", "list.txt", "--file", "-", stdin=b"milk\neggs\nfrom two, during one's sync\n")
    return h


def race(runner, base_copy, name, after, prepare_one):
    """Device one's sync is held at a crash point after `after` (once it fetched) and before its
    push; device two syncs and pushes meanwhile; one's sync resumes. Its push must be refused
    (the cloud moved) and tried again: in the end the cloud's main descends from both devices'
    work."""
    # where the push starts (and the cloud's lock is taken): from a traced run of the same sync
    h = race_setup(runner, base_copy, prepare_one)
    trace = os.path.join(runner.root, "race-trace")
    if os.path.exists(trace):
        os.remove(trace)
    h.run(h.one, "sync", "--json", env_extra={"CONCORD_CRASH_TRACE": trace})
    points = open(trace).read().split()
    fetched = points.index("sync:fetched")
    push_start = next(i for i in range(fetched, len(points)) if points[i] == "objects:copied" or points[i].startswith("ref:cloud:"))
    # held at the point right after `after`, by the command itself (CONCORD_CRASH_HOLD: it
    # stops with SIGSTOP there), so that the hold is exact however loaded the machine is
    held_at = points.index(after, fetched) + 1
    if held_at >= push_start:
        raise HarnessFailure(f"race {name}: no crash point between {after} and the push")
    hold = points[held_at]
    h = race_setup(runner, base_copy, prepare_one)
    env = h.fx.command_env(h.one)
    env["CONCORD_CRASH_HOLD"] = f"{hold}#{points[:held_at + 1].count(hold)}"
    # the held run's own trace, for the failure messages: where it stopped, what it did after
    held_trace = os.path.join(runner.root, "race-held-trace")
    if os.path.exists(held_trace):
        os.remove(held_trace)
    env["CONCORD_CRASH_TRACE"] = held_trace
    proc = subprocess.Popen(h.fx.argv(h.one, "sync", "--json"), env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=h.root)
    if not wait_stopped(proc, 120):
        proc.kill()
        out, err = proc.communicate()
        raise HarnessFailure(f"race {name}: one's sync never stopped at {hold}: {err.decode(errors='replace').strip()[:300]}")
    # one is blocked at `at`: two pushes now
    held_points = open(held_trace).read().split() if os.path.exists(held_trace) else []
    two = h.fx.run(h.two, "sync", "--json")
    pushed_by_two = h.fx.head(h.two)
    os.kill(proc.pid, signal.SIGCONT)
    out, err = proc.communicate(timeout=120)
    if two.rc != 0:
        raise HarnessFailure(f"race {name}: two's sync while one's was paused exited {two.rc}: {two.first_error_line()}")
    if proc.returncode != 0:
        raise HarnessFailure(f"race {name}: one's paused sync exited {proc.returncode}: {err.decode(errors='replace').strip()[:300]}")
    report = json.loads(out)
    cloud = h.fx.cloud_head()
    descends = subprocess.run(["git", "--git-dir", h.fx.cloud.dir, "merge-base", "--is-ancestor", pushed_by_two, cloud],
                              capture_output=True).returncode == 0
    if not descends:
        raise HarnessFailure(f"race {name}: one's push overwrote two's: the cloud's main {cloud[:7]} does not "
                             f"descend from {pushed_by_two[:7]}, which two's sync pushed while one's was paused after {after}")
    if report.get("attempts", 1) < 2:
        after_points = open(held_trace).read().split()[len(held_points):] if os.path.exists(held_trace) else []
        raise HarnessFailure(f"race {name}: one's sync pushed at its first attempt though the cloud moved "
                             f"after it fetched (report: {report}; two's sync: {' '.join(two.text.split())[:200]}; "
                             f"one's points before the hold at {hold}: {' '.join(held_points[-8:])}; "
                             f"after it: {' '.join(after_points[:12])})")
    h.converge([h.one, h.two])
    state = h.final_state([h.one, h.two], h.one)
    if state["documents"].get("list.txt") != content_key(b"milk\neggs\nfrom two, during one's sync\n"):
        raise HarnessFailure(f"race {name}: two's edit of list.txt is not current after converging")
    problems = h.fx.fsck_all()
    if problems:
        raise HarnessFailure(f"race {name}: " + "; ".join(problems))
    print(f"race {name}: one's sync held at {hold}, two pushed meanwhile; one's push was refused and "
          f"retried ({report['attempts']} attempts, {report['outcome']})", flush=True)


RACES = [
    # held at the point after it (what arrived accepted and origin/main moved, before the push)
    ("push", "sync:fetched", lambda h: h.run(h.one, "save", "note.txt", "--file", "-", stdin=b"from one, racing\n")),
    # held right after the fetch of a sync that will integrate: main not moved, before the push
    ("integrate", "sync:fetched", lambda h: (h.run(h.one, "save", "note.txt", "--file", "-", stdin=b"from one, racing\n"),
                                                h.run(h.two, "save", "ideas/new.txt", "--file", "-", stdin=b"two, earlier\n"),
                                                h.run(h.two, "sync", "--json"))),
    # held after the fetch of a sync that resolves a conflict on its own (rules ending with
    # auto): its push of the integration and the resolution is refused, and the retry
    # integrates two's new version with them
    ("auto-resolve", "sync:fetched", prep_sync_auto_resolve),
]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="crash-harness", description=__doc__.splitlines()[0],
                                     epilog=__doc__.split("\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--concord", default=None, help="the concord binary, a debug build (default: build it)")
    parser.add_argument("--points", choices=["all", "first"], default="all",
                        help="kill at every occurrence of every point (default), or at the first of each name")
    parser.add_argument("--only", help="comma-separated case names (see --list)")
    parser.add_argument("--no-races", action="store_true", help="skip the paused-command races")
    parser.add_argument("--first-failure", action="store_true", help="stop at the first failure")
    parser.add_argument("--strict", action="store_true", help="fail on the known bugs too")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--keep", action="store_true", help="keep the folder for inspection")
    parser.add_argument("--verbose", "-v", action="store_true")
    # accepted for old command lines: the harness no longer kills at random moments
    parser.add_argument("--kills", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.list:
        for case in CASES:
            print(case.name)
        for name, at, _ in RACES:
            print(f"race-{name} (paused after {at})")
        return 0
    binary = os.path.abspath(args.concord) if args.concord else find_concord()
    folder = tempfile.mkdtemp(prefix="concord-crash-")
    # A private copy, so that a rebuild during the run does not change the binary under test.
    shutil.copy2(binary, os.path.join(folder, "concord"))
    concord = os.path.join(folder, "concord")
    started = time.monotonic()
    runner = Runner(args, concord, folder)
    runner.shim = build_shim(folder)
    if runner.shim is None:
        print("crash harness: no C compiler (clang, cc): the durability audit is skipped", flush=True)
    wanted = set(args.only.split(",")) if args.only else None

    h = runner.fresh()
    h.base()
    base_copy = os.path.join(folder, "base")
    h.fx.snapshot(base_copy)
    probe = os.path.join(folder, "probe-trace")
    save_probe = h.fx.run(h.one, "save", "list.txt", "--file", "-", stdin=b"probe\n", env_extra={"CONCORD_CRASH_TRACE": probe})
    if save_probe.rc != 0 or not os.path.exists(probe):
        print("crash harness: this concord has no crash points (a release build?): build a debug one", file=sys.stderr)
        return 2

    status = 0
    try:
        for case in CASES:
            if wanted and case.name not in wanted:
                continue
            try:
                runner.run_case(case, base_copy)
            except HarnessFailure as failure:
                runner.failures.append((f"{case.name}: {failure}", None, case, None))
                print(f"  FAIL {case.name}: {failure}", flush=True)
                if args.first_failure:
                    raise StopRun()
    except StopRun:
        args.no_races = True
    if not args.no_races:
        for name, at, prepare in RACES:
            if wanted and f"race-{name}" not in wanted:
                continue
            try:
                race(runner, base_copy, name, at, prepare)
            except HarnessFailure as failure:
                runner.failures.append((str(failure), None, None, None))
                print(f"  FAIL {failure}", flush=True)

    elapsed = time.monotonic() - started
    print()
    print(f"{'operation':<18} {'points':>7} {'distinct':>9} {'kills':>6} {'failed':>7} {'known bug':>10} {'moves audited':>14}")
    for name, points, distinct, kills, failed, known, audited in runner.table:
        print(f"{name:<18} {points:>7} {distinct:>9} {kills:>6} {failed:>7} {known:>10} {audited:>14}")
    for bug, where in runner.known.items():
        print(f"KNOWN BUG ({len(where)}x, not failing; --strict fails): {bug} [{', '.join(where[:3])}"
              f"{', ...' if len(where) > 3 else ''}]")
    total_kills = sum(row[3] for row in runner.table)
    if runner.failures:
        status = 1
        print(f"crash harness: {len(runner.failures)} FAILED of {total_kills} kills "
              f"({elapsed:.0f}s); folders of the failures under {folder}:")
        for message, where, case, target in runner.failures:
            print(f"  {message}")
            if case is not None and target is not None:
                print(f"    reproduce: scripts/crash-harness --only {case.name} --first-failure --keep  (kill: CONCORD_CRASH_AT={target})")
                print(f"    state kept in {where}")
    else:
        known = sum(row[5] for row in runner.table)
        print(f"crash harness: {total_kills} kills at {sum(row[2] for row in runner.table)} distinct points of "
              f"{len(runner.table)} operations, every check held"
              + (f" but for {known} kills that hit the known bugs above" if known else "")
              + ("" if args.no_races else f"; {len(RACES)} races refused the stale push") + f" ({elapsed:.0f}s)")
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    if args.keep:
        print(f"folder kept: {folder}")
    return status
