"""Type stubs of ldpkit._core, the compiled module over the ldp tool's library (issue 13).

The public API is the package ``ldpkit``; these are its building blocks.
"""

from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

Buffer = Union[bytes, bytearray, memoryview, npt.NDArray[Any]]

class Error(Exception):
    """An ldpkit operation failed: .status is the library's status name, .code its number."""

    status: str
    code: int

class Params:
    """A parameter block (docs/wire_format.md section 3); immutable, hashable, picklable."""

    @property
    def mechanism(self) -> str: ...
    @property
    def wire_mechanism(self) -> str: ...
    @property
    def epsilon_implemented(self) -> float: ...
    @property
    def fingerprint(self) -> int: ...
    @property
    def fields(self) -> Dict[str, Union[int, str]]: ...
    def to_bytes(self) -> bytes: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Randomizer:
    """The devices of one parameter block, run by the tool's fleet."""

    def __init__(self, params: Params, seed: int, threads: int = 1) -> None: ...
    def randomize(self, values: npt.NDArray[Any]) -> bytes: ...
    def randomize_strings(self, strings: List[bytes]) -> bytes: ...
    @property
    def params(self) -> Params: ...
    @property
    def seed(self) -> int: ...
    @property
    def calls(self) -> int: ...

class ReleaseRequest:
    """The options of a central-DP release (central_release.h)."""

    epsilon: float
    delta: float
    seed: int
    queries: int
    budget: str
    users: int
    def __init__(self) -> None: ...

EstimateColumns = Tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    str,
]

StringColumns = Tuple[
    List[bytes],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    str,
]

class Aggregator:
    """The server's exact, mergeable state of one parameter block."""

    def __init__(self, params: Params, max_state_bytes: int, windows: Optional[Buffer] = None) -> None: ...
    @staticmethod
    def deserialize(data: Buffer, max_state_bytes: int) -> "Aggregator": ...
    @staticmethod
    def load(path: str, max_state_bytes: int) -> "Aggregator": ...
    def add_batch(self, data: Buffer) -> None: ...
    def add_report(self, data: Buffer) -> bool: ...
    def add_file(self, path: str) -> None: ...
    def merge(self, other: "Aggregator") -> None: ...
    def serialize(self) -> bytes: ...
    def save(self, path: str) -> None: ...
    def estimate(self, confidence: float) -> EstimateColumns: ...
    def release(self, request: ReleaseRequest, confidence: float) -> EstimateColumns: ...
    def discover(self, k: int, keep: int, alphabet: bytes, confidence: float) -> StringColumns: ...
    def estimate_strings(self, strings: List[bytes], confidence: float) -> StringColumns: ...
    @property
    def params(self) -> Params: ...
    @property
    def reports(self) -> int: ...
    @property
    def rejected(self) -> Dict[str, int]: ...
    @property
    def damaged_chunks(self) -> int: ...
    @property
    def max_state_bytes(self) -> int: ...

def status_names() -> Dict[int, str]: ...
def set_thread_limit(threads: int) -> None:
    """The server's threads for one call (0: the CPUs the process may run on; 1: the caller's only)."""
def thread_limit() -> int:
    """The server's thread count in effect (at least 1)."""
def params_from_bytes(data: Buffer) -> Params: ...
def batch_params_from_bytes(data: Buffer) -> Params: ...
def batch_params_from_file(path: str) -> Params: ...
def make_params(mechanism: str, epsilon: float, options: Mapping[str, str]) -> Params: ...
def mechanism_table() -> List[Dict[str, Any]]: ...
def recommend(
    domain: int, epsilon: float, devices: int
) -> List[Tuple[str, str, int, int, float, float, int, float]]: ...
def call_seed_of(seed: int, call: int) -> int: ...
def run_protocol(
    mechanism: str,
    epsilon: float,
    options: Mapping[str, str],
    values: npt.NDArray[np.float64],
    seed: int,
    files: Mapping[str, str],
    threads: int = 1,
) -> None: ...
def indexed_path(path: str, tag: str, index: int) -> str: ...

# Private training (src/training.cpp; ldpkit._training wraps these with the argument checks).
def encode_model_broadcast(
    model: str, features: int, classes: int, round: int, theta: npt.NDArray[np.float64], weight_format: str
) -> bytes: ...
def peek_model_broadcast(data: Buffer) -> Dict[str, Union[int, str]]: ...
def decode_model_broadcast(data: Buffer) -> Tuple[Dict[str, Union[int, str]], npt.NDArray[np.float64]]: ...
def model_broadcast_digest(data: Buffer) -> int: ...
def user_gradient_f64(
    broadcast: Buffer,
    features: npt.NDArray[np.float64],
    labels: npt.NDArray[np.float64],
    max_samples: int,
    frac_bits: int,
    radius_fixed: int,
    digest: int,
) -> npt.NDArray[np.int64]: ...
def user_gradient_f32(
    broadcast: Buffer,
    features: npt.NDArray[np.float32],
    labels: npt.NDArray[np.float32],
    max_samples: int,
    frac_bits: int,
    radius_fixed: int,
    digest: int,
) -> npt.NDArray[np.int64]: ...
def user_gradient_sparse_f64(
    broadcast: Buffer,
    offsets: npt.NDArray[np.uint64],
    index: npt.NDArray[np.uint32],
    values: npt.NDArray[np.float64],
    labels: npt.NDArray[np.float64],
    max_samples: int,
    frac_bits: int,
    radius_fixed: int,
    digest: int,
) -> npt.NDArray[np.int64]: ...
def user_gradient_sparse_f32(
    broadcast: Buffer,
    offsets: npt.NDArray[np.uint64],
    index: npt.NDArray[np.uint32],
    values: npt.NDArray[np.float32],
    labels: npt.NDArray[np.float32],
    max_samples: int,
    frac_bits: int,
    radius_fixed: int,
    digest: int,
) -> npt.NDArray[np.int64]: ...
def clip_and_quantize(g: npt.NDArray[np.float64], frac_bits: int, radius_fixed: int) -> npt.NDArray[np.int64]: ...
def discrete_gaussian_rho(sensitivity: float, sigma2: float, steps: int) -> float: ...
def zcdp_to_epsilon(rho: float, delta: float) -> float: ...
def zcdp_to_epsilon_simple(rho: float, delta: float) -> float: ...
def discrete_gaussian_sigma2_for(epsilon: float, delta: float, steps: int, sensitivity: float) -> int: ...
def dp_sgd_sigma2_for(epsilon: float, delta: float, steps: int, clip: float, frac_bits: int) -> int: ...
def dp_sgd_clip_units(clip: float, frac_bits: int) -> int: ...

discrete_gaussian_max_sigma2: int
def run_train(
    method: str,
    loss: str,
    model: str,
    data: str,
    names: Optional[List[str]],
    columns: List[npt.NDArray[np.float64]],
    options: Mapping[str, Any],
    plot: str,
    progress: Optional[Any],
) -> str: ...
