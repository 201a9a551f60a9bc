#!/usr/bin/env python3
"""The platform robots parser's verdicts, for the differential of issue #18.

Spec 15.1 names "the platform robots parser" as a reference; on this
project's machines that is Python's standard-library
``urllib.robotparser``. This script asks it, and only it, whether
``Walsh-Research`` may fetch each URL of each case, so that the Rust test
(``feeds/tests/platform_robotparser.rs``) can hold the production path to
every denial of a parser we did not write.

Input: JSON Lines on stdin (or the file named as the first argument), one
robots.txt body per line::

    {"id": "...", "family": "...", "body": "<robots.txt text>", "urls": ["https://...", ...]}

The URLs are already in the form the bot sends (the WHATWG serialisation
of the ``url`` crate); ``wr_conformance::platform`` writes this input.

Output: JSON Lines on stdout. A header line, then per body the input's
``id``, ``family`` and ``body`` and per URL Python's verdict::

    {"url": "...", "allowed": false, "line": 4, "text": "Disallow: /x",
     "agent_line": 3, "departs": ["rule-order"], "spec_like": true}

``allowed`` is ``RobotFileParser.can_fetch`` after ``parse(body.splitlines())``
(exactly what ``read()`` does with a fetched body). For a denial the rest
says why, so that the Rust side can tell Python's departures from the
spec's text apart from our under-blocks:

* ``line`` / ``text``: the rule that decided (Python's line numbering:
  ``str.splitlines``), ``agent_line`` the User-agent line that made its
  entry apply (for the default entry, its ``*`` line).
* ``departs``: each of Python's known departures (see ``DEPARTURES``)
  that, replaced alone by what the spec's text says, turns the denial
  into an allow.
* ``spec_like``: the verdict once every departure is replaced at once.
  ``false`` means Python still denies when read as the spec says: a URL
  production must deny. Then ``spec_line`` / ``spec_text`` and
  ``spec_agent_line`` / ``spec_agent_text`` name the rule and the
  User-agent line of that denial, numbered as RFC 9309 ends lines (CR, LF,
  CR LF), as production numbers them.

The counterfactuals never re-implement Python's reading of a line: they
re-run ``parse`` on re-split lines, or reorder and merge the entries and
rule lines Python built, or re-derive a rule's form with the same
``urllib.parse`` functions under a changed step. Every verdict with no
departure replaced is checked against ``can_fetch`` itself, so the
bookkeeping cannot drift from the parser it describes.

Standard library only; Python 3.11 (the committed verdicts were made with
3.11.7). Bodies that are not UTF-8 never reach here: ``read()`` decodes
strictly and would raise.
"""

import json
import re
import sys
import urllib.parse
import urllib.robotparser as robotparser

TOKEN = "Walsh-Research"
T = TOKEN.lower()

# Python's departures from the spec's text, each with the switch that
# replaces it by the spec's reading. The Rust side holds the same names
# with their reasons and the sentence each rests on.
DEPARTURES = [
    "line-breaks",        # str.splitlines also breaks at VT FF FS GS RS NEL LS PS
    "blank-line-ends-group",  # an empty line closes the entry; later rules are dropped
    "substring-agent",    # `agent in token` instead of equal-or-prefix
    "first-match-group",  # first applying entry, no longest match, no merging
    "first-star-only",    # only the first entry naming * is kept
    "first-match-rule",   # first applying rule line instead of the longest
    "no-wildcards",       # * and $ are literal octets
    "url-round-trip",     # rules and URLs rebuilt by urlparse/urlunparse
    "lossy-decoding",     # every escape decoded as UTF-8 with U+FFFD replacement
]


# ---- recording what parse() builds -------------------------------------
#
# parse() looks RuleLine and Entry up in its module at call time; the
# subclasses below add a line number to what it builds and change nothing
# else. `_current` is the index of the line parse() is reading.

_current = [0, ""]


class _Agents(list):
    """An Entry's user agents, remembering the line of each."""

    def __init__(self):
        super().__init__()
        self.lines = []

    def append(self, agent):
        super().append(agent)
        self.lines.append(tuple(_current))


class _RecordingEntry(robotparser.Entry):
    def __init__(self):
        super().__init__()
        self.useragents = _Agents()


class _RecordingRuleLine(robotparser.RuleLine):
    def __init__(self, path, allowance):
        super().__init__(path, allowance)
        self.lineno, self.raw_line = _current


robotparser.Entry = _RecordingEntry
robotparser.RuleLine = _RecordingRuleLine


class _Parser(robotparser.RobotFileParser):
    """Keeps every entry parse() finishes, including the `*` entries after
    the first, which RobotFileParser drops."""

    def __init__(self):
        super().__init__()
        self.all_entries = []

    def _add_entry(self, entry):
        self.all_entries.append(entry)
        super()._add_entry(entry)


def _numbered(lines, numbers):
    for n, line in zip(numbers, lines):
        _current[0], _current[1] = n, line
        yield line


def parse(lines, numbers=None):
    """RobotFileParser.parse(lines), recording for each agent and rule line
    its number (`numbers[i]` for `lines[i]`, by default i + 1) and text."""
    p = _Parser()
    p.parse(_numbered(lines, numbers or range(1, len(lines) + 1)))
    return p


# ---- the forms Python compares -----------------------------------------


def raw_value(line):
    """The value of a `field: value` line before parse() unquotes it."""
    i = line.find("#")
    if i >= 0:
        line = line[:i]
    return line.strip().split(":", 1)[1].strip()


def form(value, *, round_trip=True, lossless=False):
    """A rule value or request target in the form Python compares:
    unquoted, rebuilt by urlparse/urlunparse, quoted. `round_trip=False`
    skips the rebuild; `lossless=True` decodes escapes to octets instead of
    to UTF-8 text with replacement."""
    if lossless:
        s = urllib.parse.unquote_to_bytes(value).decode("latin-1")
    else:
        s = urllib.parse.unquote(value)
    if round_trip:
        s = urllib.parse.urlunparse(urllib.parse.urlparse(s))
    if lossless:
        return urllib.parse.quote_from_bytes(s.encode("latin-1"))
    return urllib.parse.quote(s)


def url_form(url, *, round_trip=True, lossless=False):
    """The request target as Python judges `url` (path, params, query,
    fragment after unquoting, quoted); with `round_trip=False` the target
    the bot sends, unquoted and quoted."""
    if round_trip:
        if lossless:
            s = urllib.parse.unquote_to_bytes(url).decode("latin-1")
        else:
            s = urllib.parse.unquote(url)
        p = urllib.parse.urlparse(s)
        s = urllib.parse.urlunparse(("", "", p.path, p.params, p.query, p.fragment))
        if lossless:
            s = urllib.parse.quote_from_bytes(s.encode("latin-1"))
        else:
            s = urllib.parse.quote(s)
    else:
        p = urllib.parse.urlsplit(url)
        target = p.path + ("?" + p.query if p.query or url.endswith("?") else "")
        s = form(target, round_trip=False, lossless=lossless)
    return s or "/"


# ---- one verdict, with any departure replaced ---------------------------


class Switches:
    """Which departures are replaced by the spec's reading."""

    def __init__(self, on=()):
        for d in DEPARTURES:
            setattr(self, d.replace("-", "_"), d in on)


def agent_matches(agent, sw):
    a = agent.lower()
    if sw.substring_agent:
        return T.startswith(a)
    return a in T


def select(p, sw):
    """The rule lines that apply, and the agent line that selected them."""
    named = []
    for e in p.all_entries if sw.first_match_group else p.entries:
        best = None
        for a, ln in zip(e.useragents, e.useragents.lines):
            if a == "*":
                continue
            if agent_matches(a, sw) and (best is None or len(a) > len(best[0])):
                best = (a, ln)
        if best is not None:
            if not sw.first_match_group:
                return e.rulelines, best[1]
            named.append((e, best))
    if named:
        longest = max(len(b[0]) for _, b in named)
        winner = next(b for _, b in named if len(b[0]) == longest)
        rules = []
        for e, b in named:
            if b[0].lower() == winner[0].lower():
                rules.extend(e.rulelines)
        return rules, winner[1]
    stars = [e for e in p.all_entries if "*" in e.useragents]
    if not stars:
        return None, None
    if not sw.first_star_only:
        stars = stars[:1]
    rules = [r for e in stars for r in e.rulelines]
    first = stars[0]
    return rules, first.useragents.lines[first.useragents.index("*")]


def rule_match(rule, url, sw):
    """The length of `rule`'s match of `url`, or None."""
    raw = raw_value(rule.raw_line)
    wild = sw.no_wildcards and ("*" in raw or raw.endswith("$"))
    if not wild:
        if not (sw.url_round_trip or sw.lossy_decoding):
            path = rule.path
        else:
            if raw == "":
                path = ""
            else:
                path = form(
                    raw, round_trip=not sw.url_round_trip, lossless=sw.lossy_decoding
                )
        # RuleLine: an empty Disallow allows all; `*` alone matches all.
        if path == "*" or url.startswith(path):
            return len(path)
        return None
    anchored = raw.endswith("$")
    body = raw[:-1] if anchored else raw
    pieces = [
        re.escape(form(x, round_trip=False, lossless=sw.lossy_decoding) if x else "")
        for x in body.split("*")
    ]
    # The strictest length the spec's words allow: a Disallow's `*`
    # consumes as much as it can, an Allow's as little.
    star = ".*?" if rule.allowance else ".*"
    m = re.match(star.join(pieces) + ("$" if anchored else ""), url, re.S)
    return m.end() if m else None


def decide(p, url, sw):
    """(allowed, deciding rule, selecting agent line as (number, text))."""
    u = url_form(url, round_trip=not sw.url_round_trip, lossless=sw.lossy_decoding)
    rules, agent_line = select(p, sw)
    if rules is None:
        return True, None, None
    best = None
    for r in rules:
        n = rule_match(r, u, sw)
        if n is None:
            continue
        if not sw.first_match_rule:
            return r.allowance, r, agent_line
        if best is None or n > best[0] or (n == best[0] and r.allowance):
            best = (n, r)
    if best is None:
        return True, None, agent_line
    return best[1].allowance, best[1], agent_line


# ---- driver ----------------------------------------------------------


def split_rfc(text):
    """Lines as RFC 9309 ends them: CR, LF or CR LF."""
    return re.split(r"\r\n|\r|\n", text)


def clip(s, n=200):
    if len(s) <= n:
        return s
    return s[:n] + "... (%d chars)" % len(s)


def judge(body, urls):
    lines = body.splitlines()
    p = parse(lines)
    rfc_lines = split_rfc(body)
    rfc_numbers = range(1, len(rfc_lines) + 1)
    kept = [(i + 1, l) for i, l in enumerate(lines) if l]
    variants = {
        "line-breaks": parse(rfc_lines, rfc_numbers),
        "blank-line-ends-group": parse([l for _, l in kept], [n for n, _ in kept]),
    }
    spec = [(i + 1, l) for i, l in enumerate(rfc_lines) if l]
    spec_parse = parse([l for _, l in spec], [n for n, _ in spec])
    everything = Switches([d for d in DEPARTURES if d not in variants])
    for e in p.all_entries:
        for r in e.rulelines:
            if form(raw_value(r.raw_line)) != r.path:
                raise SystemExit("oracle reads line %d differently from parse(): fix it" % r.lineno)
    out = []
    for url in urls:
        allowed = p.can_fetch(TOKEN, url)
        mine, rule, agent = decide(p, url, Switches())
        if mine != allowed:
            raise SystemExit(
                "oracle bookkeeping differs from can_fetch on %r: fix the oracle" % url
            )
        case = {"url": url, "allowed": allowed}
        if not allowed:
            case["line"] = rule.lineno if rule else None
            case["text"] = clip(rule.raw_line) if rule else None
            case["agent_line"] = agent[0] if agent else None
            departs = []
            for d in DEPARTURES:
                if d in variants:
                    ok = variants[d].can_fetch(TOKEN, url)
                else:
                    ok = decide(p, url, Switches([d]))[0]
                if ok:
                    departs.append(d)
            case["departs"] = departs
            ok, rule, agent = decide(spec_parse, url, everything)
            case["spec_like"] = ok
            if not ok:
                # Numbered as RFC 9309 (and production) number lines.
                case["spec_line"] = rule.lineno if rule else None
                case["spec_text"] = clip(rule.raw_line) if rule else None
                case["spec_agent_line"] = agent[0] if agent else None
                case["spec_agent_text"] = clip(agent[1]) if agent else None
        out.append(case)
    return out


def main():
    src = open(sys.argv[1], encoding="utf-8") if len(sys.argv) > 1 else sys.stdin
    w = sys.stdout
    header = {
        "oracle": "urllib.robotparser",
        "python": "%d.%d.%d" % sys.version_info[:3],
        "token": TOKEN,
        "departures": DEPARTURES,
    }
    w.write(json.dumps(header, separators=(",", ":")) + "\n")
    for n, line in enumerate(src, 1):
        if not line.strip():
            continue
        c = json.loads(line)
        try:
            cases = judge(c["body"], c["urls"])
            rec = {"id": c["id"], "family": c.get("family", ""), "body": c["body"], "cases": cases}
        except (ValueError, UnicodeError) as e:
            # parse() itself raised (a rule urlparse refuses, e.g. `//[x`):
            # the platform parser has no verdict on this body.
            rec = {"id": c["id"], "family": c.get("family", ""), "body": c["body"],
                   "error": "%s: %s" % (type(e).__name__, e)}
        w.write(json.dumps(rec, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
