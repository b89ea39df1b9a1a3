#!/usr/bin/env python3
"""Long use: Concord after a long history (issue 16), side by side with git.

Run through scripts/bench (which builds the release binary):

  scripts/bench --history 1000,10000,100000     # containers with a history of N commits
  scripts/bench --rounds 400                    # N rounds of save + sync on two devices
  scripts/bench --history 1000 --rounds 60 --reps 3 --no-write

--history N: a container of 1,000 documents (f00/g00/doc000000.txt...) whose main has N commits:
Concord's first commit, one that adds the documents, then one commit per save, each changing the
next document in turn, except DOC (document 7), saved 9 times spread over the history (10 versions
at every length, so that its figures show what the length of the history costs), with Concord's trailers
(device, clock), made with `git fast-import` and pushed to a cloud on a local path; device 2 gets
them with git plumbing. Then, --reps times each, alternating with git on a clone of the same history:

  first write       the first `concord kv set` after the import: it builds the history index
                    from the repository alone (once, untimed for the figures below)
  log               concord log DOC                 | git log --full-history -- DOC
  versions --all    concord versions DOC --all      | git log --full-history -- DOC
  versions          concord versions DOC            | git log -1 -- DOC
  show --version    concord show DOC --version V    | git show V:DOC   (V: DOC's oldest version)
  save              concord save DOC --file F       | git add DOC + git commit
  sync              the airplane round on fresh copies: device 1 saved and pushed one document,
                    device 2 saved another offline; device 2's `concord sync` (fetch, integrate,
                    push) | git fetch + git merge + git push

--rounds N: a container of 1,000 documents on two devices and a cloud on a local path; each round,
device 1 saves one document and syncs, then device 2 does. Every 20 rounds (and at 3 and 60):
packs on each device and in the cloud, loose objects, the size of device 1's .git and of a copy of
it after `git gc`, and the median sync time of the rounds since the last checkpoint.

Targets (issue 16): after 400 rounds, <= 20 packs on each device and in the cloud, a device's .git
<= 1.5x its gc'd copy, sync in the last 20 rounds <= 1.2x rounds 6-25; log and versions --all at
100,000 commits <= 1.0x git and <= 2x at 1,000; sync at 100,000 commits <= 1.2x at 1,000.

Writes benchmarks/history.json and benchmarks/history.md (unless --no-write).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402  (run, timed, git_env, loadavg, REPO; it puts scripts/ on the path)
from bench import Failed, log, run, timed  # noqa: E402
from concordsim.bulk_fixture import BulkFixture, doc_content, doc_path, fast_import_commit, write_docs  # noqa: E402

DOCUMENTS = 1000
DOC = 7             # the document whose history is read
DOC_VERSIONS = 10   # its versions, at every history length
START = 1_795_000_000


def concord(args, *rest) -> list[str]:
    return [args.concord, *map(str, rest)]


def du_kb(path: Path) -> int:
    return int(run(["du", "-sk", path]).split()[0])


def packs(git_dir: Path) -> int:
    return len(list((git_dir / "objects" / "pack").glob("*.pack")))


def loose(git_dir: Path) -> int:
    return sum(len(files) for folder, _, files in os.walk(git_dir / "objects")
               if len(Path(folder).name) == 2 and Path(folder).parent == git_dir / "objects")


def history_stream(device_id: str, n: int) -> bytes:
    """Commits 2...n of main for fast-import: the documents, then one save a commit."""
    ident = f"one <{device_id}@concord.invalid>"

    def commit(i: int, message: str, files: list[tuple[str, bytes]], first: bool, document: str | None = None) -> bytes:
        t = START + i
        trailers = (f"Concord-Document: {document}\n" if document else "") + f"Concord-Device: {device_id}\nConcord-Clock: {t * 1000}.0\n"
        return fast_import_commit(ident, t, f"{message}\n\n{trailers}", files, first=first)

    out = [commit(0, f"Add {DOCUMENTS} documents", [(doc_path(i), doc_content(i)) for i in range(DOCUMENTS)], True)]
    # DOC gets DOC_VERSIONS - 1 saves spread over the history, whatever its length, so that its
    # figures show what the length of the history costs; the other saves go round the rest.
    doc_saves = {1 + (k * (n - 3)) // (DOC_VERSIONS - 1) for k in range(DOC_VERSIONS - 1)}
    others = [d for d in range(DOCUMENTS) if d != DOC]
    for i in range(1, n - 1):
        d = DOC if i in doc_saves else others[i % len(others)]
        path = doc_path(d)
        out.append(commit(i, f"Save {path}", [(path, doc_content(d) + f"Revision {i}.\n".encode())], False, document=path))
    return b"".join(out)


class History:
    """A container with a history of n commits: device 1, device 2, their cloud, and git's pair."""

    def __init__(self, args, n: int):
        self.args, self.n = args, n
        self.root = Path(args.workdir) / f"history{n}"
        self.cloud, self.dev1, self.dev2 = self.root / "cloud.git", self.root / "dev1", self.root / "dev2"
        self.gcloud, self.g1, self.g2 = self.root / "gcloud.git", self.root / "g1", self.root / "g2"
        self.tmp = self.root / "tmp"
        self.doc = doc_path(DOC)
        self.setup: dict = {}

    def build(self) -> None:
        a = self.args
        run(["rm", "-rf", self.root])
        self.tmp.mkdir(parents=True)
        fx = BulkFixture(a.concord, self.root, env=bench.ENV)
        times = fx.setup_filled(DOCUMENTS, stream=history_stream(fx.devices[0].id, self.n))
        self.setup["fast_import_s"] = round(sum(times.values()), 2)
        count = int(run(["git", "-C", self.dev1, "rev-list", "--count", "main"]))
        if count != self.n:
            raise Failed(f"main has {count} commits, expected {self.n}")
        fx.copy_cloud(self.gcloud.name)
        for g in (self.g1, self.g2):
            fx.git_clone(self.gcloud, g.name)
        for dev in (self.dev1, self.dev2):
            s, rss, _ = timed(concord(a, "-C", dev, "kv", "set", "bench", "\"ready\""))
            self.setup[f"first_write_{dev.name}_s"] = round(s, 3)
            self.setup[f"first_write_{dev.name}_peak_rss_kb"] = rss
        run(concord(a, "-C", self.dev1, "sync"))
        run(concord(a, "-C", self.dev2, "sync"))
        run(["git", "-C", self.g2, "pull", "-q", "--no-rebase"])
        versions = run(["git", "-C", self.g1, "log", "--full-history", "--format=%H", "--", self.doc]).split()
        self.oldest = versions[-1]
        self.setup["doc_versions"] = len(versions)
        log(f"history {self.n}: built {self.setup}")

    def measure(self, results: dict) -> None:
        a, doc = self.args, self.doc
        pairs = {
            "log": (concord(a, "-C", self.dev1, "log", doc),
                    ["git", "-C", self.g1, "log", "--full-history", "--", doc]),
            "versions --all": (concord(a, "-C", self.dev1, "versions", doc, "--all"),
                               ["git", "-C", self.g1, "log", "--full-history", "--", doc]),
            "versions": (concord(a, "-C", self.dev1, "versions", doc),
                         ["git", "-C", self.g1, "log", "-1", "--", doc]),
            "show --version": (concord(a, "-C", self.dev1, "show", doc, "--version", self.oldest),
                               ["git", "-C", self.g1, "show", f"{self.oldest}:{doc}"]),
        }
        for rep in range(a.reps):
            for op, (mine, theirs) in pairs.items():
                order = [("concord", mine), ("git", theirs)]
                for tool, argv in (order if rep % 2 == 0 else order[::-1]):
                    results.setdefault((self.n, op, tool), []).append(timed(argv)[0])
            content = self.tmp / "content"
            save_doc = doc_path(500)
            content.write_bytes(doc_content(500) + f"Bench save {rep}.\n".encode())
            results.setdefault((self.n, "save", "concord"), []).append(
                timed(concord(a, "-C", self.dev1, "save", save_doc, "--file", content))[0])
            (self.g1 / save_doc).write_bytes(content.read_bytes())
            s1 = timed(["git", "-C", self.g1, "add", save_doc])[0]
            s2 = timed(["git", "-C", self.g1, "commit", "-q", "-m", "save"])[0]
            results.setdefault((self.n, "save", "git"), []).append(s1 + s2)
        run(concord(a, "-C", self.dev1, "sync"))
        run(["git", "-C", self.g1, "push", "-q", "origin", "main"])
        run(concord(a, "-C", self.dev2, "sync"))
        run(["git", "-C", self.g2, "pull", "-q", "--no-rebase"])
        for rep in range(a.reps):
            self.sync_rep(rep, results)

    def sync_rep(self, rep: int, results: dict) -> None:
        """Device 1 pushes one saved document; device 2, with one offline save, syncs."""
        a = self.args
        mine, theirs = doc_path(100 + 2 * rep), doc_path(101 + 2 * rep)
        content = self.tmp / "content"
        content.write_bytes(f"Round {rep} on device one.\n".encode())
        run(concord(a, "-C", self.dev1, "save", mine, "--file", content))
        run(concord(a, "-C", self.dev1, "sync"))
        (self.g1 / mine).write_bytes(content.read_bytes())
        run(["git", "-C", self.g1, "commit", "-q", "-am", "one"])
        run(["git", "-C", self.g1, "push", "-q", "origin", "main"])
        content.write_bytes(f"Round {rep} on device two.\n".encode())
        run(concord(a, "-C", self.dev2, "save", theirs, "--file", content))
        (self.g2 / theirs).write_bytes(content.read_bytes())
        run(["git", "-C", self.g2, "commit", "-q", "-am", "two"])
        run(["sync"])
        steps = [(concord(a, "-C", self.dev2, "sync"), "concord"),
                 (None, "git")]
        for argv, tool in (steps if rep % 2 == 0 else steps[::-1]):
            if tool == "concord":
                results.setdefault((self.n, "sync", tool), []).append(timed(argv)[0])
            else:
                s = timed(["git", "-C", self.g2, "fetch", "-q", "origin"])[0]
                s += timed(["git", "-C", self.g2, "merge", "-q", "--no-edit", "origin/main"])[0]
                s += timed(["git", "-C", self.g2, "push", "-q", "origin", "main"])[0]
                results.setdefault((self.n, "sync", tool), []).append(s)
        run(concord(a, "-C", self.dev1, "sync"))
        run(["git", "-C", self.g1, "pull", "-q", "--no-rebase"])


def run_rounds(args) -> list[dict]:
    """--rounds: two devices, one save and one sync each a round; figures at checkpoints."""
    a = args
    root = Path(a.workdir) / "rounds"
    run(["rm", "-rf", root])
    tmp = root / "tmp"
    tmp.mkdir(parents=True)
    cloud, dev1, dev2 = root / "cloud.git", root / "dev1", root / "dev2"
    run(concord(a, "init", dev1, "--device", "one", "--remote", cloud))
    write_docs(dev1, DOCUMENTS)
    run(concord(a, "-C", dev1, "save", "--all"))
    run(concord(a, "-C", dev1, "sync"))
    run(concord(a, "clone", cloud, dev2, "--device", "two"))
    checkpoints = sorted({3, 60, a.rounds} | set(range(20, a.rounds + 1, 20)))
    rows, syncs = [], []
    since = 0
    for r in range(1, a.rounds + 1):
        for index, dev in enumerate((dev1, dev2)):
            d = (r * 7 + index * 500) % DOCUMENTS
            content = tmp / "content"
            content.write_bytes(doc_content(d) + f"Round {r} on {dev.name}.\n".encode())
            run(concord(a, "-C", dev, "save", doc_path(d), "--file", content))
            s = timed(concord(a, "-C", dev, "sync"))[0]
            syncs.append((r, dev.name, s))
        if r in checkpoints:
            copy = tmp / "gc.git"
            run(["rm", "-rf", copy])
            run(["cp", "-a", dev1 / ".git", copy])
            run(["git", "-C", copy, "gc", "-q", "--prune=now"])
            recent = [s for (rr, _, s) in syncs if since < rr <= r]
            row = {
                "rounds": r, "commits": int(run(["git", "-C", dev1, "rev-list", "--count", "main"])),
                "packs_dev1": packs(dev1 / ".git"), "packs_dev2": packs(dev2 / ".git"), "packs_cloud": packs(cloud),
                "loose_dev1": loose(dev1 / ".git"), "loose_cloud": loose(cloud),
                "git_kb_dev1": du_kb(dev1 / ".git"), "gc_copy_kb": du_kb(copy),
                "sync_median_s": statistics.median(recent),
            }
            rows.append(row)
            since = r
            log(f"rounds {r}: {row}")
    first = [s for (r, _, s) in syncs if 6 <= r <= 25]
    last = [s for (r, _, s) in syncs if r > a.rounds - 20]
    rows.append({"early_sync_median_s": statistics.median(first) if first else None,
                 "late_sync_median_s": statistics.median(last)})
    return rows


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds >= 0.1 else f"{seconds * 1000:.1f} ms"


def markdown(data: dict) -> str:
    lines = ["# Long use: history and rounds (issue 16)", "",
             f"`{data['command']}` on {data['source']}, {data['date']}; machine: {data['machine']}.", ""]
    history = data.get("history", {})
    if history:
        sizes = sorted(int(n) for n in history)
        lines += ["## A history of N commits (1,000 documents; DOC has 10 versions at every length)", "",
                  "Medians of " + str(data["reps"]) + " runs; git: see scripts/bench.d/history.py.", "",
                  "| commits | operation | concord | git | concord / git |", "|---:|---|---:|---:|---:|"]
        for n in sizes:
            for op, figures in history[str(n)]["figures"].items():
                c, g = figures["concord"], figures["git"]
                lines.append(f"| {n:,} | {op} | {ms(c)} | {ms(g)} | {c / g:.2f} |")
        lines += ["", "| commits | first write (builds the index) | peak memory |", "|---:|---:|---:|"]
        for n in sizes:
            s = history[str(n)]["setup"]
            lines.append(f"| {n:,} | {ms(s['first_write_dev1_s'])} | {s['first_write_dev1_peak_rss_kb'] / 1024:.0f} MB |")
    rounds = data.get("rounds")
    if rounds:
        lines += ["", "## Rounds: each device saves one document and syncs (1,000 documents, local cloud)", "",
                  "| rounds | commits | packs dev1 / dev2 / cloud | loose dev1 / cloud | dev1 .git | git gc'd copy | ratio | sync (median since last row) |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for row in rounds[:-1]:
            lines.append(f"| {row['rounds']} | {row['commits']:,} | {row['packs_dev1']} / {row['packs_dev2']} / {row['packs_cloud']} "
                         f"| {row['loose_dev1']} / {row['loose_cloud']} | {row['git_kb_dev1'] / 1024:.1f} MB | {row['gc_copy_kb'] / 1024:.1f} MB "
                         f"| {row['git_kb_dev1'] / row['gc_copy_kb']:.2f} | {ms(row['sync_median_s'])} |")
    lines += ["", "## Targets", ""] + [f"- {t}" for t in data["targets"]]
    return "\n".join(lines) + "\n"


def targets(data: dict) -> list[str]:
    out = []

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    rounds = data.get("rounds")
    if rounds:
        last, summary = rounds[-2], rounds[-1]
        most = max(last["packs_dev1"], last["packs_dev2"], last["packs_cloud"])
        out.append(f"after {last['rounds']} rounds, at most {most} packs on a device or in the cloud (target <= 20): {verdict(most <= 20)}")
        ratio = last["git_kb_dev1"] / last["gc_copy_kb"]
        out.append(f"device .git {ratio:.2f}x its git gc'd copy (target <= 1.5x): {verdict(ratio <= 1.5)}")
        if summary["early_sync_median_s"]:
            r = summary["late_sync_median_s"] / summary["early_sync_median_s"]
            out.append(f"sync in the last 20 rounds {r:.2f}x rounds 6-25 "
                       f"({ms(summary['late_sync_median_s'])} vs {ms(summary['early_sync_median_s'])}; target <= 1.2x): {verdict(r <= 1.2)}")
    history = data.get("history", {})
    if history:
        sizes = sorted(int(n) for n in history)
        small, big = str(sizes[0]), str(sizes[-1])
        for op in ("log", "versions --all"):
            f = history[big]["figures"][op]
            r = f["concord"] / f["git"]
            out.append(f"{op} at {int(big):,} commits {r:.2f}x git (target <= 1.0x): {verdict(r <= 1.0)}")
            if big != small:
                g = f["concord"] / history[small]["figures"][op]["concord"]
                out.append(f"{op} at {int(big):,} commits {g:.2f}x at {int(small):,} (target <= 2x): {verdict(g <= 2)}")
        if big != small:
            r = history[big]["figures"]["sync"]["concord"] / history[small]["figures"]["sync"]["concord"]
            out.append(f"sync at {int(big):,} commits {r:.2f}x at {int(small):,} (target <= 1.2x): {verdict(r <= 1.2)}")
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--concord", required=True, help="the concord binary")
    p.add_argument("--source", default="unknown", help="what the binary was built from (for the report)")
    p.add_argument("--history", default="", metavar="N,...", help="history lengths in commits, e.g. 1000,10000,100000")
    p.add_argument("--rounds", type=int, default=0, metavar="N", help="rounds of save + sync on two devices")
    p.add_argument("--reps", type=int, default=5, help="repetitions of each history figure")
    p.add_argument("--workdir", default=str(bench.REPO / "benchmarks" / "tmp"))
    p.add_argument("--out", default=str(bench.REPO / "benchmarks"), help="where history.json and history.md go")
    p.add_argument("--no-write", action="store_true", help="print the table only")
    p.add_argument("--keep", action="store_true", help="keep the containers under --workdir")
    args = p.parse_args()
    sizes = [int(s.replace("_", "")) for s in args.history.split(",") if s]
    if not sizes and not args.rounds:
        p.error("give --history N,... or --rounds N (or both)")
    if any(n < 3 for n in sizes):
        p.error("a history needs at least 3 commits")
    args.concord = str(Path(args.concord).resolve())
    args.workdir = str(Path(args.workdir).resolve())
    Path(args.workdir).mkdir(parents=True, exist_ok=True)
    Path(args.workdir, "gitconfig").write_text("[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n")
    bench.ENV = bench.git_env(Path(args.workdir))

    data = {"command": os.environ.get("BENCH_COMMAND") or "scripts/bench.d/history.py " + " ".join(sys.argv[1:]),
            "source": args.source, "date": time.strftime("%Y-%m-%d %H:%M"), "reps": args.reps,
            "machine": f"{os.cpu_count()} cores, load {bench.loadavg()}", "history": {}}
    for n in sizes:
        h = History(args, n)
        log(f"history {n}: building")
        h.build()
        samples: dict = {}
        h.measure(samples)
        figures: dict = {}
        for (_, op, tool), values in samples.items():
            figures.setdefault(op, {})[tool] = statistics.median(values)
        data["history"][str(n)] = {"setup": h.setup, "figures": figures,
                                   "samples_s": {f"{op} {tool}": [round(v, 5) for v in vs] for (_, op, tool), vs in samples.items()}}
        log(f"history {n}: " + ", ".join(f"{op} {ms(f['concord'])} vs git {ms(f['git'])}" for op, f in figures.items()))
        if not args.keep:
            run(["rm", "-rf", h.root])
    if args.rounds:
        data["rounds"] = run_rounds(args)
        if not args.keep:
            run(["rm", "-rf", Path(args.workdir) / "rounds"])
    data["targets"] = targets(data)
    md = markdown(data)
    print(md)
    if not args.no_write:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "history.json").write_text(json.dumps(data, indent=1) + "\n")
        (Path(args.out) / "history.md").write_text(md)
    return 0


if __name__ == "__main__":
    bench.exit_with(main)
