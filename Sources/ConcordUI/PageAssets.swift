/// The page, its style and its script, served by ``ResolverServer`` (nothing is loaded from the
/// network: the page works offline). The script builds every element with `textContent`, so a
/// name or a content from the cloud is always text, never markup.
enum PageAssets {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Concord</title>
        <link rel="stylesheet" href="/app.css">
        <script src="/app.js" defer></script>
        </head>
        <body>
        <header>
          <h1 id="heading">Concord</h1>
          <input id="filter" type="search" placeholder="Filter documents" aria-label="Filter documents">
        </header>
        <p id="message" role="status"></p>
        <main>
          <nav aria-label="Documents">
            <details id="bulk">
              <summary>Resolve many</summary>
              <input id="bulk-pattern" placeholder="Glob, e.g. *.log" aria-label="Documents to resolve">
              <select id="bulk-action" aria-label="How">
                <option value="latest">keep the latest</option>
                <option value="chosen">each one's chosen policy</option>
              </select>
              <button id="bulk-preview">Preview</button>
              <button id="bulk-resolve" disabled>Resolve these</button>
              <ul id="bulk-report"></ul>
            </details>
            <ul id="list"></ul>
            <details id="deleted-box">
              <summary>Recently deleted</summary>
              <ul id="deleted"></ul>
            </details>
          </nav>
          <section id="view" aria-live="polite"><p class="hint">Pick a document in conflict to compare its versions.</p></section>
        </main>
        </body>
        </html>
        """#

    static let css = #"""
        :root { font-family: system-ui, sans-serif; color: #1d1d1f; background: #fafafa; }
        body { margin: 0; }
        header { display: flex; gap: 1rem; align-items: center; padding: .5rem 1rem; background: #fff; border-bottom: 1px solid #ddd; }
        header h1 { font-size: 1.2rem; margin: 0; }
        #filter { flex: 0 1 20rem; padding: .3rem .5rem; }
        main { display: grid; grid-template-columns: minmax(12rem, 18rem) 1fr; min-height: calc(100vh - 3rem); }
        nav { border-right: 1px solid #ddd; overflow: auto; background: #fff; }
        #list { list-style: none; margin: 0; padding: 0; }
        #deleted-box summary { padding: .35rem .75rem; cursor: pointer; }
        #deleted { list-style: none; margin: 0; padding: 0; }
        #deleted li { padding: .35rem .75rem; border-bottom: 1px solid #eee; display: flex; justify-content: space-between; gap: .5rem; color: #555; }
        #list li { padding: .35rem .75rem; border-bottom: 1px solid #eee; cursor: default; display: flex; justify-content: space-between; gap: .5rem; }
        #list li { cursor: pointer; }
        #list li.inConflict { font-weight: 600; }
        #list li.inConflict .state { color: #b3261e; }
        #list li.selected { background: #e8f0fe; }
        #list .state { font-size: .8rem; color: #666; white-space: nowrap; }
        #view { padding: 1rem; overflow: auto; }
        .columns { display: flex; gap: .75rem; align-items: flex-start; overflow-x: auto; }
        .column { flex: 1 1 0; min-width: 14rem; background: #fff; border: 1px solid #ddd; border-radius: 6px; }
        .column.ancestor { background: #f4f4f4; }
        .column header { display: block; padding: .4rem .6rem; border-bottom: 1px solid #ddd; background: transparent; }
        .column .role { font-weight: 700; }
        .column .meta { font-size: .8rem; color: #555; }
        .lines { font-family: ui-monospace, monospace; font-size: .85rem; margin: 0; padding: .4rem 0; white-space: pre-wrap; }
        .line { padding: 0 .6rem; min-height: 1.2em; }
        .line.added { background: #e6ffec; }
        .line.changed { background: #fff8c5; }
        .line.removed { background: #ffebe9; text-decoration: line-through; color: #7d2a25; }
        .line mark.word { background: transparent; font-weight: 700; text-decoration: underline; color: inherit; }
        .line.added mark.word { background: #abf2bc; }
        .line.removed mark.word { background: #ffc1bc; }
        .previews { border-collapse: collapse; margin: 1rem 0; }
        .previews td, .previews th { border-bottom: 1px solid #ddd; padding: .3rem .6rem; text-align: left; }
        .previews tr.selected { background: #fff8e1; }
        .needs { color: #b3261e; }
        textarea#result { width: 100%; min-height: 12rem; font-family: ui-monospace, monospace; font-size: .85rem; }
        button { margin: .2rem .2rem .2rem 0; }
        #message { margin: 0; padding: .4rem 1rem; background: #1d1d1f; color: #fff; }
        #message:empty { display: none; }
        .hint { color: #666; }
        #bulk { padding: .4rem .75rem; border-bottom: 1px solid #ddd; font-size: .9rem; }
        #bulk input, #bulk select { width: 100%; margin: .2rem 0; box-sizing: border-box; }
        #bulk-report { padding-left: 1rem; }
        img.picture { display: block; max-width: 100%; margin: .4rem .6rem; background: repeating-conic-gradient(#eee 0 25%, #fff 0 50%) 0 0 / 16px 16px; }
        .hunk { background: #fff; border: 1px solid #ddd; border-radius: 6px; margin: .5rem 0; padding: .3rem .6rem; }
        .hunk .choice { display: block; margin-top: .3rem; }
        .history-entry { background: #fff; border: 1px solid #ddd; border-radius: 6px; margin: .5rem 0; }
        .history-entry header { display: block; padding: .4rem .6rem; border-bottom: 1px solid #eee; background: transparent; }
        """#

    static let script = #"""
        "use strict";
        (function () {
          let csrf = "";
          let documents = [];
          let openDocument = null;

          function el(tag, className, text) {
            const node = document.createElement(tag);
            if (className) node.className = className;
            if (text !== undefined && text !== null) node.textContent = String(text);
            return node;
          }

          function say(text) { document.getElementById("message").textContent = text; }

          async function getJSON(path) {
            const response = await fetch(path, { credentials: "same-origin" });
            const body = await response.json();
            if (!response.ok) throw new Error(body.error || response.statusText);
            return body;
          }

          async function post(path, value) {
            const response = await fetch(path, {
              method: "POST", credentials: "same-origin",
              headers: { "Content-Type": "application/json", "X-Concord-CSRF": csrf },
              body: JSON.stringify(value)
            });
            const body = await response.json();
            if (!response.ok) throw new Error(body.error || response.statusText);
            return body;
          }

          async function loadList() {
            const list = await getJSON("/api/documents");
            documents = list.documents;
            document.title = (list.conflicts > 0 ? "(" + list.conflicts + ") " : "") + "Concord — " + list.device;
            document.getElementById("heading").textContent = list.conflicts === 1 ? "1 conflict" : list.conflicts + " conflicts";
            renderList();
            await loadDeleted();
          }

          // Recently deleted documents, each with the device and date of its deletion, and a
          // restore that saves the content it had (a new version).
          async function loadDeleted() {
            const list = await getJSON("/api/deleted");
            const ul = document.getElementById("deleted");
            ul.replaceChildren();
            for (const item of list.deleted) {
              const li = el("li", "deleted");
              li.dataset.path = item.document;
              li.appendChild(el("span", "path", item.document));
              li.appendChild(el("span", "when", item.device + " · " + item.modified));
              const restore = el("button", "restore-deleted", "Restore");
              restore.addEventListener("click", async () => {
                try {
                  const done = await post("/api/restore", { document: item.document, version: item.lastVersion });
                  say("Restored " + done.document + " as a new version" + (done.version ? " " + done.version.slice(0, 7) : ""));
                  await loadList();
                } catch (error) { say(error.message); }
              });
              li.appendChild(restore);
              ul.appendChild(li);
            }
            document.getElementById("deleted-box").hidden = list.deleted.length === 0;
          }

          function renderList() {
            const filter = document.getElementById("filter").value.toLowerCase();
            const ul = document.getElementById("list");
            ul.replaceChildren();
            for (const item of documents) {
              if (filter && !item.path.toLowerCase().includes(filter)) continue;
              const li = el("li", item.state);
              li.dataset.path = item.path;
              li.dataset.state = item.state;
              li.appendChild(el("span", "path", item.path));
              li.appendChild(el("span", "state", item.state === "inConflict" ? item.versions + " versions" : item.state));
              if (item.path === openDocument) li.classList.add("selected");
              li.addEventListener("click", () => (item.state === "inConflict" ? openConflict(item.path) : openHistory(item.path)));
              ul.appendChild(li);
            }
          }

          function strip(line) { return line.replace(/\r?\n$/, ""); }

          // A column's lines, built from the ancestor's and the version's changes against them
          // (each removed line paired with the added line at its place, for the word marks).
          function sideLines(view, side, isAncestor) {
            if (!view.base || !side.changes) return null;
            if (isAncestor) return view.base.map((text) => ({ kind: "context", text: text, partner: null }));
            const lines = [];
            let position = 0;
            for (const change of side.changes) {
              for (; position < change.start; position++) lines.push({ kind: "context", text: view.base[position], partner: null });
              const removed = view.base.slice(change.start, change.end);
              removed.forEach((text, i) => lines.push({ kind: "removed", text: text, partner: i < change.lines.length ? change.lines[i] : null }));
              change.lines.forEach((text, i) => lines.push({ kind: "added", text: text, partner: i < removed.length ? removed[i] : null }));
              position = change.end;
            }
            for (; position < view.base.length; position++) lines.push({ kind: "context", text: view.base[position], partner: null });
            return lines;
          }

          // A version's whole text: its own when sent, else the ancestor's lines with its changes.
          function versionText(view, side) {
            if (side.text !== undefined && side.text !== null) return side.text;
            const lines = sideLines(view, side, false);
            return lines ? lines.filter((line) => line.kind !== "removed").map((line) => line.text).join("") : null;
          }

          function column(view, side, role, className) {
            const box = el("div", "column " + className);
            box.dataset.device = side.device;
            box.dataset.version = side.short;
            const head = el("header");
            head.appendChild(el("div", "role", role + " — " + side.device));
            head.appendChild(el("div", "meta", side.short + " · " + side.modified + " · clock " + side.clock + " · " + side.size + " bytes"));
            const text = className === "ancestor" ? null : versionText(view, side);
            if (className !== "ancestor") {
              head.appendChild(el("div", "meta", "+" + side.added + " −" + side.removed + " lines against the ancestor"));
              const keep = el("button", "keep", "Keep this version");
              keep.dataset.version = side.id;
              keep.addEventListener("click", () => resolve({ action: "keep", version: side.id }));
              head.appendChild(keep);
              if (text !== null) {
                const edit = el("button", "edit", "Edit from this");
                edit.addEventListener("click", () => { document.getElementById("result").value = text; });
                head.appendChild(edit);
              }
            }
            box.appendChild(head);
            const body = el("div", "lines");
            const lines = sideLines(view, side, className === "ancestor");
            if (side.deleted) body.appendChild(el("div", "line hint", "deleted in this version"));
            else if (side.binary) {
              body.appendChild(el("div", "line hint", "binary content, " + side.size + " bytes, id " + side.contentID));
              if (side.image) {
                const picture = el("img", "picture");
                picture.alt = side.device + "'s version";
                picture.src = "/api/image?document=" + encodeURIComponent(view.document) + "&version=" + encodeURIComponent(side.id);
                body.appendChild(picture);
              }
            }
            else if (side.files) {
              const changed = new Map((side.fileChanges || []).map((change) => [change.path, change]));
              for (const file of side.files) {
                const change = changed.get(file);
                const counts = change && change.added !== undefined && change.added !== null ? " (+" + change.added + " −" + change.removed + " lines)" : "";
                const row = el("div", "line " + (change ? (change.change === "added" ? "added" : "changed") : "context"), file + (change ? " — " + change.change + counts : ""));
                row.dataset.file = file;
                body.appendChild(row);
                // A changed text file's lines, as a unified diff below its name.
                for (const hunk of (change && change.hunks) || []) {
                  const block = el("div", "file-hunk");
                  block.dataset.file = file;
                  block.appendChild(el("div", "line context hunk-header", "@@ −" + hunk.oldStart + "," + hunk.oldCount + " +" + hunk.newStart + "," + hunk.newCount + " @@"));
                  for (const line of hunk.lines) {
                    const kind = line.kind === "added" ? "added" : line.kind === "removed" ? "removed" : "context";
                    block.appendChild(el("div", "line " + kind, (kind === "added" ? "+ " : kind === "removed" ? "− " : "  ") + strip(line.text)));
                  }
                  body.appendChild(block);
                }
              }
              for (const change of side.fileChanges || []) if (change.change === "removed") body.appendChild(el("div", "line removed", change.path + " — removed"));
            }
            else if (lines) for (const line of lines) {
              const row = el("div", "line " + line.kind);
              row.dataset.kind = line.kind;
              fillLine(row, strip(line.text), line.partner === null ? null : strip(line.partner));
              body.appendChild(row);
            }
            else if (text !== null) for (const line of text.split("\n")) body.appendChild(el("div", "line", line));
            box.appendChild(body);
            return box;
          }

          // Word marks: both lines cut into words, runs of white space and single other characters;
          // the tokens of `text` outside a longest common subsequence with `other`'s are marked, a
          // run of them as one mark (white space between two marked tokens joins them). Past
          // `wordLimit` tokens on either side, between their common start and end, the one span
          // between those is marked instead, so that a huge line costs no quadratic time.
          const wordLimit = 400;

          function tokens(text) { return text.match(/[\p{L}\p{N}\p{M}_]+|\s+|[^\p{L}\p{N}\p{M}_\s]/gu) || []; }

          function changedSpans(text, other) {
            const a = tokens(text), b = tokens(other);
            let head = 0;
            while (head < a.length && head < b.length && a[head] === b[head]) head++;
            let tail = 0;
            while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
            const n = a.length - head - tail, m = b.length - head - tail;
            const marked = new Array(a.length).fill(false);
            if (n > wordLimit || m > wordLimit || m === 0) {
              for (let i = head; i < head + n; i++) marked[i] = true;
            } else {
              // Each token as a number, then lengths[i * (m + 1) + j]: the longest common
              // subsequence of a's middle from i and b's from j.
              const ids = new Map();
              const number = (token) => { if (!ids.has(token)) ids.set(token, ids.size); return ids.get(token); };
              const x = Int32Array.from(a.slice(head, head + n), number), y = Int32Array.from(b.slice(head, head + m), number);
              const lengths = new Uint16Array((n + 1) * (m + 1));
              for (let i = n - 1; i >= 0; i--) {
                for (let j = m - 1; j >= 0; j--) {
                  lengths[i * (m + 1) + j] = x[i] === y[j] ? lengths[(i + 1) * (m + 1) + j + 1] + 1
                    : Math.max(lengths[(i + 1) * (m + 1) + j], lengths[i * (m + 1) + j + 1]);
                }
              }
              let i = 0, j = 0;
              while (i < n) {
                if (j < m && x[i] === y[j]) { i++; j++; }
                else if (j < m && lengths[i * (m + 1) + j + 1] >= lengths[(i + 1) * (m + 1) + j]) j++;
                else { marked[head + i] = true; i++; }
              }
            }
            for (let i = 1; i < a.length - 1; i++) if (!marked[i] && marked[i - 1] && marked[i + 1] && /^\s+$/u.test(a[i])) marked[i] = true;
            const spans = [];
            let offset = 0;
            a.forEach((token, i) => {
              if (marked[i]) {
                const last = spans[spans.length - 1];
                if (last && last[1] === offset) last[1] += token.length; else spans.push([offset, offset + token.length]);
              }
              offset += token.length;
            });
            return spans;
          }

          // A changed line, its words marked against its partner's (the line at its place on the other side).
          function fillLine(row, text, other) {
            if (other === null) { row.textContent = text; return; }
            let at = 0;
            for (const [start, end] of changedSpans(text, other)) {
              if (start > at) row.appendChild(document.createTextNode(text.slice(at, start)));
              row.appendChild(el("mark", "word", text.slice(start, end)));
              at = end;
            }
            if (at < text.length) row.appendChild(document.createTextNode(text.slice(at)));
          }

          function conflictPaths() { return documents.filter((item) => item.state === "inConflict").map((item) => item.path); }

          // Keys: j and k, the next and previous conflict; 1 to 9, start the result from that version;
          // Ctrl+Enter (in the result too), save the result.
          document.addEventListener("keydown", (event) => {
            if (event.key === "Enter" && event.ctrlKey && openDocument) { event.preventDefault(); document.getElementById("save-result").click(); return; }
            const target = event.target;
            if (target && (target.tagName === "TEXTAREA" || target.tagName === "INPUT") || event.ctrlKey || event.metaKey || event.altKey) return;
            const paths = conflictPaths();
            if ((event.key === "j" || event.key === "k") && paths.length > 0) {
              const here = paths.indexOf(openDocument);
              const next = event.key === "j" ? (here + 1) % paths.length : (here <= 0 ? paths.length - 1 : here - 1);
              openConflict(paths[next]);
            } else if (/^[1-9]$/.test(event.key) && currentView) {
              const version = currentView.versions[Number(event.key) - 1];
              const text = version ? versionText(currentView, version) : null;
              if (text !== null) document.getElementById("result").value = text;
            }
          });

          let currentView = null;

          async function openConflict(path) {
            openDocument = path;
            renderList();
            let view;
            try { view = await getJSON("/api/conflict?document=" + encodeURIComponent(path)); }
            catch (error) { say(error.message); return; }
            currentView = view;
            const section = document.getElementById("view");
            section.replaceChildren();
            section.appendChild(el("h2", "document", view.document));
            const historyButton = el("button", "history", "History");
            historyButton.addEventListener("click", () => openHistory(path));
            section.appendChild(historyButton);
            const columns = el("div", "columns");
            if (view.ancestor) columns.appendChild(column(view, view.ancestor, "Ancestor", "ancestor"));
            else columns.appendChild(el("div", "column ancestor hint", "No common ancestor: each device added the document."));
            for (const version of view.versions) columns.appendChild(column(view, version, version.current ? "Current" : "Conflict", "version"));
            section.appendChild(columns);

            section.appendChild(el("h3", null, "Merge policies"));
            section.appendChild(el("p", "chosen", ".concord/policies chooses " + view.selected.policy + (view.rule ? " (" + view.rule + ")" : " (the defaults)")));
            const table = el("table", "previews");
            for (const preview of view.previews) {
              const row = el("tr", preview.policy === view.selected.policy ? "preview selected" : "preview");
              row.dataset.policy = preview.policy;
              row.appendChild(el("td", null, preview.policy));
              row.appendChild(el("td", preview.merged ? "merges" : "needs", preview.merged ? (preview.deleted ? "merges: deleted" : "merges") : "needs a person: " + preview.reason));
              const actions = el("td");
              if (preview.hasText) {
                const show = el("button", "show", "Edit from this");
                show.addEventListener("click", async () => {
                  try {
                    const answer = await getJSON("/api/preview?document=" + encodeURIComponent(path) + "&policy=" + encodeURIComponent(preview.policy));
                    document.getElementById("result").value = answer.text || "";
                  } catch (error) { say(error.message); }
                });
                actions.appendChild(show);
              }
              if (preview.merged) {
                const apply = el("button", "apply", "Resolve with " + preview.policy);
                apply.addEventListener("click", () => resolve({ action: "policy", policy: preview.policy }));
                actions.appendChild(apply);
              }
              row.appendChild(actions);
              table.appendChild(row);
            }
            section.appendChild(table);

            if (view.regions && view.regions.length > 0) section.appendChild(hunkPicker(view));

            section.appendChild(el("h3", null, "Result"));
            const editor = el("textarea");
            editor.id = "result";
            editor.value = view.start || "";
            section.appendChild(editor);
            const label = el("label");
            const allow = el("input");
            allow.type = "checkbox";
            allow.id = "allow-markers";
            label.appendChild(allow);
            label.appendChild(document.createTextNode(" save even with conflict markers"));
            section.appendChild(label);
            const save = el("button", null, "Save this result");
            save.id = "save-result";
            save.addEventListener("click", () => resolve({ action: "content", content: editor.value, allowMarkers: allow.checked }));
            section.appendChild(save);
            const latest = el("button", null, "Keep the latest");
            latest.id = "keep-latest";
            latest.addEventListener("click", () => resolve({ action: "latest" }));
            section.appendChild(latest);
            const both = el("button", null, "Keep both (the others saved beside, named after their devices)");
            both.id = "keep-both";
            both.addEventListener("click", () => resolve({ action: "keepBoth" }));
            section.appendChild(both);
          }

          // Hunk by hunk: for each changed region, the versions whose lines to take, in the order
          // they were ticked (none: the ancestor's lines); then the result is built from the picks,
          // the ancestor's lines between the regions.
          function hunkPicker(view) {
            const box = el("div", "hunks");
            box.appendChild(el("h3", null, "Pick by hunk"));
            const picks = view.regions.map((region) => region.pick.slice());
            view.regions.forEach((region, index) => {
              const part = el("div", "hunk");
              part.dataset.hunk = String(index);
              const first = region.start + 1, last = Math.max(first, region.end);
              const who = region.changedBy.map((i) => view.versions[i].device).join(", ");
              part.appendChild(el("div", "meta", "Ancestor lines " + first + (last > first ? "–" + last : "") + ", changed by " + who + (region.pick.length === 0 ? ": pick" : "")));
              const base = el("div", "lines ancestor-lines");
              for (const text of view.base.slice(region.start, region.end)) base.appendChild(el("div", "line removed", strip(text)));
              if (region.end === region.start) base.appendChild(el("div", "line hint", "(nothing in the ancestor)"));
              part.appendChild(base);
              region.versions.forEach((lines, version) => {
                if (!region.changedBy.includes(version)) return;
                const label = el("label", "choice");
                const tick = el("input");
                tick.type = "checkbox";
                tick.dataset.version = String(version);
                tick.dataset.device = view.versions[version].device;
                tick.checked = picks[index].includes(version);
                tick.addEventListener("change", () => {
                  picks[index] = picks[index].filter((i) => i !== version);
                  if (tick.checked) picks[index].push(version);
                });
                label.appendChild(tick);
                label.appendChild(document.createTextNode(" take " + view.versions[version].device + "'s"));
                part.appendChild(label);
                const body = el("div", "lines");
                for (const text of lines) body.appendChild(el("div", "line added", strip(text)));
                if (lines.length === 0) body.appendChild(el("div", "line hint", "(lines removed)"));
                part.appendChild(body);
              });
              box.appendChild(part);
            });
            const build = el("button", null, "Build the result from these picks");
            build.id = "build-from-picks";
            build.addEventListener("click", () => {
              let text = "";
              let position = 0;
              view.regions.forEach((region, index) => {
                text += view.base.slice(position, region.start).join("");
                const picked = picks[index];
                text += picked.length === 0 ? view.base.slice(region.start, region.end).join("") : picked.map((i) => region.versions[i].join("")).join("");
                position = region.end;
              });
              text += view.base.slice(position).join("");
              document.getElementById("result").value = text;
            });
            box.appendChild(build);
            return box;
          }

          async function openHistory(path) {
            openDocument = path;
            currentView = null;
            renderList();
            let history;
            try { history = await getJSON("/api/history?document=" + encodeURIComponent(path)); }
            catch (error) { say(error.message); return; }
            const section = document.getElementById("view");
            section.replaceChildren();
            section.appendChild(el("h2", "document", history.document));
            section.appendChild(el("p", "hint", history.total + (history.total === 1 ? " version" : " versions") + ", newest first" + (history.total > history.versions.length ? " (the newest " + history.versions.length + " shown)" : "")));
            for (const version of history.versions) {
              const entry = el("div", "history-entry");
              entry.dataset.version = version.short;
              entry.dataset.device = version.device;
              const head = el("header");
              const flags = [version.current ? "current" : null, version.conflict ? "conflict" : null, version.deleted ? "deleted" : null,
                version.resolves > 0 ? "resolves " + version.resolves : null].filter((flag) => flag);
              head.appendChild(el("div", "role", version.device + (flags.length ? " — " + flags.join(", ") : "")));
              head.appendChild(el("div", "meta", version.short + " · " + version.modified + " · clock " + version.clock + " · " + version.size + " bytes · +" + version.added + " −" + version.removed + " lines"));
              if (!version.current && !version.deleted) {
                const restore = el("button", "restore", "Restore this version");
                restore.dataset.version = version.id;
                restore.addEventListener("click", async () => {
                  try {
                    const done = await post("/api/restore", { document: path, version: version.id });
                    say("Restored " + done.document + " as a new version" + (done.version ? " " + done.version.slice(0, 7) : ""));
                    await loadList();
                    await openHistory(path);
                  } catch (error) { say(error.message); }
                });
                head.appendChild(restore);
              }
              entry.appendChild(head);
              if (version.changes) {
                const body = el("div", "lines");
                for (const line of version.changes) body.appendChild(el("div", "line " + line.kind, line.text));
                entry.appendChild(body);
              }
              section.appendChild(entry);
            }
          }

          async function resolve(how) {
            how.document = openDocument;
            try {
              const done = await post("/api/resolve", how);
              say("Resolved " + done.document + ": " + done.explanation);
              const section = document.getElementById("view");
              const resolved = el("p", "resolved", "Resolved " + done.document + ". ");
              const undo = el("button", "undo", "Undo");
              undo.id = "undo";
              const name = done.document;
              undo.addEventListener("click", async () => {
                try {
                  await post("/api/undo", { document: name });
                  say("Undid the resolution of " + name + ": its versions are in contention again");
                  await loadList();
                  await openConflict(name);
                } catch (error) { say(error.message); }
              });
              resolved.appendChild(undo);
              section.replaceChildren(resolved);
              openDocument = null;
              currentView = null;
              await loadList();
            } catch (error) { say(error.message); }
          }

          // Resolve many: a preview of what each matching conflict keeps and removes, then the same, for real.
          function bulkAsked(dryRun) {
            const choice = document.getElementById("bulk-action").value;
            const asked = { pattern: document.getElementById("bulk-pattern").value, action: choice, dryRun: dryRun };
            if (choice.startsWith("policy:")) { asked.action = "policy"; asked.policy = choice.slice(7); }
            return asked;
          }

          async function bulk(dryRun) {
            const report = document.getElementById("bulk-report");
            const resolveButton = document.getElementById("bulk-resolve");
            report.replaceChildren();
            resolveButton.disabled = true;
            try {
              const reports = await post("/api/bulk", bulkAsked(dryRun));
              for (const item of reports) {
                const li = el("li", "bulk-item", item.document + ": " + item.explanation + (item.removed.length ? "; removes " + item.removed.join(", ") + "'s" : ""));
                li.dataset.path = item.document;
                report.appendChild(li);
              }
              if (dryRun) resolveButton.disabled = reports.length === 0;
              else { say("Resolved " + reports.length + (reports.length === 1 ? " document" : " documents")); await loadList(); }
            } catch (error) { say(error.message); }
          }

          function setUpBulk() {
            const select = document.getElementById("bulk-action");
            for (const name of ["text", "text-union", "union", "json", "json-latest", "current"]) {
              const option = el("option", null, "merge with " + name);
              option.value = "policy:" + name;
              select.appendChild(option);
            }
            document.getElementById("bulk-preview").addEventListener("click", () => bulk(true));
            document.getElementById("bulk-resolve").addEventListener("click", () => bulk(false));
            for (const id of ["bulk-pattern", "bulk-action"]) {
              document.getElementById(id).addEventListener("input", () => { document.getElementById("bulk-resolve").disabled = true; });
            }
          }

          async function start() {
            const session = await getJSON("/api/session");
            csrf = session.csrf;
            document.getElementById("filter").addEventListener("input", renderList);
            setUpBulk();
            await loadList();
            const events = new EventSource("/api/events");
            events.addEventListener("change", async (event) => {
              await loadList();
              const changed = JSON.parse(event.data).document;
              if (openDocument && changed === openDocument) {
                if (documents.some((item) => item.path === changed && item.state === "inConflict")) await openConflict(changed);
              }
            });
          }

          start().catch((error) => say(error.message));
        })();
        """#
}
