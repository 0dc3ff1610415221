"""ggpzoo: PettingZoo environments for two-player General Game Playing board games.

Importing the package registers every environment with PettingZoo's registry::

    import ggpzoo, pettingzoo
    env = pettingzoo.make("aec", "ggpzoo/amazons-v0")
"""

import pettingzoo as _pz

from ggpzoo.envs import ENVS, registry_id

__version__ = "0.3.0"
__all__ = ["ENVS", "registry_id", "__version__"]

for _name, _module in ENVS.items():
    _pz.register("aec", registry_id(_name), entry_point=f"{_module}:env")
