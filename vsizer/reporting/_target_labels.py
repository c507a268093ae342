"""English/Japanese labels of the target platform of ``plan --target``
(merged into :data:`vsizer.reporting.labels.LABELS`)."""

from __future__ import annotations

TARGET_LABELS: dict[str, dict[str, str]] = {
    "sheet_target": {"en": "Target platform", "ja": "移行先基盤"},
    "section_target": {"en": "Target platform", "ja": "移行先基盤"},
}
