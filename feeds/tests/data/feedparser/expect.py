#!/usr/bin/env python3
"""The reference for feeds/tests/extract_feedparser.rs: what Universal Feed
Parser 6 (Python `feedparser`) reads from its own test files, per entry, as
a link and a title as text.

    # choose and copy the test files (from a checkout of feedparser at v6.0.14)
    python3 expect.py copy /path/to/feedparser/tests .
    # write the expectations (needs `pip install feedparser==6.0.14`)
    python3 expect.py expect . > expected.json
    # feedparser's reading of other feeds (the shared corpus), same form
    python3 expect.py corpus ../../../../../shared/corpus/feeds-real-world

A file is chosen when feedparser gives at least one of its entries a link
or a title. Each file is parsed from its bytes with the response headers a
reader would have had: `Content-Type` from the file's `Header:` comments
(feedparser's own test convention), else `application/xml` (what its own
tests amount to: they hand feedparser text with no headers, and feedparser
calls a response without an XML type ill-formed), and a base URL, the one
feedparser's
test server gives it (`http://127.0.0.1:8097/tests/<path>`), joined with
the file's `Content-Location` header when it has one. The Rust test reads
the same bytes against the same base and content type.

"Title as text" is feedparser's title as a reader would show it: when
feedparser says the title is HTML (`title_detail.type` text/html or
application/xhtml+xml), its tags are dropped (the content of script and
style with them, `br` and block elements leaving a space) and its
references decoded, by Python's own `html.parser`; then runs of whitespace
become one space. This is written here, independently of the Rust code it
checks.
"""

import html.parser
import json
import os
import re
import shutil
import sys
import urllib.parse

DIRS = ("wellformed", "illformed", "encoding", "entities")
HEADER = re.compile(r"^Header:\s+([^:]+):(.*)$", re.MULTILINE)
BREAKS = {
    "br", "p", "div", "li", "ul", "ol", "dl", "dt", "dd", "tr", "td", "th", "table",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "blockquote", "pre", "section",
    "article", "header", "footer", "figure", "figcaption",
}


def files(root):
    for d in DIRS:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            for n in sorted(names):
                if n.endswith(".xml"):
                    path = os.path.join(dirpath, n)
                    yield os.path.relpath(path, root).replace(os.sep, "/")


def response(root, rel):
    """The headers a reader would have had, and the base URL."""
    data = open(os.path.join(root, rel), "rb").read()
    text = data.decode("utf-8", "ignore")
    headers = {k.strip().lower(): v.strip() for k, v in HEADER.findall(text)}
    url = "http://127.0.0.1:8097/tests/" + rel
    base = urllib.parse.urljoin(url, headers["content-location"]) if "content-location" in headers else url
    return data, headers.get("content-type", "application/xml"), base


def parse(root, rel):
    import feedparser

    data, ctype, base = response(root, rel)
    headers = {"content-location": base, "content-type": ctype}
    return feedparser.parse(data, response_headers=headers), ctype, base


class TextOf(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        if tag in BREAKS:
            self.out.append(" ")

    def handle_startendtag(self, tag, attrs):
        if tag in BREAKS:
            self.out.append(" ")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)
        if tag in BREAKS:
            self.out.append(" ")

    def handle_data(self, data):
        if not self.skip:
            self.out.append(data)


def title_text(entry):
    title = entry.get("title", "")
    kind = entry.get("title_detail", {}).get("type", "text/plain")
    if kind in ("text/html", "application/xhtml+xml"):
        p = TextOf()
        p.feed(title)
        p.close()
        title = "".join(p.out)
    return " ".join(title.split())


def copy(src, dest):
    import feedparser  # noqa: F401  (the choice needs it)

    chosen = 0
    for rel in files(src):
        result, _, _ = parse(src, rel)
        if any(e.get("link") or e.get("title") for e in result.entries):
            os.makedirs(os.path.join(dest, "tests", os.path.dirname(rel)), exist_ok=True)
            shutil.copyfile(os.path.join(src, rel), os.path.join(dest, "tests", rel))
            chosen += 1
    print(f"{chosen} files copied", file=sys.stderr)


def expect(dest):
    import feedparser

    root = os.path.join(dest, "tests")
    out = {
        "generator": f"feedparser {feedparser.__version__}",
        "files": [],
    }
    for rel in sorted(files(root)):
        result, ctype, base = parse(root, rel)
        out["files"].append(
            {
                "path": rel,
                "base": base,
                "content_type": ctype,
                "bozo": bool(result.bozo),
                "entries": [
                    {"link": e.get("link") or None, "title": title_text(e)}
                    for e in result.entries
                ],
            }
        )
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False, sort_keys=True)
    sys.stdout.write("\n")


def corpus(root):
    """Every RSS and Atom file under `root` (feedparser 6 reads no JSON
    Feed), read against `https://feeds.example.test/<dir>/<name>` as
    application/xml."""
    import feedparser

    out = {"generator": f"feedparser {feedparser.__version__}", "files": []}
    for d in ("rss0", "rss1", "rss2", "atom"):
        for name in sorted(os.listdir(os.path.join(root, d))):
            if not name.endswith(".xml"):
                continue
            rel = f"{d}/{name}"
            data = open(os.path.join(root, rel), "rb").read()
            base = "https://feeds.example.test/" + rel
            headers = {"content-location": base, "content-type": "application/xml"}
            result = feedparser.parse(data, response_headers=headers)
            out["files"].append(
                {
                    "path": rel,
                    "base": base,
                    "content_type": "application/xml",
                    "bozo": bool(result.bozo),
                    "entries": [
                        {"link": e.get("link") or None, "title": title_text(e)}
                        for e in result.entries
                    ],
                }
            )
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["copy"] and len(sys.argv) == 4:
        copy(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["expect"] and len(sys.argv) == 3:
        expect(sys.argv[2])
    elif sys.argv[1:2] == ["corpus"] and len(sys.argv) == 3:
        corpus(sys.argv[2])
    else:
        sys.exit(__doc__)
