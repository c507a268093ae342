"""Compressed inputs: a .gz/.bz2/.xz/one-file .zip of every text format reads as the file.

Compression is told by the first bytes (gzip RFC 1952 §2.3.1, bzip2 "BZh",
xz format spec 1.2.1 §2.1.1.1, PKWARE APPNOTE 6.3.10 §4.3.7), so a file
renamed without its suffix reads too.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import shutil
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from vsizer._textio import (
    candidate_encodings,
    compression_of,
    decode,
    decodings,
    plain_name,
    read_bytes,
    utc_ns,
)
from vsizer.errors import InventoryError, SeriesError
from vsizer.inventory import read_inventory
from vsizer.series.sources import load_series

DATA = Path(__file__).parent / "data"
SERIES = DATA / "series"


def _compress(src: Path, dest_dir: Path, kind: str, name: str | None = None) -> Path:
    """Compressed copy of *src* in *dest_dir* named ``<name><suffix>``."""
    raw = src.read_bytes()
    base = name or src.name
    if kind == "gz":
        out = dest_dir / f"{base}.gz"
        out.write_bytes(gzip.compress(raw))
    elif kind == "bz2":
        out = dest_dir / f"{base}.bz2"
        out.write_bytes(bz2.compress(raw))
    elif kind == "xz":
        out = dest_dir / f"{base}.xz"
        out.write_bytes(lzma.compress(raw))
    else:
        out = dest_dir / f"{base}.zip"
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(base, raw)
    return out


KINDS = ("gz", "bz2", "xz", "zip")

#: format -> (sample file under tests/data/series, reader options)
SINGLE_FILES = {
    "sar_sadf_dh": ("sar", "sysstat/sadf_dh_cpu_mem_dev.csv", {}),
    "sar_sadf_j": ("sar", "sysstat/sadf_j_jst.json", {}),
    "sar_text": ("sar", "sysstat/sar_u_r_ampm_restart.txt", {"tz": "Asia/Tokyo"}),
    "perfmon_cp932": ("perfmon", "perfmon/ja_cp932.csv", {}),
    "perfmon_utf16": ("perfmon", "perfmon/en_tokyo_bias_utf16.csv", {}),
    "prometheus_json": (
        "prometheus",
        "prometheus/query_range_cpu.json",
        {"metric": "cpu_util"},
    ),
    "long": ("long", "tabular/long_units.csv", {}),
    "wide": ("wide", "tabular/wide_hints.csv", {}),
    "bitbrains": ("bitbrains", "traces/bitbrains/quirks.csv", {}),
    "alibaba": ("alibaba", "traces/alibaba/machine_usage_sample.csv", {}),
}


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(
        a.reset_index(drop=True), b.reset_index(drop=True), check_exact=True
    )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", sorted(SINGLE_FILES))
def test_compressed_file_reads_as_the_plain_file(tmp_path, case, kind):
    fmt, rel, opts = SINGLE_FILES[case]
    plain = load_series([SERIES / rel], fmt, **opts)
    packed = _compress(SERIES / rel, tmp_path, kind)
    got = load_series([packed], fmt, **opts)
    assert len(plain.data) > 0
    _same(got.data, plain.data)


@pytest.mark.parametrize("kind", KINDS)
def test_compressed_folders_planetlab_and_scrapes(tmp_path, kind):
    # PlanetLab: a folder of per-VM files; the server is the name without suffix.
    src = SERIES / "traces/planetlab/20110101"
    folder = tmp_path / "20110101"
    folder.mkdir()
    for f in sorted(src.iterdir()):
        _compress(f, folder, kind)
    plain = load_series([src], "planetlab")
    got = load_series([folder], "planetlab")
    assert sorted(set(got.data["server"])) == ["vm b", "vm_a"]
    _same(got.data, plain.data)
    # node_exporter scrapes: rates need the scrapes together.
    scrapes = tmp_path / "scrapes"
    scrapes.mkdir()
    names = [f"web01_{c}.prom" for c in "abcd"]
    for n in names:
        _compress(SERIES / "prometheus" / n, scrapes, kind)
    plain = load_series(
        [SERIES / "prometheus" / n for n in names], "prometheus", server="web01"
    )
    got = load_series([scrapes], "prometheus", server="web01")
    assert len(plain.data) > 0
    _same(got.data, plain.data)


@pytest.mark.parametrize("kind", KINDS)
def test_compressed_inventory_csv(tmp_path, kind):
    for name in ("table_ja.csv", "azure_migrate_docs_fields.csv"):
        plain = read_inventory(DATA / "inventory" / name)
        got = read_inventory(_compress(DATA / "inventory" / name, tmp_path, kind))
        assert got.source_format == plain.source_format
        _same(got.servers, plain.servers)


def test_shared_sar_samples_gz(tmp_path, shared_data):
    formats = shared_data / "formats"
    for fmt, rel in (
        ("sar", "sysstat_sar_sadf/expected.sadf-d.txt"),
        ("sar", "sysstat_sar_sadf/expected.sar-all.txt"),
        ("sar", "sysstat_sar_sadf/expected.sadf-j.txt"),
    ):
        plain = load_series([formats / rel], fmt)
        got = load_series([_compress(formats / rel, tmp_path, "gz")], fmt)
        assert len(plain.data) > 0
        _same(got.data, plain.data)


def test_magic_bytes_not_the_suffix_decide(tmp_path):
    src = SERIES / "tabular/long_units.csv"
    hidden = tmp_path / "export.csv"  # gzip bytes under a plain name
    hidden.write_bytes(gzip.compress(src.read_bytes()))
    _same(load_series([hidden], "long").data, load_series([src], "long").data)
    fake = tmp_path / "plain.csv.gz"  # plain bytes under a .gz name
    shutil.copy(src, fake)
    _same(load_series([fake], "long").data, load_series([src], "long").data)
    assert compression_of(b"\x1f\x8b\x08") == "gzip"
    assert compression_of(b"BZh91AY") == "bzip2"
    assert compression_of(b"\xfd7zXZ\x00\x00") == "xz"
    assert compression_of(b"PK\x03\x04") == "zip"
    assert compression_of(b"time,a") is None
    assert plain_name("a/web01.csv.GZ") == "web01.csv"
    assert plain_name("vm_a") == "vm_a"


def test_zip_with_two_members_is_an_error(tmp_path):
    two = tmp_path / "two.zip"
    with zipfile.ZipFile(two, "w") as z:
        z.writestr("a.csv", "time,a\n")
        z.writestr("b.csv", "time,b\n")
    expected = (
        "two.zip: expected a zip archive holding one file, got 2: a.csv, b.csv; "
        "unzip it and name the files (or their folder) instead."
    )
    with pytest.raises(SeriesError) as e:
        load_series([two], "wide")
    assert str(e.value) == expected
    renamed = tmp_path / "two.csv"
    shutil.copy(two, renamed)
    with pytest.raises(InventoryError) as e:
        read_inventory(renamed)
    assert str(e.value) == expected.replace("two.zip", "two.csv")
    empty = tmp_path / "none.zip"
    with zipfile.ZipFile(empty, "w"):
        pass
    with pytest.raises(SeriesError, match=r"^none.zip: expected a zip archive holding"):
        read_bytes(empty)


def test_corrupt_compressed_data_and_undecodable_text(tmp_path):
    bad = tmp_path / "cut.csv.gz"
    bad.write_bytes(gzip.compress(b"time,a\n" * 1000)[:40])
    with pytest.raises(SeriesError) as e:
        read_bytes(bad)
    assert str(e.value).startswith("cut.csv.gz: cannot decompress the file: ")
    with pytest.raises(SeriesError) as e:
        decode(b"\x81\xff\xfe\x00x", "odd.csv")
    assert str(e.value) == (
        "odd.csv: cannot decode the file as UTF-8 or cp932 (Shift_JIS); save it "
        "as UTF-8 (a .gz, .bz2, .xz or one-file .zip is decompressed first)."
    )
    assert decode("é".encode("utf-16"), "x") == ("é", "utf-16")
    assert decode("\ufeffé".encode(), "x") == ("é", "utf-8-sig")
    assert decode("サーバ".encode("cp932"), "x") == ("サーバ", "cp932")


def test_undecodable_inventory_csv_names_the_encodings(tmp_path):
    bad = tmp_path / "servers.csv.gz"
    bad.write_bytes(gzip.compress(b"name,cpu\n\x81\xff\xfe,2\n"))
    with pytest.raises(InventoryError) as e:
        read_inventory(bad)
    assert str(e.value) == (
        "servers.csv.gz: cannot decode the file as UTF-8 or cp932 (Shift_JIS); save "
        "it as UTF-8 (a .gz, .bz2, .xz or one-file .zip is decompressed first)."
    )


# ------------------------------------------------- one decoder, per-reader rules


def test_candidate_encodings_bom_and_bare_utf16():
    """A UTF-16 mark decides unless refused; bare UTF-16 told by its first character."""
    marked = "x".encode("utf-16")
    assert candidate_encodings(marked) == ("utf-16",)
    assert candidate_encodings(marked, ("latin-1",), utf16_bom=False) == ("latin-1",)
    le, be = '"a'.encode("utf-16-le"), '"a'.encode("utf-16-be")
    assert candidate_encodings(le, ("cp1252",)) == ("cp1252",)
    assert candidate_encodings(le, ("cp1252",), bare_utf16_start=b'"') == ("utf-16-le",)
    assert candidate_encodings(be, ("cp1252",), bare_utf16_start=b'"') == ("utf-16-be",)


def test_decodings_pass_over_what_fails():
    data = "サーバ".encode("cp932")
    assert list(decodings(data, ("utf-8-sig", "cp932", "no-such-codec"))) == [
        ("サーバ", "cp932")
    ]
    assert list(decodings(b"\xff", ("utf-8",), errors="replace")) == [("\ufffd", "utf-8")]


def test_decode_parameters_of_the_readers():
    """sysstat: Latin-1 last and no UTF-16 mark; a Prometheus scrape: bad bytes replaced."""
    sysstat = ("utf-8-sig", "cp932", "latin-1")
    assert decode(b"\xff\xfe\x81\xff", "sa", encodings=sysstat, utf16_bom=False) == (
        "\xff\xfe\x81\xff",
        "latin-1",
    )
    assert decode(b"a\xffb", "m.prom", encodings=("utf-8",), utf16_bom=False,
                  errors="replace") == ("a\ufffdb", "utf-8")
    with pytest.raises(SeriesError, match=r"^q.json: cannot decode the file as UTF-8;"):
        decode(b"\xff", "q.json", encodings=("utf-8-sig",), utf16_bom=False)


def test_utc_ns_one_parser():
    """One time as ns since the epoch, UTC; a naive time is UTC; not a time -> None."""
    assert utc_ns("1970-01-01T00:00:01Z") == 1_000_000_000
    assert utc_ns("1970-01-01 09:00:01+09:00") == 1_000_000_000
    assert utc_ns(pd.Timestamp("1970-01-01 00:00:01")) == 1_000_000_000
    assert utc_ns("not a time") is None
    assert utc_ns("NaT") is None

    from vsizer.series import _tidy
    from vsizer.series.traces import _common

    assert not hasattr(_tidy, "utc_ns")  # one parser, imported from _textio
    assert _common.utc_ns is utc_ns
