"""Document contents as the scripts see them: bytes for a file, {path: bytes} for a package.

A content's *key* is a hashable identity made of git blob ids, so that contents read back through
`concord show`, `concord ls --json` or git compare with what was saved without keeping copies.
"""

from __future__ import annotations

import os
import subprocess

from .fixture import blob_id


def content_key(content):
    """("file", blob id), ("package", ((path, blob id), ...)), or None for a deletion."""
    if content is None:
        return None
    if isinstance(content, dict):
        return ("package", tuple(sorted((path, blob_id(data)) for path, data in content.items())))
    return ("file", blob_id(content))


def describe_content(content) -> str:
    if content is None:
        return "deletion"
    if isinstance(content, dict):
        return f"package of {len(content)} files, {sum(len(v) for v in content.values())} bytes"
    lines = content.count(b"\n")
    return f"{lines} line{'s' if lines != 1 else ''}, {len(content)} bytes"


def describe_key(key) -> str:
    if key is None:
        return "deletion"
    if key[0] == "package":
        return f"package {{{', '.join(f'{p}:{b[:7]}' for p, b in key[1])}}}"
    return f"blob {key[1][:7]}"


def encode_content(content):
    if isinstance(content, dict):
        return {"files": {path: data.hex() for path, data in sorted(content.items())}}
    return {"text": content.decode("utf-8")}


def decode_content(step):
    if "files" in step:
        return {path: bytes.fromhex(h) for path, h in step["files"].items()}
    return step["text"].encode("utf-8")


def read_package_folder(folder: str) -> dict:
    files = {}
    for top, _, names in os.walk(folder):
        for n in names:
            full = os.path.join(top, n)
            with open(full, "rb") as fh:
                files[os.path.relpath(full, folder).replace(os.sep, "/")] = fh.read()
    return files


def scratch_names(doc: str) -> list:
    """The temporary files editors and systems leave beside a document `doc` (a path from the
    root), as Concord's built-in ignore rules name them: never documents."""
    folder, name = os.path.split(doc)
    stem = os.path.splitext(name)[0]
    names = [f".{name}.swp", f".{name}.swo", f"{name}~", "4913", f".~lock.{name}#", f"#{name}#", ".DS_Store",
             "Thumbs.db", f"{stem}.tmp", f"._{name}", f"~${name}"]
    return [os.path.join(folder, n) for n in names]


def is_scratch(name: str) -> bool:
    """True for a file name `scratch_names` makes (the simulation writes no document so named)."""
    return (name.startswith((".~lock.", "._", "~$")) or name.endswith((".swp", ".swo", "~", ".tmp"))
            or (name.startswith("#") and name.endswith("#")) or name in ("4913", ".DS_Store", "Thumbs.db"))


def work_tree_docs(root: str, package_suffix=".note") -> dict:
    """Documents as a work tree shows them: path -> bytes, or a package dict. Editors'
    temporary files (`is_scratch`) are left out: Concord never makes them documents."""
    docs = {}
    for top, dirs, files in os.walk(root):
        rel_top = os.path.relpath(top, root)
        if rel_top == ".":
            dirs[:] = sorted(d for d in dirs if d not in (".git", ".concord"))
        for d in list(dirs):
            if package_suffix and d.endswith(package_suffix):
                dirs.remove(d)
                rel = os.path.normpath(os.path.join(rel_top, d))
                docs[rel] = read_package_folder(os.path.join(top, d))
        for f in files:
            if is_scratch(f):
                continue
            rel = os.path.normpath(os.path.join(rel_top, f))
            with open(os.path.join(top, f), "rb") as fh:
                docs[rel] = fh.read()
    return docs


def tree_keys(repository: str, commit: str = "refs/heads/main", package_suffix=".note") -> dict:
    """The documents of a commit's tree, read with `git ls-tree`: path -> content key.

    Concord's own records (`.concord/`) are left out."""
    out = subprocess.run(["git", "-C", repository, "ls-tree", "-r", "-z", commit], capture_output=True,
                         stdin=subprocess.DEVNULL)
    if out.returncode != 0:
        return {}
    files, packages = {}, {}
    for item in out.stdout.split(b"\0"):
        if not item:
            continue
        meta, path = item.split(b"\t", 1)
        path = path.decode("utf-8", "surrogateescape")
        if path.startswith(".concord/"):
            continue
        blob = meta.split()[2].decode()
        parts = path.split("/")
        for i, part in enumerate(parts[:-1]):
            if package_suffix and part.endswith(package_suffix):
                package = "/".join(parts[:i + 1])
                packages.setdefault(package, []).append(("/".join(parts[i + 1:]), blob))
                break
        else:
            files[path] = ("file", blob)
    for package, entries in packages.items():
        files[package] = ("package", tuple(sorted(entries)))
    return files


def version_keys(repository: str, wanted) -> dict:
    """The content keys of many (document, commit) pairs, read with one `git cat-file --batch-check`
    (files) and `git ls-tree` (packages): {(doc, commit): key or None when absent}."""
    result = {}
    pairs = list(wanted)
    files = [(doc, commit) for doc, commit in pairs if not doc.endswith(".note")]
    if files:
        request = "".join(f"{commit}:{doc}\n" for doc, commit in files).encode()
        out = subprocess.run(["git", "-C", repository, "cat-file", "--batch-check=%(objectname) %(objecttype)"],
                             input=request, capture_output=True)
        lines = out.stdout.decode().splitlines()
        for (doc, commit), line in zip(files, lines):
            parts = line.split()
            result[(doc, commit)] = ("file", parts[0]) if len(parts) == 2 and parts[1] == "blob" else None
    for doc, commit in pairs:
        if doc.endswith(".note"):
            out = subprocess.run(["git", "-C", repository, "ls-tree", "-r", "-z", f"{commit}:{doc}"],
                                 capture_output=True, stdin=subprocess.DEVNULL)
            if out.returncode != 0:
                result[(doc, commit)] = None
                continue
            entries = []
            for item in out.stdout.split(b"\0"):
                if item:
                    meta, path = item.split(b"\t", 1)
                    entries.append((path.decode(), meta.split()[2].decode()))
            result[(doc, commit)] = ("package", tuple(sorted(entries)))
    return result
