"""The airplane-mode scenario: the story of DESIGN.md on two devices, narrated, with its checks."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import tempfile
import time

from .timeline import Timeline
from .world import InvariantFailure, World


def scenario(args) -> int:
    start = time.monotonic()
    root = tempfile.mkdtemp(prefix="concord-airplane-")
    world = World(args.concord, root, 2, cloud_kind=args.cloud, names=["iPhone", "iPad"])
    iphone, ipad = world.devices
    timeline = Timeline(world.devices)
    checks = []

    def say(dev, text):
        clock = dt.datetime.fromtimestamp(world.device_time(dev) if dev else world.vnow).strftime("%H:%M:%S")
        who = f"{dev.name:<7}" if dev else " " * 7
        print(f"[{clock}] {who} {text}", flush=True)

    def check(ok, text):
        checks.append((ok, text))
        print(f"  {'ok  ' if ok else 'FAIL'} {text}", flush=True)

    def step():
        world.tick(60)
        timeline.x += 1

    def do_sync(dev):
        result, report = world.sync(dev)
        if result.rc == 0:
            extra = []
            if report["updated"]:
                extra.append("updated " + ", ".join(report["updated"]))
            if report["newConflicts"]:
                extra.append("NEW CONFLICT " + ", ".join(report["newConflicts"]))
            if report["conflicts"]:
                extra.append("in conflict: " + ", ".join(report["conflicts"]))
            say(dev, f"sync: {report['outcome']}, pushed {report['pushed']}" + (f"; {'; '.join(extra)}" if extra else ""))
            timeline.add(dev.index, "sync", f"sync: {report['outcome']}",
                         short="conflict!" if report["newConflicts"] else report["outcome"])
            if report["newConflicts"]:
                timeline.add(dev.index, "conflict", "new conflict: " + ", ".join(report["newConflicts"]))
        else:
            say(dev, f"sync: refused, exit {result.rc}: {result.first_error_line()}")
            timeline.add(dev.index, "offline", result.first_error_line(), short="offline")
        return result, report

    def do_save(dev, content, what):
        result = world.save(dev, "note.txt", content)
        world.expect(result, what=f"{dev.name} save")
        say(dev, f"saves note.txt ({what}): {result.text.strip()}")
        timeline.add(dev.index, "save", f"save note.txt: {what}", short="save")

    base = (b"Groceries for the weekend\n\nmilk, eggs, flour\n\n"
            b"Call the plumber about the kitchen sink\n")
    if args.policy == "merge":
        phone_text = base.replace(b"milk, eggs, flour", b"milk, eggs, flour, olive oil")
        pad_text = base.replace(b"Call the plumber about the kitchen sink",
                                b"Call the plumber about the kitchen sink, Tuesday 9:00")
        phone_what, pad_what = "adds olive oil to the first paragraph", "adds a time to the last paragraph"
    else:
        phone_text = base.replace(b"milk, eggs, flour", b"milk, eggs, flour, olive oil")
        pad_text = base.replace(b"milk, eggs, flour", b"milk, eggs, flour, butter")
        phone_what, pad_what = "adds olive oil", "adds butter"

    try:
        print(f"Concord airplane-mode scenario: policy {args.policy}, cloud {args.cloud}")
        print(f"folder {root}")
        world.setup()
        say(None, f"cloud ready at {world.cloud.url}; devices iPhone and iPad joined")
        step()
        do_save(iphone, base, "first version")
        step()
        do_sync(iphone)
        step()
        do_sync(ipad)
        check(world.run(ipad, "show", "note.txt").out == base, "iPad received the note")

        step()
        world.set_airplane(iphone, True)
        timeline.airplane(iphone.index, True)
        say(iphone, "airplane mode ON")
        step()
        do_save(iphone, phone_text, phone_what)
        step()
        result, _ = do_sync(iphone)
        check(result.rc == 1 and "offline" in result.err, "sync in airplane mode exits 1 with 'offline (...)'")
        step()
        do_save(ipad, pad_text, pad_what)
        step()
        result, report = do_sync(ipad)
        check(result.rc == 0 and report["outcome"] == "pushed", "iPad's edit went up to the cloud")

        step()
        world.set_airplane(iphone, False)
        timeline.airplane(iphone.index, False)
        say(iphone, "airplane mode OFF")
        step()
        result, report = do_sync(iphone)
        check(result.rc == 0 and report["outcome"] == "integrated" and "note.txt" in report["newConflicts"],
              "iPhone's sync integrated the diverged histories and reported note.txt in conflict")
        step()
        result, report = do_sync(ipad)
        check(result.rc == 0 and "note.txt" in report["conflicts"], "iPad sees the in-conflict state after its sync")
        for dev in (iphone, ipad):
            states = {d["document"]: d["state"] for d in world.documents(dev)}
            check(states.get("note.txt") == "inConflict", f"{dev.name}: `ls` shows note.txt inConflict")

        step()
        say(iphone, "opens the resolver; versions of note.txt:")
        versions = world.versions(iphone, "note.txt")
        for v in versions:
            role = "current " if v["current"] else ("conflict" if v["conflict"] else "        ")
            print(f"           {role}  {v['id'][:7]}  saved by {v['device']:<7} modified {v['modified']}  "
                  f"{v['size']} bytes")
        check(len(versions) == 2 and sorted(v["device"] for v in versions) == ["iPad", "iPhone"],
              "two versions in contention, one from each device")

        if args.policy == "merge":
            resolve_args = ["resolve", "note.txt", "--merge", "--json"]
        else:
            resolve_args = ["resolve", "note.txt", "--latest", "--json"]
        result = world.expect(world.run(iphone, *resolve_args), what="resolve")
        report = result.json()
        say(iphone, f"resolves with {'--merge' if args.policy == 'merge' else '--latest'}: {report['explanation']}")
        if report.get("kept"):
            print(f"           kept     {report['kept']['id'][:7]}  {report['kept']['device']}  {report['kept']['modified']}")
        for v in report["removed"]:
            print(f"           removed  {v['id'][:7]}  {v['device']}  {v['modified']}  (stays in the history)")
        timeline.add(iphone.index, "resolve", f"resolve: {report['explanation']}",
                     short="merged" if args.policy == "merge" else "latest kept")
        removed = {v["id"] for v in report["removed"]}
        conflict_ids = {v["id"] for v in versions if v["conflict"]}
        if args.policy == "merge":
            check(removed == {v["id"] for v in versions},
                  "the merge replaced both versions: both were removed from the document's versions")
        else:
            check(removed == conflict_ids, "the resolution removed the conflict version it no longer needs")
        after = world.versions(iphone, "note.txt")
        check(len(after) == 1 and after[0]["current"], "iPhone: note.txt has one version left, the current one")

        step()
        do_sync(iphone)
        step()
        do_sync(ipad)

        print("Checks:")
        tree_phone, conflicts_phone = world.state_of(iphone)
        tree_pad, conflicts_pad = world.state_of(ipad)
        check(tree_phone == tree_pad, "both devices converged on the same tree")
        check(conflicts_phone == [] and conflicts_pad == [], "no document is in conflict on any device")
        final_phone = world.run(iphone, "show", "note.txt").out
        final_pad = world.run(ipad, "show", "note.txt").out
        check(final_phone == final_pad, "both devices show the same note")
        if args.policy == "merge":
            check(b"olive oil" in final_phone and b"Tuesday 9:00" in final_phone,
                  "the merged note keeps both edits (iPhone's olive oil and iPad's Tuesday 9:00)")
        else:
            check(final_phone == pad_text, "latest-wins kept iPad's edit, the later save")
        for dev in (iphone, ipad):
            try:
                world.check_nothing_lost(dev, saved_by=[iphone, ipad])
                check(True, f"{dev.name}: every version either device saved is still retrievable (versions --all, show)")
            except InvariantFailure as failure:
                check(False, failure.message)
            with open(os.path.join(dev.path, "note.txt"), "rb") as f:
                check(f.read() == final_phone, f"{dev.name}: the work-tree file shows the current version")
            try:
                world.fsck(dev.path, dev.name)
                check(True, f"{dev.name}: git fsck is clean")
            except InvariantFailure as failure:
                check(False, failure.message)
        log = world.run(ipad, "log", "note.txt")
        check(log.rc == 0 and log.text.strip() != "", "`concord log note.txt` shows the document's history")
        if args.cloud == "https":
            secret = world.cloud.server.password.encode()
            for dev in (iphone, ipad):
                with open(os.path.join(dev.path, ".git", "config"), "rb") as f:
                    check(secret not in f.read(), f"{dev.name}: no password in .git/config")
                store = os.path.join(dev.path, ".git", "concord", "credentials")
                check(os.path.exists(store) and os.stat(store).st_mode & 0o777 == 0o600,
                      f"{dev.name}: the credentials are in .git/concord/credentials, readable by the owner only (0600)")
            check(all(secret not in line.encode() for line in world.transcript),
                  "no password in any command line or error line; syncs ran without credentials in the environment")
    except InvariantFailure as failure:
        check(False, failure.message)
    except Exception as error:  # a crash of this script is a failure too, never a pass
        check(False, f"the scenario stopped: {error!r}")
    finally:
        world.close()

    svg = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"concord-airplane-scenario-{args.policy}-{args.cloud}.svg")
    timeline.write(svg, f"Concord airplane-mode scenario ({args.policy}, {args.cloud} cloud)")
    failed = [text for ok, text in checks if not ok]
    if args.keep:
        print(f"kept {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    print(f"timeline: {svg}")
    elapsed = time.monotonic() - start
    if failed:
        print(f"FAILED: {len(failed)} of {len(checks)} checks ({elapsed:.1f}s)")
        if world.transcript:
            print("last commands:")
            for line in world.transcript[-12:]:
                print(f"  {line}")
        return 1
    print(f"airplane-mode scenario ({args.policy}, {args.cloud}): all {len(checks)} checks hold ({elapsed:.1f}s)")
    return 0
