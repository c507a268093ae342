"""English/Japanese labels of the design advice (storage choice and hardware
advice, issue 28; merged into :data:`vsizer.reporting.labels.LABELS`)."""

from __future__ import annotations

ADVICE_LABELS: dict[str, dict[str, str]] = {
    "section_design_advice": {"en": "Design advice", "ja": "設計上の助言"},
    "advice_item": {"en": "Item", "ja": "項目"},
    "advice_status": {"en": "Status", "ja": "判定"},
    "advice_message": {"en": "Advice", "ja": "内容"},
    "advice_source": {"en": "Source", "ja": "出典"},
    "advice_holds": {"en": "holds", "ja": "適合"},
    "advice_consider": {"en": "consider", "ja": "要検討"},
    "advice_storage_choice": {"en": "Storage choice", "ja": "ストレージ選択"},
    "advice_blades": {"en": "Blades or rack", "ja": "ブレードかラックか"},
    "advice_cores_over_clock": {"en": "Cores over clock", "ja": "クロックよりコア数"},
    "advice_low_power_first": {"en": "Low power first", "ja": "低消費電力優先"},
}
