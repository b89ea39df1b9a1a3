"""The simulated world: the fixture's cloud and devices, a virtual clock, and the checks that read them.

Everything here drives the `concord` command line exactly as a user would; `git` only reads.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time

from .content import content_key, describe_content, work_tree_docs
from .fixture import Device, Fixture, Result, blob_id, git_fsck, run_git

PROFILE = {}  # subcommand -> (calls, seconds), printed on stderr with --profile


class InvariantFailure(Exception):
    """An invariant of DESIGN.md, the command line's contract, or the oracle's prediction does not hold."""

    def __init__(self, kind: str, message: str):
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message

    def signature(self):
        """The failure without what changes from run to run (ids, numbers, lists): a shortened run
        fails the same way when its signature is the same."""
        shape = re.sub(r"\[[^\]]*\]", "[...]", self.message)
        shape = re.sub(r"\b[0-9a-f]{7,40}\b", "#", shape)
        return self.kind, re.sub(r"\d+", "#", shape)


class SimDevice(Device):
    def __init__(self, index: int, name: str, path: str):
        super().__init__(index, name, path)
        self.airplane = False
        self.skew = 0.0          # seconds this device's clock runs ahead (negative: behind)
        self.saved = {}          # doc -> {content_key: description} saved here with exit 0
        self.conflicts = set()   # docs in conflict, as this device's last sync or resolution said


class World(Fixture):
    """A cloud, N devices, a virtual clock, and a record of every command run."""

    device_class = SimDevice

    def __init__(self, concord: str, root: str, ndev: int, cloud_kind: str = "local", names=None):
        super().__init__(concord, root, names=names, ndev=ndev, cloud_kind=cloud_kind)
        # The virtual clock: every device's clock reads it (plus its skew), so that the order of
        # saves never depends on how long a command took. It starts at the real time.
        self.vnow = float(int(time.time()))
        self.transcript = []     # "device: concord args -> rc (first error line)"
        self.version_cache = {}  # (device index, doc, version id) -> content key read with `show`
        self.tmp_count = 0
        self.outage = False      # true while the cloud cannot be reached

    # -- running the command line

    def tick(self, seconds: float = 10.0):
        self.vnow += seconds

    def device_time(self, dev: SimDevice) -> float:
        return self.vnow + dev.skew

    def command_env(self, dev):
        env = super().command_env(dev)
        if dev is not None and hasattr(dev, "skew"):
            env["CONCORD_CLOCK_OFFSET"] = f"{self.device_time(dev) - time.time():.3f}"
        return env

    def record(self, dev, args, result: Result, seconds: float):
        name = str(args[0]) if args else "?"
        count, total = PROFILE.get(name, (0, 0.0))
        PROFILE[name] = (count + 1, total + seconds)
        who = dev.name if dev else "-"
        self.transcript.append(f"{who}: concord {' '.join(str(a) for a in args)} -> {result.rc}"
                               + (f" ({result.first_error_line()})" if result.rc else ""))

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

    def setup(self, packages=("*.note",)):
        try:
            super().setup(packages)
        except RuntimeError as error:
            raise InvariantFailure("command failed", str(error))

    # -- the operations users do

    def save(self, dev: SimDevice, doc: str, content) -> Result:
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
        return result

    def sync(self, dev: SimDevice) -> tuple[Result, dict | None]:
        result = self.run(dev, "sync", "--json")
        report = result.json() if result.rc == 0 else None
        return result, report

    def set_airplane(self, dev: SimDevice, on: bool):
        self.expect(self.run(dev, "airplane", "on" if on else "off"))
        dev.airplane = on

    def conflicts(self, dev: SimDevice) -> list:
        return self.expect(self.run(dev, "conflicts", "--json")).json()

    def documents(self, dev: SimDevice) -> list:
        return self.expect(self.run(dev, "ls", "--json")).json()

    def versions(self, dev: SimDevice, doc: str, all_versions=False) -> list:
        args = ["versions", doc, "--json"] + (["--all"] if all_versions else [])
        return self.expect(self.run(dev, *args)).json()

    def work_tree_docs(self, dev: SimDevice) -> dict:
        return work_tree_docs(dev.path)

    def version_content_key(self, dev: SimDevice, doc: str, version: dict):
        """The content key of one version read on `dev` through `concord show` (cached per device:
        versions never change, but each device must be able to read each one).

        For a package `show` prints only each file's size and path, so the package's files are read
        from the version's tree with read-only git and compared by blob id."""
        cache_key = (dev.index, doc, version["id"])
        if cache_key in self.version_cache:
            return self.version_cache[cache_key]
        if version.get("deleted"):
            key = None
        elif version.get("package"):
            listing = self.expect(self.run(dev, "show", doc, "--version", version["id"])).text
            # a version from before a rename holds the package under its old name
            name = version.get("name") or doc
            out = subprocess.run(["git", "-C", dev.path, "ls-tree", "-r", "-z", f"{version['id']}:{name}"],
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

    # -- invariants that need no model

    def check_nothing_lost(self, dev: SimDevice, docs=None, saved_by=None):
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
            for key, description in sorted(wanted[doc].items(), key=lambda kv: str(kv[0])):
                if key not in have:
                    who = ", ".join(s.name for s in sources if key in s.saved.get(doc, {}))
                    raise InvariantFailure("nothing lost", f"{dev.name}: a version of {doc} saved by {who} "
                                           f"({description}) is not among its versions any more")

    def state_of(self, dev: SimDevice):
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

    def fsck(self, path: str, label: str):
        found = git_fsck(path)
        if found:
            raise InvariantFailure("fsck", f"{label}: git fsck: {found[:300]}")

    # -- the cloud

    def set_outage(self, on: bool):
        """The cloud becomes unreachable (its folder moves away) or comes back."""
        down = self.cloud.dir + ".down"
        if on and not self.outage:
            os.rename(self.cloud.dir, down)
        elif not on and self.outage:
            os.rename(down, self.cloud.dir)
        self.outage = on

    def diverged_from_cloud(self, dev: SimDevice) -> bool:
        local = run_git("-C", dev.path, "rev-parse", "main", check=False)
        remote = run_git("--git-dir", self.cloud.dir, "rev-parse", "--verify", "--quiet", "main", check=False)
        if not local or not remote or local == remote:
            return False
        local_in_cloud = subprocess.run(["git", "--git-dir", self.cloud.dir, "cat-file", "-e", f"{local}^{{commit}}"],
                                        capture_output=True).returncode == 0
        remote_here = subprocess.run(["git", "-C", dev.path, "merge-base", "--is-ancestor", remote, local],
                                     capture_output=True).returncode == 0
        return not local_in_cloud and not remote_here
