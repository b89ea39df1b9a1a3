#!/usr/bin/env python3
"""The airplane-mode scenario and the randomized multi-device simulation of Concord.

Run it through `scripts/airplane-mode`, which builds the `concord` command line first.
Everything here drives that command line, exactly as a user would: there is no second
implementation of sync or resolution in this file. `git` is used only to read (tree ids,
`fsck`) and, for the git-daemon cloud, to create the empty bare repository and serve it; the ssh and
https clouds are a real sshd and a real HTTPS git server (lighttpd + git http-backend) from
scripts/bench.d/servers.py, with a key, known_hosts, password and certificate authority made for
the run, each stopped by its PID.

  scripts/airplane-mode                                  the two-device scenario, latest-wins
  scripts/airplane-mode --policy merge                   ... resolved by merging
  scripts/airplane-mode --cloud git-daemon --keep        ... over a real `git daemon`, folder kept
  scripts/airplane-mode --cloud ssh                      ... over a real sshd (key file, host key checked)
  scripts/airplane-mode --cloud https                    ... over a real HTTPS git server (basic auth, test CA)
  scripts/airplane-mode --random --devices 3 --steps 300 --seed 1
  scripts/airplane-mode --random --devices 5 --steps 300 --seeds 1-1000   (the soak, outside CI)
  scripts/airplane-mode --replay FILE                    replays a step list written on a failure

Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import html
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

DEVICE_NAMES = ["iPhone", "iPad", "MacBook", "iMac", "Watch", "TV", "Vision"]
TEXT_DOCS = ["note.txt", "todo.md", "journal.txt", "ideas/plan.txt", "lists/groceries.txt", "recipes/bread.md",
             "notes/café au lait.txt", "empty.txt"]
PACKAGE_DOCS = ["sketch.note", "trip.note"]
WORDS = ("apple bread cloud delta echo fig grape harbor island juniper kite lemon mango nectar "
         "olive pepper quince river salt tulip umber violet walnut yarrow zest").split()
SKEWS = [0, 0, 0, 90, -90, 3600, -3600, 86400, -86400, 7 * 86400]
SUMMARY_PASS = "invariants hold"
PROFILE = {}  # subcommand -> (calls, seconds), printed on stderr with --profile


# ---------------------------------------------------------------------------------------------
# Small helpers


class InvariantFailure(Exception):
    """An invariant of DESIGN.md (or the command line's contract) does not hold."""

    def __init__(self, kind: str, message: str):
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message


class Result:
    def __init__(self, argv, rc, out: bytes, err: str):
        self.argv, self.rc, self.out, self.err = argv, rc, out, err

    @property
    def text(self) -> str:
        return self.out.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.out.decode("utf-8"))

    def first_error_line(self) -> str:
        lines = [line for line in self.err.splitlines() if line.strip()]
        return lines[0] if lines else ""


def blob_id(data: bytes) -> str:
    """The git blob id of some bytes (sha1 object format), computed without git."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def run_git(*args, check=True) -> str:
    p = subprocess.run(["git", *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if check and p.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {p.stderr.strip()}")
    return p.stdout.strip() if p.returncode == 0 else ""


def content_key(content):
    """A hashable, comparable identity for a saved content: bytes of a file, or a package."""
    if isinstance(content, dict):
        return ("package", tuple(sorted((path, blob_id(data)) for path, data in content.items())))
    return ("file", blob_id(content))


def describe_content(content) -> str:
    if content is None:
        return "deletion"
    if isinstance(content, dict):
        return f"package of {len(content)} files, {sum(len(v) for v in content.values())} bytes"
    lines = content.count(b"\n")
    return f"{lines} line{'s' if lines != 1 else ''}, {len(content)} bytes"


def encode_content(content):
    if isinstance(content, dict):
        return {"files": {path: data.hex() for path, data in sorted(content.items())}}
    return {"text": content.decode("utf-8")}


def decode_content(step):
    if "files" in step:
        return {path: bytes.fromhex(h) for path, h in step["files"].items()}
    return step["text"].encode("utf-8")


# ---------------------------------------------------------------------------------------------
# Clouds


class LocalCloud:
    kind = "local"

    def __init__(self, root: str):
        self.dir = os.path.join(root, "cloud.git")
        self.url = self.dir

    def start(self):
        pass

    def stop(self):
        pass


class DaemonCloud:
    """A real `git daemon` on 127.0.0.1 serving an empty bare repository."""

    kind = "git-daemon"

    def __init__(self, root: str):
        self.base = os.path.join(root, "daemon")
        self.dir = os.path.join(self.base, "cloud.git")
        self.proc = None
        self.port = None
        self.url = None

    def start(self):
        os.makedirs(self.base, exist_ok=True)
        run_git("init", "--quiet", "--bare", "--initial-branch=main", self.dir)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            ["git", "daemon", "--export-all", "--enable=receive-pack", f"--base-path={self.base}",
             "--reuseaddr", "--listen=127.0.0.1", f"--port={self.port}", self.base],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        self.url = f"git://127.0.0.1:{self.port}/cloud.git"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"git daemon exited with {self.proc.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("git daemon did not start listening")

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class ServerCloud:
    """A real sshd or HTTPS git server on 127.0.0.1 (scripts/bench.d/servers.py) serving an empty
    bare repository. Every command runs with `env()` (ssh: a HOME holding the key made for the run
    and its known_hosts, no agent; https: the test authority in SSL_CERT_FILE); init and clone also
    get `join_env()` (https: the user name and password, which Concord stores in its 0600 file, so
    that later syncs run without them)."""

    def __init__(self, root: str, kind: str):
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench.d"))
        import servers  # noqa: E402  (the bench's servers: sshd, lighttpd + git http-backend)
        self.servers = servers
        self.kind = kind
        self.base = os.path.join(root, "served")
        self.dir = os.path.join(self.base, "cloud.git")
        self.folder = os.path.join(root, f"server-{kind}")
        self.server = None
        self.url = None

    def start(self):
        os.makedirs(self.base, exist_ok=True)
        self.servers.make_bare(self.dir)
        self.server = self.servers.start(self.kind, self.base, self.folder)
        self.url = self.server.url("cloud.git")

    def stop(self):
        if self.server is not None:
            self.server.stop()

    def env(self) -> dict:
        if self.server is None:
            return {}
        if self.kind == "ssh":
            return self.server.concord_env()
        return {"SSL_CERT_FILE": str(self.server.authority), "CONCORD_CLOUD_USERNAME": "", "CONCORD_CLOUD_PASSWORD": ""}

    def join_env(self) -> dict:
        return self.server.concord_env() if self.kind == "https" else {}


def make_cloud(root: str, kind: str):
    if kind == "git-daemon":
        return DaemonCloud(root)
    if kind in ("ssh", "https"):
        return ServerCloud(root, kind)
    return LocalCloud(root)


# ---------------------------------------------------------------------------------------------
# Devices and the world


class Device:
    def __init__(self, index: int, name: str, path: str):
        self.index = index
        self.name = name
        self.path = path
        self.airplane = False
        self.skew = 0.0          # seconds this device's clock runs ahead (negative: behind)
        self.saved = {}          # doc -> {content_key: description} saved here with exit 0
        self.unchecked = set()   # docs whose versions must be checked again on this device
        self.conflicts = set()   # docs in conflict, as this device's last sync or resolution said


class World:
    """A cloud, N devices, a virtual clock, and a record of every command run."""

    def __init__(self, concord: str, root: str, ndev: int, cloud_kind: str = "local", log=None, names=None):
        self.concord = concord
        self.root = root
        self.log = log or (lambda line: None)
        self.cloud = make_cloud(root, cloud_kind)
        names = names or [DEVICE_NAMES[i] if i < len(DEVICE_NAMES) else f"dev{i + 1}" for i in range(ndev)]
        self.devices = [Device(i, names[i], os.path.join(root, names[i])) for i in range(ndev)]
        # The virtual clock: every device's clock reads it (plus its skew), so that the order of
        # saves never depends on how long a command took. It starts at the real time.
        self.vnow = float(int(time.time()))
        self.transcript = []     # (argv tail, rc, first error line)
        self.version_cache = {}  # (doc, version id) -> content key
        self.calls = 0
        self.tmp_count = 0
        self.outage = False      # true while the cloud cannot be reached
        self.ignore = set()      # failure kinds reported as a count instead (--ignore KIND)
        self.ignored = {}

    # -- running the command line

    def tick(self, seconds: float = 10.0):
        self.vnow += seconds

    def device_time(self, dev: Device) -> float:
        return self.vnow + dev.skew

    def run(self, dev: Device | None, *args, stdin: bytes | None = None, cwd=None, env_extra=None) -> Result:
        argv = [self.concord] + (["-C", dev.path] if dev else []) + [str(a) for a in args]
        env = dict(os.environ)
        env["GIT_TERMINAL_PROMPT"] = "0"
        env.pop("CONCORD_CLOCK_OFFSET", None)
        env.update(getattr(self.cloud, "env", dict)())
        if dev is not None:
            env["CONCORD_CLOCK_OFFSET"] = f"{self.device_time(dev) - time.time():.3f}"
        if env_extra:
            env.update(env_extra)
        started = time.monotonic()
        for attempt in range(50):
            try:
                p = subprocess.run(argv, input=stdin if stdin is not None else None,
                                   stdin=None if stdin is not None else subprocess.DEVNULL,
                                   capture_output=True, env=env, cwd=cwd or self.root, timeout=300)
                break
            except OSError as error:  # the binary is being rewritten by a build: wait for it
                if error.errno != 26 or attempt == 49:
                    raise
                time.sleep(0.2)
        self.calls += 1
        elapsed = time.monotonic() - started
        name = str(args[0]) if args else "?"
        count, total = PROFILE.get(name, (0, 0.0))
        PROFILE[name] = (count + 1, total + elapsed)
        result = Result(argv, p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"))
        who = dev.name if dev else "-"
        self.transcript.append(f"{who}: concord {' '.join(str(a) for a in args)} -> {p.returncode}"
                               + (f" ({result.first_error_line()})" if p.returncode else ""))
        return result

    def expect(self, result: Result, codes=(0,), what="") -> Result:
        if result.rc not in codes:
            cmd = " ".join(result.argv[1:])
            raise InvariantFailure(
                "command failed",
                f"{what or cmd}: exit {result.rc}, expected {'/'.join(map(str, codes))}: "
                f"{result.first_error_line() or result.text.strip()[:200]}")
        return result

    def tmpfile(self, data: bytes) -> str:
        self.tmp_count += 1
        path = os.path.join(self.root, "tmp", f"input-{self.tmp_count}")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return path

    # -- setting up

    def setup(self):
        self.cloud.start()
        first = self.devices[0]
        # Device ids are random per clone, and latest-wins breaks ties between equal clocks by
        # device id; a fixed id per device (when the command line honours CONCORD_DEVICE_ID)
        # makes a seed replay exactly.
        self.expect(self.run(None, "init", first.path, "--device", first.name, "--remote", self.cloud.url,
                             "--package", "*.note", env_extra={"CONCORD_DEVICE_ID": self.device_id(first), **self.join_env()}),
                    what="init")
        for dev in self.devices[1:]:
            self.expect(self.run(None, "clone", self.cloud.url, dev.path, "--device", dev.name,
                                 env_extra={"CONCORD_DEVICE_ID": self.device_id(dev), **self.join_env()}), what="clone")

    def join_env(self) -> dict:
        """What init and clone get besides the cloud's env(): an https cloud's credentials."""
        return getattr(self.cloud, "join_env", dict)()

    @staticmethod
    def device_id(dev: Device) -> str:
        return f"00000000-0000-4000-8000-{dev.index + 1:012d}"

    def close(self):
        self.cloud.stop()

    # -- the operations users do

    def save(self, dev: Device, doc: str, content) -> Result:
        """Saves a file's bytes (through stdin) or a package (written to the work tree, then saved)."""
        if isinstance(content, dict):
            folder = os.path.join(dev.path, doc)
            if os.path.isdir(folder):
                shutil.rmtree(folder)
            elif os.path.exists(folder):
                os.remove(folder)
            for rel, data in content.items():
                target = os.path.join(folder, rel)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as f:
                    f.write(data)
            result = self.run(dev, "save", doc)
        else:
            result = self.run(dev, "save", doc, "--file", "-", stdin=content)
        if result.rc == 0:
            dev.saved.setdefault(doc, {})[content_key(content)] = describe_content(content)
            dev.unchecked.add(doc)
        return result

    def sync(self, dev: Device) -> tuple[Result, dict | None]:
        result = self.run(dev, "sync", "--json")
        report = result.json() if result.rc == 0 else None
        return result, report

    def set_airplane(self, dev: Device, on: bool):
        self.expect(self.run(dev, "airplane", "on" if on else "off"))
        dev.airplane = on

    def conflicts(self, dev: Device) -> list:
        return self.expect(self.run(dev, "conflicts", "--json")).json()

    def documents(self, dev: Device) -> list:
        return self.expect(self.run(dev, "ls", "--json")).json()

    def versions(self, dev: Device, doc: str, all_versions=False) -> list:
        args = ["versions", doc, "--json"] + (["--all"] if all_versions else [])
        return self.expect(self.run(dev, *args)).json()

    def tree(self, dev: Device) -> str:
        return run_git("-C", dev.path, "rev-parse", "main^{tree}")

    def work_tree_docs(self, dev: Device) -> dict:
        """Documents as the work tree shows them: path -> bytes, or a package dict."""
        docs = {}
        for top, dirs, files in os.walk(dev.path):
            rel_top = os.path.relpath(top, dev.path)
            if rel_top == ".":
                dirs[:] = sorted(d for d in dirs if d not in (".git", ".concord"))
            for d in list(dirs):
                if d.endswith(".note"):
                    dirs.remove(d)
                    rel = os.path.normpath(os.path.join(rel_top, d))
                    docs[rel] = self.read_package_folder(os.path.join(top, d))
            for f in files:
                rel = os.path.normpath(os.path.join(rel_top, f))
                with open(os.path.join(top, f), "rb") as fh:
                    docs[rel] = fh.read()
        return docs

    @staticmethod
    def read_package_folder(folder: str) -> dict:
        files = {}
        for top, _, names in os.walk(folder):
            for n in names:
                full = os.path.join(top, n)
                with open(full, "rb") as fh:
                    files[os.path.relpath(full, folder).replace(os.sep, "/")] = fh.read()
        return files

    def version_content_key(self, dev: Device, doc: str, version: dict):
        """The content key of one version, read through `concord show` (cached: versions never change).

        For a package `show` prints only each file's size and path, so the package's files are read
        from the version's tree with read-only git and compared by blob id."""
        cache_key = (doc, version["id"])
        if cache_key in self.version_cache:
            return self.version_cache[cache_key]
        if version.get("deleted"):
            key = None
        elif version.get("package"):
            listing = self.expect(self.run(dev, "show", doc, "--version", version["id"])).text
            out = subprocess.run(["git", "-C", dev.path, "ls-tree", "-r", "-z", f"{version['id']}:{doc}"],
                                 capture_output=True, stdin=subprocess.DEVNULL)
            if out.returncode != 0:
                raise InvariantFailure("nothing lost", f"{dev.name}: version {version['id'][:7]} of {doc} has no tree")
            entries = []
            for item in out.stdout.split(b"\0"):
                if not item:
                    continue
                meta, path = item.split(b"\t", 1)
                entries.append((path.decode(), meta.split()[2].decode()))
            key = ("package", tuple(sorted(entries)))
            shown = sorted(line.split("\t", 1)[1] for line in listing.splitlines() if "\t" in line)
            if shown != sorted(p for p, _ in entries):
                raise InvariantFailure("show", f"{dev.name}: show {doc} --version {version['id'][:7]} lists "
                                       f"{shown}, the version holds {sorted(p for p, _ in entries)}")
        else:
            data = self.expect(self.run(dev, "show", doc, "--version", version["id"])).out
            key = ("file", blob_id(data))
        self.version_cache[cache_key] = key
        return key

    # -- invariants

    def check_nothing_lost(self, dev: Device, docs=None, saved_by=None):
        """Every content saved with exit 0 (by `saved_by` devices, default this one) is still a
        version of its document on `dev`: `versions --all` lists it and `show` returns it."""
        sources = saved_by if saved_by is not None else [dev]
        wanted = {}
        for src in sources:
            for doc, contents in src.saved.items():
                if docs is None or doc in docs:
                    wanted.setdefault(doc, {}).update(contents)
        for doc in sorted(wanted):
            result = self.run(dev, "versions", doc, "--all", "--json")
            if result.rc != 0:
                raise InvariantFailure("nothing lost", f"{dev.name}: `versions {doc} --all` failed "
                                       f"({result.first_error_line()}); saved versions of it cannot be listed")
            have = set()
            for version in result.json():
                have.add(self.version_content_key(dev, doc, version))
            for key, description in sorted(wanted[doc].items()):
                if key not in have:
                    who = ", ".join(s.name for s in sources if key in s.saved.get(doc, {}))
                    raise InvariantFailure("nothing lost", f"{dev.name}: a version of {doc} saved by {who} "
                                           f"({description}) is not among its versions any more")
        if docs is None:
            dev.unchecked.clear()
        else:
            dev.unchecked -= set(docs)

    def state_of(self, dev: Device):
        conflicts = self.conflicts(dev)
        normalized = sorted((c["document"], c["versions"], tuple(sorted(c.get("conflictVersions", []))))
                            for c in conflicts)
        return self.tree(dev), normalized

    def check_converged(self):
        states = [(dev, self.state_of(dev)) for dev in self.devices]
        first_dev, first = states[0]
        for dev, state in states[1:]:
            if state[0] != first[0]:
                raise InvariantFailure("convergence", f"after a quiet round {dev.name}'s main tree {state[0][:10]} "
                                       f"differs from {first_dev.name}'s {first[0][:10]}")
            if state[1] != first[1]:
                raise InvariantFailure("convergence", f"after a quiet round {dev.name} has conflicts "
                                       f"{[c[0] for c in state[1]]} and {first_dev.name} has {[c[0] for c in first[1]]} "
                                       f"(or their versions differ)")
        return first

    def check_contention(self, dev: Device):
        """Each document in conflict lists the versions in contention consistently, and none of them
        was replaced by another (DESIGN.md: a conflict version is made concurrently with the current
        one). A conflict version stays until resolved, even while a device keeps editing the current
        version: autosaves never resolve a conflict silently."""
        for conflict in sorted(self.conflicts(dev), key=lambda c: c["document"]):
            doc = conflict["document"]
            versions = self.versions(dev, doc)
            ids = [v["id"] for v in versions]
            if not versions or not versions[0]["current"]:
                raise InvariantFailure("contention", f"{dev.name}: `versions {doc}` does not start with the current version")
            if set(ids[1:]) != set(conflict.get("conflictVersions", [])) or conflict["versions"] != len(ids):
                raise InvariantFailure("contention", f"{dev.name}: `conflicts` says {doc} has {conflict['versions']} "
                                       f"versions in contention, `versions {doc}` lists {len(ids)}")
            # A version is superseded when another version in contention replaced it, directly or
            # through earlier saves: follow the `replaces` links (the document's line of edits).
            # Graph ancestry is not the test: after an integration every later commit descends
            # from both sides, though a device that keeps editing adopted only the current content.
            history = {v["id"]: v for v in self.versions(dev, doc, all_versions=True)}
            for b in ids:
                lineage, frontier = set(), list(history.get(b, {}).get("replaces", []))
                while frontier:
                    step = frontier.pop()
                    if step in lineage:
                        continue
                    lineage.add(step)
                    frontier += history.get(step, {}).get("replaces", [])
                for a in ids:
                    if a != b and a in lineage:
                        va = next(v for v in versions if v["id"] == a)
                        vb = next(v for v in versions if v["id"] == b)
                        if "contention" in self.ignore:
                            self.ignored["contention"] = self.ignored.get("contention", 0) + 1
                            return
                        raise InvariantFailure(
                            "contention",
                            f"{dev.name}: {doc} lists {len(ids)} versions in contention, but {vb['device']}'s "
                            f"{'current ' if vb['current'] else ''}version {b[:7]} replaced {va['device']}'s "
                            f"{'current ' if va['current'] else ''}version {a[:7]} (it is in its line of edits): "
                            f"a superseded version is still offered as a conflict version")

    def check_work_tree(self, dev: Device):
        """The work tree shows the current version of every document `ls` lists, and nothing else."""
        listed = {d["document"]: d for d in self.documents(dev)}
        on_disk = self.work_tree_docs(dev)
        in_conflict = {c["document"] for c in self.conflicts(dev)}
        for doc, entry in sorted(listed.items()):
            if (entry.get("state") == "inConflict") != (doc in in_conflict):
                raise InvariantFailure("document state", f"{dev.name}: `ls` says {doc} is {entry.get('state')}, "
                                       f"`conflicts` {'lists' if doc in in_conflict else 'does not list'} it")
        if sorted(listed) != sorted(on_disk):
            raise InvariantFailure("work tree", f"{dev.name}: `ls` lists {sorted(listed)}, the work tree holds "
                                   f"{sorted(on_disk)}")
        for doc, entry in sorted(listed.items()):
            want = content_key(on_disk[doc])
            got = entry.get("contentId")
            have = want[1] if want[0] == "file" else None
            if have is not None and got is not None and got != have:
                raise InvariantFailure("work tree", f"{dev.name}: the work-tree file {doc} is not its current version")

    def fsck(self, dev_or_dir: str, label: str):
        p = subprocess.run(["git", "-C", dev_or_dir, "fsck", "--no-progress", "--no-dangling"],
                           capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if p.returncode != 0:
            raise InvariantFailure("fsck", f"{label}: git fsck: {(p.stderr or p.stdout).strip()[:300]}")

    # -- determinism: the same integration, done again from a copy

    def set_outage(self, on: bool):
        """The cloud becomes unreachable (its folder moves away) or comes back."""
        down = self.cloud.dir + ".down"
        if on and not self.outage:
            os.rename(self.cloud.dir, down)
        elif not on and self.outage:
            os.rename(down, self.cloud.dir)
        self.outage = on

    def diverged_from_cloud(self, dev: Device) -> bool:
        local = run_git("-C", dev.path, "rev-parse", "main", check=False)
        remote = run_git("--git-dir", self.cloud.dir, "rev-parse", "--verify", "--quiet", "main", check=False)
        if not local or not remote or local == remote:
            return False
        local_in_cloud = subprocess.run(["git", "--git-dir", self.cloud.dir, "cat-file", "-e", f"{local}^{{commit}}"],
                                        capture_output=True).returncode == 0
        remote_here = subprocess.run(["git", "-C", dev.path, "merge-base", "--is-ancestor", remote, local],
                                     capture_output=True).returncode == 0
        return not local_in_cloud and not remote_here


# ---------------------------------------------------------------------------------------------
# The timeline picture


class Timeline:
    COLORS = {"save": "#2b7bb9", "delete": "#7a4b9c", "sync": "#555555", "offline": "#bbbbbb",
              "conflict": "#d62728", "resolve": "#2ca02c", "quiet": "#f0e6b4", "skew": "#ff9f1c",
              "failure": "#000000", "outage": "#8c564b"}

    def __init__(self, devices):
        self.devices = [d.name for d in devices]
        self.events = []     # (x, lane, kind, label)
        self.offline = {}    # lane -> start x
        self.spans = []      # (lane, x0, x1)
        self.quiet = []      # (x0, x1)
        self.shorts = {}     # (x, lane) -> a word written under the lane (the scenario's few events)
        self.x = 0

    def add(self, lane, kind, label="", short=None):
        self.events.append((self.x, lane, kind, label))
        if short is not None:
            self.shorts[(self.x, lane)] = short

    def airplane(self, lane, on):
        if on and lane not in self.offline:
            self.offline[lane] = self.x
        elif not on and lane in self.offline:
            self.spans.append((lane, self.offline.pop(lane), self.x))

    def write(self, path, title):
        for lane, x0 in list(self.offline.items()):
            self.spans.append((lane, x0, self.x))
        self.offline.clear()
        step_w = max(6, min(40, 1600 // max(1, self.x + 1)))
        left, top, lane_h = 110, 50, 46
        width = max(left + (self.x + 2) * step_w + 20, 1300)
        height = top + lane_h * len(self.devices) + 70
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
               f'font-family="sans-serif" font-size="12">',
               f'<rect width="100%" height="100%" fill="white"/>',
               f'<text x="10" y="22" font-size="15" font-weight="bold">{html.escape(title)}</text>']

        def cx(x):
            return left + x * step_w + step_w / 2

        def cy(lane):
            return top + lane * lane_h + lane_h / 2

        for x0, x1 in self.quiet:
            out.append(f'<rect x="{cx(x0) - step_w / 2}" y="{top}" width="{(x1 - x0 + 1) * step_w}" '
                       f'height="{lane_h * len(self.devices)}" fill="{self.COLORS["quiet"]}" opacity="0.6">'
                       f'<title>quiet round: every device syncs twice</title></rect>')
        for lane, name in enumerate(self.devices):
            y = cy(lane)
            out.append(f'<text x="10" y="{y + 4}">{html.escape(name)}</text>')
            out.append(f'<line x1="{left}" y1="{y}" x2="{width - 20}" y2="{y}" stroke="#dddddd" stroke-width="2"/>')
        for lane, x0, x1 in self.spans:
            out.append(f'<rect x="{cx(x0)}" y="{cy(lane) - 14}" width="{max(2, (x1 - x0) * step_w)}" height="28" '
                       f'fill="{self.COLORS["offline"]}" opacity="0.5"><title>{html.escape(self.devices[lane])} '
                       f'in airplane mode</title></rect>')
        r = max(2.5, min(7, step_w / 2.5))
        for x, lane, kind, label in self.events:
            X, Y = cx(x), cy(lane)
            color = self.COLORS.get(kind, "#999999")
            tip = f"<title>{html.escape(label)}</title>" if label else ""
            if kind in ("save", "delete"):
                out.append(f'<circle cx="{X}" cy="{Y}" r="{r}" fill="{color}">{tip}</circle>')
            elif kind == "sync":
                out.append(f'<path d="M{X - r} {Y - r - 4} L{X + r} {Y - r - 4} L{X} {Y + r - 4} Z" fill="{color}">{tip}</path>')
            elif kind == "offline":
                out.append(f'<path d="M{X - r} {Y - r - 4} L{X + r} {Y - r - 4} L{X} {Y + r - 4} Z" fill="none" '
                           f'stroke="{color}">{tip}</path>')
            elif kind == "conflict":
                out.append(f'<path d="M{X - r} {Y - r} L{X + r} {Y + r} M{X + r} {Y - r} L{X - r} {Y + r}" '
                           f'stroke="{color}" stroke-width="3">{tip}</path>')
            elif kind == "resolve":
                out.append(f'<path d="M{X} {Y - r - 2} L{X + r + 2} {Y} L{X} {Y + r + 2} L{X - r - 2} {Y} Z" '
                           f'fill="{color}">{tip}</path>')
            elif kind == "outage":
                out.append(f'<line x1="{X}" y1="{Y - 16}" x2="{X}" y2="{Y + 16}" stroke="{color}" '
                           f'stroke-width="2" stroke-dasharray="3,2">{tip}</line>')
            elif kind == "skew":
                out.append(f'<rect x="{X - r}" y="{Y + 8}" width="{2 * r}" height="{r}" fill="{color}">{tip}</rect>')
            elif kind == "failure":
                out.append(f'<line x1="{X}" y1="{top - 10}" x2="{X}" y2="{height - 50}" stroke="black" '
                           f'stroke-width="2">{tip}</line>')
        for (x, lane), text in sorted(self.shorts.items()):
            out.append(f'<text x="{cx(x)}" y="{cy(lane) + 27}" font-size="10" text-anchor="middle" '
                       f'fill="#333333">{html.escape(text)}</text>')
        if self.x > 40:
            every = 25 if self.x <= 400 else 100
            for x in range(every, self.x + 1, every):
                out.append(f'<text x="{cx(x)}" y="{top + lane_h * len(self.devices) + 14}" font-size="10" '
                           f'text-anchor="middle" fill="#666666">{x}</text>')
            out.append(f'<text x="{left - 10}" y="{top + lane_h * len(self.devices) + 14}" font-size="10" '
                       f'text-anchor="end" fill="#666666">step</text>')
        ly = height - 25
        legend = [("save", "save"), ("delete", "delete"), ("sync", "sync"), ("offline", "sync refused (offline)"),
                  ("conflict", "new conflict"), ("resolve", "resolution"), ("skew", "clock skew change"), ("outage", "cloud outage")]
        lx = left
        for kind, text in legend:
            out.append(f'<circle cx="{lx}" cy="{ly - 4}" r="5" fill="{self.COLORS[kind]}"/>'
                       f'<text x="{lx + 9}" y="{ly}">{text}</text>')
            lx += 30 + 7 * len(text)
        out.append(f'<rect x="{lx}" y="{ly - 11}" width="20" height="12" fill="{self.COLORS["offline"]}"/>'
                   f'<text x="{lx + 25}" y="{ly}">airplane mode</text>')
        lx += 130
        out.append(f'<rect x="{lx}" y="{ly - 11}" width="20" height="12" fill="{self.COLORS["quiet"]}"/>'
                   f'<text x="{lx + 25}" y="{ly}">quiet round</text>')
        out.append("</svg>")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(out) + "\n")


# ---------------------------------------------------------------------------------------------
# The airplane-mode scenario


def scenario(args) -> int:
    start = time.monotonic()
    root = tempfile.mkdtemp(prefix="concord-airplane-")
    world = World(args.concord, root, 2, cloud_kind=args.cloud, names=["iPhone", "iPad"])
    iphone, ipad = world.devices
    timeline = Timeline(world.devices)
    checks = []

    def say(dev, text):
        clock = dt.datetime.fromtimestamp(world.device_time(dev) if dev else world.vnow).strftime("%H:%M:%S")
        who = f"{dev.name:<7}" if dev else " " * 7
        print(f"[{clock}] {who} {text}", flush=True)

    def check(ok, text):
        checks.append((ok, text))
        print(f"  {'ok  ' if ok else 'FAIL'} {text}", flush=True)

    def step():
        world.tick(60)
        timeline.x += 1

    def do_sync(dev):
        result, report = world.sync(dev)
        if result.rc == 0:
            extra = []
            if report["updated"]:
                extra.append("updated " + ", ".join(report["updated"]))
            if report["newConflicts"]:
                extra.append("NEW CONFLICT " + ", ".join(report["newConflicts"]))
            if report["conflicts"]:
                extra.append("in conflict: " + ", ".join(report["conflicts"]))
            say(dev, f"sync: {report['outcome']}, pushed {report['pushed']}" + (f"; {'; '.join(extra)}" if extra else ""))
            timeline.add(dev.index, "sync", f"sync: {report['outcome']}",
                         short="conflict!" if report["newConflicts"] else report["outcome"])
            if report["newConflicts"]:
                timeline.add(dev.index, "conflict", "new conflict: " + ", ".join(report["newConflicts"]))
        else:
            say(dev, f"sync: refused, exit {result.rc}: {result.first_error_line()}")
            timeline.add(dev.index, "offline", result.first_error_line(), short="offline")
        return result, report

    def do_save(dev, content, what):
        result = world.save(dev, "note.txt", content)
        world.expect(result, what=f"{dev.name} save")
        say(dev, f"saves note.txt ({what}): {result.text.strip()}")
        timeline.add(dev.index, "save", f"save note.txt: {what}", short="save")

    base = (b"Groceries for the weekend\n\nmilk, eggs, flour\n\n"
            b"Call the plumber about the kitchen sink\n")
    if args.policy == "merge":
        phone_text = base.replace(b"milk, eggs, flour", b"milk, eggs, flour, olive oil")
        pad_text = base.replace(b"Call the plumber about the kitchen sink",
                                b"Call the plumber about the kitchen sink, Tuesday 9:00")
        phone_what, pad_what = "adds olive oil to the first paragraph", "adds a time to the last paragraph"
    else:
        phone_text = base.replace(b"milk, eggs, flour", b"milk, eggs, flour, olive oil")
        pad_text = base.replace(b"milk, eggs, flour", b"milk, eggs, flour, butter")
        phone_what, pad_what = "adds olive oil", "adds butter"

    try:
        print(f"Concord airplane-mode scenario: policy {args.policy}, cloud {args.cloud}")
        print(f"folder {root}")
        world.setup()
        say(None, f"cloud ready at {world.cloud.url}; devices iPhone and iPad joined")
        step()
        do_save(iphone, base, "first version")
        step()
        do_sync(iphone)
        step()
        do_sync(ipad)
        check(world.run(ipad, "show", "note.txt").out == base, "iPad received the note")

        step()
        world.set_airplane(iphone, True)
        timeline.airplane(iphone.index, True)
        say(iphone, "airplane mode ON")
        step()
        do_save(iphone, phone_text, phone_what)
        step()
        result, _ = do_sync(iphone)
        check(result.rc == 1 and "offline" in result.err, "sync in airplane mode exits 1 with 'offline (...)'")
        step()
        do_save(ipad, pad_text, pad_what)
        step()
        result, report = do_sync(ipad)
        check(result.rc == 0 and report["outcome"] == "pushed", "iPad's edit went up to the cloud")

        step()
        world.set_airplane(iphone, False)
        timeline.airplane(iphone.index, False)
        say(iphone, "airplane mode OFF")
        step()
        result, report = do_sync(iphone)
        check(result.rc == 0 and report["outcome"] == "integrated" and "note.txt" in report["newConflicts"],
              "iPhone's sync integrated the diverged histories and reported note.txt in conflict")
        step()
        result, report = do_sync(ipad)
        check(result.rc == 0 and "note.txt" in report["conflicts"], "iPad sees the in-conflict state after its sync")
        for dev in (iphone, ipad):
            states = {d["document"]: d["state"] for d in world.documents(dev)}
            check(states.get("note.txt") == "inConflict", f"{dev.name}: `ls` shows note.txt inConflict")

        step()
        say(iphone, "opens the resolver; versions of note.txt:")
        versions = world.versions(iphone, "note.txt")
        for v in versions:
            role = "current " if v["current"] else ("conflict" if v["conflict"] else "        ")
            print(f"           {role}  {v['id'][:7]}  saved by {v['device']:<7} modified {v['modified']}  "
                  f"{v['size']} bytes")
        check(len(versions) == 2 and sorted(v["device"] for v in versions) == ["iPad", "iPhone"],
              "two versions in contention, one from each device")

        if args.policy == "merge":
            resolve_args = ["resolve", "note.txt", "--merge", "--json"]
        else:
            resolve_args = ["resolve", "note.txt", "--latest", "--json"]
        result = world.expect(world.run(iphone, *resolve_args), what="resolve")
        report = result.json()
        say(iphone, f"resolves with {'--merge' if args.policy == 'merge' else '--latest'}: {report['explanation']}")
        if report.get("kept"):
            print(f"           kept     {report['kept']['id'][:7]}  {report['kept']['device']}  {report['kept']['modified']}")
        for v in report["removed"]:
            print(f"           removed  {v['id'][:7]}  {v['device']}  {v['modified']}  (stays in the history)")
        timeline.add(iphone.index, "resolve", f"resolve: {report['explanation']}",
                     short="merged" if args.policy == "merge" else "latest kept")
        removed = {v["id"] for v in report["removed"]}
        conflict_ids = {v["id"] for v in versions if v["conflict"]}
        if args.policy == "merge":
            check(removed == {v["id"] for v in versions},
                  "the merge replaced both versions: both were removed from the document's versions")
        else:
            check(removed == conflict_ids, "the resolution removed the conflict version it no longer needs")
        after = world.versions(iphone, "note.txt")
        check(len(after) == 1 and after[0]["current"], "iPhone: note.txt has one version left, the current one")

        step()
        do_sync(iphone)
        step()
        do_sync(ipad)

        print("Checks:")
        tree_phone, conflicts_phone = world.state_of(iphone)
        tree_pad, conflicts_pad = world.state_of(ipad)
        check(tree_phone == tree_pad, "both devices converged on the same tree")
        check(conflicts_phone == [] and conflicts_pad == [], "no document is in conflict on any device")
        final_phone = world.run(iphone, "show", "note.txt").out
        final_pad = world.run(ipad, "show", "note.txt").out
        check(final_phone == final_pad, "both devices show the same note")
        if args.policy == "merge":
            check(b"olive oil" in final_phone and b"Tuesday 9:00" in final_phone,
                  "the merged note keeps both edits (iPhone's olive oil and iPad's Tuesday 9:00)")
        else:
            check(final_phone == pad_text, "latest-wins kept iPad's edit, the later save")
        for dev in (iphone, ipad):
            try:
                world.check_nothing_lost(dev, saved_by=[iphone, ipad])
                check(True, f"{dev.name}: every version either device saved is still retrievable (versions --all, show)")
            except InvariantFailure as failure:
                check(False, failure.message)
            with open(os.path.join(dev.path, "note.txt"), "rb") as f:
                check(f.read() == final_phone, f"{dev.name}: the work-tree file shows the current version")
            try:
                world.fsck(dev.path, dev.name)
                check(True, f"{dev.name}: git fsck is clean")
            except InvariantFailure as failure:
                check(False, failure.message)
        log = world.run(ipad, "log", "note.txt")
        check(log.rc == 0 and log.text.strip() != "", "`concord log note.txt` shows the document's history")
        if args.cloud == "https":
            secret = world.cloud.server.password.encode()
            for dev in (iphone, ipad):
                with open(os.path.join(dev.path, ".git", "config"), "rb") as f:
                    check(secret not in f.read(), f"{dev.name}: no password in .git/config")
                store = os.path.join(dev.path, ".git", "concord", "credentials")
                check(os.path.exists(store) and os.stat(store).st_mode & 0o777 == 0o600,
                      f"{dev.name}: the credentials are in .git/concord/credentials, readable by the owner only (0600)")
            check(all(secret not in line.encode() for line in world.transcript),
                  "no password in any command line or error line; syncs ran without credentials in the environment")
    except InvariantFailure as failure:
        check(False, failure.message)
    except Exception as error:  # a crash of this script is a failure too, never a pass
        check(False, f"the scenario stopped: {error!r}")
    finally:
        world.close()

    svg = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"concord-airplane-scenario-{args.policy}-{args.cloud}.svg")
    timeline.write(svg, f"Concord airplane-mode scenario ({args.policy}, {args.cloud} cloud)")
    failed = [text for ok, text in checks if not ok]
    if args.keep:
        print(f"kept {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    print(f"timeline: {svg}")
    elapsed = time.monotonic() - start
    if failed:
        print(f"FAILED: {len(failed)} of {len(checks)} checks ({elapsed:.1f}s)")
        if world.transcript:
            print("last commands:")
            for line in world.transcript[-12:]:
                print(f"  {line}")
        return 1
    print(f"airplane-mode scenario ({args.policy}, {args.cloud}): all {len(checks)} checks hold ({elapsed:.1f}s)")
    return 0


# ---------------------------------------------------------------------------------------------
# The random simulation


class Stats:
    def __init__(self):
        self.saves = self.syncs = self.conflicts = self.resolutions = 0
        self.deletions = self.offline = self.needs_person = self.twins = self.quiet = 0

    def summary(self):
        return f"{self.saves} saves, {self.syncs} syncs, {self.conflicts} conflicts, {self.resolutions} resolutions"


def sanitize(text: str) -> str:
    """Removes what legitimately differs between two runs of one seed: commit ids, clocks, dates."""
    text = re.sub(r"\b[0-9a-f]{7,40}\b", "<id>", text)
    text = re.sub(r"clock [0-9]+(\.[0-9]+)?", "clock <hlc>", text)
    return re.sub(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z", "<date>", text)


def short_step(step, names) -> str:
    op = step["op"]
    who = names[step["dev"]] if "dev" in step else ""
    if op == "save":
        return f"{who} save {step['doc']} ({describe_content(decode_content(step))})"
    if op == "rm":
        return f"{who} rm {step['doc']}"
    if op == "sync":
        return f"{who} sync"
    if op == "airplane":
        return f"{who} airplane {'on' if step['on'] else 'off'}"
    if op == "skew":
        return f"{who} clock skew {step['skew']:+d}s"
    if op == "resolve":
        return f"{who} resolve {step['doc']} {step['how']}"
    if op == "resolve-all":
        return f"{who} resolve --all {step['how']}"
    if op == "resolve2":
        a, b = names[step["devs"][0]], names[step["devs"][1]]
        return f"{a} and {b} resolve {step['doc']} concurrently: {step['how'][0]} / {step['how'][1]}"
    if op == "race":
        racers = ", ".join(names[i] for i in step["devs"])
        return f"{racers} sync at the same time, while {short_step(step['save'], names)}"
    if op == "outage":
        return "the cloud becomes unreachable" if step["on"] else "the cloud is reachable again"
    if op == "quiet":
        return "quiet round (every device syncs twice) + convergence check"
    return json.dumps(step)


class Simulation:
    """Plays steps on a fresh world. In `generate` mode it also chooses the steps (seeded)."""

    def __init__(self, args, root, ndev, seed, verbose=False, checks=True, twins=True):
        self.args = args
        self.root = root
        self.world = World(args.concord, root, ndev, cloud_kind=args.cloud)
        self.world.ignore = set(getattr(args, "ignore", None) or [])
        self.rng = random.Random(seed)
        self.stats = Stats()
        self.timeline = Timeline(self.world.devices)
        self.verbose = verbose
        self.checks = checks
        self.twins = twins
        self.steps = []
        self.policies = None
        self.names = [d.name for d in self.world.devices]
        self.last_check = 0

    def say(self, text):
        if self.verbose:
            print(text, flush=True)

    def setup(self):
        self.world.setup()
        result = self.world.run(self.world.devices[0], "resolve", "x", "--merge", "--policy", "?")
        known = result.err.split("(known:", 1)[1].rsplit(")", 1)[0] if "(known:" in result.err else "latest, text"
        self.policies = [p.strip() for p in known.split(",") if p.strip()]

    # -- content generation (pure functions of the RNG)

    def new_text(self, doc):
        if doc == "empty.txt":
            return b""
        n = self.rng.randint(3, 7)
        return "".join(f"{doc} line {i + 1}: {' '.join(self.rng.choice(WORDS) for _ in range(3))}\n"
                       for i in range(n)).encode()

    def edit_text(self, old: bytes):
        lines = old.decode("utf-8", "replace").splitlines(keepends=True)
        kind = self.rng.choice(["change", "change", "append", "delete"]) if lines else "append"
        if kind == "change":
            i = self.rng.randrange(len(lines))
            lines[i] = lines[i].rstrip("\n") + " " + self.rng.choice(WORDS) + "\n"
        elif kind == "append":
            lines.append(f"added: {' '.join(self.rng.choice(WORDS) for _ in range(3))}\n")
        elif len(lines) > 1:
            del lines[self.rng.randrange(len(lines))]
        text = "".join(lines)
        if text and self.rng.random() < 0.1:
            text = text.rstrip("\n")  # a last line without its newline
        return text.encode()

    def new_package(self, doc):
        files = {
            "Info.json": json.dumps({"title": f"{doc} {self.rng.choice(WORDS)}", "v": self.rng.randint(1, 99)},
                                    sort_keys=True).encode() + b"\n",
            "body.txt": self.new_text(doc),
        }
        if self.rng.random() < 0.5:
            files["assets/thumb.bin"] = self.rng.randbytes(self.rng.randint(8, 48))
        return files

    def edit_package(self, old: dict):
        files = dict(old)
        choice = self.rng.choice(["body", "info", "asset"])
        if choice == "body" and "body.txt" in files:
            files["body.txt"] = self.edit_text(files["body.txt"])
        elif choice == "asset":
            if "assets/thumb.bin" in files and self.rng.random() < 0.3:
                del files["assets/thumb.bin"]
            else:
                files["assets/thumb.bin"] = self.rng.randbytes(self.rng.randint(8, 48))
        else:
            files["Info.json"] = json.dumps({"title": self.rng.choice(WORDS), "v": self.rng.randint(1, 99)},
                                            sort_keys=True).encode() + b"\n"
        return files

    # -- choosing a step (generate mode)

    def choose(self):
        rng = self.rng
        devs = self.world.devices
        dev = rng.choice(devs)
        r = rng.random()
        if r < 0.36:
            return self.choose_save(dev, r)
        if r < 0.40:
            docs = sorted(self.world.work_tree_docs(dev))
            if docs:
                return {"op": "rm", "dev": dev.index, "doc": rng.choice(docs)}
            return self.choose_save(dev, 0.5)
        if r < 0.45 and getattr(self.args, "chaos", False):
            online = [d.index for d in devs if not d.airplane]
            if len(online) >= 2 and not self.world.outage:
                racers = sorted(rng.sample(online, rng.randint(2, len(online))))
                saver = rng.choice(racers)
                return {"op": "race", "devs": racers, "save": self.choose_save(devs[saver], 0.5) | {"dev": saver}}
        if r < 0.62:
            return {"op": "sync", "dev": dev.index}
        if r < 0.71:
            return {"op": "airplane", "dev": dev.index, "on": not dev.airplane}
        if r < 0.73:
            return {"op": "skew", "dev": dev.index, "skew": rng.choice(SKEWS)}
        if r < 0.75:
            return {"op": "outage", "on": not self.world.outage}
        if r < 0.93:
            # the documents in conflict as this device's last sync or resolution reported them
            conflicts = sorted(dev.conflicts)
            if not conflicts:
                return self.choose_save(dev, 0.5)
            if rng.random() < 0.08:
                return {"op": "resolve-all", "dev": dev.index, "how": rng.choice(["--latest", "--merge"])}
            doc = rng.choice(conflicts)
            return {"op": "resolve", "dev": dev.index, "doc": doc, "how": self.choose_how(doc)}
        # concurrent resolutions: two devices resolve the same conflict differently, then sync
        other = rng.choice([d for d in devs if d is not dev])
        shared = sorted(dev.conflicts & other.conflicts)
        if not shared:
            return self.choose_save(dev, 0.5)
        doc = rng.choice(shared)
        return {"op": "resolve2", "devs": [dev.index, other.index], "doc": doc,
                "how": [self.choose_how(doc), self.choose_how(doc)]}

    def choose_save(self, dev, r):
        rng = self.rng
        docs = self.world.work_tree_docs(dev)
        files = sorted(d for d in docs if not d.endswith(".note"))
        pkgs = sorted(d for d in docs if d.endswith(".note"))
        if r < 0.05 or not docs:
            missing = [d for d in TEXT_DOCS + PACKAGE_DOCS if d not in docs]
            if missing:
                doc = rng.choice(missing)
                content = self.new_package(doc) if doc.endswith(".note") else self.new_text(doc)
                return {"op": "save", "dev": dev.index, "doc": doc, **encode_content(content)}
        if pkgs and (r < 0.09 or not files):
            doc = rng.choice(pkgs)
            return {"op": "save", "dev": dev.index, "doc": doc, **encode_content(self.edit_package(docs[doc]))}
        if files:
            doc = rng.choice(files)
            return {"op": "save", "dev": dev.index, "doc": doc, **encode_content(self.edit_text(docs[doc]))}
        return {"op": "sync", "dev": dev.index}

    def choose_how(self, doc):
        rng = self.rng
        r = rng.random()
        if r < 0.3:
            return "--latest"
        if r < 0.45:
            return f"--keep #{rng.randrange(4)}"
        if r < 0.55 and not doc.endswith(".note"):
            return "--file <person>"
        if r < 0.62:
            return "--merge"
        return f"--merge --policy {rng.choice(self.policies)}"

    # -- executing a step (both modes)

    def execute(self, step, index):
        """Runs one step. Returns False when its precondition no longer holds (replays only)."""
        world = self.world
        op = step["op"]
        self.timeline.x = index
        world.tick(10)
        if op == "quiet":
            self.quiet_round(index)
            return True
        if op == "resolve2":
            return self.resolve_concurrently(step, index)
        if op == "race":
            return self.race(step, index)
        if op == "outage":
            world.set_outage(step["on"])
            for lane in range(len(world.devices)):
                self.timeline.add(lane, "outage", "cloud unreachable" if step["on"] else "cloud back")
            self.say(f"{index:4d} {short_step(step, self.names)}")
            return True
        dev = world.devices[step["dev"]]
        if op == "save":
            content = decode_content(step)
            result = world.save(dev, step["doc"], content)
            world.expect(result, what=f"{dev.name} save {step['doc']}")
            self.stats.saves += 1
            self.timeline.add(dev.index, "save", short_step(step, self.names))
            self.say(f"{index:4d} {short_step(step, self.names)}" + (": unchanged" if "unchanged" in result.text else ""))
        elif op == "rm":
            if step["doc"] not in world.work_tree_docs(dev):
                return False
            result = world.expect(world.run(dev, "rm", step["doc"]), what=f"{dev.name} rm {step['doc']}")
            self.stats.deletions += 1
            self.timeline.add(dev.index, "delete", short_step(step, self.names))
            self.say(f"{index:4d} {short_step(step, self.names)}")
        elif op == "sync":
            self.do_sync(dev, index)
        elif op == "airplane":
            world.set_airplane(dev, step["on"])
            self.timeline.airplane(dev.index, step["on"])
            self.say(f"{index:4d} {short_step(step, self.names)}")
        elif op == "skew":
            dev.skew = float(step["skew"])
            self.timeline.add(dev.index, "skew", short_step(step, self.names))
            self.say(f"{index:4d} {short_step(step, self.names)}")
        elif op == "resolve":
            return self.resolve(dev, step["doc"], step["how"], index) is not None
        elif op == "resolve-all":
            args = ["resolve", "--all", "--json"] + step["how"].split()
            result = world.run(dev, *args)
            if result.rc == 3 and step["how"] == "--merge":
                self.stats.needs_person += 1
                self.say(f"{index:4d} {short_step(step, self.names)}: needs a person, nothing changed")
                return True
            world.expect(result, what=f"{dev.name} resolve --all {step['how']}")
            reports = result.json()
            if not reports:
                dev.conflicts.clear()
                return False
            self.record_resolutions(dev, reports)
            dev.conflicts -= {r["document"] for r in reports}
            self.stats.resolutions += len(reports)
            self.timeline.add(dev.index, "resolve", short_step(step, self.names))
            self.say(f"{index:4d} {short_step(step, self.names)}: resolved {len(reports)}")
        else:
            raise ValueError(f"unknown step {step}")
        return True

    def do_sync(self, dev, index, quiet=False):
        world = self.world
        twin = self.twins and not dev.airplane and not world.outage and world.diverged_from_cloud(dev)
        if twin:
            snapshot = self.snapshot(dev)
        result, report = world.sync(dev)
        self.stats.syncs += 1
        if dev.airplane:
            if result.rc != 1 or "offline" not in result.err:
                raise InvariantFailure("airplane mode", f"{dev.name}: sync in airplane mode exited {result.rc} "
                                       f"({result.first_error_line() or 'no message'}), expected exit 1 'offline (...)'")
            self.stats.offline += 1
            self.timeline.add(dev.index, "offline", "sync refused: airplane mode")
            self.say(f"{index:4d} {dev.name} sync: offline")
            return None
        if world.outage:
            if result.rc != 1 or "offline" not in result.err:
                raise InvariantFailure("unreachable cloud", f"{dev.name}: sync with the cloud unreachable exited "
                                       f"{result.rc} ({result.first_error_line() or 'no message'}), expected exit 1 "
                                       f"'offline (...)'")
            self.stats.offline += 1
            self.timeline.add(dev.index, "offline", "sync refused: " + result.first_error_line())
            self.say(f"{index:4d} {dev.name} sync: offline (cloud unreachable)")
            return None
        world.expect(result, what=f"{dev.name} sync")
        dev.unchecked.update(report["updated"])
        dev.conflicts = set(report["conflicts"])
        if report["outcome"] == "integrated":
            self.stats.conflicts += len(report["newConflicts"])
        self.timeline.add(dev.index, "sync", f"{dev.name} sync: {report['outcome']}")
        if report["newConflicts"] and report["outcome"] == "integrated":
            self.timeline.add(dev.index, "conflict", "new conflicts: " + ", ".join(report["newConflicts"]))
        self.say(f"{index:4d} {dev.name} sync: {report['outcome']}"
                 + (f", new conflicts {report['newConflicts']}" if report["newConflicts"] else "")
                 + (f", in conflict {report['conflicts']}" if report["conflicts"] else ""))
        if twin:
            self.check_twin(dev, snapshot, report)
        return report

    def race(self, step, index):
        """--chaos: several devices sync at once (their pushes race at the cloud) while one of them
        also saves (the container lock makes one wait). The outcome order is not reproducible."""
        world = self.world
        racers = [world.devices[i] for i in step["devs"] if not world.devices[i].airplane]
        if len(racers) < 2 or world.outage or step["save"]["op"] != "save":
            return False
        save_step = step["save"]
        saver = world.devices[save_step["dev"]]
        content = decode_content(save_step)
        env = dict(os.environ)
        procs = []
        for dev in racers:
            e = dict(env, CONCORD_CLOCK_OFFSET=f"{world.device_time(dev) - time.time():.3f}", GIT_TERMINAL_PROMPT="0")
            procs.append((dev, subprocess.Popen([world.concord, "-C", dev.path, "sync", "--json"],
                                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                                stderr=subprocess.PIPE, env=e)))
        save_result = world.save(saver, save_step["doc"], content)
        if save_result.rc != 0 and "busy" not in save_result.err:
            world.expect(save_result, what=f"{saver.name} save during a sync")
        if save_result.rc == 0:
            self.stats.saves += 1
            self.timeline.add(saver.index, "save", short_step(save_step, self.names))
        for dev, proc in procs:
            out, err = proc.communicate(timeout=300)
            err = err.decode("utf-8", "replace")
            world.calls += 1
            world.transcript.append(f"{dev.name}: concord sync --json (racing) -> {proc.returncode}")
            self.stats.syncs += 1
            if proc.returncode != 0:
                if proc.returncode == 1 and ("kept moving" in err or "busy" in err):
                    self.timeline.add(dev.index, "offline", err.strip()[:200])
                    continue
                raise InvariantFailure("racing syncs", f"{dev.name}: a sync racing with others exited "
                                       f"{proc.returncode}: {err.strip()[:300]}")
            report = json.loads(out)
            dev.unchecked.update(report["updated"])
            dev.conflicts = set(report["conflicts"])
            if report["outcome"] == "integrated":
                self.stats.conflicts += len(report["newConflicts"])
            self.timeline.add(dev.index, "sync", f"{dev.name} racing sync: {report['outcome']}")
        self.say(f"{index:4d} {short_step(step, self.names)}")
        return True

    # determinism: integrate the same histories again, from copies, with another clock

    def snapshot(self, dev):
        base = os.path.join(self.root, "twin")
        shutil.rmtree(base, ignore_errors=True)
        os.makedirs(base)
        shutil.copytree(self.world.cloud.dir, os.path.join(base, "cloud.git"), symlinks=True)
        shutil.copytree(dev.path, os.path.join(base, "device"), symlinks=True)
        return base

    def check_twin(self, dev, base, report):
        world = self.world
        self.stats.twins += 1
        cloud = world.cloud.dir
        after = os.path.join(base, "cloud-after.git")
        twin = Device(dev.index, dev.name, os.path.join(base, "device"))
        twin.skew = dev.skew + 3 * 3600 + 17  # another wall clock: the integration must not depend on it
        os.rename(cloud, after)
        try:
            shutil.copytree(os.path.join(base, "cloud.git"), cloud, symlinks=True)
            result, twin_report = world.sync(twin)
            world.expect(result, what=f"{dev.name} (copy) sync")
            tree_a, conflicts_a = world.state_of(dev)
            tree_b, conflicts_b = world.state_of(twin)
        finally:
            shutil.rmtree(cloud, ignore_errors=True)
            os.rename(after, cloud)
        same_report = {k: report[k] for k in ("outcome", "updated", "newConflicts", "conflicts")} == \
                      {k: twin_report[k] for k in ("outcome", "updated", "newConflicts", "conflicts")}
        if not same_report:
            raise InvariantFailure("determinism", f"{dev.name}: integrating the same histories again (another clock) "
                                   f"reported {twin_report} instead of {report}")
        if tree_a != tree_b:
            raise InvariantFailure("determinism", f"{dev.name}: integrating the same histories again (another clock) "
                                   f"gave tree {tree_b[:10]} instead of {tree_a[:10]}")
        if conflicts_a != conflicts_b:
            raise InvariantFailure("determinism", f"{dev.name}: integrating the same histories again gave conflicts "
                                   f"{conflicts_b} instead of {conflicts_a}")
        shutil.rmtree(base, ignore_errors=True)

    # resolutions

    def resolve(self, dev, doc, how, index, label=None):
        """Resolves one document; returns the content key of the result (or "" when nothing changed)."""
        world = self.world
        args = ["resolve", doc, "--json"]
        if how.startswith("--keep #"):
            versions = world.versions(dev, doc)
            if not any(v["conflict"] for v in versions):
                dev.conflicts.discard(doc)
                return None
            # a stable order, whatever the commit ids: current first, then by device and clock
            ordered = versions[:1] + sorted(versions[1:], key=lambda v: (v["device"], v["clock"]))
            pick = ordered[int(how.split("#")[1]) % len(ordered)]
            args += ["--keep", pick["id"]]
        elif how == "--file <person>":
            file = os.path.join(dev.path, doc)
            current = open(file, "rb").read() if os.path.isfile(file) else b""
            typed = current + f"resolved by hand on {dev.name}\n".encode()
            args += ["--file", world.tmpfile(typed)]
        else:
            args += how.split()
        output = None
        if how.startswith("--merge") and not doc.endswith(".note"):
            output = os.path.join(self.root, "tmp", f"merge-{index}-{dev.index}.txt")
            os.makedirs(os.path.dirname(output), exist_ok=True)
            args += ["--output", output]
        result = world.run(dev, *args)
        if result.rc == 1 and "is not in conflict" in result.err:
            dev.conflicts.discard(doc)  # a replay without the steps that made this conflict
            return None
        if result.rc == 1 and "no document" in result.err and how == "--file <person>":
            dev.conflicts.discard(doc)
            return None
        text = label or f"{dev.name} resolve {doc} {how}"
        if result.rc == 3:
            self.stats.needs_person += 1
            if output and os.path.exists(output):
                # the person edits the marked-up merge and finishes with --file
                with open(output, "rb") as f:
                    marked = f.read()
                finished = b"".join(line for line in marked.splitlines(keepends=True)
                                    if not line.startswith((b"<<<<<<<", b"=======", b">>>>>>>", b"|||||||")))
                result = world.run(dev, "resolve", doc, "--file", world.tmpfile(finished), "--json")
                text += " (needs a person: finished by hand)"
            else:
                result = world.run(dev, "resolve", doc, "--latest", "--json")
                text += " (needs a person: kept the latest)"
        world.expect(result, what=text)
        report = result.json()
        self.record_resolutions(dev, [report])
        dev.conflicts.discard(doc)
        self.stats.resolutions += 1
        self.timeline.add(dev.index, "resolve", text + ": " + report.get("explanation", ""))
        self.say(f"{index:4d} {text}: {sanitize(report.get('explanation', ''))}; removed {len(report.get('removed', []))}")
        after = world.version_content_key(dev, doc, {"id": report["version"], "deleted": report.get("deleted"),
                                                     "package": doc.endswith(".note")}) if report.get("version") else ""
        return after

    def check_latest(self, dev, report):
        """Latest-wins (DESIGN.md): a version that causally follows another wins; between concurrent
        versions the greater hybrid logical clock wins (then device id, then commit id)."""
        kept = report.get("kept")
        if not kept or "latest" not in report.get("explanation", "").split(":")[0]:
            return
        def hlc(v):
            physical, _, logical = v["clock"].partition(".")
            return int(physical), int(logical or 0)
        def ancestor(a, b):
            return subprocess.run(["git", "-C", dev.path, "merge-base", "--is-ancestor", a, b],
                                  capture_output=True).returncode == 0
        for other in report.get("removed", []):
            if other["id"] == kept["id"]:
                continue
            if ancestor(kept["id"], other["id"]):
                raise InvariantFailure("latest wins", f"{dev.name}: resolve {report['document']} --latest kept "
                                       f"{kept['device']}'s {kept['id'][:7]}, which {other['device']}'s removed "
                                       f"{other['id'][:7]} causally follows")
            if not ancestor(other["id"], kept["id"]) and hlc(other) > hlc(kept):
                raise InvariantFailure("latest wins", f"{dev.name}: resolve {report['document']} --latest kept "
                                       f"{kept['device']}'s {kept['id'][:7]} (clock {kept['clock']}) over the "
                                       f"concurrent {other['device']}'s {other['id'][:7]} with the greater clock "
                                       f"{other['clock']}")

    def record_resolutions(self, dev, reports):
        """A resolution saves a version too: its content must stay retrievable like any other."""
        for report in reports:
            self.check_latest(dev, report)
            doc = report["document"]
            if report.get("version") and not report.get("deleted"):
                key = self.world.version_content_key(
                    dev, doc, {"id": report["version"], "deleted": False, "package": doc.endswith(".note")})
                dev.saved.setdefault(doc, {})[key] = f"resolution ({report.get('explanation', '')[:60]})"
                dev.unchecked.add(doc)

    def resolve_concurrently(self, step, index):
        world = self.world
        a, b = (world.devices[i] for i in step["devs"])
        doc = step["doc"]
        key_a = self.resolve(a, doc, step["how"][0], index, label=f"{a.name} resolve {doc} {step['how'][0]} (concurrently)")
        key_b = self.resolve(b, doc, step["how"][1], index, label=f"{b.name} resolve {doc} {step['how'][1]} (concurrently)")
        if key_a is None or key_b is None:
            return key_a is not None or key_b is not None
        if a.airplane or b.airplane or world.outage or key_a == key_b or not key_a or not key_b:
            return True
        # both online: the two different resolutions meet in b's sync and must make a new conflict
        self.do_sync(a, index)
        report = self.do_sync(b, index)
        versions = world.versions(b, doc)
        contents = {world.version_content_key(b, doc, v) for v in versions}
        if key_a not in contents or key_b not in contents:
            raise InvariantFailure(
                "concurrent resolutions",
                f"{a.name} and {b.name} resolved {doc} differently; after both synced, {b.name}'s versions of {doc} "
                f"are {len(versions)} ({'in conflict' if doc in report['conflicts'] else 'not in conflict'}) and do not "
                f"hold both resolutions: one was silently lost")
        return True

    # -- quiet rounds and checks

    def quiet_round(self, index):
        world = self.world
        self.stats.quiet += 1
        saved_airplane = [d.airplane for d in world.devices]
        if world.outage:
            world.set_outage(False)
            for lane in range(len(world.devices)):
                self.timeline.add(lane, "outage", "cloud back")
        for dev in world.devices:
            if dev.airplane:
                world.set_airplane(dev, False)
                self.timeline.airplane(dev.index, False)
        x0 = self.timeline.x
        for round_number in (1, 2):
            for dev in world.devices:
                report = self.do_sync(dev, index, quiet=True)
                if round_number == 2 and report["outcome"] not in ("upToDate", "fastForwarded"):
                    raise InvariantFailure("convergence", f"{dev.name}'s second sync of a quiet round did "
                                           f"'{report['outcome']}': there were no new edits")
        self.timeline.quiet.append((x0, x0))
        tree, conflicts = world.check_converged()
        if getattr(self.args, "inject_fault", False) and any(c[1] >= 3 for c in conflicts):
            # a fake invariant, only to exercise the shortening of failures (--inject-fault)
            raise InvariantFailure("injected fault", "a document has 3 versions in contention")
        # nothing lost, across devices: every device now holds every version any device saved
        checker = world.devices[index % len(world.devices)]
        if self.checks:
            world.check_nothing_lost(checker, saved_by=world.devices)
            for dev in world.devices:
                dev.unchecked.clear()
        world.check_work_tree(checker)
        world.check_contention(checker)
        self.say(f"{index:4d} quiet round: converged, {len(conflicts)} in conflict")
        for dev, was in zip(world.devices, saved_airplane):
            if was:
                world.set_airplane(dev, True)
                self.timeline.airplane(dev.index, True)

    def periodic_check(self):
        for dev in self.world.devices:
            if dev.unchecked:
                self.world.check_nothing_lost(dev, docs=set(dev.unchecked))

    def final_checks(self, index):
        self.execute({"op": "quiet"}, index)
        for dev in self.world.devices:
            if self.checks:
                self.world.check_nothing_lost(dev)
            self.world.fsck(dev.path, dev.name)
        self.world.fsck(self.world.cloud.dir, "cloud")


def unexpected(error) -> InvariantFailure:
    import traceback
    where = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
    place = f" (simulate.py:{where.lineno} in {where.name})" if where else ""
    return InvariantFailure("unexpected error", f"{type(error).__name__}: {error}{place}")


def run_steps(args, steps, ndev, seed, root, checks=True, twins=True, verbose=False):
    """Replays a fixed list of steps in a fresh folder. Returns (failure or None, simulation)."""
    sim = Simulation(args, root, ndev, seed, verbose=verbose, checks=checks, twins=twins)
    try:
        sim.setup()
        for i, step in enumerate(steps):
            sim.execute(step, i + 1)
        sim.final_checks(len(steps) + 1)
        return None, sim
    except InvariantFailure as failure:
        return failure, sim
    except (Exception, subprocess.TimeoutExpired) as error:
        return unexpected(error), sim
    finally:
        sim.world.close()


def shrink(args, steps, ndev, seed, failure, deadline):
    """Delta debugging over the step list: the shortest list found in time that fails the same way.

    Each candidate is replayed in a fresh folder; the checks that cannot produce this kind of
    failure are skipped to save time. First whole kinds of steps are dropped (clock skews,
    airplane toggles, ...), then chunks of steps, then single steps."""
    tries = 0

    def fails(candidate):
        nonlocal tries
        tries += 1
        root = tempfile.mkdtemp(prefix="concord-shrink-")
        try:
            got, _ = run_steps(args, candidate, ndev, seed, root,
                               checks=(failure.kind == "nothing lost"), twins=(failure.kind == "determinism"))
            return got is not None and got.kind == failure.kind
        finally:
            shutil.rmtree(root, ignore_errors=True)

    for kind in ("skew", "quiet", "outage", "race", "airplane", "resolve2", "resolve-all", "resolve", "rm"):
        if time.monotonic() >= deadline:
            break
        candidate = [s for s in steps if s["op"] != kind]
        if len(candidate) < len(steps) and fails(candidate):
            steps = candidate
    n = 2
    while len(steps) >= 2 and time.monotonic() < deadline:
        size = -(-len(steps) // n)
        chunks = [steps[i:i + size] for i in range(0, len(steps), size)]
        reduced = False
        for i in range(len(chunks)):
            if time.monotonic() >= deadline:
                break
            candidate = [s for j, c in enumerate(chunks) if j != i for s in c]
            if fails(candidate):
                steps, n, reduced = candidate, max(n - 1, 2), True
                break
        if not reduced:
            if n >= len(steps):
                break
            n = min(len(steps), n * 2)
    return steps, tries


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
                  f"cloud {args.cloud}; policies: {', '.join(sim.policies)}", flush=True)
        if replay_steps is not None:
            for i, step in enumerate(replay_steps):
                index = i + 1
                sim.steps.append(step)
                sim.execute(step, index)
        else:
            while index < nsteps:
                index += 1
                if index % args.quiet_every == 0:
                    step = {"op": "quiet"}
                else:
                    step = sim.choose()
                sim.steps.append(step)
                sim.execute(step, index)
                if index % args.check_every == 0:
                    sim.periodic_check()
                if not args.quiet_seeds and not args.verbose and index % 50 == 0:
                    print(f"  step {index}: {sim.stats.summary()}", flush=True)
        sim.final_checks(index + 1)
    except InvariantFailure as error:
        failure = error
        sim.timeline.add(0, "failure", str(error))
    except (Exception, subprocess.TimeoutExpired) as error:  # bad JSON, a hung command, a bug here: reported too
        failure = unexpected(error)
        sim.timeline.add(0, "failure", str(failure))
    finally:
        sim.world.close()
    sim.timeline.write(svg, f"Concord random run: seed {seed}, {ndev} devices, {len(sim.steps)} steps"
                       + (" - FAILED" if failure else ""))
    elapsed = time.monotonic() - start

    if failure is None:
        shutil.rmtree(root, ignore_errors=True) if not args.keep else None
        if args.keep:
            print(f"kept {root}")
        print(f"timeline: {svg}")
        for kind, count in sorted(sim.world.ignored.items()):
            print(f"seed {seed}: IGNORED {count} '{kind}' failures (--ignore {kind})")
        print(f"seed {seed}: {sim.stats.summary()}, {SUMMARY_PASS} "
              f"({sim.stats.twins} integrations replayed, {sim.stats.quiet} quiet rounds, {elapsed:.1f}s)", flush=True)
        return 0

    print(f"INVARIANT FAILED at step {index} of seed {seed}: {failure}", flush=True)
    print(f"last commands:")
    for line in sim.world.transcript[-10:]:
        print(f"  {line}")
    steps_file = os.path.join(tmpdir, f"concord-airplane-seed-{seed}-steps.json")
    steps = sim.steps
    shortened = steps
    if args.shrink_seconds > 0 and len(steps) > 1:
        print(f"shrinking {len(steps)} steps (at most {args.shrink_seconds}s)...", flush=True)
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
    if "-" in text:
        a, b = text.split("-", 1)
        return list(range(int(a), int(b) + 1))
    return [int(s) for s in text.split(",")]


def main(argv=None) -> int:
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
    p.add_argument("--replay", help="replay a step list written by a failed run")
    p.add_argument("--quiet-every", type=int, default=25, help="a quiet round every N steps (default 25)")
    p.add_argument("--check-every", type=int, default=20, help="check 'nothing lost' every N steps (default 20)")
    p.add_argument("--shrink-seconds", type=float, default=180, help="time bound for shortening a failure (0: none)")
    p.add_argument("--verbose", "-v", action="store_true", help="one line per step")
    p.add_argument("--chaos", action="store_true",
                   help="also race syncs of several devices (and a save) at the same moment; "
                        "the output is then not reproducible")
    p.add_argument("--ignore", action="append", choices=["contention"],
                   help="count this kind of failure (a known bug) instead of stopping, to look for others")
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
        seeds = parse_seeds(args.seeds)
        start = time.monotonic()
        for n, seed in enumerate(seeds, 1):
            code = random_run(args, seed, args.devices, args.steps)
            if code != 0:
                print(f"soak: seed {seed} failed after {n - 1} passing seeds")
                return code
        print(f"soak: {len(seeds)} seeds x {args.devices} devices x {args.steps} steps, {SUMMARY_PASS} "
              f"({time.monotonic() - start:.0f}s)")
        return 0
    if args.random:
        return random_run(args, args.seed, args.devices, args.steps)
    return scenario(args)


if __name__ == "__main__":
    sys.exit(main())
