"""Generate the bundled sample inventory (a fictional company's server list).

Writes ``vsizer/data/samples/inventory_ja.xlsx`` and ``inventory_ja.csv``
(UTF-8 with BOM, same rows). The output is deterministic: run it again and
the files are byte-identical, so the committed copies can be checked with
``git diff --exit-code`` after running it.

The list mimics a spreadsheet as kept in the field (DESIGN.md §3): a title
row above the header, Japanese headers, 40 servers of about ten systems in a
production pool (本番) and a development pool (開発), redundant pairs, three
servers not migrated (移行 = 対象外), mixed CPU generations from a 2006 Xeon
to Skylake, power measured for some servers only. Per-core scores
(``SPECrate2017/コア``) are filled for two servers (values near the median of
published SPECrate2017_int_base / core results for the CPU); the others are
left for the CPU catalog. The two old CPUs have no SPECrate2017 score.
The data are invented; only the hardware names are real.

Usage::

    python scripts/make_sample_inventory.py [output_dir]
"""

from __future__ import annotations

import csv
import io
import re
import sys
import zipfile
from pathlib import Path

import openpyxl
from openpyxl.styles import Alignment, Font, PatternFill

OUT_DIR = Path(__file__).resolve().parents[1] / "vsizer" / "data" / "samples"
TITLE = "サーバ一覧（仮想化移行調査）"
SUBTITLE = "2024年4月1日時点　情報システム部"
FIXED_TIME = (2024, 4, 1, 0, 0, 0)

HEADERS = [
    "サーバ名", "機種名", "CPU名", "CPU数", "コア数/CPU", "SPECrate2017/コア",
    "CPU性能 (CPU数×コア数×SPEC CPU)", "CPU 平均使用率(%)", "CPU 最高使用率(%)",
    "CPU性能×CPU平均", "CPU性能×CPU最高", "メモリ(GB)", "メモリ使用量(GB)",
    "ディスク容量(GB)", "ディスク使用量(GB)", "ディスクIOPS", "ディスク転送量(MB/s)",
    "ネットワーク使用量(Mbps)", "消費電力(W)", "ラックU", "重要度ランク", "負荷ランク",
    "システム", "プール", "冗長相手", "移行", "OS", "備考",
]

#: Cores per socket of each CPU name used (Intel ARK).
CORES = {
    "Intel Xeon E5-2620 v2": 6, "Intel Xeon E5-2620 v3": 6,
    "Intel Xeon E5-2620 v4": 8, "Intel Xeon E5-2650 v4": 12,
    "Intel Xeon E5-2680 v3": 12, "Intel Xeon Silver 4110": 8,
    "Intel Xeon Gold 5118": 12, "Intel Xeon Gold 6130": 16,
    "Xeon 3.0GHz": 1, "Xeon 5160": 2,
}
#: Rack units of each server model.
RACK_U = {
    "PowerEdge R620": 1, "PowerEdge R630": 1, "PowerEdge R640": 1,
    "PowerEdge 2950": 2, "PRIMERGY RX2530 M1": 1, "PRIMERGY RX2530 M2": 1,
    "PRIMERGY RX2530 M4": 1, "PRIMERGY RX300 S3": 2, "PRIMERGY RX200 S2": 1,
    "ProLiant DL360 Gen9": 1, "ProLiant DL360 Gen10": 1, "ProLiant DL380 Gen9": 2,
    "ProLiant DL380 G4": 2,
}
E2v2, E3v3 = "Intel Xeon E5-2620 v2", "Intel Xeon E5-2620 v3"
E4v4, E50v4 = "Intel Xeon E5-2620 v4", "Intel Xeon E5-2650 v4"
E80v3, S4110 = "Intel Xeon E5-2680 v3", "Intel Xeon Silver 4110"
G5118, G6130 = "Intel Xeon Gold 5118", "Intel Xeon Gold 6130"
RHEL6, RHEL7 = "Red Hat Enterprise Linux 6", "Red Hat Enterprise Linux 7"
CENT7 = "CentOS 7"
W08, W12 = "Windows Server 2008 R2", "Windows Server 2012 R2"
W16 = "Windows Server 2016"

#: 備考 (the note column; unmapped by the reader, kept in metadata).
NOTES = {
    "hanbai-db01": "Oracle Database 主系",
    "hanbai-db02": "Oracle Database 待機系",
    "kaikei-db01": "SQL Server",
    "kaikei-db02": "SQL Server",
    "mail-gw01": "SMTP中継",
    "kanshi01": "Zabbix",
    "seisan-plc01": "設備制御ボード(PCI)接続のため物理継続",
    "kintai-ap01": "保守切れ",
    "print01": "保守切れ",
    "bkup01": "テープ装置接続のため物理継続",
    "fax01": "サービス廃止予定",
    "dev-build01": "CI/ビルド",
}

# name, model, cpu, sockets, score, avg %, peak %, mem GB, used GB, disk GB, used GB,
# IOPS, MB/s, Mbps, W (None = not measured), rank, system, pool, partner, migrate,
# OS
SERVERS = [
    ("hanbai-web01", "PowerEdge R630", E3v3, 2, None, 18, 52, 32, 14, 600, 210,
     120, 6.5, 85, 210, "A", "販売管理", "本番", "hanbai-web02", "対象", RHEL7),
    ("hanbai-web02", "PowerEdge R630", E3v3, 2, None, 16, 48, 32, 13, 600, 205,
     110, 6.0, 80, 205, "A", "販売管理", "本番", "hanbai-web01", "対象", RHEL7),
    ("hanbai-ap01", "PowerEdge R630", E50v4, 2, None, 32, 78, 64, 41, 900, 380,
     450, 18, 120, 265, "A", "販売管理", "本番", "", "対象", RHEL7),
    ("hanbai-db01", "ProLiant DL380 Gen9", E80v3, 2, None, 38, 85, 128, 96, 2400, 1350,
     2200, 85, 150, 390, "A", "販売管理", "本番", "hanbai-db02", "対象", RHEL7),
    ("hanbai-db02", "ProLiant DL380 Gen9", E80v3, 2, None, 12, 30, 128, 90, 2400, 1340,
     900, 40, 90, 330, "A", "販売管理", "本番", "hanbai-db01", "対象", RHEL7),
    ("kaikei-ap01", "PRIMERGY RX2530 M2", E4v4, 2, None, 22, 61, 48, 28, 600, 230,
     300, 12, 45, None, "A", "会計", "本番", "", "対象", W12),
    ("kaikei-db01", "PRIMERGY RX2530 M2", E50v4, 2, None, 27, 72, 96, 70, 1200, 640,
     1500, 60, 60, 310, "A", "会計", "本番", "kaikei-db02", "対象", W12),
    ("kaikei-db02", "PRIMERGY RX2530 M2", E50v4, 2, None, 9, 25, 96, 66, 1200, 630,
     600, 25, 40, 290, "A", "会計", "本番", "kaikei-db01", "対象", W12),
    ("jinji-ap01", "PowerEdge R620", E2v2, 2, None, 11, 35, 32, 18, 600, 190,
     150, 5, 25, 240, "B", "人事", "本番", "", "対象", W08),
    ("jinji-db01", "PowerEdge R620", E2v2, 2, None, 15, 44, 64, 40, 1200, 520,
     700, 22, 30, 260, "B", "人事", "本番", "", "対象", W08),
    ("fs01", "ProLiant DL380 Gen9", E3v3, 2, None, 8, 35, 32, 20, 8000, 5200,
     800, 45, 320, 420, "B", "ファイルサーバ", "本番", "fs02", "対象", W12),
    ("fs02", "ProLiant DL380 Gen9", E3v3, 2, None, 6, 28, 32, 19, 8000, 5100,
     600, 30, 260, None, "B", "ファイルサーバ", "本番", "fs01", "対象", W12),
    ("mail01", "ProLiant DL360 Gen9", E4v4, 2, None, 14, 46, 32, 22, 1200, 700,
     350, 14, 110, 230, "A", "メール", "本番", "mail02", "対象", CENT7),
    ("mail02", "ProLiant DL360 Gen9", E4v4, 2, None, 13, 44, 32, 21, 1200, 690,
     340, 13, 105, 228, "A", "メール", "本番", "mail01", "対象", CENT7),
    ("mail-gw01", "PowerEdge R640", S4110, 1, None, 7, 24, 16, 9, 300, 80,
     60, 2, 140, None, "B", "メール", "本番", "", "対象", CENT7),
    ("kanshi01", "PRIMERGY RX2530 M4", S4110, 1, None, 19, 40, 32, 24, 600, 310,
     250, 8, 30, 160, "B", "監視", "本番", "", "対象", CENT7),
    ("ad01", "PowerEdge R640", S4110, 1, None, 5, 22, 16, 8, 300, 90,
     40, 1.5, 15, 150, "A", "認証", "本番", "ad02", "対象", W16),
    ("ad02", "PowerEdge R640", S4110, 1, None, 5, 20, 16, 8, 300, 88,
     35, 1.4, 14, None, "A", "認証", "本番", "ad01", "対象", W16),
    ("seisan-ap01", "PRIMERGY RX2530 M4", G5118, 2, 4.98, 29, 74, 96, 60, 900, 420,
     500, 20, 70, 280, "A", "生産管理", "本番", "", "対象", W16),
    ("seisan-ap02", "PRIMERGY RX2530 M4", G5118, 2, None, 26, 70, 96, 58, 900, 410,
     480, 19, 65, None, "A", "生産管理", "本番", "", "対象", W16),
    ("seisan-db01", "ProLiant DL360 Gen10", G6130, 2, 4.99, 35, 82, 192, 150, 3200,
     1900, 3000, 120, 90, 420, "A", "生産管理", "本番", "", "対象", W16),
    ("seisan-plc01", "PRIMERGY RX300 S3", "Xeon 5160", 2, None, 12, 30, 16, 5, 292, 120,
     80, 3, 5, 380, "B", "生産管理", "本番", "", "対象外", W08),
    ("portal-web01", "PowerEdge R630", E4v4, 1, None, 10, 38, 16, 10, 300, 120,
     90, 4, 60, 170, "B", "ポータル", "本番", "portal-web02", "対象", RHEL7),
    ("portal-web02", "PowerEdge R630", E4v4, 1, None, 9, 36, 16, 10, 300, 118,
     85, 4, 58, 168, "B", "ポータル", "本番", "", "対象", RHEL7),
    ("kintai-ap01", "PowerEdge 2950", "Xeon 5160", 2, None, 24, 66, 16, 11, 292, 140,
     120, 5, 20, 340, "B", "勤怠", "本番", "", "対象", W08),
    ("print01", "ProLiant DL380 G4", "Xeon 3.0GHz", 2, None, 6, 31, 8, 2.5, 146, 60,
     40, 1.2, 12, 310, "C", "印刷", "本番", "", "対象", RHEL6),
    ("license01", "PRIMERGY RX300 S3", "Xeon 5160", 1, None, 5, 20, 16, 1.8, 146, 30,
     10, 0.3, 2, None, "C", "ライセンス", "本番", "", "対象", W08),
    ("shisan-ap01", "PRIMERGY RX2530 M1", E3v3, 1, None, 13, 39, 24, 15, 600, 200,
     140, 5, 20, 180, "B", "資産管理", "本番", "", "対象", W12),
    ("shisan-db01", "PRIMERGY RX2530 M1", E80v3, 2, None, 17, 51, 64, 45, 1200, 540,
     800, 30, 25, 300, "B", "資産管理", "本番", "", "対象", W12),
    ("bkup01", "ProLiant DL380 Gen9", E4v4, 1, None, 9, 64, 32, 12, 24000, 18000,
     1500, 180, 800, 450, "B", "バックアップ", "本番", "", "対象外", W12),
    ("fax01", "PRIMERGY RX200 S2", "Xeon 3.0GHz", 1, None, 5, 21, 8, 1.2, 73, 20,
     10, 0.2, 1, 220, "C", "FAX", "本番", "", "対象外", W08),
    ("dev-web01", "PowerEdge R630", E3v3, 1, None, 8, 40, 16, 9, 300, 110,
     60, 3, 20, 150, "C", "開発", "開発", "", "対象", RHEL7),
    ("dev-ap01", "PowerEdge R630", E3v3, 1, None, 14, 58, 32, 20, 600, 240,
     150, 6, 25, None, "C", "開発", "開発", "", "対象", RHEL7),
    ("dev-ap02", "PowerEdge R630", E50v4, 1, None, 12, 55, 32, 18, 600, 230,
     140, 6, 22, 175, "C", "開発", "開発", "", "対象", RHEL7),
    ("dev-db01", "ProLiant DL360 Gen9", E50v4, 2, None, 10, 62, 64, 38, 1200, 480,
     600, 20, 15, 240, "C", "開発", "開発", "", "対象", RHEL7),
    ("dev-build01", "ProLiant DL360 Gen10", G6130, 2, None, 25, 85, 64, 30, 1200, 600,
     900, 45, 120, 360, "C", "開発", "開発", "", "対象", CENT7),
    ("stg-web01", "PowerEdge R640", S4110, 1, None, 5, 30, 16, 8, 300, 100,
     50, 2, 15, 140, "C", "検証", "開発", "", "対象", RHEL7),
    ("stg-db01", "PowerEdge R640", G5118, 1, None, 6, 42, 64, 30, 1200, 420,
     400, 15, 10, None, "C", "検証", "開発", "", "対象", RHEL7),
    ("test01", "PRIMERGY RX2530 M1", E3v3, 1, None, 5, 25, 16, 6, 300, 60,
     20, 0.5, 5, 130, "C", "開発", "開発", "", "対象", W12),
    ("test02", "PRIMERGY RX2530 M1", E3v3, 1, None, 5, 28, 16, 7, 300, 70,
     25, 0.6, 6, 130, "C", "開発", "開発", "", "対象", W12),
]


def load_rank(peak: float) -> str:
    """負荷ランク from the peak CPU %: A from 70 %, B from 40 %, else C."""
    return "A" if peak >= 70 else "B" if peak >= 40 else "C"


def rows() -> list[list[object]]:
    """Data rows in HEADERS order (None = empty cell)."""
    out: list[list[object]] = []
    for (name, model, cpu, sockets, score, avg, peak, mem, mem_used, disk, disk_used,
         iops, mbs, net, watts, rank, system, pool, partner, migrate,
         os_name) in SERVERS:
        note = NOTES.get(name)
        cores = CORES[cpu]
        cap = round(sockets * cores * score, 2) if score is not None else None
        out.append([
            name, model, cpu, sockets, cores, score, cap, avg, peak,
            round(cap * avg / 100, 2) if cap is not None else None,
            round(cap * peak / 100, 2) if cap is not None else None,
            mem, mem_used, disk, disk_used, iops, mbs, net, watts, RACK_U[model],
            rank, load_rank(peak), system, pool, partner or None, migrate, os_name,
            note,
        ])
    return out


def _csv_cell(v: object) -> str:
    if v is None:
        return ""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def write_csv(path: Path) -> None:
    buf = io.StringIO(newline="")
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow([TITLE])
    w.writerow([SUBTITLE])
    w.writerow([])
    w.writerow(HEADERS)
    for r in rows():
        w.writerow([_csv_cell(v) for v in r])
    path.write_bytes(b"\xef\xbb\xbf" + buf.getvalue().encode("utf-8"))


def write_xlsx(path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "サーバ一覧"
    ws["A1"] = TITLE
    ws["A1"].font = Font(bold=True, size=14)
    ws["A2"] = SUBTITLE
    ws.append([])
    ws.append(HEADERS)
    fill = PatternFill("solid", fgColor="DDEBF7")
    for c in ws[4]:
        c.font = Font(bold=True)
        c.fill = fill
        c.alignment = Alignment(wrap_text=True, vertical="center")
    for r in rows():
        ws.append(r)
    for i, h in enumerate(HEADERS, start=1):
        letter = openpyxl.utils.get_column_letter(i)
        ws.column_dimensions[letter].width = max(8, min(28, 2 * len(h) + 2))
    ws.freeze_panes = "B5"
    buf = io.BytesIO()
    wb.save(buf)
    path.write_bytes(_deterministic_zip(buf.getvalue()))


def _deterministic_zip(data: bytes) -> bytes:
    """Re-pack an XLSX with fixed timestamps so the output is byte-identical."""
    y, mo, d, h, mi, sec = FIXED_TIME
    stamp = f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{mi:02d}:{sec:02d}Z"
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                text = re.sub(
                    r"(<dcterms:(created|modified)[^>]*>)[^<]*(</dcterms:\2>)",
                    lambda m: m.group(1) + stamp + m.group(3),
                    body.decode("utf-8"),
                )
                body = text.encode("utf-8")
            zi = zipfile.ZipInfo(info.filename, date_time=FIXED_TIME)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o644 << 16
            dst.writestr(zi, body)
    return out.getvalue()


def main(argv: list[str]) -> int:
    out_dir = Path(argv[1]) if len(argv) > 1 else OUT_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    write_xlsx(out_dir / "inventory_ja.xlsx")
    write_csv(out_dir / "inventory_ja.csv")
    print(f"wrote {len(SERVERS)} servers to {out_dir}/inventory_ja.xlsx and .csv")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
