"""The timeline picture of a run: one lane per device, an SVG with a tooltip on every event."""

from __future__ import annotations

import html


class Timeline:
    COLORS = {"save": "#2b7bb9", "delete": "#7a4b9c", "sync": "#555555", "offline": "#bbbbbb",
              "conflict": "#d62728", "resolve": "#2ca02c", "quiet": "#f0e6b4", "skew": "#ff9f1c",
              "failure": "#000000", "outage": "#8c564b"}

    def __init__(self, devices):
        self.devices = [d.name for d in devices]
        self.events = []     # (x, lane, kind, label)
        self.offline = {}    # lane -> start x
        self.spans = []      # (lane, x0, x1)
        self.quiet = []      # (x0, x1)
        self.shorts = {}     # (x, lane) -> a word written under the lane (the scenario's few events)
        self.x = 0

    def add(self, lane, kind, label="", short=None):
        self.events.append((self.x, lane, kind, label))
        if short is not None:
            self.shorts[(self.x, lane)] = short

    def airplane(self, lane, on):
        if on and lane not in self.offline:
            self.offline[lane] = self.x
        elif not on and lane in self.offline:
            self.spans.append((lane, self.offline.pop(lane), self.x))

    def write(self, path, title):
        for lane, x0 in list(self.offline.items()):
            self.spans.append((lane, x0, self.x))
        self.offline.clear()
        step_w = max(6, min(40, 1600 // max(1, self.x + 1)))
        left, top, lane_h = 110, 50, 46
        width = max(left + (self.x + 2) * step_w + 20, 1300)
        height = top + lane_h * len(self.devices) + 70
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
               f'font-family="sans-serif" font-size="12">',
               f'<rect width="100%" height="100%" fill="white"/>',
               f'<text x="10" y="22" font-size="15" font-weight="bold">{html.escape(title)}</text>']

        def cx(x):
            return left + x * step_w + step_w / 2

        def cy(lane):
            return top + lane * lane_h + lane_h / 2

        for x0, x1 in self.quiet:
            out.append(f'<rect x="{cx(x0) - step_w / 2}" y="{top}" width="{(x1 - x0 + 1) * step_w}" '
                       f'height="{lane_h * len(self.devices)}" fill="{self.COLORS["quiet"]}" opacity="0.6">'
                       f'<title>quiet round: every device syncs twice</title></rect>')
        for lane, name in enumerate(self.devices):
            y = cy(lane)
            out.append(f'<text x="10" y="{y + 4}">{html.escape(name)}</text>')
            out.append(f'<line x1="{left}" y1="{y}" x2="{width - 20}" y2="{y}" stroke="#dddddd" stroke-width="2"/>')
        for lane, x0, x1 in self.spans:
            out.append(f'<rect x="{cx(x0)}" y="{cy(lane) - 14}" width="{max(2, (x1 - x0) * step_w)}" height="28" '
                       f'fill="{self.COLORS["offline"]}" opacity="0.5"><title>{html.escape(self.devices[lane])} '
                       f'in airplane mode</title></rect>')
        r = max(2.5, min(7, step_w / 2.5))
        for x, lane, kind, label in self.events:
            X, Y = cx(x), cy(lane)
            color = self.COLORS.get(kind, "#999999")
            tip = f"<title>{html.escape(label)}</title>" if label else ""
            if kind in ("save", "delete"):
                out.append(f'<circle cx="{X}" cy="{Y}" r="{r}" fill="{color}">{tip}</circle>')
            elif kind == "sync":
                out.append(f'<path d="M{X - r} {Y - r - 4} L{X + r} {Y - r - 4} L{X} {Y + r - 4} Z" fill="{color}">{tip}</path>')
            elif kind == "offline":
                out.append(f'<path d="M{X - r} {Y - r - 4} L{X + r} {Y - r - 4} L{X} {Y + r - 4} Z" fill="none" '
                           f'stroke="{color}">{tip}</path>')
            elif kind == "conflict":
                out.append(f'<path d="M{X - r} {Y - r} L{X + r} {Y + r} M{X + r} {Y - r} L{X - r} {Y + r}" '
                           f'stroke="{color}" stroke-width="3">{tip}</path>')
            elif kind == "resolve":
                out.append(f'<path d="M{X} {Y - r - 2} L{X + r + 2} {Y} L{X} {Y + r + 2} L{X - r - 2} {Y} Z" '
                           f'fill="{color}">{tip}</path>')
            elif kind == "outage":
                out.append(f'<line x1="{X}" y1="{Y - 16}" x2="{X}" y2="{Y + 16}" stroke="{color}" '
                           f'stroke-width="2" stroke-dasharray="3,2">{tip}</line>')
            elif kind == "skew":
                out.append(f'<rect x="{X - r}" y="{Y + 8}" width="{2 * r}" height="{r}" fill="{color}">{tip}</rect>')
            elif kind == "failure":
                out.append(f'<line x1="{X}" y1="{top - 10}" x2="{X}" y2="{height - 50}" stroke="black" '
                           f'stroke-width="2">{tip}</line>')
        for (x, lane), text in sorted(self.shorts.items()):
            out.append(f'<text x="{cx(x)}" y="{cy(lane) + 27}" font-size="10" text-anchor="middle" '
                       f'fill="#333333">{html.escape(text)}</text>')
        if self.x > 40:
            every = 25 if self.x <= 400 else 100
            for x in range(every, self.x + 1, every):
                out.append(f'<text x="{cx(x)}" y="{top + lane_h * len(self.devices) + 14}" font-size="10" '
                           f'text-anchor="middle" fill="#666666">{x}</text>')
            out.append(f'<text x="{left - 10}" y="{top + lane_h * len(self.devices) + 14}" font-size="10" '
                       f'text-anchor="end" fill="#666666">step</text>')
        ly = height - 25
        legend = [("save", "save"), ("delete", "delete"), ("sync", "sync"), ("offline", "sync refused (offline)"),
                  ("conflict", "new conflict"), ("resolve", "resolution"), ("skew", "clock skew change"), ("outage", "cloud outage")]
        lx = left
        for kind, text in legend:
            out.append(f'<circle cx="{lx}" cy="{ly - 4}" r="5" fill="{self.COLORS[kind]}"/>'
                       f'<text x="{lx + 9}" y="{ly}">{text}</text>')
            lx += 30 + 7 * len(text)
        out.append(f'<rect x="{lx}" y="{ly - 11}" width="20" height="12" fill="{self.COLORS["offline"]}"/>'
                   f'<text x="{lx + 25}" y="{ly}">airplane mode</text>')
        lx += 130
        out.append(f'<rect x="{lx}" y="{ly - 11}" width="20" height="12" fill="{self.COLORS["quiet"]}"/>'
                   f'<text x="{lx + 25}" y="{ly}">quiet round</text>')
        out.append("</svg>")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(out) + "\n")

