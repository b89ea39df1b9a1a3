"""A cloud and N devices pre-filled with many documents by git plumbing: the benchmarks' fixture.

`Fixture` fills its devices with `concord save`, which at 100,000 documents takes minutes.
`BulkFixture` joins the devices the same way (`concord init`, then `concord clone` of the still
empty container, so each is a real Concord device) and then gives them the documents as git's own
tools would: commits written by `git fast-import` on top of Concord's first commit on the first
device, its work tree written with `git read-tree -u` (the index removed after: a Concord
container has none), a `git push` to the cloud, and on the other devices a `git fetch` and the
same checkout. It also makes the git CLI's side of a comparison: a copy of the cloud and plain
`git clone`s of it.

    from concordsim.bulk_fixture import BulkFixture
    fx = BulkFixture(concord, root)                 # devices "one" and "two" in root/dev1 and root/dev2
    fx.setup_filled(10_000)                         # 10,000 documents, 100 per folder (flat=True: all in root)
    gcloud = fx.copy_cloud("gcloud.git")            # the git CLI's pair, sharing the same history
    g1, g2 = fx.git_clone(gcloud, "g1"), fx.git_clone(gcloud, "g2")

Any history can be given instead of the documents' one commit (`setup_filled(n, stream=...)`,
a `git fast-import` stream on refs/heads/main made with `fast_import_commit`). The documents'
layout, `doc_path` and `doc_content`, is the benchmarks' (scripts/bench.d). Every git command runs
with the fixture's environment (`env`: the benchmarks give git an empty configuration).
"""

from __future__ import annotations

import os
import subprocess
import time

from .fixture import Device, Fixture, run_git

DOCS_PER_FOLDER = 100


def doc_path(i: int, flat: bool = False) -> str:
    """Document i's path: 100 per folder, 3 levels (f00/g00/doc000000.txt), or with flat all in the root."""
    if flat:
        return f"doc{i:06d}.txt"
    return f"f{i // 10000:02d}/g{(i // DOCS_PER_FOLDER) % 100:02d}/doc{i:06d}.txt"


def doc_content(i: int) -> bytes:
    return f"Document {i}\nThis is the second line of document {i}.\nA third line.\n".encode()


def write_docs(root, n: int, flat: bool = False) -> None:
    """Writes the N documents into a work tree with plain file writes (nothing saved)."""
    made = set()
    for i in range(n):
        path = os.path.join(root, doc_path(i, flat))
        folder = os.path.dirname(path)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        with open(path, "wb") as f:
            f.write(doc_content(i))


def fast_import_commit(ident: str, when: int, message: str, files, first: bool = False) -> bytes:
    """One commit on refs/heads/main for `git fast-import --date-format=raw`: author and committer
    `ident` ("name <email>") at `when` (seconds, UTC), the `files` ((path, bytes) pairs) written.
    The first commit of a stream (`first`) starts from the branch as it is in the repository
    (Concord's first commit); the next ones follow it."""
    body = message.encode()
    out = bytearray(b"commit refs/heads/main\n")
    out += b"author %s %d +0000\n" % (ident.encode(), when)
    out += b"committer %s %d +0000\n" % (ident.encode(), when)
    out += b"data %d\n%s" % (len(body), body)
    if first:
        out += b"from refs/heads/main^0\n"
    for path, content in files:
        out += b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(content), content)
    out += b"\n"
    return bytes(out)


def documents_commit(n: int, flat: bool = False) -> bytes:
    """The commit that adds documents 0 to n-1, as a fast-import stream."""
    return fast_import_commit("one <one@bench.invalid>", 1_795_000_000, f"Add {n} documents\n",
                              ((doc_path(i, flat), doc_content(i)) for i in range(n)), first=True)


class BulkFixture(Fixture):
    """A Fixture whose devices get their documents by git plumbing (see the module's doc).

    The benchmarks' layout by default: devices "one" and "two" in folders dev1 and dev2, the
    cloud in cloud.git, no package pattern."""

    def __init__(self, concord: str, root: str, names=("one", "two"), folders=("dev1", "dev2"),
                 env: dict | None = None):
        super().__init__(concord, str(root), names=list(names), folders=list(folders), env=env)
        self.timings: dict = {}
        self.files = 0  # the files a device's work tree holds after `fill`

    def git(self, *args, input: bytes | None = None) -> str:
        """Runs git with the fixture's environment; raises RuntimeError when it fails."""
        return run_git(*args, input=input, env=self.command_env(None))

    def setup_filled(self, n: int, flat: bool = False, stream: bytes | None = None, join=None) -> dict:
        """Starts the cloud, inits the first device and clones the devices in `join` (default: all
        the others) while the container is empty; then writes `stream` (default: one commit of
        the n documents, `documents_commit`; a given stream must add n documents) on the first
        device, pushes it, and gives it to the devices that joined. The devices left out of
        `join` can be cloned later.

        - Returns: the seconds each step took, also kept in `timings`: "fill" (the fast-import and
          the checkout), "push", and per device that joined, "receive DEVICE" (fetch and checkout)."""
        first = self.devices[0]
        joined = self.devices[1:] if join is None else list(join)
        self.init(packages=())
        for dev in joined:
            self.clone(dev)
        self.timings = {}
        started = time.perf_counter()
        self.fill(first, documents_commit(n, flat) if stream is None else stream, n)
        self.timings["fill"] = time.perf_counter() - started
        started = time.perf_counter()
        self.git("-C", first.path, "push", "-q", "origin", "main")
        self.timings["push"] = time.perf_counter() - started
        for dev in joined:
            started = time.perf_counter()
            self.receive(dev)
            self.timings[f"receive {dev.name}"] = time.perf_counter() - started
        return self.timings

    def fill(self, dev: Device, stream: bytes, documents: int) -> None:
        """Writes the fast-import `stream` on `dev`'s main and checks out the result, which must add
        `documents` files to the tree that was there."""
        before = len(self.git("-C", dev.path, "ls-tree", "-r", "--name-only", "main").splitlines())
        self.git("-C", dev.path, "fast-import", "--quiet", "--date-format=raw", input=stream)
        self.files = before + documents
        self.checkout(dev, self.files)

    def receive(self, dev: Device) -> None:
        """Gives `dev` (joined while the container was empty) the cloud's main after `fill` and a
        push: fetch, move main to it, check it out."""
        self.git("-C", dev.path, "fetch", "-q", "origin")
        self.git("-C", dev.path, "update-ref", "refs/heads/main", "refs/remotes/origin/main")
        self.checkout(dev, self.files)

    def checkout(self, dev: Device, files: int) -> None:
        """Writes main's tree to `dev`'s work tree with `git read-tree -u`, then removes the index
        that this leaves: Concord never writes one, and libgit2 reads an existing index whole each
        time it looks up attributes (every work-tree write), which would charge Concord for the
        setup. The work tree must then hold `files` files."""
        self.git("-C", dev.path, "read-tree", "-u", "--reset", "main")
        os.unlink(os.path.join(dev.path, ".git", "index"))
        found = 0
        for folder, dirs, names in os.walk(dev.path):
            if folder == dev.path:
                dirs.remove(".git")
            found += len(names)
        if found != files:
            raise RuntimeError(f"{os.path.basename(dev.path)}'s work tree holds {found} files, expected {files}")

    # -- the git CLI's side

    def copy_cloud(self, name: str) -> str:
        """A copy (cp -a) of the cloud as it is now, in root/NAME: the git CLI's cloud."""
        path = os.path.join(self.root, name)
        p = subprocess.run(["cp", "-a", self.cloud.dir, path], capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"cp -a {self.cloud.dir} {path} failed: {p.stderr.strip()}")
        return path

    def git_clone(self, url: str, folder: str) -> str:
        """A plain `git clone` of `url` in root/FOLDER, committing as FOLDER <FOLDER@bench.invalid>."""
        path = os.path.join(self.root, folder)
        self.git("clone", "-q", str(url), path)
        self.git("-C", path, "config", "user.name", folder)
        self.git("-C", path, "config", "user.email", f"{folder}@bench.invalid")
        return path
