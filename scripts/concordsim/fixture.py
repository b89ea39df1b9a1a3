"""A cloud and N devices, and running the `concord` binary on them: the one fixture every script shares.

The Python counterpart of `Tests/ConcordTests/Fixture.swift`. The simulation (`world.py`), the
crash harness (`crash.py`), the mutation runner and the benchmarks build their containers here:

    from concordsim.fixture import Fixture, find_concord
    fx = Fixture(find_concord(), "/tmp/somewhere", ["iPhone", "iPad"])
    fx.setup()                                  # a cloud (bare repository) + init + clone
    fx.run(fx.devices[0], "save", "note.txt", stdin=b"hello\\n")
    fx.sync(fx.devices[1])
    fx.snapshot("/tmp/copy"); ...; fx.restore("/tmp/copy")

The benchmarks' containers of up to 100,000 documents are filled by git plumbing instead of
`concord save`: `BulkFixture` in bulk_fixture.py, a Fixture with devices "one" and "two" in
folders dev1 and dev2 and no package pattern.

`git` is used only to read (tree ids, `fsck`, object contents) and, for a git-daemon cloud, to
create the empty bare repository and serve it (the bulk fixture also writes with it). Python 3.11
standard library only.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import shutil
import subprocess
import time

DEVICE_NAMES = ["iPhone", "iPad", "MacBook", "iMac", "Watch", "TV", "Vision"]

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def blob_id(data: bytes) -> str:
    """The git blob id of some bytes (sha1 object format), computed without git."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def run_git(*args, check=True, input: bytes | None = None, env: dict | None = None) -> str:
    p = subprocess.run(["git", *map(str, args)], capture_output=True, input=input,
                       stdin=None if input is not None else subprocess.DEVNULL, env=env)
    if check and p.returncode != 0:
        raise RuntimeError(f"git {' '.join(map(str, args))} failed: {p.stderr.decode(errors='replace').strip()}")
    return p.stdout.decode("utf-8", "replace").strip() if p.returncode == 0 else ""


def git_fsck(path: str) -> str | None:
    """None when `git fsck` finds nothing wrong in `path`, else its first lines."""
    p = subprocess.run(["git", "-C", path, "fsck", "--no-progress", "--no-dangling"],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if p.returncode == 0:
        return None
    return (p.stderr or p.stdout).strip()[:400] or f"exit {p.returncode}"


def find_concord(build=True, configuration="debug") -> str:
    """The concord binary: $CONCORD_BIN, else this checkout's build (built first when `build`)."""
    given = os.environ.get("CONCORD_BIN")
    if given:
        return os.path.abspath(given) if os.sep in given else given
    if build:
        swift = shutil.which("swift") or "/opt/swift/usr/bin/swift"
        command = [swift, "build", "--product", "concord", "-q"]
        if configuration != "debug":
            command += ["-c", configuration]
        subprocess.run(command, cwd=REPOSITORY, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(REPOSITORY, ".build", configuration, "concord")


class Result:
    """One finished command: argv, exit code, stdout bytes, stderr text."""

    def __init__(self, argv, rc, out: bytes, err: str):
        self.argv, self.rc, self.out, self.err = argv, rc, out, err

    @property
    def text(self) -> str:
        return self.out.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.out.decode("utf-8"))

    def first_error_line(self) -> str:
        lines = [line for line in self.err.splitlines() if line.strip() and "warning:" not in line]
        return lines[0] if lines else ""

    def __repr__(self):
        return f"<{' '.join(map(str, self.argv[1:]))} -> {self.rc}>"


# ---------------------------------------------------------------------------------------------
# Clouds


class LocalCloud:
    """A bare repository on a local path (created by `concord init --remote PATH`)."""

    kind = "local"

    def __init__(self, root: str):
        self.dir = os.path.join(root, "cloud.git")
        self.url = self.dir

    def start(self):
        pass

    def stop(self):
        pass


class ServerCloud:
    """A real `git daemon`, sshd or HTTPS git server on 127.0.0.1 (scripts/bench.d/servers.py)
    serving an empty bare repository. Every command runs with `env()` (ssh: a HOME holding the key
    made for the run and its known_hosts, no agent; https: the test authority in SSL_CERT_FILE);
    init and clone also get `join_env()` (https: the user name and password, which Concord stores
    in its 0600 file, so that later syncs run without them)."""

    SERVERS = {"git-daemon": "daemon", "ssh": "ssh", "https": "https"}  # kind -> servers.start's

    def __init__(self, root: str, kind: str):
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench.d"))
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
        self.server = self.servers.start(self.SERVERS[self.kind], self.base, self.folder)
        self.url = self.server.url("cloud.git")

    def stop(self):
        if self.server is not None:
            self.server.stop()

    def env(self) -> dict:
        if self.server is None:
            return {}
        if self.kind == "ssh":
            return self.server.concord_env()
        if self.kind == "https":
            return {"SSL_CERT_FILE": str(self.server.authority), "CONCORD_CLOUD_USERNAME": "", "CONCORD_CLOUD_PASSWORD": ""}
        return {}

    def join_env(self) -> dict:
        return self.server.concord_env() if self.kind == "https" else {}


def make_cloud(root: str, kind: str):
    """The cloud of `kind`: local (a bare repository on a path), git-daemon, ssh or https."""
    if kind in ServerCloud.SERVERS:
        return ServerCloud(root, kind)
    return LocalCloud(root)


# ---------------------------------------------------------------------------------------------
# Devices and the fixture


class Device:
    """One clone: its index in the fixture, its name (also its folder's name) and path."""

    def __init__(self, index: int, name: str, path: str):
        self.index = index
        self.name = name
        self.path = path

    @property
    def id(self) -> str:
        """The fixed device id given at init/clone (latest-wins breaks clock ties by it)."""
        return device_id(self.index)

    def __repr__(self):
        return f"<device {self.name}>"


def device_id(index: int) -> str:
    return f"00000000-0000-4000-8000-{index + 1:012d}"


class Fixture:
    """A cloud and N devices in `root`, and the `concord` binary to run on them.

    `env` is added to every command's environment; `timeout` bounds each command (seconds).
    Subclasses can override `command_env(dev)` (the simulation sets each device's clock there)
    and `record(dev, args, result, seconds)` (a transcript)."""

    device_class = Device

    def __init__(self, concord: str, root: str, names=None, ndev: int = 2, cloud_kind: str = "local",
                 env: dict | None = None, timeout: float = 300, folders=None):
        self.concord = concord
        self.root = root
        os.makedirs(root, exist_ok=True)
        self.cloud = make_cloud(root, cloud_kind)
        names = names or [DEVICE_NAMES[i] if i < len(DEVICE_NAMES) else f"dev{i + 1}" for i in range(ndev)]
        folders = folders or names  # each device's folder under root (its name by default)
        self.devices = [self.device_class(i, names[i], os.path.join(root, folders[i])) for i in range(len(names))]
        self.env = dict(env or {})
        self.timeout = timeout
        self.calls = 0

    # -- running the command line

    def command_env(self, dev: Device | None) -> dict:
        env = dict(os.environ)
        env["GIT_TERMINAL_PROMPT"] = "0"
        for name in ("CONCORD_CLOCK_OFFSET", "CONCORD_CRASH_AT", "CONCORD_CRASH_TRACE"):
            env.pop(name, None)
        env.update(getattr(self.cloud, "env", dict)())
        env.update(self.env)
        return env

    def argv(self, dev: Device | None, *args) -> list[str]:
        return [self.concord] + (["-C", dev.path] if dev else []) + [str(a) for a in args]

    def run(self, dev: Device | None, *args, stdin: bytes | None = None, cwd=None, env_extra=None) -> Result:
        """Runs `concord [-C DEV] ARGS...` to the end and returns its Result."""
        argv = self.argv(dev, *args)
        env = self.command_env(dev)
        if env_extra:
            env.update(env_extra)
        started = time.monotonic()
        for attempt in range(50):
            try:
                p = subprocess.run(argv, input=stdin if stdin is not None else None,
                                   stdin=None if stdin is not None else subprocess.DEVNULL,
                                   capture_output=True, env=env, cwd=cwd or self.root, timeout=self.timeout)
                break
            except OSError as error:  # the binary is being rewritten by a build: wait for it
                if error.errno != 26 or attempt == 49:
                    raise
                time.sleep(0.2)
        self.calls += 1
        result = Result(argv, p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"))
        self.record(dev, args, result, time.monotonic() - started)
        return result

    def record(self, dev, args, result: Result, seconds: float):
        pass

    # -- setting up

    def setup(self, packages=("*.note",)):
        """Starts the cloud, `concord init`s the first device with it, clones the others."""
        self.init(packages)
        for dev in self.devices[1:]:
            self.clone(dev)

    def init(self, packages=("*.note",)) -> Result:
        """Starts the cloud and `concord init`s the first device with it (`packages`: the package patterns)."""
        self.cloud.start()
        first = self.devices[0]
        package_args = [a for p in packages for a in ("--package", p)]
        return self.must(self.run(None, "init", first.path, "--device", first.name, "--remote", self.cloud.url,
                                  *package_args, env_extra={"CONCORD_DEVICE_ID": first.id, **self.join_env()}), "init")

    def clone(self, dev: Device, env_extra=None) -> Result:
        return self.must(self.run(None, "clone", self.cloud.url, dev.path, "--device", dev.name,
                                  env_extra={"CONCORD_DEVICE_ID": dev.id, **self.join_env(), **(env_extra or {})}), f"clone {dev.name}")

    def join_env(self) -> dict:
        """What init and clone get besides the cloud's env(): an https cloud's credentials."""
        return getattr(self.cloud, "join_env", dict)()

    def must(self, result: Result, what: str = "") -> Result:
        if result.rc != 0:
            raise RuntimeError(f"{what or ' '.join(result.argv[1:])}: exit {result.rc}: "
                               f"{result.first_error_line() or result.text.strip()[:200]}")
        return result

    def close(self):
        self.cloud.stop()

    # -- the operations

    def save(self, dev: Device, doc: str, data: bytes) -> Result:
        return self.run(dev, "save", doc, "--file", "-", stdin=data)

    def sync(self, dev: Device) -> Result:
        return self.run(dev, "sync", "--json")

    def conflicts(self, dev: Device) -> list:
        return self.must(self.run(dev, "conflicts", "--json")).json()

    # -- reading with git

    def head(self, path_or_dev) -> str:
        path = path_or_dev.path if isinstance(path_or_dev, Device) else path_or_dev
        return run_git("-C", path, "rev-parse", "--verify", "--quiet", "refs/heads/main", check=False)

    def tree(self, path_or_dev) -> str:
        path = path_or_dev.path if isinstance(path_or_dev, Device) else path_or_dev
        return run_git("-C", path, "rev-parse", "--verify", "--quiet", "refs/heads/main^{tree}", check=False)

    def cloud_head(self) -> str:
        return run_git("--git-dir", self.cloud.dir, "rev-parse", "--verify", "--quiet", "refs/heads/main", check=False)

    def fsck_all(self) -> list[str]:
        """`git fsck` of every device and the cloud: the problems found, one line each."""
        problems = []
        for label, path in [(d.name, d.path) for d in self.devices] + [("cloud", self.cloud.dir)]:
            if os.path.isdir(path):
                found = git_fsck(path)
                if found:
                    problems.append(f"{label}: git fsck: {found}")
        return problems

    # -- copies

    def snapshot(self, dest: str):
        """Copies the cloud and every device into `dest` (which must not exist)."""
        os.makedirs(dest)
        for path in [self.cloud.dir] + [d.path for d in self.devices]:
            if os.path.exists(path):
                shutil.copytree(path, os.path.join(dest, os.path.relpath(path, self.root)), symlinks=True)

    def restore(self, src: str):
        """Puts back what `snapshot(src)` copied, at the same paths (clones name the cloud by path)."""
        for path in [self.cloud.dir] + [d.path for d in self.devices]:
            shutil.rmtree(path, ignore_errors=True)
            copy = os.path.join(src, os.path.relpath(path, self.root))
            if os.path.exists(copy):
                shutil.copytree(copy, path, symlinks=True)
