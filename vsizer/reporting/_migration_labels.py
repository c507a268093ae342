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
}
