"""Which plotly.js bundle a report embeds: the smallest that draws its charts.

plotly.js is published in partial bundles besides the full one (the npm
packages ``plotly.js-basic-dist-min`` and ``plotly.js-cartesian-dist-min``,
MIT licence, https://github.com/plotly/plotly.js/blob/master/dist/README.md
"Partial bundles"). vsizer ships two of them, version 4.1.1, unmodified,
in ``vsizer/data/js/`` with their licence (``LICENSE-plotly.js.txt``):

* ``basic`` (1.2 MB): scatter, bar and pie traces -- every chart of a plan
  report sized on peak/average figures;
* ``cartesian`` (1.5 MB): adds heatmap, box, histogram, contour, violin and
  image traces -- the host x time heatmaps of a plan with curves.

Any other trace type falls back to the full bundle of the installed ``plotly``
Python package (4.8 MB). The full bundle made every report about 4.9 MB and
slow to open; the basic one keeps the demo report near 1.3 MB.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Any

from vsizer.errors import ConfigError

__all__ = ["BUNDLE_TRACES", "bundle_for", "plotly_js"]

#: Trace types each shipped partial bundle can draw (plotly.js dist/README.md).
BUNDLE_TRACES: dict[str, frozenset[str]] = {
    "basic": frozenset({"scatter", "bar", "pie"}),
    "cartesian": frozenset({
        "scatter", "bar", "pie", "box", "heatmap", "histogram", "histogram2d",
        "histogram2dcontour", "contour", "image", "violin", "scatterternary",
    }),
}


def bundle_for(figures: Iterable[Mapping[str, Any]]) -> str:
    """``"basic"``, ``"cartesian"`` or ``"full"``: the smallest bundle for ``figures``.

    A trace without ``type`` is a scatter trace (plotly.js default).
    """
    used = {
        str(trace.get("type", "scatter"))
        for fig in figures
        for trace in (fig.get("data") or [])
        if isinstance(trace, Mapping)
    }
    for name, traces in BUNDLE_TRACES.items():
        if used <= traces:
            return name
    return "full"


@functools.cache
def plotly_js(kind: str = "full") -> str:
    """The minified plotly.js of bundle ``kind``, safe inside a ``<script>`` element.

    Raises
    ------
    vsizer.errors.ConfigError
        ``kind`` is ``"full"`` and the ``plotly`` package is not installed.
    """
    if kind in BUNDLE_TRACES:
        ref = resources.files("vsizer") / "data" / "js" / f"plotly-{kind}.min.js"
        text = ref.read_text(encoding="utf-8")
    else:
        try:
            from plotly.offline import get_plotlyjs
        except ImportError:
            raise ConfigError(
                "the HTML report needs the 'plotly' package for its charts: "
                "pip install 'vsizer[report]'."
            ) from None
        text = str(get_plotlyjs())
    # the library is embedded in a <script> element: keep it from closing it
    return text.replace("</script", "<\\/script")
