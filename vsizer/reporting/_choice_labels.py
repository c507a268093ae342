"""English/Japanese labels of the host-model choice and total cost (merged into
:data:`vsizer.reporting.labels.LABELS`)."""

from __future__ import annotations

CHOICE_LABELS: dict[str, dict[str, str]] = {
    "sheet_choice": {"en": "Host choice", "ja": "機種選定"},
    "section_choice": {"en": "Host-model choice and total cost", "ja": "機種選定と総保有コスト"},
    "choice_winner": {"en": "Chosen host model", "ja": "選定機種"},
    "choice_why": {"en": "Why", "ja": "選定理由"},
    "choice_rank": {"en": "Rank", "ja": "順位"},
    "choice_error": {"en": "Not plannable", "ja": "計画不可"},
    "tco": {"en": "Total cost (TCO)", "ja": "総保有コスト（TCO）"},
    "tco_known": {"en": "Known part of the TCO", "ja": "TCOのうち判明分"},
    "tco_capex": {"en": "Hardware", "ja": "ハードウェア購入費"},
    "tco_support": {"en": "Support", "ja": "保守費"},
    "tco_energy": {"en": "Energy", "ja": "電気代"},
    "tco_rack": {"en": "Rack space", "ja": "ラック費用"},
    "tco_licences": {"en": "Licences", "ja": "ライセンス費"},
    "tco_missing": {"en": "Missing prices", "ja": "価格未設定"},
    "tco_not_counted": {"en": "Not counted", "ja": "計上対象外"},
    "chart_tco": {"en": "Cost over {years} years by kind", "ja": "{years}年間のコスト内訳"},
    "licence_name": {"en": "Licence", "ja": "ライセンス"},
    "licence_unit": {"en": "Unit", "ja": "単位"},
    "licence_per_host": {"en": "Per host", "ja": "ホストあたり"},
    "licence_count": {"en": "Count", "ja": "数量"},
    "licence_cost": {"en": "Cost", "ja": "費用"},
}
