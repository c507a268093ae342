"""English/Japanese labels of the count reasons and right-sizing (merged into
:data:`vsizer.reporting.labels.LABELS`)."""

from __future__ import annotations

EXPLAIN_LABELS: dict[str, dict[str, str]] = {
    "bound_from": {"en": "Lower bound set by", "ja": "下限の根拠"},
    "bound_join": {"en": ", ", "ja": "、"},
    "bound_configuration_lp": {
        "en": "configuration LP (Gilmore & Gomory 1961)",
        "ja": "配置パターンLP (Gilmore & Gomory 1961)",
    },
    "bound_l2": {"en": "L2 bound (Martello & Toth 1990)", "ja": "L2下限 (Martello & Toth 1990)"},
    "bound_failover": {"en": "N+k failover", "ja": "N+k 冗長"},
    "bound_anti_affinity": {"en": "anti-affinity", "ja": "アンチアフィニティ"},
    "bound_pinning": {"en": "pinned hosts", "ja": "ホスト固定"},
    "bound_min_hosts": {"en": "minimum hosts", "ja": "最小ホスト数"},
    "count_reason": {"en": "Why this many hosts", "ja": "ホスト台数の理由"},
    "count_rule_min_hosts": {"en": "Rule: minimum hosts", "ja": "ルール: 最小ホスト数"},
    "count_rule_failover": {"en": "Rule: N+k failover", "ja": "ルール: N+k 冗長"},
    "count_rule_anti_affinity": {"en": "Rule: anti-affinity", "ja": "ルール: アンチアフィニティ"},
    "count_rule_pinning": {"en": "Rule: pinned hosts", "ja": "ルール: ホスト固定"},
    "count_rule_vcpu_per_core": {"en": "Rule: vCPU:core limit", "ja": "ルール: vCPU/コア比の上限"},
    "count_rule_placement": {"en": "Rules together", "ja": "複数ルールの組合せ"},
    "section_count_reason": {"en": "Why each pool has its host count", "ja": "プールごとのホスト台数の理由"},
    "no_count_reason": {"en": "No count reasons in this plan.", "ja": "この計画には台数の理由がありません。"},
    "sheet_explain": {"en": "Count and right-sizing", "ja": "台数の理由と適正化"},
    "section_explain": {"en": "Count reasons and right-sizing", "ja": "台数の理由とVMサイズ適正化"},
    "section_rightsizing": {"en": "Right-sizing", "ja": "VMサイズの適正化"},
    "section_short_of_vcpus": {"en": "VMs short of vCPUs", "ja": "vCPU不足のVM"},
    "vcpus_recommended": {"en": "vCPUs recommended", "ja": "推奨vCPU数"},
    "mem_gib_recommended": {"en": "Memory recommended", "ja": "推奨メモリ"},
    "rightsize_reason": {"en": "Reason", "ja": "理由"},
    "vcpus_needed": {"en": "vCPUs needed", "ja": "必要vCPU数"},
    "cpu_util": {"en": "CPU utilization", "ja": "CPU使用率"},
    "risks": {"en": "Risks", "ja": "リスク"},
    "rightsizing_totals": {
        "en": "{vms} VMs can shrink: {vcpus} vCPUs and {gib} GiB freed; "
        "{skipped} VMs without a measured peak were not sized.",
        "ja": "{vms} 台のVMを縮小可能: vCPU {vcpus} 個、メモリ {gib} GiB を削減。"
        "実測のピークがない {skipped} 台は対象外。",
    },
    "rightsizing_hosts": {
        "en": "Applied (--rightsize): {before} hosts before, {after} after.",
        "ja": "適用済み (--rightsize): ホスト {before} 台 → {after} 台。",
    },
    "rightsizing_not_applied": {
        "en": "Not applied (give --rightsize to plan with these sizes).",
        "ja": "未適用 (--rightsize で推奨サイズのまま計画)。",
    },
}
