"""English/Japanese labels of the management summary (issue 27), merged into
:data:`vsizer.reporting.labels.LABELS`."""

from __future__ import annotations

STORY_LABELS: dict[str, dict[str, str]] = {
    "mgmt_title": {"en": "Management summary", "ja": "経営向けサマリー"},
    "mgmt_decision": {"en": "Decision", "ja": "判断"},
    "mgmt_go": {
        "en": "Proceed: {hosts} × {model} replace {servers} servers ({pools} pools).",
        "ja": "推奨: {servers} 台のサーバーを {model} {hosts} 台に集約します ({pools} プール)。",
    },
    "mgmt_review": {
        "en": "Review before deciding: {hosts} × {model} for {servers} servers "
              "({pools} pools), but {why}.",
        "ja": "判断前に確認: {servers} 台を {model} {hosts} 台に集約する計画ですが、{why}。",
    },
    "mgmt_why_failover": {"en": "a host failure is not survived",
                          "ja": "ホスト障害時に全VMを収容できません"},
    "mgmt_why_targets": {"en": "{n} target(s) not met", "ja": "{n} 件の目標が未達です"},
    "mgmt_why_confidence": {"en": "the data confidence is low ({c})",
                            "ja": "データ信頼度が低いです ({c})"},
    "mgmt_before_after": {"en": "Before → after", "ja": "統合前 → 統合後"},
    "mgmt_item": {"en": "Item", "ja": "項目"},
    "mgmt_before": {"en": "Before", "ja": "統合前"},
    "mgmt_after": {"en": "After", "ja": "統合後"},
    "mgmt_change": {"en": "Change", "ja": "増減"},
    "mgmt_machines": {"en": "Machines (servers → hosts)", "ja": "台数 (サーバー → ホスト)"},
    "mgmt_hosts": {"en": "Hosts", "ja": "ホスト数"},
    "mgmt_savings": {"en": "Savings", "ja": "削減効果"},
    "mgmt_saving_line": {
        "en": "{total} {cur} over {years} years ({annual} {cur} a year), electricity "
              "only, at {price} {cur}/kWh and PUE {pue}",
        "ja": "{years}年間で {total} {cur} (年間 {annual} {cur})、電気代のみ、"
              "{price} {cur}/kWh・PUE {pue} で計算",
    },
    "mgmt_no_saving": {"en": "No electricity price: savings not computed (give a price per kWh).",
                       "ja": "電気料金単価がないため削減額は計算していません。"},
    "mgmt_risks": {"en": "Risks", "ja": "リスク"},
    "mgmt_risk_failover_ok": {
        "en": "Survives the planned host failures (worst survivor {u}).",
        "ja": "想定したホスト障害時も全VMを収容できます (最大使用率 {u})。",
    },
    "mgmt_risk_failover_ng": {
        "en": "Does NOT survive the planned host failures.",
        "ja": "想定したホスト障害時に全VMを収容できません。",
    },
    "mgmt_risk_confidence": {"en": "Data confidence {c} (threshold {th}).",
                             "ja": "データ信頼度 {c} (しきい値 {th})。"},
    "mgmt_risk_targets": {"en": "Targets met: {met} of {n}.", "ja": "目標達成: {n} 件中 {met} 件。"},
    "mgmt_risk_excluded": {"en": "{n} servers excluded from the plan (see Data quality).",
                           "ja": "{n} 台のサーバーを計画から除外しました (データ品質を参照)。"},
    "mgmt_warnings_top": {"en": "{n} warnings, top {k}:", "ja": "警告 {n} 件、主なもの {k} 件:"},
    "mgmt_warnings_none": {"en": "No warnings.", "ja": "警告はありません。"},
    "mgmt_detail_below": {"en": "Engineering detail follows below.",
                          "ja": "技術的な詳細は以下に続きます。"},
    "mgmt_more_warnings": {"en": "… and {n} more (see Warnings)",
                           "ja": "… ほか {n} 件 (警告を参照)"},
}

STORY_LABELS.update({
    "term_failures": {"en": "Failures", "ja": "障害想定"},
    "lang_code": {"en": "en", "ja": "ja"},
    "term_why": {"en": "Why", "ja": "理由"},
    "term_more_pools": {"en": "… and {n} more pools (--detail)", "ja": "… ほか {n} プール (--detail)"},
    "term_detail_hint": {
        "en": "Full tables (hosts, power, storage, targets, candidates, every warning): --detail",
        "ja": "全表 (ホスト・電力・ストレージ・目標・候補機種・全警告) は --detail で表示",
    },
    "term_choice": {"en": "Chosen host model: {model} (best of {n} candidates)",
                    "ja": "選定機種: {model} (候補 {n} 機種から選定)"},
})
