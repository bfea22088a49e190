"""Strings of the string-discovery blocks pem, treehist and sfp (docs/python.md "Strings").

A device string is 1..L bytes without a zero byte (L the block's ``string_length``; docs/mechanisms.md
F.1). Python hands ``str`` over as UTF-8 and takes the bytes the server finds back as ``str`` decoded
with ``errors="surrogateescape"``, so every result, UTF-8 or not, encodes back to its exact bytes.
"""

from __future__ import annotations

from typing import Any, List

#: The error handler both ways: exact bytes round-trip through str.
ERRORS = "surrogateescape"


def encode_strings(values: Any, what: str) -> List[bytes]:
    """The bytes of each element of ``values`` (str as UTF-8, bytes-like as is), in order.

    TypeError for a single str or bytes (not a sequence of strings) and for an element of another
    type, naming its index; the lengths and zero bytes are the compiled module's to check.
    """
    if isinstance(values, (str, bytes, bytearray, memoryview)):
        raise TypeError(f"{what}s must be a sequence of str or bytes, not one {type(values).__name__}")
    try:
        items = list(values)
    except TypeError:
        raise TypeError(f"{what}s must be a sequence of str or bytes, got {type(values).__name__}") from None
    out: List[bytes] = []
    for index, item in enumerate(items):
        if isinstance(item, str):
            out.append(item.encode("utf-8", ERRORS))
        elif isinstance(item, (bytes, bytearray, memoryview)):
            out.append(bytes(item))
        else:
            raise TypeError(f"{what} {index} must be a str or bytes, got {type(item).__name__}")
    return out


def decode_strings(items: List[bytes]) -> List[str]:
    """The server's strings as str: UTF-8, any other byte as a surrogate escape."""
    return [item.decode("utf-8", ERRORS) for item in items]
