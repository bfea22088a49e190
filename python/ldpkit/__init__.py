"""ldpkit: local differential privacy for analysts (issue 13; docs/python.md is the whole API).

The package runs the code of the ``ldp`` command-line tool through a compiled module (``ldpkit._core``):

* :func:`params` builds a parameter block exactly as ``ldp simulate`` does; :class:`Params` is that block;
* :class:`Randomizer` runs the simulated devices (a batch byte-identical to ``ldp simulate --seed S``),
  over a numpy array or, for the string-discovery blocks pem, treehist and sfp, a sequence of strings;
* :class:`Aggregator` counts batches into the server's exact, mergeable state (``ldp aggregate``) and
  gives ``ldp estimate``'s estimates as an :class:`Estimates` frame (string states: ``discover(k)``
  and ``estimate_strings(strings)``);
* :func:`simulate_protocol` runs the multi-round user-level protocols (kent, winsorized-mean) as
  ``ldp simulate`` runs them;
* :func:`train` runs ``ldp train`` (private learning, docs/mechanisms.md chapters H and I) and returns its
  JSON document; its building blocks: :func:`encode_model_broadcast` and
  :func:`peek_model_broadcast` (the round's model), :func:`user_gradient` (a device's contribution),
  the discrete Gaussian's accountant (:func:`zcdp_to_epsilon`, :func:`dp_sgd_sigma2_for`, ...);
* :class:`Error` is what the library refuses, with its status name;
* :func:`set_thread_limit` bounds the server's threads for one call (``ldpkit.dask`` sets 1 in its tasks).
"""

from ldpkit._core import Error, Params, params_from_bytes, set_thread_limit, thread_limit
from ldpkit._aggregator import Aggregator
from ldpkit._estimates import Estimates
from ldpkit._params import MECHANISMS, batch_params, mechanisms, params
from ldpkit._protocols import ProtocolRun, simulate_protocol
from ldpkit._randomizer import Randomizer
from ldpkit._training import (
    ModelHeader,
    clip_and_quantize,
    decode_model_broadcast,
    discrete_gaussian_rho,
    discrete_gaussian_sigma2_for,
    dp_sgd_clip_units,
    dp_sgd_sigma2_for,
    encode_model_broadcast,
    model_broadcast_digest,
    peek_model_broadcast,
    train,
    user_gradient,
    user_gradient_sparse,
    zcdp_to_epsilon,
)

__version__ = "0.1.0"

__all__ = [
    "Aggregator",
    "Error",
    "Estimates",
    "MECHANISMS",
    "ModelHeader",
    "Params",
    "ProtocolRun",
    "Randomizer",
    "batch_params",
    "clip_and_quantize",
    "decode_model_broadcast",
    "discrete_gaussian_rho",
    "discrete_gaussian_sigma2_for",
    "dp_sgd_clip_units",
    "dp_sgd_sigma2_for",
    "encode_model_broadcast",
    "mechanisms",
    "model_broadcast_digest",
    "params",
    "params_from_bytes",
    "peek_model_broadcast",
    "set_thread_limit",
    "simulate_protocol",
    "thread_limit",
    "train",
    "user_gradient",
    "user_gradient_sparse",
    "zcdp_to_epsilon",
]
