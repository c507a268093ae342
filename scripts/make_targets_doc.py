"""Write docs/targets.md from the shipped target profiles.

Run: ``PYTHONPATH=. .venv/bin/python scripts/make_targets_doc.py``. A test checks
the file is current (tests/test_targets.py).
"""

from __future__ import annotations

from pathlib import Path

from vsizer.catalogs.targets import VALUE_KEYS, Cited, Target, read_targets

OUT = Path(__file__).resolve().parents[1] / "docs" / "targets.md"

INTRO = """\
# Target platforms

Generated from `vsizer/catalogs/data/targets/*.toml` by
`scripts/make_targets_doc.py`; do not edit the tables by hand.

```sh
vsizer compare vsizer/data/samples/rvtools_export.xlsx --targets all -o cmp.json -o cmp.html -o cmp.xlsx
vsizer compare rvtools.xlsx --targets vcf,proxmox-ceph,azure-local --host-model auto \
               --licences prices.csv --config rules.toml -o cmp.json
vsizer plan rvtools.xlsx --target nutanix-ahv --years 5 -o plan.json -o plan.xlsx
vsizer compare rvtools.xlsx --targets all --targets-file my-profiles/   # yours added
```

`vsizer plan INV --target NAME` plans an estate for one virtualization
platform; `vsizer compare INV --targets a,b,c` (or `--targets all`) plans it
for several, side by side, on the same demand, rules and host model
(`--host-model auto`: chosen per target). Each plan runs the whole chain
(normalization, demand curves, N+k failover on the curves, storage, TCO):

- the hypervisor's reserve and every per-host service (e.g. the Nutanix CVM)
  lower each host's memory (the plan's per-host memory reserve) and CPU
  (capacity x (cores - reserved cores) / cores; services' vCPUs count as
  cores); per-disk services (Ceph OSDs) count `storage.disks_per_host` times;
  per-cluster services are spread over the hosts (first over the cluster's
  fewest nodes, then over the planned count when that plan needs as many
  hosts), or run on `dedicated_hosts` of their own, added to the count;
- the per-VM memory overhead adds to every VM's demand (`esxi-table`: the
  ESXi 6.5 table, vSphere Resource Management Table 6-1);
- hyperconverged storage is sized with the protection (`mirror` with
  `ftt + 1` copies) and the free share `1 - full_ratio`: usable = raw /
  copies x full_ratio (Ceph 3 replicas at nearfull 0.85: raw / 3 x 0.85);
  at least one host per copy;
- the TCO counts the target's licences; prices are left to you: a
  `--licences` CSV row with the same name (case-insensitive) gives its price
  (and other rows, e.g. backup per VM, are added). Counts are always
  computed: per core with per-CPU, per-host and per-order minimums (VCF/VVF:
  16 per CPU, Broadcom KB 313548), per socket or socket pair. The 72-core
  minimum per order reported from April 2025 is in no Broadcom document found
  (reported as Americas and APJ only): it is not shipped; set
  `min_per_order = 72` in your own copy of the profile if your orders carry it.
- A rule you set (any value other than the default, e.g. `--vcpu-per-core`,
  `--min-hosts`, `--storage`, `--ftt`) wins over the profile's default:
  Nutanix RF3 is `--ftt 2` (or `[storage] ftt = 2` in the `--config` of
  `compare --targets`).

Every value states its source (vendor document, URL where known, date) or,
when no published figure is used, `assumed` with the reason. The date is the
month of the document version the value was taken from; vendor pages are
living documents and prices and terms change: recheck them before a purchase. Each assumed
value is a counted warning (`target_assumed`) in the plan, and the
comparison lists them per target (JSON `targets[].assumed`, the Excel sheet
"Assumed values", the HTML section "Assumed profile values").

Performance overheads by resource are throughput factors relative to the
measurements vsizer's models rest on (ESX for CPU; ESX, Hyper-V and Xen for
disk; Hyper-V and Xen for network): `published` where the platform matches
the measured one, else `assumed` (1.0), or `measured` on your own host:
run `vsizer bench run quick --env both` on the target's host, then
`vsizer bench calibrate NAME --store bench-results/samples.jsonl -o NAME.toml`
writes the profile with `performance.cpu`/`.disk`/`.network` replaced by the
median VM / physical ratio of each resource's headline metric (emulated TCG
runs are never used); pass it with `--targets-file NAME.toml` and the
comparison reports those overheads as measured. A CPU model fitted with
`vsizer fit` is used by `plan --target NAME --profile fit.toml`.

## The comparison document

`compare --targets` writes `{"targets_schema_version": "1", "vsizer_version",
"inventory", "targets": [...], "recommendation": {...}, "plans": {name:
plan}}`. One entry per target: `hosts`, `dedicated_hosts`, `hosts_total`,
`clusters` (hosts / max nodes, rounded up), `licences` (count, price,
`cost_per_year`: the cost over the plan's years / years, so a perpetual
licence is spread over them), `cores_licensed`, `socket_licences`,
`licence_cost_per_year` (null: a price not given), `storage` (`raw_gib`,
`usable_gib`, `protection`, `full_ratio`), `reserve` (per host, share of
host memory and cores, totals, one line per service), `performance`
(`by_resource` with basis; `predicted`: the plan's mean relative
performance x the CPU factor), `tco_total` over `years`,
`survives_failover`, `assumed`, `warnings`.

The recommendation states its criterion, as `choice` does: only targets
whose plan survives its failover check are candidates; with a TCO total for
every candidate (host prices, electricity and every licence price given, one
currency): the lowest TCO (`tco_total`); otherwise the fewest hosts
including platform hosts (`hosts_total`), then the least reserve per host.

## How to add a target

Copy a shipped profile (`vsizer/catalogs/data/targets/vvf.toml` is the
shortest) to your own file, change `[target] name`, and edit the values;
then `vsizer compare INV --targets-file mine.toml --targets mine,vcf` (a
folder of profiles also works; a profile named like a shipped one replaces
it, e.g. to put your negotiated prices in `[[licences]] price`). Every value
is a table:

```toml
[reserve.host_memory_gib]
value = 2.0
source = "Vendor document title, https://..."
date = "2024-11"          # required with a source

[reserve.host_cpu_cores]
value = 1.0
assumed = "why no published figure is used"
```

Services: `[[services]]` with `name`, `per` (`host`, `cluster` or `disk`),
`cpu_cores` and `memory_gib` (value tables), and for `per = "cluster"`
optionally `dedicated_hosts`. Licences: `[[licences]]` with the columns of
`vsizer/catalogs/data/licences.csv` (`name`, `unit` core/socket/host/vm,
`term` once/year, `min_per_cpu`, `min_per_host`, `min_per_order`,
`sockets_per_licence`, `vms_per_licence`, `pack`, `price`, `currency`, `source`,
`date`). An error names the file and key, e.g. `mine.toml: key
'cluster.max_nodes.value': expected a whole number >= 1, got 'many'.`

Keys (required unless marked optional):

"""


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _row(key: str, c: Cited) -> str:
    where = c.source if not c.assumed else f"assumed: {c.assumed}"
    return f"| `{key}` | {_cell(c.value)} | {c.basis} | {_cell(where)} | {c.date or '—'} |"


def _target(t: Target) -> list[str]:
    lines = [f"## {t.name}: {t.title}", "", f"Profile `{Path(t.path).name}`; hypervisor "
             f"`{t.hypervisor}`. {t.description}", "",
             "| Key | Value | Basis | Source or reason | Date |", "|---|---|---|---|---|"]
    lines += [_row(k, t.values[k]) for k in VALUE_KEYS if k in t.values]
    for s in t.services:
        for part in ("cpu_cores", "memory_gib", "dedicated_hosts"):
            c = getattr(s, part)
            if c is not None:
                lines.append(_row(f"services '{s.name}' (per {s.per}) {part}", c))
    lines += ["", "Licences (prices: yours):", ""]
    for lic in t.licences:
        rules = ", ".join(f"{k} {v}" for k, v in (
            ("min per CPU", lic.min_per_cpu), ("min per host", lic.min_per_host),
            ("min per order", lic.min_per_order), ("pack", lic.pack),
            ("sockets per licence", lic.sockets_per_licence if lic.unit == "socket" else None),
        ) if v)
        lines.append(f"- **{lic.name}**: per {lic.unit}, term {lic.term}"
                     f"{'; ' + rules if rules else ''}. {_cell(lic.source)} ({lic.date})")
    return [*lines, ""]


def render() -> str:
    keys = [f"- `{k}` ({kind}{'' if req else ', optional'}): {meaning}"
            for k, (kind, req, meaning) in VALUE_KEYS.items()]
    body = [line for t in read_targets().values() for line in _target(t)]
    return INTRO + "\n".join(keys) + "\n\n" + "\n".join(body)


if __name__ == "__main__":
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUT}")
