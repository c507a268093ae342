"""Helpers of the tests that edit a saved workbook's sheet XML."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path


def rewrite_sheet(
    src: Path, dst: Path, change: Callable[[bytes], bytes],
    compression: int = zipfile.ZIP_DEFLATED,
) -> Path:
    """``src`` saved as ``dst`` with its first sheet's XML passed through ``change``."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", compression) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                data = change(data)
            zout.writestr(info.filename, data)
    return dst
