"""Parameter blocks: :func:`params`, :func:`batch_params` and the recommender :func:`mechanisms`."""

from __future__ import annotations

import math
import numbers
import os
from typing import Any, Dict, List, Mapping, Tuple, Union

import pandas as pd

from ldpkit import _core

#: Every mechanism of ``ldp simulate``, in its order: name -> {"input", "required", "optional", "usage"}.
MECHANISMS: Dict[str, Dict[str, Any]] = {row["name"]: row for row in _core.mechanism_table()}

#: The multi-round protocols: their blocks come from the protocol (:func:`ldpkit.simulate_protocol`).
PROTOCOLS = tuple(name for name, row in MECHANISMS.items() if row["input"] in ("observations", "samples"))

# The type of every mechanism option of `ldp simulate` (Python names).
_INT, _FLOAT, _STR, _RANGE, _SKETCH = "int", "float", "str", "range", "sketch"
OPTION_TYPES: Dict[str, str] = {
    "domain": _INT,
    "hash_range": _INT,
    "hash_functions": _INT,
    "sampled_buckets": _INT,
    "sketch": _SKETCH,
    "range": _RANGE,
    "frac_bits": _INT,
    "dim": _INT,
    "radius": _FLOAT,
    "projection_dim": _INT,
    "noise": _STR,
    "beta": _FLOAT,
    "observations": _INT,
    "sparsity": _INT,
    "delta": _FLOAT,
    "tau": _FLOAT,
    "gamma": _FLOAT,
    "window": _STR,
    "budget": _STR,
    "queries": _INT,
    "cap": _INT,
    "plan": _STR,
    "ball": _STR,
    "public_seed": _INT,
    "string_length": _INT,
    "prefix_bits": _INT,
}


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _real_text(value: Any, what: str) -> str:
    if not _is_real(value):
        raise TypeError(f"{what} must be a number, got {type(value).__name__}")
    return repr(float(value))


def _option_text(name: str, value: Any) -> str:
    """The command-line text of one option value, checking its type (TypeError)."""
    kind = OPTION_TYPES[name]
    if kind == _INT:
        if not _is_int(value):
            raise TypeError(f"{name} must be an int, got {type(value).__name__}")
        if value < 0:
            raise ValueError(f"{name} must not be negative, got {value}")
        return str(int(value))
    if kind == _FLOAT:
        return _real_text(value, name)
    if kind == _STR:
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}")
        return value
    if isinstance(value, str):
        return value
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{name} must be a 'a:b' string or a pair, got {value!r}")
    if kind == _SKETCH:
        if not all(_is_int(v) for v in value):
            raise TypeError(f"sketch must be a pair of ints (rows, columns), got {value!r}")
        return f"{int(value[0])}:{int(value[1])}"
    return ":".join(_real_text(v, name) for v in value)


def check_options(mechanism: str, epsilon: Any, options: Mapping[str, Any]) -> Dict[str, str]:
    """Checks a mechanism, its epsilon and its options against ``ldp simulate``'s table and returns
    the options as the command line writes them (``{"hash-range": "8"}``). Raises ValueError for an
    unknown mechanism or option, an option the mechanism does not take or a missing required one;
    TypeError for a value of the wrong type."""
    if not isinstance(mechanism, str):
        raise TypeError(f"mechanism must be a str, got {type(mechanism).__name__}")
    if mechanism not in MECHANISMS:
        raise ValueError(f"unknown mechanism {mechanism!r} (known: {', '.join(MECHANISMS)})")
    if not _is_real(epsilon):
        raise TypeError(f"epsilon must be a number, got {type(epsilon).__name__}")
    if not math.isfinite(float(epsilon)) or float(epsilon) <= 0:
        raise ValueError(f"epsilon must be a positive finite number, got {epsilon!r}")
    row = MECHANISMS[mechanism]
    for name in options:
        if name not in OPTION_TYPES:
            raise ValueError(f"unknown option {name!r} (options: {', '.join(OPTION_TYPES)})")
        if name not in row["required"] and name not in row["optional"]:
            raise ValueError(f"{name} does not apply to {mechanism} (it takes {_usage(row)})")
    missing = [name for name in row["required"] if name not in options]
    if missing:
        raise ValueError(f"{mechanism} needs {', '.join(missing)} (it takes {_usage(row)})")
    return {name.replace("_", "-"): _option_text(name, value) for name, value in options.items()}


def _usage(row: Mapping[str, Any]) -> str:
    required = ", ".join(row["required"])
    optional = ", ".join(row["optional"])
    return f"{required}" + (f"; optional {optional}" if optional else "")


def params(mechanism: str, *, epsilon: float, **options: Any) -> _core.Params:
    """The parameter block ``ldp simulate --mechanism MECHANISM --epsilon EPSILON ...`` builds.

    Options are ``ldp simulate``'s mechanism options with ``_`` for ``-``: ``domain``,
    ``hash_range``, ``hash_functions``, ``sketch`` (``"k:m"`` or ``(k, m)``), ``range`` (``"lo:hi"`` or ``(lo, hi)``),
    ``frac_bits``, ``dim``, ``radius``, ``projection_dim``, ``noise``, ``beta``, ``sparsity``, ``delta``,
    ``public_seed``, the string-discovery blocks' ``string_length`` and ``prefix_bits`` (pem,
    treehist, sfp: docs/python.md "Strings"; their ``domain`` is optional, default 2^31) (and the
    protocols' ``observations``, ``tau``, ``window``, ``budget``,
    ``queries``, ``cap``, ``plan``, ``ball``, which :func:`ldpkit.simulate_protocol` takes).

    Raises ValueError (unknown or missing options, or a protocol: kent and winsorized-mean build
    their blocks round by round, see :func:`ldpkit.simulate_protocol`) or TypeError before the block
    is built, and :class:`ldpkit.Error` when the tool refuses the values (e.g. an epsilon too small
    for the block's integer thresholds, with the smallest usable one in the message).

    >>> p = params("olh", epsilon=2.0, domain=1000)
    >>> p.mechanism, p.epsilon_implemented <= 2.0
    ('olh', True)
    """
    text = check_options(mechanism, epsilon, options)
    if mechanism in PROTOCOLS:
        raise ValueError(
            f"{mechanism} is a multi-round protocol whose blocks come from its rounds: "
            "run it with ldpkit.simulate_protocol"
        )
    return _core.make_params(mechanism, float(epsilon), text)


BytesLike = Union[bytes, bytearray, memoryview]


def batch_params(source: Union[str, "os.PathLike[str]", BytesLike]) -> _core.Params:
    """The parameter block in a batch's header: a path to a batch file (only its header is read, by
    ``ldp aggregate``'s reader) or bytes holding at least the header. Raises :class:`ldpkit.Error`
    for anything that is not a readable batch header (an aggregator state, a damaged header, ...)."""
    if isinstance(source, (str, os.PathLike)):
        return _core.batch_params_from_file(os.fspath(source))
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _core.batch_params_from_bytes(source)
    raise TypeError(f"batch_params takes a path or bytes, got {type(source).__name__}")


def mechanisms(domain: int, epsilon: float, devices: int = 1_000_000) -> pd.DataFrame:
    """``ldp mechanisms``: the frequency oracles ranked by implemented variance for a domain of
    ``domain`` items, ``epsilon`` and ``devices`` reports, best first, as a DataFrame with columns
    rank, mechanism, parameters, g_or_k, m, variance_per_report, std_error, report_bytes,
    estimate_steps (the decoding work after ingestion: OLH n·d hashes, FLH k·d, ...)."""
    for name, value in (("domain", domain), ("devices", devices)):
        if not _is_int(value):
            raise TypeError(f"{name} must be an int, got {type(value).__name__}")
        if value < 1:
            raise ValueError(f"{name} must be positive, got {value}")
    if not _is_real(epsilon):
        raise TypeError(f"epsilon must be a number, got {type(epsilon).__name__}")
    rows: List[Tuple[Any, ...]] = _core.recommend(int(domain), float(epsilon), int(devices))
    frame = pd.DataFrame(
        rows,
        columns=[
            "mechanism", "parameters", "g_or_k", "m", "variance_per_report", "std_error", "report_bytes",
            "estimate_steps",
        ],
    )
    frame.insert(0, "rank", range(1, len(frame) + 1))
    return frame
