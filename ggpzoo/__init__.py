"""ggpzoo: PettingZoo environments for two-player General Game Playing board games.

Every environment is a PettingZoo-classic module (``from ggpzoo.envs import amazons_v0``,
then ``amazons_v0.env()``), with any PettingZoo from 1.24 on. Where the installed PettingZoo
has a registry (``pettingzoo.register``, from 1.27 on), importing the package also registers
every environment there::

    import ggpzoo, pettingzoo
    env = pettingzoo.make("aec", "ggpzoo/amazons-v0")

``REGISTERED`` says whether it did.
"""

import os as _os

# OpenMP's worker threads (numba's prange loops, torch's intra-op pool) spin while they wait
# for work, by default for about 300,000 rounds. When other processes keep the cores busy,
# the spinning threads take the cores from the threads with work, and every parallel loop
# waits for its slowest thread: the batched engine fell to a third of its speed with three
# busy processes beside it. A short spin (GNU OpenMP's GOMP_SPINCOUNT, 1,000 rounds, then
# sleep) keeps nearly all of the idle speed and holds up on a busy machine. Set
# OMP_WAIT_POLICY or GOMP_SPINCOUNT yourself, before importing ggpzoo or torch, to choose
# otherwise (the batched-engine guide has the figures).
if "OMP_WAIT_POLICY" not in _os.environ:
    _os.environ.setdefault("GOMP_SPINCOUNT", "1000")

import pettingzoo as _pz  # noqa: E402

from ggpzoo.envs import ENVS, registry_id  # noqa: E402

__version__ = "0.7.0"
__all__ = ["ENVS", "REGISTERED", "registry_id", "__version__"]

# PettingZoo's registry is new in 1.27; older releases have the classic modules only.
REGISTERED = hasattr(_pz, "register")
if REGISTERED:
    for _name, _module in ENVS.items():
        _pz.register("aec", registry_id(_name), entry_point=f"{_module}:env")
