"""Lookup keys for CPU and server-model names as they appear in the wild.

A CPU is written many ways: ``Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz`` (the
CPUID brand string, as RVTools and ``/proc/cpuinfo`` show it), ``Intel Xeon
Gold 5218`` (SPEC's spelling), ``Xeon Gold 5218``. Server models likewise:
``PowerEdge R640``, ``Dell PowerEdge R640``, ``Dell Inc. PowerEdge R640``.
:func:`cpu_keys` and :func:`model_keys` reduce a name to the keys it is
indexed and looked up under; two names are the same when a key is shared.
"""

from __future__ import annotations

import re

_TRADEMARKS = re.compile(r"\((?:r|tm|c)\)|®|™", re.IGNORECASE)
_AT_CLOCK = re.compile(r"@\s*\d+(?:\.\d+)?\s*[gm]hz", re.IGNORECASE)
_N_CORE = re.compile(r"\b\d+-core\s+processor\b")
_NOISE_WORDS = re.compile(r"\b(?:cpu|processor|processors)\b")
_CLOCK = re.compile(r"(\d+(?:\.\d+)?)\s*ghz\b")
_VERSION = re.compile(r"(\d)\s*v(\d)\b")
_ZERO_TOKEN = re.compile(r"(?<=\s)0(?=\s|$)")  # 'E5-2620 0 @ 2.00GHz' (Sandy Bridge)
_SPACES = re.compile(r"\s+")

#: Characters of a CPU name looked at (real names are under 100).
MAX_CPU_NAME_CHARS = 200
_CPU_VENDORS = ("intel ", "amd ")


def _clock(match: re.Match[str]) -> str:
    return f"{float(match.group(1)):g}ghz"


def cpu_key(name: str) -> str:
    """Canonical key of a CPU name.

    Parameters
    ----------
    name : str
        CPU name as written, e.g. ``Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz``.

    Returns
    -------
    str
        Casefolded name without trademarks, the words ``CPU``/``Processor``,
        the ``@ clock`` suffix, AMD's ``N-Core Processor`` suffix and Intel's
        ``0`` stepping token; ``3.0 GHz`` is written ``3ghz``; ``v4`` is
        separated from the model number. ``'intel xeon gold 5218'``.
    """
    # No CPU name is longer; the patterns below are quadratic on long digit runs.
    text = _TRADEMARKS.sub(" ", str(name)[:MAX_CPU_NAME_CHARS])
    text = _AT_CLOCK.sub(" ", text).casefold()
    text = _N_CORE.sub(" ", text)
    text = _NOISE_WORDS.sub(" ", text)
    text = text.replace(",", " ")
    text = _CLOCK.sub(_clock, text)
    text = _VERSION.sub(r"\1 v\2", text)
    text = _SPACES.sub(" ", text).strip()
    text = _ZERO_TOKEN.sub("", text)
    return _SPACES.sub(" ", text).strip()


def cpu_keys(name: str) -> tuple[str, ...]:
    """Keys a CPU name is indexed under: the key, and the key without vendor.

    ``Intel Xeon Gold 5218`` is found as ``Xeon Gold 5218`` too.
    """
    key = cpu_key(name)
    for vendor in _CPU_VENDORS:
        if key.startswith(vendor) and len(key) > len(vendor):
            return (key, key[len(vendor) :])
    return (key,)


#: Words dropped from server-model names: vendors, legal suffixes and product
#: family names (an inventory says 'DL360 G6' as often as 'HP ProLiant DL360 G6').
_MODEL_NOISE = frozenset(
    [
        "dell",
        "inc",
        "inc.",
        "emc",
        "hp",
        "hpe",
        "hewlett-packard",
        "hewlett",
        "packard",
        "enterprise",
        "company",
        "ibm",
        "lenovo",
        "fujitsu",
        "siemens",
        "computers",
        "computer",
        "supermicro",
        "super",
        "micro",
        "acer",
        "incorporated",
        "nec",
        "corporation",
        "corp",
        "corp.",
        "co.",
        "ltd",
        "ltd.",
        "huawei",
        "technologies",
        "server",
        "system",
        "proliant",
        "poweredge",
        "primergy",
        "thinksystem",
        "express5800",
        "altos",
        "the",
    ]
)
_PARENS = re.compile(r"\([^)]*\)")
_MODEL_PUNCT = re.compile(r"[,;/_]")


def model_key(name: str) -> str:
    """Canonical key of a server model name.

    Parameters
    ----------
    name : str
        Model name, e.g. ``PowerEdge R740 (Intel Xeon Platinum 8280, 2.70 GHz)``.

    Returns
    -------
    str
        Casefolded, parenthesised text removed, vendor and product-family
        words dropped: ``'r740'``. ``'ProLiant DL360 G6'`` gives ``'dl360 g6'``.
    """
    text = _PARENS.sub(" ", str(name)).casefold()
    text = _MODEL_PUNCT.sub(" ", text)
    tokens = [t for t in text.split() if t not in _MODEL_NOISE]
    if not tokens:  # a name made only of noise words: keep it whole
        tokens = text.split()
    return " ".join(tokens)
