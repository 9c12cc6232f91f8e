#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks a layout record (tracefold render --layout-json) the way a
reviewer reads a figure: no two text boxes of a page overlap, none leaves
its page or its panel, nothing is cut without a key (a shortened text has
its full text in the page's numbered key, or in that of the page after it
when that page holds only the key), no legend ends in "+N more",
and the source-line axis has one band per file (titles all different).
Usage: layout_check.py NAME LAYOUT.json ...; prints one line per fault and
exits 1 when there is any."""
import json
import sys

SUP = dict(zip("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
# Text boxes include the line spacing: boxes of stacked lines touch, and a
# shared strip thinner than this is not an overlap anyone can see.
SLACK = 0.3


def mark(key):
    return "".join(SUP[d] for d in str(key))


def inside(t, box):
    return (t["x"] >= box["x"] - SLACK and t["y"] >= box["y"] - SLACK
            and t["x"] + t["width"] <= box["x"] + box["width"] + SLACK
            and t["y"] + t["height"] <= box["y"] + box["height"] + SLACK)


def overlap(a, b):
    w = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    return w > SLACK and h > SLACK


def show(t):
    return "page %d %s %s '%s' at (%.1f, %.1f) %.1fx%.1f" % (
        t["page"], t["panel"], t["role"], t["text"], t["x"], t["y"], t["width"], t["height"])


def check(name, path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    faults = []
    page = {"x": 0, "y": 0, "width": doc["page_width"], "height": doc["page_height"]}
    panels = {(p["page"], p["panel"]): p for p in doc["panels"]}
    texts = doc["texts"]
    if not texts:
        faults.append("no text recorded")
    names = {}
    for p in doc["panels"]:
        names.setdefault(p["page"], set()).add(p["panel"])
    key_only = {pg for pg, n in names.items() if n <= {"title", "key"}}
    keys = {}
    for t in texts:
        if t["role"] == "key":
            keys.setdefault(t["page"], []).append(t["text"])
    for t in texts:
        if not t["text"].strip():
            continue
        if not inside(t, page):
            faults.append("leaves the page: " + show(t))
        box = panels.get((t["page"], t["panel"]))
        if box is None:
            faults.append("in no recorded panel: " + show(t))
        elif not inside(t, box):
            faults.append("leaves its panel: " + show(t))
        if "full" in t:
            want = mark(t["key"]) + " " + t["full"]
            # The key of a timeline page too small for it is on the page
            # after it, a page of title and key only.
            nxt = t["page"] + 1
            key_page = nxt in key_only and want in keys.get(nxt, [])
            if want not in keys.get(t["page"], []) and not key_page:
                faults.append("shortened without its key: " + show(t))
        elif "…" in t["text"] or "..." in t["text"]:
            faults.append("cut without a key: " + show(t))
        if t["text"].startswith("+") and t["text"].endswith(" more"):
            faults.append("legend not complete: " + show(t))
    # One band of the source-line axis per file: two bands titled alike
    # would be one file's lines on two scales.
    titles = {}
    for t in texts:
        if t["role"] == "band title":
            titles.setdefault((t["page"], t["panel"]), []).append(t["text"])
    for (pg, panel), names in titles.items():
        if len(set(names)) != len(names) or len(names) < 2:
            faults.append("page %d %s: band titles %s not one per file" % (pg, panel, names))
    by_page = {}
    for t in texts:
        if t["text"].strip():
            by_page.setdefault(t["page"], []).append(t)
    for ts in by_page.values():
        ts.sort(key=lambda t: t["x"])
        for i, a in enumerate(ts):
            for b in ts[i + 1:]:
                if b["x"] >= a["x"] + a["width"]:
                    break
                if overlap(a, b):
                    faults.append("overlap: " + show(a) + " and " + show(b))
    for f in faults:
        print("FAIL: %s: %s" % (name, f))
    return not faults


def main():
    args = sys.argv[1:]
    if len(args) < 2 or len(args) % 2:
        sys.exit("usage: layout_check.py NAME LAYOUT.json ...")
    ok = all([check(args[i], args[i + 1]) for i in range(0, len(args), 2)])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
