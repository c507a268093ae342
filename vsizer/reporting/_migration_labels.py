"""Labels of the plan's migration readiness and hygiene (issue 30), English and Japanese."""

from __future__ import annotations

MIGRATION_LABELS: dict[str, dict[str, str]] = {
    "sheet_migration": {"en": "Readiness", "ja": "移行準備"},
    "section_migration": {"en": "Migration readiness and hygiene",
                          "ja": "移行準備と環境の整理"},
    "mig_counts": {
        "en": "Readiness on {target}: {ready} ready, {work} needs work, {blocked} blocked, "
              "{unknown} unknown",
        "ja": "{target} への移行準備：可 {ready}、要対応 {work}、不可 {blocked}、不明 {unknown}"},
    "mig_hygiene": {
        "en": "Hygiene: {off} powered off ({off_gib} GiB), {tmpl} templates ({tmpl_gib} "
              "GiB), {snaps} VMs with snapshots older than {days} days ({snap_gib} GiB), "
              "{orphans} orphaned files, {disks} oversized disks ({disk_gib} GiB), {over} "
              "oversized VMs",
        "ja": "整理：停止中 {off} 台（{off_gib} GiB）、テンプレート {tmpl}（{tmpl_gib} GiB）、"
              "{days} 日超のスナップショット {snaps} 台（{snap_gib} GiB）、孤立ファイル {orphans}、"
              "過大ディスク {disks}（{disk_gib} GiB）、過大 VM {over} 台"},
    "mig_vm": {"en": "VM", "ja": "VM"},
    "mig_status": {"en": "Status", "ja": "状態"},
    "mig_reasons": {"en": "Reasons", "ja": "理由"},
    "mig_unknown": {"en": "Not known from the export", "ja": "エクスポートから不明"},
    "mig_source_host": {"en": "Source host", "ja": "移行元ホスト"},
    "mig_used_gib": {"en": "Used GiB", "ja": "使用量 GiB"},
    # carbon of the plan (vsizer.reporting._carbon_report)
    "sheet_carbon": {"en": "Carbon", "ja": "CO2排出"},
    "section_carbon": {"en": "Carbon before and after", "ja": "移行前後の CO2 排出"},
    "carbon_line": {
        "en": "Carbon ({grid} gCO2e/kWh, location-based): {before} -> {after} "
              "kgCO2e/yr; embodied new hosts {embodied} kgCO2e over {years} years; net "
              "saving {net} kgCO2e/yr; pays back in year {payback}",
        "ja": "CO2 排出（{grid} gCO2e/kWh、ロケーション基準）：年 {before} → {after} "
              "kgCO2e、新ホストの製造時排出 {embodied} kgCO2e（{years} 年で按分）、正味削減 年 {net} "
              "kgCO2e、回収 {payback} 年目"},
    "carbon_grid": {"en": "Grid intensity [gCO2e/kWh]", "ja": "電力の排出係数 [gCO2e/kWh]"},
    "carbon_source": {"en": "Grid intensity source", "ja": "排出係数の出典"},
    "carbon_kwh_before": {"en": "Energy before [kWh/yr]", "ja": "移行前の電力量 [kWh/年]"},
    "carbon_kwh_after": {"en": "Energy after [kWh/yr]", "ja": "移行後の電力量 [kWh/年]"},
    "carbon_op_before": {"en": "Operational before [kgCO2e/yr]", "ja": "移行前の運用時排出 [kgCO2e/年]"},
    "carbon_op_after": {"en": "Operational after [kgCO2e/yr]", "ja": "移行後の運用時排出 [kgCO2e/年]"},
    "carbon_op_saving": {"en": "Operational saving [kgCO2e/yr]", "ja": "運用時排出の削減 [kgCO2e/年]"},
    "carbon_new_hosts": {"en": "New hosts", "ja": "新ホスト数"},
    "carbon_embodied_host": {"en": "Embodied per new host [kgCO2e]",
                             "ja": "新ホスト 1 台の製造時排出 [kgCO2e]"},
    "carbon_embodied": {"en": "Embodied, new hosts [kgCO2e]", "ja": "新ホストの製造時排出 [kgCO2e]"},
    "carbon_years": {"en": "Years amortized", "ja": "按分年数"},
    "carbon_embodied_year": {"en": "Embodied per year [kgCO2e/yr]",
                             "ja": "製造時排出の年割り [kgCO2e/年]"},
    "carbon_net": {"en": "Net saving [kgCO2e/yr]", "ja": "正味削減 [kgCO2e/年]"},
    "carbon_payback": {"en": "Pays back in year", "ja": "回収年"},
    "carbon_embodied_source": {"en": "Embodied emissions source", "ja": "製造時排出の出典"},
    "carbon_sunk": {"en": "Old hosts", "ja": "既存ホスト"},
}
