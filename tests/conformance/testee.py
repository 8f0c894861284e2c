#!/usr/bin/env python3
"""The Python reference as a testee of attrmap-conformance (docs/conformance.md): one JSON
request a line on standard input, one JSON answer a line on standard output.

It answers with generate.py's own implementation of the rules (the one the vectors come from,
sharing no code with the Rust core or the npm package), plus an export reader and the HTTP
answer to a bad page token written here from docs/export-format.md and docs/http.md.

--trim-without-vertical-tab trims emails the way one reference SDK does (without 0x0B): the
runner's own tests use it to show that exactly the cases marked for that SDK fail.
"""
import json
import sys
from decimal import Decimal, InvalidOperation
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import (  # noqa: E402  (the generator beside this file)
    MAX_SEQUENCE, REQUIRED, WHITESPACE, append_plan, canonical, fnv1a32, index_canonical, partition_name,
    seg_current_first, seg_older, seg_start, seg_token_ok, utf16_order,
)

FORMAT, VERSION = "attrmap-export", 1
SUBSCRIBERS_PATH = "/patterns/sequentially-chunked-attribute-map/subscribers"


class Refused(Exception):
    """An answer that is an error message."""


def segments_of(value):
    return [(s["fromSequence"], s["chunkSize"]) for s in value]


def token_of(first: int) -> str:
    return f"{first:020d}"


def invalid_token(token):
    return Refused(f'invalid page token "{token}"')


def checked_token(token, segments):
    if not isinstance(token, str):
        raise Refused("token must be a string")
    if not seg_token_ok(token, segments):
        raise invalid_token(token)
    return "current" if token in ("", "current") else token


def place(key: str, count: int):
    h = fnv1a32(key.encode("utf-8"))
    return {"hash": h, "partitionIndex": h % count, "partitionName": partition_name(h % count, count)}


def archive_token(first: str) -> str:
    try:
        value = Decimal(first)
    except InvalidOperation:
        raise Refused(f"firstSequence {first!r} is not a number") from None
    if value != value.to_integral_value() or not 1 <= value <= 10**20 - 1:
        raise Refused(f"firstSequence {first} is not a whole number from 1 to 99999999999999999999")
    return token_of(int(value))


def http_request(method: str, path: str):
    """The HTTP answer to a subscriber page request whose token is invalid (docs/http.md)."""
    url = urlsplit(path)
    if method != "GET" or url.path != SUBSCRIBERS_PATH:
        return {"status": 404, "contentType": "application/json", "body": {"error": f"no route for {method} {url.path}"}}
    token = parse_qs(url.query, keep_blank_values=True).get("pageToken", [""])[0]
    if not seg_token_ok(token, [(1, 100)]):
        return {"status": 400, "contentType": "application/json", "body": {"error": f'invalid page token "{token}"'}}
    # An empty store: the current page is empty, and no archive is stored.
    if token in ("", "current"):
        return {"status": 200, "contentType": "application/json",
                "body": {"pageToken": "current", "subscribers": [], "nextPageToken": ""}}
    return {"status": 404, "contentType": "application/json", "body": {"error": f'subscriber page "{token}" not found'}}


class ExportReader:
    """Checks an export line by line, as docs/export-format.md says a reader must."""

    def __init__(self):
        self.line = 0
        self.maps = self.instances = self.entries = 0
        self.map = None  # the map being read: a dict of what its lines said so far

    def fail(self, reason: str, what: str):
        raise Refused(f"line {self.line}: {what} ({reason})")

    def read(self, text: str):
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for raw in lines:
            self.line += 1
            try:
                value = json.loads(raw.removesuffix("\r"))
            except ValueError:
                self.fail("invalid-json", "is not JSON")
            self.check(value)
        self.line = max(self.line, 1)
        if self.line == 1 and not lines:
            self.fail("bad-header", "is missing: the file is empty")
        self.end_map()
        return {"maps": self.maps, "instances": self.instances, "entries": self.entries}

    def check(self, value):
        if self.line == 1:
            if not (isinstance(value, dict) and value.get("format") == FORMAT and value.get("version") == VERSION):
                self.fail("bad-header", f'is not the header of format "{FORMAT}", version {VERSION}')
            return
        if not isinstance(value, dict) or not isinstance(value.get("map"), str):
            self.fail("bad-line", "is not a line of a map")
        kinds = [k for k in ("layout", "state", "instance") if k in value]
        if kinds == ["layout"]:
            self.layout(value["map"], value["layout"])
        elif kinds == ["state"]:
            self.state(value["map"], value["state"])
        elif kinds == ["instance"] and "value" in value:
            self.instance(value["map"], value["instance"], value["value"])
        else:
            self.fail("bad-line", "is not a layout, state or instance line")

    def end_map(self):
        m = self.map
        if m is None or m["kind"] != "chunked":
            return
        if m["state"] is None:
            self.fail("missing-state", f"follows map {m['name']!r}, whose state line is missing")
        if m["currentFirst"] < m["state"]["nextSequence"] and not m["currentSeen"]:
            self.fail("missing-current", f"follows map {m['name']!r}, whose current chunk is missing")

    def layout(self, name, layout):
        self.end_map()
        if name.startswith("\0"):
            self.fail("bad-layout", "names a map beginning with U+0000, which is reserved")
        if self.map is not None and utf16_order(name) <= utf16_order(self.map["name"]):
            self.fail("map-order", f"has map {name!r} after {self.map['name']!r}")
        m = {"name": name, "kind": None, "state": None, "last": None, "end": None, "currentSeen": False}
        whole = lambda v, lo, hi: isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi  # noqa: E731
        if not isinstance(layout, dict) or not whole(layout.get("layoutVersion"), 1, MAX_SEQUENCE):
            self.fail("bad-layout", "has no valid layout")
        if layout.get("kind") == "partitioned":
            rule = layout.get("keyRule")
            if not whole(layout.get("partitionCount"), 1, 2**32 - 1) or not isinstance(rule, str) or not 1 <= len(rule) <= 100:
                self.fail("bad-layout", "has no valid partition count and key rule")
            m.update(kind="partitioned", count=layout["partitionCount"], rule=rule)
        elif layout.get("kind") == "chunked":
            segs = layout.get("segments")
            ok = isinstance(segs, list) and segs and all(
                isinstance(s, dict) and whole(s.get("fromSequence"), 1, MAX_SEQUENCE) and whole(s.get("chunkSize"), 1, 10**6)
                for s in segs)
            segments = segments_of(segs) if ok else []
            if not ok or segments[0][0] != 1 or any(a[0] >= b[0] for a, b in zip(segments, segments[1:])):
                self.fail("bad-layout", "has no valid segments")
            m.update(kind="chunked", segments=segments)
        else:
            self.fail("bad-layout", "has a layout of no known kind")
        self.map = m
        self.maps += 1

    def state(self, name, state):
        m = self.map
        if m is None or m["name"] != name or m["kind"] != "chunked" or m["state"] is not None or m["last"] is not None:
            self.fail("bad-line", "is a state line out of place")
        nxt = state.get("nextSequence") if isinstance(state, dict) else None
        if not isinstance(nxt, int) or isinstance(nxt, bool) or not 1 <= nxt <= MAX_SEQUENCE + 1:
            self.fail("bad-state", "has no valid nextSequence")
        first = seg_current_first(m["segments"], nxt)
        latest = "" if first == 1 else token_of(seg_start(m["segments"], first - 1))
        if state.get("latestArchivedChunkToken") != latest:
            self.fail("bad-state", f"says the latest archive is {state.get('latestArchivedChunkToken')!r}, not {latest!r}")
        m.update(state=state, currentFirst=first)

    def instance(self, name, instance, value):
        m = self.map
        if m is None or m["name"] != name:
            self.fail("map-order", f"is an instance of map {name!r}, whose layout line has not come")
        if m["kind"] == "chunked" and m["state"] is None:
            self.fail("missing-state", f"is a chunk of {name!r} before its state line")
        if not isinstance(instance, str) or (m["last"] is not None and utf16_order(instance) <= utf16_order(m["last"])):
            self.fail("instance-order", f"has instance {instance!r} out of name order")
        m["last"] = instance
        self.instances += 1
        if m["kind"] == "partitioned":
            self.partition(m, instance, value)
        else:
            self.chunk(m, instance, value)

    def partition(self, m, instance, value):
        if not isinstance(value, dict):
            self.fail("bad-line", "is a partition whose value is not an object")
        count = m["count"]
        width = len(str(count - 1))
        digits = instance.removeprefix("partition-")
        if not instance.startswith("partition-") or len(digits) != width or not digits.isascii() or not digits.isdigit() \
                or int(digits) >= count:
            self.fail("bad-partition-name", f"has {instance!r}, not a partition name under {count} partitions")
        for key in value:
            if m["rule"] == "email":
                try:
                    ok = canonical(key) == key
                except ValueError:
                    ok = False
                if not ok:
                    self.fail("key-not-canonical", f"has key {key!r}, which is not a canonical email")
            if fnv1a32(key.encode("utf-8", "surrogatepass")) % count != int(digits):
                self.fail("key-in-wrong-partition", f"has key {key!r}, which belongs in another partition")
        self.entries += len(value)

    def chunk(self, m, instance, value):
        if not isinstance(value, list):
            self.fail("bad-line", "is a chunk whose value is not an array")
        segments, nxt, current_first = m["segments"], m["state"]["nextSequence"], m["currentFirst"]
        if instance == "current":
            first, length = current_first, nxt - current_first
            m["currentSeen"] = True
        else:
            if not seg_token_ok(instance, segments) or instance in ("", "current") or int(instance) >= current_first:
                self.fail("bad-token", f"has {instance!r}, not the token of an archive of this log")
            first = int(instance)
            size = [c for f, c in segments if f <= first][-1]
            later = [f for f, _ in segments if f > first]  # the chunk before a size change may be shorter
            length = min(size, later[0] - first) if later else size
        if m["end"] is not None and first != m["end"]:
            self.fail("sequence-gap", f"starts at {first}, but the chunk before it ended at {m['end'] - 1}")
        sequences = [r.get("sequence") if isinstance(r, dict) else None for r in value]
        if sequences != list(range(first, first + length)):
            self.fail("bad-chunk", f"does not hold the sequences {first} to {first + length - 1}")
        m["end"] = first + length
        self.entries += len(value)


def answer(op, x, whitespace):
    if op == "fnv1a32":
        return fnv1a32(bytes.fromhex(x["bytesHex"]))
    if op == "canonicalEmail":
        return canonical(x, whitespace)
    if op == "emailPartition":
        return place(canonical(x["email"], whitespace), x["partitionCount"])
    if op == "keyPartition":
        return place(x["key"], x["partitionCount"])
    if op == "indexPartition":
        try:
            text = index_canonical(x["value"])
        except ValueError as e:
            raise Refused(str(e)) from None
        return {"canonicalValue": text, **place(text, x["partitionCount"])}
    if op == "partitionName":
        return partition_name(x["index"], x["partitionCount"])
    if op == "profileBody":
        email = x["body"].get("emailAddress")
        if not isinstance(email, str):
            raise Refused(REQUIRED)
        return {**x["body"], "emailAddress": canonical(email, whitespace)}
    if op == "pageToken":
        return checked_token(x["token"], [(1, x["chunkSize"])])
    if op == "segmentedPageToken":
        return checked_token(x["token"], segments_of(x["segments"]))
    if op == "archiveToken":
        return archive_token(x["firstSequence"])
    if op == "pageNotFound":
        raise Refused(f'subscriber page "{x["token"]}" not found')
    if op == "page":
        segments = segments_of(x["segments"])
        token = checked_token(x["token"], segments)
        first = seg_current_first(segments, x["state"]["nextSequence"]) if token == "current" else int(token)
        return {"firstSequence": first, "nextPageToken": seg_older(segments, x["retainedFrom"], first)}
    if op == "appendPlan":
        state = x["state"]
        plan = append_plan(segments_of(x["segments"]), state["nextSequence"], state["latestArchivedChunkToken"], x["count"])
        if plan is None:
            raise Refused(f"the log is full: sequences may not pass {MAX_SEQUENCE}")
        return plan
    if op == "verifyExport":
        return ExportReader().read(x["text"])
    if op == "httpRequest":
        return http_request(x["method"], x["path"])
    return None


def main(argv):
    whitespace = WHITESPACE.replace("\x0b", "") if "--trim-without-vertical-tab" in argv else WHITESPACE
    for line in sys.stdin:
        request = json.loads(line)
        reply = {"id": request["id"]}
        try:
            result = answer(request["op"], request["input"], whitespace)
            reply.update({"unsupported": True} if result is None else {"result": result})
        except (Refused, ValueError) as e:
            reply["error"] = str(e)
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
