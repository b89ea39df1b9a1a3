#!/usr/bin/env python3
"""Many devices, one cloud (issue 41): N devices, each with its sync agent, editing for M minutes.

Run through scripts/bench (which builds the release binary):

  scripts/bench --devices 20                    # 20 devices, 10 minutes, over ssh (sshd on 127.0.0.1)
  scripts/bench --devices 4 --minutes 2 --no-write            # a smoke run
  scripts/bench --devices 20 --edit-interval 12 --cloud daemon

The round:

  setup             a cloud on the --cloud server (servers.py: sshd with keys made for the run by
                    default; also git daemon, https (lighttpd + git http-backend) or a local path);
                    device 0 = `concord init --remote URL` with --shared shared documents
                    (shared/sK.txt) and one own document per device (own/devNN.txt), saved and
                    synced; devices 1..N-1 = `concord clone URL`. Untimed.
  agents            `concord watch --json` on every device, with --agent-interval and --peek-interval
                    (it checks a network cloud's main every second by default). Each agent has its
                    own kept ssh connection (its own XDG_RUNTIME_DIR), as separate machines would, and an `ssh`
                    on its PATH that logs each session's command before running OpenSSH's client:
                    git-receive-pack sessions are the device's push attempts, git-upload-pack its
                    fetches and checks of main. Each event line is stamped when it is read.
  edits             for --minutes, each device's driver writes one edit every --edit-interval
                    seconds (jittered: 0.5x to 1.5x, the devices' first edits spread over one
                    interval): into a shared document with probability --shared-share, else into
                    its own document. An edit replaces the whole file (written beside it, then
                    renamed) with a content no other edit has, so edits to a shared document
                    from two devices make a conflict; nothing resolves them.
  convergence       after the last edit, main of every device and of the cloud is read every
                    0.25 s (the reference files) until all are the same commit and that commit
                    holds every edit's content; converge time = that moment - the last edit.
                    When they are one commit that lacks some edit and it stays so for --settle
                    seconds, the mains converged (converge time = when that commit was first
                    everywhere) and the checks say which edits are missing. --converge-timeout
                    bounds the wait. Cross-check: the agents' last event that follows a move of
                    main (saved, sent, received, new conflict).
  checks            on every device, each edit's content is a version of its document: the
                    edit's blob id (sha1 of its bytes, as git names it) is among the blobs that
                    the non-merge commits of `git log --full-history main -- DOC` wrote for DOC
                    (the document's saves, whatever merges later made current); own documents'
                    files on every device hold their owner's last edit; every device's main is the
                    cloud's. Then `concord conflicts --json` and `concord versions DOC --json` on
                    device 0 (the shared documents' versions in contention).
  figures           per device, from its agent's events and its ssh log: edits, saves, pushes
                    that went up (the `sent` events), push attempts (git-receive-pack sessions;
                    ssh cloud only), pushes lost (attempts - sent: the cloud moved, the sync
                    fetched, integrated and tried again), `failed` events; edit -> sent (the
                    first `sent` event naming the document after the edit: when the edit reached
                    the cloud) and, for own documents, edit -> every device (the last device's
                    first `received` event naming it after the edit). The slowest device's share
                    of successful pushes against the fair 1/N, and against its share of edits.
                    CPU of the agents (each process and the children it waited for: its ssh
                    clients) and of the server (sshd's process tree) over the edits and
                    convergence, from /proc.

Writes benchmarks/devices.json and benchmarks/devices.md (unless --no-write; --name for other names).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402  (run, git_env, loadavg, machine, REPO)
import servers  # noqa: E402  (sshd, git daemon, lighttpd on 127.0.0.1)
from bench import Failed, log, run  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------------------------------
# Small helpers


def blob_id(content: bytes) -> str:
    """The name git gives a blob of these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def read_main(git_dir: Path) -> str | None:
    """main of a repository, read from its reference files (no process)."""
    try:
        return (git_dir / "refs" / "heads" / "main").read_text().strip()
    except FileNotFoundError:
        pass
    try:
        for line in (git_dir / "packed-refs").read_text().splitlines():
            if line.endswith(" refs/heads/main"):
                return line.split()[0]
    except FileNotFoundError:
        pass
    return None


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and its descendants, living or reaped by them (/proc)."""
    total = 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += sum(int(f) for f in fields[11:15]) / TICK  # utime stime cutime cstime
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return total
    return total + sum(tree_cpu(int(c)) for c in children)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def seconds(x: float | None) -> str:
    return "—" if x is None else f"{x:.1f} s"


# ---------------------------------------------------------------------------------------------
# The fleet: a cloud, N devices, their agents


class Device:
    """One clone, its agent, its logs."""

    def __init__(self, fleet: "Fleet", index: int):
        self.fleet, self.index = fleet, index
        self.name = f"dev{index:02d}"
        self.root = fleet.root / self.name
        self.own = f"own/{self.name}.txt"
        self.events_log = fleet.logs / f"{self.name}.events"
        self.ssh_log = fleet.logs / f"{self.name}.ssh"
        self.agent: subprocess.Popen | None = None
        self.reader: threading.Thread | None = None
        self.runtime = None

    def env(self, agent: bool = False) -> dict:
        """Concord's environment; the agent's has its own kept ssh connection and the logging ssh."""
        env = dict(self.fleet.env)
        if self.fleet.server is not None and isinstance(self.fleet.server, servers.SSHServer):
            self.runtime = Path(env["XDG_RUNTIME_DIR"]) / f"d{self.index:02d}"
            self.runtime.mkdir(mode=0o700, exist_ok=True)
            env["XDG_RUNTIME_DIR"] = str(self.runtime)
            if agent:
                env["PATH"] = f"{self.fleet.root / 'bin' / self.name}:{env['PATH']}"
        return env

    def logging_ssh(self) -> None:
        """An `ssh` for the agent's PATH: one line per session (time, remote command), then OpenSSH."""
        folder = self.fleet.root / "bin" / self.name
        folder.mkdir(parents=True, exist_ok=True)
        script = folder / "ssh"
        script.write_text("#!/bin/bash\n"
                          f"printf '%s %s\\n' \"$EPOCHREALTIME\" \"${{@: -1}}\" >> '{self.ssh_log}'\n"
                          "exec /usr/bin/ssh \"$@\"\n")
        script.chmod(0o755)

    def start_agent(self) -> None:
        if isinstance(self.fleet.server, servers.SSHServer):
            self.logging_ssh()
        a = self.fleet.args
        err = open(self.fleet.logs / f"{self.name}.stderr", "ab")
        self.agent = subprocess.Popen(
            [a.concord, "-C", self.root, "watch", "--json", "--interval", str(a.agent_interval), "--peek-interval", str(a.peek_interval)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err, env=self.env(agent=True), start_new_session=True)
        err.close()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        """Copies the agent's event lines to its log, each stamped with the time it was read."""
        with open(self.events_log, "a") as out:
            for line in self.agent.stdout:
                out.write(f"{time.time():.3f} {line.decode(errors='replace')}")
                out.flush()

    def stop_agent(self, wait: float = 60) -> int | None:
        """SIGTERM (the agent ends after its operation under way), SIGKILL after `wait` s."""
        p = self.agent
        if p is None or p.poll() is not None:
            return None if p is None else p.returncode
        try:
            p.send_signal(signal.SIGTERM)
            p.wait(wait)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        if self.reader:
            self.reader.join(5)
        return p.returncode

    def close_ssh(self) -> None:
        """Ends the agent's kept ssh connection (its master), if any."""
        folder = self.runtime / "concord-ssh" if self.runtime else None
        if folder is None or not folder.exists():
            return
        for sock in folder.iterdir():
            subprocess.run(["/usr/bin/ssh", "-o", f"ControlPath={sock}", "-O", "exit", "127.0.0.1"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def events(self) -> list[tuple[float, dict]]:
        out = []
        if self.events_log.exists():
            for line in self.events_log.read_text(errors="replace").splitlines():
                stamp, _, text = line.partition(" ")
                try:
                    out.append((float(stamp), json.loads(text)))
                except ValueError:
                    pass
        return out

    def ssh_sessions(self) -> list[tuple[float, str]]:
        out = []
        if self.ssh_log.exists():
            for line in self.ssh_log.read_text(errors="replace").splitlines():
                stamp, _, command = line.partition(" ")
                out.append((float(stamp), command))
        return out


class Fleet:
    """The cloud's server (or a local path), the cloud, the devices."""

    def __init__(self, args):
        self.args = args
        self.root = Path(args.workdir) / "devices"
        self.logs = Path(args.logs)
        self.server: servers.Server | None = None
        self.devices = [Device(self, i) for i in range(args.devices)]
        self.shared = [f"shared/s{k}.txt" for k in range(args.shared)]
        self.env = dict(bench.ENV)

    def concord(self, *rest) -> list[str]:
        return [self.args.concord, *map(str, rest)]

    def build(self) -> None:
        a = self.args
        run(["rm", "-rf", self.root])
        self.root.mkdir(parents=True)
        self.logs.mkdir(parents=True, exist_ok=True)
        self.cloud = self.root / "cloud.git"
        if a.cloud == "local":
            self.url = str(self.cloud)
        else:
            self.server = servers.start(a.cloud, self.root, self.root / "server")
            self.server.make_bare("cloud.git")
            self.url = self.server.url("cloud.git")
            self.env.update(self.server.concord_env())
        first = self.devices[0]
        bench.ENV = first.env()
        run(self.concord("init", first.root, "--device", first.name, "--remote", self.url))
        for path in self.shared + [d.own for d in self.devices]:
            target = first.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(f"{path}\nthe first version\n")
        run(self.concord("-C", first.root, "save", "--all"))
        run(self.concord("-C", first.root, "sync"))
        for d in self.devices[1:]:
            bench.ENV = d.env()
            run(self.concord("clone", self.url, d.root, "--device", d.name))
        bench.ENV = dict(self.env)
        (self.root / "edits").mkdir()
        log(f"{len(self.devices)} devices on {self.url}")

    def stop(self) -> None:
        """Every agent, their kept ssh connections, the server: whatever state they are in."""
        for d in self.devices:
            try:
                d.stop_agent()
            except Exception as e:  # keep stopping the others
                log(f"{d.name}: {e}")
        for d in self.devices:
            d.close_ssh()
        if self.server is not None:
            self.server.stop()

    def server_cpu(self) -> float | None:
        if self.server is None or self.server.process is None:
            return None
        return tree_cpu(self.server.process.pid)

    def agents_cpu(self) -> float:
        return sum(tree_cpu(d.agent.pid) for d in self.devices if d.agent and d.agent.poll() is None)


# ---------------------------------------------------------------------------------------------
# The edits


class Edit:
    """One whole-file write by one device's driver."""

    def __init__(self, device: Device, document: str, seq: int, t: float):
        self.device, self.document, self.seq, self.time = device, document, seq, t
        self.content = f"{document}\nedit {seq} by {device.name} at {t:.3f}\n".encode()
        self.blob = blob_id(self.content)

    def to_json(self) -> dict:
        return {"device": self.device.name, "document": self.document, "seq": self.seq, "time": round(self.time, 3), "blob": self.blob}


def drive(fleet: Fleet, rng: random.Random) -> list[Edit]:
    """Every device's driver for --minutes: one edit every ~--edit-interval s each."""
    a = fleet.args
    start = time.time()
    end = start + a.minutes * 60
    due = {d.index: start + rng.uniform(0, a.edit_interval) for d in fleet.devices}
    edits: list[Edit] = []
    spare = fleet.root / "edits"
    last_report = start
    while True:
        index = min(due, key=due.get)
        when = due[index]
        if when >= end:
            break
        pause = when - time.time()
        if pause > 0:
            time.sleep(pause)
        d = fleet.devices[index]
        document = rng.choice(fleet.shared) if fleet.shared and rng.random() < a.shared_share else d.own
        edit = Edit(d, document, len(edits), time.time())
        staged = spare / f"{d.name}.tmp"
        staged.write_bytes(edit.content)
        os.replace(staged, d.root / document)
        edits.append(edit)
        due[index] = when + a.edit_interval * rng.uniform(0.5, 1.5)
        if time.time() - last_report >= 60:
            last_report = time.time()
            log(f"{len(edits)} edits, {(last_report - start) / 60:.1f} min; load {bench.loadavg()}")
        dead = [x.name for x in fleet.devices if x.agent.poll() is not None]
        if dead:
            raise Failed(f"agents ended during the edits: {', '.join(dead)} (see {fleet.logs})")
    return edits


def converge(fleet: Fleet, edits: list[Edit], last_edit: float) -> dict:
    """Polls every device's main and the cloud's until all are one commit that holds every edit
    (converged), or are one commit that lacks some edit and stays so for --settle seconds (the
    mains converged, edits are missing: the checks say which), or --converge-timeout passes."""
    a = fleet.args
    wanted = {e.blob for e in edits}
    checked: dict[str, int] = {}   # commit -> edits it lacks
    polls, same_since, same = 0, None, None
    while True:
        polls += 1
        now = time.time()
        heads = [read_main(d.root / ".git") for d in fleet.devices]
        cloud = read_main(fleet.cloud)
        if cloud and all(h == cloud for h in heads):
            if cloud != same:
                same, same_since = cloud, now
            if cloud not in checked:
                objects = run(["git", "-C", fleet.cloud, "rev-list", "--objects", cloud])
                checked[cloud] = len(wanted - {line.split()[0] for line in objects.splitlines() if line})
            if checked[cloud] == 0:
                return {"converged": True, "converge_s": round(now - last_edit, 2), "main": cloud, "polls": polls}
            if now - same_since >= a.settle:
                return {"converged": True, "converge_s": round(same_since - last_edit, 2), "main": cloud, "polls": polls,
                        "edits_missing_from_main": checked[cloud]}
        else:
            same = None
        if now - last_edit > a.converge_timeout:
            distinct = len(set(heads + [cloud]))
            return {"converged": False, "converge_s": None, "after_s": round(now - last_edit, 1),
                    "distinct_mains": distinct, "mains": {d.name: h for d, h in zip(fleet.devices, heads)} | {"cloud": cloud}}
        time.sleep(0.25)


# ---------------------------------------------------------------------------------------------
# Checks and figures


def document_versions(device: Device, document: str) -> set[str]:
    """The blobs the saves of DOC in main's full history wrote for it."""
    out = run(["git", "-C", device.root, "log", "--full-history", "--no-merges", "--raw", "--no-abbrev",
               "--format=", "main", "--", document])
    blobs = set()
    for line in out.splitlines():
        if line.startswith(":"):
            meta, _, path = line.partition("\t")
            if path == document:
                blobs.add(meta.split()[3])
    return blobs


def check(fleet: Fleet, edits: list[Edit]) -> dict:
    """Every edit a version of its document on every device; own documents' files hold the last edit."""
    by_doc: dict[str, list[Edit]] = {}
    for e in edits:
        by_doc.setdefault(e.document, []).append(e)
    cloud = read_main(fleet.cloud)
    missing, stale, off_main = [], [], []
    for d in fleet.devices:
        if read_main(d.root / ".git") != cloud:
            off_main.append(d.name)
        for document, doc_edits in by_doc.items():
            have = document_versions(d, document)
            missing += [f"{d.name}: {e.document} edit {e.seq} by {e.device.name}" for e in doc_edits if e.blob not in have]
        for owner in fleet.devices:
            own = [e for e in by_doc.get(owner.own, [])]
            if own and (d.root / owner.own).read_bytes() != own[-1].content:
                stale.append(f"{d.name}: {owner.own}")
    first = fleet.devices[0]
    conflicts = json.loads(run(fleet.concord("-C", first.root, "conflicts", "--json")) or "[]")
    shared = {}
    for document in fleet.shared:
        contention = json.loads(run(fleet.concord("-C", first.root, "versions", document, "--json")))
        ever = json.loads(run(fleet.concord("-C", first.root, "versions", document, "--all", "--json")))
        shared[document] = {"edits": len(by_doc.get(document, [])), "versions_all": len(ever), "in_contention": len(contention)}
    return {"edits_checked": len(edits) * len(fleet.devices), "missing": missing, "own_not_last": stale,
            "devices_off_cloud_main": off_main, "in_conflict_device0": {c["document"]: c["versions"] for c in conflicts},
            "shared_device0": shared}


def device_figures(fleet: Fleet, edits: list[Edit], start: float, end: float) -> list[dict]:
    """Per device: edits, saves, pushes sent / attempted / lost, failures, edit -> sent."""
    rows = []
    for d in fleet.devices:
        events = [(t, e) for t, e in d.events() if start <= t <= end]
        kinds: dict[str, int] = {}
        for _, e in events:
            kinds[e["event"]] = kinds.get(e["event"], 0) + 1
        sessions = [c for t, c in d.ssh_sessions() if start <= t <= end]
        attempts = sum("git-receive-pack" in c for c in sessions) if fleet.args.cloud == "ssh" else None
        sent = kinds.get("sent", 0)
        mine = [e for e in edits if e.device is d]
        to_cloud = [lag for e in mine if (lag := first_after(events, "sent", e.document, e.time)) is not None]
        failures = [e.get("detail") or "" for _, e in events if e["event"] == "failed"]
        gave_up = sum("kept moving" in f for f in failures)
        rows.append({
            "device": d.name, "edits": len(mine), "saved": kinds.get("saved", 0), "sent": sent,
            "push_attempts": attempts, "pushes_lost": None if attempts is None else max(attempts - sent, 0),
            "fetch_or_check_sessions": sum("git-upload-pack" in c for c in sessions) if attempts is not None else None,
            "received": kinds.get("received", 0), "new_conflict": kinds.get("newConflict", kinds.get("new conflict", 0)),
            "failed": len(failures), "gave_up": gave_up, "failures": sorted(set(failures))[:5],
            "edit_to_sent_p50_s": percentile(to_cloud, 0.5), "edit_to_sent_max_s": max(to_cloud) if to_cloud else None,
            "edits_never_sent": len(mine) - len(to_cloud),
        })
    return rows


def first_after(events: list[tuple[float, dict]], kind: str, document: str, t: float) -> float | None:
    """Seconds from t to the first `kind` event naming `document` after t."""
    for stamp, e in events:
        if stamp >= t and e["event"] == kind and document in e.get("documents", []):
            return stamp - t
    return None


def spread(fleet: Fleet, edits: list[Edit]) -> list[float]:
    """For each own-document edit: seconds until the last other device received it."""
    events = {d.name: d.events() for d in fleet.devices}
    out = []
    for e in edits:
        if e.document != e.device.own:
            continue
        lags = [first_after(events[d.name], "received", e.document, e.time) for d in fleet.devices if d is not e.device]
        if all(lag is not None for lag in lags) and lags:
            out.append(max(lags))
    return out


def summary(fleet: Fleet, rows: list[dict], edits: list[Edit], minutes: float) -> dict:
    n = len(rows)
    sent = sum(r["sent"] for r in rows)
    slowest = min(rows, key=lambda r: r["sent"])
    by_edits = [(r["sent"] / sent) / (r["edits"] / len(edits)) for r in rows if sent and r["edits"]]
    attempts = [r["push_attempts"] for r in rows if r["push_attempts"] is not None]
    lost = [r["pushes_lost"] for r in rows if r["pushes_lost"] is not None]
    return {
        "edits": len(edits), "edits_a_minute": round(len(edits) / minutes, 1),
        "shared_edits": sum(e.document in fleet.shared for e in edits),
        "pushes_sent": sent, "pushes_a_minute": round(sent / minutes, 1),
        "push_attempts": sum(attempts) if attempts else None, "pushes_lost": sum(lost) if lost else None,
        "lost_per_device_median": statistics.median(lost) if lost else None, "lost_per_device_max": max(lost) if lost else None,
        "slowest_device": slowest["device"], "slowest_share": round(slowest["sent"] / sent, 4) if sent else 0,
        "fair_share": round(1 / n, 4),
        "lowest_push_share_over_edit_share": round(min(by_edits), 3) if by_edits else None,
        "fetch_or_check_sessions": sum(r["fetch_or_check_sessions"] for r in rows) if attempts else None,
        "failed_events": sum(r["failed"] for r in rows),
        "syncs_gave_up": sum(r["gave_up"] for r in rows), "gave_up_per_device_max": max(r["gave_up"] for r in rows),
        "edits_never_sent": sum(r["edits_never_sent"] for r in rows),
        "edit_to_sent_max_s": max((r["edit_to_sent_max_s"] or 0) for r in rows),
    }


# ---------------------------------------------------------------------------------------------
# Report


def markdown(data: dict) -> str:
    s, c, chk, cpu = data["summary"], data["convergence"], data["checks"], data["cpu"]
    m = data["machine"]
    n = data["devices"]
    lines = [
        "# Many devices, one cloud (issue 41)", "",
        f"{data['date']} · {m['cpu']} · {m['nproc']} cores · {m['os']}  ",
        f"{m['swift']} · concord {data['source']}, release build  ",
        f"`{data['command']}` · load average {data['load_before']} before, {data['load_after']} after (other work shares the machine)",
        "",
        f"{n} devices, each with its agent (`concord watch --interval {data['agent_interval']} --peek-interval {data.get('peek_interval', 1)}`: "
        f"it checks a network cloud's main every {data.get('peek_interval', 1)} s), "
        f"on one cloud over {data['cloud']}; {data['shared']} shared documents and one own document per device. For "
        f"{data['minutes']} minutes each device wrote an edit every {data['edit_interval']} s on average (jittered 0.5x-1.5x), "
        f"into a shared document {data['shared_share']:.0%} of the time, else into its own: "
        f"{s['edits']} edits, **{s['edits_a_minute']} edits a minute** for the cloud ({s['shared_edits']} into shared documents). "
        "A benchmark, not a test. Definitions and method: `scripts/bench.d/devices.py --help`.", "",
        "## Figures", "", "```text",
        f"  converged (every device's main the cloud's): {converged_words(data)}",
        f"  every edit a version of its document on every device: {'yes' if not chk['missing'] else 'NO, ' + str(len(chk['missing'])) + ' missing'}"
        f" ({chk['edits_checked']} edit x device checks); own documents holding their last edit everywhere: "
        f"{'yes' if not chk['own_not_last'] else 'NO, ' + str(len(chk['own_not_last']))}",
        f"  pushes that went up: {s['pushes_sent']} ({s['pushes_a_minute']} a minute)"
        + (f"; attempts {s['push_attempts']}, lost to a moved cloud {s['pushes_lost']} "
           f"(per device: median {s['lost_per_device_median']}, max {s['lost_per_device_max']}); "
           f"syncs that gave up after 8 attempts {s.get('syncs_gave_up', '?')}" if s["push_attempts"] is not None else ""),
        f"  slowest device's share of successful pushes: {s['slowest_share']:.3f} ({s['slowest_device']}) against a fair 1/{n} = {s['fair_share']:.3f}; "
        f"lowest (share of pushes / share of edits) over devices: {s['lowest_push_share_over_edit_share']}",
        f"  edit -> in the cloud (its device's `sent`): max {s['edit_to_sent_max_s']:.1f} s; edits never sent: {s['edits_never_sent']}; `failed` events: {s['failed_events']}",
        f"  own-document edit -> on every other device: p50 {seconds(data['spread']['p50_s'])}, p90 {seconds(data['spread']['p90_s'])}, "
        f"max {seconds(data['spread']['max_s'])} ({data['spread']['count']} edits)",
        f"  CPU over the edits and convergence ({cpu['wall_s']:.0f} s): agents {cpu['agents_s']:.0f} s ({cpu['agents_s'] / cpu['wall_s']:.2f} cores), "
        + (f"server {cpu['server_s']:.0f} s ({cpu['server_s'] / cpu['wall_s']:.2f} cores), " if cpu.get("server_s") is not None else "")
        + f"whole machine {cpu['machine_busy']:.0%} busy of {m['nproc']} cores",
    ]
    if s.get("fetch_or_check_sessions") is not None and cpu.get("server_s") is not None:
        sessions = s["fetch_or_check_sessions"] + s["push_attempts"]
        lines.append(f"  ssh sessions: {sessions} ({sessions / cpu['wall_s']:.1f} a second: {s['push_attempts']} pushes, "
                     f"{s['fetch_or_check_sessions']} fetches and checks of main); server CPU {1000 * cpu['server_s'] / max(sessions, 1):.0f} ms a session")
    lines += [
        "```", "",
        "## Per device", "",
        "| device | edits | saved | sent | push attempts | lost (cloud moved) | syncs that gave up | fetch/check sessions | received | failed | edit -> sent p50 | max |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in data["per_device"]:
        lines.append(f"| {r['device']} | {r['edits']} | {r['saved']} | {r['sent']} | {r['push_attempts'] if r['push_attempts'] is not None else '—'} "
                     f"| {r['pushes_lost'] if r['pushes_lost'] is not None else '—'} | {r['gave_up']} "
                     f"| {r['fetch_or_check_sessions'] if r['fetch_or_check_sessions'] is not None else '—'} | {r['received']} "
                     f"| {r['failed']} | {seconds(r['edit_to_sent_p50_s'])} | {seconds(r['edit_to_sent_max_s'])} |")
    lines += ["", "Shared documents on device 0 at the end (`concord versions DOC --all` / `concord versions DOC`): "
              + "; ".join(f"{k}: {v['edits']} edits, {v['versions_all']} versions ever (the first included), {v['in_contention']} in contention"
                          for k, v in chk["shared_device0"].items()) + ".", ""]
    if chk["missing"]:
        lost = sorted({m.split(": ", 1)[1] for m in chk["missing"]})
        lines += ["Edits that are a version on no device (each device lacks each of them):", ""] + [f"- {x}" for x in lost[:40]] + [""]
    lines += verdict(data)
    if data.get("notes"):
        lines += ["## Notes", ""] + [f"- {n}" for n in data["notes"]] + [""]
    failures = sorted({f for r in data["per_device"] for f in r["failures"]})
    if failures:
        lines += ["`failed` events (distinct details):", ""] + [f"- {f}" for f in failures[:20]] + [""]
    return "\n".join(lines) + "\n"


def converged_words(data: dict) -> str:
    c, last = data["convergence"], data.get("last_main_event_s")
    after = f"; the agents' last event that follows a move of main came {last} s after the last edit" if last is not None else ""
    if c["converged"]:
        return f"yes, {c['converge_s']} s after the last edit{after}"
    if c.get("distinct_mains") == 1:
        # Runs before --settle: the wait went on for edits that no main would ever hold.
        return f"yes (one commit on every device and in the cloud when the wait ended, {c['after_s']} s after the last edit){after}"
    return f"NO ({c.get('distinct_mains')} distinct mains {c.get('after_s')} s after the last edit){after}"


def verdict(data: dict) -> list[str]:
    """Converged or not, starved or not, and the capacity the run shows (with the host's push limits)."""
    s, c, chk, cpu = data["summary"], data["convergence"], data["checks"], data["cpu"]
    n, per_minute = data["devices"], 60 / data["edit_interval"]
    complete = not chk["missing"] and not chk["own_not_last"]
    starved = [r["device"] for r in data["per_device"] if r["edits_never_sent"] or (r["edits"] and not r["sent"])]
    lines = ["## Verdict", ""]
    head, _, rest = converged_words(data).partition(" ")
    lines.append(f"- **Converged: {head.rstrip(',')}**{',' if head.endswith(',') else ''} {rest}; "
                 f"every edit a version of its document on every device: **{'yes' if complete else 'NO'}**"
                 + ("." if complete else f": {len({m.split(': ', 1)[1] for m in chk['missing']})} edits are no device's version "
                    "(listed below)."))
    lines.append(f"- **Starvation: {'none' if not starved else 'YES: ' + ', '.join(starved)}**: "
                 f"every device's edits reached the cloud (worst wait {s['edit_to_sent_max_s']:.1f} s from edit to its `sent`); "
                 f"the slowest device had {s['slowest_share']:.1%} of the successful pushes against a fair {s['fair_share']:.1%} "
                 f"(its share of the edits: the lowest ratio of push share to edit share is {s['lowest_push_share_over_edit_share']}).")
    if s["push_attempts"]:
        lines.append(f"- **Races**: {s['pushes_lost']} of {s['push_attempts']} push attempts ({s['pushes_lost'] / s['push_attempts']:.0%}) "
                     f"found the cloud moved; the sync then fetched, integrated and tried again, up to 8 attempts. "
                     + (f"{s['syncs_gave_up']} syncs gave up after 8 attempts (at most {s['gave_up_per_device_max']} on one device; "
                        "the agent's `failed` event: \"the cloud kept moving\"), and the agent synced again after its backoff."
                        if s["syncs_gave_up"] else "No sync gave up."))
    lines += ["", "## Capacity", "",
              f"This run: one cloud took **{n} devices × {per_minute:.1f} edits a minute = {s['edits_a_minute']} edits "
              f"and {s['pushes_a_minute']} successful pushes a minute** "
              + ("and converged" if converged_words(data).startswith("yes") else "and did NOT converge")
              + f", with the server and all {n} agents on the same {data['machine']['nproc']} cores "
              f"({cpu['machine_busy']:.0%} busy" + (f"; the server alone {cpu['server_s'] / cpu['wall_s']:.2f} cores" if cpu.get("server_s") is not None else "")
              + ").",
              "",
              "Every agent sync that sends is one push: the agent saves an edit once edits pause (200 ms; at most 5 s) and "
              "syncs, so a fleet's push rate is about its edit rate, less the edits one save batches together (a save "
              "that waits for a sync under way takes every edit made meanwhile), plus the pushes lost to a moved cloud and "
              "tried again. A git host's limits apply to those rates. GitHub's repository limits recommend at most 6 pushes a "
              "minute per repository: one container on GitHub holds about 6 saves a minute from its whole fleet (20 devices "
              "saving once every 3 to 4 minutes each), well below what the self-hosted cloud took here; a busier fleet needs a "
              "cloud of its own or one container per group of documents. The same page recommends at most 15 read "
              "operations (fetch, clone) a second per repository, and every agent checks main every second (one "
              "upload-pack session each, sending nothing): 15 devices already reach that. GitLab (self-managed) limits git "
              "operations over ssh to 600 a minute per user and project by default: 10 devices sharing one account's key, "
              "checking every second, reach it.", ""]
    return lines


# ---------------------------------------------------------------------------------------------


def figures(fleet: Fleet, edits: list[Edit], data: dict) -> None:
    """The per-device figures, the summary and the spread, from the agents' logs."""
    start, end = data["window"]
    rows = device_figures(fleet, edits, start, end)
    data["per_device"] = rows
    data["summary"] = summary(fleet, rows, edits, data["minutes"])
    lags = spread(fleet, edits)
    data["spread"] = {"count": len(lags), "p50_s": percentile(lags, 0.5), "p90_s": percentile(lags, 0.9),
                      "max_s": max(lags) if lags else None}
    moves = [t for d in fleet.devices for t, e in d.events() if start <= t <= end and e["event"] in MOVES_MAIN]
    data["last_main_event_s"] = round(max(moves) - edits[-1].time, 2) if moves else None


MOVES_MAIN = {"saved", "sent", "received", "newConflict", "resolved", "autoResolved"}   # events that follow a move of main


def render(args) -> int:
    """--render: the figures and the report again, from a devices.json and the logs it names (with the
    `notes` someone added to it: a list of paragraphs, printed as the report's Notes)."""
    data = json.loads(Path(args.render).read_text())
    if "window" not in data:  # runs before the window was recorded: it ended as the convergence did
        end = data["edits"][-1]["time"] + (data["convergence"]["converge_s"] or data["convergence"].get("after_s", 0))
        data["window"] = [end - data["cpu"]["wall_s"], end]
    args.devices, args.shared, args.logs, args.cloud = data["devices"], data["shared"], data["logs"], data["cloud"]
    fleet = Fleet(args)
    by_name = {d.name: d for d in fleet.devices}
    edits = []
    for item in data["edits"]:
        e = Edit(by_name[item["device"]], item["document"], item["seq"], item["time"])
        e.blob = item["blob"]
        edits.append(e)
    figures(fleet, edits, data)
    md = markdown(data)
    print(md)
    if not args.no_write:
        Path(args.render).write_text(json.dumps(data, indent=1) + "\n")
        Path(args.render).with_suffix(".md").write_text(md)
    return 0


def machine_busy() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine from /proc/stat."""
    fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--concord", default="concord", help="the concord binary (scripts/bench gives it)")
    p.add_argument("--source", default="unknown", help="what the binary was built from (for the report)")
    p.add_argument("--devices", type=int, default=20, metavar="N", help="devices, each with its agent (default 20)")
    p.add_argument("--minutes", type=float, default=10, help="minutes of edits (default 10)")
    p.add_argument("--edit-interval", type=float, default=24, metavar="SECONDS",
                   help="seconds between one device's edits, on average (default 24: 2.5 a minute per device)")
    p.add_argument("--shared", type=int, default=3, help="shared documents (default 3)")
    p.add_argument("--shared-share", type=float, default=0.25, metavar="P",
                   help="the part of a device's edits that go into a shared document (default 0.25)")
    p.add_argument("--agent-interval", type=float, default=30, metavar="SECONDS", help="the agents' --interval (default 30)")
    p.add_argument("--peek-interval", type=float, default=1, metavar="SECONDS",
                   help="the agents' --peek-interval: how often each checks a network cloud's main (default 1, the agent's own)")
    p.add_argument("--cloud", choices=["ssh", "daemon", "https", "local"], default="ssh", help="the cloud's transport (default ssh)")
    p.add_argument("--converge-timeout", type=float, default=600, metavar="SECONDS",
                   help="how long to wait for convergence after the last edit (default 600)")
    p.add_argument("--settle", type=float, default=60, metavar="SECONDS",
                   help="when every main is one commit that lacks some edit: how long it must stay so to end the wait (default 60)")
    p.add_argument("--seed", type=int, default=41, help="the drivers' random seed")
    p.add_argument("--workdir", default=str(bench.REPO / "benchmarks" / "tmp"))
    p.add_argument("--logs", default=None, help="the agents' event and ssh logs (default /tmp/concord-devices-TIME)")
    p.add_argument("--out", default=str(bench.REPO / "benchmarks"), help="where NAME.json and NAME.md go")
    p.add_argument("--name", default="devices", help="the report's file names under --out: NAME.json, NAME.md (default devices)")
    p.add_argument("--no-write", action="store_true", help="print the report only")
    p.add_argument("--keep", action="store_true", help="keep the devices and the cloud under --workdir")
    p.add_argument("--render", metavar="JSON", help="no run: the figures and the report again from a devices.json "
                   "and the agents' logs it names (written beside it unless --no-write)")
    args = p.parse_args()
    if args.devices < 2:
        p.error("--devices takes 2 or more")
    args.concord = str(Path(args.concord).resolve())
    args.workdir = str(Path(args.workdir).resolve())
    args.logs = args.logs or f"/tmp/concord-devices-{time.strftime('%Y%m%d-%H%M%S')}"
    return args


def main() -> int:
    args = parse_args()
    if args.render:
        return render(args)
    Path(args.workdir).mkdir(parents=True, exist_ok=True)
    Path(args.workdir, "gitconfig").write_text("[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n")
    bench.ENV = bench.git_env(Path(args.workdir))
    data = {"command": os.environ.get("BENCH_COMMAND") or "scripts/bench.d/devices.py " + " ".join(sys.argv[1:]),
            "source": args.source, "date": time.strftime("%Y-%m-%d %H:%M %Z"), "load_before": bench.loadavg(),
            "machine": bench.machine(args), "devices": args.devices, "minutes": args.minutes,
            "edit_interval": args.edit_interval, "shared": args.shared, "shared_share": args.shared_share,
            "agent_interval": args.agent_interval, "peek_interval": args.peek_interval, "cloud": args.cloud, "seed": args.seed, "logs": args.logs}
    fleet = Fleet(args)
    # SIGTERM as SIGINT: the cleanup below runs either way.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        log(f"setup: {args.devices} devices, cloud {args.cloud}")
        fleet.build()
        for d in fleet.devices:
            d.start_agent()
        time.sleep(3)
        log(f"agents watching; {args.minutes} min of edits, logs in {args.logs}")
        start = time.time()
        cpu0 = (fleet.agents_cpu(), fleet.server_cpu(), machine_busy())
        edits = drive(fleet, random.Random(args.seed))
        last_edit = edits[-1].time
        log(f"{len(edits)} edits; waiting for convergence")
        data["convergence"] = converge(fleet, edits, last_edit)
        end = time.time()
        cpu1 = (fleet.agents_cpu(), fleet.server_cpu(), machine_busy())
        log(f"convergence: {data['convergence']}")
        data["load_after"] = bench.loadavg()
        exits = {d.name: d.stop_agent() for d in fleet.devices}
        data["agent_exits"] = {k: v for k, v in exits.items() if v not in (0, None)}
        log("checking every device")
        data["checks"] = check(fleet, edits)
        busy = (cpu1[2][0] - cpu0[2][0]) / max(cpu1[2][1] - cpu0[2][1], 1)
        data["cpu"] = {"wall_s": round(end - start, 1), "agents_s": round(cpu1[0] - cpu0[0], 1),
                       "server_s": None if cpu0[1] is None else round(cpu1[1] - cpu0[1], 1), "machine_busy": round(busy, 3)}
        data["window"] = [round(start, 3), round(end, 3)]
        data["edits"] = [e.to_json() for e in edits]
        figures(fleet, edits, data)
    except KeyboardInterrupt:
        log("interrupted: stopping the agents and the server")
        return 130
    finally:
        fleet.stop()
    md = markdown(data)
    print(md)
    if not args.no_write:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / f"{args.name}.json").write_text(json.dumps(data, indent=1) + "\n")
        (Path(args.out) / f"{args.name}.md").write_text(md)
    if not args.keep:
        run(["rm", "-rf", fleet.root])
    return 0


if __name__ == "__main__":
    bench.exit_with(main)
