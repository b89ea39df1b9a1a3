"""The oracle: a model of what every device and the cloud must hold, kept beside the real devices.

It is a model of *expectations about versions and concurrency*, written from DESIGN.md, not a
second implementation of sync: it never merges contents or reads Concord's conflict records.

- A **version** is a commit that changed one document (a save, a deletion, a resolution). The
  model knows, for each, its content, the device that made it, the commits its device had seen
  when it was made (its *history*: so `a` causally follows `b` exactly when `b` is in `a`'s
  history) and the versions it *replaces* (for a save, the device's current version; for a
  resolution, every version it resolved).
- A **replica** is one `main`: a device's or the cloud's. It holds the set of commits in its
  history and, for each document, the current version and the versions in contention (the
  current one included; more than one means the document is in conflict).
- A save replaces the current version; the versions in contention keep the others (an autosave
  never resolves a conflict). A resolution replaces every version in contention.
- A sync predicts its outcome from the two histories: equal → upToDate; the device's history in
  the cloud's → fastForwarded (the device takes the cloud's state); the cloud's in the device's →
  pushed; else integrated. An integration takes, for each document, the versions in contention on
  either side, minus every version another of them replaces (directly or through earlier saves:
  its line of edits). When both sides' current versions differ, neither causally follows the
  other and their contents differ, both stay in contention: a conflict. The provisional current
  version is the latest of the two sides' current versions (latest-wins: causal order, then the
  greater hybrid logical clock, then device id, then commit id). Two sides that reached the same
  content keep the local version and make no conflict.
- `--latest` keeps, among the versions in contention, one that no other causally follows, with
  the greatest (clock, device id, commit id).
- Rules that resolve on their own (`PATTERN POLICY auto` in `.concord/policies`): after a sync
  has integrated or fast-forwarded, every document in conflict whose rule ends with `auto` is
  resolved in one resolution commit on top, before the push (so the cloud never holds it
  unresolved): a `latest` rule keeps what `--latest` keeps; a merging rule (text) either merges
  (content read back) or leaves the document in conflict for a person, as the sync reports. The
  model predicts which documents are resolved, and what a `latest` rule keeps.

Names and folders (issue 38):

- A **rename** (`concord mv`, or a save that finds one content gone under one name and new under
  another) is one commit that is a version of both names: the new name's (its content, replacing
  the old name's current version) and the old name's deletion. The new name's versions are its
  own, then the old name's not made after the rename (recursively through earlier renames). An
  integration carries a change one side made to the old name while the other renamed it: when
  the renaming side did nothing else (its current version of the new name is the rename, made from
  a version the other side had seen, or the old name's latest version both sides have, carried
  there by an earlier integration), the new name takes the other side's version as current;
  when both changed it, they conflict under the new name (latest-wins provisional). The old name
  stays gone. Not carried: both sides renamed the old name, or the other side has the new name.
- A **folder** is a state of a name (only the names in `flip_paths` are modelled: the simulation
  makes folders of documents nowhere else that a file could take): a commit that makes a name a
  folder of documents, or empties it, is a version of that name without content. After an
  integration, a name whose merged documents below it are not all gone is a folder: its current
  version is the folder version the merge kept, or else the local side's (the remote's when the
  local side holds no folder there), and its other versions in contention are those holding a file.
  Resolving it to a file deletes the documents below, and resolves those in conflict.
- **Keep both** (`resolve --keep-both`): the current version stays; each other version in
  contention that has content becomes a new document named after its device
  (`name (Device).ext`, numbered when taken).

Clocks are read from each new commit (`Concord-Clock`); the model checks that every new commit's
clock is greater than its parent's and not behind its device's wall clock (a hybrid logical
clock), but takes the values as given.
"""

from __future__ import annotations

import subprocess

from .content import content_key, describe_key, work_tree_docs


class OracleFailure(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message


UNKNOWN = ("unknown",)  # the content of a merge, until read


class Version:
    __slots__ = ("doc", "id", "key", "device", "hist", "replaces", "kind", "clock", "renamed_from", "renamed_to", "folder")

    def __init__(self, doc, id, key, device, hist, replaces, kind, clock):
        self.doc, self.id, self.key, self.device = doc, id, key, device
        self.hist, self.replaces, self.kind, self.clock = hist, frozenset(replaces), kind, clock
        self.renamed_from = self.renamed_to = None
        self.folder = False  # the version leaves the name a folder of documents

    def __repr__(self):
        return f"<{self.kind} {self.doc}@{self.id[:7]} dev{self.device} {describe_key(self.key)}>"


class Replica:
    """One `main`: its commits, and for each document the current version and those in contention."""

    def __init__(self):
        self.head = None
        self.hist = frozenset()
        self.current = {}      # doc -> version id
        self.contenders = {}   # doc -> frozenset of version ids (current included)

    def copy(self) -> "Replica":
        r = Replica()
        r.head, r.hist = self.head, self.hist
        r.current, r.contenders = dict(self.current), dict(self.contenders)
        return r

    def conflict_versions(self, doc) -> frozenset:
        return self.contenders.get(doc, frozenset()) - {self.current.get(doc)}

    def in_conflict(self) -> list:
        return sorted(doc for doc, s in self.contenders.items() if len(s) > 1)


class SyncPrediction:
    def __init__(self, outcome, updated=(), new_conflicts=(), conflicts=()):
        self.outcome = outcome
        self.updated = sorted(updated)
        self.new_conflicts = sorted(new_conflicts)   # in conflict after, with a conflict version not one before
        self.conflicts = sorted(conflicts)


def parse_clock(text: str) -> tuple[int, int]:
    ms, _, counter = str(text).partition(".")
    return int(ms), int(counter or 0)


def commit_info(repository: str, commit: str) -> tuple[tuple[int, int] | None, list[str]]:
    """A commit's Concord-Clock and parents, read with git."""
    out = subprocess.run(["git", "-C", repository, "cat-file", "commit", commit], capture_output=True,
                         stdin=subprocess.DEVNULL)
    if out.returncode != 0:
        raise OracleFailure("history", f"commit {commit[:10]} cannot be read in {repository}")
    text = out.stdout.decode("utf-8", "replace")
    header, _, message = text.partition("\n\n")
    parents = [line.split()[1] for line in header.splitlines() if line.startswith("parent ")]
    clock = None
    for line in message.splitlines():
        if line.startswith("Concord-Clock:"):
            clock = parse_clock(line.split(":", 1)[1].strip())
    return clock, parents


class Oracle:
    def __init__(self, devices, device_ids):
        self.names = [d.name for d in devices]
        self.device_ids = list(device_ids)
        self.devices = [Replica() for _ in devices]
        self.cloud = Replica()
        self.versions = {}     # (doc, id) -> Version
        self.by_doc = {}       # doc -> [version id], in creation order
        self.clocks = {}       # commit id -> clock
        self._lineage = {}
        self.known_content = {}  # (device index, doc, id) -> True once read back on that device
        self.renames_to = {}     # new name -> [(rename commit, old name)]
        self.flip_paths = set()  # names the simulation turns into folders and back

    # -- setup

    def start(self, head: str):
        for replica in self.devices + [self.cloud]:
            replica.head = head
            replica.hist = frozenset([head])

    # -- relations between versions

    def version(self, doc, vid) -> Version:
        found = self.versions.get((doc, vid))
        if found is None:
            old = self.former_name(doc, vid)
            if old is not None:
                return self.versions[(old, vid)]
            raise KeyError((doc, vid))
        return found

    def former_name(self, doc, vid, depth=0):
        """The name `doc` had in version `vid` when it is a version of a name `doc` was renamed from."""
        if depth > 32:
            return None
        for rename, old in self.renames_to.get(doc, []):
            if (old, vid) in self.versions and not self.after(vid, rename):
                return old
            deeper = self.former_name(old, vid, depth + 1)
            if deeper is not None:
                return deeper
        return None

    def after(self, vid, rename) -> bool:
        """True when commit `vid` is the rename or descends from it."""
        if vid == rename:
            return True
        for (doc, v), version in self.versions.items():
            if v == vid:
                return rename in version.hist
        return False

    def key(self, doc, vid):
        return self.version(doc, vid).key if vid is not None else None

    def follows(self, doc, a, b) -> bool:
        """True when version `a` causally follows `b` (b's commit is in a's history)."""
        return b in self.version(doc, a).hist

    def lineage(self, doc, vid) -> frozenset:
        """Every version `vid` replaced, directly or through earlier versions (its line of edits)."""
        cached = self._lineage.get((doc, vid))
        if cached is not None:
            return cached
        seen, frontier = set(), list(self.version(doc, vid).replaces)
        while frontier:
            v = frontier.pop()
            if v in seen:
                continue
            seen.add(v)
            if (doc, v) in self.versions:
                frontier += self.versions[(doc, v)].replaces
            elif self.former_name(doc, v) is not None:
                frontier += self.version(doc, v).replaces
        result = frozenset(seen)
        self._lineage[(doc, vid)] = result
        return result

    def maximal(self, doc, versions) -> frozenset:
        """The versions no other one of `versions` replaced (in its line of edits)."""
        return frozenset(v for v in versions if not any(w != v and v in self.lineage(doc, w) for w in versions))

    def order_key(self, doc, vid):
        v = self.version(doc, vid)
        return (v.clock or (0, 0), self.device_ids[v.device], vid)

    def later(self, doc, a, b):
        """The latest-wins choice between two versions."""
        if self.follows(doc, a, b):
            return a
        if self.follows(doc, b, a):
            return b
        return a if self.order_key(doc, a) > self.order_key(doc, b) else b

    def latest(self, doc, contenders) -> str:
        """What `resolve --latest` must keep among `contenders`."""
        survivors = [v for v in contenders if not any(w != v and self.follows(doc, w, v) for w in contenders)]
        return max(survivors, key=lambda v: self.order_key(doc, v))

    def canonical(self, doc, vids) -> list:
        return sorted(vids, key=lambda v: self.order_key(doc, v))

    # -- what a replica shows

    def live(self, replica: Replica) -> dict:
        """doc -> content key of the documents that exist (current version not a deletion)."""
        return {doc: self.key(doc, v) for doc, v in replica.current.items() if self.key(doc, v) is not None}

    def versions_of(self, replica: Replica, doc) -> list:
        own = [v for v in self.by_doc.get(doc, []) if v in replica.hist]
        return own + [v for v, _ in self.former_versions(replica, doc) if v not in own]

    def former_versions(self, replica: Replica, doc, depth=0) -> list:
        """(version, name) of the versions made under the names `doc` had before, not after the rename."""
        result = []
        if depth > 32:
            return result
        for rename, old in self.renames_to.get(doc, []):
            if rename not in replica.hist:
                continue
            for v in self.by_doc.get(old, []):
                if v in replica.hist and v != rename and rename not in self.versions[(old, v)].hist:
                    result.append((v, old))
            result += [(v, name) for v, name in self.former_versions(replica, old, depth + 1)
                       if v != rename and rename not in self.versions[(name, v)].hist]
        seen, unique = set(), []
        for v, name in result:
            if v not in seen:
                seen.add(v)
                unique.append((v, name))
        return unique

    # -- names that are folders

    def state(self, replica: Replica, path) -> str:
        """'file', 'folder' or 'none': what `path` holds on `replica` (a folder while any document
        is below it, whatever a merge chose for the name itself before its folder is settled)."""
        prefix = path + "/"
        if any(doc.startswith(prefix) and self.key(doc, v) is not None for doc, v in replica.current.items()):
            return "folder"
        current = replica.current.get(path)
        if current is not None and self.key(path, current) is not None:
            return "file"
        return "none"

    def derive_folders(self, dev: int, before: dict, explicit, vid, clock):
        """After a commit `vid` on `dev`: each modelled name whose state changed between a folder
        and not, by documents below it (not by a version of its own in the commit), gets a
        version without content."""
        replica = self.devices[dev]
        for path in sorted(self.flip_paths):
            if path in explicit:
                continue
            was, now = before[path], self.state(replica, path)
            if was == now or "folder" not in (was, now):
                continue
            old = replica.current.get(path)
            self.add_version(dev, path, vid, None, [old] if old else [], "folder" if now == "folder" else "unfolder", clock)
            self.versions[(path, vid)].folder = now == "folder"
            replica.current[path] = vid
            replica.contenders[path] = (replica.contenders.get(path, frozenset()) - {old}) | {vid}

    def states(self, replica: Replica) -> dict:
        return {path: self.state(replica, path) for path in self.flip_paths}

    # -- local operations

    def add_version(self, dev: int, doc, vid, key, replaces, kind, clock):
        replica = self.devices[dev]
        self.versions[(doc, vid)] = Version(doc, vid, key, dev, replica.hist, replaces, kind, clock)
        self.by_doc.setdefault(doc, []).append(vid)

    def predict_save(self, dev: int, doc, key) -> bool:
        """True when saving `key` makes a new version (false: the content is already current)."""
        current = self.devices[dev].current.get(doc)
        return current is None and key is not None or current is not None and self.key(doc, current) != key

    def saved(self, dev: int, doc, key, vid, clock, kind="save"):
        """A save (or, with key None, a deletion) made version `vid` on device `dev`."""
        self.saved_all(dev, {doc: key}, vid, clock, kinds={doc: kind})

    def saved_all(self, dev: int, saves: dict, vid, clock, kinds=None, renames=(), folders=()):
        """One commit `vid` on `dev` saving several documents ({doc: key}, None for a deletion),
        renaming some ((old, new): a version of both, the new one replacing the old one's), and
        making the names in `folders` folders of documents (saved with key None)."""
        replica = self.devices[dev]
        before = self.states(replica)
        for old, new in renames:
            current = replica.current[old]
            key = self.key(old, current)
            self.add_version(dev, new, vid, key, [current], "rename", clock)
            self.versions[(new, vid)].renamed_from = old
            self.add_version(dev, old, vid, None, [current], "rm", clock)
            self.versions[(old, vid)].renamed_to = new
            self.renames_to.setdefault(new, []).append((vid, old))
            for doc in (old, new):
                replica.contenders[doc] = (replica.contenders.get(doc, frozenset()) - {replica.current.get(doc)}) | {vid}
                replica.current[doc] = vid
        for doc, key in saves.items():
            old = replica.current.get(doc)
            kind = "folder" if doc in folders else (kinds or {}).get(doc, "save" if key else "rm")
            self.add_version(dev, doc, vid, key, [old] if old else [], kind, clock)
            self.versions[(doc, vid)].folder = doc in folders
            replica.current[doc] = vid
            replica.contenders[doc] = (replica.contenders.get(doc, frozenset()) - {old}) | {vid}
        explicit = set(saves) | {n for pair in renames for n in pair}
        self.derive_folders(dev, before, explicit, vid, clock)
        self.commit(replica, vid, clock)

    def resolved(self, dev: int, outcomes: dict, vid, clock, deleted=(), created=None, folders=()):
        """One resolution commit `vid` on `dev`: outcomes = {doc: content key (UNKNOWN for a merge)};
        `deleted`: documents below a folder replaced by a file, deleted with it; `created`: new
        documents a keep-both saved beside ({doc: key}); `folders`: names kept as folders."""
        replica = self.devices[dev]
        before = self.states(replica)
        for doc, key in outcomes.items():
            self.add_version(dev, doc, vid, key, replica.contenders[doc], "resolve", clock)
            self.versions[(doc, vid)].folder = doc in folders
        for doc in outcomes:
            replica.current[doc] = vid
            replica.contenders[doc] = frozenset([vid])
        for doc in deleted:
            old = replica.current[doc]
            self.add_version(dev, doc, vid, None, [old], "rm", clock)
            replica.current[doc] = vid
            replica.contenders[doc] = (replica.contenders[doc] - {old}) | {vid}
        for doc, key in (created or {}).items():
            self.add_version(dev, doc, vid, key, [], "save", clock)
            replica.current[doc] = vid
            replica.contenders[doc] = frozenset([vid])
        self.derive_folders(dev, before, set(outcomes) | set(deleted) | set(created or {}), vid, clock)
        self.commit(replica, vid, clock)

    def learn_content(self, doc, vid, key):
        self.version(doc, vid).key = key

    def commit(self, replica: Replica, cid, clock):
        replica.head = cid
        replica.hist = replica.hist | {cid}
        self.clocks[cid] = clock

    # -- sync

    def sync_outcome(self, dev: int) -> str:
        d, c = self.devices[dev], self.cloud
        if d.head == c.head:
            return "upToDate"
        if d.hist <= c.hist:
            return "fastForwarded"
        if c.hist <= d.hist:
            return "pushed"
        return "integrated"

    def synced(self, dev: int, merge_id=None, merge_clock=None, resolve=None) -> SyncPrediction:
        """Applies a sync of `dev` that reached the cloud; returns what its report must say.
        `resolve(outcome)`, when given, is called once the histories are joined and before the
        push: it records the sync's automatic resolution, if any (``auto_resolved``)."""
        d, c = self.devices[dev], self.cloud
        outcome = self.sync_outcome(dev)
        before = {doc: self.key(doc, v) for doc, v in d.current.items()}
        records_before = {doc: d.conflict_versions(doc) for doc in d.contenders}
        if outcome == "upToDate":
            pass
        elif outcome == "fastForwarded":
            self.devices[dev] = c.copy()
        elif outcome == "pushed":
            self.cloud = d.copy()
        else:
            merged = Replica()
            merged.hist = d.hist | c.hist
            carried = self.carried_renames(d, c)
            for doc in sorted(set(d.current) | set(c.current)):
                if doc in carried:
                    current, contenders = carried[doc]
                else:
                    current, contenders, _ = self.integrate(doc, d, c)
                merged.current[doc] = current
                merged.contenders[doc] = contenders
            for doc in sorted(self.flip_paths & (set(d.current) | set(c.current))):
                merged.current[doc], merged.contenders[doc] = self.settle_folder(doc, d, c, merged)
            self.commit(merged, merge_id, merge_clock)
            self.devices[dev] = merged
            self.cloud = merged.copy()
        if resolve is not None and resolve(outcome):
            self.cloud = self.devices[dev].copy()
        after = self.devices[dev]
        updated = {doc for doc in set(before) | set(after.current)
                   if before.get(doc) != self.key(doc, after.current.get(doc))}
        fresh = {doc for doc in after.in_conflict() if after.conflict_versions(doc) - records_before.get(doc, frozenset())}
        return SyncPrediction(outcome, updated, fresh, after.in_conflict())

    def auto_candidates(self, dev: int, rules) -> dict:
        """The documents in conflict on `dev` whose rule resolves on its own: doc -> policy
        (`rules(doc)` gives a document's auto policy, or None)."""
        replica = self.devices[dev]
        return {doc: rules(doc) for doc in replica.in_conflict() if rules(doc)}

    def carried_renames(self, local: Replica, remote: Replica) -> dict:
        """{doc: (current, contenders)} for the old and new names of each rename one side made that
        carries the other side's change of the old name (see the module's documentation)."""
        result = {}
        for renamer, other in ((local, remote), (remote, local)):
            theirs = {old for new, pairs in self.renames_to.items() for vid, old in pairs if vid in other.hist and vid not in renamer.hist}
            chains = {}  # old -> (new, first rename, last rename)
            mine = sorted(((vid, old, new) for new, pairs in self.renames_to.items() for vid, old in pairs
                           if vid in renamer.hist and vid not in other.hist), key=lambda t: len(self.versions[(t[2], t[0])].hist))
            for vid, old, new in mine:
                start = next((k for k, (n, _, _) in chains.items() if n == old), None)
                if start is not None:
                    chains[start] = (new, chains[start][1], vid)
                else:
                    chains[old] = (new, vid, vid)
            for old, (new, first, last) in sorted(chains.items()):
                theirs_old = other.current.get(old)
                if old in theirs or self.key(old, renamer.current.get(old)) is not None:
                    continue
                # the base held the old name as a file: its latest version both sides have
                common = self.maximal(old, frozenset(v for v in self.by_doc.get(old, []) if v in other.hist and v in renamer.hist))
                if len(common) != 1 or self.key(old, next(iter(common))) is None:
                    continue
                if theirs_old is None or theirs_old in renamer.hist or other.current.get(new) is not None:
                    continue
                if self.version(old, theirs_old).renamed_to is not None:
                    continue
                if any(len(side.contenders.get(name, ())) > 1 for side in (local, remote) for name in (old, new)):
                    continue
                mine_new = renamer.current.get(new)
                renamed_from = list(self.versions[(old, first)].replaces)
                pure = mine_new == last and all(v in other.hist for v in renamed_from)
                if pure or mine_new in common:
                    # the renaming side holds nothing new under the new name: its current
                    # version there is the rename itself, or the old name's version both sides
                    # have (carried there by an earlier integration)
                    current, contenders = theirs_old, frozenset([theirs_old])
                elif self.key(new, mine_new) == self.key(old, theirs_old):
                    current = mine_new if renamer is local else theirs_old
                    contenders = frozenset([current])
                else:
                    current = mine_new if self.order_key(new, mine_new) > self.order_key(new, theirs_old) else theirs_old
                    contenders = frozenset([mine_new, theirs_old])
                result[new] = (current, contenders)
                result[old] = (renamer.current[old], frozenset([renamer.current[old]]))
        return result

    def settle_folder(self, doc, local: Replica, remote: Replica, merged: Replica):
        """A modelled name after an integration: a folder while any merged document stays below it."""
        current, contenders = merged.current.get(doc), merged.contenders.get(doc, frozenset())
        local_folder, remote_folder = self.state(local, doc) == "folder", self.state(remote, doc) == "folder"
        if self.state(merged, doc) == "folder":
            if current is None or not self.version(doc, current).folder:
                current = local.current[doc] if local_folder else remote.current[doc]
            candidates = (contenders | {merged.current[doc]}) - {None}
            kept = self.maximal(doc, candidates | {current}) - {current}
            return current, frozenset([current]) | {v for v in kept if self.key(doc, v) is not None}
        if current is not None and self.version(doc, current).folder:
            side = remote if local_folder else local
            current = side.current.get(doc)
            return current, frozenset([current]) if current else frozenset()
        if local_folder or remote_folder:
            contenders = frozenset(v for v in contenders if v == current or not self.version(doc, v).folder)
        return current, contenders

    def dropped_since(self, doc, vid, side: Replica, other: Replica) -> bool:
        """True when `side` has a version of `doc` that `other` has not seen and that replaced
        `vid` (a resolution or a save over it)."""
        return any(w in side.hist and w not in other.hist and vid in self.versions[(doc, w)].replaces
                   for w in self.by_doc.get(doc, []))

    def integrate(self, doc, local: Replica, remote: Replica):
        """One document's current version and versions in contention after integrating two sides;
        the third value is True when the two sides' current versions make a new conflict."""
        cl, cr = local.current.get(doc), remote.current.get(doc)
        if cl is None:
            return cr, remote.contenders[doc], False
        if cr is None:
            return cl, local.contenders[doc], False
        # A side whose versions of `doc` the other side has all seen, when the other has not seen
        # all of its own, changed nothing the other does not account for: Concord merges from the
        # merge base, and that side yields. A version an earlier integration dropped because its
        # content equals the one kept does not come back through the side that still has it.
        seen_by_remote, seen_by_local = local.contenders[doc] <= remote.hist, remote.contenders[doc] <= local.hist
        if seen_by_remote and not seen_by_local:
            # Even when the local version holds the same content as the remote's current one:
            # the remote side chose its current version knowing the local one (soak seed 140).
            return cr, remote.contenders[doc], False
        if seen_by_local and not seen_by_remote:
            return cl, local.contenders[doc], False
        # Conflict records merge from the merge base too: a version one side still lists only
        # because it was in contention before, and that the other side has since resolved or
        # replaced, is not in contention any more (soak seed 77).
        records = {v for v in local.conflict_versions(doc) if not self.dropped_since(doc, v, remote, local)} | \
                  {v for v in remote.conflict_versions(doc) if not self.dropped_since(doc, v, local, remote)}
        conflict = False
        if cl == cr:
            current, others = cl, set()
        elif self.follows(doc, cr, cl):
            current, others = cr, set()
        elif self.follows(doc, cl, cr):
            current, others = cl, set()
        elif self.key(doc, cl) == self.key(doc, cr):
            # Both reached the same content: the local version stays, and what the other side's
            # version replaced is replaced (its resolution removed a version the local side kept).
            contenders = self.maximal(doc, records | {cl, cr})
            return cl, (contenders - {cr}) | {cl}, False
        else:
            current = self.later(doc, cl, cr)
            others = {cl, cr} - {current}
            conflict = True
        contenders = self.maximal(doc, records | others | {current})
        if current not in contenders and doc in self.flip_paths:
            # A folder that kept a name against a file the file's line of edits had replaced: the
            # current version stays, as Concord keeps it (a record never drops the current version).
            pool = records | others | {current}
            contenders = frozenset(v for v in pool if v == current or not any(w != v and v in self.lineage(doc, w) for w in pool))
        if current not in contenders:
            raise OracleFailure("oracle", f"{doc}: the model's provisional current version {current[:7]} is "
                                f"replaced by another version in contention (the model cannot say)")
        return current, contenders, conflict


# ---------------------------------------------------------------------------------------------
# Comparing the real devices with the model


class Checker:
    """Reads a device through the command line (and git, for contents by blob id) and compares
    what it finds with the oracle. Every comparison raises OracleFailure on a difference."""

    def __init__(self, world, oracle: Oracle):
        self.world = world
        self.oracle = oracle
        self.read = set()        # (device index, doc, version id) whose content was read on that device
        self.checks = 0
        self.strict = False
        self.light = False       # only conflicts and the work tree (shortening a conflicts failure)
        self.known = {}          # known issue -> [first example, count], reported instead of failing

    def fail(self, kind, message):
        raise OracleFailure(kind, message)

    def device(self, dev, docs, full=False):
        """Compares device `dev` with the model: conflicts, documents and their states, the work
        tree, and for each document in `docs` (every document when `full`) its versions, each
        version's content read on this device, and its contention."""
        o, w = self.oracle, self.world
        replica = o.devices[dev.index]
        self.checks += 1
        # conflicts --json: exactly the documents in conflict, with their versions
        real = {c["document"]: c for c in w.conflicts(dev)}
        want = replica.in_conflict()
        if sorted(real) != want:
            missing = sorted(set(want) - set(real))
            extra = sorted(set(real) - set(want))
            detail = []
            for doc in missing:
                ids = ", ".join(f"{o.names[o.version(doc, v).device]}'s {v[:7]}" for v in o.canonical(doc, replica.contenders[doc]))
                detail.append(f"{doc} must be in conflict between {ids}")
            for doc in extra:
                detail.append(f"{doc} is in conflict but no two versions of it are concurrent")
            self.fail("conflicts", f"{dev.name}: `conflicts` lists {sorted(real) or 'nothing'}, the model "
                      f"{want or 'nothing'}: {'; '.join(detail)}")
        for doc, c in real.items():
            ids = set(c.get("conflictVersions", []))
            if ids != set(replica.conflict_versions(doc)) or c["versions"] != len(replica.contenders[doc]):
                self.fail("conflicts", f"{dev.name}: `conflicts` says {doc} has versions {sorted(x[:7] for x in ids)} "
                          f"besides the current one ({c['versions']} in all); the model: "
                          f"{sorted(x[:7] for x in replica.conflict_versions(doc))} besides "
                          f"{replica.current[doc][:7]}")
        live = o.live(replica)
        if not self.light:
            self.listing(dev, live, want)
        # the work tree: exactly the current contents
        disk = {doc: content_key(data) for doc, data in work_tree_docs(dev.path).items()}
        if disk != live:
            wrong = sorted(d for d in set(disk) | set(live) if disk.get(d) != live.get(d))
            self.fail("work tree", f"{dev.name}: the work tree differs from the current versions for {wrong}: "
                      + "; ".join(f"{d}: disk {describe_key(disk.get(d)) if d in disk else 'absent'}, "
                                  f"model {describe_key(live.get(d)) if d in live else 'absent'}" for d in wrong[:3]))
        if not self.light:
            for doc in sorted(set(replica.current) if full else set(docs)):
                self.document(dev, doc)

    def listing(self, dev, live, want):
        """`ls --json`: the documents that exist, their state and content."""
        w = self.world
        listed = {d["document"]: d for d in w.documents(dev)}
        if sorted(listed) != sorted(live):
            self.fail("documents", f"{dev.name}: `ls` lists {sorted(listed)}, the model {sorted(live)}")
        for doc, entry in listed.items():
            state = "inConflict" if doc in want else "normal"
            if entry.get("state") != state:
                self.fail("documents", f"{dev.name}: `ls` says {doc} is {entry.get('state')}, the model {state}")
            key = live[doc]
            if key[0] == "file" and entry.get("contentId") not in (None, key[1]):
                self.fail("documents", f"{dev.name}: `ls` says {doc} holds {entry.get('contentId', '')[:7]}, "
                          f"the model {describe_key(key)}")

    def document(self, dev, doc):
        """`versions DOC --all --json` lists exactly the model's versions of DOC in this device's
        history, with the current and conflict flags, devices, deletions and replaced versions
        the model says; `versions DOC --json` lists the contention in canonical order; `show`
        returns each version's content on this device."""
        o, w = self.oracle, self.world
        replica = o.devices[dev.index]
        expected = o.versions_of(replica, doc)
        if not expected:
            return
        result = w.run(dev, "versions", doc, "--all", "--json")
        if result.rc != 0:
            self.fail("versions", f"{dev.name}: `versions {doc} --all` failed ({result.first_error_line()}); "
                      f"the model has {len(expected)} versions of it")
        listing = result.json()
        ids = [v["id"] for v in listing]
        if set(ids) != set(expected) or len(ids) != len(expected):
            lost = [f"{o.names[o.version(doc, v).device]}'s {o.version(doc, v).kind} {v[:7]} ({describe_key(o.key(doc, v))})"
                    for v in expected if v not in ids]
            extra = [v[:7] for v in ids if v not in expected]
            self.fail("nothing lost" if lost else "versions",
                      f"{dev.name}: `versions {doc} --all` lists {len(ids)} versions, the model {len(expected)}"
                      + (f"; missing {', '.join(lost)}" if lost else "") + (f"; unexpected {', '.join(extra)}" if extra else ""))
        current = replica.current[doc]
        conflicts = replica.conflict_versions(doc)
        for v in listing:
            model = o.version(doc, v["id"])
            problems = []
            if v["current"] != (v["id"] == current):
                problems.append(f"current={v['current']}")
            if v.get("conflict", False) != (v["id"] in conflicts):
                problems.append(f"conflict={v.get('conflict')}")
            if v["deleted"] != (model.key is None):
                problems.append(f"deleted={v['deleted']}")
            if v["device"] != o.names[model.device]:
                problems.append(f"device={v['device']}")
            if v.get("folder", False) != model.folder:
                problems.append(f"folder={v.get('folder', False)}")
            if v.get("name", doc) != model.doc:
                problems.append(f"name={v.get('name', doc)} (model {model.doc})")
            if v.get("renamedFrom") != model.renamed_from or v.get("renamedTo") != model.renamed_to:
                problems.append(f"renamedFrom={v.get('renamedFrom')} renamedTo={v.get('renamedTo')} (model {model.renamed_from}, {model.renamed_to})")
            if set(v.get("replaces", [])) != set(model.replaces):
                problems.append(f"replaces={[x[:7] for x in v.get('replaces', [])]} (model {[x[:7] for x in model.replaces]})")
            if model.clock is not None and parse_clock(v["clock"]) != model.clock:
                problems.append(f"clock={v['clock']} (its commit says {model.clock})")
            if problems:
                self.fail("versions", f"{dev.name}: `versions {doc} --all` describes {model.kind} {v['id'][:7]} "
                          f"with {', '.join(problems)}")
        if conflicts:
            contention = [v["id"] for v in w.versions(dev, doc)]
            want = [current] + o.canonical(doc, conflicts)
            if contention != want:
                self.fail("versions", f"{dev.name}: `versions {doc}` lists {[x[:7] for x in contention]}, the model "
                          f"{[x[:7] for x in want]} (current first, then by clock, device id, commit id)")
        for v in listing:
            if (dev.index, doc, v["id"]) in self.read:
                continue
            key = w.version_content_key(dev, doc, v)
            model = o.version(doc, v["id"])
            if model.key == UNKNOWN:
                o.learn_content(doc, v["id"], key)
            elif key != model.key:
                self.fail("nothing lost", f"{dev.name}: `show {doc} --version {v['id'][:7]}` returns "
                          f"{describe_key(key)}, the {model.kind} saved {describe_key(model.key)}")
            self.read.add((dev.index, doc, v["id"]))

    def sync_report(self, dev, report, prediction: SyncPrediction, before: Replica | None = None):
        mismatches = []
        if report["outcome"] != prediction.outcome:
            mismatches.append(f"outcome {report['outcome']} (model {prediction.outcome})")
        if sorted(report["updated"]) != prediction.updated:
            mismatches.append(f"updated {report['updated']} (model {prediction.updated})")
        if sorted(report["newConflicts"]) != prediction.new_conflicts:
            mismatches.append(f"newConflicts {report['newConflicts']} (model {prediction.new_conflicts})")
        if sorted(report["conflicts"]) != prediction.conflicts:
            mismatches.append(f"conflicts {report['conflicts']} (model {prediction.conflicts})")
        if report.get("attempts", 1) != 1:
            mismatches.append(f"{report['attempts']} attempts with nobody else syncing")
        if mismatches:
            kind = "conflicts" if any(m.startswith(("newConflicts", "conflicts")) for m in mismatches) else "sync report"
            docs = (set(report["conflicts"]) ^ set(prediction.conflicts)) | (set(report["newConflicts"]) ^ set(prediction.new_conflicts))
            self.fail(kind, f"{dev.name}: sync ({prediction.outcome}) reported " + "; ".join(mismatches)
                      + "".join(f"; {self.contention(dev, doc, before)}" for doc in sorted(docs)))

    def contention(self, dev, doc, before=None) -> str:
        """The model's versions in contention for `doc` on `dev` (and before the step), in words."""
        o = self.oracle

        def words(replica):
            versions = o.canonical(doc, replica.contenders.get(doc, ()))
            if len(versions) < 2:
                return f"{doc} not in conflict"
            return (f"{doc} in conflict between "
                    + ", ".join(f"{o.names[o.version(doc, v).device]}'s {o.version(doc, v).kind} {v[:7]}"
                                + (" (current)" if v == replica.current[doc] else "") for v in versions))
        text = f"the model has {words(o.devices[dev.index])}"
        if before is not None:
            text += f" (before the sync: {words(before)})"
        return text

    def cloud(self, dev):
        """After a sync that reached the cloud, the cloud's main is the device's."""
        head, cloud = self.world.head(dev), self.world.cloud_head()
        if head != cloud:
            self.fail("sync", f"{dev.name}: after its sync the cloud's main is {cloud[:10]}, the device's {head[:10]}")
        if self.oracle.cloud.head != head:
            self.fail("sync", f"{dev.name}: the model's cloud is at {str(self.oracle.cloud.head)[:10]}, the cloud at {head[:10]}")
