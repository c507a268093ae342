"""The figures of a target-platform comparison, one row each, shared by the
Excel sheet and the HTML report (:mod:`vsizer.study.target_compare`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from vsizer.errors import InputError

__all__ = ["ROWS", "check_targets_doc", "no_price", "row_label", "text"]

Entry = Mapping[str, Any]

#: Shown where a cost needs a price the user did not give.
NO_PRICE = "price not given"


def no_price(value: Any) -> Any:
    return NO_PRICE if value is None else value


def _st(key: str) -> Callable[[Entry], Any]:
    return lambda e: (e.get("storage") or {}).get(key)


def _pred(e: Entry) -> Any:
    p = (e.get("performance") or {}).get("predicted")
    return None if p is None else p.get("mean")


def _bases(e: Entry) -> str:
    by = (e.get("performance") or {}).get("by_resource") or {}
    return ", ".join(f"{r} {v.get('basis')}" for r, v in by.items())


#: (label, getter, kind) per row; kinds: int, dec, pct, money, text, yes.
ROWS: tuple[tuple[str, Callable[[Entry], Any], str], ...] = (
    ("Title", lambda e: e["title"], "text"),
    ("Host model", lambda e: e["host_model"], "text"),
    ("Cores per host", lambda e: e["host_cores"], "int"),
    ("Hosts (workload)", lambda e: e["hosts"], "int"),
    ("Platform hosts (dedicated)", lambda e: e["dedicated_hosts"], "int"),
    ("Hosts in total", lambda e: e["hosts_total"], "int"),
    ("Clusters (max nodes each)", lambda e: e["clusters"], "int"),
    ("Cores licensed", lambda e: e["cores_licensed"], "int"),
    ("Socket licences", lambda e: e["socket_licences"], "int"),
    ("Licence cost per year", lambda e: no_price(e["licence_cost_per_year"]), "money"),
    ("Storage raw [GiB]", _st("raw_gib"), "int"),
    ("Storage usable [GiB]", _st("usable_gib"), "int"),
    ("Storage protection", _st("protection"), "text"),
    ("Reserve per host: memory [GiB]", lambda e: e["reserve"]["per_host_memory_gib"], "dec"),
    ("Reserve per host: CPU [cores]", lambda e: e["reserve"]["per_host_cpu_cores"], "dec"),
    ("Reserve: share of host memory", lambda e: e["reserve"]["memory_share"], "pct"),
    ("Reserve: share of host cores", lambda e: e["reserve"]["cpu_share"], "pct"),
    ("Reserve in total: memory [GiB]", lambda e: e["reserve"]["total_memory_gib"], "int"),
    ("Reserve in total: CPU [cores]", lambda e: e["reserve"]["total_cpu_cores"], "dec"),
    ("Predicted performance (mean, relative)", _pred, "dec"),
    ("Performance overheads: basis", _bases, "text"),
    ("vCPU : core", lambda e: e["vcpu_per_core"], "dec"),
    ("TCO over years", lambda e: no_price(e["tco_total"]), "money"),
    ("Power after [W]", lambda e: e["power_after_w"], "int"),
    ("Survives failover", lambda e: e["survives_failover"], "yes"),
    ("Worst survivor utilization", lambda e: e["worst_survivor_util"], "pct"),
    ("Assumed profile values", lambda e: len(e["assumed"]), "int"),
    ("Warnings", lambda e: e["warnings"], "int"),
)


def check_targets_doc(doc: Any) -> None:
    """``doc`` is a target comparison document (else one line)."""
    if not isinstance(doc, Mapping) or not isinstance(doc.get("targets"), list):
        raise InputError(
            "target comparison: expected the dict of "
            "vsizer.study.target_compare.compare_targets with a 'targets' list "
            "(see docs/targets.md)."
        )


#: Japanese of each row label of :data:`ROWS` (English is the label itself).
ROW_JA: dict[str, str] = {
    "Title": "名称",
    "Host model": "ホスト機種",
    "Cores per host": "ホストあたりコア数",
    "Hosts (workload)": "ホスト数 (ワークロード)",
    "Platform hosts (dedicated)": "基盤専用ホスト数",
    "Hosts in total": "ホスト数合計",
    "Clusters (max nodes each)": "クラスター数 (最大ノード数以内)",
    "Cores licensed": "ライセンス対象コア数",
    "Socket licences": "ソケットライセンス数",
    "Licence cost per year": "年間ライセンス費用",
    "Storage raw [GiB]": "ストレージ物理容量 [GiB]",
    "Storage usable [GiB]": "ストレージ実効容量 [GiB]",
    "Storage protection": "ストレージ保護方式",
    "Reserve per host: memory [GiB]": "ホストあたり予約: メモリ [GiB]",
    "Reserve per host: CPU [cores]": "ホストあたり予約: CPU [コア]",
    "Reserve: share of host memory": "予約: ホストメモリに占める割合",
    "Reserve: share of host cores": "予約: ホストコアに占める割合",
    "Reserve in total: memory [GiB]": "予約合計: メモリ [GiB]",
    "Reserve in total: CPU [cores]": "予約合計: CPU [コア]",
    "Predicted performance (mean, relative)": "予測性能 (平均、相対値)",
    "Performance overheads: basis": "性能オーバーヘッドの根拠",
    "vCPU : core": "vCPU : コア",
    "TCO over years": "期間中の総所有コスト (TCO)",
    "Power after [W]": "統合後の消費電力 [W]",
    "Survives failover": "障害時も収容可能",
    "Worst survivor utilization": "障害時の最大使用率",
    "Assumed profile values": "仮定したプロファイル値",
    "Warnings": "警告",
}

#: The fixed words of the comparison reports, per language.
TEXT: dict[str, dict[str, str]] = {
    "title": {"en": "Target platforms side by side", "ja": "移行先基盤の比較"},
    "targets": {"en": "targets", "ja": "基盤"},
    "recommendation": {"en": "Recommendation", "ja": "推奨"},
    "criterion": {"en": "criterion", "ja": "判断基準"},
    "Criterion": {"en": "Criterion", "ja": "判断基準"},
    "Reason": {"en": "Reason", "ja": "理由"},
    "side_by_side": {"en": "Side by side", "ja": "並べて比較"},
    "figure": {"en": "Figure", "ja": "項目"},
    "chart": {"en": "Hosts and platform reserve", "ja": "ホスト数と基盤の予約"},
    "hosts_total": {"en": "hosts in total", "ja": "ホスト数合計"},
    "reserve_share": {"en": "reserve per host [% of memory]",
                      "ja": "ホストあたり予約 [メモリの %]"},
    "hosts": {"en": "hosts", "ja": "ホスト数"},
    "pct_memory": {"en": "% of host memory", "ja": "ホストメモリの %"},
    "assumed": {"en": "Assumed profile values ({n} warnings)",
                "ja": "仮定したプロファイル値 (警告 {n} 件)"},
    "target": {"en": "Target", "ja": "移行先"},
    "value_reason": {"en": "Value and reason", "ja": "値と理由"},
    "assumed_reason": {"en": "Assumed value and reason", "ja": "仮定値と理由"},
    "sheet": {"en": "Targets", "ja": "移行先比較"},
    "sheet_assumed": {"en": "Assumed values", "ja": "仮定値"},
    "yes": {"en": "yes", "ja": "はい"},
    "no": {"en": "no", "ja": "いいえ"},
    "none": {"en": "none", "ja": "なし"},
    NO_PRICE: {"en": NO_PRICE, "ja": "価格未指定"},
}


def text(key: str, lang: str, **kw: Any) -> str:
    """The fixed word ``key`` of the comparison reports in ``lang`` (en, ja)."""
    words = TEXT[key]
    return words.get(lang, words["en"]).format(**kw)


def row_label(label: str, lang: str) -> str:
    """The row label ``label`` of :data:`ROWS` in ``lang``."""
    return ROW_JA.get(label, label) if lang == "ja" else label
