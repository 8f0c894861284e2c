#!/usr/bin/env python3
"""Writes the cross-SDK conformance vectors in this folder, or checks them (--check).

Expected values come from this file's own implementation of SPEC.md (plain Python with
arbitrary-precision integers, sharing no code with the Rust core or the npm package),
and that implementation is first checked against the independent sources: the published
FNV-1a reference vectors and the golden values in SPEC.md. Cases a UTF-8 string cannot
hold (lone UTF-16 surrogates) are written as UTF-16 code units.
"""
import json
import math
import struct
import sys
from decimal import Decimal
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
FNV_OFFSET, FNV_PRIME = 0x811C9DC5, 0x01000193
WHITESPACE = " \t\n\x0b\x0c\r"  # 0x20 and 0x09..0x0D, vertical tab included
NOT_ASCII = "emailAddress must contain only ASCII characters"
REQUIRED = "emailAddress is required"
PARTITIONS = 1000
CHUNK = 100
U64_MAX, I64_MAX, F64_EXACT = 2**64 - 1, 2**63 - 1, 2**53


def fnv1a32(data: bytes) -> int:
    h = FNV_OFFSET
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & 0xFFFFFFFF
    return h


def canonical(email: str, whitespace: str = WHITESPACE) -> str:
    if any(ord(c) > 0x7F for c in email):  # per UTF-16 code unit: surrogates are > 0x7F
        raise ValueError(NOT_ASCII)
    trimmed = email.strip(whitespace)
    if not trimmed:
        raise ValueError(REQUIRED)
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in trimmed)


def page_token_ok(token: str) -> bool:
    if token in ("", "current"):
        return True
    if len(token) != 20 or any(c not in "0123456789" for c in token):
        return False
    v = int(token)
    return v >= 1 and (v - 1) % CHUNK == 0


# --- The implementation is checked against independent sources before it writes anything.
PUBLISHED_FNV = {  # FNV reference test suite (test_fnv.c), draft-eastlake-fnv appendix C
    b"": 0x811C9DC5, b"a": 0xE40C292C, b"b": 0xE70C2DE5, b"c": 0xE60C2C52, b"d": 0xE10C2473,
    b"e": 0xE00C22E0, b"f": 0xE30C2799, b"fo": 0x6222E842, b"foo": 0xA9F37ED7,
    b"foob": 0x3F5076EF, b"fooba": 0x39AAA18A, b"foobar": 0xBF9CF968,
    b"\0": 0x050C5D1F, b"a\0": 0x2B24D044, b"b\0": 0x9D2C3F7F, b"c\0": 0x7729C516,
    b"d\0": 0xB91D6109, b"e\0": 0x931AE6A0, b"f\0": 0x052255DB, b"fo\0": 0xBEF39FE6,
    b"foo\0": 0x6150AC75, b"foob\0": 0x9AAB3A3D, b"fooba\0": 0x519C4C3E, b"foobar\0": 0x0C1C9EB8,
    b"ch": 0x5F299F4E, b"cho": 0xEF8580F3, b"chon": 0xAC297727, b"chong": 0x4546B9C0,
    b"chongo": 0xBD564E7D, b"chongo ": 0x6BDD5C67, b"chongo w": 0xDD77ED30,
}
SPEC_GOLDEN = [
    (" Alice@Example.COM ", "alice@example.com", 2493822278, "partition-278"),
    ("bob@example.com", "bob@example.com", 3055529145, "partition-145"),
    ("support+west@example.org", "support+west@example.org", 2156001632, "partition-632"),
]
for data, expected in PUBLISHED_FNV.items():
    assert fnv1a32(data) == expected, data
for email, canon, h, name in SPEC_GOLDEN:
    assert canonical(email) == canon and fnv1a32(canon.encode()) == h and f"partition-{h % 1000:03d}" == name


# --- Divergences: what each reference SDK's example code does where it departs from the contract.
# Measured by running the five SDKs' examples (Python, TypeScript on Node 20, Java 17, Rust,
# Go 1.19) against these vectors, or read from their code where a case was not run; each mark
# says which ("run", "read", or "range": follows from the integer type the SDK was measured to
# parse into). A mark's `actual` is the SDK's output in the shape of `expect`.
SDKS = ["python", "typescript", "go", "java", "rust"]
SDK_TITLES = {"python": "Python", "typescript": "TypeScript", "go": "Go", "java": "Java", "rust": "Rust"}
CLASSES = {
    "vertical-tab": {
        "measured": SDKS,
        "title": "Vertical tab (0x0B) in the whitespace an email is trimmed of",
        "thisProject": "Trims it: SPEC.md's whitespace is 0x20 and 0x09 to 0x0D.",
    },
    "token-number-type": {
        "measured": SDKS,
        "title": "Page tokens past 2^53, 2^63 - 1 and 2^64 - 1",
        "thisProject": "Reads the 20 digits exactly (a 128-bit integer), so every 20-digit token is judged by its value.",
    },
    "archive-token-range": {
        "measured": SDKS,
        "title": "Archive tokens of first sequences outside 1 to 99999999999999999999",
        "thisProject": "Refuses them (invalid_argument): a token is exactly 20 ASCII digits of a first sequence from 1.",
    },
    "message-quoting": {
        "measured": SDKS,
        "title": "The token inside `invalid page token \"...\"`",
        "thisProject": "Inserts the token as it is between double quotes, as SPEC.md writes the message.",
    },
    "not-found-cause": {
        "measured": SDKS,
        "title": "Not-found messages",
        "thisProject": "Exactly `subscriber page \"<token>\" not found`: nothing appended.",
    },
    "locale-digits": {
        "title": "Digits of partition names and tokens under the platform's default locale",
        # Only Java was run under a locale with other digits; the other four were not.
        "measured": ["java"],
        "thisProject": "ASCII digits whatever the locale: no locale-sensitive formatting (tested under LANG=ar_EG.UTF-8 "
        "and in a Chromium whose locale is ar-EG).",
    },
    "null-input": {
        "title": "A null email or page token",
        "measured": SDKS,
        "thisProject": "A null or missing email in a profile is `emailAddress is required`; a null page token is refused "
        "as not a string (over HTTP a missing pageToken is the empty string: current).",
    },
    "error-transport": {
        "title": "How a validation error reaches an HTTP client",
        "measured": ["python", "typescript", "java", "rust"],
        "thisProject": "HTTP 400 with `{\"error\": \"<message>\"}` (SPEC.md section 4).",
    },
}


def mark(sdk, cls, evidence, how, actual=None, when=None):
    """One SDK's departure from a case's `expect`."""
    assert sdk in SDKS and cls in CLASSES and evidence in ("run", "read", "range")
    entry = {"sdk": sdk, "class": cls, "evidence": evidence, "how": how}
    if when:
        entry["when"] = when
    if actual is not None:
        entry["actual"] = actual
    return entry


# Java formats with String.format, which takes its digits from the JVM's default locale.
JAVA_LOCALE = "the JVM's default locale is ar-EG; ar-SA and fa-IR also give non-ASCII digits"
ARABIC_INDIC = {str(d): chr(0x0660 + d) for d in range(10)}


def arabic_digits(text: str) -> str:
    return "".join(ARABIC_INDIC.get(c, c) for c in text)


def java_locale_mark(actual, evidence="run"):
    return mark("java", "locale-digits", evidence, "String.format writes the locale's digits (Arabic-Indic under ar-EG); "
                "its own token check then refuses the tokens it wrote", actual, when=JAVA_LOCALE)


def go_quote(text: str) -> str:
    """Go's strconv.Quote (what %q writes): printable runes as they are, the rest escaped."""
    out = ['"']
    for c in text:
        o = ord(c)
        if c in ('"', "\\"):
            out.append("\\" + c)
        elif c in "\a\b\f\n\r\t\v":
            out.append({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}[c])
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\x{o:02x}")
        elif go_printable(c):
            out.append(c)
        elif o <= 0xFFFF:
            out.append(f"\\u{o:04x}")
        else:
            out.append(f"\\U{o:08x}")
    out.append('"')
    return "".join(out)


def go_printable(c: str) -> bool:
    """unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space; other spaces are not."""
    return c == " " or unicodedata.category(c)[0] in "LMNPS"


# --- FNV vectors
def fnv_cases():
    cases = []
    for data, _ in PUBLISHED_FNV.items():
        h = fnv1a32(data)
        cases.append({
            "id": "fnv-" + (data.decode().rstrip("\0").replace(" ", "_") or "empty") + ("-nul" if data.endswith(b"\0") else ""),
            "inputHex": data.hex(),
            "hash": h,
            "hashHex": f"0x{h:08x}",
            "source": "published",
        })
    for name, data in [("all-bytes", bytes(range(256))), ("1mib-x", b"x" * (1 << 20))]:
        h = fnv1a32(data)
        entry = {"id": f"fnv-{name}", "hash": h, "hashHex": f"0x{h:08x}", "source": "python-reference"}
        if len(data) > 1024:
            entry["inputRepeat"] = {"prefixHex": "", "unitHex": "78", "count": len(data), "suffixHex": ""}
        else:
            entry["inputHex"] = data.hex()
        cases.append(entry)
    return {
        "name": "fnv1a32",
        "description": "32-bit FNV-1a over raw bytes: offset basis 2166136261, prime 16777619, multiplication modulo 2^32.",
        "cases": cases,
    }


# --- Email vectors
def email_expect(email: str, whitespace: str = WHITESPACE):
    try:
        canon = canonical(email, whitespace)
    except ValueError as e:
        return {"error": str(e)}
    h = fnv1a32(canon.encode("ascii"))
    index = h % PARTITIONS
    return {"canonicalEmail": canon, "hash": h, "partitionIndex": index, "partitionName": f"partition-{index:03d}"}


def email_cases():
    cases = []

    def add(case_id, email, note=None, source="python-reference", vertical_tab=False, encode="text"):
        entry = {"id": case_id}
        if encode == "utf16":
            entry["inputUtf16"] = [ord(c) for c in email]
        else:
            entry["input"] = email
        entry["expect"] = email_expect(email)
        entry["source"] = source
        if note:
            entry["note"] = note
        marks = []
        if vertical_tab:
            marks.append(mark("rust", "vertical-tab", "run", "trims with a whitespace set that leaves out 0x0B",
                              email_expect(email, WHITESPACE.replace("\x0b", ""))))
        if "partitionName" in entry["expect"]:
            marks.append(java_locale_mark({"partitionName": arabic_digits(entry["expect"]["partitionName"])}))
        if marks:
            entry["divergences"] = marks
        cases.append(entry)

    for email, *_ in SPEC_GOLDEN:
        add("golden-" + email.strip().split("@")[0].lower().replace("+", "-"), email, source="spec-golden")
    for b in [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20]:
        ws = chr(b)
        vt = b == 0x0B
        add(f"trim-leading-0x{b:02x}", ws + "Carol@Example.net", vertical_tab=vt)
        add(f"trim-trailing-0x{b:02x}", "Carol@Example.net" + ws, vertical_tab=vt)
        add(f"trim-both-twice-0x{b:02x}", ws * 2 + "Carol@Example.net" + ws * 2, vertical_tab=vt)
    add("trim-all-six-both-ends", " \t\n\x0b\x0c\r Dave@Example.com \r\x0c\x0b\n\t ", vertical_tab=True)
    add("vertical-tab-between-spaces", " \x0b ", vertical_tab=True)
    add("vertical-tab-twice", "\x0b\x0b", vertical_tab=True)
    add("vertical-tab-after-one-letter", "A\x0b", vertical_tab=True)
    add("inner-space-kept", "First Last@Example.com")
    add("inner-tab-kept", "a\tb@example.com")
    add("inner-vertical-tab-kept", "a\x0bb@example.com")
    add("inner-newline-kept", "a\nb@example.com")
    for b in [0x00, 0x01, 0x08, 0x0E, 0x1C, 0x1F, 0x7F]:
        trimmers = "Java String.trim() and Python str.strip()" if 0x1C <= b <= 0x1F else "Java String.trim()"
        note = f"Not whitespace under SPEC.md, so kept; {trimmers} would remove it." if b < 0x20 else None
        add(f"control-0x{b:02x}-kept-leading", chr(b) + "user@example.com", note=note)
        add(f"control-0x{b:02x}-kept-trailing", "user@example.com" + chr(b), note=note)
    add("nul-inside-kept", "us\x00er@example.com")
    add("mixed-case", "MiXeD.CaSe+Tag@ExAmPlE.CoM")
    add("only-a-to-z-lowercased", "@[\\]^_`{|}~AZaz09")
    add("no-at-sign-accepted", "Not-An-Email", note="There is no syntax check.")
    add("single-letter", "Q")
    add("all-printable-ascii", "".join(chr(c) for c in range(0x21, 0x7F)))
    for case_id, email in [
        ("non-ascii-accented", "josé@example.com"),
        ("non-ascii-domain", "user@exämple.com"),
        ("non-ascii-nbsp-leading", "\u00a0alice@example.com"),
        ("non-ascii-nbsp-trailing", "alice@example.com\u00a0"),
        ("non-ascii-nbsp-only", "\u00a0"),
        ("non-ascii-next-line-0x85", "\u0085alice@example.com"),
        ("non-ascii-line-separator", "alice@example.com\u2028"),
        ("non-ascii-bom", "\ufeffalice@example.com"),
        ("non-ascii-emoji", "\U0001F600@example.com"),
        ("non-ascii-fullwidth-at", "alice\uff20example.com"),
    ]:
        add(case_id, email)
    add("non-ascii-lone-high-surrogate", "\ud800alice@example.com", encode="utf16",
        note="A lone UTF-16 surrogate; languages with UTF-8 strings cannot hold it and may skip this case.")
    add("non-ascii-lone-low-surrogate", "alice@example.com\udc00", encode="utf16",
        note="A lone UTF-16 surrogate; languages with UTF-8 strings cannot hold it and may skip this case.")
    add("empty", "")
    add("space-only", " ")
    add("all-whitespace", " \t\n\x0c\r ")
    add("vertical-tab-only", "\x0b", vertical_tab=True)

    # A 1 MiB local part: canonicalization and hashing must not depend on length.
    local = 1 << 20
    big = " " + "Ab" * (local // 2) + "@Example.COM\t"
    canon = ("ab" * (local // 2)) + "@example.com"
    h = fnv1a32(canon.encode())
    assert canonical(big) == canon
    cases.append({
        "id": "one-mib-local-part",
        "inputRepeat": {"prefix": " ", "unit": "Ab", "count": local // 2, "suffix": "@Example.COM\t"},
        "expect": {
            "canonicalEmailRepeat": {"prefix": "", "unit": "ab", "count": local // 2, "suffix": "@example.com"},
            "hash": h, "partitionIndex": h % PARTITIONS, "partitionName": f"partition-{h % PARTITIONS:03d}",
        },
        "source": "python-reference",
        "divergences": [java_locale_mark({"partitionName": arabic_digits(f"partition-{h % PARTITIONS:03d}")})],
    })
    # A profile body whose email is JSON null or missing: the same error as an empty email.
    # Python and TypeScript hand the null on to their canonicalization, which fails in its own words.
    null_email_marks = [
        mark("python", "null-input", "run", "canonicalizes without checking for None: str methods fail on it",
             {"error": "'NoneType' object has no attribute 'encode'"}),
        mark("typescript", "null-input", "run", "canonicalizes without checking for a string: iterating it fails",
             {"error": "emailAddress is not iterable"}),
    ]
    # Rust's serde refuses the body before the SDK's own check sees it, in serde's words.
    rust_null = {"email-null": "invalid type: null, expected a string", "email-missing": "missing field `emailAddress`"}
    bodies = []
    for case_id, body in [("email-null", {"emailAddress": None, "fullName": "Null"}), ("email-missing", {"fullName": "None"}),
                          ("email-empty", {"emailAddress": "", "fullName": "Empty"})]:
        entry = {"id": case_id, "body": body, "expect": {"error": REQUIRED}, "source": "spec",
                 "note": "Java (run) answers the same; Go's typed email reads a null as \"\" and answers the same; Rust's serde "
                 "refuses it first (marked). "
                 "A partial body: only the email matters, and the other fields are left out (a strict struct of an SDK may "
                 "need them filled in by its testee)."}
        if body.get("emailAddress") is None:
            entry["divergences"] = null_email_marks + [
                mark("rust", "null-input", "run", "serde refuses the body before the SDK's check: its message, not the "
                     "contract's", {"errorPrefix": rust_null[case_id]})]
        bodies.append(entry)
    return {
        "name": "email-partition",
        "description": "Canonical email, 32-bit FNV-1a of its bytes, and partition for 1000 partitions.",
        "partitionCount": PARTITIONS,
        "cases": cases,
        "profileBodyCases": bodies,
    }


# --- Page-token vectors
def token_marks(token: str, ok: bool):
    """Where the SDKs that parse the 20 digits into a fixed-size number answer otherwise (all run):
    Go and Rust parse into an unsigned 64-bit integer, Java a signed one, TypeScript a float64
    (with the same mod test on the rounded value). And Go's message quotes the token with %q."""
    marks = []
    message = lambda t: {"error": f"invalid page token {t}"}
    if len(token) == 20 and token.isascii() and token.isdigit():
        v = int(token)
        rejected = message(f'"{token}"')
        if ok and v > U64_MAX:
            for sdk in ("go", "rust"):
                marks.append(mark(sdk, "token-number-type", "run", "parses into an unsigned 64-bit integer, "
                                  "which cannot hold the value, so it rejects this valid token", rejected))
        if ok and v > I64_MAX:
            marks.append(mark("java", "token-number-type", "run", "parses into a signed 64-bit integer (Long.parseLong), "
                              "which cannot hold the value, so it rejects this valid token", rejected))
        f = float(v)
        float_ok = f >= 1.0 and math.fmod(f - 1.0, CHUNK) == 0.0
        if float_ok != ok:
            verdict = "accepts this invalid" if float_ok else "rejects this valid"
            ts = mark("typescript", "token-number-type", "run", "parses into a float64 and tests the rounded value, so it "
                      "rejects some valid tokens and accepts some invalid ones", {"pageToken": token} if float_ok else rejected)
            ts["detail"] = f"held as {int(f)}, the mod test {verdict} token"
            marks.append(ts)
    if not ok and go_quote(token) != f'"{token}"':
        evidence = "run" if "\n" in token else "read"
        marks.append(mark("go", "message-quoting", evidence, "formats the message with %q, which escapes the token "
                          "(a newline becomes a backslash and an n)", message(go_quote(token))))
    return marks


def token_cases():
    cases = []

    def add(case_id, token, note=None):
        ok = page_token_ok(token)
        entry = {"id": case_id, "token": token,
                 "expect": {"pageToken": "current" if token in ("", "current") else token} if ok
                 else {"error": f'invalid page token "{token}"'},
                 "source": "python-reference"}
        if note:
            entry["note"] = note
        if marks := token_marks(token, ok):
            entry["divergences"] = marks
        cases.append(entry)

    def d20(v):
        return f"{v:020d}"

    add("empty-means-current", "")
    add("current", "current")
    for case_id, t in [("capitalized", "Current"), ("upper", "CURRENT"), ("leading-space", " current"),
                       ("trailing-space", "current "), ("trailing-newline", "current\n"), ("short", "curren"),
                       ("long", "currentt")]:
        add("bad-current-" + case_id, t)
    for v in [1, 101, 201, 1001, 100001]:
        add(f"boundary-{v}", d20(v))
    for v in [0, 2, 99, 100, 102, 150, 1000]:
        add(f"non-boundary-{v}", d20(v))
    add("nineteen-digits", d20(101)[1:])
    add("twenty-one-digits", "0" + d20(101))
    add("twenty-two-digits", "00" + d20(101))
    add("short-1", "1")
    add("short-101", "101")
    add("zero-single", "0")
    add("plus-sign", "+" + d20(101)[1:])
    add("minus-sign", "-" + d20(101)[1:])
    add("leading-space", " " + d20(101)[1:])
    add("trailing-space", d20(101)[:-1] + " ")
    add("trailing-newline", d20(101) + "\n")
    add("hex-digit", d20(101)[:-1] + "a")
    add("exponent", "1e2".rjust(20, "0"))
    add("arabic-indic-digits", "".join(chr(0x0660 + int(c)) for c in d20(101)),
        note="20 non-ASCII digits: a Unicode-aware digit check would accept them.")
    add("fullwidth-digits", "".join(chr(0xFF10 + int(c)) for c in d20(101)))
    add("superscript-one", d20(101)[:-1] + "\u00b9")
    # Boundaries near the limits of the number types reference SDKs parse tokens with.
    for label, limit in [("2p53", F64_EXACT), ("i64max", I64_MAX), ("u64max", U64_MAX)]:
        below = limit - ((limit - 1) % CHUNK)  # largest boundary <= limit
        add(f"{label}-largest-boundary-at-or-below", d20(below))
        add(f"{label}-next-boundary-above", d20(below + CHUNK))
        add(f"{label}-non-boundary-above", d20(below + CHUNK + 1))
        add(f"{label}-exact", d20(limit))
        add(f"{label}-plus-one", d20(limit + 1))
    add("largest-20-digit-boundary", "99999999999999999901")
    add("largest-20-digit-value", "99999999999999999999")
    # Characters Go's %q would escape in the message (and a printable non-ASCII one it keeps).
    for case_id, t in [("double-quote", '"current"'), ("backslash", "\\current"), ("tab", "current\t"),
                       ("nul", "current\x00"), ("del", "current\x7f"), ("line-separator", "current\u2028"),
                       ("no-break-space", "\u00a0current"), ("carriage-return", "current\r"), ("e-acute-kept", "curr\u00e9nt")]:
        add("quoting-" + case_id, t)

    archive = [archive_case(v) for v in ["1", "101", "12345", "9007199254740901", "9007199254740991", "9223372036854775807",
                                         "99999999999999999901", "99999999999999999999", "0", "-1", "1.5",
                                         "100000000000000000000"]]
    # A valid token with no stored chunk: the contract's message, nothing appended.
    not_found = [{"id": "archived-page-not-stored", "token": d20(101),
                  "expect": {"error": f'subscriber page "{d20(101)}" not found'}, "source": "spec",
                  "divergences": [mark("go", "not-found-cause", "read", "appends the store's error as a wrapped cause "
                                       "(`subscriber page %q not found: %w`; its customer-profile message does the same)",
                                       {"errorPrefix": f'subscriber page "{d20(101)}" not found: '})]}]
    null_token = [{"id": "null-token", "token": None, "expect": {"error": "invalid_argument"}, "source": "spec",
                   "note": "Only typed APIs can pass null; over HTTP a missing pageToken is the empty string (current).",
                   "divergences": [mark(sdk, "null-input", "run", how, {"pageToken": "current"}) for sdk, how in (
                       ("python", "treats a null token as current"), ("java", "treats a null token as current"),
                       ("go", "encoding/json decodes a null into the string field as \"\", which its check answers current"),
                   )]}]
    transport = {"expect": {"status": 400, "contentType": "application/json", "body": {"error": 'invalid page token "x"'}},
                 "request": "GET /patterns/sequentially-chunked-attribute-map/subscribers?pageToken=x", "source": "spec",
                 "divergences": [
                     mark("rust", "error-transport", "run", "answers HTTP 200 with the message as a plain-text body",
                          {"status": 200, "contentType": "text/plain", "body": 'invalid page token "x"'}),
                     mark("python", "error-transport", "run", "raises ValueError; the answer is the framework's to an "
                          "unhandled exception"),
                     mark("typescript", "error-transport", "run", "throws Error; the answer is the framework's to an "
                          "unhandled exception"),
                     mark("java", "error-transport", "run", "throws IllegalArgumentException (with the "
                          "NumberFormatException as its cause past 2^63)"),
                 ]}
    return {
        "name": "page-token",
        "description": "Page-token validation for chunk size 100 ('' and 'current' mean current; otherwise exactly 20 ASCII "
        "digits, value >= 1, (value - 1) mod 100 == 0), and archive-token formatting (first sequence as 20 zero-padded digits).",
        "chunkSize": CHUNK,
        "cases": cases,
        "archiveTokenCases": archive,
        "notFoundCases": not_found,
        "nullTokenCases": null_token,
        "errorTransport": transport,
    }


# The archive-token inputs each SDK was run with; other marks are read from its code or follow
# from the integer type it was measured to use.
ARCHIVE_RUN = {
    "typescript": {"0", "-1", "1.5", "9223372036854775807", "99999999999999999999", "100000000000000000000"},
    "python": {"0", "-1", "100000000000000000000"},
    "java": {"0", "-1", "100000000000000000000"},
    "go": {"0", "100000000000000000000"},
    "rust": {"0", "100000000000000000000"},
}


def archive_case(first: str):
    """The token of a chunk starting at `first` (a decimal string: values go past 64 bits), and each SDK's own answer."""
    value = Decimal(first)
    whole = value == value.to_integral_value()
    ok = whole and 1 <= value <= 10**20 - 1
    entry = {"firstSequence": first, "expect": {"token": f"{int(value):020d}"} if ok else {"error": "invalid_argument"},
             "source": "python-reference"}
    if not ok:
        entry["note"] = "Out of range; the message is not part of the cross-SDK contract."
    marks = []

    def add(sdk, how, actual=None, cannot_take=False):
        evidence = "run" if first in ARCHIVE_RUN[sdk] else "range" if cannot_take else "read"
        marks.append(mark(sdk, "archive-token-range", evidence, how, actual))

    # TypeScript pads String(firstSequence), a float64, to 20 characters.
    ts = js_number_string(float(value)).rjust(20, "0")
    if not ok or ts != entry["expect"]["token"]:
        add("typescript", "pads String(firstSequence), a float64, to 20 characters, whatever it holds", {"token": ts})
    padded = f"{int(value):020d}" if whole else None
    u64 = "an unsigned 64-bit integer"
    for sdk, low, high, kind in [("python", None, None, ""), ("java", -(2**63), I64_MAX, "a long (signed 64-bit)"),
                                 ("go", 0, U64_MAX, u64), ("rust", 0, U64_MAX, u64)]:
        fits = whole and (low is None or low <= value <= high)
        if not whole and sdk != "python":
            add(sdk, f"cannot take a fraction: the first sequence is {kind}", cannot_take=True)
        elif whole and not fits:
            add(sdk, f"cannot take the value: the first sequence is {kind}", cannot_take=True)
        elif not ok and whole:
            add(sdk, "formats the value zero-padded instead of refusing it", {"token": padded})
    if ok:
        marks.append(java_locale_mark({"token": arabic_digits(entry["expect"]["token"])}))
    elif whole and -(2**63) <= value <= I64_MAX:
        # Java formats the out-of-range value it takes (above), in the locale's digits too.
        marks.append(java_locale_mark({"token": arabic_digits(padded)}))
    if marks:
        entry["divergences"] = marks
    return entry


def js_number_string(f: float) -> str:
    """JavaScript's String(n) below 1e21: the shortest digits that read back as n, written out without an exponent."""
    d = Decimal(repr(f))
    return format(d, "f") if d != d.to_integral_value() else str(int(d))


# --- Formatting: partition names and tokens are ASCII digits whatever the platform's locale
def formatting_cases():
    names = []
    for index, count in [(0, 1000), (278, 1000), (999, 1000), (0, 1), (7, 10), (42, 100000), (4294967294, 4294967295)]:
        name = f"partition-{index:0{len(str(count - 1))}d}"
        names.append({"index": index, "partitionCount": count, "expect": {"partitionName": name}, "source": "python-reference",
                      "divergences": [java_locale_mark({"partitionName": arabic_digits(name)})]})
    tokens = []
    for first in [1, 101, 9007199254740901]:
        token = f"{first:020d}"
        tokens.append({"firstSequence": first, "expect": {"token": token}, "source": "python-reference",
                       "divergences": [java_locale_mark({"token": arabic_digits(token)})]})
    return {
        "name": "formatting",
        "description": "Partition names (partition- and the index zero-padded to the width of the largest index) and "
        "archive tokens (20 zero-padded digits) are written with the ASCII digits 0-9 whatever the platform's default "
        "locale: run these under a locale with other digits (ar-EG, fa-IR) to check.",
        "partitionNameCases": names,
        "tokenCases": tokens,
    }


# --- Segmented logs: chunk-size changes (a later layout must read both layouts)
def seg_start(segments, v):
    """First sequence of the chunk holding v (v >= 1): the last segment starting at or before v."""
    frm, size = [s for s in segments if s[0] <= v][-1]
    return frm + (v - frm) // size * size


def seg_token_ok(token, segments):
    if token in ("", "current"):
        return True
    if len(token) != 20 or any(c not in "0123456789" for c in token):
        return False
    v = int(token)
    return v >= 1 and seg_start(segments, v) == v


def seg_current_first(segments, next_sequence):
    last_from = segments[-1][0]
    return next_sequence if next_sequence <= last_from else seg_start(segments, next_sequence - 1)


def seg_older(segments, retained_from, first):
    """Token of the chunk just older than the one starting at `first`, or "" (none retained)."""
    if first == 1:
        return ""
    older = seg_start(segments, first - 1)
    return "" if older < retained_from else f"{older:020d}"


def seg_cases():
    layouts = {
        "one-segment-100": [(1, 100)],
        "10-then-3-from-26": [(1, 10), (26, 3)],
        "100-then-50-from-251-then-7-from-401": [(1, 100), (251, 50), (401, 7)],
        "1-then-1000000-from-5": [(1, 1), (5, 1000000)],
        "3-then-100-from-9007199254740901": [(1, 3), (9007199254740901, 100)],
    }

    def segs_json(segments):
        return [{"fromSequence": f, "chunkSize": c} for f, c in segments]

    token_cases = []
    page_cases = []
    for name, segments in layouts.items():
        probes = set()
        for f, c in segments:
            for v in (f, f + 1, f - 1, f + c, f + c - 1, f + c + 1, f + 2 * c, f + 3 * c):
                if v >= 0:
                    probes.add(v)
        probes |= {1, 2, 10**19, 10**20 - 1, 10**20 - 7}
        for v in sorted(probes):
            token = f"{v:020d}"
            if len(token) != 20:
                continue
            ok = seg_token_ok(token, segments)
            case = {
                "id": f"{name}-{v}", "segments": segs_json(segments), "token": token,
                "expect": {"pageToken": token} if ok else {"error": f'invalid page token "{token}"'},
                "source": "python-reference",
            }
            # One segment of 100 is the SDKs' own rule: they depart from it as on page-token.json.
            if segments == [(1, CHUNK)] and (marks := token_marks(token, ok)):
                case["divergences"] = marks
            token_cases.append(case)
        for token in ("", "current"):
            token_cases.append({"id": f"{name}-{token or 'empty'}", "segments": segs_json(segments), "token": token,
                                "expect": {"pageToken": "current"}, "source": "python-reference"})

    def page_case(case_id, segments, next_sequence, retained_from, token):
        first = seg_current_first(segments, next_sequence) if token == "current" else int(token)
        latest = seg_older(segments, 1, seg_current_first(segments, next_sequence))
        expect = {"firstSequence": first, "nextPageToken": seg_older(segments, retained_from, first)}
        case = {
            "id": case_id, "segments": segs_json(segments),
            "state": {"nextSequence": next_sequence, "latestArchivedChunkToken": latest},
            "retainedFrom": retained_from, "token": token, "expect": expect, "source": "python-reference",
        }
        # Java formats the older token of an archived page (current's is the state's, passed through).
        if segments == [(1, CHUNK)] and token != "current" and expect["nextPageToken"]:
            case["divergences"] = [java_locale_mark({**expect, "nextPageToken": arabic_digits(expect["nextPageToken"])})]
        page_cases.append(case)

    # One segment is the plain rule: the model agrees with page_token_ok on every probe.
    for case in token_cases:
        if case["id"].startswith("one-segment-100-"):
            assert seg_token_ok(case["token"], [(1, 100)]) == page_token_ok(case["token"]), case["id"]
    s = layouts["10-then-3-from-26"]
    page_case("10-3-current-empty-after-change", s, 26, 1, "current")
    page_case("10-3-short-chunk-before-change", s, 26, 1, "00000000000000000021")
    page_case("10-3-first-chunk-of-new-segment", s, 33, 1, "00000000000000000026")
    page_case("10-3-current-after-appends", s, 33, 1, "current")
    page_case("10-3-oldest-chunk", s, 33, 1, "00000000000000000001")
    page_case("10-3-oldest-retained-after-retention", s, 33, 21, "00000000000000000021")
    page_case("10-3-retained-from-new-segment", s, 33, 26, "00000000000000000029")
    s = layouts["100-then-50-from-251-then-7-from-401"]
    page_case("three-segments-current", s, 420, 1, "current")
    page_case("three-segments-first-of-third", s, 420, 1, "00000000000000000401")
    page_case("three-segments-short-end-of-second", s, 420, 1, "00000000000000000351")
    page_case("three-segments-first-of-second", s, 420, 1, "00000000000000000251")
    page_case("three-segments-short-end-of-first", s, 420, 1, "00000000000000000201")
    page_case("three-segments-after-retention", s, 420, 301, "00000000000000000301")
    s = layouts["one-segment-100"]
    page_case("one-segment-spec-example-current", s, 251, 1, "current")
    page_case("one-segment-spec-example-middle", s, 251, 1, "00000000000000000101")
    page_case("one-segment-spec-example-oldest", s, 251, 1, "00000000000000000001")
    return {
        "name": "segmented-log",
        "description": "Logs whose chunk size changed: a segment list [{fromSequence, chunkSize}] says from which sequence "
        "chunks hold how many records (chunks start at fromSequence + k * chunkSize inside their segment; the last chunk "
        "before the next segment may be shorter). A token is valid when it is the first sequence of a chunk of the segment "
        "it falls in; a page's nextPageToken names the chunk just older, or \"\" when none is retained.",
        "cases": token_cases,
        "pageCases": page_cases,
    }



# --- Keys under other partition counts: the exact rule (any string) and the email rule
def partition_name(index: int, count: int) -> str:
    return f"partition-{index:0{len(str(count - 1))}d}"


def partition_cases():
    keys = {
        "exact": ["alice@example.com", "Alice@Example.COM", "", "__proto__", "constructor", "caf\u00e9", "\U0001F600",
                  "a\u0000b", " padded ", "x" * 1000],
        "email": [" Alice@Example.COM ", "bob@example.com", "\u000bcarol@example.net", "support+west@example.org"],
    }
    counts = [1, 2, 7, 10, 16, 100, 1000, 1024, 4096, 65536, 4294967295]
    cases = []
    for rule, rule_keys in keys.items():
        for k, key in enumerate(rule_keys):
            canonical_key = canonical(key) if rule == "email" else key
            h = fnv1a32(canonical_key.encode("utf-8"))
            for count in counts:
                name = partition_name(h % count, count)
                # The SDKs' own functions, read rather than run under these counts: Rust's trim and Java's format.
                marks = [java_locale_mark({"partitionName": arabic_digits(name)}, evidence="read")]
                if rule == "email" and "\x0b" in key:
                    h_vt = fnv1a32(canonical(key, WHITESPACE.replace("\x0b", "")).encode("ascii"))
                    actual = {"hash": h_vt, "partitionIndex": h_vt % count, "partitionName": partition_name(h_vt % count, count)}
                    marks.insert(0, mark("rust", "vertical-tab", "read", "trims with a whitespace set that leaves out 0x0B",
                                         actual))
                cases.append({
                    "id": f"{rule}-{k}-of-{count}", "rule": rule, "key": key, "partitionCount": count,
                    "expect": {"hash": h, "partitionIndex": h % count, "partitionName": name},
                    "source": "python-reference", "divergences": marks,
                })
    cases.append({"id": "email-not-ascii-of-7", "rule": "email", "key": "caf\u00e9@example.com", "partitionCount": 7,
                  "expect": {"error": NOT_ASCII}, "source": "python-reference"})
    return {
        "name": "partition",
        "description": "Keys placed under partition counts other than 1000. Rule exact: the key as given, hashed as its "
        "UTF-8 bytes; rule email: the email rule of email.json first. Partition index = hash mod partitionCount; the name "
        "is partition- and the index zero-padded to the width of the largest index (partitionCount - 1).",
        "cases": cases,
    }


# --- Index values in the engine's layout (docs/indexes.md): canonical JSON text, placed as a key
JSON_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def json_quote_units(units) -> str:
    """A string of UTF-16 code units quoted as JSON.stringify quotes it (lone surrogates as \\u escapes)."""
    out, i = ['"'], 0
    while i < len(units):
        u = units[i]
        if 0xD800 <= u < 0xDC00 and i + 1 < len(units) and 0xDC00 <= units[i + 1] < 0xE000:
            out.append(chr(0x10000 + ((u - 0xD800) << 10) + (units[i + 1] - 0xDC00)))
            i += 2
            continue
        c = chr(u)
        out.append(JSON_SHORT.get(c) or (f"\\u{u:04x}" if u < 0x20 or 0xD800 <= u < 0xE000 else c))
        i += 1
    return "".join(out) + '"'


def utf16_units(text: str):
    raw = text.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(raw[i:i + 2], "big") for i in range(0, len(raw), 2)]


def index_canonical(value) -> str:
    """The canonical text of a typed vector value ({kind: payload}); raises ValueError for a value no index holds."""
    (kind, x), = value.items()
    if kind == "null":
        return "null"
    if kind == "boolean":
        return "true" if x else "false"
    if kind == "number":
        if not math.isfinite(x):
            raise ValueError("not a finite number")
        if x == math.floor(x) and abs(x) <= 2**53 - 1:
            return str(int(x))
        return '{"$f64":"' + struct.pack(">d", x).hex() + '"}'
    if kind == "date":
        if x != math.floor(x) or abs(x) > 8.64e15:
            raise ValueError("not a valid date")
        return '{"$date":' + str(int(x)) + "}"
    if kind == "string":
        return json_quote_units(utf16_units(x))
    if kind == "stringUtf16":
        return json_quote_units(x)
    if kind == "compound":
        if not 1 <= len(x) <= 16 or any("compound" in e for e in x):
            raise ValueError("not 1 to 16 elements, none an array")
        return "[" + ",".join(index_canonical(e) for e in x) + "]"
    raise ValueError(f"unknown kind {kind}")


def index_cases():
    s = lambda t: {"string": t}  # noqa: E731
    n = lambda v: {"number": v}  # noqa: E731
    values = {
        "null": {"null": None}, "false": {"boolean": False}, "true": {"boolean": True},
        "zero": n(0), "negative-zero": n(-0.0), "integer": n(42), "negative-integer": n(-7),
        "largest-safe-integer": n(2**53 - 1), "smallest-safe-integer": n(-(2**53 - 1)),
        "two-to-the-53": n(float(2**53)), "1e21": n(1e21), "one-tenth": n(0.1), "minus-one-and-a-half": n(-1.5),
        "smallest-subnormal": n(5e-324), "largest-double": n(1.7976931348623157e308), "whole-float": n(3.0),
        "date": {"date": 1704067200000}, "date-before-1970": {"date": -1}, "date-negative-zero": {"date": -0.0},
        "date-largest": {"date": 8.64e15}, "date-smallest": {"date": -8.64e15},
        "string": s("Acme"), "empty-string": s(""), "string-true": s("true"), "string-42": s("42"),
        "quotes-and-backslash": s('say "hi" \\ bye /'), "short-escapes": s("\b\t\n\f\r"),
        "other-controls": s("\u0000\u000b\u001f\u007f"), "not-ascii": s("caf\u00e9 \u2028 \U0001F600"),
        "lone-high-surrogate": {"stringUtf16": [0xD800, 0x78]}, "lone-low-surrogate": {"stringUtf16": [0x78, 0xDFFF]},
        "reversed-pair": {"stringUtf16": [0xDE00, 0xD83D]},
        "compound": {"compound": [s("Acme"), n(3), {"null": None}]},
        "compound-of-one": {"compound": [s("Acme")]},
        "compound-every-kind": {"compound": [{"null": None}, {"boolean": False}, n(0.5), {"date": 0}, s("x")]},
    }
    refused = {
        "date-with-a-fraction": {"date": 0.5}, "date-past-the-range": {"date": 8.64e15 + 1},
        "compound-empty": {"compound": []}, "compound-nested": {"compound": [{"compound": [s("a")]}]},
        "compound-of-17": {"compound": [n(i) for i in range(17)]},
    }
    # The quoting agrees with Python's own JSON writer wherever that one can write the string.
    for value in values.values():
        if "string" in value:
            assert json_quote_units(utf16_units(value["string"])) == json.dumps(value["string"], ensure_ascii=False)
    cases = []
    for name, value in values.items():
        canonical_text = index_canonical(value)
        h = fnv1a32(canonical_text.encode("utf-8"))
        for count in ([1000, 7, 1] if name in ("string", "compound", "integer") else [1000]):
            cases.append({
                "id": f"{name}-of-{count}", "value": value, "partitionCount": count,
                "expect": {"canonicalValue": canonical_text, "hash": h, "partitionIndex": h % count,
                           "partitionName": partition_name(h % count, count)},
                "source": "python-reference",
            })
    for name, value in refused.items():
        try:
            index_canonical(value)
        except ValueError as e:
            cases.append({"id": name, "value": value, "partitionCount": 1000, "expect": {"error": str(e)},
                          "source": "python-reference"})
        else:
            raise AssertionError(name)
    return {
        "name": "index",
        "description": "Where an index value lives when an index is moved to the engine (docs/indexes.md): its canonical "
        "text is JSON written one way (null, false, true; integers up to 2^53 - 1 in magnitude in decimal; other finite "
        "numbers as {\"$f64\":\"<16 lowercase hex digits of the IEEE-754 bits>\"}; dates as {\"$date\":<ms>}; strings "
        "quoted as JSON.stringify quotes them, lone surrogates as \\u escapes; compound values as arrays, no spaces), "
        "placed as a key: FNV-1a of its UTF-8 bytes, mod partitionCount. A value is {kind: payload}: null, boolean, "
        "number, date (ms since 1970), string, stringUtf16 (UTF-16 code units, for lone surrogates) or compound. Refused "
        "values must fail; their words are not part of the contract.",
        "cases": cases,
    }


# --- Appends at a rollover: which chunks an append archives, under which tokens
MAX_SEQUENCE = 2**53 - 1


def append_plan(segments, next_sequence: int, latest: str, count: int):
    """The writes of appending `count` records: every full chunk a later record pushes out of current is archived."""
    size = segments[-1][1]  # appends always land in the last segment
    first = seg_current_first(segments, next_sequence)
    end = next_sequence + count  # the next sequence after the append
    if end - 1 > MAX_SEQUENCE:
        return None
    archived = []
    while end - first > size:
        archived.append(f"{first:020d}")
        first += size
    state = {"nextSequence": end, "latestArchivedChunkToken": archived[-1] if archived else latest}
    return {"firstSequence": next_sequence, "archivedTokens": archived, "state": state, "currentLength": end - first}


def append_cases():
    cases = []

    def add(case_id, segments, next_sequence, count, note=None):
        latest = seg_older(segments, 1, seg_current_first(segments, next_sequence))
        plan = append_plan(segments, next_sequence, latest, count)
        case = {"id": case_id, "segments": [{"fromSequence": f, "chunkSize": c} for f, c in segments],
                "state": {"nextSequence": next_sequence, "latestArchivedChunkToken": latest},
                "currentLength": next_sequence - seg_current_first(segments, next_sequence), "count": count,
                "expect": plan if plan else {"error": "sequence_exhausted"}, "source": "python-reference"}
        if note:
            case["note"] = note
        # The SDKs have one chunk size, 100; Java formats the tokens it archives in the locale's digits
        # (the state's latest token it was given passes through as it is).
        if segments == [(1, CHUNK)] and plan and plan["archivedTokens"]:
            case["divergences"] = [java_locale_mark({
                **plan, "archivedTokens": [arabic_digits(t) for t in plan["archivedTokens"]],
                "state": {**plan["state"], "latestArchivedChunkToken": arabic_digits(plan["state"]["latestArchivedChunkToken"])},
            })]
        cases.append(case)

    one = [(1, 100)]
    add("empty-one", one, 1, 1)
    add("empty-100-fills-current", one, 1, 100, "After exactly 100 appends there is no archive yet (SPEC.md).")
    add("empty-101-archives-one", one, 1, 101)
    add("spec-example-250", one, 1, 250, "SPEC.md's worked example: current holds 201..250, next 101.")
    add("full-current-then-one", one, 101, 1, "current holds 1..100: the append archives it under 1.")
    add("half-current-then-50", one, 51, 50)
    add("half-current-then-51", one, 51, 51)
    add("full-current-then-201", one, 101, 201)
    add("after-archives-then-one", one, 251, 1)
    add("chunk-size-one", [(1, 1)], 1, 5, "Chunks of one record: every record but the newest is archived.")
    add("chunk-size-one-full", [(1, 1)], 2, 1)
    changed = [(1, 10), (26, 3)]
    add("after-change-current-empty", changed, 26, 1, "A size change archived current: current starts at 26, empty.")
    add("after-change-seven", changed, 26, 7)
    add("after-change-full-current", changed, 32, 1)
    add("three-segments", [(1, 100), (251, 50), (401, 7)], 420, 30)
    big = [(1, 3), (9007199254740901, 100)]
    add("to-the-last-safe-sequence", big, 9007199254740901, 91, "The last record gets 2^53 - 1.")
    add("past-the-last-safe-sequence", big, 9007199254740901, 92, "Would give a record 2^53: refused whole.")
    add("last-safe-sequence-full", [(1, 1)], MAX_SEQUENCE, 1, "Sequence 2^53 - 1 itself is still given.")
    add("past-the-last-safe-sequence-by-one", [(1, 1)], MAX_SEQUENCE + 1, 1, "The log already gave 2^53 - 1.")
    return {
        "name": "append",
        "description": "Appends at a chunk rollover: a log (segments, state, and the currentLength records its current "
        "chunk holds, which follow from them) takes count records in one append. expect: the first new sequence, the "
        "tokens of the chunks the append archives (oldest first: every full chunk that a later record pushes out of "
        "current), the new state and how many records current then holds; or an error code when a sequence would pass "
        "2^53 - 1 (the append is refused whole).",
        "cases": cases,
    }


# --- Export files: a valid export, and variants that each break one rule on a known line
def dumps(value) -> str:
    """One JSON line as attrmap writes it: no spaces, non-ASCII as is, object keys in the order given."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def partitioned(count: int, rule: str) -> dict:
    """A partitioned map's layout record, as created (layout version 1)."""
    return {"kind": "partitioned", "layoutVersion": 1, "partitionCount": count, "keyRule": rule}


def chunked(version: int, segments) -> dict:
    """A chunked log's layout record for (fromSequence, chunkSize) segments."""
    return {"kind": "chunked", "layoutVersion": version, "segments": [{"fromSequence": f, "chunkSize": c} for f, c in segments]}


def utf16_order(text: str) -> bytes:
    """Sorts strings by UTF-16 code units, as JavaScript and IndexedDB do (big-endian units compare as bytes)."""
    return text.encode("utf-16-be", "surrogatepass")


def export_valid():
    """The lines of a valid export: a directory, a log with two segments, a retained log, a generic map."""
    lines = [{"format": "attrmap-export", "version": 1}]
    # The customer directory: profiles by canonical email, 1000 partitions.
    emails = [g[0] for g in SPEC_GOLDEN] + [f"User{i}@Example.com" for i in range(12)]
    parts = {}
    for email in emails:
        canon = canonical(email)
        index = fnv1a32(canon.encode()) % PARTITIONS
        profile = {"emailAddress": canon, "fullName": f"Name of {canon}", "companyName": "Example", "customerTier": "gold"}
        parts.setdefault(index, {})[canon] = profile
    directory = "CustomerProfilesByEmailPartition"
    lines.append({"map": directory, "layout": partitioned(PARTITIONS, "email")})
    for index in sorted(parts):
        entries = dict(sorted(parts[index].items(), key=lambda kv: utf16_order(kv[0])))
        lines.append({"map": directory, "instance": f"partition-{index:03d}", "value": entries})
    # The subscriber archive: chunks of 10 up to 25, then of 3 (changeChunkSize(3) at 26), 32 records.
    subs = "SubscriberChunks"
    segments = [(1, 10), (26, 3)]
    lines.append({"map": subs, "layout": chunked(2, segments)})
    lines.append({"map": subs, "state": {"nextSequence": 33, "latestArchivedChunkToken": f"{29:020d}"}})
    def records(first, last, make):
        return [make(s) for s in range(first, last + 1)]
    def subscriber(s):
        return {"sequence": s, "subscriberId": f"s-{s}", "deliveryAddress": f"s{s}@example.com"}
    for first, last in [(1, 10), (11, 20), (21, 25), (26, 28), (29, 31)]:
        lines.append({"map": subs, "instance": f"{first:020d}", "value": records(first, last, subscriber)})
    lines.append({"map": subs, "instance": "current", "value": records(32, 32, subscriber)})
    # A generic log of chunks of 5 whose archives before 6 were dropped (retention).
    audit = "audit"
    lines.append({"map": audit, "layout": chunked(1, [(1, 5)])})
    lines.append({"map": audit, "state": {"nextSequence": 18, "latestArchivedChunkToken": f"{11:020d}"}})
    def event(s):
        text = f'line "{s}"\nand a tab\there'
        return {"sequence": s, "value": {"type": "edit", "text": text, "tags": ["a", None, True, 1.5, -3]}}
    for first, last in [(6, 10), (11, 15)]:
        lines.append({"map": audit, "instance": f"{first:020d}", "value": records(first, last, event)})
    lines.append({"map": audit, "instance": "current", "value": records(16, 17, event)})
    # A generic map with exact keys, any JSON values.
    settings = "settings"
    lines.append({"map": settings, "layout": partitioned(4, "exact")})
    values = {"__proto__": {"nested": {"deep": [1, 2, {"x": "y"}]}}, "": "empty key", " Theme ": "dark", "constructor": None,
              "lang": "en", "é": "non-ASCII key"}
    by = {}
    for key, value in values.items():
        by.setdefault(fnv1a32(key.encode()) % 4, {})[key] = value
    for index in sorted(by):
        ordered = dict(sorted(by[index].items(), key=lambda kv: utf16_order(kv[0])))
        lines.append({"map": settings, "instance": f"partition-{index}", "value": ordered})
    # Two maps whose names sort differently by code point and by UTF-16 code unit (U+1F600 is
    # D83D DE00 in UTF-16): names are in UTF-16 order, the order of IndexedDB and JavaScript.
    for name in sorted(["\ufffd replacement", "\U0001f600 emoji"], key=utf16_order):
        lines.append({"map": name, "layout": partitioned(1, "exact")})
        keys = ["\ufffd", "\U0001f600", "z"]
        lines.append({"map": name, "instance": "partition-0", "value": {k: name for k in sorted(keys, key=utf16_order)}})
    return lines


def export_files():
    valid = export_valid()
    text = lambda lines: "".join(l if isinstance(l, str) else dumps(l) + "\n" for l in lines)
    counts = {"maps": sum(1 for l in valid if "layout" in l), "instances": sum(1 for l in valid if "instance" in l),
              "entries": sum(len(l["value"]) for l in valid if "instance" in l)}
    files = {"valid.ndjson": (text(valid), counts)}
    where = {}
    for i, l in enumerate(valid):
        where.setdefault((l.get("map"), "layout" in l, "state" in l, l.get("instance")), i)
    def line_of(map_name, instance=None, layout=False, state=False):
        return where[(map_name, layout, state, instance)]
    def variant(name, reason, at, lines, note):
        # `at` is the 0-based index of the line that breaks the rule; lines are 1-based in files.
        files[f"invalid-{name}.ndjson"] = (text(lines), {"error": {"line": at + 1, "reason": reason}, "note": note})
    d, s = "CustomerProfilesByEmailPartition", "SubscriberChunks"
    v = list(valid)
    v[0] = {"format": "attrmap-export", "version": 2}
    variant("header-version", "bad-header", 0, v, "An export of another version.")
    variant("no-header", "bad-header", 0, valid[1:], "The header line is missing.")
    v = list(valid)
    k = line_of(s, layout=True)
    v[k] = dumps(v[k])[:-1] + "\n"
    variant("not-json", "invalid-json", k, v, "A line cut short: not JSON.")
    v = list(valid)
    first_part = line_of(d, valid[2]["instance"])
    v.insert(1, valid[line_of("settings", layout=True)])
    at = line_of(d, layout=True) + 1
    variant("map-order", "map-order", at, v[:at + 1], "Maps come in name order: settings cannot come before the directory.")
    v = list(valid)
    entry = dict(v[first_part]["value"])
    key = next(iter(entry))
    entry[key.upper()] = entry.pop(key)
    v[first_part] = {**v[first_part], "value": entry}
    variant("key-not-canonical", "key-not-canonical", first_part, v, "A key of the email rule in upper case.")
    v = list(valid)
    second = first_part + 1
    moved = dict(v[second]["value"])
    moved.update(v[first_part]["value"])
    v[second] = {**v[second], "value": moved}
    v[first_part] = {**v[first_part], "value": {}}
    del v[first_part]
    variant("key-in-wrong-partition", "key-in-wrong-partition", second - 1, v, "An entry in a partition its hash does not name.")
    v = list(valid)
    v[first_part] = {**v[first_part], "instance": "partition-" + v[first_part]["instance"][-3:].rjust(4, "0")}
    variant("partition-name-width", "bad-partition-name", first_part, v, "partition-0NNN is not a name under 1000 partitions.")
    v = list(valid)
    v.insert(first_part + 1, valid[first_part])
    variant("instance-twice", "instance-order", first_part + 1, v, "The same partition twice.")
    v = list(valid)
    k = line_of(s, f"{26:020d}")
    v[k] = {**v[k], "instance": f"{27:020d}"}
    variant("token-off-boundary", "bad-token", k, v, "27 is not a chunk boundary: chunks of 3 start at 26, 29, ...")
    v = list(valid)
    k = line_of(s, f"{11:020d}")
    del v[k]
    variant("archive-missing", "sequence-gap", k, v, "The archive of 11..20 is missing: 21 does not follow 1..10.")
    v = list(valid)
    k = line_of(s, f"{21:020d}")
    v[k] = {**v[k], "value": [dict(r, sequence=r["sequence"] + (1 if i == 2 else 0)) for i, r in enumerate(v[k]["value"])]}
    variant("sequence-wrong", "bad-chunk", k, v, "A record with the sequence of its neighbour.")
    v = list(valid)
    k = line_of(s, state=True)
    v[k] = {"map": s, "state": {"nextSequence": 34, "latestArchivedChunkToken": f"{29:020d}"}}
    variant("current-disagrees-with-state", "bad-chunk", line_of(s, "current"), v,
            "The state says current holds 32 and 33; it holds 32.")
    v = list(valid)
    v[k] = {"map": s, "state": {"nextSequence": 33, "latestArchivedChunkToken": f"{26:020d}"}}
    variant("latest-token-wrong", "bad-state", k, v, "The latest archived token must name the chunk just before current.")
    v = list(valid)
    del v[k]
    variant("state-missing", "missing-state", k, v, "A log's chunks without its state line.")
    v = list(valid)
    k = line_of(s, "current")
    del v[k]
    variant("current-missing", "missing-current", k, v,
            "The state says current holds a record, but no current line comes before the next map.")
    v = list(valid)
    k = line_of("audit", layout=True)
    v.insert(k, {"map": "audit"})
    variant("unknown-line", "bad-line", k, v, "A line that is neither a layout, a state nor an instance.")
    v = list(valid)
    k = line_of(d, layout=True)
    v.insert(k, {"map": "\u0000staged", "layout": partitioned(1, "exact")})
    variant("reserved-map-name", "bad-layout", k, v, "Map names that begin with U+0000 are reserved for attrmap's own use.")
    return files


def export_index():
    return {
        "name": "export",
        "description": "Export files (newline-delimited JSON, docs/export-format.md): valid.ndjson must import with the "
        "counts given; each invalid file must be refused whole, at the line and for the reason given (the reason names "
        "the rule broken, and is part of the message as (reason)).",
        "cases": [{"file": f"export/{name}", "expect": expect} for name, (_, expect) in export_files().items()],
    }

FILES = {"fnv1a32.json": fnv_cases, "email.json": email_cases, "page-token.json": token_cases, "segmented-log.json": seg_cases,
         "formatting.json": formatting_cases, "partition.json": partition_cases, "append.json": append_cases,
         "export.json": export_index, "index.json": index_cases,
         "divergences.json": lambda: {
             "name": "divergences",
             "description": "The reference SDKs and the classes of case where they depart from the contract. A case's "
             "divergences list has one mark per SDK that departs: {sdk, class, evidence (run, read or range), how, "
             "detail?, when?, actual?}; actual is that SDK's output in the shape of expect, absent when it cannot take "
             "the input. measured lists the SDKs measured for a class (all when absent).",
             "sdks": SDKS, "classes": CLASSES}}
DIVERGENCE_TABLE = "../../docs/conformance-divergences.md"  # beside the rest of the contract


def marks_of(doc):
    """Every divergence mark in a vector file, wherever it sits."""
    if isinstance(doc, dict):
        for m in doc.get("divergences", []):
            yield m
        for key, value in doc.items():
            if key != "divergences":
                yield from marks_of(value)
    elif isinstance(doc, list):
        for item in doc:
            yield from marks_of(item)


def divergence_table(docs) -> str:
    """docs/conformance-divergences.md: per class of case, what each SDK does (from the marks) and what this project does."""
    marks = [m for doc in docs.values() for m in marks_of(doc)]
    classes, sdks = docs["divergences.json"]["classes"], docs["divergences.json"]["sdks"]
    out = ["# How the reference SDKs depart from the contract", "",
           "Generated by `tests/conformance/generate.py` from the divergence marks of the vector files in",
           "`tests/conformance/` (do not edit by hand). Each mark was measured by running the SDK's example",
           "code (**run**), read from its code (**read**), or follows from the integer type it was measured",
           "to use (**range**). \"As the contract\": the SDK was measured to answer every case of the class as",
           "the contract says.",
           "What the marks mean and how a test uses them: [conformance.md](conformance.md).", ""]
    for cls, info in classes.items():
        of_class = [m for m in marks if m["class"] == cls]
        out += [f"## {info['title']}", "", f"This project: {info['thisProject']}", "",
                "| SDK | what it does | cases | evidence |", "|---|---|---|---|"]
        for sdk in sdks:
            mine = [m for m in of_class if m["sdk"] == sdk]
            if not mine:
                measured = sdk in info.get("measured", sdks)
                out.append(f"| {SDK_TITLES[sdk]} | {'as the contract' if measured else 'not measured'} | | |")
                continue
            hows = list(dict.fromkeys(m["how"] + (f" (when {m['when']})" if "when" in m else "") for m in mine))
            evidence = ", ".join(sorted({m["evidence"] for m in mine}))
            out.append(f"| {SDK_TITLES[sdk]} | {'; '.join(hows)} | {len(mine)} | {evidence} |")
        out.append("")
    return "\n".join(out)


def main(argv):
    check = "--check" in argv
    stale = []
    docs = {name: build() for name, build in FILES.items()}
    outputs = {name: json.dumps(doc, indent=2, ensure_ascii=True) + "\n" for name, doc in docs.items()}
    outputs.update({f"export/{name}": text for name, (text, _) in export_files().items()})
    (HERE / "export").mkdir(exist_ok=True)
    outputs[DIVERGENCE_TABLE] = divergence_table(docs) + "\n"
    for name, text in outputs.items():
        path = HERE / name
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print("conformance vectors differ from generate.py: " + ", ".join(stale) + " (run python3 tests/conformance/generate.py)")
        return 1
    print("conformance vectors: " + ("up to date" if check else "written") + f" ({len(outputs)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
