"""The resolver page (`concord ui`) in a real headless Chromium: scripts/ui-test runs this.

Three devices (iPhone, iPad, MacBook) change one line each of `note.txt` offline and sync: a
three-way conflict. iPhone starts `concord ui --no-open`; the test checks the page's defences with
plain HTTP requests, then opens the printed address in Chromium, finds the conflict listed, opens
it, checks the ancestor and the three versions with their devices and changed lines, checks that a
result holding conflict markers is refused, saves the merged result, and checks the file on disk,
`concord conflicts` empty and the versions still in `versions --all`; then a package conflict made
while the page is open (its files listed with per-file hunks, a whole version kept), and that a
save by another process appears on the page without a reload. The server is stopped by its PID.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from concordsim.fixture import Fixture, find_concord  # noqa: E402

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException, TimeoutException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

BASE = "one\n-\n-\ntwo\n-\n-\nthe three little pigs\n"
# MacBook changes two words of its line, apart: two word marks, not one span from the first to the last.
EDITS = {"iPhone": ("one", "ONE"), "iPad": ("two", "TWO"), "MacBook": ("the three little pigs", "the four little cats")}
MERGED = "ONE\n-\n-\nTWO\n-\n-\nthe four little cats\n"
# The merge with iPhone's hunk left out (the ancestor's line kept there), as the hunk picker builds it.
PICKED = "one\n-\n-\nTWO\n-\n-\nthe four little cats\n"
SCRIPT_NAME = "<script>alert(1)</script>.txt"
# A drawing two devices changed: an SVG carrying scripts, to be shown as text, never run.
SVG_BASE = '<svg xmlns="http://www.w3.org/2000/svg">\n<circle r="1"/>\n</svg>\n'
# Settings two devices changed, each another member: the JSON policy merges them.
JSON_BASE = '{\n  "theme": "light",\n  "size": 12\n}\n'
JSON_EDITS = {"iPhone": JSON_BASE.replace("light", "dark"), "iPad": JSON_BASE.replace("12", "14")}
# A package (a folder document, `*.note`) iPhone and iPad change apart: iPhone a line of its text and
# a photo added, iPad its metadata removed.
PACKAGE = "trip.note"
PACKAGE_BASE = {"text.md": "day one\nday two\nday three\n", "meta.json": "{}\n"}
PACKAGE_EDITS = {"iPhone": {"text.md": "day one\nday 2\nday three\n", "photo.txt": "a photo\n"}, "iPad": {"meta.json": None}}
SVG_EDITS = {"iPhone": SVG_BASE.replace("<svg ", '<svg onload="alert(3)" '),
             "iPad": SVG_BASE.replace("</svg>", "<script>alert(4)</script>\n</svg>")}

failures: list[str] = []


def check(condition: bool, what: str):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


def request(port: int, method: str, path: str, headers: dict | None = None, body: bytes | None = None):
    """One HTTP request to the server, as a browser or an attacker would send it."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    for name, value in {"Host": f"127.0.0.1:{port}", **(headers or {})}.items():
        connection.putheader(name, value)
    if body is not None:
        connection.putheader("Content-Length", str(len(body)))
    connection.endheaders(body)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, response, data


def make_conflict(fx: Fixture):
    phone, tablet, laptop = fx.devices
    fx.must(fx.save(phone, "note.txt", BASE.encode()))
    fx.must(fx.save(phone, SCRIPT_NAME, b"<img src=x onerror=alert(2)>\n"))
    fx.must(fx.save(phone, "drawing.svg", SVG_BASE.encode()))
    fx.must(fx.save(phone, "settings.json", JSON_BASE.encode()))
    for device in fx.devices:
        fx.must(fx.sync(device))
    for device in fx.devices:
        old, new = EDITS[device.name]
        fx.must(fx.save(device, "note.txt", BASE.replace(old, new).encode()))
        if device.name in SVG_EDITS:
            fx.must(fx.save(device, "drawing.svg", SVG_EDITS[device.name].encode()))
            fx.must(fx.save(device, "settings.json", JSON_EDITS[device.name].encode()))
    for _ in range(2):
        for device in fx.devices:
            fx.must(fx.sync(device))
    conflicts = {c["document"]: c["versions"] for c in fx.conflicts(phone)}
    assert conflicts == {"note.txt": 3, "drawing.svg": 2, "settings.json": 2}, conflicts


def write_package(device, files: dict):
    """Writes a package's files in the device's work tree (None: the file removed) and saves it."""
    for name, text in files.items():
        path = os.path.join(device.path, PACKAGE, name)
        if text is None:
            os.remove(path)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as file:
                file.write(text)


def make_package_conflict(fx: Fixture):
    """iPhone and iPad change the package apart and sync, while the page is open on iPhone."""
    phone, tablet = fx.devices[:2]
    write_package(phone, PACKAGE_BASE)
    fx.must(fx.run(phone, "save", PACKAGE))
    fx.must(fx.sync(phone))
    fx.must(fx.sync(tablet))
    for device in (phone, tablet):
        write_package(device, PACKAGE_EDITS[device.name])
        fx.must(fx.run(device, "save", PACKAGE))
    for device in (phone, tablet, phone):
        fx.must(fx.sync(device))
    conflicts = {c["document"]: c["versions"] for c in fx.conflicts(phone)}
    assert conflicts == {PACKAGE: 2}, conflicts


def package_checks(fx: Fixture, driver):
    """The package's conflict reaches the page; each version's changed files are listed with their
    hunks; keeping iPhone's whole version resolves it."""
    make_package_conflict(fx)
    try:
        waiting(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, f"#list li[data-path='{PACKAGE}'][data-state=inConflict]"))
        check(True, "a package's conflict made by other processes is listed")
    except TimeoutException:
        check(False, "a package's conflict made by other processes is listed")
        return
    driver.find_element(By.CSS_SELECTOR, f"#list li[data-path='{PACKAGE}']").click()
    waiting(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#view h2") and d.find_element(By.CSS_SELECTOR, "#view h2").text == PACKAGE
                                    and d.find_elements(By.CSS_SELECTOR, ".column.version"))
    phone = driver.find_element(By.CSS_SELECTOR, ".column.version[data-device=iPhone]")
    tablet = driver.find_element(By.CSS_SELECTOR, ".column.version[data-device=iPad]")
    files = {row.get_attribute("data-file"): row.text for row in phone.find_elements(By.CSS_SELECTOR, ".line[data-file]")}
    check(files == {"meta.json": "meta.json", "photo.txt": "photo.txt — added", "text.md": "text.md — changed (+1 −1 lines)"},
          f"iPhone's files are listed, each changed one with how ({files})")
    hunk = [line.text for line in phone.find_elements(By.CSS_SELECTOR, ".file-hunk[data-file='text.md'] .line")]
    check(len(hunk) > 1 and hunk[0].startswith("@@ ") and hunk[1:] == ["  day one", "− day two", "+ day 2", "  day three"],
          f"the changed text file's hunk is shown under its name ({hunk})")
    check(not phone.find_elements(By.CSS_SELECTOR, ".file-hunk[data-file='photo.txt'], .file-hunk[data-file='meta.json']"),
          "no hunk for a file added or unchanged")
    removed = [row.text for row in tablet.find_elements(By.CSS_SELECTOR, ".line.removed")]
    listed = [row.get_attribute("data-file") for row in tablet.find_elements(By.CSS_SELECTOR, ".line[data-file]")]
    check(removed == ["meta.json — removed"] and listed == ["text.md"], f"iPad's version lists its file and the one it removed ({listed}, {removed})")
    phone.find_element(By.CSS_SELECTOR, "button.keep").click()
    try:
        waiting(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#view .resolved")
                                        and not d.find_elements(By.CSS_SELECTOR, "#list li[data-state=inConflict]"))
        check(True, "keeping iPhone's whole version resolves the package on the page")
    except TimeoutException:
        check(False, "keeping iPhone's whole version resolves the package on the page")
    kept = {**PACKAGE_BASE, **PACKAGE_EDITS["iPhone"]}
    folder = os.path.join(fx.devices[0].path, PACKAGE)
    on_disk = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name)) as file:
            on_disk[name] = file.read()
    check(on_disk == kept, f"the package on disk is iPhone's version, every file ({sorted(on_disk)})")
    check(fx.conflicts(fx.devices[0]) == [], "concord conflicts is empty after the package's resolution")


def start_server(fx: Fixture):
    """`concord ui --no-open` on the first device: its process and the address it printed."""
    process = subprocess.Popen([fx.concord, "-C", fx.devices[0].path, "ui", "--no-open"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=fx.command_env(None))
    line = process.stdout.readline().decode()
    match = re.search(r"(http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{64}))", line)
    if not match:
        process.kill()
        raise RuntimeError(f"concord ui printed no address: {line!r} {process.stderr.read().decode()!r}")
    return process, match.group(1), int(match.group(2)), match.group(3)


def stop_server(process: subprocess.Popen):
    os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        check(False, "the server stops within 15 s of SIGTERM")


def security_checks(port: int, token: str):
    cookie = f"concord_ui_{port}={token}"
    status, _, _ = request(port, "GET", "/")
    check(status == 403, f"a request without the token is refused ({status})")
    status, _, _ = request(port, "GET", "/api/documents")
    check(status == 403, f"the API without the token is refused ({status})")
    status, _, _ = request(port, "GET", "/?token=" + "0" * 64)
    check(status == 403, f"a wrong token is refused ({status})")
    status, response, _ = request(port, "GET", f"/?token={token}")
    set_cookie = response.getheader("Set-Cookie") or ""
    check(status == 303 and response.getheader("Location") == "/", f"the token's address redirects to / ({status})")
    check(f"{cookie};" in set_cookie and "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie,
          f"the token becomes an HttpOnly, SameSite=Strict cookie ({set_cookie})")
    status, _, _ = request(port, "GET", "/api/documents", {"Host": f"rebound.example:{port}", "Cookie": cookie})
    check(status == 403, f"a foreign Host is refused, token or not ({status})")
    status, _, _ = request(port, "GET", "/api/documents", {"Host": "127.0.0.1:1", "Cookie": cookie})
    check(status == 403, f"another port in Host is refused ({status})")
    status, response, page = request(port, "GET", "/", {"Cookie": cookie})
    csp = response.getheader("Content-Security-Policy") or ""
    check(status == 200 and "script-src 'self'" in csp and "default-src 'none'" in csp and "unsafe-inline" not in csp,
          f"the page comes with a strict Content-Security-Policy ({csp})")
    scripts = re.findall(rb"<script[^>]*>", page)
    check(bool(scripts) and all(b" src=" in tag for tag in scripts), "the page has no inline script")
    status, _, session = request(port, "GET", "/api/session", {"Cookie": cookie})
    csrf = json.loads(session)["csrf"]
    resolve = json.dumps({"document": "note.txt", "action": "latest"}).encode()
    json_type = {"Content-Type": "application/json", "Cookie": cookie}
    status, _, _ = request(port, "POST", "/api/resolve", {**json_type, "Origin": "http://evil.example", "X-Concord-CSRF": csrf}, resolve)
    check(status == 403, f"a cross-origin POST is refused, CSRF token or not ({status})")
    status, _, _ = request(port, "POST", "/api/resolve", {**json_type, "Origin": f"http://127.0.0.1:{port}"}, resolve)
    check(status == 403, f"a same-origin POST without the CSRF token is refused ({status})")
    status, _, _ = request(port, "POST", "/api/resolve", {**json_type, "X-Concord-CSRF": csrf}, resolve)
    check(status == 403, f"a POST without Origin is refused ({status})")


def waiting(driver, seconds: float) -> WebDriverWait:
    """A wait that looks again when an element it found was replaced meanwhile: the page
    re-renders its list and view on every live update, between finding an element and reading it."""
    return WebDriverWait(driver, seconds, ignored_exceptions=(StaleElementReferenceException,))


def eventually(driver, condition, what: str, seconds: float = 10):
    """Checks `condition(driver)` once the page had time to act on a click or key (up to
    `seconds`): a handler may update the page after the event returns."""
    try:
        waiting(driver, seconds).until(lambda d: condition(d))
        check(True, what)
    except TimeoutException:
        check(False, what)


def browser(screenshot: str | None):
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1500,1100"):
        options.add_argument(argument)
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    options.binary_location = chromium
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(options=options, service=service)


def no_alert(driver) -> bool:
    try:
        driver.switch_to.alert
        return False
    except NoAlertPresentException:
        return True


def page_checks(fx: Fixture, address: str, port: int, screenshot: str | None):
    driver = browser(screenshot)
    wait = waiting(driver, 15)
    try:
        driver.get(address)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#list li[data-state=inConflict]"))
        check(driver.current_url == f"http://127.0.0.1:{port}/", f"the token left the address bar ({driver.current_url})")
        check(driver.title.startswith("(3) "), f"the title counts the conflicts ({driver.title})")
        items = driver.find_elements(By.CSS_SELECTOR, "#list li")
        first = [(item.get_attribute("data-path"), item.get_attribute("data-state")) for item in items[:3]]
        check(first == [(path, "inConflict") for path in ("drawing.svg", "note.txt", "settings.json")], f"the conflicts are listed first ({first})")
        names = [item.find_element(By.CSS_SELECTOR, ".path").text for item in items]
        check(SCRIPT_NAME in names, f"a document named like a script is listed as text ({names})")
        check(not driver.find_elements(By.CSS_SELECTOR, "#list script, #list img"), "its name made no element")
        check(no_alert(driver), "no script ran")

        items[1].click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".column.version"))
        ancestor = driver.find_element(By.CSS_SELECTOR, ".column.ancestor")
        ancestor_lines = [line.text for line in ancestor.find_elements(By.CSS_SELECTOR, ".line")]
        check(ancestor_lines == BASE.splitlines(), f"the ancestor's lines are the base ({ancestor_lines})")
        columns = driver.find_elements(By.CSS_SELECTOR, ".column.version")
        devices = sorted(column.get_attribute("data-device") for column in columns)
        check(devices == sorted(EDITS), f"the three versions are shown with their devices ({devices})")
        for column in columns:
            device = column.get_attribute("data-device")
            added = [line.text for line in column.find_elements(By.CSS_SELECTOR, ".line.added")]
            removed = [line.text for line in column.find_elements(By.CSS_SELECTOR, ".line.removed")]
            old, new = EDITS[device]
            check(added == [new] and removed == [old], f"{device}'s change against the ancestor is marked ({removed} -> {added})")
            check(device in column.find_element(By.CSS_SELECTOR, "header").text, f"{device}'s column names its device")
        marks = [mark.text for mark in driver.find_elements(By.CSS_SELECTOR, ".column[data-device=MacBook] .line.added mark.word")]
        check(marks == ["four", "cats"], f"the two words changed in a line are marked apart, the word between them not ({marks})")
        marks = [mark.text for mark in driver.find_elements(By.CSS_SELECTOR, ".column[data-device=MacBook] .line.removed mark.word")]
        check(marks == ["three", "pigs"], f"so are the two words they replace, in the ancestor's line ({marks})")
        text_row = driver.find_element(By.CSS_SELECTOR, ".previews tr[data-policy=text]")
        check("merges" in text_row.text, f"the text policy's preview merges ({text_row.text})")
        chosen = driver.find_element(By.CSS_SELECTOR, ".chosen").text
        check("chooses text" in chosen, f"the chosen policy is named ({chosen})")
        editor = driver.find_element(By.ID, "result")
        check(editor.get_attribute("value") == MERGED, "the result starts from the best automatic merge")
        if screenshot:
            driver.save_screenshot(screenshot)
            print(f"screenshot: {screenshot}")

        second = driver.find_elements(By.CSS_SELECTOR, ".column.version")[1].get_attribute("data-device")
        driver.find_element(By.TAG_NAME, "body").send_keys("2")
        old, new = EDITS[second]
        eventually(driver, lambda d: editor.get_attribute("value") == BASE.replace(old, new), f"key 2 starts the result from the second version ({second}'s)")

        editor.clear()
        editor.send_keys("<<<<<<< iPhone\nONE\n=======\none\n>>>>>>> iPad\n")
        driver.find_element(By.ID, "save-result").click()
        wait.until(lambda d: "conflict markers" in d.find_element(By.ID, "message").text)
        check("note.txt" in [c["document"] for c in fx.conflicts(fx.devices[0])], "a result with conflict markers is refused")

        text_row.find_element(By.CSS_SELECTOR, "button.show").click()
        eventually(driver, lambda d: editor.get_attribute("value") == MERGED, "a policy's preview can be edited from")
        hunks = driver.find_elements(By.CSS_SELECTOR, ".hunk")
        ticked = [[tick.get_attribute("data-device") for tick in hunk.find_elements(By.CSS_SELECTOR, "input:checked")] for hunk in hunks]
        check(ticked == [["iPhone"], ["iPad"], ["MacBook"]], f"each hunk starts picked from the version that changed it ({ticked})")
        hunks[0].find_element(By.CSS_SELECTOR, "input[data-device=iPhone]").click()
        driver.find_element(By.ID, "build-from-picks").click()
        eventually(driver, lambda d: editor.get_attribute("value") == PICKED, "the result is built from the hunks picked (iPhone's left out)")
        driver.find_element(By.ID, "save-result").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#view .resolved"))
        wait.until(lambda d: d.title.startswith("(2) "))
        check(True, "the note is resolved on the page, two conflicts left in the title")

        # Undo: the same versions in contention again (a new version holding the content current
        # before), then the same result saved once more.
        driver.find_element(By.ID, "undo").click()
        wait.until(lambda d: d.title.startswith("(3) "))
        again = {c["document"]: c["versions"] for c in fx.conflicts(fx.devices[0])}
        check(again.get("note.txt") == 3, f"undo puts the note's three versions back in contention ({again})")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#view h2") and d.find_element(By.CSS_SELECTOR, "#view h2").text == "note.txt")
        editor = driver.find_element(By.ID, "result")
        editor.clear()
        editor.send_keys(PICKED)
        driver.find_element(By.ID, "save-result").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#view .resolved"))
        wait.until(lambda d: d.title.startswith("(2) "))
        check(True, "the note, resolved again after the undo, leaves two conflicts in the title")

        driver.find_element(By.TAG_NAME, "body").send_keys("j")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#view h2") and d.find_element(By.CSS_SELECTOR, "#view h2").text == "drawing.svg")
        check(True, "key j opens the next conflict")
        shown = [line.text for line in driver.find_elements(By.CSS_SELECTOR, ".column.version .line")]
        check("<script>alert(4)</script>" in shown and any('onload="alert(3)"' in line for line in shown),
              "an SVG carrying scripts is shown as its text")
        check(not driver.find_elements(By.CSS_SELECTOR, "#view svg, #view script, #view circle") and no_alert(driver), "the SVG made no element and ran nothing")
        driver.find_element(By.ID, "keep-both").click()
        wait.until(lambda d: d.title.startswith("(1) "))

        driver.find_element(By.CSS_SELECTOR, "#list li[data-path='settings.json']").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#view h2") and d.find_element(By.CSS_SELECTOR, "#view h2").text == "settings.json")
        chosen = driver.find_element(By.CSS_SELECTOR, ".chosen").text
        check("chooses json" in chosen, f"the JSON policy is the one chosen for settings ({chosen})")
        json_row = driver.find_element(By.CSS_SELECTOR, ".previews tr[data-policy=json]")
        check("merges" in json_row.text, f"its preview merges ({json_row.text})")
        json_row.find_element(By.CSS_SELECTOR, "button.apply").click()
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "#list li[data-state=inConflict]"))
        with open(os.path.join(fx.devices[0].path, "settings.json")) as file:
            check(json.load(file) == {"theme": "dark", "size": 14}, "the settings are resolved with the JSON policy's merge")
        check(driver.title.startswith("Concord"), f"no conflict is left in the title ({driver.title})")
        paths = [item.get_attribute("data-path") for item in driver.find_elements(By.CSS_SELECTOR, "#list li")]
        check(any(re.fullmatch(r"drawing \((iPhone|iPad)\)\.svg", path or "") for path in paths), f"keep both saved the other drawing beside ({paths})")

        with open(os.path.join(fx.devices[0].path, "note.txt")) as file:
            check(file.read() == PICKED, "the file on disk holds the result")
        check(fx.conflicts(fx.devices[0]) == [], "concord conflicts is empty")

        driver.find_element(By.CSS_SELECTOR, "#list li[data-path='note.txt']").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".history-entry"))
        entries = driver.find_elements(By.CSS_SELECTOR, ".history-entry")
        devices = {entry.get_attribute("data-device") for entry in entries}
        check(len(entries) == 7 and devices == set(EDITS) and "current" in entries[0].text and "resolves 3" in entries[0].text,
              f"a normal document opens its history: seven versions (the first, three edits, a resolution, its undo, the resolution again), the last resolution first ({len(entries)}, {devices})")
        entries[-1].find_element(By.CSS_SELECTOR, "button.restore").click()
        wait.until(lambda d: d.find_element(By.ID, "message").text.startswith("Restored note.txt"))
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".history-entry")) == 8)
        with open(os.path.join(fx.devices[0].path, "note.txt")) as file:
            check(file.read() == BASE, "restoring the first version saves its content as a new version")

        # Recently deleted: another process deletes a document; the page lists it with its
        # restore, which brings its content back as a new version.
        fx.must(fx.save(fx.devices[0], "gone.txt", b"deleted, then restored\n"))
        fx.must(fx.run(fx.devices[0], "rm", "gone.txt"))
        try:
            waiting(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#deleted li[data-path='gone.txt']"))
            check(True, "a document deleted by another process is listed under Recently deleted")
        except TimeoutException:
            check(False, "a document deleted by another process is listed under Recently deleted")
        driver.find_element(By.ID, "deleted-box").click()
        driver.find_element(By.CSS_SELECTOR, "#deleted li[data-path='gone.txt'] button.restore-deleted").click()
        eventually(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#list li[data-path='gone.txt']")
                   and not d.find_elements(By.CSS_SELECTOR, "#deleted li[data-path='gone.txt']"), "Restore brings the deleted document back")
        with open(os.path.join(fx.devices[0].path, "gone.txt")) as file:
            check(file.read() == "deleted, then restored\n", "the restored document holds the content it had")

        package_checks(fx, driver)

        fx.must(fx.save(fx.devices[0], "later.txt", b"saved by another process\n"))
        try:
            waiting(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#list li[data-path='later.txt']"))
            check(True, "another process's save appears on the page without a reload")
        except TimeoutException:
            check(False, "another process's save appears on the page without a reload")
        check(no_alert(driver), "no script ran, at the end")
    finally:
        driver.quit()


def main():
    keep = "--keep" in sys.argv
    screenshot = None
    if "--screenshot" in sys.argv:
        screenshot = os.path.abspath(sys.argv[sys.argv.index("--screenshot") + 1])
    started = time.monotonic()
    root = tempfile.mkdtemp(prefix="concord-ui-test-")
    fx = Fixture(find_concord(build=False), root, names=["iPhone", "iPad", "MacBook"])
    server = None
    try:
        fx.setup(packages=("*.note",))
        make_conflict(fx)
        versions_before = {v["id"] for v in json.loads(fx.must(fx.run(fx.devices[0], "versions", "note.txt", "--json")).text)}
        server, address, port, token = start_server(fx)
        print(f"concord ui (PID {server.pid}) at 127.0.0.1:{port}")
        security_checks(port, token)
        page_checks(fx, address, port, screenshot)
        history = {v["id"] for v in json.loads(fx.must(fx.run(fx.devices[0], "versions", "note.txt", "--all", "--json")).text)}
        check(versions_before <= history, "the versions resolved stay in versions --all")
    finally:
        if server:
            stop_server(server)
        fx.close()
        if keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    print(f"scripts/ui-test: {'FAILED: ' + '; '.join(failures) if failures else 'all checks passed'} ({time.monotonic() - started:.1f} s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
