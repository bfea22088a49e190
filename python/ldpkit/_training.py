"""Private training (docs/python.md "Training"; docs/mechanisms.md chapters H and I): :func:`train`, which
runs ``ldp train`` in process, and its building blocks: the model broadcast a training server sends each
round, a device's contribution to the round, and the discrete Gaussian's accountant, each the library's
own call."""

from __future__ import annotations

import dataclasses
import json
import math
import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import pandas as pd

from ldpkit import _core
from ldpkit._params import _is_int, _is_real

MODELS = ("linear", "logistic", "softmax")
WEIGHT_FORMATS = ("f32", "f64")


@dataclasses.dataclass(frozen=True)
class ModelHeader:
    """A model broadcast's header (docs/wire_format.md 10), as :func:`peek_model_broadcast` reads it.

    Attributes:
        model: "linear", "logistic" or "softmax".
        features: p.
        classes: C (1 for linear and logistic).
        dim: d = rows (p + 1), the length of the flattened parameter vector (rows = C for softmax, else 1).
        weight_format: "f32" (binary32) or "f64" (binary64).
        round: the round number.
        digest: SipHash-2-4 of the whole broadcast under "ldpkit model v01": what the round names and a
            device checks before it reads the broadcast.
        size: the broadcast's size in bytes, 28 + d w.
    """

    model: str
    features: int
    classes: int
    dim: int
    weight_format: str
    round: int
    digest: int
    size: int


def _check_uint(value: Any, what: str, low: int = 0, high: int = 2**64) -> int:
    """``value`` as an int in [low, high): TypeError for a non-integer, ValueError out of range."""
    if not _is_int(value):
        raise TypeError(f"{what} must be an int, got {type(value).__name__}")
    if not low <= value < high:
        raise ValueError(f"{what} must be in [{low}, {high}), got {value}")
    return int(value)


def _check_real(value: Any, what: str) -> float:
    if not _is_real(value):
        raise TypeError(f"{what} must be a real number, got {type(value).__name__}")
    return float(value)


def _real_array(values: Any, what: str, dtype: Any = np.float64) -> np.ndarray:
    """A C-contiguous array of ``dtype`` (no copy when it already is); TypeError for a non-real dtype."""
    array = np.asarray(values)
    if array.dtype.kind not in "fiu":
        raise TypeError(f"{what} must be real, got dtype {array.dtype}")
    return np.ascontiguousarray(array, dtype=dtype)


def encode_model_broadcast(
    theta: Any,
    *,
    model: str,
    features: int,
    classes: int = 1,
    round: int = 0,
    weight_format: str = "f64",
) -> bytes:
    """The model broadcast of the flattened parameters ``theta`` (docs/wire_format.md 10): what a
    training server sends its devices each round. ``theta`` holds d = rows (p + 1) reals, row r being
    (w_r1 .. w_rp, b_r); rows = ``classes`` for softmax (2 <= C <= 2^16), 1 for linear and logistic
    (``classes`` must then be 1). ``weight_format="f32"`` stores binary32 weights rounded to nearest.

    ValueError for an unknown model or format, TypeError for a non-integer shape or round; the
    library's refusals (a shape out of its limits, theta of another size, a weight that is not finite)
    raise :class:`ldpkit.Error` (``invalid_argument``).
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    if weight_format not in WEIGHT_FORMATS:
        raise ValueError(f"weight_format must be one of {WEIGHT_FORMATS}, got {weight_format!r}")
    weights = _real_array(theta, "theta").reshape(-1)
    return _core.encode_model_broadcast(
        model,
        _check_uint(features, "features", 0, 2**32),
        _check_uint(classes, "classes", 0, 2**32),
        _check_uint(round, "round"),
        weights,
        weight_format,
    )


def peek_model_broadcast(data: Any) -> ModelHeader:
    """The header of a model broadcast (bytes-like, read in place), checked as a device checks it
    (wire::peek_model_broadcast: length, magic, version, reserved byte, kind, format and shape, the
    total length, the CRC32C); the weights are not read. A broadcast that fails a check raises
    :class:`ldpkit.Error` with its status (``wrong_length``, ``malformed_report``,
    ``unsupported_version``, ``reserved_bits_set``, ``invalid_parameters``, ``checksum_mismatch``)."""
    return ModelHeader(**_core.peek_model_broadcast(data))


def decode_model_broadcast(data: Any) -> Tuple[ModelHeader, np.ndarray]:
    """The header and the weights (float64, d entries) of a model broadcast; a weight that is not
    finite raises :class:`ldpkit.Error` ``out_of_range``, the rest as :func:`peek_model_broadcast`."""
    header, theta = _core.decode_model_broadcast(data)
    return ModelHeader(**header), theta


def model_broadcast_digest(data: Any) -> int:
    """The digest of a broadcast: SipHash-2-4 of its bytes (the CRC included) under the 16-byte key
    "ldpkit model v01" (docs/wire_format.md 10). Any bytes: nothing is checked."""
    return _core.model_broadcast_digest(data)


def _bound(
    max_samples: int,
    frac_bits: int,
    clip: Optional[float],
    radius_fixed: Optional[int],
    digest: Optional[int],
    data: Any,
) -> Tuple[int, int, int, int]:
    """The round's bound (m, f, L, digest) as device::gradient_bound holds it."""
    m = _check_uint(max_samples, "max_samples", 1, 2**32)
    f = _check_uint(frac_bits, "frac_bits", 0, 63)
    if (clip is None) == (radius_fixed is None):
        raise ValueError("give exactly one of clip (G, real) and radius_fixed (L = G 2^frac_bits, grid units)")
    if clip is not None:
        g = _check_real(clip, "clip")
        if not g > 0 or math.isinf(g):
            raise ValueError(f"clip must be a finite real > 0, got {clip}")
        scaled = math.ldexp(g, f)
        if scaled >= 2**63:
            raise ValueError(f"clip {clip} at frac_bits {f} is beyond 2^63 grid units")
        radius = int(scaled)
        if radius < 1:
            raise ValueError(f"clip {clip} at frac_bits {f} is below one grid unit (L = floor(G 2^f) = 0)")
    else:
        radius = _check_uint(radius_fixed, "radius_fixed", 1, 2**63)
    named = model_broadcast_digest(data) if digest is None else _check_uint(digest, "digest")
    return m, f, radius, named


def user_gradient(
    broadcast: Any,
    features: Any,
    labels: Any,
    *,
    max_samples: int,
    frac_bits: int = 16,
    clip: Optional[float] = None,
    radius_fixed: Optional[int] = None,
    digest: Optional[int] = None,
    dtype: Any = np.float64,
) -> np.ndarray:
    """A user's contribution to a training round, computed as a device computes it
    (device::user_gradient, docs/mechanisms.md I.0): the average of the per-sample gradients of the
    first min(n, ``max_samples``) samples at the broadcast's model, L2-clipped to G, quantized to the
    grid 2^-``frac_bits`` and clipped again in integers, so the returned d int64 entries have squared
    sum at most L^2 (L = floor(G 2^f) from ``clip`` = G, or ``radius_fixed`` = L directly).

    ``features``: n x p reals (p the broadcast's features); ``labels``: n labels (linear: reals;
    logistic: 0 or 1; softmax: a class index 0 .. C - 1). ``digest``: the digest the round names
    (default: the broadcast's own, so a device that trusts these bytes); a broadcast whose digest is
    another raises :class:`ldpkit.Error` ``parameter_mismatch``. ``dtype``: np.float64 or np.float32,
    the device's arithmetic (device::user_gradient<double> or <float>).

    Returns the contribution as an int64 array of d entries (divide by 2^f for reals). A sparse
    input goes through :func:`user_gradient_sparse`.
    """
    kind = _device_type(dtype)
    m, f, radius, named = _bound(max_samples, frac_bits, clip, radius_fixed, digest, broadcast)
    x = _real_array(features, "features", kind)
    y = _real_array(labels, "labels", kind)
    if x.ndim != 2 or y.ndim != 1 or x.shape[0] != y.shape[0] or x.shape[0] == 0:
        raise ValueError(f"features must be n x p and labels n (n >= 1), got {x.shape} and {y.shape}")
    call = _core.user_gradient_f64 if kind is np.float64 else _core.user_gradient_f32
    return call(broadcast, x, y, m, f, radius, named)


def user_gradient_sparse(
    broadcast: Any,
    offsets: Any,
    index: Any,
    values: Any,
    labels: Any,
    *,
    max_samples: int,
    frac_bits: int = 16,
    clip: Optional[float] = None,
    radius_fixed: Optional[int] = None,
    digest: Optional[int] = None,
    dtype: Any = np.float64,
) -> np.ndarray:
    """:func:`user_gradient` from sparse samples in CSR form (docs/mechanisms.md I.0, embedding-style
    inputs): sample k has the features ``index[offsets[k]:offsets[k + 1]]`` (each < p) with
    ``values`` there; ``offsets`` has n + 1 non-decreasing entries starting at 0 (the library checks
    the order: ``ldpkit.Error`` ``invalid_argument``; an index >= p is ``out_of_range``). A feature
    listed twice in a sample counts as the sum of its values. The result is the dense form's for the
    same samples."""
    kind = _device_type(dtype)
    m, f, radius, named = _bound(max_samples, frac_bits, clip, radius_fixed, digest, broadcast)
    starts = np.asarray(offsets)
    where = np.asarray(index)
    for array, what in ((starts, "offsets"), (where, "index")):
        if array.dtype.kind not in "iu":
            raise TypeError(f"{what} must be integers, got dtype {array.dtype}")
        if array.size and array.min() < 0:
            raise ValueError(f"{what} must be non-negative")
    if where.size and where.max() >= 2**32:
        raise ValueError("a feature index must be below 2^32")
    y = _real_array(labels, "labels", kind)
    if y.ndim != 1 or y.size == 0:
        raise ValueError(f"labels must be 1-D with n >= 1 entries, got shape {y.shape}")
    return (_core.user_gradient_sparse_f64 if kind is np.float64 else _core.user_gradient_sparse_f32)(
        broadcast,
        np.ascontiguousarray(starts, dtype=np.uint64),
        np.ascontiguousarray(where, dtype=np.uint32),
        _real_array(values, "values", kind),
        y,
        m,
        f,
        radius,
        named,
    )


def _device_type(dtype: Any) -> Any:
    kind = np.dtype(dtype).type
    if kind not in (np.float64, np.float32):
        raise ValueError(f"dtype must be np.float64 or np.float32 (the device's arithmetic), got {dtype!r}")
    return kind


def clip_and_quantize(g: Any, *, frac_bits: int, radius_fixed: int) -> np.ndarray:
    """The contribution's bounding step alone (device::clip_and_quantize<double>): the averaged
    gradient ``g`` clipped to L 2^-f in L2, scaled by 2^f, rounded to nearest (halves away from
    zero) and clipped again in integers; int64, squared sum at most L^2."""
    values = _real_array(g, "g").reshape(-1)
    return _core.clip_and_quantize(
        values, _check_uint(frac_bits, "frac_bits", 0, 63), _check_uint(radius_fixed, "radius_fixed", 1, 2**63)
    )


def _check_delta(delta: Any) -> float:
    d = _check_real(delta, "delta")
    if not 0 < d < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    return d


def _check_positive(value: Any, what: str) -> float:
    v = _check_real(value, what)
    if not v > 0 or math.isinf(v):
        raise ValueError(f"{what} must be a finite real > 0, got {value}")
    return v


def discrete_gaussian_rho(sensitivity: float, sigma2: float, steps: int = 1) -> float:
    """rho (zero-concentrated DP) of ``steps`` releases of the discrete Gaussian N_Z(0, sigma2) at L2
    sensitivity ``sensitivity`` in grid units: steps Delta^2 / (2 sigma2) (docs/mechanisms.md I.1
    "The accountant"; CKS 2020 Theorem 14, composition by Bun-Steinke Lemma 2.3)."""
    s = _check_real(sensitivity, "sensitivity")
    if s < 0:
        raise ValueError(f"sensitivity must be >= 0, got {sensitivity}")
    return _core.discrete_gaussian_rho(s, _check_positive(sigma2, "sigma2"), _check_uint(steps, "steps"))


def zcdp_to_epsilon(rho: float, delta: float, *, conversion: str = "tight") -> float:
    """The epsilon at which rho-zCDP gives (epsilon, delta)-DP: ``conversion="tight"`` is the
    accountant's (CKS 2020 Corollary 13, minimized over the Renyi order), ``"simple"`` is
    rho + 2 sqrt(rho ln(1/delta)) (Bun-Steinke Proposition 1.3), never below the tight one."""
    r = _check_real(rho, "rho")
    if not r >= 0 or math.isinf(r):
        raise ValueError(f"rho must be a finite real >= 0, got {rho}")
    d = _check_delta(delta)
    if conversion == "tight":
        return _core.zcdp_to_epsilon(r, d)
    if conversion == "simple":
        return _core.zcdp_to_epsilon_simple(r, d)
    raise ValueError(f"conversion must be 'tight' or 'simple', got {conversion!r}")


def _sigma2_found(sigma2: int, epsilon: float, delta: float, steps: int) -> int:
    if sigma2 == 0:
        raise ValueError(
            f"no sigma2 in [1, 2^52] lets {steps} steps spend at most epsilon {epsilon} at delta {delta}"
        )
    return sigma2


def discrete_gaussian_sigma2_for(epsilon: float, delta: float, steps: int, sensitivity: float) -> int:
    """The smallest integer sigma2 in [1, 2^52] whose ``steps`` releases at L2 ``sensitivity`` (grid
    units) spend at most (``epsilon``, ``delta``) by the tight conversion
    (server::discrete_gaussian_sigma2_for). ValueError when none does."""
    e = _check_positive(epsilon, "epsilon")
    d = _check_delta(delta)
    t = _check_uint(steps, "steps", 1)
    return _sigma2_found(
        _core.discrete_gaussian_sigma2_for(e, d, t, _check_positive(sensitivity, "sensitivity")), e, d, t
    )


def dp_sgd_clip_units(clip: float, frac_bits: int = 16) -> int:
    """DP-SGD's clip radius on the grid, C = floor(G 2^frac_bits) (server::dp_sgd_clip_units); each
    step's L2 sensitivity is 2 C (docs/mechanisms.md I.1)."""
    return _core.dp_sgd_clip_units(_check_positive(clip, "clip"), _check_uint(frac_bits, "frac_bits", 0, 41))


def dp_sgd_sigma2_for(epsilon: float, delta: float, steps: int, clip: float, frac_bits: int = 16) -> int:
    """The noise of ``ldp train --method dp-sgd`` (server::dp_sgd_sigma2_for): the smallest sigma2 for
    which ``steps`` steps at clip G = ``clip`` on the grid 2^-``frac_bits`` spend at most
    (``epsilon``, ``delta``). ValueError when none does."""
    e = _check_positive(epsilon, "epsilon")
    d = _check_delta(delta)
    t = _check_uint(steps, "steps", 1)
    sigma2 = _core.dp_sgd_sigma2_for(
        e, d, t, _check_positive(clip, "clip"), _check_uint(frac_bits, "frac_bits", 0, 41)
    )
    return _sigma2_found(sigma2, e, d, t)


# train()'s keyword options: the tool's options run_train takes (the binding's one table), "_" for
# "-" (test_fraction: --test-fraction).
_TRAIN_OPTIONS = tuple(name[2:].replace("-", "_") for name in _core.train_option_names())


def _column_text(value: Any, what: str) -> str:
    """A column named by its header name (str) or its 1-based number (int), as the tool takes it."""
    if isinstance(value, str):
        return value
    if _is_int(value):
        return str(int(value))
    raise TypeError(f"{what} must be a column name (str) or a 1-based column number (int), got {type(value).__name__}")


def _table(frame: pd.DataFrame) -> Tuple[List[str], List[np.ndarray]]:
    """A DataFrame as the tool's in-memory table: the column names as text, each column float64."""
    names, columns = [], []
    for name, column in frame.items():
        if column.dtype.kind not in "biuf":
            raise TypeError(
                f"column {name!r} has dtype {column.dtype}: the table holds numbers only (select the numeric columns)"
            )
        names.append(str(name))
        columns.append(np.ascontiguousarray(column.to_numpy(dtype=np.float64, na_value=np.nan)))
    return names, columns


def train(
    method: str,
    *,
    model: Optional[str] = None,
    loss: Optional[str] = None,
    data: Union[str, "os.PathLike[str]", pd.DataFrame],
    label: Union[str, int],
    seed: int,
    features: Union[None, str, Sequence[Union[str, int]]] = None,
    plot: Union[None, str, "os.PathLike[str]"] = None,
    progress: Optional[Callable[[int, int, float], None]] = None,
    **options: Any,
) -> Dict[str, Any]:
    """Trains as ``ldp train --method METHOD --format json ...`` does, in this process, and returns
    its JSON document as a dict with the same keys in the same order (docs/cli.md "ldp train").

    Exactly one of ``model`` (``"linear"``, ``"logistic"``, ``"softmax"``: chapter I's private
    training, docs/mechanisms.md I) and ``loss`` (``"squared"``, ``"logistic"``, ``"hinge"``: issue 14's
    learners on [0, 1]^p, H.7). ``data`` is a CSV file (a path; ``"csv:PATH"`` is taken too) or a
    pandas DataFrame of numeric columns, which the tool reads as it reads a CSV with that header (no
    file is written). ``label`` and ``features`` name columns by header name or 1-based number
    (``features``: a list, or "a,b,c").

    The other options are the tool's, ``_`` for ``-``: ``dim``, ``intercept`` (bool), ``positive``,
    ``test_fraction``, ``samples_per_user``, ``users``, ``user_column``, ``epsilon``, ``delta``,
    ``steps``, ``lr``, ``clip``, ``l2``, ``phases``, ``radius``, ``sparsity``, ``sgd_mechanism``, ``grid``, ``order``,
    ``strings``, ``degree``; None (the default) leaves one out, so the tool's default applies. A
    method refuses the options its row does not take, as the tool does. ``plot``: write the
    training-loss curve there (SVG, ``--plot``). ``progress(step, steps, loss)`` is called as training
    proceeds (an exception it raises is raised once the run ends).

    Bad arguments raise ValueError with the tool's message (TypeError for a value of the wrong
    type); a library refusal raises :class:`ldpkit.Error`. The GIL is released while training.
    """
    unknown = sorted(set(options) - set(_TRAIN_OPTIONS))
    if unknown:
        raise TypeError(f"train() got unexpected keyword arguments {unknown} (options: {', '.join(_TRAIN_OPTIONS)})")
    for name, value in (("method", method), ("model", model), ("loss", loss)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    if progress is not None and not callable(progress):
        raise TypeError("progress must be callable or None")
    given: Dict[str, Any] = {"label": _column_text(label, "label"), "seed": seed, **options}
    if features is not None:
        listed = features.split(",") if isinstance(features, str) else list(features)
        given["features"] = [_column_text(f, "a feature") for f in listed]
    if "positive" in given and given["positive"] is not None and not isinstance(given["positive"], str):
        if not _is_real(given["positive"]):
            raise TypeError(f"positive must be a label value (a number or its text), got {given['positive']!r}")
        given["positive"] = str(given["positive"]) if _is_int(given["positive"]) else repr(float(given["positive"]))
    cli = {"--" + name.replace("_", "-"): given[name] for name in _TRAIN_OPTIONS if given.get(name) is not None}
    names: Optional[List[str]] = None
    columns: List[np.ndarray] = []
    if isinstance(data, pd.DataFrame):
        names, columns = _table(data)
        where = ""
    elif isinstance(data, (str, os.PathLike)):
        where = os.fspath(data)
        where = where if where.startswith("csv:") else "csv:" + where
    else:
        raise TypeError(f"data must be a path or a pandas DataFrame, got {type(data).__name__}")
    text = _core.run_train(
        method,
        loss or "",
        model or "",
        where,
        names,
        columns,
        cli,
        "" if plot is None else os.fspath(plot),
        progress,
    )
    return json.loads(text)
