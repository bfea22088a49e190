"""ldpkit: local differential privacy for analysts (issue 13; docs/python.md is the whole API).

The package runs the code of the ``ldp`` command-line tool through a compiled module (``ldpkit._core``):

* :func:`params` builds a parameter block exactly as ``ldp simulate`` does; :class:`Params` is that block;
* :class:`Randomizer` runs the simulated devices (a batch byte-identical to ``ldp simulate --seed S``);
* :class:`Aggregator` counts batches into the server's exact, mergeable state (``ldp aggregate``) and
  gives ``ldp estimate``'s estimates as an :class:`Estimates` frame;
* :func:`simulate_protocol` runs the multi-round user-level protocols (kent, winsorized-mean) as
  ``ldp simulate`` runs them;
* :class:`Error` is what the library refuses, with its status name.
"""

from ldpkit._core import Error, Params, params_from_bytes
from ldpkit._aggregator import Aggregator
from ldpkit._estimates import Estimates
from ldpkit._params import MECHANISMS, batch_params, mechanisms, params
from ldpkit._protocols import ProtocolRun, simulate_protocol
from ldpkit._randomizer import Randomizer

__version__ = "0.1.0"

__all__ = [
    "Aggregator",
    "Error",
    "Estimates",
    "MECHANISMS",
    "Params",
    "ProtocolRun",
    "Randomizer",
    "batch_params",
    "mechanisms",
    "params",
    "params_from_bytes",
    "simulate_protocol",
]
