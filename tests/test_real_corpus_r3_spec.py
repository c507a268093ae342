"""Corpus round 3: published SPEC results as mirrored by others
(tests/data/real/spec/, "Third round" in its README.md).

Four SPECpower_ssj2008 result listings from the history of
cloud-carbon-footprint/cloud-carbon-coefficients, one per layout: the results
table copied into a spreadsheet (2021), the same table scraped with its line
breaks removed and the date inside the system cell (2023-04), and SPEC's own
"Dump All Records As CSV" export written back through pandas, with and without
the ``# Cores`` column (2023-04-28, 2023-05-01). Plus SPEC CPU2017: the full
results dump in ../shared (when present) and files that are *not* listings
(one result's own report, a compiler-run log). Figures checked by hand with
the csv module, independent of vsizer::

    cd tests/data/real/spec
    python3 -c "import csv;r=[x for x in csv.reader(open('ccf_specpower_2023_scraped_excerpt.csv',newline='')) if any(x)][1:];nc=[x for x in r if 'NC' in x[11:13]];print(len(r),len(nc),sum(1 for x in r if x not in nc and x[2]!='1'))"
    # 156 results, 4 NC, 26 multi-node -> 126 kept
    python3 -c "import csv;r=list(csv.reader(open('ccf_specpower_2021_table_excerpt.csv',newline='')))[1:];print(len(r),[x[1] for x in r if x[3]==''],[x[2] for x in r if 'NF8480M6' in x[1]])"
    # 38 results, R7515 has no Nodes cell, NF8480M6 'Jan 28, 0201'
    python3 -c "import csv;r=list(csv.reader(open('ccf_specpower_dump_2023-05-01_excerpt.csv',newline='')))[1:];print(len(r),sum(int(x[8])>2 for x in r))"
    # 40 results, 9 with more than 2 chips
    # RS720-E9/RS8 (all four files): 2 chips x 28 cores, 112 threads, 2500 MHz,
    # 192 GB, idle 48.2 W, 100 % 385 W; 12727 overall ssj_ops/watt
    # CPU2017 dump (../shared): median over the CINT2017rate rows of
    # Base Result / # Cores: AMD EPYC 9654 61 results -> 8.697916666666666;
    # 'Intel Xeon Gold 6538Y+' (29 results, one spelled with two spaces) -> 9.78125
    grep -E 'int_base|CPU Name|Nominal|^Enabled' virtualclient_SpecCpuIntRateExample.csv
    # 770.361774, AMD EPYC 7713, 2000, 128 cores 2 chips -> 6.018451359375 per core
    grep -E 'int_base|CPU Name|Nominal|Enabled' virtualclient_SpecCpuIntRateExample.txt
    # 777 -> 6.0703125 per core
"""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path

import pandas as pd
import pytest

from vsizer.catalogs import import_spec_cpu2017, read_host_catalog, write_catalog_csv
from vsizer.catalogs._specpower_layouts import header_key, resolve, split_system_cell
from vsizer.catalogs.cpu_catalog import read_cpu_catalog
from vsizer.catalogs.import_specpower import import_specpower
from vsizer.cli import main
from vsizer.errors import CatalogError

pytestmark = pytest.mark.slow

REAL = Path(__file__).parent / "data" / "real" / "spec"
TABLE_2021 = REAL / "ccf_specpower_2021_table_excerpt.csv"
SCRAPED = REAL / "ccf_specpower_2023_scraped_excerpt.csv"
DUMP_0501 = REAL / "ccf_specpower_dump_2023-05-01_excerpt.csv"
DUMP_0428 = REAL / "ccf_specpower_dump_2023-04-28_excerpt.csv"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
CPU2017_DUMP = SHARED / "cpu_perf_spec_cpu2017" / "cpu2017-results.csv.gz"
needs_cpu2017 = pytest.mark.skipif(
    not CPU2017_DUMP.exists(), reason="../shared/data not present"
)
RS720 = "ASUS RS720-E9/RS8 2x Platinum 8180"


def _row(frame, model: str) -> dict:
    (row,) = [r for r in frame.to_dict("records") if r["model"] == model]
    return row


def _rs720(path: Path) -> tuple:
    r = _row(import_specpower(path), RS720)
    return (
        r["sockets"],
        r["cores_per_socket"],
        r["threads_per_core"],
        r["cpu_mhz"],
        r["mem_gib"],
        r["power_idle_w"],
        r["power_max_w"],
        r["cpu_name"],
    )


# --- every layout gives the same figures for the same result ------------------


@pytest.mark.parametrize("path", [TABLE_2021, SCRAPED, DUMP_0501, DUMP_0428])
def test_every_layout_reads_the_rs720_result_alike(path):
    # defect: the scraped table and SPEC's dump were refused ("not a SPECpower
    # file: expected the columns of ..."): 3 of the 4 layouts
    assert _rs720(path) == (2, 28, 2, 2500, 192, 48.2, 385, "Intel Xeon Platinum 8180")


def test_scraped_table_date_comes_from_the_system_cell():
    out = import_specpower(SCRAPED)
    assert len(out) == 126  # 156 results - 4 NC - 26 multi-node
    assert out.attrs["skipped"] == 30
    assert out.attrs["notes"] == [
        "ccf_specpower_2023_scraped_excerpt.csv: 4 result(s) left out: idle or 100 % "
        "watts missing (NC), zero or idle above 100 %",
        "ccf_specpower_2023_scraped_excerpt.csv: 26 result(s) left out: multi-node "
        "(watts of a whole enclosure)",
    ]
    assert _row(out, RS720)["source"] == (
        "SPECpower_ssj2008 result ASUSTeK Computer Inc. RS720-E9/RS8, submitted "
        "Dec 06, 2018 (idle and 100 % from ccf_specpower_2023_scraped_excerpt.csv)"
    )
    assert not out["model"].str.contains("HTML|\n", regex=True).any()


def test_split_system_cell():
    cell = "RS720Q-E9-RS8\nNone\n\n May 10 2019 | \n    HTML | \n    Text"
    assert split_system_cell(cell) == ("RS720Q-E9-RS8", "May 10 2019")
    assert split_system_cell("PowerEdge R640 (Intel Xeon Platinum 8180)") == (
        "PowerEdge R640 (Intel Xeon Platinum 8180)",
        "",
    )


def test_header_spellings_are_one_name():
    assert header_key("avg. watts@ 100%") == header_key("avg. watts\n@ 100%")
    assert header_key("Hardware VendorTest Sponsor") == header_key(
        "Hardware Vendor\nTest Sponsor"
    )
    assert resolve(["a", "b"]) is None


# --- SPEC's dump: no node count, month-only dates, no '# Cores' ---------------


def test_dump_without_nodes_is_read_with_a_counted_warning():
    out = import_specpower(DUMP_0501)
    assert len(out) == 40 and out.attrs["skipped"] == 0
    assert out.attrs["notes"] == [
        "ccf_specpower_dump_2023-05-01_excerpt.csv: 40 result(s) state no node "
        "count (no Nodes column or an empty cell) and were read as one server "
        "each; a multi-node result (blades, twins) would count its whole "
        "enclosure's watts as one server's; 9 of them state more than 2 chips "
        "(e.g. ASUS RS620SA-E10-RS12): check them on spec.org"
    ]
    # 'Published' is a month: written as such, not as the 1st of the month
    assert _row(out, RS720)["source"].endswith(
        "RS720-E9/RS8, published Dec 2018 (idle and 100 % from "
        "ccf_specpower_dump_2023-05-01_excerpt.csv)"
    )


def test_dump_without_total_cores_takes_chips_times_cores_per_chip():
    out = import_specpower(DUMP_0428)
    big = [r for r in out.to_dict("records") if r["model"].startswith("ASUS RS620SA")]
    # 6 chips x 64 cores per chip, 768 threads; no date column at all
    assert [(r["sockets"], r["cores_per_socket"], r["threads_per_core"]) for r in big] == [
        (6, 64, 2),
        (6, 64, 2),
    ]
    assert [(r["power_idle_w"], r["power_max_w"]) for r in big] == [
        (228.0, 1140.0),
        (250.0, 1141.0),
    ]


# --- the 2021 table: empty Nodes cell, a year typo, a two-line vendor cell ----


def test_table_2021_empty_nodes_and_bad_date_are_noted():
    # defects: the result with an empty Nodes cell was dropped silently
    # (counted as skipped, never said), and 'Jan 28, 0201' ended every
    # import of the full file in "internal error (OutOfBoundsDatetime ...)"
    # once dates were read per format
    out = import_specpower(TABLE_2021)
    assert len(out) == 37  # 38 results - 1 NC
    name = TABLE_2021.name
    assert out.attrs["notes"] == [
        f"{name}: 1 result(s) left out: idle or 100 % watts missing (NC), zero or "
        "idle above 100 %",
        f"{name}: 1 result(s) have an unreadable date (e.g. 'Jan 28, 0201' for "
        "Inspur NF8480M6): left out of the source text",
        f"{name}: 1 result(s) state no node count (no Nodes column or an empty "
        "cell) and were read as one server each; a multi-node result (blades, "
        "twins) would count its whole enclosure's watts as one server's",
    ]
    r7515 = _row(out, "Dell PowerEdge R7515 1x EPYC 7742")
    assert (r7515["sockets"], r7515["cores_per_socket"], r7515["power_max_w"]) == (
        1,
        64,
        246.0,
    )
    colfax = _row(out, "Colfax CX2266-N2 2x Opteron 2216HE")
    assert colfax["source"].startswith(
        "SPECpower_ssj2008 result Colfax International Advanced Micro Devices "
        "CX2266-N2, submitted Dec 11, 2007"
    )


@pytest.mark.parametrize("path", [TABLE_2021, SCRAPED, DUMP_0501, DUMP_0428])
def test_written_catalog_reads_back(path, tmp_path):
    out = tmp_path / "hosts.csv"
    write_catalog_csv(import_specpower(path), out)
    assert RS720 in read_host_catalog(out).models


def test_cli_prints_every_note(tmp_path, capsys):
    with pytest.raises(SystemExit) as done:
        main(["catalog", "import-specpower", str(TABLE_2021), "-o", str(tmp_path / "h.csv")])
    assert done.value.code == 0
    err = " ".join(capsys.readouterr().err.split())
    assert err.count("warning: ") == 3
    assert "1 result(s) have an unreadable date" in err


# --- SPEC's dump with the per-load columns: the 11-point curve is read --------


def test_dump_with_per_load_watts_gives_the_curve(tmp_path):
    # Built from SPEC's dump column names (as the CCF fetcher renames them) and
    # the published Dell R640 result power_ssj2008-20170829-00781 (W at active
    # idle, 10 %, ..., 100 %); no mirrored dump with these columns was found.
    curve = (55, 125, 151, 176, 202, 232, 261, 301, 357, 421, 469)
    loads = [f"Average watts @ {p}% of target load" for p in range(100, 0, -10)]
    head = [
        "Benchmark", "Hardware Vendor\t", "System", "# Nodes", "# Cores", "# Chips",
        "Processor", "Processor MHz", "Memory (GB)", *loads,
        "Average watts @ active idle", "Result", "Published",
    ]
    row = [
        "power_ssj2008", "Dell Inc.", "PowerEdge R640", "1", "56", "2",
        "Intel Xeon Platinum 8180", "2500", '<A HREF="#notes">192</A>',
        *(str(w) for w in curve[:0:-1]), "55", "11720", "Sep-2017",
    ]
    path = tmp_path / "power_dump.csv"
    path.write_text(",".join(head) + "\n" + ",".join(f'"{c}"' for c in row) + "\n")
    (r,) = import_specpower(path).to_dict("records")
    assert r["power_curve_w"] == tuple(float(w) for w in curve)
    assert (r["mem_gib"], r["sockets"], r["cores_per_socket"]) == (192.0, 2, 28)
    assert r["source"].endswith("published Sep 2017 (11-point curve from power_dump.csv)")


# --- files that are not listings: one line, never a traceback -----------------


VC_CSV = REAL / "virtualclient_SpecCpuIntRateExample.csv"
VC_TXT = REAL / "virtualclient_SpecCpuIntRateExample.txt"


def test_single_result_csv_gives_a_cpu_row():
    # defect: one result's own report (SPEC's CSV formatter) ended import-spec in
    # "internal error (ParserError ...)"; it is now read as one result
    out = import_spec_cpu2017(VC_CSV)
    (r,) = out.to_dict("records")
    # 'CPU Name','AMD EPYC 7713'; Nominal 2000; Enabled '128 cores, 2 chips';
    # SPECrate2017_int_base,770.361774 -> 770.361774 / 128
    assert (r["cpu_name"], r["cores"], r["cpu_mhz"]) == ("AMD EPYC 7713", 64, 2000.0)
    assert r["score_per_core"] == 770.361774 / 128 == 6.018451359375
    assert r["aliases"] == "AMD EPYC 7713 64-Core Processor"
    assert r["source"] == (
        "SPEC CPU2017 CINT2017rate, median of 1 result, e.g. "
        "virtualclient_SpecCpuIntRateExample.csv (ASUS RS720A-E11(KMPP-D32) Server "
        "System 2.00 GHz, AMD EPYC 7713)"
    )
    assert out.attrs["notes"] == []


def test_single_result_text_report_gives_a_cpu_row():
    (r,) = import_spec_cpu2017(VC_TXT).to_dict("records")
    # ' SPECrate(R)2017_int_base                 777' -> 777 / 128
    assert (r["cpu_name"], r["cores"], r["cpu_mhz"]) == ("AMD EPYC 7713", 64, 2000.0)
    assert r["score_per_core"] == 777 / 128 == 6.0703125


def test_single_result_of_an_invalid_run_is_noted(tmp_path):
    path = tmp_path / "run.csv"
    path.write_bytes(VC_CSV.read_bytes().replace(b"valid,1", b"valid,0", 1))
    assert import_spec_cpu2017(path).attrs["notes"] == [
        "run.csv: not a valid (reportable) SPEC run: its SPECrate2017_int_base is "
        "an estimate, not a published result"
    ]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "virtualclient_SpecCpuIntRateBaseOnlyExample.txt",
            "CPU Name is 'could not determine'; Enabled is 'cores, could not "
            "determine chips,  threads/core', expected 'N cores, N chips'; Nominal "
            "is '', expected MHz",
        ),
        (
            "virtualclient_intrate-win-x64-1.txt",
            "SPECrate2017_int_base is '--', not a score; Nominal is '', expected MHz",
        ),
    ],
)
def test_single_result_without_hardware_is_refused_in_one_line(name, message):
    # runcpu reports of local runs whose sysinfo could not read the hardware
    with pytest.raises(CatalogError) as info:
        import_spec_cpu2017(REAL / name)
    assert str(info.value) == f"{name}: one SPEC CPU2017 result's report, but {message}."


def test_ragged_file_is_refused_in_one_line(tmp_path):
    # defect: rows wider than the first line ended import-spec in "internal
    # error (ParserError ...)" and import-specpower in a two-line message
    path = tmp_path / "notes.csv"
    path.write_text('"Flags report"\n"x"\n\nBenchmark,"Base # Copies",Run\n500,80,386\n')
    with pytest.raises(CatalogError) as info:
        import_spec_cpu2017(path)
    assert str(info.value) == (
        "notes.csv: not a SPEC CPU2017 results listing: its first line is 'Flags "
        "report'; expected SPEC's 'Dump All Records As CSV' export (columns "
        "'Benchmark', 'Processor', 'Processor MHz', '# Cores', '# Chips', 'Base "
        "Result') or cint2017rate_by_system.csv, or one Integer Rate result's "
        ".csv/.txt report."
    )
    with pytest.raises(CatalogError) as info:
        import_specpower(path)
    assert str(info.value) == (
        "notes.csv: not a SPECpower results table (Error tokenizing data. C error: "
        "Expected 1 fields in line 4, saw 3); expected one header line and one "
        "result per row (one result's own report is not read)."
    )


@pytest.mark.parametrize("command", ["import-spec", "import-specpower"])
def test_empty_file_is_one_line(command, tmp_path, capsys):
    # defect: "internal error (EmptyDataError: No columns to parse from file)"
    path = tmp_path / "empty.csv"
    path.write_text("")
    with pytest.raises(SystemExit) as done:
        main(["catalog", command, str(path), "-o", str(tmp_path / "o.csv")])
    assert done.value.code != 0
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("error: empty.csv: ")
    assert "empty" in err[len("error: empty.csv: "):]


def test_specpower_gzipped_listing_is_read(tmp_path):
    path = tmp_path / "dump.csv.gz"
    path.write_bytes(gzip.compress(DUMP_0501.read_bytes()))
    assert len(import_specpower(path)) == 40


# --- SPEC CPU2017: the full dump ------------------------------------------------


@needs_cpu2017
def test_cpu2017_hand_checked_medians_and_skip_note():
    out = import_spec_cpu2017(CPU2017_DUMP)
    rows = {r["cpu_name"]: r for r in out.to_dict("records")}
    assert rows["AMD EPYC 9654"]["score_per_core"] == 8.697916666666666
    assert rows["AMD EPYC 9654"]["source"].startswith(
        "SPEC CPU2017 CINT2017rate, median of 61 results"
    )
    # two spellings ('Gold  6538Y+' with two spaces) are one CPU
    assert rows["Intel Xeon Gold 6538Y+"]["score_per_core"] == 9.78125
    assert rows["Intel Xeon Gold 6538Y+"]["source"].startswith(
        "SPEC CPU2017 CINT2017rate, median of 29 results"
    )
    assert out.attrs["notes"] == [
        "cpu2017-results.csv.gz: 21 CINT2017rate result(s) left out: no Base "
        "Result (0 or empty) (e.g. T-Head Yitian 710)"
    ]


def test_cpu2017_export_without_disclosure_columns(tmp_path):
    # an export with chosen columns (no 'Disclosure'/'Disclosures') was refused
    # for a column only used for the result's link
    path = tmp_path / "cpu2017-export.csv"
    path.write_text(
        'Benchmark,"Hardware Vendor\t",System,"Base Result","# Cores","# Chips ",'
        '"Processor ","Processor MHz"\n'
        'CINT2017rate,"Dell Inc.","PowerEdge R660",640,64,2,'
        '"Intel Xeon Gold 6430",2100\n'
        'CINT2017rate,"Dell Inc.","PowerEdge R760",660,64,2,'
        '"Intel Xeon Gold 6430",2100\n'
    )
    (r,) = import_spec_cpu2017(path).to_dict("records")
    assert (r["cpu_name"], r["cores"], r["score_per_core"]) == (
        "Intel Xeon Gold 6430",
        32,
        10.15625,  # median of 640/64 = 10.0 and 660/64 = 10.3125
    )
    assert r["source"] == "SPEC CPU2017 CINT2017rate, median of 2 results"


def test_header_only_files_are_refused_in_one_line(tmp_path):
    # defect (found by mutating the corpus): a curves file with its header and
    # no row ended in "internal error (TypeError: operation 'add' not supported
    # ...)"; a CPU2017 dump with no CINT2017rate row wrote an empty catalog
    head = SCRAPED.read_bytes().split(b"\r\n", 1)[0] + b"\r\n"
    path = tmp_path / "head.csv"
    path.write_bytes(head)
    with pytest.raises(CatalogError) as info:
        import_specpower(path)
    assert str(info.value) == (
        "head.csv: a header line and no result row; expected one SPECpower result "
        "per row under the header."
    )
    dump = tmp_path / "fp-only.csv"
    dump.write_text(
        'Benchmark,"Base Result","# Cores","# Chips ","Processor ","Processor MHz"\n'
        "CFP2017rate,300,64,2,Intel Xeon Gold 6430,2100\n"
        "CINT2017,12.5,64,2,Intel Xeon Gold 6430,2100\n"
    )
    with pytest.raises(CatalogError) as info:
        import_spec_cpu2017(dump)
    assert str(info.value) == (
        "fp-only.csv: no CINT2017rate result (the file holds 1 CFP2017rate, 1 "
        "CINT2017); CPU scores come from the CINT2017rate (SPECrate2017_int_base) "
        "rows."
    )


def test_zero_chips_is_no_configuration_not_a_huge_number(tmp_path):
    # defect: SPEC's dump writes '# Chips' 0 when a result states none; the
    # importer wrote sockets 0 and cores_per_socket -9223372036854775808
    # (inf cast to an integer) for 'ASUS RS100-E5 0x Xeon X3360', as complete
    rows = list(csv.reader(io.StringIO(DUMP_0501.read_text(encoding="utf-8"))))
    assert (rows[0][8], rows[1][8]) == ("Chips", "1")  # of ASUS RS100-E5
    rows[1][8] = "0"
    path = tmp_path / "dump.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    out = import_specpower(path)
    assert out.attrs["incomplete"] == ["ASUS RS100-E5"]
    (row,) = [r for r in out.to_dict("records") if r["model"] == "ASUS RS100-E5"]
    assert pd.isna(row["sockets"]) and pd.isna(row["cores_per_socket"])
    assert (out["cores_per_socket"].dropna() > 0).all()


def test_cpu_without_chips_or_mhz_is_left_out_with_a_note(tmp_path):
    # defect: '# Chips' 0 wrote cores 0 and an empty 'Processor MHz' wrote the
    # alias '... CPU @ nanGHz': a catalog that vsizer itself then refused
    # ("row 3, column 'cores': expected a positive integer, got '0'")
    path = tmp_path / "export.csv"
    path.write_text(
        'Benchmark,"Base Result","# Cores","# Chips ","Processor ","Processor MHz"\n'
        "CINT2017rate,640,64,0,Intel Xeon Gold 6430,2100\n"
        "CINT2017rate,300,32,1,Intel Xeon Gold 5416S,\n"
        "CINT2017rate,330,32,1,Intel Xeon Gold 5416S,0\n"
        "CINT2017rate,660,64,2,Intel Xeon Gold 6430,2100\n"
    )
    out = import_spec_cpu2017(path)
    (r,) = out.to_dict("records")
    # the 6430 keeps its sized result's chips (64 / 2); its median is over both
    assert (r["cpu_name"], r["cores"], r["cpu_mhz"]) == ("Intel Xeon Gold 6430", 32, 2100.0)
    assert r["score_per_core"] == (640 / 64 + 660 / 64) / 2
    assert out.attrs["notes"] == [
        "export.csv: 1 CPU(s) left out: no usable '# Chips' or 'Processor MHz' to "
        "size them (Intel Xeon Gold 5416S)"
    ]
    written = tmp_path / "cpus.csv"
    write_catalog_csv(out, written)
    assert "nan" not in written.read_text()
    assert [e.cpu_name for e in read_cpu_catalog(written).entries] == [
        "Intel Xeon Gold 6430"
    ]
