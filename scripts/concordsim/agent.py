"""A sync agent (`concord watch --json`) on one simulated device, and a slow writer beside it.

The random simulation's slow-writer step (simulation.py, `Simulation.slow_writer`) starts an agent,
has a writer process write a document in chunks through one open file, waits for the agent to
save and sync it, and stops the agent. Every wait is bounded: past its time-out the run fails
with what was awaited, the agent's events so far and the end of its standard error.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from .world import InvariantFailure

# How long any one thing the agent or the writer should do may take before the run fails
# (generous: the machine may be loaded; a passing step takes a few seconds in all).
AGENT_WAIT = 90.0

# The writer: makes the file's folders when missing and opens the file at once (created, or cut
# to nothing), writes each chunk `pause` seconds apart through that one descriptor, waits `pause`
# once more and closes it. The chunks come on standard input, hex, one a line.
WRITER = """\
import os, sys, time
path, pause = sys.argv[1], float(sys.argv[2])
chunks = [bytes.fromhex(line) for line in sys.stdin.read().split()]
os.makedirs(os.path.dirname(path), exist_ok=True)
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
for chunk in chunks:
    view = memoryview(chunk)
    while view:
        view = view[os.write(fd, view):]
    time.sleep(pause)
os.close(fd)
"""


class AgentFailure(InvariantFailure):
    def __init__(self, message: str):
        super().__init__("slow writer", message)


class Agent:
    """`concord -C DEV watch --json` running on one device; its events read from the file its
    standard output goes to."""

    def __init__(self, world, dev, folder: str):
        self.world, self.dev = world, dev
        os.makedirs(folder, exist_ok=True)
        self.out_path = os.path.join(folder, f"agent-{dev.name}.jsonl")
        self.err_path = os.path.join(folder, f"agent-{dev.name}.err")
        # --interval: no periodic sync while the step runs (only the first one and those after
        # saves); --peek-interval 0: a network cloud's main is not checked between syncs.
        argv = world.argv(dev, "watch", "--json", "--interval", "3600", "--peek-interval", "0")
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                            env=world.command_env(dev), cwd=world.root)
        self.code = None

    def events(self, kind: str | None = None, doc: str | None = None) -> list:
        """The events printed so far (a line not finished yet is left for the next call)."""
        with open(self.out_path, "rb") as f:
            data = f.read()
        events = []
        for line in data.split(b"\n")[:-1]:
            try:
                events.append(json.loads(line))
            except ValueError:
                raise AgentFailure(f"{self.dev.name}: concord watch --json printed a line that is not JSON: "
                                   f"{line[:200]!r}")
        return [e for e in events if (kind is None or e.get("event") == kind)
                and (doc is None or doc in e.get("documents", []))]

    def describe(self) -> str:
        """The agent's events so far and the end of its standard error, for a failure message."""
        events = "; ".join(f"{e.get('event')} {', '.join(e.get('documents', []))}".strip()
                           + (f" ({e['detail']})" if e.get("detail") else "") for e in self.events())
        with open(self.err_path, "rb") as f:
            err = f.read().decode("utf-8", "replace").strip()
        return f"its events: {events or 'none'}" + (f"; its standard error ends: {err[-300:]}" if err else "")

    def wait(self, condition, what: str, seconds: float = AGENT_WAIT, writer=None):
        """Waits until `condition()` holds; fails the run when the agent exits, reports a failure,
        or `seconds` pass first."""
        deadline = time.monotonic() + seconds
        while True:
            failed = self.events("failed")
            if failed:
                raise AgentFailure(f"{self.dev.name}: the agent reported a failure while the run waited for it to "
                                   f"{what}: {failed[0].get('detail')}; {self.describe()}")
            if writer is not None and writer.poll() not in (None, 0):
                raise AgentFailure(f"{self.dev.name}: the slow writer exited {writer.returncode} "
                                   f"({writer.stderr.read().decode('utf-8', 'replace').strip()[:200]})")
            if condition():
                return
            if self.process.poll() is not None:
                raise AgentFailure(f"{self.dev.name}: the agent exited ({self.process.returncode}) while the run "
                                   f"waited for it to {what}; {self.describe()}")
            if time.monotonic() >= deadline:
                raise AgentFailure(f"{self.dev.name}: timed out after {seconds:.0f} s waiting for the agent to "
                                   f"{what}; {self.describe()}")
            time.sleep(0.05)

    def stop(self):
        """SIGTERM, then waits for the agent to end (it finishes the operation under way); it
        must exit 0."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.code = self.process.wait(AGENT_WAIT)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AgentFailure(f"{self.dev.name}: the agent did not stop within {AGENT_WAIT:.0f} s of SIGTERM; "
                               f"{self.describe()}")
        self.world.calls += 1
        self.world.transcript.append(f"{self.dev.name}: concord watch --json (the agent, stopped by SIGTERM) -> {self.code}")
        if self.code != 0:
            raise AgentFailure(f"{self.dev.name}: the agent exited {self.code} on SIGTERM, expected 0; {self.describe()}")

    def kill(self):
        """Ends the agent at once (after a failure), and waits for it."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def start_writer(path: str, chunks: list, pause: float) -> subprocess.Popen:
    """A process that makes the folders of `path` when missing, writes `chunks` (bytes) to it
    through one open file, `pause` seconds after each, then closes it and exits 0."""
    writer = subprocess.Popen([sys.executable, "-c", WRITER, path, str(pause)], stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    writer.stdin.write("".join(chunk.hex() + "\n" for chunk in chunks).encode())
    writer.stdin.close()
    return writer


def file_stamp(path: str):
    """What changes when a file is rewritten or replaced (inode, size, modification time), or None."""
    try:
        s = os.stat(path)
    except FileNotFoundError:
        return None
    return (s.st_ino, s.st_size, s.st_mtime_ns)
