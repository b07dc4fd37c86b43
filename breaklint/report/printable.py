"""Text from outside (file names, and messages that quote them) made safe to print for a person.

A file name may hold a newline (a second output line such as `::error file=x::INJECTED`, which a
CI runner acts on), a terminal escape sequence, or bytes that are not UTF-8 (decoded by Python as
lone surrogates, which no UTF-8 stream can write). Every character that `str.isprintable` refuses
is written as a Python escape instead: `\\n`, `\\x1b`, `\\u2028`, and `\\xff` for an undecodable
byte `0xff`, so the name shown is the name on disk, spelled out.
"""

from __future__ import annotations

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_SURROGATE_ESCAPES = range(0xDC80, 0xDD00)  # os.fsdecode's stand-ins for the bytes 0x80-0xff


def printable(text: str, keep: str = "") -> str:
    """`text` with every character that is not printable escaped, but those in `keep` (a format
    that escapes them its own way)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in keep else _escape(c) for c in text)


def _escape(char: str) -> str:
    point = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if point in _SURROGATE_ESCAPES:
        return f"\\x{point - 0xDC00:02x}"
    if point < 0x100:
        return f"\\x{point:02x}"
    return f"\\u{point:04x}" if point < 0x10000 else f"\\U{point:08x}"
