"""Docs stay true: generated header docs are current, every CLI command is documented."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_inventory_header_doc_is_current():
    spec = importlib.util.spec_from_file_location(
        "mkdocs", REPO / "scripts" / "make_header_docs.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (REPO / "docs" / "inventory-headers.md").read_text(
        encoding="utf-8"
    ) == module.render()


def test_readme_names_the_two_commands_and_a_real_host_model():
    from vsizer.catalogs import read_host_catalog

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "make demo" in readme and "make test" in readme
    models = read_host_catalog().models
    quoted = [m for m in models if f'"{m}"' in readme]
    assert quoted, "README examples must use a host model that exists in the catalog"


def test_schema_doc_names_every_top_level_key():
    import vsizer

    doc = (REPO / "docs" / "plan-schema.md").read_text(encoding="utf-8")
    plan = vsizer.plan(
        REPO / "vsizer" / "data" / "samples" / "inventory_ja.csv"
    ).to_dict()
    for key in plan:
        assert f'"{key}"' in doc, key
    for section in ("summary", "power", "space", "demand"):
        for key in plan[section]:
            assert f'"{key}"' in doc, f"{section}.{key}"
