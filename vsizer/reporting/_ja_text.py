"""Japanese text of the plan's English sentences (issue 27: ``--lang ja``
throughout): the count reason of each pool, the target descriptions and the
right-sizing reasons. The count reason is rebuilt from its structured fields
(``pools[].count_reason``: binding, by_constraint, by_dimension, relaxed);
targets from their name and value; right-sizing reasons by pattern. English
reports keep the plan's own text, unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["count_reason_ja", "is_ja", "rightsize_reason", "target_text"]

Label = Callable[..., str]

_DIM = {"cpu": "CPU", "mem": "メモリ", "vcpu": "vCPU", "disk_iops": "ディスクIOPS",
        "disk_mb_s": "ディスク転送量", "net_mbps": "ネットワーク"}

_RELAXED = {
    "vcpu_per_core": "vCPU/コア比の上限がなければ",
    "failover": "障害想定 0 台なら",
    "min_hosts": "最小ホスト数 1 なら",
    "anti_affinity": "アンチアフィニティがなければ",
    "pinning": "ホスト固定がなければ",
}

_TARGETS = {
    "host_ratio": "ホスト数 / サーバー数 が {t} 以下",
    "rack_ratio": "統合後 / 統合前 のラック使用量が {t} 以下",
    "power_ratio": "統合後 / 統合前 の消費電力が {t} 以下",
    "consolidation_ratio": "ホスト1台あたりのサーバー数が {t} 以上",
}

_REASONS = (
    (re.compile(r"CPU peak (\S+) of (\d+) vCPUs = (\S+) cores; x (\S+) -> (\d+) vCPUs"),
     r"CPU ピーク \1 (\2 vCPU 中) = \3 コア、×\4 → \5 vCPU"),
    (re.compile(r"memory in use (\S+) GiB of (\S+); x (\S+) -> (\S+) GiB"),
     r"使用メモリ \1 GiB (\2 GiB 中)、×\3 → \4 GiB"),
)


def is_ja(t: Label) -> bool:
    """Whether the label function ``t`` speaks Japanese."""
    return t("lang_code") == "ja"


def _because(binding: str, cr: Mapping[str, Any], pool: Mapping[str, Any]) -> str:
    by, dims = cr.get("by_constraint") or {}, cr.get("by_dimension") or {}
    k = pool.get("failures")
    texts = {
        "min_hosts": f"最小ホスト数 = {pool.get('min_hosts')}",
        "failover": f"障害想定 {k} 台 (N+{k})",
        "anti_affinity": f"アンチアフィニティ (1 グループに {by.get('anti_affinity')} 台必要)",
        "pinning": f"ホスト固定 (VM がホスト {by.get('pinning')} に固定)",
        "vcpu_per_core": f"vCPU/コア比の上限 (vCPU だけで {dims.get('vcpu')} 台必要)",
        "placement": "複数ルールの組合せ (どのルールを緩めても台数が減らない)",
    }
    if binding in texts:
        return texts[binding]
    top = max(dims, key=lambda d: dims[d]) if dims else ""
    return f"需要 ({_DIM.get(top, top)})" if top else "需要"


def count_reason_ja(pool: Mapping[str, Any]) -> str | None:
    """The pool's count reason in Japanese, or None without a structured one."""
    cr = pool.get("count_reason")
    if not isinstance(cr, Mapping) or not cr.get("binding"):
        return None
    by = cr.get("by_constraint") or {}
    parts = [f"{pool.get('host_count')} 台: {_because(str(cr['binding']), cr, pool)} のため",
             f"需要だけなら {by.get('demand')} 台"]
    for rule, n in (cr.get("relaxed") or {}).items():
        got = "配置不可" if n is None else f"{n} 台"
        parts.append(f"{_RELAXED.get(rule, rule)} {got}")
    return "、".join(parts)


def target_text(tg: Mapping[str, Any], t: Label) -> Any:
    """A target's description in the report's language."""
    name, value = tg.get("name"), tg.get("target")
    if is_ja(t) and name in _TARGETS and isinstance(value, (int, float)):
        return _TARGETS[str(name)].format(t=f"{value:g}")
    return tg.get("description")


def rightsize_reason(text: Any, t: Label) -> Any:
    """A right-sizing reason in the report's language."""
    if not is_ja(t) or not isinstance(text, str):
        return text
    for pattern, repl in _REASONS:
        text = pattern.sub(repl, text)
    return text
