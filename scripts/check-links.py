#!/usr/bin/env python3
"""Relative links in the documentation that lead nowhere.

Checks every Markdown link and image in README.md, BENCHMARKS.md, docs/*.md and
crates/*/README.md (or the files given as arguments): a relative path must name a file
or directory of the repository, and an anchor (`page.md#section`, `#section`) must be a
heading of that page (GitHub's slugs) or an explicit `id`/`name`. Links with a scheme
(https:, mailto:) are not fetched. Text in code blocks and code spans is not a link.

Prints `FILE:LINE: LINK: what is wrong` for each, and exits 1 if there is any.
Run from anywhere: paths are taken relative to the repository root.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_FILES = ["README.md", "BENCHMARKS.md", "docs/*.md", "crates/*/README.md"]

INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ID = re.compile(r"""<[^>]*\b(?:id|name)\s*=\s*["']([^"']+)["']""")
FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def prose_lines(text):
    """(line number, line) outside fenced code blocks, code spans blanked."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark[0] * len(mark)
                continue
            if mark.startswith(fence):
                fence = None
                continue
        if fence is not None:
            continue
        yield n, re.sub(r"(`+)(.+?)\1", lambda c: " " * len(c.group(0)), line)


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text, flags=re.UNICODE)
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    """Every anchor a Markdown file defines."""
    if path not in _anchors:
        seen, found = {}, set()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        fence = None
        for line in text.split("\n"):
            m = FENCE.match(line)
            if m:
                mark = m.group(1)
                if fence is None:
                    fence = mark[0] * len(mark)
                elif mark.startswith(fence):
                    fence = None
                continue
            if fence is not None:
                continue
            h = HEADING.match(line)
            if h:
                base = slug(h.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
            found.update(HTML_ID.findall(line))
        _anchors[path] = found
    return _anchors[path]


def check(path):
    problems = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    here = os.path.dirname(path)
    for n, line in prose_lines(text):
        targets = INLINE.findall(line)
        m = REFDEF.match(line)
        if m:
            targets.append(m.group(1))
        for url in targets:
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", url):
                continue  # https:, mailto:, …: not checked here
            target, _, anchor = url.partition("#")
            dest = os.path.normpath(os.path.join(here, target)) if target else path
            if not os.path.exists(dest):
                problems.append((n, url, f"{os.path.relpath(dest, ROOT)} does not exist"))
                continue
            if not os.path.realpath(dest).startswith(ROOT + os.sep):
                problems.append((n, url, "leads outside the repository"))
                continue
            if anchor and dest.endswith(".md") and os.path.isfile(dest):
                if anchor not in anchors(dest):
                    problems.append(
                        (n, url, f"no heading or id '#{anchor}' in {os.path.relpath(dest, ROOT)}")
                    )
    return problems


def main(argv):
    patterns = argv or DEFAULT_FILES
    files = []
    for p in patterns:
        found = sorted(glob.glob(os.path.join(ROOT, p)))
        if not found and not glob.has_magic(p):
            print(f"check-links: {p}: no such file", file=sys.stderr)
            return 2
        files += found
    count = 0
    for path in files:
        for n, url, what in check(path):
            print(f"{os.path.relpath(path, ROOT)}:{n}: {url}: {what}")
            count += 1
    if count:
        print(f"check-links: {count} broken link(s) in {len(files)} files", file=sys.stderr)
        return 1
    print(f"check-links: {len(files)} files, every relative link leads somewhere")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
