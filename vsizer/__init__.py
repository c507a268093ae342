"""vsizer: design a virtualized server environment from an existing fleet.

The library mirrors the CLI::

    import vsizer
    inv = vsizer.read_inventory("servers.xlsx")
    plan = vsizer.plan(inv, "Dell PowerEdge R740 2x Platinum 8180", ceiling=0.6, failures=1)
    plan.to_json()            # the document `vsizer plan -o plan.json` writes
    plan.economics.after_w    # power, energy, cost, space, targets as values
    vsizer.plan(inv, predict=True).to_json()   # = `vsizer plan --predict -o plan.json`
    plan.hosts, plan.placement, plan.pools_frame, plan.warnings_frame   # DataFrames
    plan.write("report.html")   # or .xlsx / .json; in Jupyter `plan` shows its summary
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vsizer._lazy import lazy_getattr
from vsizer._version import __version__
from vsizer.errors import (  # noqa: E402
    CatalogError,
    CatalogLookupError,
    ConfigError,
    InfeasiblePlacementError,
    InputError,
    InventoryError,
    VsizerError,
)

if TYPE_CHECKING:
    from vsizer.inventory import Inventory, read_inventory
    from vsizer.reporting.notebook import plan
    from vsizer.study import ConsolidationPlan, ConsolidationStudy
    from vsizer.study.config import Rules, load_rules

#: Public names loaded on first use (:mod:`vsizer._lazy`): ``vsizer --help``
#: does not pay for pandas and the study.
__getattr__ = lazy_getattr(__name__, {
    "Inventory": "vsizer.inventory",
    "read_inventory": "vsizer.inventory",
    "ConsolidationPlan": "vsizer.study",
    "ConsolidationStudy": "vsizer.study",
    "plan": "vsizer.reporting.notebook",  # the study's plan, shown in notebooks
    "Rules": "vsizer.study.config",
    "load_rules": "vsizer.study.config",
})

__all__ = [
    "CatalogError",
    "CatalogLookupError",
    "ConfigError",
    "ConsolidationPlan",
    "ConsolidationStudy",
    "InfeasiblePlacementError",
    "InputError",
    "Inventory",
    "InventoryError",
    "Rules",
    "VsizerError",
    "__version__",
    "load_rules",
    "plan",
    "read_inventory",
]
