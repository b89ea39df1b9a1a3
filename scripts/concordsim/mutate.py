"""Mutations that must fail the suite: deliberate bugs applied one at a time to a scratch copy.

Each mutation is an exact search/replace in one named file; the runner stops with an error when
the text is no longer found exactly once (the code moved: update the mutation). For each one it
rebuilds the scratch copy and runs the checks CI runs (scripts/test): the two airplane-mode
scenarios, the random simulation, the crash harness, the fuzzers (scripts/fuzz, 15 s a target),
`swift test`. A check *catches* a mutation
when it fails. Every mutation must be caught by at least one check; the table goes in
docs/TESTING.md (mutations that must fail the suite).

Not in CI: it rebuilds per mutation (an hour or more on two cores). The scratch copy is
`git archive HEAD` (committed code only), kept between runs under --scratch.

  scripts/mutate --list
  scripts/mutate                                   every mutation, every check
  scripts/mutate --only drop-conflict-record --checks random
  scripts/mutate --first                           stop each mutation at the first check that catches it
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time

from .fixture import REPOSITORY


class Mutation:
    def __init__(self, name, file, search, replace, what):
        self.name, self.file, self.search, self.replace, self.what = name, file, search, replace, what


MUTATIONS = [
    Mutation("drop-conflict-record", "Sources/Concord/Integration.swift",
             "            losers[document] = remoteWins ? localVersion : remoteVersion\n"
             "            newConflicts.append(document)\n",
             "",
             "an integration records no conflict: concurrent edits are silently settled by latest-wins"),
    Mutation("folder-never-keeps-the-name", "Sources/Concord/Integration+Folders.swift",
             "        var setAside: [DocumentPath: [OID]] = [:]\n",
             "        var setAside: [DocumentPath: [OID]] = [:]\n        if setAside.isEmpty { return setAside }\n",
             "an integration lets a file replace a folder of documents whose name it takes (no folder-keeps-the-name rule): "
             "the folder's documents are deleted without a conflict"),
    Mutation("renames-carry-nothing", "Sources/Concord/Integration+Renames.swift",
             "        var result: [CarriedRename] = []\n",
             "        var result: [CarriedRename] = []\n        if result.isEmpty { return result }\n",
             "a rename on one side does not carry the other side's edit of the old name: an edit/delete conflict instead"),
    Mutation("skip-journal-recovery", "Sources/Concord/Writer.swift",
             "            try checkout.recoverPending()\n",
             "",
             "a writer does not finish the work-tree update an interrupted command left in its journal"),
    Mutation("reverse-latest-wins", "Sources/ConcordMerge/LatestWins.swift",
             "(lhs.clock, lhs.deviceID, lhs.id) < (rhs.clock, rhs.deviceID, rhs.id)",
             "(lhs.clock, lhs.deviceID, lhs.id) > (rhs.clock, rhs.deviceID, rhs.id)",
             "the latest-wins rule (LatestWins.Rank) is reversed: between concurrent versions, integration's "
             "provisional current version, resolve --latest, the latest policy and the merge policies' canonical "
             "order all take the earliest as the latest"),
    Mutation("reverse-canonical-order", "Sources/ConcordMerge/MergePolicy.swift",
             "        lhs.rank < rhs.rank\n",
             "        lhs.rank > rhs.rank\n",
             "merge policies (text, union, JSON, package) see the versions latest first "
             "(MergeVersion.canonicalOrder reversed; the latest-wins rule itself is unchanged)"),
    Mutation("skip-fsync-work-file", "Sources/Concord/WorkTree.swift",
             "if (flushing && GitLibrary.durable && fsync(descriptor) != 0) || close(descriptor) != 0 {",
             "if close(descriptor) != 0 {",
             "a file written on its own (the checkout journal, settings, a document restored) is renamed into "
             "place without being synced first"),
    Mutation("rename-before-flush", "Sources/Concord/WorkTree+Batch.swift",
             "            try workTree.syncFileSystem()\n            CrashPoint.reach(\"worktree:flushed\")\n",
             "            CrashPoint.reach(\"worktree:flushed\")\n",
             "a checkout's files (a batch) are renamed into place before the file system is flushed: a power cut "
             "can leave a document empty or cut short under its name"),
    Mutation("skip-fsync-folder", "Sources/Concord/WorkTree.swift",
             "        func sync() {\n            guard GitLibrary.durable else { return }\n",
             "        func sync() {\n            guard !GitLibrary.durable else { return }\n",
             "the folder of a work-tree file is not synced after the rename"),
    Mutation("skip-fsync-git", "Sources/Git/Libgit2.swift",
             "_ = concord_git_enable_fsync(GitLibrary.durable ? 1 : 0)",
             "_ = concord_git_enable_fsync(0)",
             "libgit2 writes objects and references without fsync"),
    Mutation("skip-path-checks", "Sources/Concord/ArrivalCheck.swift",
             "        if let problem = PathRules.problem(withName: Substring(entry.name)) { return problem }\n",
             "",
             "names arriving from the cloud ('..', '.git', control characters...) are not checked"),
    Mutation("push-without-cas", "Sources/Git/LocalCloud.swift",
             "return try moveReference(branch, to: target, expected: expected)",
             "return try moveReference(branch, to: target, expected: reference(branch))",
             "a push to a local cloud (LocalCloud.push) moves its main whatever it points at (no compare-and-swap)"),
    Mutation("gc-packs-the-tip-only", "Sources/GitStore/ObjectStore+Maintenance.swift",
             "        try addChanges(of: commits.reversed(), to: &pack, skipping: { _ in false })\n",
             "        try addChanges(of: Array(commits.prefix(1)), to: &pack, skipping: { _ in false })\n",
             "gc (repackAll) packs only the newest commit and drops the older history"),
    Mutation("delta-copies-wrong-range", "Sources/GitFormat/Delta.swift",
             "                pendingCopy = (i, length)\n",
             "                pendingCopy = (i + 1, length)\n",
             "a folder's delta (Delta.matchEntries) copies each unchanged entry from one byte too far in the base: "
             "the delta rebuilds a wrong folder, or reads past the base's end"),
    Mutation("skip-fsync-own-pack", "Sources/GitStore/TemporaryFile.swift",
             "        if durable, fsync(descriptor) != 0 {",
             "        if false, fsync(descriptor) != 0 {",
             "a pack or an object Concord writes itself (a push to a local cloud, a roll-up, a save) is renamed into "
             "place without being synced first (TemporaryFile.finish)"),
    Mutation("arrival-counts-each-file-once", "Sources/Concord/ArrivalCheck.swift",
             "                let size = try sizes[arriving.entry.id] ?? repository.blobSize(arriving.entry.id)\n",
             "                guard sizes[arriving.entry.id] == nil else { return }\n"
             "                let size = try repository.blobSize(arriving.entry.id)\n",
             "the arrival limit counts each file once (ArrivalCheck.check), not each path a checkout writes it to: "
             "one large file named many times passes the limit and fills the disk"),
    Mutation("opens-what-is-not-a-file", "Sources/GitStore/RegularFile.swift",
             "        guard status.st_mode & S_IFMT == S_IFREG else {\n",
             "        guard true else {\n",
             "Concord's readers open whatever a cloud holds where a pack, an index or a loose object should be "
             "(RegularFile.open): a FIFO there makes sync and clone wait forever"),
    Mutation("no-stall-time-out", "Sources/Git/NetworkOperation.swift",
             "} else if now - time >= .seconds(operation.limits.timeout) {",
             "} else if false, now - time >= .seconds(operation.limits.timeout) {",
             "the network watch never cuts a connection that stalled (ConnectionProgress.verdict): a server that never "
             "answers, or drips, holds sync, clone and the container's lock forever"),
    Mutation("no-answer-limit", "Sources/Git/NetworkOperation.swift",
             "return all > UInt64(limits.answerLimit) ? .oversized(peer: peer) : nil",
             "return nil",
             "a server may send without limit before any object (NetworkOperation.noteReceived): an endless list "
             "of references grows the command's memory without bound"),
    Mutation("temporary-files-saved", "Sources/Concord/ContainerCore+SaveAll.swift",
             "if scan.rules.ignoringRuleHere(path, isFolder: kind == .directory) != nil {",
             "if false, scan.rules.ignoringRuleHere(path, isFolder: kind == .directory) != nil {",
             "save --all and the agent apply no ignore rule (ContainerCore.saveAll): editors' temporary files "
             "(`.note.md.swp`, `4913`, `.~lock.x#`) become documents, and an ignored document's edits are saved"),
    Mutation("agent-saves-open-files", "Sources/Concord/AgentLoop.swift",
             "        let held = Set(unsettled.keys)\n",
             "        let held = Set<String>()\n",
             "the agent holds back no file its writer still has open (AgentLoop.save): a file written slowly is saved "
             "half-written at each pause of its writer, then again whole"),
    Mutation("agent-misses-unseen-writers", "Sources/Concord/WorkTree.swift",
             "            return errno == EAGAIN\n",
             "            return false\n",
             "the agent takes no file in a folder it had not watched yet for open (WorkTree.Descriptor."
             "isOpenForWriting): a file written slowly into a new folder, or open when the agent starts, is "
             "saved half-written, then whole"),
    Mutation("pack-index-fanout-unchecked", "Sources/GitFormat/PackIndex.swift",
             "            guard value >= previous else { throw FormatError(.packIndex, "
             "\"its fan-out table decreases at entry \\(bucket)\") }\n",
             "",
             "a pack index whose fan-out table decreases is accepted (PackIndex: libgit2's pack_index_check refuses "
             "it); a binary search then runs with its low bound above its high one"),
    Mutation("pack-index-order-unchecked", "Sources/GitFormat/PackIndex.swift",
             "            if number > 0, memcompare(idBytes(number - 1), id) >= 0 {\n"
             "                throw FormatError(.packIndex, \"its ids are not in order at object \\(number)\")\n"
             "            }\n",
             "",
             "a pack index whose ids are out of order, or listed twice, is accepted: its binary search misses objects"),
    Mutation("pack-index-size-unchecked", "Sources/GitFormat/PackIndex.swift",
             "        guard bytes.count >= smallest, (bytes.count - smallest) % 8 == 0 else {",
             "        guard (bytes.count - smallest) % 8 == 0 else {",
             "a pack index whose fan-out claims more objects than its file holds is accepted: its ids and offsets are "
             "read past the end of the file (the issue's SIGSEGV in StoredPack.number(of:))"),
    Mutation("pack-entry-size-unbounded", "Sources/GitFormat/Pack.swift",
             "            guard shift <= 41 else { throw FormatError(.pack, \"the entry at \\(start) claims a size too "
             "large to hold\", overLimit: true) }\n",
             "",
             "a pack entry's header may give a size of any number of bytes: it shifts past 64 bits and can turn "
             "negative or small (Pack.entryHeader)"),
    Mutation("zlib-inflates-past-size", "Sources/GitFormat/Zlib.swift",
             "                guard filled == size, try inflater.isAtEnd() else {",
             "                guard filled == size else {",
             "a zlib stream that inflates to more than the size declared for it is taken, cut at that size "
             "(Zlib.inflate: a pack entry whose data goes on past its header's size)"),
    Mutation("loose-object-size-unchecked", "Sources/GitFormat/LooseObject.swift",
             "        guard size <= largest else {\n"
             "            throw FormatError(.looseObject, \"claims \\(size) bytes, over the limit of \\(largest)\", "
             "claimed: size)\n"
             "        }\n",
             "",
             "a loose object's declared size is not checked against the limit: a file of a few bytes claiming 3 GiB "
             "is allocated 3 GiB before its data is found short (LooseObject.read)"),
    Mutation("delta-apply-size-unchecked", "Sources/GitFormat/Delta.swift",
             "let targetSize = size(delta, &at), targetSize <= largest else { return nil }",
             "let targetSize = size(delta, &at) else { return nil }",
             "a delta's target size is not checked against the limit (Delta.apply): a delta of a few hundred bytes "
             "rebuilds any size"),
    Mutation("delta-loop-unchecked", "Sources/GitStore/ObjectStore.swift",
             "                guard seen.insert(Place(pack: ObjectIdentifier(current.pack), start: current.entry.start)).inserted else {\n"
             "                    throw damaged(entry.id, \"its deltas loop\")\n"
             "                }\n",
             "",
             "a cloud's delta chain that comes back on itself is not seen as a loop (ObjectStore.deltaChain): only "
             "the depth bound stops it, 4,096 reads later, with the wrong cause"),
    Mutation("delta-depth-unbounded", "Sources/GitStore/ObjectStore.swift",
             "            guard links.count <= PackWriter.deepestRead else { throw damaged(entry.id, \"its deltas go "
             "deeper than \\(PackWriter.deepestRead)\") }\n",
             "",
             "a cloud's delta chain may be of any length (ObjectStore.deltaChain): every delta of it is kept in "
             "memory and applied"),
    Mutation("pkt-line-length-unbounded", "Sources/GitFormat/PacketLine.swift",
             "        case (PacketLine.maximumLength + 1)...:\n"
             "            throw FormatError(.packetLine, \"a length of \\(length) is over the limit of \\(PacketLine.maximumLength)\")\n",
             "",
             "a pkt-line longer than git's 65520 bytes is taken (PacketLineReader.next): a server's advertisement or "
             "report line may be up to 64 KiB"),
    Mutation("blocking-work-on-global-queue", "Sources/Concord/Blocking.swift",
             "            queue().async { continuation.resume(with: Result { try body() }) }",
             "            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }",
             "blocking work runs on Dispatch's global queue (Blocking.run): an app's blocking calls there keep the "
             "agent from saving"),
    Mutation("agent-timer-on-global-queue", "Sources/Concord/Wakeup.swift",
             "DispatchSource.makeTimerSource(queue: Blocking.queue(\"concord.wakeup\"))",
             "DispatchSource.makeTimerSource(queue: DispatchQueue.global())",
             "the agent's wake-up timer fires on Dispatch's global queue (Wakeup.sleep): an app's blocking calls "
             "there keep the agent asleep past its quiet period"),
    Mutation("temporary-name-not-drawn-again", "Sources/Concord/WorkTree.swift",
             "        for _ in 0..<100 {\n            let name = ",
             "        for _ in 0..<1 {\n            let name = ",
             "a temporary file's name already taken fails the write (WorkTree.createTemporary): no other name is drawn"),
    Mutation("history-read-under-each-commits-patterns", "Sources/Concord/History+Folders.swift",
             "        documentEntry(converting: try entry(document.value, in: tree), of: document.value, patterns: patterns)\n",
             "        try documentEntry(document, in: tree)\n",
             "a walk of the history reads each commit under its own package patterns (History.documentEntry(_:in:patterns:)): "
             "without the index, a folder made a package has one version, a folder, where the index lists the package's"),
    Mutation("current-versions-kept-across-patterns", "Sources/Concord/History+Folders.swift",
             "            if cachedUnderPatterns != nil { cache.forgetCurrentVersions() }\n",
             "",
             "the current versions a container found are kept when the package patterns change (History.historyPatterns): "
             "a container kept open answers from what it found under the old ones"),
    Mutation("commit-walk-parents-kept-alive", "Sources/GitStore/CommitWalk.swift",
             "        unowned let node: Node\n",
             "        let node: Node\n",
             "a commit walk's nodes keep their parents alive (CommitWalk.Parent): letting go of a long line of "
             "commits is a recursion as deep as the history, and a clone of 200,000 commits crashes"),
    Mutation("recent-folder-evicted-by-an-old-use", "Sources/GitStore/RecentObjects.swift",
             "            guard let entry = kept[id], entry.use == use else { continue }\n",
             "            guard let entry = kept[id] else { continue }\n",
             "a kept folder is let go of by an older use of it (RecentObjects.keep): a folder just looked up goes "
             "first, and is read and inflated again"),
    Mutation("double-dash-ends-nothing", "Sources/ConcordCLI/CommandLine/CommandArguments.swift",
             "                onlyArguments = true\n",
             "                onlyArguments = false\n",
             "`--` does not end the options (CommandArguments.init): a document whose name starts with a dash "
             "cannot be named"),
    Mutation("option-takes-one-of-several", "Sources/ConcordCLI/CommandLine/CommandArguments.swift",
             "while parameter.takesSeveral, let next",
             "while false, let next",
             "an option that takes several values takes one (CommandArguments.init): `packages --set A B` "
             "is bad usage"),
    Mutation("added-file-never-a-folder", "Sources/Concord/History+Index.swift",
             "?? (touchedFolders.contains(TreePath(path)) || firstParentTree == nil ? nil : .some(nil))",
             "?? (firstParentTree == nil ? nil : .some(nil))",
             "the history index takes a file the first parent's differences add as absent there, even where "
             "the parent had a folder of documents of that name (History.step): the file replaces nothing"),
    Mutation("ssh-connection-not-kept", "Sources/Git/SSHClient.swift",
             "guard let controlFolder, Self.isPrivateFolder(controlFolder) else { return nil }",
             "guard let controlFolder, Self.isPrivateFolder(controlFolder), controlFolder.isEmpty else { return nil }",
             "no ssh connection is kept (SSHClient.controlPath): a sync's fetch and push, and each of the agent's "
             "peeks, open a connection of their own"),
    Mutation("ssh-failure-all-refusals", "Sources/Git/SSHFailure.swift",
             "            code = Int32(GIT_ERROR.rawValue)\n            errorClass = GIT_ERROR_NET\n",
             "",
             "every failed ssh run is a host key refusal (SSHFailure): a server that is down or restarting is a "
             "refusal, not offline"),
    Mutation("ssh-config-ignored", "Sources/Git/SSHClient.swift",
             "arguments += [\"-F\", FileManager.default.fileExists(atPath: config) ? config : \"/dev/null\"]",
             "arguments += [\"-F\", \"/dev/null\"]",
             "$HOME/.ssh/config is not given to ssh when HOME is not the account's home (SSHClient.arguments): "
             "its host aliases, ports, users and keys are ignored"),
    Mutation("ssh-host-key-accept-new", "Sources/Git/SSHClient.swift",
             "\"StrictHostKeyChecking=yes\"",
             "\"StrictHostKeyChecking=accept-new\"",
             "ssh trusts an unknown host key and writes it to known_hosts (SSHClient.arguments)"),
    Mutation("https-connection-not-kept", "Sources/Git/KeptConnection.swift",
             "            transport.sockets.allOpen\n",
             "            transport.sockets.allOpen, address.isEmpty\n",
             "no https connection is kept (KeptConnection.transport): a sync's fetch and push, and each of the "
             "agent's checks, open a connection of their own"),
    Mutation("authorities-parsed-at-start", "Package.swift",
             '"-Xlinker", "--export-dynamic-symbol=mbedtls_x509_crt_parse_file", "-Xlinker", "--export-dynamic-symbol=mbedtls_ssl_setup",',
             '"-Xlinker", "--export-dynamic-symbol=concord_nothing",',
             "concord does not export its two mbedTLS functions (Package.swift, ConcordTool): libgit2's start parses "
             "the system's certificate bundle for every command, a save included"),
    Mutation("noted-authorities-never-parsed", "Sources/CGit2Loader/Authorities.c",
             "        parse_authorities(noted_list, noted_file);\n",
             "",
             "the system's bundle noted at libgit2's start is never parsed (mbedtls_ssl_setup): a server that only "
             "the system's authorities vouch for is not trusted"),
    Mutation("authorities-stop-at-first-bad-block", "Sources/CGit2Loader/Authorities.c",
             "            failed++;\n        }\n    }\n    free(bytes);\n",
             "            failed++;\n            break;\n        }\n    }\n    free(bytes);\n",
             "a file of certificate authorities is read up to its first block that does not parse (parse_authorities): "
             "the authorities after it are not trusted, where mbedTLS trusts them"),
    Mutation("curves-in-mbedtls-order", "Sources/CGit2Loader/Authorities.c",
             "        set_curves((void *)configuration, curves);\n",
             "",
             "the curves are offered in mbedTLS's order, largest first (mbedtls_ssl_setup): a server that follows "
             "the client's order makes the key exchange on secp521r1"),
    Mutation("https-credentials-dropped-at-connect", "Sources/Git/KeptTransport.swift",
             "ssh: nil, keepsState: true)",
             "ssh: nil, keepsState: false)",
             "a kept https transport's subtransport is closed at each connect (KeptTransport.init): its "
             "credentials dropped, every operation is refused (401) and sent again"),
    Mutation("https-refused-credential-offered-again", "Sources/Git/RemoteCallbacks.swift",
             "            case .password where credential == presented:",
             "            case .password where credential == presented && false:",
             "a password the server refused on a kept https connection is offered again (RemoteCallbacks.acquire): "
             "the same refusal twice, on a new connection when the server closed it"),
    Mutation("https-closed-connection-used", "Sources/Git/SocketStream.swift",
             "state.descriptor >= 0 && state.cut == nil && concord_socket_closed(state.descriptor) == 0",
             "state.descriptor >= 0 && state.cut == nil",
             "a kept https connection the server closed is used again (SocketStream.isOpen): the next request goes "
             "out on it and fails"),
    Mutation("https-lost-request-not-retried", "Sources/Git/KeptConnection.swift",
             "        var retried = false\n",
             "        var retried = true\n",
             "an operation that lost its kept https connection before any answer is not tried again on a new one "
             "(KeptConnection.run): offline"),
    Mutation("https-refusal-retried", "Sources/Git/KeptConnection.swift",
             "guard isNetwork, !isTimeout, !isOversizedAnswer, !isAuthentication, !isCertificate else { return false }",
             "guard isNetwork || isAuthentication, !isTimeout, !isOversizedAnswer, !isCertificate else { return false }",
             "a refused password on a kept https connection counts as a lost connection (GitError.isConnectionLost): "
             "the refused operation is tried again"),
    Mutation("kept-socket-watched-while-idle", "Sources/Git/KeptSockets.swift",
             "        for socket in all { socket.detach() }\n",
             "        _ = all\n",
             "a kept connection stays in the network watch between operations (KeptSockets.detach): idle, it is cut "
             "as stalled"),
    Mutation("fetch-names-no-haves", "Sources/Git/Repository+Download.swift",
             "        for tip in tips where contains(tip) {\n",
             "        for tip in tips where contains(tip) && false {\n",
             "a network fetch names none of this device's commits (Repository.negotiationHaves): the cloud sends "
             "the whole history at each sync"),
    Mutation("upload-pack-error-band-as-progress", "Sources/GitFormat/UploadPack.swift",
             "        case 2: return .progress(Array(bytes.dropFirst()))\n",
             "        case 2, 3: return .progress(Array(bytes.dropFirst()))\n",
             "the server's error in side-band 3 is taken as progress (UploadPackAnswer.next): its message is lost "
             "and what follows read on"),
    Mutation("kept-socket-not-watched", "Sources/Git/SocketStream.swift",
             "        if open { NetworkWatch.add(self) }\n",
             "        _ = open\n",
             "a kept connection is not watched in the operations after the one that opened it "
             "(SocketStream.attach): a server that stalls then holds the operation"),
]


def checks(scratch: str, steps: int) -> list:
    """The checks scripts/test runs, as (name, argv), run in the scratch copy."""
    bin_ = os.path.join(scratch, ".build", "debug", "concord")
    env_bin = ["env", f"CONCORD_BIN={bin_}"]
    return [  # cheapest first (with --first, a mutation stops at the first check that catches it)
        ("scenario", env_bin + ["bash", "scripts/airplane-mode", "--policy", "latest"]),
        ("scenario-merge", env_bin + ["bash", "scripts/airplane-mode", "--policy", "merge"]),
        ("crash", ["python3", "-B", "scripts/crash-harness", "--points", "first", "--first-failure", "--concord", bin_]),
        ("random", env_bin + ["bash", "scripts/airplane-mode", "--random", "--devices", "3", "--steps", str(steps),
                              "--seed", "1", "--shrink-seconds", "0"]),
        ("fuzz", ["bash", "scripts/fuzz", "--seconds", "15", "--seed", "1", "--crashes", os.path.join(scratch, ".build-fuzz", "crashes")]),
        ("swift-test", ["swift", "test", "--disable-xctest"]),
    ]


def apply(scratch: str, mutation: Mutation) -> str:
    """Applies `mutation` to the scratch copy; returns the original text of the file."""
    path = os.path.join(scratch, mutation.file)
    with open(path, encoding="utf-8") as f:
        original = f.read()
    count = original.count(mutation.search)
    if count != 1:
        raise SystemExit(f"mutate: {mutation.name}: the text to replace is found {count} times in {mutation.file} "
                         f"(expected once): the code changed, update the mutation in scripts/concordsim/mutate.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(original.replace(mutation.search, mutation.replace))
    return original


def prepare_scratch(scratch: str):
    """The committed HEAD, exported to `scratch` (files that did not change keep their dates, so
    that the build stays incremental)."""
    fresh = scratch + ".export"
    shutil.rmtree(fresh, ignore_errors=True)
    os.makedirs(fresh)
    archive = subprocess.run(["git", "-C", REPOSITORY, "archive", "HEAD"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", fresh], input=archive, check=True)
    os.makedirs(scratch, exist_ok=True)
    for top, _, files in os.walk(fresh):
        for name in files:
            src = os.path.join(top, name)
            dst = os.path.join(scratch, os.path.relpath(src, fresh))
            same = False
            if os.path.exists(dst):
                with open(src, "rb") as a, open(dst, "rb") as b:
                    same = a.read() == b.read()
            if not same:
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(src, dst)
    for top, dirs, files in os.walk(scratch):
        dirs[:] = [d for d in dirs if not d.startswith(".build")]
        for name in files:
            dst = os.path.join(top, name)
            if not os.path.exists(os.path.join(fresh, os.path.relpath(dst, scratch))):
                os.remove(dst)
    shutil.rmtree(fresh, ignore_errors=True)


def run(argv, cwd, log, timeout):
    started = time.monotonic()
    with open(log, "ab") as out:
        out.write(f"\n==> {' '.join(argv)}\n".encode())
        out.flush()
        try:
            p = subprocess.run(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, timeout=timeout)
            code = p.returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
    return code, time.monotonic() - started


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="mutate", description=__doc__.splitlines()[0],
                                epilog=__doc__.split("\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--list", action="store_true",
                   help="list the mutations, check that each still applies to the work tree (its text is found "
                        "once in its file), and exit (1 when one does not: scripts/test runs this)")
    p.add_argument("--only", help="comma-separated mutation names")
    p.add_argument("--checks", help="comma-separated checks (scenario, scenario-merge, crash, random, fuzz, swift-test)")
    p.add_argument("--first", action="store_true", help="stop a mutation at the first check that catches it")
    p.add_argument("--steps", type=int, default=60, help="steps of the random simulation (as in scripts/test: 60)")
    p.add_argument("--scratch", default="/tmp/concord-mutate", help="the scratch copy (kept for incremental builds)")
    p.add_argument("--no-baseline", action="store_true", help="skip the run without mutation")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per check")
    args = p.parse_args(argv)
    if args.list:
        stale = 0
        for m in MUTATIONS:
            with open(os.path.join(REPOSITORY, m.file), encoding="utf-8") as f:
                count = f.read().count(m.search)
            print(f"{m.name:<32} {m.file}: {m.what}")
            if count != 1:
                stale += 1
                print(f"mutate: {m.name}: the text to replace is found {count} times in {m.file} (expected once): "
                      f"update the mutation in scripts/concordsim/mutate.py", file=sys.stderr)
        return 1 if stale else 0
    chosen = [m for m in MUTATIONS if not args.only or m.name in args.only.split(",")]
    swift = shutil.which("swift") or "/opt/swift/usr/bin/swift"
    os.environ["PATH"] = os.path.dirname(swift) + os.pathsep + os.environ["PATH"]
    scratch = os.path.abspath(args.scratch)
    print(f"mutate: scratch copy of HEAD in {scratch}", flush=True)
    prepare_scratch(scratch)
    for m in chosen:  # every pattern must still be there before anything runs
        original = apply(scratch, m)
        with open(os.path.join(scratch, m.file), "w", encoding="utf-8") as f:
            f.write(original)
    wanted = [c for c in checks(scratch, args.steps) if not args.checks or c[0] in args.checks.split(",")]
    log = os.path.join(scratch, "mutate.log")
    open(log, "w").close()
    rows = []
    for m in ([None] if not args.no_baseline else []) + chosen:
        name = m.name if m else "(none: the code as committed)"
        original = apply(scratch, m) if m else None
        try:
            code, _ = run([swift, "build"], scratch, log, args.timeout)
            if code != 0:
                rows.append((name, {"build": "build failed"}))
                print(f"{name}: the build failed (see {log})", flush=True)
                continue
            results = {}
            for check, command in wanted:
                code, seconds = run(command, scratch, log, args.timeout)
                results[check] = f"CAUGHT ({seconds:.0f}s)" if code != 0 else f"passed ({seconds:.0f}s)"
                print(f"{name}: {check}: {results[check]}", flush=True)
                if args.first and m and code != 0:
                    break
            rows.append((name, results))
        finally:
            if original is not None:
                with open(os.path.join(scratch, m.file), "w", encoding="utf-8") as f:
                    f.write(original)
    names = [c for c, _ in wanted]
    print()
    print("| mutation | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    status = 0
    for name, results in rows:
        print(f"| {name} | " + " | ".join(results.get(c, "-") for c in names) + " |")
        caught = any(v.startswith("CAUGHT") for v in results.values())
        if name.startswith("(none") and caught:
            print("mutate: a check fails on the code as committed: the table means nothing", file=sys.stderr)
            status = 1
        elif not name.startswith("(none") and not caught:
            status = 1
    missed = [name for name, results in rows if not name.startswith("(none") and
              not any(v.startswith("CAUGHT") for v in results.values())]
    if missed:
        print(f"mutate: NOT CAUGHT by any check: {', '.join(missed)}")
    print(f"log: {log}")
    return status
