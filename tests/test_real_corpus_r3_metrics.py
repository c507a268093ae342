"""Corpus round 3, metrics exports (tests/data/real/metrics/README.md and the
third round of tests/data/real/prometheus/README.md): real Grafana panel CSV
exports and a real Prometheus instant-query response, pinned to figures checked
by hand.

Hand checks (from the repository root):

* Grafana 4 columns export, per server column: ``undefined`` cells, rows kept
  (first of each time), repeated times, peak::

    awk -F';' 'NR>1{for(i=2;i<=6;i++){if($i=="undefined"){u[i]++} else if(!(($1,i)
      in seen)){seen[$1,i]=1;k[i]++; if($i>m[i])m[i]=$i} else d[i]++}} END{for(i=2;
      i<=6;i++) print i, u[i]+0, k[i], d[i]+0, m[i]}'
      tests/data/real/metrics/mpawlik_grafana4_columns_undefined_excerpt.csv

  -> column 1024: 0, 22, 12, 12.3561909445; 128: 6, 22, 6, 46.90975262458333;
  2048: 2, 22, 10, 6.425573576916666; 256: 4, 22, 8, 30.63843127375;
  512: 12, 22, 0, 23.725289847499997.
* Pablo-CC pod exports, per column Pod 1..5, avg: values, ``null`` cells, peak::

    tr -d '\r' < tests/data/real/metrics/pablocc_grafana_k8s_pods_memory_usage.csv |
      awk -F, 'NR>1{for(i=2;i<=7;i++){if($i!="null"){n[i]++; if($i>m[i])m[i]=$i}
      else u[i]++}} END{for(i=2;i<=7;i++) print i, n[i], u[i]+0, m[i]}'

  -> 36/80/452890624, 104/12/489332736, 36/80/492265472, 116/0/545173504,
  54/62/515706880, 116/0 (avg); the CPU file: 34/82, 102/14, 34/82, 116/0, 54/62.
  ``avg`` is the mean of the pods present at every row (pandas ``mean(axis=1)``).
* heekof excerpt: ``awk -F';' 'NR>1{n[$1]++; if($3>m[$1])m[$1]=$3} END{for(k in n)
  print k, n[k], m[k]}'`` -> 12 points each, peaks 8.266666666666667 (mini-mon),
  0.3333333333333333 (devstack2).
* Grafana Excel export: ``head -c 12 FILE | od -c`` shows the UTF-8 mark and
  ``sep=;``; line 3 is the header again, comma-separated (``sed -n 3p``).
* cAdvisor instant query: ``python -m json.tool`` -> ``"resultType": "vector"``,
  10 results, all at 1689611378.336.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from vsizer.cli import app
from vsizer.errors import SeriesError
from vsizer.series.prometheus import read_query_range
from vsizer.series.tabular import read_long
from vsizer.series.traces import read_alibaba_machine_usage
from vsizer.series.wide import read_wide

REAL = Path(__file__).parent / "data" / "real"
METRICS = REAL / "metrics"
GRAFANA4 = METRICS / "mpawlik_grafana4_columns_undefined_excerpt.csv"
EXCEL = METRICS / "tenst_grafana_excel_sep_first30.csv"
VECTOR = REAL / "prometheus" / "ravishende_cadvisor_query_vector.json"
pytestmark = pytest.mark.slow
runner = CliRunner()


def issues(s, kind: str) -> dict[str, int]:  # type: ignore[no-untyped-def]
    return {i["server"]: i["count"] for i in s.quality.issues if i["kind"] == kind}


# ------------------------------------------- Grafana 4 "series as columns"


def test_grafana4_undefined_cells_are_missing_points() -> None:
    # Grafana 4.x file_export.ts writes 'undefined' where a series has no point
    # at a row's time. Once: 24 lines "expected a non-negative number, got
    # 'undefined'" and nothing read.
    s = read_wide(GRAFANA4)
    assert issues(s, "dropped") == {"128": 6, "2048": 2, "256": 4, "512": 12}
    assert (
        "mpawlik_grafana4_columns_undefined_excerpt.csv: 24 'undefined' cells read "
        "as no sample (how Grafana's CSV export and Prometheus write a missing "
        "point); counted as dropped."
    ) in s.quality.notes
    # the export repeats times (from 15:00 again after 18:30): first kept, counted
    assert issues(s, "duplicate") == {"1024": 12, "128": 6, "2048": 10, "256": 8}
    by = s.data.groupby("server")["value"]
    assert by.size().to_dict() == {k: 22 for k in ("1024", "128", "2048", "256", "512")}
    assert by.max().to_dict() == pytest.approx(
        {"1024": 0.123561909445, "128": 0.4690975262458333,
         "2048": 0.06425573576916666, "256": 0.3063843127375,
         "512": 0.23725289847499997}
    )  # fmt: skip


def test_grafana4_export_imports_through_the_cli(tmp_path: Path) -> None:
    r = runner.invoke(
        app,
        ["import", str(GRAFANA4), "--format", "wide", "--metric", "cpu_util",
         "--unit", "%", "--store", str(tmp_path / "s")],
        env={"COLUMNS": "250"},
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    rows = [ln.split("│")[1:-1] for ln in r.output.splitlines() if "│" in ln]
    cells = [[c.strip() for c in row] for row in rows]
    assert cells[0][1:3] == ["110", "5"]  # 5 columns x 22 times kept
    dropped = {c[1]: c[3] for c in cells[1:] if len(c) > 3 and c[2] == "dropped"}
    assert dropped == {"128": "6", "2048": "2", "256": "4", "512": "12"}


@pytest.mark.parametrize("word", ["null", "undefined", "NaN", "nan"])
def test_no_value_spellings_in_long_and_wide(tmp_path: Path, word: str) -> None:
    wide = tmp_path / "w.csv"
    wide.write_text(
        f"Time;web01\n2024-05-01T10:00:00Z;{word}\n2024-05-01T10:05:00Z;40\n"
    )
    s = read_wide(wide, metric="cpu_util", unit="%")
    assert s.data["value"].tolist() == [pytest.approx(0.4)]
    assert issues(s, "dropped") == {"web01": 1}
    long = tmp_path / "l.csv"
    long.write_text(
        "server,timestamp,metric,value\n"
        f"web01,2024-05-01T10:00:00Z,cpu,{word}\nweb01,2024-05-01T10:05:00Z,cpu,40\n"
    )
    s = read_long(long)
    assert s.data["value"].tolist() == [pytest.approx(0.4)]
    assert f"l.csv: 1 '{word}' cells read as no sample" in " ".join(s.quality.notes)


def test_other_words_stay_errors(tmp_path: Path) -> None:
    f = tmp_path / "w.csv"
    f.write_text("Time;web01\n2024-05-01T10:00:00Z;n/a\n")
    with pytest.raises(SeriesError) as err:
        read_wide(f, metric="cpu_util")
    assert err.value.problems == [
        "w.csv line 2, column 'web01': expected a non-negative number, got 'n/a'."
    ]


# ------------------------------------------------ Grafana "Download for Excel"


def test_excel_sep_line_is_obeyed() -> None:
    # UTF-8 mark, 'sep=;' (Grafana's Excel option), the header, then a line
    # someone added: the header again with commas. Once refused in two lines:
    # "expected the same number of fields on every line; Error tokenizing data.
    # C error: Expected 2 fields in line 2, saw 5\n." (pandas counted the fields
    # of 'sep=;'). Now the separator is ';' and the error names line 3.
    with pytest.raises(SeriesError) as err:
        read_wide(EXCEL, metric="cpu_util")
    assert err.value.problems[0] == (
        "tenst_grafana_excel_sep_first30.csv line 3, column 'Time': expected an "
        "ISO 8601 time such as 2024-05-01T10:00:00Z or Unix seconds/milliseconds, "
        "got 'Time,C.MeteoST_bme280,C.Gas_boiler_supply,C.Kitchen_temp,...'."
    )
    assert all("\n" not in p for p in err.value.problems)


def test_excel_sep_line_then_a_clean_export(tmp_path: Path) -> None:
    # Grafana 6 (file_export.ts): mark, 'sep=;\r\n', quoted header, CRLF, null.
    f = tmp_path / "grafana_data_export.csv"
    f.write_bytes(
        b'\xef\xbb\xbfsep=;\r\n"Time";"web01"\r\n'
        b'"2019-01-15T14:10:00+02:00";null\r\n"2019-01-15T14:15:00+02:00";40.4'
    )
    s = read_wide(f, metric="cpu_util", unit="%")
    assert s.data["value"].tolist() == [pytest.approx(0.404)]
    assert str(s.data["timestamp"].iloc[0]) == "2019-01-15 12:15:00+00:00"
    assert issues(s, "dropped") == {"web01": 1}


def test_a_longer_line_is_one_line_naming_it(tmp_path: Path) -> None:
    f = tmp_path / "x.csv"
    f.write_text(
        "sep=;\nTime;a;b\n2017-08-15T18:30:00Z;1;2\n\n2017-08-15T19:00:00Z;1;2;3;4\n"
    )
    with pytest.raises(SeriesError) as err:
        read_wide(f)
    assert err.value.problems == [
        "x.csv line 5: expected 3 fields as in the header (the line has 5), got "
        "'2017-08-15T19:00:00Z;1;2;3;4'."
    ]


@pytest.mark.parametrize("text", ["sep=;", "sep=;\r\n", "\ufeffsep=,\n\n"])
def test_a_sep_line_alone_is_an_empty_file(tmp_path: Path, text: str) -> None:
    f = tmp_path / "x.csv"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(SeriesError) as err:
        read_wide(f)
    assert err.value.problems == ["x.csv: expected a header line, got an empty file."]


def test_blank_lines_before_the_header(tmp_path: Path) -> None:
    # once "expected a header line, got an empty file." (pandas: no columns)
    f = tmp_path / "x.csv"
    f.write_text("\n\nTime,a\n2019-01-15T14:10:00Z,3\n2019-01-15T14:15:00Z,bad\n")
    with pytest.raises(SeriesError) as err:
        read_wide(f, metric="cpu_util")
    assert err.value.problems == [
        "x.csv line 5, column 'a': expected a non-negative number, got 'bad'."
    ]


# ------------------------------------------------ Prometheus instant query


def test_cadvisor_instant_query_is_refused_plainly() -> None:
    # /api/v1/query of rate(container_cpu_usage_seconds_total[3h]): one point per
    # series, no time series; the message says which endpoint to save.
    with pytest.raises(SeriesError) as err:
        read_query_range(VECTOR, metric="cpu_util")
    assert err.value.problems == [
        "ravishende_cadvisor_query_vector.json: expected resultType 'matrix' (a "
        "query_range response), got 'vector'; save /api/v1/query_range, not "
        "/api/v1/query."
    ]


# ------------------------------------- Grafana export of Kubernetes pods (HPA)

PODS_MEM = METRICS / "pablocc_grafana_k8s_pods_memory_usage.csv"
PODS_CPU = METRICS / "pablocc_grafana_k8s_pods_cpu_usage.csv"
PODS = ["Pod 1", "Pod 2", "Pod 3", "Pod 4", "Pod 5"]


def test_pod_memory_export_reads_and_leaves_out_the_avg_column() -> None:
    # 'Time,Pod 1,...,Pod 5,avg', 'null' for a pod not running. Once refused
    # ('null'); then 'avg' (the mean of the pods present at each row) became a
    # sixth server, its memory planned a second time.
    s = read_wide(PODS_MEM, metric="mem_used_gib", unit="B")
    assert s.metadata["servers"] == PODS
    by = s.data.groupby("server")["value"]
    assert by.size().to_dict() == dict(zip(PODS, [36, 104, 36, 116, 54], strict=True))
    assert by.max().to_dict() == pytest.approx(
        {p: b / 2**30 for p, b in zip(
            PODS, [452890624, 489332736, 492265472, 545173504, 515706880], strict=True
        )}
    )  # fmt: skip
    assert issues(s, "dropped") == {
        "Pod 1": 80, "Pod 2": 12, "Pod 3": 80, "Pod 5": 62, "avg": 116,
    }  # fmt: skip
    (avg,) = [i for i in s.quality.issues if i["server"] == "avg"]
    assert avg["detail"] == (
        "column 'avg' is the mean of the other 5 columns at all 116 rows, not a "
        "server; left out"
    )
    assert str(s.data["timestamp"].min()) == "2019-08-05 12:39:15+00:00"


def test_pod_cpu_export_through_the_cli(tmp_path: Path) -> None:
    r = runner.invoke(
        app,
        ["import", str(PODS_CPU), "--format", "wide", "--store", str(tmp_path / "s")],
        env={"COLUMNS": "250"},
    )
    assert r.exit_code == 0, r.output
    cells = [
        [c.strip() for c in ln.split("│")[1:-1]]
        for ln in r.output.splitlines()
        if "│" in ln
    ]
    assert cells[0][1:3] == ["340", "5"]  # 34 + 102 + 34 + 116 + 54 samples, 5 pods
    dropped = {c[1]: c[3] for c in cells[1:] if len(c) > 3 and c[2] == "dropped"}
    assert dropped == {"Pod 1": "82", "Pod 2": "14", "Pod 3": "82", "Pod 5": "62",
                       "avg": "116"}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "third", "kept"),
    [
        ("Total", "30", False),  # 10 + 20: the sum of the others
        ("total", "31", True),  # not their sum: a server named 'total'
        ("max", "20", False),
        ("web03", "30", True),  # not named as an aggregate
    ],
)
def test_aggregate_column_left_out_only_when_it_is_one(
    tmp_path: Path, name: str, third: str, kept: bool
) -> None:
    f = tmp_path / "w.csv"
    f.write_text(
        f"Time,web01,web02,{name}\n"
        f"2024-05-01T10:00:00Z,10,20,{third}\n2024-05-01T10:05:00Z,5,null,5\n"
    )
    s = read_wide(f, metric="cpu_util", unit="%")
    assert (name in s.metadata["servers"]) is kept
    assert (
        "dropped" in [i["kind"] for i in s.quality.issues if i["server"] == name]
    ) is (not kept)


def test_two_summary_columns_both_left_out(tmp_path: Path) -> None:
    # a panel drawing avg and max: each is compared with the server columns only
    f = tmp_path / "w.csv"
    f.write_text(
        "Time,web01,web02,avg,max\n2024-05-01T10:00:00Z,10,20,15,20\n"
        "2024-05-01T10:05:00Z,30,null,30,30\n2024-05-01T10:10:00Z,40,60,50,60\n"
    )
    s = read_wide(f, metric="cpu_util", unit="%")
    assert s.metadata["servers"] == ["web01", "web02"]
    left = {i["server"]: i["detail"] for i in s.quality.issues if i["count"] == 3}
    assert left == {
        "avg": "column 'avg' is the mean of the other 2 columns at all 3 rows, not a "
        "server; left out",
        "max": "column 'max' is the max of the other 2 columns at all 3 rows, not a "
        "server; left out",
    }


# ---------------------------------------- Grafana "series as rows" (Monasca)

ROWS = METRICS / "heekof_grafana4_series_rows_monasca_excerpt.csv"
MINI = "net.out_packets_sec.value(device=eth0,hostname=mini-mon,service=monitoring,)"
DEV = "net.out_packets_sec.value(device=eth0,hostname=devstack2,service=client-str,)"


def test_series_rows_layout_each_series_a_server() -> None:
    # 'Series;Time;Value', one row per point (Grafana 4, Monasca datasource).
    # Once: --format wide took 'Series' for a server (20,234 bad cells in the
    # whole file) and --format long wanted server and metric columns.
    s = read_wide(ROWS, metric="cpu_util", unit="%")
    assert s.metadata["servers"] == [DEV, MINI]
    by = s.data.groupby("server")["value"]
    assert by.size().to_dict() == {DEV: 12, MINI: 12}
    assert by.max().to_dict() == pytest.approx(
        {DEV: 0.003333333333333333, MINI: 0.08266666666666667}
    )
    assert s.quality.notes[0].startswith(
        "heekof_grafana4_series_rows_monasca_excerpt.csv: Grafana's series-as-rows "
        "layout (Series, Time, Value); each series name is read as a server (2: "
    )
    assert str(s.data["timestamp"].min()) == "2016-05-19 11:36:27+00:00"


def test_series_rows_file_given_as_long_says_what_to_do() -> None:
    with pytest.raises(SeriesError) as err:
        read_long(ROWS)
    assert err.value.problems == [
        "heekof_grafana4_series_rows_monasca_excerpt.csv: expected the columns "
        "server, timestamp, metric, value (and optionally unit) or their aliases, "
        "got 'Series', 'Time', 'Value'; missing server, metric; this is Grafana's "
        "series-as-rows export (one series per server, one metric per file): read "
        "it with --format wide --metric NAME."
    ]


def test_series_rows_grafana6_quoted_with_null_and_repeats(tmp_path: Path) -> None:
    # Grafana 6 (file_export.ts convertSeriesListToCsv): quoted, CRLF, null.
    f = tmp_path / "grafana_data_export.csv"
    f.write_bytes(
        b'"Series";"Time";"Value"\r\n'
        b'"web01";"2020-05-04T15:29:37+02:00";null\r\n'
        b'"web01";"2020-05-04T15:29:38+02:00";48.1875\r\n'
        b'"web01";"2020-05-04T15:29:38+02:00";48.46875\r\n'
        b'"web02";"2020-05-04T15:29:38+02:00";12'
    )
    s = read_wide(f, metric="cpu_util", unit="%")
    assert s.data["value"].tolist() == [pytest.approx(0.481875), pytest.approx(0.12)]
    assert issues(s, "dropped") == {"web01": 1}
    assert issues(s, "duplicate") == {"web01": 1}


# ------------------------------------- Alibaba cluster-trace-v2018 (real rows)

ALI = METRICS / "alibaba2018_gohsyi_m_1932"


def test_alibaba_2018_real_rows_of_one_machine() -> None:
    # The reader had only a hand-made sample; these are the first 200 lines of a
    # real machine_usage.csv (no header; mem_gps and mkpi empty on every line)
    # and the 8 machine_meta.csv events of m_1932 (cpu_num 96).
    s = read_alibaba_machine_usage(ALI, start="2018-01-01T00:00Z")
    by = s.data.groupby("metric")["value"]
    assert by.size().to_dict() == {"cpu_util": 200, "mem_util": 200}
    assert by.max().to_dict() == pytest.approx({"cpu_util": 0.85, "mem_util": 0.97})
    assert by.mean()["cpu_util"] == pytest.approx(0.4321)
    assert s.metadata["machines"]["m_1932"]["cpu_count"] == 96
    # time_stamp 386640 .. 404150 s after the start given
    assert str(s.data["timestamp"].min()) == "2018-01-05 11:24:00+00:00"
    assert str(s.data["timestamp"].max()) == "2018-01-05 16:15:50+00:00"
    cpu = s.data[s.data["metric"] == "cpu_util"].set_index("timestamp")["value"]
    assert str(cpu.idxmax()) == "2018-01-05 12:53:40+00:00"  # 392020 s: 85 %
