"""The fuzz targets' seed corpora (Tests/Fuzz/Corpus/<target>/seed-*), made from a real repository.

A small repository is written with the git CLI at fixed dates (folders of notes, a long document
edited in its middle, an executable, a symbolic link, names that sort around `/`, an annotated
tag), then each target gets real files laid out as its input says (see FuzzTarget in
Tests/GitFormatFuzzing): the pack index and pack `git pack-objects` writes (with offset deltas,
with reference deltas, with a table of large offsets), git's own deltas read out of that pack
with their bases, consecutive versions of folders and of the long document, zlib streams from the
pack and from Python's zlib (stored, fastest, best), the repository's loose objects, and its
reference files, and what receive-pack and upload-pack say to a push (advertisements, reports).
Files a fuzz run kept (`scripts/fuzz --keep-corpus`, named by their SHA-1) are
left alone; `seed-*` files are replaced.

  scripts/fuzz --seeds
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import tempfile
import zlib

ENV = {
    "GIT_AUTHOR_NAME": "Seed", "GIT_AUTHOR_EMAIL": "seed@example.invalid",
    "GIT_COMMITTER_NAME": "Seed", "GIT_COMMITTER_EMAIL": "seed@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C",
}


def git(repo: str, *args: str, input: bytes | None = None, date: int = 1_700_000_000) -> bytes:
    env = dict(os.environ, **ENV, GIT_AUTHOR_DATE=f"{date} +0000", GIT_COMMITTER_DATE=f"{date} +0000")
    return subprocess.run(["git", "-C", repo, *args], input=input, env=env, check=True, capture_output=True).stdout


def write(path: str, data: bytes):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def make_repository(repo: str) -> list[str]:
    """The repository; returns its commits, oldest first."""
    os.makedirs(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "gc.auto", "0")
    long = [f"line {n} of a long document that is edited in its middle\n" for n in range(64)]
    for n in range(24):
        write(f"{repo}/notes/note{n:02}.txt", f"note {n}\n".encode())
    for name in ["a.b", "a-b", "a0", "ab"]:
        write(f"{repo}/names/{name}", name.encode() + b"\n")
    write(f"{repo}/names/a/inside.txt", b"a folder named a sorts as a/\n")
    write(f"{repo}/notes/archive/old.txt", b"archived\n")
    write(f"{repo}/long.txt", "".join(long).encode())
    write(f"{repo}/run.sh", b"#!/bin/sh\necho hello\n")
    os.chmod(f"{repo}/run.sh", 0o755)
    os.symlink("long.txt", f"{repo}/link")
    commits = []
    edits = [
        lambda: None,
        lambda: write(f"{repo}/notes/note07.txt", b"note 7, edited\n"),
        lambda: write(f"{repo}/notes/note24.txt", b"note 24, new\n"),
        lambda: os.remove(f"{repo}/notes/note03.txt"),
        lambda: write(f"{repo}/long.txt", "".join(long[:32] + ["an edit in the middle\n"] + long[33:]).encode()),
        lambda: write(f"{repo}/notes/archive/old.txt", b"archived, then edited\n"),
    ]
    for step, edit in enumerate(edits):
        edit()
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"step {step}\n\nConcord-Device: seed\nConcord-Clock: {step}", date=1_700_000_000 + step * 60)
        commits.append(git(repo, "rev-parse", "HEAD").decode().strip())
    git(repo, "tag", "-a", "v1", "-m", "a tag", commits[2], date=1_700_000_500)
    git(repo, "tag", "light", commits[1])
    return commits


def pack_objects(repo: str, out: str, *options: str, listing: str = "main") -> tuple[bytes, bytes]:
    """A pack and its index: of what the revisions in `listing` reach (with --revs), or of the
    objects it lists."""
    name = git(repo, "pack-objects", "-q", *options, out, input=listing.encode() + b"\n").decode().strip()
    with open(f"{out}-{name}.pack", "rb") as p, open(f"{out}-{name}.idx", "rb") as i:
        return p.read(), i.read()


def apply_delta(delta: bytes, base: bytes) -> bytes:
    """git's delta applied, for the seeds' bases (the pack is git's own, so well formed)."""
    at = 0

    def size():
        nonlocal at
        value = shift = 0
        while True:
            byte = delta[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    size()
    size()
    out = bytearray()
    while at < len(delta):
        command = delta[at]
        at += 1
        if command & 0x80:
            offset = length = 0
            for bit in range(7):
                if command & (1 << bit):
                    if bit < 4:
                        offset |= delta[at] << (8 * bit)
                    else:
                        length |= delta[at] << (8 * (bit - 4))
                    at += 1
            out += base[offset:offset + (length or 0x10000)]
        else:
            out += delta[at:at + command]
            at += command
    return bytes(out)


def pack_entries(pack: bytes) -> list[dict]:
    """The entries of a pack, with each delta's instructions and resolved base."""
    count = struct.unpack(">I", pack[8:12])[0]
    at = 12
    entries, by_offset = [], {}
    for _ in range(count):
        start = at
        byte = pack[at]
        at += 1
        kind, size, shift = (byte >> 4) & 7, byte & 15, 4
        while byte & 0x80:
            byte = pack[at]
            at += 1
            size |= (byte & 0x7F) << shift
            shift += 7
        base = None
        if kind == 6:
            byte = pack[at]
            at += 1
            distance = byte & 0x7F
            while byte & 0x80:
                byte = pack[at]
                at += 1
                distance = ((distance + 1) << 7) | (byte & 0x7F)
            base = by_offset[start - distance]
        elif kind == 7:
            at += 20
        inflater = zlib.decompressobj()
        data = inflater.decompress(pack[at:])
        stream = pack[at:len(pack) - len(inflater.unused_data)]
        at += len(stream)
        entry = {"start": start, "kind": kind, "data": data, "stream": stream, "base": base}
        entry["object"] = apply_delta(data, base["object"]) if base else data
        by_offset[start] = entry
        entries.append(entry)
    return entries


def tree_bytes(entries: list[tuple[str, bool]]) -> bytes:
    """A folder's bytes: its (name, is a folder) entries in git's order, each with an id of its own."""
    ordered = sorted(entries, key=lambda e: e[0].encode() + (b"/" if e[1] else b"\0"))
    return b"".join((b"40000 " if tree else b"100644 ") + name.encode() + b"\0" + bytes([n + 1]) * 20
                    for n, (name, tree) in enumerate(ordered))


def number(value: int, width: int) -> bytes:
    return value.to_bytes(width, "big")


def pkt_line(text: bytes) -> bytes:
    return b"%04x" % (len(text) + 4) + text


def receive_pack_exchanges(repo: str, work: str) -> list[tuple[str, bytes]]:
    """What git's receive-pack and upload-pack say, each input led by the size of its pieces:
    their advertisements (plain, and as smart http sends one), and the reports of real pushes
    to a bare clone: accepted, refused as stale, declined by a hook, and the pack refused; then
    the advertisements and reports again as text lines for the target to frame."""
    bare = f"{work}/bare.git"
    # Names git accepts that a byte or two away are names it refuses (ending in .lock, holding ..).
    git(repo, "branch", "release/v1.0.locked")
    git(repo, "branch", "fix/a.b.c")
    subprocess.run(["git", "clone", "-q", "--bare", repo, bare], env=dict(os.environ, **ENV), check=True)
    old = git(repo, "rev-parse", "main").decode().strip()
    git(repo, "commit", "-q", "--allow-empty", "-m", "pushed", date=1_700_100_000)
    new = git(repo, "rev-parse", "main").decode().strip()
    pack = git(repo, "pack-objects", "-q", "--stdout", "--revs", input=f"{new}\n^{old}\n".encode())

    def push(expected: str, data: bytes) -> bytes:
        request = pkt_line(f"{expected} {new} refs/heads/main\0report-status agent=concord\n".encode()) + b"0000" + data
        answer = subprocess.run(["git", "receive-pack", bare], input=request, env=dict(os.environ, **ENV), check=True, capture_output=True).stdout
        return answer[len(advertisement):]

    advertisement = subprocess.run(["git", "receive-pack", "--advertise-refs", bare], env=dict(os.environ, **ENV), check=True,
                                   capture_output=True).stdout
    upload = subprocess.run(["git", "upload-pack", "--advertise-refs", bare], env=dict(os.environ, **ENV), check=True, capture_output=True).stdout
    exchanges = [("receive-pack-advertisement", bytes([63]) + advertisement),
                 ("upload-pack-advertisement", bytes([6]) + upload),
                 ("smart-http-advertisement", bytes([0x87]) + pkt_line(b"# service=git-receive-pack\n") + b"0000" + advertisement),
                 ("push-request", bytes([31]) + pkt_line(f"{old} {new} refs/heads/main\0report-status agent=concord\n".encode()) + b"0000" + pack),
                 ("report-stale", bytes([2]) + push("1" * 40, pack))]
    hook = f"{bare}/hooks/pre-receive"
    write(hook, b"#!/bin/sh\nexit 1\n")
    os.chmod(hook, 0o755)
    exchanges.append(("report-hook-declined", bytes([9]) + push(old, pack)))
    os.remove(hook)
    exchanges.append(("report-bad-pack", bytes([3]) + push(old, pack[:-20] + bytes(20))))
    exchanges.append(("report-ok", bytes([63]) + push(old, pack)))

    # upload-pack's answers to a fetch's one request (UploadPackAnswer): with commits in common
    # (ACK lines), with none (NAK), and its refusal of a commit it does not advertise (ERR).
    def fetch(want: str, haves: list[str]) -> bytes:
        request = (pkt_line(f"want {want} side-band-64k ofs-delta thin-pack agent=concord\n".encode()) + b"0000"
                   + b"".join(pkt_line(f"have {have}\n".encode()) for have in haves) + pkt_line(b"done\n"))
        answer = subprocess.run(["git", "upload-pack", bare], input=request, env=dict(os.environ, **ENV), capture_output=True).stdout
        at = 0  # past the advertisement, up to its flush
        while answer[at:at + 4] != b"0000":
            at += int(answer[at:at + 4], 16)
        return answer[at + 4:]

    ancestors = git(repo, "rev-list", "--first-parent", old).decode().split()
    exchanges.append(("upload-pack-answer-ack", bytes([127]) + fetch(new, ancestors[:2])))
    exchanges.append(("upload-pack-answer-nak", bytes([31]) + fetch(new, [])))
    exchanges.append(("upload-pack-answer-err", bytes([5]) + fetch("2" * 40, [])))
    # The same texts as lines the target frames itself (the steering byte's 0x40).
    for name, data in list(exchanges):
        if name.startswith("report-") or name in ("receive-pack-advertisement", "upload-pack-advertisement"):
            lines, at = b"", 1
            while data[at:at + 4] != b"0000":
                length = int(data[at:at + 4], 16)
                lines += data[at + 4:at + length]
                at += length
            exchanges.append((f"{name}-lines", bytes([0x40 | (data[0] & 0x3F)]) + lines))
    return exchanges


def make(corpus: str):
    seeds: dict[str, dict[str, bytes]] = {}

    def seed(target: str, name: str, data: bytes):
        seeds.setdefault(target, {})[f"seed-{name}"] = data

    work = tempfile.mkdtemp(prefix="concord-seeds-")
    try:
        repo = f"{work}/repo"
        commits = make_repository(repo)
        offset_pack = pack_objects(repo, f"{work}/ofs", "--revs", "--delta-base-offset")
        reference_pack = pack_objects(repo, f"{work}/ref", "--revs")
        large_pack = pack_objects(repo, f"{work}/large", "--revs", "--delta-base-offset", "--index-version=2,0x400")
        archive = [git(repo, "rev-parse", f"{commits[0]}:{path}").decode().strip() for path in ("notes/archive", "notes/archive/old.txt")]
        small_pack = pack_objects(repo, f"{work}/small", listing="\n".join(archive))

        for name, (pack, index) in [("ofs-delta", offset_pack), ("ref-delta", reference_pack),
                                    ("large-offsets", large_pack), ("two-objects", small_pack)]:
            seed("pack-index", name, number(len(pack), 8) + index)
            seed("pack", name, bytes([0]) + number(12, 2) + number(len(pack) - 20, 2) + number(len(index), 2) + index + pack)
        seed("pack", "no-index", bytes(7) + small_pack[0])

        entries = pack_entries(offset_pack[0])
        deltas = [e for e in entries if e["base"] is not None]
        for n, entry in enumerate(sorted(deltas, key=lambda e: len(e["data"]) + len(e["base"]["object"]))[:8]):
            seed("delta", f"git-{n}", number(len(entry["data"]), 2) + entry["data"] + entry["base"]["object"])
        for n, entry in enumerate([e for e in entries if e["base"] is None][:6]):
            seed("zlib", f"pack-entry-{n}", number(len(entry["data"]), 3) + bytes([n * 37 % 256]) + entry["stream"])

        trees = {}
        for n, commit in enumerate(commits):
            for path in ["", "notes", "names", "notes/archive"]:
                spec = f"{commit}^{{tree}}" + (f":{path}" if path else "")
                trees.setdefault(path or "root", []).append(git(repo, "cat-file", "tree", spec))
        long_versions = [git(repo, "cat-file", "blob", f"{c}:long.txt") for c in (commits[0], commits[4])]
        pairs = 0
        for path, versions in trees.items():
            for old, new in zip(versions, versions[1:]):
                if old == new:
                    continue
                pairs += 1
                seed("tree", f"{path.replace('/', '-')}-{pairs}", number(pairs * 0x1111 & 0x7FFF, 2) + number(len(old), 2) + old + new)
                seed("delta-make", f"tree-{path.replace('/', '-')}-{pairs}", bytes([1]) + number(len(old), 2) + old + new)
        names = trees["names"][0]
        seed("tree", "names-against-nothing", number(0x8001, 2) + number(len(names), 2) + names)
        twin = b"100644 x\0" + bytes(20) + b"40000 x\0" + bytes(20)
        seed("tree", "file-and-folder-of-one-name", number(0, 2) + number(len(twin), 2) + twin + twin)
        # A file x among twenty names that extend it (x-00 ... x-19 sort between x and x/): a folder x
        # added beside it is a twin that RawTree.differences cannot decide among its neighbours, so it
        # checks the whole folder; an edit of one of them is decided there.
        crowd = [("x", False)] + [(f"x-{n:02}", False) for n in range(20)] + [("y", False)]
        seed("tree", "crowd-gains-a-folder-twin", number(0, 2) + number(len(tree_bytes(crowd)), 2) + tree_bytes(crowd) + tree_bytes(crowd + [("x", True)]))
        seed("tree", "crowd-gains-a-folder", number(0, 2) + number(len(tree_bytes(crowd)), 2) + tree_bytes(crowd) + tree_bytes(crowd + [("x-", True)]))
        seed("delta-make", "long-document", bytes([0]) + number(len(long_versions[0]), 2) + long_versions[0] + long_versions[1])
        seed("delta-make", "same-document", bytes([0]) + number(len(long_versions[0]), 2) + long_versions[0] + long_versions[0])

        for level in (0, 1, 9):
            data = long_versions[1][:1500]
            seed("zlib", f"level-{level}", number(len(data), 3) + bytes([level * 25]) + zlib.compress(data, level))
        seed("zlib", "trailing-bytes", number(5, 3) + bytes([0]) + zlib.compress(b"hello") + b"after")

        objects = f"{repo}/.git/objects"
        loose = {}
        for kind_name, spec in [("commit", commits[-1]), ("tree", f"{commits[-1]}^{{tree}}"), ("blob", f"{commits[-1]}:notes/note07.txt"),
                                ("tag", "v1"), ("long-blob", f"{commits[-1]}:long.txt")]:
            oid = git(repo, "rev-parse", spec).decode().strip()
            with open(f"{objects}/{oid[:2]}/{oid[2:]}", "rb") as f:
                loose[kind_name] = f.read()
            seed("loose-object", kind_name, number(0xFFFF, 2) + loose[kind_name])
        raw = zlib.decompress(loose["blob"])
        seed("loose-object", "blob-stored", number(0xFFFF, 2) + zlib.compress(raw, 0))
        seed("loose-object", "over-the-limit", number(8, 2) + zlib.compress(raw, 0))

        for n, commit in enumerate(commits[:3]):
            seed("commit", f"git-{n}", git(repo, "cat-file", "commit", commit))

        with open(f"{repo}/.git/refs/heads/main", "rb") as f:
            seed("references", "loose-main", f.read())
        seed("references", "symbolic-head", b"ref: refs/heads/main\n")
        git(repo, "pack-refs", "--all")
        with open(f"{repo}/.git/packed-refs", "rb") as f:
            seed("references", "packed-refs", f.read())

        for name, data in receive_pack_exchanges(repo, work):
            seed("pkt-line", name, data)

        # JSON as the cloud brings it: a document the JSON policy merges (in the layouts people
        # write), key-value entries, escapes, deep nesting, and texts that must be refused.
        document = {"name": "notes", "version": "1.2.0", "tags": ["a", "b"], "items": [{"id": 1, "done": False}, {"id": 2, "x": None}],
                    "price": -12.50e-3, "text": "caf\u00e9 \U0001F600 \"quoted\" \\ / \t"}
        seed("json", "standard", json.dumps(document, indent=2, ensure_ascii=False).encode())
        seed("json", "compact", json.dumps(document, separators=(",", ":")).encode())
        seed("json", "tabs-crlf-bom", b"\xef\xbb\xbf" + json.dumps(document, indent="\t").replace("\n", "\r\n").encode())
        seed("json", "kv-entry", b'{"clock":"1700000000123.4","device":"3f2a","value":{"theme":"dark","size":14}}\n')
        seed("json", "kv-tombstone", b'{"clock":"1700000000999.0","deleted":true,"device":"3f2a"}')
        seed("json", "escapes", b'["\\u0000\\u001f\\ud83d\\ude00\\ud800\\udc00x\\uDBFF\\uDFFF\\b\\f\\n\\r\\t\\/", 0, -0, 1E+400, 0.5e-7]')
        seed("json", "lone-surrogates", b'["\\ud800", "\\udc00x", "\\ud800\\u0041"]')
        seed("json", "nested", b"[" * 40 + b'{"a":[]}' + b"]" * 40)
        seed("json", "bad-duplicate-member", b'{"a": 1, "a": 2}')
        # Two names, and two strings, that differ by Unicode normalization alone: different in JSON.
        seed("json", "normalization-twins", '{"caf\u00e9": "caf\u00e9", "cafe\u0301": ["cafe\u0301", "caf\\u00e9"]}'.encode())
        seed("json", "bad-utf8", b'["\xc3\x28"]')
        seed("json", "bad-trailing-comma", b'{"a": [1, 2,]}\n')

        # Glob patterns as .concord/policies and package patterns write them, each with a path:
        # two steering bytes, the pattern, a zero byte, the path.
        for name, pattern, path in [("extension", "*.json", "settings/app.json"), ("anchored", "docs/*.md", "docs/readme.md"),
                                    ("folders", "**/logs/*.log", "a/b/logs/x.log"), ("inside", "notes/**", "notes/2026/a.txt"),
                                    ("sets", "[!._]*[0-9][[:alpha:]]?", "v1a.txt"), ("escapes", "\\*\\[x\\]", "*[x]"),
                                    ("unclosed", "a[b*[c", "a[bzz[c"), ("package", "*.note", "Trip to Kyoto.note"),
                                    ("unicode", "caf?/*", "café/thé.txt"), ("path-only", "", "f00/g00/doc000001.txt")]:
            seed("glob", name, bytes([len(name) % 7, len(path) % 5]) + (pattern.encode() + b"\0" if pattern else b"") + path.encode())
    finally:
        shutil.rmtree(work, ignore_errors=True)

    for target, files in sorted(seeds.items()):
        folder = os.path.join(corpus, target)
        os.makedirs(folder, exist_ok=True)
        for old in os.listdir(folder):
            if old.startswith("seed-"):
                os.remove(os.path.join(folder, old))
        for name, data in sorted(files.items()):
            write(os.path.join(folder, name), data)
        print(f"seeds: {target}: {len(files)} files, {sum(map(len, files.values())):,} bytes")
