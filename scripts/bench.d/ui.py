"""The resolver page's server time (not a timed test): scripts/bench-ui runs this.

Two figures, each the median of several requests over loopback, measured from the request sent to
the last byte of the answer (the server's time plus a local socket's):

- the documents list (`/api/documents`) of a container of N documents (100,000 by default, filled
  by git plumbing: concordsim.bulk_fixture) with 50 documents in conflict between two devices;
- the conflict view (`/api/conflict`) of a 1 MB text note with three versions in contention, each
  device having changed ten lines of its own.

    scripts/bench-ui [--documents N] [--conflicts K] [--reps R] [--keep] [--baseline CONCORD]

With --baseline (a `concord` with its `concord-ui` beside it, built from another commit), each
request is also timed on a server of the baseline, started on the same container, the two servers
asked in turn: on a loaded machine only the ratio of the two is worth comparing.

Prints a markdown table; writes benchmarks/ui.md and benchmarks/ui.json unless --no-write.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from concordsim.bulk_fixture import BulkFixture, doc_path  # noqa: E402
from concordsim.fixture import Fixture, find_concord  # noqa: E402

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def serve(fx: Fixture, device, concord: str | None = None):
    process = subprocess.Popen([concord or fx.concord, "-C", device.path, "ui", "--no-open"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=fx.command_env(None))
    line = process.stdout.readline().decode()
    match = re.search(r"127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{64})", line)
    if not match:
        process.kill()
        raise RuntimeError(f"concord ui printed no address: {line!r}")
    return process, int(match.group(1)), match.group(2)


def one_get(port: int, token: str, path: str) -> tuple[float, int]:
    """The seconds one GET took, and the answer's size."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    started = time.perf_counter()
    connection.request("GET", path, headers={"Host": f"127.0.0.1:{port}", "Cookie": f"concord_ui_{port}={token}"})
    response = connection.getresponse()
    body = response.read()
    elapsed = time.perf_counter() - started
    connection.close()
    if response.status != 200:
        raise RuntimeError(f"GET {path}: {response.status} {body[:200]!r}")
    return elapsed, len(body)


def measure(fx: Fixture, device, path: str, reps: int, baseline: str | None) -> dict:
    """`reps` GETs of `path` (after one not counted) from a server of this build and, given a
    baseline, from one of the baseline's beside it, asked in turn."""
    servers = [serve(fx, device)] + ([serve(fx, device, baseline)] if baseline else [])
    times: list[list[float]] = [[] for _ in servers]
    sizes = [0 for _ in servers]
    try:
        for rep in range(reps + 1):
            for index, (_, port, token) in enumerate(servers):
                elapsed, sizes[index] = one_get(port, token, path)
                if rep > 0:
                    times[index].append(elapsed)
    finally:
        for process, _, _ in servers:
            stop(process)
    result = {"times": times[0], "bytes": sizes[0]}
    if baseline:
        result.update({"baseline_times": times[1], "baseline_bytes": sizes[1]})
    return result


def stop(process):
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def documents_list(concord: str, root: str, documents: int, conflicts: int, reps: int, baseline: str | None) -> dict:
    fx = BulkFixture(concord, os.path.join(root, "list"))
    fx.setup_filled(documents)
    one, two = fx.devices
    for i in range(conflicts):
        path = doc_path(i * (documents // max(conflicts, 1)))
        fx.must(fx.save(one, path, f"changed on one {i}\n".encode()))
        fx.must(fx.save(two, path, f"changed on two {i}\n".encode()))
    fx.must(fx.sync(one))
    fx.must(fx.sync(two))
    fx.must(fx.sync(one))
    found = len(fx.conflicts(one))
    assert found == conflicts, f"{found} conflicts, not {conflicts}"
    try:
        result = measure(fx, one, "/api/documents", reps, baseline)
    finally:
        fx.close()
    return {"what": f"documents list, {documents:,} documents, {conflicts} in conflict", **result}


def conflict_view(concord: str, root: str, reps: int, baseline: str | None) -> dict:
    fx = Fixture(concord, os.path.join(root, "view"), names=["iPhone", "iPad", "MacBook"])
    fx.setup(packages=())
    lines = [f"line {i:06d} of the long note, with some words to make it about fifty bytes.\n" for i in range(14_000)]
    base = "".join(lines)
    phone = fx.devices[0]
    fx.must(fx.save(phone, "note.txt", base.encode()))
    for device in fx.devices:
        fx.must(fx.sync(device))
    for index, device in enumerate(fx.devices):
        edited = list(lines)
        for k in range(10):
            at = index * 4000 + k * 300 + 17
            edited[at] = f"line {at:06d} changed on {device.name}\n"
        fx.must(fx.save(device, "note.txt", "".join(edited).encode()))
    for _ in range(2):
        for device in fx.devices:
            fx.must(fx.sync(device))
    conflicts = fx.conflicts(phone)
    assert conflicts and conflicts[0]["versions"] == 3, conflicts
    try:
        result = measure(fx, phone, "/api/conflict?document=note.txt", reps, baseline)
    finally:
        fx.close()
    return {"what": f"conflict view, a {len(base.encode()) / 1e6:.2f} MB note, 3 versions", **result}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--conflicts", type=int, default=50)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--build", default=os.environ.get("BENCH_BUILD", "debug"), help="the build measured (for the table)")
    parser.add_argument("--baseline", help="a concord (concord-ui beside it) of another commit, timed in turn with this one")
    parser.add_argument("--baseline-name", default="baseline", help="what to call the baseline in the table (a commit)")
    options = parser.parse_args()
    concord = find_concord(build=False)
    root = tempfile.mkdtemp(prefix="concord-bench-ui-")
    try:
        results = [documents_list(concord, root, options.documents, options.conflicts, options.reps, options.baseline),
                   conflict_view(concord, root, options.reps, options.baseline)]
    finally:
        if options.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    def row(what: str, times: list[float], size: int, ratio: str = "") -> str:
        return (f"| {what} | {statistics.median(times) * 1000:.0f} ms | {min(times) * 1000:.0f} ms | "
                f"{max(times) * 1000:.0f} ms | {size / 1e6:.2f} MB |" + (f" {ratio} |" if options.baseline else ""))

    table = ["| request | median | min | max | answer |" + (" median against the baseline |" if options.baseline else ""),
             "|---|---|---|---|---|" + ("---|" if options.baseline else "")]
    for result in results:
        ratio = ""
        if options.baseline:
            ratio = f"{statistics.median(result['times']) / statistics.median(result['baseline_times']):.2f}"
        table.append(row(result["what"], result["times"], result["bytes"], ratio))
        if options.baseline:
            table.append(row(f"the same, {options.baseline_name}", result["baseline_times"], result["baseline_bytes"], "1"))
    print("\n".join(table))
    if not options.no_write:
        stamp = time.strftime("%Y-%m-%d", time.gmtime())
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPOSITORY, capture_output=True, text=True).stdout.strip()
        with open(os.path.join(REPOSITORY, "benchmarks", "ui.json"), "w") as file:
            json.dump({"date": stamp, "commit": commit, "build": options.build, "reps": options.reps,
                       **({"baseline": options.baseline_name} if options.baseline else {}), "results": results}, file, indent=2)
            file.write("\n")
        with open(os.path.join(REPOSITORY, "benchmarks", "ui.md"), "w") as file:
            file.write(f"# The resolver page's server time\n\n`scripts/bench-ui` ({stamp}, commit {commit}, {options.build} build, "
                       f"median of {options.reps} requests after one not counted; from the request sent to the answer's last byte "
                       "over loopback" + (f"; {options.baseline_name}'s server beside it on the same container, the two asked in turn"
                       if options.baseline else "") + "). The issue's aims: under 200 ms for the list, 300 ms for the view.\n\n")
            file.write("\n".join(table) + "\n")


if __name__ == "__main__":
    main()
