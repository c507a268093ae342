"""Performance Monitor counter paths: which counter a column holds, in any language.

Private to :mod:`vsizer.series.perfmon`, which documents the counters read. A
header cell ``\\\\HOST\\Object(Instance)\\Counter`` is matched, after Unicode
NFKC folding, against the English names of :data:`VARIABLE_MAP` and the
localized ones of :data:`OBJECT_ALIASES` and :data:`COUNTER_ALIASES`.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np

__all__ = [
    "COUNTER_ALIASES",
    "OBJECT_ALIASES",
    "VARIABLE_MAP",
    "Column",
    "cut",
    "no_counters_message",
]

#: (object, counter) in English -> what the column holds. Columns of other
#: counters are listed in ``metadata['ignored_counters']``.
VARIABLE_MAP: dict[tuple[str, str], str] = {
    ("Processor", "% Processor Time"): "cpu_pct",
    ("Processor Information", "% Processor Time"): "cpu_info_pct",
    ("Memory", "Available MBytes"): "mem_available_mib",
    ("Memory", "Available KBytes"): "mem_available_kib",
    ("Memory", "Available Bytes"): "mem_available_bytes",
    ("Memory", "Committed Bytes"): "mem_committed_bytes",
    ("PhysicalDisk", "Disk Transfers/sec"): "disk_transfers_s",
    ("PhysicalDisk", "Disk Bytes/sec"): "disk_bytes_s",
    ("PhysicalDisk", "Disk Read Bytes/sec"): "disk_read_bytes_s",
    ("PhysicalDisk", "Disk Write Bytes/sec"): "disk_write_bytes_s",
    ("LogicalDisk", "Disk Transfers/sec"): "ldisk_transfers_s",
    ("LogicalDisk", "Disk Bytes/sec"): "ldisk_bytes_s",
    ("LogicalDisk", "Disk Read Bytes/sec"): "ldisk_read_bytes_s",
    ("LogicalDisk", "Disk Write Bytes/sec"): "ldisk_write_bytes_s",
    ("Network Interface", "Bytes Total/sec"): "net_bytes_s",
    ("Network Interface", "Bytes Received/sec"): "net_rx_bytes_s",
    ("Network Interface", "Bytes Sent/sec"): "net_tx_bytes_s",
    ("Network Adapter", "Bytes Total/sec"): "nic_bytes_s",
    ("Network Adapter", "Bytes Received/sec"): "nic_rx_bytes_s",
    ("Network Adapter", "Bytes Sent/sec"): "nic_tx_bytes_s",
    ("Process", "% Processor Time"): "process_cpu_pct",
}

#: Localized object names -> English (Windows display languages).
OBJECT_ALIASES: dict[str, str] = {
    # Japanese
    "プロセッサ": "Processor",
    "プロセッサ情報": "Processor Information",
    "メモリ": "Memory",
    "物理ディスク": "PhysicalDisk",
    "論理ディスク": "LogicalDisk",
    "ネットワーク インターフェイス": "Network Interface",
    "ネットワーク アダプター": "Network Adapter",
    "プロセス": "Process",
    # German
    "Prozessor": "Processor",
    "Prozessorinformationen": "Processor Information",
    "Speicher": "Memory",
    "Physikalischer Datenträger": "PhysicalDisk",
    "Logischer Datenträger": "LogicalDisk",
    "Netzwerkschnittstelle": "Network Interface",
    "Prozess": "Process",
    # French
    "Processeur": "Processor",
    "Informations sur le processeur": "Processor Information",
    "Mémoire": "Memory",
    "Disque physique": "PhysicalDisk",
    "Disque logique": "LogicalDisk",
    "Interface réseau": "Network Interface",
    "Processus": "Process",
    # Russian
    "Процессор": "Processor",
    "Память": "Memory",
    "Физический диск": "PhysicalDisk",
    "Логический диск": "LogicalDisk",
    "Сетевой интерфейс": "Network Interface",
    "Процесс": "Process",
    # Spanish
    "Procesador": "Processor",
    "Información del procesador": "Processor Information",
    "Memoria": "Memory",
    "Disco físico": "PhysicalDisk",
    "Disco lógico": "LogicalDisk",
    "Interfaz de red": "Network Interface",
    "Proceso": "Process",
}

#: Localized counter names -> English.
COUNTER_ALIASES: dict[str, str] = {
    # Japanese
    "% プロセッサ時間": "% Processor Time",
    "利用可能メモリ (MB)": "Available MBytes",
    "利用可能メモリ (KB)": "Available KBytes",
    "利用可能バイト": "Available Bytes",
    "コミット済みバイト": "Committed Bytes",
    "ディスク転送/秒": "Disk Transfers/sec",
    "ディスク バイト/秒": "Disk Bytes/sec",
    "ディスク読み取りバイト/秒": "Disk Read Bytes/sec",
    "ディスク書き込みバイト/秒": "Disk Write Bytes/sec",
    "合計バイト数/秒": "Bytes Total/sec",
    "受信バイト数/秒": "Bytes Received/sec",
    "送信バイト数/秒": "Bytes Sent/sec",
    # German
    "Prozessorzeit (%)": "% Processor Time",
    "Verfügbare MB": "Available MBytes",
    "Zugesicherte verwendete Bytes": "Committed Bytes",
    "Übertragungen/s": "Disk Transfers/sec",
    "Bytes gesamt/s": "Bytes Total/sec",
    # French
    "% temps processeur": "% Processor Time",
    "Mégaoctets disponibles": "Available MBytes",
    "Octets validés": "Committed Bytes",
    "Transferts disque/s": "Disk Transfers/sec",
    "Octets disque/s": "Disk Bytes/sec",
    "Total des octets/s": "Bytes Total/sec",
    # Russian
    "% загруженности процессора": "% Processor Time",
    "Доступно МБ": "Available MBytes",
    "Всего байт/с": "Bytes Total/sec",
    # Spanish
    "% de tiempo de procesador": "% Processor Time",
    "MBytes disponibles": "Available MBytes",
    "MB disponibles": "Available MBytes",
    "KBytes disponibles": "Available KBytes",
    "Bytes disponibles": "Available Bytes",
    "Bytes confirmados": "Committed Bytes",
    "Transferencias de disco/s": "Disk Transfers/sec",
    "Bytes de disco/s": "Disk Bytes/sec",
    "Bytes de lectura de disco/s": "Disk Read Bytes/sec",
    "Bytes de escritura en disco/s": "Disk Write Bytes/sec",
    "Total de bytes/s": "Bytes Total/sec",
    "Bytes recibidos/s": "Bytes Received/sec",
    "Bytes enviados/s": "Bytes Sent/sec",
}

_PATH_RE = re.compile(
    r"^(?:\\\\(?P<host>[^\\]+))?\\(?P<object>[^\\(]+?)"
    r"(?:\((?P<instance>.*)\))?\\(?P<counter>[^\\]+)$"
)
_MAX_LISTED = 12


def _key(name: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


_OBJECTS = {_key(k): v for k, v in OBJECT_ALIASES.items()} | {
    _key(o): o for o, _ in VARIABLE_MAP
}
_COUNTERS = {_key(k): v for k, v in COUNTER_ALIASES.items()} | {
    _key(c): c for _, c in VARIABLE_MAP
}


class Column:
    """One counter column: where it is, what it is, its values."""

    def __init__(self, index: int, header: str) -> None:
        self.index = index
        self.header = header
        m = _PATH_RE.match(header.strip())
        self.host = (m.group("host") or "") if m else ""
        self.instance = (m.group("instance") or "") if m else ""
        obj = _OBJECTS.get(_key(m.group("object"))) if m else None
        counter = _COUNTERS.get(_key(m.group("counter"))) if m else None
        self.role = VARIABLE_MAP.get((obj, counter)) if obj and counter else None
        self.values: np.ndarray = np.empty(0)
        self.rounded: list[str] = []  # cells in a spreadsheet's short E form


def no_counters_message(label: str, columns: list[Column], encoding: str) -> str:
    """The error of a log without any counter vsizer reads, naming those found."""
    found = [c.header for c in columns]
    listed = ", ".join(f"'{h}'" for h in found[:_MAX_LISTED]) or "none"
    more = f" and {len(found) - _MAX_LISTED} more" if len(found) > _MAX_LISTED else ""
    process = any(c.role == "process_cpu_pct" for c in columns)
    return (
        f"{label}: expected a counter vsizer reads (Processor(_Total)\\% Processor "
        "Time, Memory\\Available MBytes or \\Committed Bytes, PhysicalDisk(_Total)\\"
        "Disk Transfers/sec or \\Disk Bytes/sec, Network Interface(*)\\Bytes "
        f"Total/sec), got {listed}{more}."
        + (
            " Process(...)\\% Processor Time is per process and per core, used only "
            "as Process(Idle) against Process(_Total)."
            if process
            else ""
        )
        + " Names are matched in English, Japanese, German, French, Russian and"
        " Spanish;"
        " for another language add them to vsizer.series.perfmon.OBJECT_ALIASES and"
        " COUNTER_ALIASES."
        + (
            f" The file was decoded as {encoding}: if the names look garbled, give"
            " --encoding."
            if any(not h.isascii() for h in found)
            else ""
        )
    )


def cut(text: str, n: int = 60) -> str:
    """*text* shortened to *n* characters for a message (``...`` at the end)."""
    return text if len(text) <= n else text[: n - 3] + "..."
