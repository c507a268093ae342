"""Bilingual (English / Japanese) text of every label a report shows.

Keys are stable ids shared by the Excel workbook and the terminal summary;
where a label names a plan quantity the key is the plan's own JSON key
(``hosts``, ``consolidation_ratio``, ``worst_survivor_util``, ...). Prefixes
group the rest: ``sheet_`` (worksheet names, at most 31 characters),
``section_`` (titles of tables within a sheet), ``chart_``/``axis_`` (charts),
``util_``/``dim_`` (a host dimension: ``cpu``, ``mem``, ``vcpu``,
``disk_iops``, ``net_mbps``), ``value_`` (enumerated values found in a plan,
e.g. ``value_catalog``) and ``scope_`` (rows of the demand table).

Labels hold no unit: a report appends it (``Power [W]``) with
:func:`with_unit`, because the currency and the CPU capacity unit come from the
plan. A few labels hold ``str.format`` fields, filled by :func:`label`'s
keyword arguments: ``saving_over_years`` (``{years}``), ``chart_host_util``
(``{ceiling}``), ``util_dim`` and ``dim_other`` (``{dim}``).

The Japanese text uses the terms of Japanese infrastructure design documents
(集約率, 統合前/統合後, 年間電気代, 縮退時). Nomenclature terms follow
``docs/nomenclature.md`` (機種名, CPU名, CPU数, コア数/CPU).
"""

from __future__ import annotations

from typing import Any

from vsizer._validation import OneOf, check_param
from vsizer.reporting._advice_labels import ADVICE_LABELS
from vsizer.reporting._choice_labels import CHOICE_LABELS
from vsizer.reporting._explain_labels import EXPLAIN_LABELS
from vsizer.reporting._migration_labels import MIGRATION_LABELS
from vsizer.reporting._storage_labels import STORAGE_LABELS
from vsizer.reporting._story_labels import STORY_LABELS
from vsizer.reporting._target_labels import TARGET_LABELS
from vsizer.reporting._today_labels import TODAY_LABELS

__all__ = ["LABELS", "LANGS", "check_lang", "label", "with_unit"]

#: Languages every label is given in.
LANGS: tuple[str, ...] = ("en", "ja")

#: ``LABELS[key] = {"en": text, "ja": text}``.
LABELS: dict[str, dict[str, str]] = {
    # -- workbook and sheet names ----------------------------------------------
    "workbook_title": {"en": "vsizer consolidation plan", "ja": "vsizer 統合計画"},
    "sheet_summary": {"en": "Summary", "ja": "サマリー"},
    "sheet_servers": {"en": "Servers", "ja": "サーバー一覧"},
    "sheet_demand": {"en": "Demand", "ja": "リソース需要"},
    "sheet_hosts": {"en": "Hosts", "ja": "ホスト一覧"},
    "hosts_not_shown": {
        "en": "{n} more hosts not shown here: every host is in the JSON, workbook and HTML "
        "reports (-o plan.json, -o plan.xlsx, -o plan.html).",
        "ja": "ほか {n} 台のホストはここに表示していません。全ホストは JSON・Excel・HTML "
        "レポート（-o plan.json、-o plan.xlsx、-o plan.html）にあります。",
    },
    "sheet_placement": {"en": "Placement", "ja": "VM配置"},
    "sheet_failover": {"en": "Failover", "ja": "障害時検証"},
    "sheet_power": {"en": "Power", "ja": "電力"},
    "sheet_quality": {"en": "Data quality", "ja": "データ品質"},
    "sheet_excluded": {"en": "Excluded", "ja": "移行対象外"},
    "sheet_warnings": {"en": "Warnings", "ja": "警告"},
    "sheet_curves": {"en": "Utilization over time", "ja": "使用率の推移"},
    "sheet_predictions": {"en": "Predictions", "ja": "性能予測"},
    # -- section titles --------------------------------------------------------
    "section_pools": {"en": "Per pool", "ja": "プール別"},
    "section_targets": {"en": "Targets", "ja": "目標の達成状況"},
    "section_parameters": {"en": "Parameters used", "ja": "計算パラメーター"},
    "section_inputs": {"en": "Inputs", "ja": "入力"},
    "section_host_model": {"en": "Host model", "ja": "ホスト機種"},
    "section_failover_scenarios": {"en": "Failure scenarios", "ja": "障害シナリオ"},
    "section_failed_scenarios": {
        "en": "Scenarios with unplaced VMs",
        "ja": "VMを収容できないシナリオ",
    },
    "section_power_details": {"en": "Saving and assumptions", "ja": "削減効果と前提"},
    "section_quality_servers": {"en": "Per server", "ja": "サーバー別"},
    # -- generic columns and values --------------------------------------------
    "item": {"en": "Item", "ja": "項目"},
    "value": {"en": "Value", "ja": "値"},
    "key": {"en": "Key", "ja": "キー"},
    "yes": {"en": "Yes", "ja": "はい"},
    "no": {"en": "No", "ja": "いいえ"},
    "before": {"en": "Before", "ja": "統合前"},
    "after": {"en": "After", "ja": "統合後"},
    "change": {"en": "Change", "ja": "増減"},
    "change_pct": {"en": "Change (%)", "ja": "増減率"},
    "number": {"en": "No.", "ja": "No."},
    # -- key figures (plan "summary", "power", "space") ------------------------
    "servers": {"en": "Servers", "ja": "サーバー数"},
    "excluded": {"en": "Excluded servers", "ja": "対象外サーバー数"},
    "hosts": {"en": "Hosts", "ja": "ホスト数"},
    "servers_to_hosts": {"en": "Servers → hosts", "ja": "サーバー数 → ホスト数"},
    "hosts_before_to_after": {
        "en": "Existing hosts → new hosts",
        "ja": "既存ホスト数 → 新ホスト数",
    },
    "consolidation_ratio": {
        "en": "Consolidation ratio (servers per host)",
        "ja": "集約率（サーバー数/ホスト数）",
    },
    "pools": {"en": "Pools", "ja": "プール数"},
    "survives_failover": {"en": "Survives failover", "ja": "障害時も全VMを収容可能"},
    "worst_survivor_util": {
        "en": "Worst survivor utilization",
        "ja": "障害時の最大使用率",
    },
    "lower_bound": {"en": "Lower bound on hosts", "ja": "ホスト数の理論下限"},
    "gap": {"en": "Gap to lower bound", "ja": "理論下限との差"},
    "capacity_unit": {"en": "CPU capacity unit", "ja": "CPU性能の単位"},
    "confidence": {"en": "Data confidence", "ja": "データ信頼度"},
    "power_before_w": {"en": "Power before", "ja": "統合前の消費電力"},
    "power_after_w": {"en": "Power after", "ja": "統合後の消費電力"},
    "annual_kwh_before": {"en": "Annual energy before", "ja": "統合前の年間電力量"},
    "annual_kwh_after": {"en": "Annual energy after", "ja": "統合後の年間電力量"},
    "annual_cost_before": {
        "en": "Annual electricity cost before",
        "ja": "統合前の年間電気代",
    },
    "annual_cost_after": {
        "en": "Annual electricity cost after",
        "ja": "統合後の年間電気代",
    },
    "annual_saving": {"en": "Annual saving", "ja": "年間削減額"},
    "saving_over_years": {
        "en": "Saving over {years} years",
        "ja": "{years}年間の削減額",
    },
    "rack_u_before": {"en": "Rack space before", "ja": "統合前のラック使用量"},
    "rack_u_after": {"en": "Rack space after", "ja": "統合後のラック使用量"},
    "racks_before": {"en": "Racks before", "ja": "統合前のラック数"},
    "racks_after": {"en": "Racks after", "ja": "統合後のラック数"},
    "rack_size_u": {"en": "Rack size", "ja": "ラックサイズ"},
    # -- pools -----------------------------------------------------------------
    "pool": {"en": "Pool", "ja": "プール"},
    "redundant": {"en": "Redundant", "ja": "冗長構成"},
    "binding_dimension": {"en": "Binding dimension", "ja": "ボトルネックのリソース"},
    "strategy": {"en": "Placement strategy", "ja": "配置アルゴリズム"},
    # -- targets ---------------------------------------------------------------
    "target_name": {"en": "Target", "ja": "目標項目"},
    "description": {"en": "Description", "ja": "説明"},
    "target": {"en": "Target value", "ja": "目標値"},
    "actual": {"en": "Actual", "ja": "実績値"},
    "met": {"en": "Met", "ja": "達成"},
    "not_met": {"en": "Not met", "ja": "未達"},
    "result": {"en": "Result", "ja": "判定"},
    "not_evaluated": {"en": "n/a", "ja": "判定不可"},
    # -- parameters ------------------------------------------------------------
    "ceiling": {"en": "Utilization ceiling", "ja": "使用率の上限"},
    "failures": {"en": "Host failures tolerated", "ja": "想定する障害ホスト台数"},
    "min_hosts": {"en": "Minimum hosts per pool", "ja": "プールあたりの最小ホスト数"},
    "failover_limit": {
        "en": "Utilization limit during failover",
        "ja": "障害時（縮退時）の使用率上限",
    },
    "vcpu_per_core": {"en": "vCPUs per core", "ja": "物理コアあたりのvCPU数"},
    "host_memory_reserve_gib": {
        "en": "Host memory reserve",
        "ja": "ホストの予約メモリ",
    },
    "vm_memory_overhead_mib": {
        "en": "Memory overhead per VM",
        "ja": "VMあたりのメモリオーバーヘッド",
    },
    "vm_memory_overhead_model": {
        "en": "Memory overhead model",
        "ja": "メモリオーバーヘッドの算定方法",
    },
    "assume_util": {
        "en": "CPU utilization assumed when unknown",
        "ja": "使用率不明時に仮定するCPU使用率",
    },
    "pool_rules": {"en": "Per-pool rules", "ja": "プール別ルール"},
    "cpu_basis": {"en": "CPU sizing basis", "ja": "CPUサイジングの基準"},
    "price_kwh": {"en": "Electricity price per kWh", "ja": "電力単価（1kWhあたり）"},
    "currency": {"en": "Currency", "ja": "通貨"},
    "pue": {"en": "PUE", "ja": "PUE"},
    "years": {"en": "Period (years)", "ja": "試算期間（年）"},
    # -- inputs ----------------------------------------------------------------
    "inventory": {"en": "Inventory file", "ja": "サーバー台帳ファイル"},
    "source_format": {"en": "Inventory format", "ja": "台帳の形式"},
    "sheet": {"en": "Sheet read", "ja": "読み込んだシート"},
    "decimal_comma": {"en": "Columns read with decimal commas", "ja": "小数点カンマで読んだ列"},
    "host_catalog": {"en": "Host catalog", "ja": "ホストカタログ"},
    "host_model": {"en": "Host model", "ja": "ホスト機種"},
    "vsizer_version": {"en": "vsizer version", "ja": "vsizerのバージョン"},
    "schema_version": {"en": "Plan schema version", "ja": "プラン形式のバージョン"},
    # -- host model and server fields (nomenclature names) ---------------------
    "name": {"en": "Server", "ja": "サーバー名"},
    "group": {"en": "Group", "ja": "システム"},
    "rank": {"en": "Rank", "ja": "ランク"},
    "model": {"en": "Model", "ja": "機種名"},
    "cpu_name": {"en": "CPU", "ja": "CPU名"},
    "sockets": {"en": "Sockets", "ja": "CPU数"},
    "cores_per_socket": {"en": "Cores per socket", "ja": "コア数/CPU"},
    "threads_per_core": {"en": "Threads per core", "ja": "スレッド数/コア"},
    "vcpus": {"en": "vCPUs", "ja": "vCPU数"},
    "cpu_mhz": {"en": "Clock", "ja": "クロック周波数"},
    "cpu_score_per_core": {"en": "Score per core", "ja": "コアあたり性能スコア"},
    "cpu_score_basis": {"en": "Score basis", "ja": "スコアの基準"},
    "score_source": {"en": "Score source", "ja": "スコアの出典"},
    "cpu_capacity": {"en": "CPU capacity", "ja": "CPU性能"},
    "cpu_avg_util": {"en": "CPU average util", "ja": "CPU平均使用率"},
    "cpu_peak_util": {"en": "CPU peak util", "ja": "CPUピーク使用率"},
    "cpu_avg_demand": {"en": "CPU average demand", "ja": "CPU平均需要"},
    "cpu_peak_demand": {"en": "CPU peak demand", "ja": "CPUピーク需要"},
    "mem_gib": {"en": "Memory", "ja": "メモリ"},
    "vm_mem_gib": {
        "en": "VM memory incl. overhead",
        "ja": "VMメモリ（オーバーヘッド込み）",
    },
    "disk_iops": {"en": "Disk IOPS", "ja": "ディスクIOPS"},
    "disk_mb_s": {"en": "Disk throughput", "ja": "ディスクスループット"},
    "net_mbps": {"en": "Network", "ja": "ネットワーク"},
    "power_w": {"en": "Power", "ja": "消費電力"},
    "power_source": {"en": "Power source", "ja": "消費電力の出典"},
    "rack_u": {"en": "Rack space", "ja": "ラック使用量"},
    "host": {"en": "Assigned host", "ja": "配置先ホスト"},
    "power_idle_w": {"en": "Idle power", "ja": "アイドル時消費電力"},
    "power_max_w": {"en": "Maximum power", "ja": "最大消費電力"},
    "power_basis": {"en": "Power basis", "ja": "電力値の根拠"},
    "price": {"en": "Price", "ja": "価格"},
    # -- host price terms ----------------------------------
    "price_date": {"en": "Price date", "ja": "価格の時点"},
    "price_currency": {"en": "Price currency", "ja": "価格の通貨"},
    "support_per_year": {"en": "Support per year", "ja": "年間サポート費"},
    "capacity": {"en": "Capacity", "ja": "キャパシティ"},
    "source": {"en": "Source", "ja": "出典"},
    # -- demand ----------------------------------------------------------------
    "scope": {"en": "Scope", "ja": "区分"},
    "scope_total": {"en": "Total", "ja": "合計"},
    "scope_pool": {"en": "Pool", "ja": "プール"},
    "scope_group": {"en": "Group", "ja": "システム"},
    "scope_name": {"en": "Name", "ja": "名称"},
    # -- hosts and placement ---------------------------------------------------
    "host_id": {"en": "Host", "ja": "ホスト"},
    "vm": {"en": "VM", "ja": "VM"},
    "vm_count": {"en": "VMs", "ja": "VM数"},
    "avg_cpu_util": {"en": "Average CPU util", "ja": "平均CPU使用率"},
    "util_cpu": {"en": "CPU util", "ja": "CPU使用率"},
    "util_mem": {"en": "Memory util", "ja": "メモリ使用率"},
    "util_vcpu": {"en": "vCPU allocation", "ja": "vCPU割当率"},
    "util_disk_iops": {"en": "Disk IOPS util", "ja": "ディスクIOPS使用率"},
    "util_disk_mb_s": {
        "en": "Disk throughput util",
        "ja": "ディスクスループット使用率",
    },
    "util_net_mbps": {"en": "Network util", "ja": "ネットワーク使用率"},
    "util_dim": {"en": "{dim} util", "ja": "{dim}使用率"},
    "dim_cpu": {"en": "CPU", "ja": "CPU"},
    "dim_mem": {"en": "Memory", "ja": "メモリ"},
    "dim_vcpu": {"en": "vCPU", "ja": "vCPU"},
    "dim_disk_iops": {"en": "Disk IOPS", "ja": "ディスクIOPS"},
    "dim_disk_mb_s": {"en": "Disk throughput", "ja": "ディスクスループット"},
    "dim_net_mbps": {"en": "Network", "ja": "ネットワーク"},
    "dim_other": {"en": "{dim}", "ja": "{dim}"},
    # -- failover --------------------------------------------------------------
    "survives": {"en": "Survives", "ja": "収容可否"},
    "scenarios": {"en": "Scenarios", "ja": "シナリオ数"},
    "worst_dimension": {"en": "Worst dimension", "ja": "最大使用率のリソース"},
    "worst_failed": {
        "en": "Failed hosts in worst scenario",
        "ja": "最悪シナリオの障害ホスト",
    },
    "worst_host": {"en": "Worst host", "ja": "最大使用率のホスト"},
    "failed_hosts": {"en": "Failed hosts", "ja": "障害ホスト"},
    "worst_util": {"en": "Worst utilization", "ja": "最大使用率"},
    "moves": {"en": "VMs moved", "ja": "移動VM数"},
    "unplaced": {"en": "Unplaced VMs", "ja": "収容できないVM"},
    "unplaced_count": {"en": "Unplaced VM count", "ja": "収容できないVM数"},
    # -- power -----------------------------------------------------------------
    "annual_kwh": {"en": "Annual energy", "ja": "年間電力量"},
    "annual_cost": {"en": "Annual electricity cost", "ja": "年間電気代"},
    "power_from_inventory": {
        "en": "Servers with power from the inventory",
        "ja": "消費電力が台帳値のサーバー数",
    },
    "power_from_catalog": {
        "en": "Servers with power from the catalog",
        "ja": "消費電力がカタログ値のサーバー数",
    },
    "power_from_assumed": {
        "en": "Servers with assumed power",
        "ja": "消費電力が仮定値のサーバー数",
    },
    # -- quality, excluded, warnings -------------------------------------------
    "key_fields": {"en": "Key fields", "ja": "評価対象の項目"},
    "note": {"en": "Note", "ja": "注記"},
    "notes": {"en": "Notes", "ja": "注記"},
    "given": {"en": "Given", "ja": "入力値"},
    "derived": {"en": "Derived", "ja": "導出値"},
    "assumed": {"en": "Assumed", "ja": "仮定値"},
    "missing": {"en": "Missing", "ja": "未入力"},
    "reason": {"en": "Reason", "ja": "除外理由"},
    "warning": {"en": "Warning", "ja": "警告"},
    # -- charts ----------------------------------------------------------------
    "chart_host_util": {
        "en": "Host utilization (ceiling {ceiling})",
        "ja": "ホスト別使用率（上限 {ceiling}）",
    },
    "chart_power": {"en": "Power before and after", "ja": "統合前後の消費電力"},
    "chart_cost": {
        "en": "Annual electricity cost before and after",
        "ja": "統合前後の年間電気代",
    },
    "axis_util": {"en": "Utilization", "ja": "使用率"},
    # -- enumerated values found in a plan -------------------------------------
    "value_inventory": {"en": "inventory", "ja": "台帳"},
    "value_catalog": {"en": "catalog", "ja": "カタログ"},
    "value_mhz": {"en": "clock rate (MHz)", "ja": "クロック周波数換算"},
    "value_host_ratio": {"en": "host ratio", "ja": "ホスト比換算"},
    "value_assumed": {"en": "assumed", "ja": "仮定値"},
    "value_peak": {"en": "peak", "ja": "ピーク"},
    "value_average": {"en": "average", "ja": "平均"},
    "value_table": {"en": "table (CSV/Excel)", "ja": "表形式（CSV/Excel）"},
    "value_rvtools": {"en": "RVTools", "ja": "RVTools"},
    "value_azure_migrate": {"en": "Azure Migrate", "ja": "Azure Migrate"},
    "value_builtin": {"en": "built-in", "ja": "組み込み"},
    "value_failover": {"en": "failover", "ja": "障害時の収容"},
    "value_min_hosts": {"en": "minimum hosts", "ja": "最小ホスト数"},
    "value_anti_affinity": {"en": "anti-affinity", "ja": "アンチアフィニティ"},
    # -- HTML report -----------------------------------------------------------
    "report_title": {"en": "Consolidation plan", "ja": "サーバー統合計画"},
    "report_subtitle": {
        "en": "Inventory {inventory} · host model {host} · vsizer {version}",
        "ja": "サーバー台帳 {inventory} ・ホスト機種 {host} ・vsizer {version}",
    },
    "section_power": {"en": "Power and cost", "ja": "消費電力とコスト"},
    "section_placement": {
        "en": "Placement (hosts × VMs)",
        "ja": "VM配置（ホスト × VM）",
    },
    "section_heatmap": {
        "en": "Host utilization over time",
        "ja": "ホスト使用率の推移（ヒートマップ）",
    },
    "section_curves": {
        "en": "Demand curves per host",
        "ja": "ホスト別の需要推移（積み上げ）",
    },
    "section_failover": {"en": "Failover scenarios", "ja": "障害シナリオ（縮退時）"},
    "section_predictions": {"en": "Predicted performance", "ja": "性能予測"},
    "section_inputs_parameters": {
        "en": "Inputs and parameters",
        "ja": "入力とパラメーター",
    },
    "section_replay": {
        "en": "Replay of every step on the plan",
        "ja": "全時刻での再検証",
    },
    "section_series": {"en": "Time series", "ja": "時系列データ"},
    "racks": {"en": "Racks", "ja": "ラック数"},
    "targets_met": {"en": "Targets met", "ja": "目標の達成"},
    "no_price": {"en": "no price given", "ja": "電力単価の指定なし"},
    "no_targets": {"en": "No targets stated.", "ja": "目標の指定はありません。"},
    "no_warnings": {"en": "No warnings.", "ja": "警告はありません。"},
    "low_confidence_flag": {"en": "Low data confidence", "ja": "データ信頼度が低い"},
    "warnings_count": {"en": "Warnings ({n})", "ja": "警告 ({n} 件)"},
    "warning_code": {"en": "Code", "ja": "コード"},
    "warning_servers": {"en": "Servers", "ja": "対象サーバー"},
    "warning_message": {"en": "Message", "ja": "内容"},
    "low_confidence": {
        "en": "Low data confidence ({c}, below {t}): this plan rests on values that "
        "were assumed or estimated, not read from the inputs; see the warnings.",
        "ja": "データ信頼度が低い ({c}、基準 {t} 未満): この計画は入力から読めず"
        "仮定・推定した値に基づいています。警告を確認してください。",
    },
    "no_series": {
        "en": "No time series given: sized on peak/average figures.",
        "ja": "時系列データの指定なし：ピーク値・平均値でサイジングしています。",
    },
    "no_failover": {
        "en": "No failure scenarios: no pool tolerates a host failure (failures = 0).",
        "ja": "障害シナリオなし：ホスト障害を想定するプールがありません（failures = 0）。",
    },
    "no_predictions": {
        "en": "No performance predictions in this plan.",
        "ja": "このプランには性能予測が含まれていません。",
    },
    "placement_note": {
        "en": "{hosts} hosts; each bar stacks the VMs of one host by their share "
        "of the host (CPU as sized, memory with overheads and the hypervisor "
        "reserve). Dashed lines: ceiling and 100 %.",
        "ja": "ホスト{hosts}台。各棒はホスト1台に載るVMを、ホストに対する割合で積み上げたもの"
        "（CPUはサイジング基準の需要、メモリはオーバーヘッドとハイパーバイザー予約を含む）。"
        "破線は使用率の上限と100 %。",
    },
    "placement_note_series": {
        "en": "Sized on time series: the VMs' peaks do not coincide, so each host's "
        "CPU segments are scaled in proportion to the VMs' own peaks to add up to "
        "the host's planned peak utilization.",
        "ja": "時系列でサイジング：VMのピークは同時には来ないため、各ホストのCPUの積み上げは"
        "VMごとのピークに比例させ、ホストの計画ピーク使用率に合わせて縮尺しています。",
    },
    "series_info": {
        "en": "Source {source}: {steps} steps of {step} s, shown every {stride} step(s) "
        "(maximum over each stride).",
        "ja": "データ {source}：{step}秒間隔 {steps}時点、{stride}時点ごとの最大値を表示。",
    },
    "axis_time": {"en": "Time (UTC)", "ja": "時刻（UTC）"},
    "stack_other": {"en": "(other VMs)", "ja": "（その他のVM）"},
    "moves_to": {"en": "Where its VMs go", "ja": "VMの移動先"},
    "worst_step": {"en": "Worst step", "ja": "最悪時刻"},
    "steps_over_100": {"en": "Steps over 100 %", "ja": "100 %超過の時点数"},
    "steps_over_ceiling": {"en": "Steps over ceiling", "ja": "上限超過の時点数"},
    # -- what-if comparison ----------------------------------------------------
    "compare_title": {"en": "Scenario comparison", "ja": "構成案の比較"},
    "compare_subtitle": {
        "en": "Inventory {inventory} · {n} scenarios · vsizer {version}",
        "ja": "サーバー台帳 {inventory} ・構成案 {n}件 ・vsizer {version}",
    },
    "sheet_scenarios": {"en": "Scenarios", "ja": "構成案の比較"},
    "section_scenarios": {"en": "Scenarios side by side", "ja": "構成案の一覧"},
    "section_compare_charts": {"en": "At a glance", "ja": "グラフで比較"},
    "scenario": {"en": "Scenario", "ja": "構成案"},
    "recommendation": {"en": "Recommendation", "ja": "推奨案"},
    "criterion": {"en": "Criterion", "ja": "判断基準"},
    "no_recommendation": {
        "en": "No recommendation: no scenario survives its failover check.",
        "ja": "推奨案なし：障害時の検証を満たす構成案がありません。",
    },
    "rec_total_cost": {
        "en": "Recommended: {name} — criterion: lowest cost over {years} years "
        "(host purchase + electricity), {value} {currency}.",
        "ja": "推奨：{name} — 判断基準：{years}年間の総コスト（ホスト購入費＋電気代）"
        "が最小、{value} {currency}。",
    },
    "rec_hosts": {
        "en": "Recommended: {name} — criterion: fewest hosts ({hosts}), then lowest "
        "power after consolidation ({power} W), among scenarios that survive "
        "failover and meet the targets.",
        "ja": "推奨：{name} — 判断基準：障害時の検証と目標を満たす案のうちホスト台数が"
        "最少（{hosts}台）、次に統合後の消費電力が最小（{power} W）。",
    },
    "rec_runner_up": {
        "en": "Next: {name} ({value}).",
        "ja": "次点：{name}（{value}）。",
    },
    "host_cores": {"en": "Cores per host", "ja": "ホストあたりのコア数"},
    "hosts_cost": {"en": "Host purchase", "ja": "ホスト購入費"},
    "total_cost_over_years": {
        "en": "Cost over {years} years (hosts + electricity)",
        "ja": "{years}年間の総コスト（ホスト＋電気代）",
    },
    "predicted_performance": {"en": "Predicted performance", "ja": "性能予測"},
    "pred_summary": {
        "en": "{metric}: mean {mean}, min {min}",
        "ja": "{metric}：平均 {mean}、最小 {min}",
    },
    # -- growth over the years (vsizer.study.growth; plan section "growth") --------
    "sheet_growth": {"en": "Growth", "ja": "需要増加"},
    "section_growth": {"en": "Growth over the years", "ja": "年次の需要増加"},
    "growth_year": {"en": "Year", "ja": "年"},
    "growth_demand_cpu": {"en": "CPU demand", "ja": "CPU需要"},
    "growth_hosts": {"en": "Hosts needed", "ja": "必要ホスト数"},
    "growth_pool_hosts": {"en": "Hosts: {pool}", "ja": "ホスト数：{pool}"},
    "growth_rate": {"en": "Growth per year", "ja": "年間増加率"},
    "growth_size_for": {"en": "Plan sized for", "ja": "サイジング基準"},
    "value_now": {"en": "day one (purchases follow)", "ja": "初年度（以降は追加購入）"},
    "value_horizon": {"en": "the last year", "ja": "最終年度の需要"},
    "growth_plan_hosts": {"en": "Hosts of the plan", "ja": "計画のホスト数"},
    "growth_runs_out": {"en": "Runs out in year", "ja": "不足する年"},
    "growth_never": {"en": "not within {years} years", "ja": "{years}年以内は不足なし"},
    "growth_purchases": {"en": "Purchases", "ja": "購入計画"},
    "growth_hosts_added": {"en": "Hosts added", "ja": "追加ホスト数"},
    "growth_bought": {"en": "Hosts bought", "ja": "購入ホスト数合計"},
    "growth_no_count": {"en": "no count holds it", "ja": "収容不可"},
    "growth_summary": {
        "en": "Growth {rate}/year: {hosts} hosts needed in year {years} "
        "(plan: {plan}); {bought} hosts bought in all.",
        "ja": "年{rate}の需要増加：{years}年目に必要なホスト {hosts}台"
        "（計画 {plan}台）、購入合計 {bought}台。",
    },
    "growth_summary_no_count": {
        "en": "Growth {rate}/year: from year {first} no count of hosts holds the demand "
        "(see the notes); plan: {plan} hosts, {bought} bought in all.",
        "ja": "年{rate}の需要増加：{first}年目以降はホストを何台にしても収容できません"
        "（注記参照）。計画 {plan}台、購入合計 {bought}台。",
    },
    "chart_growth": {"en": "Hosts needed per year", "ja": "年ごとの必要ホスト数"},
    "growth_plan_line": {"en": "hosts of the plan: {n}", "ja": "計画のホスト数：{n}"},
    "growth_note": {
        "en": "Every VM's demand grows at its pool's rate (CPU, memory, vCPU count, "
        "I/O); each year end is sized as the plan is (ceiling, N+k, minimum hosts).",
        "ja": "各VMの需要（CPU・メモリ・vCPU数・I/O）がプールの増加率で増えるとして、"
        "各年度末を計画と同じ条件（使用率上限・N+k・最小ホスト数）でサイジングしています。",
    },
}
LABELS.update(STORAGE_LABELS)  # storage section (vsizer.reporting._storage_labels)
LABELS.update(ADVICE_LABELS)  # design advice (vsizer.reporting._advice_labels; issue 28)
LABELS.update(CHOICE_LABELS)  # host-model choice and TCO (vsizer.reporting._choice_labels)
LABELS.update(TODAY_LABELS)  # today's estate (vsizer.reporting._today_labels)
LABELS.update(EXPLAIN_LABELS)  # count reasons, right-sizing (vsizer.reporting._explain_labels)
LABELS.update(TARGET_LABELS)  # plan --target (vsizer.reporting._target_labels)
LABELS.update(MIGRATION_LABELS)  # readiness and hygiene (vsizer.reporting._migration_labels)
LABELS.update(STORY_LABELS)  # management summary (vsizer.reporting._story_labels)


def check_lang(lang: Any, where: str = "label") -> str:
    """Return ``lang`` if it is one of :data:`LANGS`, else raise.

    Parameters
    ----------
    lang : Any
        The language code to check.
    where : str, default "label"
        Name of the calling function, used in the message.

    Returns
    -------
    str
        ``lang`` unchanged.

    Raises
    ------
    vsizer.errors.ConfigError
        A ``ValueError`` subclass:
        ``The 'lang' parameter of label must be one of 'en', 'ja'. Got 'fr' instead.``
    """
    return str(check_param("lang", lang, OneOf(LANGS), where))


def label(key: str, lang: str = "en", **fields: Any) -> str:
    """Text of label ``key`` in language ``lang``.

    Parameters
    ----------
    key : str
        A key of :data:`LABELS`, e.g. ``"consolidation_ratio"``.
    lang : {"en", "ja"}, default "en"
        Language of the text.
    **fields
        Values for the ``str.format`` fields of a template label, e.g.
        ``label("saving_over_years", "ja", years=5)`` -> ``"5年間の削減額"``.
        Without fields the template is returned as written.

    Returns
    -------
    str
        The label text.

    Raises
    ------
    vsizer.errors.ConfigError
        A ``ValueError`` subclass, if ``lang`` is not ``"en"`` or ``"ja"``.
    KeyError
        If ``key`` is not a label; the message names the closest keys.
    """
    check_lang(lang)
    try:
        entry = LABELS[key]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(str(key), LABELS, n=3)
        hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
        raise KeyError(
            f"Unknown label key {key!r}; the valid keys are those of "
            f"vsizer.reporting.labels.LABELS.{hint}"
        ) from None
    text = entry[lang]
    return text.format(**fields) if fields else text


def with_unit(text: str, unit: str | None) -> str:
    """Append ``unit`` in brackets: ``with_unit("Power", "W")`` -> ``"Power [W]"``.

    Parameters
    ----------
    text : str
        A label text.
    unit : str or None
        The unit; ``None`` or ``""`` leaves ``text`` unchanged.

    Returns
    -------
    str
        ``"text [unit]"`` or ``text``.
    """
    return f"{text} [{unit}]" if unit else text
