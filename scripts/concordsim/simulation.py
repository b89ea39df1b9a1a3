"""The seeded random simulation: N devices, random steps, the oracle checked after every step.

A step is a dict (`{"op": "save", "dev": 0, "doc": ..., "text": ...}`), so that a run can be
written down, replayed and shortened. `Simulation.choose` draws the next step from the seed;
`Simulation.execute` plays one step on the devices, tells the oracle what happened (the new
commits' ids and clocks), and compares the devices the step touched with the oracle's model.
"""

from __future__ import annotations

import fnmatch
import json
import os
import random
import re
import shutil
import subprocess
import time

from .agent import Agent, AgentFailure, file_stamp, start_writer
from .content import (content_key, decode_content, describe_content, describe_key, encode_content, scratch_names,
                      version_keys, work_tree_docs)
from .fixture import blob_id, run_git
from .hostile import ALL_ATTACKS, HostileCloud, names_the_commit
from .oracle import UNKNOWN, Checker, Oracle, OracleFailure, commit_info
from .timeline import Timeline
from .world import InvariantFailure, SimDevice, World

# Documents whose conflicts resolve on their own (.concord/policies, set at the start of every
# run): an app's state file kept by latest-wins, and a shared log merged as text (or left for a
# person when the merge clashes).
AUTO_RULES = [("app/state.txt", "latest"), ("shared/*.txt", "text")]
AUTO_DOCS = ["app/state.txt", "shared/log.txt"]
TEXT_DOCS = ["note.txt", "todo.md", "journal.txt", "ideas/plan.txt", "lists/groceries.txt", "recipes/bread.md",
             "notes/café au lait.txt", "empty.txt"] + AUTO_DOCS
PACKAGE_DOCS = ["sketch.note", "trip.note"]
# Names a device turns from a file into a folder of notes and back (issue 38): the only names that
# are a file on one device and a folder on another.
FLIP_DOCS = ["plans", "inbox"]
# Where renamed documents go (a folder no other name uses, so that a rename never makes a clash).
RENAMED = "renamed"
WORDS = ("apple bread cloud delta echo fig grape harbor island juniper kite lemon mango nectar "
         "olive pepper quince river salt tulip umber violet walnut yarrow zest").split()
# Slow writers (issue 38): a document written in chunks through one open file while `concord watch`
# runs, each chunk followed by this pause (seconds): longer than the agent's quiet period (0.2 s),
# so that it looks at the file while its writer still has it open.
SLOW_PAUSE = 0.4
SKEWS = [0, 0, 0, 90, -90, 3600, -3600, 86400, -86400, 7 * 86400]
DRIFT_MS = 30 * 86400 * 1000  # a clock further ahead than this is not followed (HybridLogicalClock.maximumDrift)


class Stats:
    def __init__(self):
        self.saves = self.syncs = self.conflicts = self.resolutions = 0
        self.deletions = self.offline = self.needs_person = self.twins = self.quiet = 0
        self.auto_resolved = self.auto_left = 0
        self.checks = 0
        self.gcs = self.hostile = self.scratch = 0
        self.renames = self.flips = 0
        self.slow = 0
        self.slow_seconds = 0.0

    def summary(self):
        return (f"{self.saves} saves, {self.syncs} syncs, {self.conflicts} conflicts, {self.resolutions} resolutions, "
                f"{self.auto_resolved} resolved on their own" + (f" ({self.auto_left} left by their rule for a person)" if self.auto_left else ""))


def auto_policy(doc: str):
    """The policy of the rule that resolves `doc` on its own (AUTO_RULES, first match), or None."""
    for pattern, policy in AUTO_RULES:
        if fnmatch.fnmatchcase(doc, pattern) and doc.count("/") == pattern.count("/"):
            return policy
    return None


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
    if op == "gc":
        return f"{who} gc"
    if op == "hostile":
        return f"the cloud turns hostile ({step['attack']}), {who} syncs and must refuse it, the cloud is repaired"
    if op == "scratch":
        return (f"an editor writes {step['file']} on {who}, then save --all"
                + (", and removes it" if step["remove"] else " (left behind)"))
    if op == "mv":
        return f"{who} mv {step['doc']} {step['new']}"
    if op == "workmv":
        return f"{who} renames {step['doc']} to {step['new']} in the work tree, then save --all"
    if op == "flip":
        what = f"a folder of {len(step['files'])} notes" if step["to"] == "folder" else "a file"
        return f"{who} makes {step['doc']} {what}, then save --all"
    if op == "slow":
        return (f"{who} runs concord watch while a writer writes {step['doc']} in {len(step['cuts']) + 1} chunks "
                f"({describe_content(decode_content(step))})")
    return json.dumps(step)


class Simulation:
    """Plays steps on a fresh world. In `generate` mode it also chooses the steps (seeded).

    With the oracle (the default, and always except with --chaos, whose racing syncs have no
    predictable order), every step is followed by a comparison of the devices it touched with
    the model: conflicts, documents, work tree, every version of every document that changed,
    each version's content read on that device; and, after a sync, its report and the cloud."""

    def __init__(self, args, root, ndev, seed, verbose=False, checks=True, twins=True, light=False):
        self.args = args
        self.root = root
        self.world = World(args.concord, root, ndev, cloud_kind=args.cloud)
        self.rng = random.Random(seed)
        self.stats = Stats()
        self.timeline = Timeline(self.world.devices)
        self.verbose = verbose
        self.checks = checks
        self.twins = twins
        self.steps = []
        self.paths_before = set()  # the work tree's paths before the resolution under way
        self.policies = None
        self.names = [d.name for d in self.world.devices]
        self.use_oracle = not getattr(args, "chaos", False) and not getattr(args, "no_oracle", False)
        self.oracle = Oracle(self.world.devices, [d.id for d in self.world.devices]) if self.use_oracle else None
        self.checker = Checker(self.world, self.oracle) if self.use_oracle else None
        if self.checker:
            self.checker.strict = getattr(args, "strict", False)
            self.checker.light = light
        # debug builds compare every extension of the history index with a rebuild, and write
        # each difference to this file (checked after every step)
        self.history_check = None if getattr(args, "no_history_check", False) else os.path.join(root, "history-index-check")
        if self.history_check:
            self.world.env["CONCORD_CHECK_HISTORY_INDEX"] = self.history_check

    def say(self, text):
        if self.verbose:
            print(text, flush=True)

    def setup(self):
        self.world.setup()
        # The rules that resolve on their own, set on the first device and received by the
        # others before anything else happens (the oracle starts from there).
        rules = "".join(f"{pattern} {policy} auto\n" for pattern, policy in AUTO_RULES)
        first = self.world.devices[0]
        self.world.expect(self.world.run(first, "policies", "--file", self.world.tmpfile(rules.encode())), what="policies")
        for dev in self.world.devices:
            self.world.expect(self.world.sync(dev)[0], what=f"{dev.name} sync of the rules")
        result = self.world.run(self.world.devices[0], "resolve", "x", "--merge", "--policy", "?")
        known = result.err.split("(known:", 1)[1].rsplit(")", 1)[0] if "(known:" in result.err else "latest, text"
        self.policies = [p.strip() for p in known.split(",") if p.strip()]
        if self.oracle:
            self.oracle.flip_paths = set(FLIP_DOCS)
            head = self.world.cloud_head()
            for dev in self.world.devices:
                if self.world.head(dev) != head:
                    raise InvariantFailure("clone", f"{dev.name} joined at {self.world.head(dev)[:10]}, the cloud is at {head[:10]}")
            self.oracle.start(head)
            self.oracle.clocks[head] = commit_info(self.world.devices[0].path, head)[0]

    def conflicts_of(self, dev) -> list:
        """The documents in conflict on `dev`: the model's (checked equal to the device's after
        every step), or without the oracle what its last sync or resolution reported."""
        if self.oracle:
            return self.oracle.devices[dev.index].in_conflict()
        return sorted(dev.conflicts)

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
        if r < 0.04:
            return self.choose_scratch(dev)
        if 0.33 <= r < 0.36:
            return self.choose_slow(dev)
        if r < 0.36:
            if rng.random() < 0.12:
                return self.choose_name_change(dev)
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
        if r < 0.72:
            return {"op": "skew", "dev": dev.index, "skew": rng.choice(SKEWS)}
        if r < 0.735:
            return {"op": "gc", "dev": dev.index}
        if r < 0.75:
            return {"op": "outage", "on": not self.world.outage}
        if r < 0.93:
            conflicts = self.conflicts_of(dev)
            if not conflicts:
                return self.choose_save(dev, 0.5)
            if rng.random() < 0.08:
                return {"op": "resolve-all", "dev": dev.index, "how": rng.choice(["--latest", "--merge", "--keep-both"])}
            doc = rng.choice(conflicts)
            return {"op": "resolve", "dev": dev.index, "doc": doc, "how": self.choose_how(doc)}
        if r < 0.95:
            online = [d.index for d in devs if not d.airplane]
            if online and not self.world.outage:
                return {"op": "hostile", "dev": rng.choice(online), "attack": rng.choice(ALL_ATTACKS)}
            return self.choose_save(dev, 0.5)
        # concurrent resolutions: two devices resolve the same conflict differently, then sync
        other = rng.choice([d for d in devs if d is not dev])
        shared = sorted(set(self.conflicts_of(dev)) & set(self.conflicts_of(other)))
        if not shared:
            return self.choose_save(dev, 0.5)
        doc = rng.choice(shared)
        return {"op": "resolve2", "devs": [dev.index, other.index], "doc": doc,
                "how": [self.choose_how(doc), self.choose_how(doc)]}

    def choose_save(self, dev, r):
        rng = self.rng
        docs = self.world.work_tree_docs(dev)
        if rng.random() < 0.2:
            # a document whose conflicts resolve on their own: edited on several devices often
            doc = rng.choice(AUTO_DOCS)
            content = self.edit_text(docs[doc]) if doc in docs else self.new_text(doc)
            return {"op": "save", "dev": dev.index, "doc": doc, **encode_content(content)}
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

    def choose_scratch(self, dev):
        """An editor's or a system's temporary file beside a document of `dev` (`.note.txt.swp`,
        `4913`, `.~lock.note.txt#`, ...), written, then `save --all`; half the time the editor then
        removes it, else it stays in the work tree for every later step."""
        rng = self.rng
        docs = sorted(self.world.work_tree_docs(dev)) or TEXT_DOCS
        name = rng.choice(scratch_names(rng.choice(docs)))
        text = f"{' '.join(rng.choice(WORDS) for _ in range(4))}\n"
        return {"op": "scratch", "dev": dev.index, "file": name, "text": text, "remove": rng.random() < 0.5}

    @staticmethod
    def slow_candidate(doc) -> bool:
        """A document a slow writer may write: a text file that is not empty by design, resolves
        no conflict on its own (an agent's sync could then resolve it, which the step does not
        model) and lies under no name that turns into a folder or back."""
        return (not doc.endswith(".note") and doc != "empty.txt" and doc not in AUTO_DOCS
                and doc.split("/")[0] not in FLIP_DOCS)

    def choose_slow(self, dev):
        """A writer writes a document of `dev` (an existing one not in conflict, or a new one) in 3 or
        4 chunks while `concord watch` runs (`slow_writer`)."""
        rng = self.rng
        docs = self.world.work_tree_docs(dev)
        conflicts = set(self.conflicts_of(dev))
        existing = sorted(d for d in docs if self.slow_candidate(d) and d not in conflicts and isinstance(docs[d], bytes))
        new = [d for d in TEXT_DOCS if d not in docs and self.slow_candidate(d)]
        if new and (not existing or rng.random() < 0.3):
            doc = rng.choice(new)
            content = self.new_text(doc)
        elif existing:
            doc = rng.choice(existing)
            content = self.edit_text(docs[doc])
            if content == docs[doc] or not content:
                content += f"added: {' '.join(rng.choice(WORDS) for _ in range(3))}\n".encode()
        else:
            return self.choose_save(dev, 0.5)
        cuts = sorted(rng.sample(range(1, len(content)), min(rng.randint(2, 3), len(content) - 1)))
        return {"op": "slow", "dev": dev.index, "doc": doc, **encode_content(content), "cuts": cuts}

    def choose_name_change(self, dev):
        """A document renamed (`concord mv`, or rename(2) then `save --all`), or a name of
        FLIP_DOCS turned from a file into a folder of notes or back (then `save --all`)."""
        rng = self.rng
        if rng.random() < 0.4:
            doc = rng.choice(FLIP_DOCS)
            path = os.path.join(dev.path, doc)
            to = "file" if os.path.isdir(path) else "folder" if os.path.isfile(path) else rng.choice(["file", "folder"])
            if to == "folder":
                names = ["a.txt", "b.txt"][:rng.randint(1, 2)]
                return {"op": "flip", "dev": dev.index, "doc": doc, "to": "folder",
                        "files": {n: self.new_text(f"{doc}/{n}").decode() for n in names}}
            return {"op": "flip", "dev": dev.index, "doc": doc, "to": "file", "files": {}, "text": self.new_text(doc).decode()}
        docs = sorted(d for d in self.world.work_tree_docs(dev) if d not in FLIP_DOCS)
        if not docs:
            return self.choose_save(dev, 0.5)
        doc = rng.choice(docs)
        stem, ext = os.path.splitext(os.path.basename(doc))
        new = f"{RENAMED}/{stem}-{rng.randrange(1000)}{ext}"
        return {"op": "mv" if rng.random() < 0.5 else "workmv", "dev": dev.index, "doc": doc, "new": new}

    def choose_how(self, doc):
        rng = self.rng
        if rng.random() < 0.1:
            return "--keep-both"
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

    # -- the oracle's side of a step

    def check(self, dev, docs, full=False):
        """Compares `dev` with the model (every document in `docs`; all with `full`)."""
        if self.checker and self.checks:
            self.stats.checks += 1
            self.checker.device(dev, docs, full=full)

    def new_commit(self, dev, cid, parents, what):
        """A commit the model expects: its parents as predicted, and a hybrid logical clock
        greater than its parents' and not behind the device's wall clock. Returns the clock."""
        clock, real_parents = commit_info(dev.path, cid)
        if real_parents != parents:
            raise OracleFailure("history", f"{dev.name}: {what} made commit {cid[:7]} with parents "
                                f"{[p[:7] for p in real_parents]}, the model expects {[p[:7] for p in parents]}")
        if clock is None:
            raise OracleFailure("clock", f"{dev.name}: {what} made commit {cid[:7]} without a Concord-Clock")
        wall = int(self.world.device_time(dev) * 1000)
        seen = max((self.oracle.clocks.get(p) or (0, 0) for p in parents), default=(0, 0))
        if clock <= seen and seen[0] <= wall + DRIFT_MS:
            raise OracleFailure("clock", f"{dev.name}: {what} made commit {cid[:7]} with clock {clock}, not after "
                                f"its parents' {seen}")
        if clock[0] < wall - 2:
            raise OracleFailure("clock", f"{dev.name}: {what} made commit {cid[:7]} with clock {clock[0]}, behind "
                                f"the device's wall clock {wall}")
        return clock

    def docs_changed(self, before, after) -> set:
        """Documents whose current version, contention or versions differ between two replicas."""
        o = self.oracle
        docs = {d for d in set(before.current) | set(after.current)
                if before.current.get(d) != after.current.get(d) or before.contenders.get(d) != after.contenders.get(d)}
        new = after.hist - before.hist
        if new:
            docs |= {doc for (doc, vid) in o.versions if vid in new}
        return docs

    # -- executing a step (both modes)

    def execute(self, step, index):
        """Runs one step. Returns False when its precondition no longer holds (replays only).
        Then, in debug builds, every history index the step extended must equal one rebuilt
        from scratch (CONCORD_CHECK_HISTORY_INDEX: concord appends each difference to a file)."""
        done = self.execute_step(step, index)
        if self.history_check and os.path.exists(self.history_check) and os.path.getsize(self.history_check):
            text = open(self.history_check, encoding="utf-8", errors="replace").read()
            os.remove(self.history_check)
            raise InvariantFailure("history index", f"step {index} ({short_step(step, self.names)}): an extended "
                                   f"history index differs from a rebuilt one: {text.strip()[:600]}")
        return done

    def execute_step(self, step, index):
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
            self.save(dev, step["doc"], decode_content(step), index, step)
        elif op == "rm":
            if step["doc"] not in world.work_tree_docs(dev):
                return False
            self.save(dev, step["doc"], None, index, step)
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
            return self.resolve_all(dev, step["how"], index, step)
        elif op == "gc":
            self.gc(dev, index, step)
        elif op == "hostile":
            return self.hostile(dev, step["attack"], index, step)
        elif op == "scratch":
            self.scratch(dev, step, index)
        elif op in ("mv", "workmv"):
            return self.rename(dev, step, index)
        elif op == "flip":
            self.flip(dev, step, index)
        elif op == "slow":
            return self.slow_writer(dev, step, index)
        else:
            raise ValueError(f"unknown step {step}")
        return True

    def save(self, dev, doc, content, index, step):
        """A save (content bytes or package) or, with content None, `concord rm`."""
        world, o = self.world, self.oracle
        key = content_key(content)
        head = world.head(dev) if o else None
        if content is None:
            result = world.expect(world.run(dev, "rm", doc), what=f"{dev.name} rm {doc}")
            self.stats.deletions += 1
            self.timeline.add(dev.index, "delete", short_step(step, self.names))
        else:
            result = world.save(dev, doc, content)
            world.expect(result, what=f"{dev.name} save {doc}")
            self.stats.saves += 1
            self.timeline.add(dev.index, "save", short_step(step, self.names))
        self.say(f"{index:4d} {short_step(step, self.names)}" + (": unchanged" if "unchanged" in result.text else ""))
        if not o:
            return
        new = world.head(dev)
        if o.predict_save(dev.index, doc, key):
            if new == head:
                raise OracleFailure("save", f"{dev.name}: {short_step(step, self.names)} made no new version "
                                    f"({result.text.strip()[:100]}); its content differs from the current one")
            clock = self.new_commit(dev, new, [head], f"{'rm' if content is None else 'save'} {doc}")
            o.saved(dev.index, doc, key, new, clock, kind="rm" if content is None else "save")
        elif new != head:
            raise OracleFailure("save", f"{dev.name}: {short_step(step, self.names)} made commit {new[:7]} though "
                                f"the content is already the current version")
        self.check(dev, [doc])

    def scratch(self, dev, step, index):
        """An editor's temporary file appears in `dev`'s work tree: `save --all` must save nothing
        (the model predicts no new version: every document in the work tree is current, and the
        temporary file is never a document), `ls --ignored` must name it with a built-in rule,
        and the device must match the model, the file not among its documents."""
        world = self.world
        path = os.path.join(dev.path, step["file"])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(step["text"])
        head = world.head(dev)
        result = world.expect(world.run(dev, "save", "--all"), what=f"{dev.name} save --all")
        self.stats.scratch += 1
        self.timeline.add(dev.index, "save", short_step(step, self.names))
        self.say(f"{index:4d} {short_step(step, self.names)}")
        if world.head(dev) != head or "Nothing to save" not in result.text:
            raise InvariantFailure("ignore rules", f"{dev.name}: save --all with only {step['file']} new in the work "
                                   f"tree made a version ({result.text.strip()[:200]}); an editor's temporary file "
                                   f"is never a document")
        listed = world.run(dev, "ls", "--ignored", "--json")
        ignored = {e["path"]: e for e in listed.json()} if listed.rc == 0 else {}
        if ignored.get(step["file"], {}).get("source") != "built-in":
            raise InvariantFailure("ignore rules", f"{dev.name}: ls --ignored does not name {step['file']} as left "
                                   f"out by a built-in rule ({listed.text.strip()[:200] or listed.first_error_line()})")
        if step["remove"]:
            os.remove(path)
        if self.oracle:
            self.check(dev, ())

    def rename(self, dev, step, index):
        """`concord mv OLD NEW`, or OLD renamed with rename(2) and `save --all`. The model: one
        version of both names (NEW replacing OLD's current version); `save --all` takes it for a
        rename unless OLD is in conflict or empty (then a deletion and an addition)."""
        world, o = self.world, self.oracle
        doc, new = step["doc"], step["new"]
        docs = world.work_tree_docs(dev)
        in_conflict = doc in self.conflicts_of(dev)
        if doc not in docs or new in docs or os.path.exists(os.path.join(dev.path, new)):
            return False
        if step["op"] == "mv" and in_conflict:
            return False
        head = world.head(dev) if o else None
        content = docs[doc]
        if step["op"] == "mv":
            result = world.expect(world.run(dev, "mv", doc, new), what=f"{dev.name} mv {doc} {new}")
        else:
            os.makedirs(os.path.dirname(os.path.join(dev.path, new)), exist_ok=True)
            os.rename(os.path.join(dev.path, doc), os.path.join(dev.path, new))
            result = world.expect(world.run(dev, "save", "--all"), what=f"{dev.name} save --all after a rename")
        detected = step["op"] == "mv" or (not in_conflict and content != b"")
        if step["op"] == "workmv" and detected != (f"renamed  {doc} to {new}" in result.text):
            raise InvariantFailure("renames", f"{dev.name}: save --all after renaming {doc} to {new} in the work tree "
                                   f"{'did not find' if detected else 'found'} a rename: {result.text.strip()[:300]}")
        self.stats.renames += 1
        dev.saved.setdefault(new, {})[content_key(content)] = describe_content(content)
        self.timeline.add(dev.index, "save", short_step(step, self.names))
        self.say(f"{index:4d} {short_step(step, self.names)}")
        if not o:
            return True
        vid = world.head(dev)
        clock = self.new_commit(dev, vid, [head], short_step(step, self.names))
        if detected:
            o.saved_all(dev.index, {}, vid, clock, renames=[(doc, new)])
        else:
            o.saved_all(dev.index, {doc: None, new: content_key(content)}, vid, clock)
        self.check(dev, [doc, new] + FLIP_DOCS)
        return True

    def flip(self, dev, step, index):
        """A name of FLIP_DOCS made a folder of notes (its file removed) or a file (its folder
        removed) in the work tree, then `save --all`: one version. The model: the name's version
        (a folder version without content, or the file), the notes added or deleted."""
        world, o = self.world, self.oracle
        doc, path = step["doc"], os.path.join(dev.path, step["doc"])
        head = world.head(dev) if o else None
        before = world.work_tree_docs(dev)
        saves, folders = {}, set()
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.exists(path):
            os.remove(path)
        for name in [d for d in before if d.startswith(doc + "/")]:
            saves[name] = None
        if step["to"] == "folder":
            for name, text in step["files"].items():
                os.makedirs(path, exist_ok=True)
                with open(os.path.join(path, name), "w", encoding="utf-8") as f:
                    f.write(text)
                saves[f"{doc}/{name}"] = content_key(text.encode())
                dev.saved.setdefault(f"{doc}/{name}", {})[content_key(text.encode())] = describe_content(text.encode())
            saves[doc] = None
            folders.add(doc)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(step["text"])
            saves[doc] = content_key(step["text"].encode())
            dev.saved.setdefault(doc, {})[saves[doc]] = describe_content(step["text"].encode())
        world.expect(world.run(dev, "save", "--all"), what=f"{dev.name} save --all after {short_step(step, self.names)}")
        self.stats.flips += 1
        self.timeline.add(dev.index, "save", short_step(step, self.names))
        self.say(f"{index:4d} {short_step(step, self.names)}")
        if not o:
            return
        vid = world.head(dev)
        if vid == head:
            raise OracleFailure("save", f"{dev.name}: {short_step(step, self.names)} made no version")
        clock = self.new_commit(dev, vid, [head], short_step(step, self.names))
        o.saved_all(dev.index, saves, vid, clock, folders=folders)
        self.check(dev, list(saves))

    def slow_writer(self, dev, step, index):
        """`concord watch --json` runs on `dev` while a writer process writes a document in chunks
        through one open file, pausing after each (longer than the agent's quiet period: the agent
        sees the file changed while it is still open), then closes it. A new document's folders
        are made by the writer, a moment before it opens the file: the agent watches such a
        folder only after the file is open, and must still know it is being written. The run waits for the agent
        to save it and, online, to send it (its events), then stops it with SIGTERM (exit 0).

        The rule (issue 38): the agent saves a file once its writer closed it, never a version of
        a half-written file. No version of the document that appeared during the step may hold
        anything but the final content (one holding a strict prefix of it is a half-written
        save); exactly one appeared. The model: when the device is online and its main is not the
        cloud's, the agent's first sync is made before it starts, with `concord sync` (a sync step,
        checked as any), so that the agent's own first sync finds nothing to do; then its save is modelled as `save --all` would be (whatever differs
        in the work tree; only this document can: every step ends with the work tree compared
        with the model, and editors' temporary files are ignored by both) and its sync as a sync
        that pushes. Offline (airplane mode, the cloud unreachable), only the save."""
        world, o = self.world, self.oracle
        doc = step["doc"]
        content = decode_content(step)
        path = os.path.join(dev.path, doc)

        def writable():
            parent = os.path.dirname(path)
            while parent != dev.path and not os.path.exists(parent):
                parent = os.path.dirname(parent)
            return (os.path.isdir(parent) and not os.path.isdir(path) and doc not in self.conflicts_of(dev)
                    and self.slow_candidate(doc))
        if not writable():
            return False
        if not dev.airplane and not world.outage and world.head(dev) != world.cloud_head():
            self.do_sync(dev, index)
            if not writable():
                return True
        if world.work_tree_docs(dev).get(doc) == content:
            return True  # the agent would have nothing to save
        listed = world.run(dev, "versions", doc, "--all", "--json")
        before = {v["id"] for v in listed.json()} if listed.rc == 0 else set()
        head = world.head(dev)
        online = not dev.airplane and not world.outage
        last_sync = os.path.join(dev.path, ".git", "concord", "last-sync")
        stamp = file_stamp(last_sync)
        cuts = step["cuts"]
        chunks = [content[a:b] for a, b in zip([0] + cuts, cuts + [len(content)])]
        final = blob_id(content)
        self.timeline.add(dev.index, "save", short_step(step, self.names))
        self.say(f"{index:4d} {short_step(step, self.names)}" + ("" if online else " (offline)"))
        agent = Agent(world, dev, os.path.join(self.root, "agents"))
        writer = None
        started = time.monotonic()
        try:
            agent.wait(lambda: agent.events("watching"), "start (its watching event)")
            # Its first save (nothing: the work tree is saved) and sync (up to date, or offline)
            # come before the writer starts: the last-sync record rewritten, or an offline event.
            agent.wait(lambda: agent.events("offline") or file_stamp(last_sync) != stamp,
                       "end its first sync (the last-sync record rewritten, or an offline event)")
            writer = start_writer(path, chunks, SLOW_PAUSE)
            agent.wait(lambda: writer.poll() is not None, f"let the writer write {doc} (the writer to finish)", writer=writer)

            def saved():
                if not agent.events("saved", doc):
                    return False
                if run_git("-C", dev.path, "rev-parse", "--verify", "--quiet", f"refs/heads/main:{doc}", check=False) != final:
                    return False
                return not online or (bool(agent.events("sent", doc)) and world.cloud_head() == world.head(dev))
            agent.wait(saved, f"save {doc} once its writer closed it" + (" and send it to the cloud" if online else ""))
            agent.stop()
        finally:
            agent.kill()
            if writer is not None and writer.poll() is None:
                writer.kill()
                writer.wait()
        self.stats.slow += 1
        self.stats.slow_seconds += time.monotonic() - started
        dev.saved.setdefault(doc, {})[content_key(content)] = describe_content(content)
        # No version of the document from the agent but the whole content.
        listed = world.expect(world.run(dev, "versions", doc, "--all", "--json"), what=f"{dev.name} versions {doc} --all")
        prefixes = {blob_id(content[:n]): n for n in range(len(content))}
        made = [v for v in listed.json() if v["id"] not in before]
        for v in made:
            key = world.version_content_key(dev, doc, v)
            if key == ("file", final):
                continue
            if key is not None and key[0] == "file" and key[1] in prefixes:
                raise AgentFailure(f"{dev.name}: the agent saved {doc} half-written: version {v['id'][:7]} holds its "
                                   f"first {prefixes[key[1]]} bytes of {len(content)}, saved while its writer still "
                                   f"had it open; {agent.describe()}")
            raise AgentFailure(f"{dev.name}: the agent saved version {v['id'][:7]} of {doc} "
                               f"({describe_key(key)}), not what its writer wrote; {agent.describe()}")
        if len(made) != 1:
            raise AgentFailure(f"{dev.name}: {len(made)} versions of {doc} appeared while the agent ran (the writer "
                               f"wrote it once); {agent.describe()}")
        commits = run_git("-C", dev.path, "rev-list", f"{head}..refs/heads/main", check=False).split()
        if len(commits) != 1:
            raise AgentFailure(f"{dev.name}: the agent made {len(commits)} commits, one save expected; {agent.describe()}")
        if not o:
            return True
        vid = commits[0]
        clock = self.new_commit(dev, vid, [head], f"the agent's save of {doc}")
        replica = o.devices[dev.index]
        live = o.live(replica)
        disk = {d: content_key(data) for d, data in world.work_tree_docs(dev).items()}
        saves = {d: key for d, key in disk.items() if live.get(d) != key}
        saves.update({d: None for d in live if d not in disk})
        o.saved_all(dev.index, saves, vid, clock)
        if online:
            prediction = o.synced(dev.index)
            sent = agent.events("sent")[-1]["documents"]
            if prediction.outcome != "pushed" or sorted(sent) != sorted(saves):
                raise OracleFailure("sync", f"{dev.name}: the agent's sync after its save sent {sent}; the model: "
                                    f"{prediction.outcome}, {sorted(saves)} sent")
            self.checker.cloud(dev)
        self.check(dev, list(saves))
        return True

    def gc(self, dev, index, step):
        """`concord gc`: one pack, unreachable objects dropped, never a version. main and every
        version must be as before, each version read again on this device (its cache is dropped)."""
        world = self.world
        head = world.head(dev)
        world.expect(world.run(dev, "gc"), what=f"{dev.name} gc")
        self.stats.gcs += 1
        self.timeline.add(dev.index, "sync", short_step(step, self.names))
        self.say(f"{index:4d} {short_step(step, self.names)}")
        if world.head(dev) != head:
            raise InvariantFailure("gc", f"{dev.name}: gc moved main from {head[:7]} to {world.head(dev)[:7]}")
        for key in [k for k in world.version_cache if k[0] == dev.index]:
            del world.version_cache[key]
        world.fsck(dev.path, f"{dev.name} after gc")
        if not world.outage:
            world.fsck(world.cloud.dir, "the cloud after a device's gc")
        if self.checker and self.checks:
            self.stats.checks += 1
            self.checker.device(dev, (), full=True)
        else:
            world.check_nothing_lost(dev)

    def hostile(self, dev, attack, index, step):
        """Someone with write access to the cloud moves its main to a crafted commit that holds
        an entry Concord refuses (a name such as `..` or `.git`, a link, an odd mode), or damages
        the cloud's own files (a lying index or size, a delta loop, nested folders: craft.py).
        `dev`'s sync must refuse it whole (exit 1, the commit named when it can be), change nothing
        on the device, and a clone of the cloud must be refused too; then the cloud is repaired
        (main moved back, what the attack wrote removed)."""
        world = self.world
        if dev.airplane or world.outage:
            return False
        cloud = HostileCloud(world.cloud.dir)
        before = cloud.main()
        head = world.head(dev)
        remote = run_git("-C", dev.path, "rev-parse", "--verify", "--quiet", "refs/remotes/origin/main", check=False)
        disk = work_tree_docs(dev.path)
        clone_path = os.path.join(self.root, "hostile-clone")
        self.timeline.add(dev.index, "offline", short_step(step, self.names))
        self.say(f"{index:4d} {short_step(step, self.names)}")
        bad = cloud.attack(attack)
        try:
            result = world.run(dev, "sync", "--json")
            self.stats.syncs += 1
            line = result.first_error_line()
            if result.rc != 1 or "refused" not in line or (names_the_commit(attack) and bad[:7] not in line):
                raise InvariantFailure("hostile cloud", f"{dev.name}: sync of a cloud whose main is a hostile commit "
                                       f"{bad[:7]} ({attack}) exited {result.rc} ({line or result.text.strip()[:200]}); "
                                       f"expected exit 1 naming the commit as refused")
            if world.head(dev) != head:
                raise InvariantFailure("hostile cloud", f"{dev.name}: a refused sync moved main to {world.head(dev)[:7]}")
            now = run_git("-C", dev.path, "rev-parse", "--verify", "--quiet", "refs/remotes/origin/main", check=False)
            if now != remote:
                raise InvariantFailure("hostile cloud", f"{dev.name}: a refused sync moved origin/main to {now[:7]}")
            if work_tree_docs(dev.path) != disk:
                raise InvariantFailure("hostile cloud", f"{dev.name}: a refused sync changed the work tree")
            cloned = world.run(None, "clone", world.cloud.url, clone_path, "--device", "intruder-test")
            if cloned.rc != 1 or "refused" not in cloned.first_error_line() or os.path.exists(clone_path):
                raise InvariantFailure("hostile cloud", f"a clone of the hostile cloud ({attack}) exited {cloned.rc} "
                                       f"({cloned.first_error_line() or 'no message'}) and "
                                       f"{'left' if os.path.exists(clone_path) else 'left no'} folder; expected exit 1, "
                                       f"refused, no folder")
            for top, dirs, files in os.walk(self.root):
                dirs[:] = [d for d in dirs if d not in ("objects", os.path.basename(world.cloud.dir))]
                if "PWNED" in files:
                    raise InvariantFailure("hostile cloud", f"a file of the hostile commit was written: "
                                           f"{os.path.join(top, 'PWNED')}")
            self.stats.hostile += 1
        finally:
            cloud.repair(before)
            shutil.rmtree(clone_path, ignore_errors=True)
        if self.oracle:
            self.check(dev, ())
        return True

    def do_sync(self, dev, index, quiet=False):
        world, o = self.world, self.oracle
        twin = self.twins and not dev.airplane and not world.outage and world.diverged_from_cloud(dev)
        if twin:
            snapshot = self.snapshot(dev)
        before = o.devices[dev.index].copy() if o else None
        head = world.head(dev) if o else None
        result, report = world.sync(dev)
        self.stats.syncs += 1
        if dev.airplane or world.outage:
            why = "airplane mode" if dev.airplane else "unreachable cloud"
            if result.rc != 1 or "offline" not in result.err:
                raise InvariantFailure(why, f"{dev.name}: sync with {'airplane mode on' if dev.airplane else 'the cloud unreachable'} "
                                       f"exited {result.rc} ({result.first_error_line() or 'no message'}), expected exit 1 "
                                       f"'offline (...)'")
            self.stats.offline += 1
            self.timeline.add(dev.index, "offline", "sync refused: " + result.first_error_line())
            self.say(f"{index:4d} {dev.name} sync: offline" + ("" if dev.airplane else " (cloud unreachable)"))
            if o and world.head(dev) != head:
                raise OracleFailure("sync", f"{dev.name}: a refused sync moved main from {head[:7]}")
            return None
        world.expect(result, what=f"{dev.name} sync")
        dev.conflicts = set(report["conflicts"])
        if report["outcome"] == "integrated":
            self.stats.conflicts += len(report["newConflicts"])
        self.timeline.add(dev.index, "sync", f"{dev.name} sync: {report['outcome']}")
        if report["newConflicts"] and report["outcome"] == "integrated":
            self.timeline.add(dev.index, "conflict", "new conflicts: " + ", ".join(report["newConflicts"]))
        self.say(f"{index:4d} {dev.name} sync: {report['outcome']}"
                 + (f", new conflicts {report['newConflicts']}" if report["newConflicts"] else "")
                 + (f", in conflict {report['conflicts']}" if report["conflicts"] else ""))
        if o:
            outcome = o.sync_outcome(dev.index)
            resolutions = report.get("autoResolved", [])
            resolution = resolutions[0]["version"] if resolutions else None
            if resolution is not None and ({r["version"] for r in resolutions} != {resolution} or world.head(dev) != resolution):
                raise OracleFailure("auto resolve", f"{dev.name}: sync resolved {[r['document'] for r in resolutions]} on "
                                    f"its own in versions {sorted({str(r['version'])[:7] for r in resolutions})}; main is "
                                    f"at {world.head(dev)[:7]}: one resolution commit, main's, was expected")
            merge_id = merge_clock = None
            if outcome == "integrated":
                merge_id = commit_info(dev.path, resolution)[1][0] if resolution else world.head(dev)
                merge_clock = self.new_commit(dev, merge_id, [head, o.cloud.head], "the integration")
            candidates = {}

            def resolve(_outcome):
                candidates.update(o.auto_candidates(dev.index, auto_policy))
                return self.auto_resolved_in_model(dev, candidates, resolutions, resolution)
            prediction = o.synced(dev.index, merge_id, merge_clock, resolve=resolve)
            left = sorted(u["document"] for u in report.get("autoUnresolved", []))
            want_left = sorted(set(candidates) - {r["document"] for r in resolutions} & set(prediction.new_conflicts))
            if left != want_left:
                raise OracleFailure("auto resolve", f"{dev.name}: sync says its rules left {left} in conflict for a person; "
                                    f"the model: {want_left} (new conflicts whose auto rule did not resolve them)")
            self.stats.auto_left += len(left)
            self.checker.sync_report(dev, report, prediction, before)
            self.checker.cloud(dev)
            self.check(dev, self.docs_changed(before, o.devices[dev.index]))
        if twin:
            self.check_twin(dev, snapshot, report)
        return report

    def auto_resolved_in_model(self, dev, candidates, resolutions, resolution) -> bool:
        """Checks a sync's automatic resolution against the model (`candidates`: the documents in
        conflict whose rule resolves on its own, doc -> policy), then records it. A `latest` rule
        always resolves, keeping what `--latest` keeps; a text rule resolves when the merge is
        clean (its content read back), else leaves the document for a person. True when the
        sync made a resolution commit."""
        o = self.oracle
        replica = o.devices[dev.index]
        reported = {r["document"]: r for r in resolutions}
        must = {doc for doc, policy in candidates.items() if policy == "latest"}
        if not must <= set(reported) or not set(reported) <= set(candidates):
            raise OracleFailure("auto resolve", f"{dev.name}: sync resolved {sorted(reported)} on its own; the model: "
                                f"{sorted(must)} must be and {sorted(candidates)} may be (their rules end with auto)"
                                + "".join(f"; {self.checker.contention(dev, doc)}" for doc in sorted(set(candidates) ^ set(reported))))
        if not reported:
            return False
        clock = self.new_commit(dev, resolution, [replica.head], f"the automatic resolution of {', '.join(sorted(reported))}")
        outcomes = {}
        for doc, r in sorted(reported.items()):
            contenders = replica.contenders[doc]
            kept = (r.get("kept") or {}).get("id")
            if candidates[doc] == "latest":
                want = o.latest(doc, contenders)
                if kept != want:
                    raise OracleFailure("latest wins", f"{dev.name}: sync resolved {doc} on its own keeping {str(kept)[:7]}; "
                                        f"the model says {o.names[o.version(doc, want).device]}'s {want[:7]} "
                                        f"({self.describe_order(doc, contenders)})")
                key = o.key(doc, want)
            else:
                if kept:
                    raise OracleFailure("auto resolve", f"{dev.name}: sync merged {doc} on its own but says it kept {kept[:7]}")
                key = version_keys(dev.path, [(doc, resolution)])[(doc, resolution)]
            removed = {v["id"] for v in r.get("removed", [])}
            if removed != set(contenders) - {kept}:
                raise OracleFailure("auto resolve", f"{dev.name}: sync's resolution of {doc} removed "
                                    f"{sorted(x[:7] for x in removed)}, the versions in contention other than the kept "
                                    f"one are {sorted(x[:7] for x in set(contenders) - {kept})}")
            if (key is None) != bool(r.get("deleted")):
                raise OracleFailure("auto resolve", f"{dev.name}: sync's resolution of {doc} reports deleted={r.get('deleted')}")
            outcomes[doc] = key
        self.record_resolutions(dev, resolutions)
        o.resolved(dev.index, outcomes, resolution, clock)
        self.stats.auto_resolved += len(outcomes)
        self.timeline.add(dev.index, "resolve", f"{dev.name} sync resolved {', '.join(sorted(outcomes))} on its own")
        return True

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
        procs = []
        for dev in racers:
            procs.append((dev, subprocess.Popen(world.argv(dev, "sync", "--json"), stdin=subprocess.DEVNULL,
                                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                env=world.command_env(dev))))
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
        twin = SimDevice(dev.index, dev.name, os.path.join(base, "device"))
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
        """Resolves one document; returns the content key of the result ("" when nothing changed
        that the caller must compare), or None when the document was not in conflict."""
        world, o = self.world, self.oracle
        in_conflict = doc in self.conflicts_of(dev)
        args = ["resolve", doc, "--json"]
        kept_asked = None
        if how.startswith("--keep #"):
            versions = world.versions(dev, doc)
            if not any(v["conflict"] for v in versions):
                if o and in_conflict:
                    raise OracleFailure("versions", f"{dev.name}: `versions {doc}` lists no conflict version; "
                                        f"the model has {doc} in conflict")
                dev.conflicts.discard(doc)
                return None
            # a stable order, whatever the commit ids: current first, then by device and clock
            ordered = versions[:1] + sorted(versions[1:], key=lambda v: (v["device"], v["clock"]))
            kept_asked = ordered[int(how.split("#")[1]) % len(ordered)]["id"]
            args += ["--keep", kept_asked]
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
        head = world.head(dev) if o else None
        self.paths_before = self.work_paths(dev)
        result = world.run(dev, *args)
        if result.rc == 1 and ("is not in conflict" in result.err or "no document" in result.err):
            if o and in_conflict:
                raise OracleFailure("conflicts", f"{dev.name}: resolve {doc} says '{result.first_error_line()}'; "
                                    f"the model has it in conflict")
            dev.conflicts.discard(doc)
            return None
        if o and not in_conflict:
            raise OracleFailure("conflicts", f"{dev.name}: resolve {doc} {how} exited {result.rc} "
                                f"({result.first_error_line() or 'done'}); the model has {doc} not in conflict")
        text = label or f"{dev.name} resolve {doc} {how}"
        given = None  # the content a person gave, when known
        if how == "--file <person>":
            given = typed
        if result.rc == 3:
            self.stats.needs_person += 1
            if o and world.head(dev) != head:
                raise OracleFailure("resolve", f"{dev.name}: resolve {doc} needed a person but moved main")
            if output and os.path.exists(output):
                # the person edits the marked-up merge and finishes with --file
                with open(output, "rb") as f:
                    marked = f.read()
                finished = b"".join(line for line in marked.splitlines(keepends=True)
                                    if not line.startswith((b"<<<<<<<", b"=======", b">>>>>>>", b"|||||||")))
                result = world.run(dev, "resolve", doc, "--file", world.tmpfile(finished), "--json")
                given = finished
                how = "--file <person>"
                text += " (needs a person: finished by hand)"
            else:
                result = world.run(dev, "resolve", doc, "--latest", "--json")
                how = "--latest"
                text += " (needs a person: kept the latest)"
        world.expect(result, what=text)
        report = result.json()
        self.record_resolutions(dev, [report])
        dev.conflicts.discard(doc)
        self.stats.resolutions += 1
        self.timeline.add(dev.index, "resolve", text + ": " + report.get("explanation", ""))
        self.say(f"{index:4d} {text}: {sanitize(report.get('explanation', ''))}; removed {len(report.get('removed', []))}")
        if o:
            self.resolved_in_model(dev, head, {doc: (how, kept_asked, given)}, [report])
        after = world.version_content_key(dev, doc, {"id": report["version"], "deleted": report.get("deleted"),
                                                     "package": doc.endswith(".note")}) if report.get("version") else ""
        return after

    def resolve_all(self, dev, how, index, step):
        world, o = self.world, self.oracle
        docs = self.conflicts_of(dev)
        head = world.head(dev) if o else None
        self.paths_before = self.work_paths(dev)
        result = world.run(dev, "resolve", "--all", "--json", *how.split())
        if result.rc == 3 and how == "--merge":
            self.stats.needs_person += 1
            if o and world.head(dev) != head:
                raise OracleFailure("resolve", f"{dev.name}: resolve --all needed a person but moved main")
            self.say(f"{index:4d} {short_step(step, self.names)}: needs a person, nothing changed")
            return True
        world.expect(result, what=f"{dev.name} resolve --all {how}")
        reports = result.json()
        if o and sorted(r["document"] for r in reports) != docs:
            raise OracleFailure("conflicts", f"{dev.name}: resolve --all resolved {sorted(r['document'] for r in reports)}, "
                                f"the model has {docs} in conflict")
        if not reports:
            dev.conflicts.clear()
            return False
        self.record_resolutions(dev, reports)
        dev.conflicts -= {r["document"] for r in reports}
        self.stats.resolutions += len(reports)
        self.timeline.add(dev.index, "resolve", short_step(step, self.names))
        self.say(f"{index:4d} {short_step(step, self.names)}: resolved {len(reports)}")
        if o:
            self.resolved_in_model(dev, head, {r["document"]: (how, None, None) for r in reports}, reports)
        return True

    def resolved_in_model(self, dev, head, asked, reports):
        """Checks resolutions against the model, then records them in it. `asked` maps each
        document to (how, the id asked for with --keep, the content a person gave)."""
        o = self.oracle
        replica = o.devices[dev.index]
        new = self.world.head(dev)
        ids = {r.get("version") for r in reports}
        if ids != {new}:
            raise OracleFailure("resolve", f"{dev.name}: resolve reported versions {sorted(str(i)[:7] for i in ids)}, main is at {new[:7]}")
        clock = self.new_commit(dev, new, [head], f"resolve {', '.join(sorted(asked))}")
        outcomes, deleted, created, folders = {}, [], {}, set()
        for report in reports:
            doc = report["document"]
            how, kept_asked, given = asked[doc]
            contenders = replica.contenders[doc]
            kept = (report.get("kept") or {}).get("id")
            removed = {v["id"] for v in report.get("removed", [])}
            if "deleted with the folder" in report.get("explanation", ""):
                # in conflict below a folder that another document of this resolution replaced by a file
                if removed != set(contenders) or kept:
                    raise OracleFailure("resolve", f"{dev.name}: resolve deleted {doc} with its folder, removing "
                                        f"{sorted(x[:7] for x in removed)}; in contention: {sorted(x[:7] for x in contenders)}")
                outcomes[doc] = None
                continue
            if how == "--keep-both":
                want = replica.current[doc]
                if kept != want:
                    raise OracleFailure("resolve", f"{dev.name}: resolve {doc} --keep-both kept {str(kept)[:7]}, not the current {want[:7]}")
                expected = self.beside_names(dev, doc, contenders - {want}, created)
                if (report.get("savedBeside") or {}) != expected:
                    raise OracleFailure("keep both", f"{dev.name}: resolve {doc} --keep-both saved beside "
                                        f"{report.get('savedBeside')}; the model {expected}")
                for vid, name in expected.items():
                    created[name] = o.key(doc, vid)
            elif how == "--latest":
                want = o.latest(doc, contenders)
                if kept != want:
                    raise OracleFailure("latest wins", f"{dev.name}: resolve {doc} --latest kept {str(kept)[:7]}; "
                                        f"the model says {o.names[o.version(doc, want).device]}'s {want[:7]} "
                                        f"({self.describe_order(doc, contenders)})")
            elif kept_asked:
                if kept != kept_asked:
                    raise OracleFailure("resolve", f"{dev.name}: resolve {doc} --keep {kept_asked[:7]} kept {str(kept)[:7]}")
            elif kept:
                raise OracleFailure("resolve", f"{dev.name}: resolve {doc} {how} says it kept {kept[:7]}")
            if removed != set(contenders) - {kept}:
                raise OracleFailure("resolve", f"{dev.name}: resolve {doc} removed {sorted(x[:7] for x in removed)}, "
                                    f"the versions in contention other than the kept one are "
                                    f"{sorted(x[:7] for x in set(contenders) - {kept})}")
            if kept:
                key = o.key(doc, kept)
            elif given is not None:
                key = content_key(given)
            elif how == "--merge --policy latest":
                key = o.key(doc, max(contenders, key=lambda v: o.order_key(doc, v)))
            elif how == "--merge --policy current":
                key = o.key(doc, replica.current[doc])
            else:
                key = version_keys(dev.path, [(doc, new)])[(doc, new)] if not report.get("deleted") else None
            outcomes[doc] = key
            if (key is None) != bool(report.get("deleted")):
                raise OracleFailure("resolve", f"{dev.name}: resolve {doc} {how} reports deleted={report.get('deleted')}, "
                                    f"the model expects {'a deletion' if key is None else 'a content'}")
            if kept and o.version(doc, kept).folder:
                folders.add(doc)
            if key is not None and o.state(replica, doc) == "folder":
                # a file where the folder stood: its documents go, those in conflict resolved
                for other, vid in sorted(replica.current.items()):
                    if other.startswith(doc + "/") and o.key(other, vid) is not None and other not in outcomes:
                        if other in replica.in_conflict():
                            outcomes[other] = None
                        else:
                            deleted.append(other)
        o.resolved(dev.index, outcomes, new, clock, deleted=deleted, created=created, folders=folders)
        self.check(dev, set(outcomes) | set(deleted) | set(created) | set(FLIP_DOCS))

    @staticmethod
    def work_paths(dev) -> set:
        """Every file and folder of `dev`'s work tree (Concord's own aside)."""
        paths = set()
        for top, dirs, files in os.walk(dev.path):
            rel = os.path.relpath(top, dev.path)
            dirs[:] = [d for d in dirs if not (rel == "." and d in (".git", ".concord"))]
            for name in dirs + files:
                paths.add(os.path.normpath(os.path.join(rel, name)))
        return paths

    def beside_names(self, dev, doc, others, chosen):
        """{version id: new document} for `resolve --keep-both`: each other version with content, by
        id, named `stem (Device).ext` after its device, numbered when main, the work tree or this
        resolution holds that name."""
        o = self.oracle
        replica = o.devices[dev.index]
        taken = set(chosen)
        for name, vid in replica.current.items():
            if o.key(name, vid) is not None:
                parts = name.split("/")
                taken.update("/".join(parts[:i + 1]) for i in range(len(parts)))
        taken |= self.paths_before
        folder, name = os.path.split(doc)
        dot = name.rfind(".")
        stem, ext = (name[:dot], name[dot:]) if dot > 0 else (name, "")
        result = {}
        for vid in sorted(others):
            if o.key(doc, vid) is None:
                continue
            device = o.names[o.version(doc, vid).device]
            for number in range(1, 1000):
                label = device if number == 1 else f"{device} {number}"
                candidate = os.path.join(folder, f"{stem} ({label}){ext}")
                if candidate not in taken:
                    taken.add(candidate)
                    result[vid] = candidate
                    break
        return result

    def describe_order(self, doc, contenders):
        o = self.oracle
        parts = []
        for v in o.canonical(doc, contenders):
            follows = [w[:7] for w in contenders if w != v and o.follows(doc, v, w)]
            parts.append(f"{v[:7]} {o.names[o.version(doc, v).device]} clock {o.version(doc, v).clock}"
                         + (f" follows {follows}" if follows else ""))
        return "; ".join(parts)

    def check_latest(self, dev, report):
        """Latest-wins (DESIGN.md), from the report alone (also without the oracle): a version that
        causally follows another wins; between concurrent versions the greater clock wins."""
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
        if auto_policy(doc):
            # unless the document's rule resolves that conflict on its own (the oracle checked
            # it did, in b's sync): then both resolutions stay in its history
            history = world.versions(b, doc, all_versions=True)
            contents = {world.version_content_key(b, doc, v) for v in history}
            if key_a not in contents or key_b not in contents:
                raise InvariantFailure("concurrent resolutions", f"{a.name} and {b.name} resolved {doc} differently and "
                                       f"its rule resolved the meeting on its own; {b.name}'s history of {doc} does not "
                                       f"hold both resolutions: one was lost")
            return True
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
        for dev in world.devices:
            world.fsck(dev.path, dev.name)
        self.say(f"{index:4d} quiet round: converged, {len(conflicts)} in conflict")
        for dev, was in zip(world.devices, saved_airplane):
            if was:
                world.set_airplane(dev, True)
                self.timeline.airplane(dev.index, True)

    def final_checks(self, index):
        self.execute({"op": "quiet"}, index)
        for dev in self.world.devices:
            if self.checks:
                # independent of the model's bookkeeping: every content saved with exit 0 anywhere
                self.world.check_nothing_lost(dev, saved_by=self.world.devices)
                if self.checker:
                    self.checker.device(dev, (), full=True)
            self.world.fsck(dev.path, dev.name)
        self.world.fsck(self.world.cloud.dir, "cloud")


def as_failure(error) -> InvariantFailure:
    """An InvariantFailure for any error a run raised: an oracle difference keeps its kind; any
    other exception (bad JSON, a hung command, a bug in these scripts) is reported too."""
    if isinstance(error, InvariantFailure):
        return error
    if isinstance(error, OracleFailure):
        return InvariantFailure(error.kind, error.message)
    import traceback
    where = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
    place = f" ({os.path.basename(where.filename)}:{where.lineno} in {where.name})" if where else ""
    return InvariantFailure("unexpected error", f"{type(error).__name__}: {error}{place}")


def run_steps(args, steps, ndev, seed, root, checks=True, twins=True, verbose=False, light=False):
    """Replays a fixed list of steps in a fresh folder. Returns (failure or None, simulation)."""
    sim = Simulation(args, root, ndev, seed, verbose=verbose, checks=checks, twins=twins, light=light)
    try:
        sim.setup()
        for i, step in enumerate(steps):
            sim.execute(step, i + 1)
        sim.final_checks(len(steps) + 1)
        return None, sim
    except (Exception, subprocess.TimeoutExpired) as error:
        return as_failure(error), sim
    finally:
        sim.world.close()
