"""English/Japanese labels of today's estate (:mod:`vsizer.reporting._today`;
merged into :data:`vsizer.reporting.labels.LABELS`)."""

from __future__ import annotations

TODAY_LABELS: dict[str, dict[str, str]] = {
    "section_today": {"en": "Today's estate (the hosts the VMs run on)",
                      "ja": "現行環境 (VMが稼働中のホスト)"},
    "cluster": {"en": "Cluster", "ja": "クラスタ"},
    "all_hosts": {"en": "All hosts", "ja": "全ホスト"},
    "today_cores": {"en": "Cores", "ja": "コア数"},
    "today_vcpus": {"en": "vCPUs (powered on)", "ja": "vCPU数 (稼働中)"},
    "today_vcpu_per_core": {"en": "vCPUs per core", "ja": "コアあたりvCPU"},
    "today_mem_alloc": {"en": "Memory allocated / installed",
                        "ja": "割当メモリ / 搭載メモリ"},
    "today_cpu_usage": {"en": "CPU usage", "ja": "CPU使用率"},
    "today_line": {
        "en": "Today {name}: {hosts} hosts, {cores} cores, {vcpus} vCPUs = "
              "{ratio}/core, memory {mem}, CPU {cpu}",
        "ja": "現行 {name}: ホスト {hosts} 台, {cores} コア, vCPU {vcpus} = "
              "{ratio}/コア, メモリ割当 {mem}, CPU {cpu}",
    },
    "today_more": {"en": "Today — {n} more cluster(s) in the JSON/Excel/HTML report",
                   "ja": "現行 — ほか {n} クラスタは JSON/Excel/HTML を参照"},
    "today_headline": {
        "en": "{hosts} new hosts for {before} today, decided by {rules}. Today's "
              "hosts run {ratio} vCPUs per core: at today's ratios the plan "
              "needs {at} hosts.",
        "ja": "新ホスト {hosts} 台 (現行 {before} 台)、決め手: {rules}。現行は"
              "コアあたり vCPU {ratio}: 現行の比率なら {at} 台。",
    },
    "today_rule_vcpu": {"en": "vCPU:core ≤ {limit}", "ja": "vCPU/コア ≤ {limit}"},
    "today_rule_failover": {"en": "N+k failover", "ja": "N+k 冗長"},
    "today_rule_min_hosts": {"en": "the minimum hosts per pool", "ja": "プールの最小ホスト数"},
    "today_rule_anti_affinity": {"en": "anti-affinity", "ja": "アンチアフィニティ"},
    "today_rule_pinning": {"en": "pinned hosts", "ja": "ホスト固定"},
    "today_rule_placement": {"en": "rules together", "ja": "複数ルールの組合せ"},
    "today_demand": {"en": "demand ({dim})", "ja": "需要 ({dim})"},
    "today_decided_by": {"en": "Decided by", "ja": "台数の決め手"},
    "today_hosts_at_ratio": {"en": "Hosts at today's vCPU:core ratio",
                             "ja": "現行のvCPU/コア比でのホスト数"},
    "today_ratio": {"en": "vCPUs per core today", "ja": "現行のコアあたりvCPU"},
}
