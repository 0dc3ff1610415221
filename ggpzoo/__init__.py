"""ggpzoo: PettingZoo environments for two-player General Game Playing board games.

Every environment is a PettingZoo-classic module (``from ggpzoo.envs import amazons_v0``,
then ``amazons_v0.env()``), with any PettingZoo from 1.24 on. Where the installed PettingZoo
has a registry (``pettingzoo.register``, from 1.27 on), importing the package also registers
every environment there::

    import ggpzoo, pettingzoo
    env = pettingzoo.make("aec", "ggpzoo/amazons-v0")

``REGISTERED`` says whether it did.
"""

import pettingzoo as _pz

from ggpzoo.envs import ENVS, registry_id

__version__ = "0.7.0"
__all__ = ["ENVS", "REGISTERED", "registry_id", "__version__"]

# PettingZoo's registry is new in 1.27; older releases have the classic modules only.
REGISTERED = hasattr(_pz, "register")
if REGISTERED:
    for _name, _module in ENVS.items():
        _pz.register("aec", registry_id(_name), entry_point=f"{_module}:env")
