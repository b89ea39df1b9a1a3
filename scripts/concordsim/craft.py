"""Damage and traps in a cloud's own files, written byte by byte as an attacker who can write to
the cloud's folder would: packs and pack indexes that lie, loose objects that claim sizes they do
not hold, delta chains that loop, trees nested without end, alternates, FIFOs, junk. Concord must
refuse each in one line, without a signal, a hang, or memory beyond its stated bound, and keep the
device's own versions whole (issue 36; DESIGN.md: the cloud is input).

Used by the Swift tests (Tests/ConcordCLITests/UntrustedCloudTests.swift runs this file), the random
simulation and the crash harness. Nothing here runs concord; git only reads main's tree.

    python3 -B scripts/concordsim/craft.py ATTACK CLOUD_GIT_DIR [--outside FOLDER]

prints the commit the cloud's main now points at (its parent is the main before), or nothing for
attacks that leave main alone.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import struct
import sys
import zlib

OBJECT_TYPES = {"commit": 1, "tree": 2, "blob": 3, "tag": 4}
AUTHOR = "Mallory <mallory@example.invalid> 1800000000 +0000"


class Cloud:
    """A bare repository written without git: loose objects, packs with their indexes, main."""

    def __init__(self, git_dir: str):
        self.git_dir = git_dir

    # objects

    @staticmethod
    def object_id(kind: str, data: bytes) -> bytes:
        return hashlib.sha1(f"{kind} {len(data)}\0".encode() + data).digest()

    def write_loose(self, kind: str, data: bytes, header_size: int | None = None, objects: str | None = None) -> bytes:
        """Writes a loose object; `header_size` makes its header claim another size (the id is
        still that of `data`)."""
        oid = self.object_id(kind, data)
        size = len(data) if header_size is None else header_size
        folder = os.path.join(objects or os.path.join(self.git_dir, "objects"), oid.hex()[:2])
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, oid.hex()[2:])
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(zlib.compress(f"{kind} {size}\0".encode() + data))
        return oid

    @staticmethod
    def tree_bytes(entries) -> bytes:
        """A tree's bytes from [(mode, name bytes, id bytes)], in git's order."""
        def key(e):
            return e[1] + (b"/" if e[0] == "40000" else b"")
        return b"".join(mode.encode() + b" " + name + b"\0" + oid for mode, name, oid in sorted(entries, key=key))

    def tree(self, entries, objects: str | None = None) -> bytes:
        return self.write_loose("tree", self.tree_bytes(entries), objects=objects)

    def commit(self, tree: bytes, parents, message: str = "hostile commit\n", objects: str | None = None) -> bytes:
        text = f"tree {tree.hex()}\n" + "".join(f"parent {p.hex()}\n" for p in parents)
        text += f"author {AUTHOR}\ncommitter {AUTHOR}\n\n{message}"
        return self.write_loose("commit", text.encode(), objects=objects)

    # what main holds

    def main(self) -> bytes:
        with open(os.path.join(self.git_dir, "refs", "heads", "main")) as f:
            return bytes.fromhex(f.read().strip())

    def set_main(self, commit: bytes):
        path = os.path.join(self.git_dir, "refs", "heads", "main")
        with open(path + ".new", "w") as f:
            f.write(commit.hex() + "\n")
        os.replace(path + ".new", path)

    def main_tree_entries(self):
        """The entries of main's root tree, read with git (the cloud's own objects may be packed)."""
        import subprocess
        tree = subprocess.run(["git", "--git-dir", self.git_dir, "rev-parse", "main^{tree}"], capture_output=True,
                              check=True).stdout.decode().strip()
        out = subprocess.run(["git", "--git-dir", self.git_dir, "ls-tree", "-z", tree], capture_output=True, check=True).stdout
        entries = []
        for item in out.split(b"\0"):
            if item:
                meta, name = item.split(b"\t", 1)
                mode, _, oid = meta.decode().split()
                entries.append(("40000" if mode == "040000" else mode, name, bytes.fromhex(oid)))
        return entries

    def push(self, extra, message: str = "hostile commit\n") -> bytes:
        """Moves main to a new commit: main's root tree with `extra` entries added (an entry of the
        same name replaced)."""
        parent = self.main()
        names = {e[1] for e in extra}
        root = self.tree([e for e in self.main_tree_entries() if e[1] not in names] + list(extra))
        commit = self.commit(root, [parent], message)
        self.set_main(commit)
        return commit

    # packs

    @staticmethod
    def entry_header(kind: int, size: int) -> bytes:
        out = bytearray()
        byte = (kind << 4) | (size & 0x0F)
        size >>= 4
        while size:
            out.append(byte | 0x80)
            byte = size & 0x7F
            size >>= 7
        out.append(byte)
        return bytes(out)

    @staticmethod
    def varint(value: int) -> bytes:
        out = bytearray()
        while True:
            byte = value & 0x7F
            value >>= 7
            out.append(byte | (0x80 if value else 0))
            if not value:
                return bytes(out)

    def whole_entry(self, kind: str, data: bytes, declared: int | None = None) -> bytes:
        return self.entry_header(OBJECT_TYPES[kind], len(data) if declared is None else declared) + zlib.compress(data)

    def ref_delta_entry(self, base: bytes, instructions: bytes) -> bytes:
        return self.entry_header(7, len(instructions)) + base + zlib.compress(instructions)

    @staticmethod
    def index_bytes(ids, offsets, crcs, checksum: bytes, count: int | None = None) -> bytes:
        order = sorted(range(len(ids)), key=lambda i: ids[i])
        fanout = [0] * 256
        for oid in ids:
            fanout[oid[0]] += 1
        total, table = 0, b""
        for n in fanout:
            total += n
            table += struct.pack(">I", total)
        data = b"\xfftOc" + struct.pack(">I", 2) + table
        data += b"".join(ids[i] for i in order)
        data += b"".join(struct.pack(">I", crcs[i]) for i in order)
        data += b"".join(struct.pack(">I", offsets[i]) for i in order)
        data += checksum
        return data + hashlib.sha1(data).digest()

    def write_pack(self, entries) -> str:
        """Writes a pack of `entries` [(id bytes, entry bytes)] and its index; returns the stem."""
        body = b"PACK" + struct.pack(">II", 2, len(entries))
        ids, offsets, crcs = [], [], []
        for oid, entry in entries:
            ids.append(oid)
            offsets.append(len(body))
            crcs.append(zlib.crc32(entry))
            body += entry
        checksum = hashlib.sha1(body).digest()
        folder = os.path.join(self.git_dir, "objects", "pack")
        os.makedirs(folder, exist_ok=True)
        stem = os.path.join(folder, "pack-" + checksum.hex())
        with open(stem + ".pack", "wb") as f:
            f.write(body + checksum)
        with open(stem + ".idx", "wb") as f:
            f.write(self.index_bytes(ids, offsets, crcs, checksum))
        return stem


def fake_id(label: str) -> bytes:
    return hashlib.sha1(label.encode()).digest()


# The attacks. Each returns the new main (or None) and prints nothing itself.

def deep_tree(cloud: Cloud, depth: int = 10_000) -> bytes:
    """Folders nested `depth` deep (`d/d/d/…/f`): a walk that recurses over them overflows the stack."""
    node = cloud.tree([("100644", b"f", cloud.write_loose("blob", b"deep\n"))])
    for _ in range(depth - 1):
        node = cloud.tree([("40000", b"d", node)])
    return cloud.push([("40000", b"deep", node)])


def fanout_past_count(cloud: Cloud) -> bytes:
    """A pack whose index's fan-out table runs past its object count, holding the only copy of a
    file main names: reading the index unchecked reads past its end."""
    blob = b"only in a damaged pack\n"
    oid = Cloud.object_id("blob", blob)
    stem = cloud.write_pack([(oid, cloud.whole_entry("blob", blob))])
    with open(stem + ".idx", "r+b") as f:
        data = bytearray(f.read())
        for bucket in range(0x10, 0xFF):
            data[8 + bucket * 4:12 + bucket * 4] = struct.pack(">I", 0x7FFF_FFF0)
        f.seek(0)
        f.write(data)
    return cloud.push([("100644", b"damaged-pack.txt", oid)])


def huge_count_index(cloud: Cloud) -> bytes:
    """An index claiming 0xFFFFFFFF objects (every fan-out entry), beside its pack."""
    blob = b"behind an index that claims four billion objects\n"
    oid = Cloud.object_id("blob", blob)
    stem = cloud.write_pack([(oid, cloud.whole_entry("blob", blob))])
    with open(stem + ".idx", "r+b") as f:
        data = bytearray(f.read())
        for bucket in range(256):
            data[8 + bucket * 4:12 + bucket * 4] = b"\xff\xff\xff\xff"
        f.seek(0)
        f.write(data)
    return cloud.push([("100644", b"four-billion.txt", oid)])


def zeros_deflated(size: int, prefix: bytes = b"") -> bytes:
    """`prefix` and `size` zero bytes, deflated (at zlib's fastest: 3 GiB take some 14 MB)."""
    compressor = zlib.compressobj(1)
    chunk = b"\0" * (64 << 20)
    parts = [compressor.compress(prefix)]
    left = size
    while left > 0:
        parts.append(compressor.compress(chunk[:min(left, len(chunk))]))
        left -= len(chunk)
    parts.append(compressor.flush())
    return b"".join(parts)


def packed_blob_claiming(cloud: Cloud, size: int = 3 << 30) -> bytes:
    """A packed blob of `size` zero bytes (3 GiB) in a pack of 14 MB: a reader that believes
    its header and inflates it spends the 3 GiB."""
    oid = fake_id(f"packed blob claiming {size}")
    cloud.write_pack([(oid, cloud.entry_header(OBJECT_TYPES["blob"], size) + zeros_deflated(size))])
    return cloud.push([("100644", b"huge.bin", oid)])


def loose_blob_claiming(cloud: Cloud, size: int = 3 << 30) -> bytes:
    """A loose blob of `size` zero bytes (3 GiB) in a file of 14 MB."""
    oid = fake_id(f"loose blob claiming {size}")
    folder = os.path.join(cloud.git_dir, "objects", oid.hex()[:2])
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, oid.hex()[2:]), "wb") as f:
        f.write(zeros_deflated(size, prefix=f"blob {size}\0".encode()))
    return cloud.push([("100644", b"huge-loose.bin", oid)])


def tree_delta_bomb(cloud: Cloud, count: int = 5, size: int = 1 << 30) -> bytes:
    """`count` folders stored as deltas that each claim to rebuild a `size`-byte folder (1 GiB)
    from a small one, in a pack of a few kilobytes."""
    base_tree = Cloud.tree_bytes([("100644", b"a", fake_id("a"))])
    base = Cloud.object_id("tree", base_tree)
    entries = [(base, cloud.whole_entry("tree", base_tree))]
    folders = []
    for number in range(count):
        instructions = Cloud.varint(len(base_tree)) + Cloud.varint(size) + bytes([0x80 | 0x10, len(base_tree)])
        oid = fake_id(f"bomb {number}")
        entries.append((oid, cloud.ref_delta_entry(base, instructions)))
        folders.append(("40000", f"bomb{number}".encode(), oid))
    cloud.write_pack(entries)
    return cloud.push(folders)


def blob_delta_bomb(cloud: Cloud, size: int = 1 << 30) -> bytes:
    """A file stored as a delta that really rebuilds `size` bytes (1 GiB) from a 64 KB base with
    16 KB of copy instructions: a reader that trusts the size the delta's header gives, or only
    the size its pack entry declares (libgit2's indexer), spends a gigabyte on it. A server
    that sends it needs to read nothing of it."""
    base_blob = os.urandom(1 << 16)
    base = Cloud.object_id("blob", base_blob)
    instructions = Cloud.varint(len(base_blob)) + Cloud.varint(size) + b"\x80" * (size >> 16)
    oid = fake_id(f"blob bomb {size}")
    cloud.write_pack([(base, cloud.whole_entry("blob", base_blob)), (oid, cloud.ref_delta_entry(base, instructions))])
    return cloud.push([("100644", b"bomb.bin", oid), ("100644", b"bomb-base.bin", base)])


def ref_delta_cycle(cloud: Cloud) -> bytes:
    """Two deltas that are each other's base (a pack of about a hundred bytes): a reader that
    follows bases without a check for loops never stops."""
    a, b = fake_id("cycle a"), fake_id("cycle b")
    instructions = Cloud.varint(4) + Cloud.varint(4) + bytes([4]) + b"loop"
    cloud.write_pack([(a, cloud.ref_delta_entry(b, instructions)), (b, cloud.ref_delta_entry(a, instructions))])
    return cloud.push([("100644", b"cycle.txt", a)])


def fifo_index(cloud: Cloud) -> bytes:
    """A FIFO where a pack's index should be, beside its pack, and main naming a file that only
    that pack holds: opening it the plain way blocks for ever."""
    blob = b"behind a fifo\n"
    oid = Cloud.object_id("blob", blob)
    stem = cloud.write_pack([(oid, cloud.whole_entry("blob", blob))])
    commit = cloud.push([("100644", b"fifo.txt", oid)])
    os.remove(stem + ".idx")
    os.mkfifo(stem + ".idx")
    return commit


def fifo_loose(cloud: Cloud) -> bytes:
    """A FIFO where a loose object main names should be."""
    oid = fake_id("a fifo as a loose object")
    commit = cloud.push([("100644", b"fifo-loose.txt", oid)])
    folder = os.path.join(cloud.git_dir, "objects", oid.hex()[:2])
    os.makedirs(folder, exist_ok=True)
    os.mkfifo(os.path.join(folder, oid.hex()[2:]))
    return commit


def alternates(cloud: Cloud, outside: str) -> bytes:
    """A commit whose objects live only in a folder `outside` the cloud, which the cloud's
    `objects/info/alternates` names: a reader that honours alternates adopts them without a copy."""
    objects = os.path.join(outside, "objects")
    os.makedirs(objects, exist_ok=True)
    blob = cloud.write_loose("blob", b"lives only outside the cloud\n", objects=objects)
    parent = cloud.main()
    root = cloud.tree([e for e in cloud.main_tree_entries() if e[1] != b"outside.txt"] + [("100644", b"outside.txt", blob)],
                      objects=objects)
    commit = cloud.commit(root, [parent], "a commit that lives outside the cloud\n", objects=objects)
    info = os.path.join(cloud.git_dir, "objects", "info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "alternates"), "w") as f:
        f.write(os.path.abspath(objects) + "\n")
    cloud.set_main(commit)
    return commit


def junk(cloud: Cloud, tags: int = 100_000) -> None:
    """Junk beside the cloud's objects, as a shared folder collects it: a 2.5 GB sparse file, an
    executable script in objects/info/, and `tags` tags in packed-refs. Main is left alone."""
    with open(os.path.join(cloud.git_dir, "objects", "junk.bin"), "wb") as f:
        f.truncate(5 << 29)
    info = os.path.join(cloud.git_dir, "objects", "info")
    os.makedirs(info, exist_ok=True)
    script = os.path.join(info, "run-me.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\ntouch PWNED\n")
    os.chmod(script, 0o755)
    main = cloud.main().hex()
    with open(os.path.join(cloud.git_dir, "packed-refs"), "a") as f:
        f.write("# pack-refs with: peeled fully-peeled sorted \n")
        for number in range(tags):
            f.write(f"{main} refs/tags/t{number:06d}\n")
    return None


def one_file_many_names(cloud: Cloud, size: int = 102_400, names: int = 40) -> bytes:
    """One file of `size` bytes named `names` times: it arrives once, a checkout writes it each time."""
    blob = cloud.write_loose("blob", os.urandom(size))
    return cloud.push([("40000", b"copies", cloud.tree([("100644", f"copy-{n:03d}".encode(), blob) for n in range(names)]))])


def garbage_packed_refs(cloud: Cloud) -> None:
    """packed-refs full of garbage, and main moved into it (its loose file removed)."""
    main = cloud.main().hex()
    os.remove(os.path.join(cloud.git_dir, "refs", "heads", "main"))
    with open(os.path.join(cloud.git_dir, "packed-refs"), "w") as f:
        f.write(f"{main} refs/heads/main\nthis is not a reference\n\x00\x01garbage\n")
    return None


ATTACKS = {
    "deep-tree": deep_tree,
    "fanout-past-count": fanout_past_count,
    "huge-count-index": huge_count_index,
    "packed-blob-claiming-3g": packed_blob_claiming,
    "loose-blob-claiming-3g": loose_blob_claiming,
    "tree-delta-bomb": tree_delta_bomb,
    "ref-delta-cycle": ref_delta_cycle,
    "blob-delta-bomb": blob_delta_bomb,
    "fifo-index": fifo_index,
    "fifo-loose": fifo_loose,
    "garbage-packed-refs": garbage_packed_refs,
    "one-file-many-names": one_file_many_names,
}

# Attacks whose refusal can name the commit (the rest damage the cloud's storage, not a commit).
NAMES_THE_COMMIT = {"deep-tree", "packed-blob-claiming-3g", "loose-blob-claiming-3g", "tree-delta-bomb", "blob-delta-bomb"}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("attack", choices=sorted(ATTACKS) + ["alternates", "junk"])
    parser.add_argument("cloud")
    parser.add_argument("--outside", help="alternates: the folder outside the cloud that holds the objects")
    parser.add_argument("--size", type=int, default=1024, help="one-file-many-names: the file's size")
    parser.add_argument("--names", type=int, default=40, help="one-file-many-names: how many names")
    parser.add_argument("--tags", type=int, default=100_000, help="junk: how many tags")
    args = parser.parse_args(argv)
    cloud = Cloud(args.cloud)
    if args.attack == "alternates":
        result = alternates(cloud, args.outside)
    elif args.attack == "junk":
        result = junk(cloud, args.tags)
    elif args.attack == "one-file-many-names":
        result = one_file_many_names(cloud, args.size, args.names)
    else:
        result = ATTACKS[args.attack](cloud)
    if result is not None:
        print(result.hex())
    return 0


if __name__ == "__main__":
    sys.exit(main())
