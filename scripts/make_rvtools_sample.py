"""Generate the shipped RVTools sample, ``vsizer/data/samples/rvtools_export.xlsx``.

A synthetic vCenter estate written in the layout of RVTools 4.7.1.4: the sheet
names and column headers (and their order) are those of real 4.7.1.4 exports
(the two under ``tests/data/real/rvtools/``, without their custom-attribute
columns); cell formats follow them (``'True'``/``'False'`` strings, sizes in MiB,
``HW version`` an integer, dates as Excel dates). Every name, number and
address is invented; no cell comes from a real export.

The estate (fixed, documented in ``vsizer/data/samples/README.md``):

- vCenter ``vc01.example.local``, datacenter ``DC1``, exported 2026-11-02;
- clusters ``Prod`` (5 hosts, 2 x Xeon Gold 6248R, 24 cores, 3000 MHz,
  768 GiB), ``Dev`` (3 hosts, 2 x Xeon E5-2680 v4, 14 cores, 2400 MHz,
  512 GiB) and ``DMZ`` (2 hosts of the Dev model);
- 120 VMs in application folders (``/DC1/vm/Prod/erp`` ...) and two vApps, with
  redundant pairs (``web01``/``web02`` ...), powered-off VMs and a template;
- readiness cases: an RDM disk (``sqlclu01``), a multi-writer shared disk
  (``orarac01``/``orarac02``), a snapshot 400 days old (``crm-app01``),
  VMware Tools not running (``mon01``), a USB device (``lic01``), Windows
  Server 2003 on virtual hardware 7 (``fax01``), a 12 TiB disk (``fs01``).

The output is deterministic (a seeded generator, fixed zip timestamps): run it
again and the file is byte-identical, so ``git diff --exit-code`` checks it.

Usage::

    python scripts/make_rvtools_sample.py [output.xlsx]
"""

from __future__ import annotations

import random
import sys
from datetime import datetime, timedelta
from pathlib import Path

import openpyxl

from vsizer.reporting.excel import reproducible_bytes

OUT = Path(__file__).resolve().parents[1] / "vsizer" / "data" / "samples" / "rvtools_export.xlsx"
FIXED_TIME = (2026, 11, 2, 9, 15, 0)
EXPORTED = datetime(*FIXED_TIME)
VC = "vc01.example.local"
VC_UUID = "3f2a9c1e-7b44-4d0a-9e61-2c5b8d7f0a11"
DC = "DC1"
#: Header rows of RVTools 4.7.1.4, "|"-separated, in the order RVTools writes them.
HEADERS = {
    "vInfo": (
        "VM|Powerstate|Template|SRM Placeholder|Config status|DNS Name|Connection "
        "state|Guest state|Heartbeat|Consolidation Needed|PowerOn|Suspended To "
        "Memory|Suspend time|Suspend Interval|Creation date|Change Version|CPUs|Overall "
        "Cpu Readiness|Memory|Active Memory|NICs|Disks|Total disk capacity MiB|Fixed "
        "Passthru HotPlug|min Required EVC Mode Key|Latency Sensitivity|Op Notification "
        "Timeout|EnableUUID|CBT|Primary IP Address|Network #1|Network #2|Network "
        "#3|Network #4|Network #5|Network #6|Network #7|Network #8|Num Monitors|Video Ram"
        " KiB|Resource pool|Folder ID|Folder|vApp|DAS protection|FT State|FT Role|FT "
        "Latency|FT Bandwidth|FT Sec. Latency|Vm Failover In Progress|Provisioned MiB|In "
        "Use MiB|Unshared MiB|HA Restart Priority|HA Isolation Response|HA VM "
        "Monitoring|Cluster rule(s)|Cluster rule name(s)|Boot Required|Boot delay|Boot "
        "retry delay|Boot retry enabled|Boot BIOS setup|Reboot PowerOff|EFI Secure "
        "boot|Firmware|HW version|HW upgrade status|HW upgrade policy|HW target|Path|Log "
        "directory|Snapshot directory|Suspend "
        "directory|Annotation|Datacenter|Cluster|Host|OS according to the configuration "
        "file|OS according to the VMware Tools|Customization Info|Guest Detailed Data|VM "
        "ID|SMBIOS UUID|VM UUID|VI SDK Server type|VI SDK API Version|VI SDK Server|VI "
        "SDK UUID"
    ),
    "vCPU": (
        "VM|Powerstate|Template|SRM Placeholder|CPUs|Sockets|Cores "
        "p/s|Max|Overall|Level|Shares|Reservation|Entitlement|DRS Entitlement|Limit|Hot "
        "Add|Hot Remove|Numa Hotadd Exposed|Annotation|Datacenter|Cluster|Host|Folder|OS "
        "according to the configuration file|OS according to the VMware Tools|VM ID|VM "
        "UUID|VI SDK Server|VI SDK UUID"
    ),
    "vMemory": (
        "VM|Powerstate|Template|SRM Placeholder|Size MiB|Memory Reservation Locked To "
        "Max|Overhead|Max|Consumed|Consumed "
        "Overhead|Private|Shared|Swapped|Ballooned|Active|Entitlement|DRS "
        "Entitlement|Level|Shares|Reservation|Limit|Hot "
        "Add|Annotation|Datacenter|Cluster|Host|Folder|OS according to the configuration "
        "file|OS according to the VMware Tools|VM ID|VM UUID|VI SDK Server|VI SDK UUID"
    ),
    "vDisk": (
        "VM|Powerstate|Template|SRM Placeholder|Disk|Disk Key|Disk UUID|Disk "
        "Path|Capacity MiB|Raw|Disk Mode|Sharing mode|Thin|Eagerly Scrub|Split|Write "
        "Through|Level|Shares|Reservation|Limit|Controller|Label|SCSI Unit #|Unit "
        "#|Shared Bus|Path|Raw LUN ID|Raw Comp. Mode|Internal Sort "
        "Column|Annotation|Datacenter|Cluster|Host|Folder|OS according to the "
        "configuration file|OS according to the VMware Tools|VM ID|VM UUID|VI SDK "
        "Server|VI SDK UUID"
    ),
    "vPartition": (
        "VM|Powerstate|Template|SRM Placeholder|Disk Key|Disk|Capacity MiB|Consumed "
        "MiB|Free MiB|Free %|Internal Sort "
        "Column|Annotation|Datacenter|Cluster|Host|Folder|OS according to the "
        "configuration file|OS according to the VMware Tools|VM ID|VM UUID|VI SDK "
        "Server|VI SDK UUID"
    ),
    "vNetwork": (
        "VM|Powerstate|Template|SRM Placeholder|NIC "
        "label|Adapter|Network|Switch|Connected|Starts Connected|Mac Address|Type|IPv4 "
        "Address|IPv6 Address|Direct Path IO|Internal Sort "
        "Column|Annotation|Datacenter|Cluster|Host|Folder|OS according to the "
        "configuration file|OS according to the VMware Tools|VM ID|VM UUID|VI SDK "
        "Server|VI SDK UUID"
    ),
    "vSnapshot": (
        "VM|Powerstate|Name|Description|Date / time|Filename|Size MiB (vmsn)|Size MiB "
        "(total)|Quiesced|State|Annotation|Datacenter|Cluster|Host|Folder|OS according to"
        " the configuration file|OS according to the VMware Tools|VM ID|VM UUID|VI SDK "
        "Server|VI SDK UUID"
    ),
    "vTools": (
        "VM|Powerstate|Template|SRM Placeholder|VM Version|Tools|Tools Version|Required "
        "Version|Upgradeable|Upgrade Policy|Sync time|App status|Heartbeat status|Kernel "
        "Crash state|Operation Ready|State change support|Interactive "
        "Guest|Annotation|Datacenter|Cluster|Host|Folder|OS according to the "
        "configuration file|OS according to the VMware Tools|VMRef|VM ID|VM UUID|VI SDK "
        "Server|VI SDK UUID"
    ),
    "vUSB": (
        "VM|Powerstate|Template|SRM Placeholder|Device Node|Device "
        "Type|Connected|Family|Speed|EHCI enabled|Auto connect|Bus number|Unit "
        "number|Annotation|Datacenter|Cluster|Host|Folder|OS according to the "
        "configuration file|OS according to the VMware tools|VMRef|VM ID|VM UUID|VI SDK "
        "Server|VI SDK UUID"
    ),
    "vHealth": (
        "Name|Message|Message type|VI SDK Server|VI SDK UUID"
    ),
    "vHost": (
        "Host|Datacenter|Cluster|Config status|Compliance Check State|in Maintenance "
        "Mode|in Quarantine Mode|vSAN Fault Domain Name|CPU Model|Speed|HT Available|HT "
        "Active|# CPU|Cores per CPU|# Cores|CPU usage %|# Memory|Memory Tiering "
        "Type|Memory usage %|Console|# NICs|# HBAs|# VMs total|# VMs|VMs per Core|# "
        "vCPUs|vCPUs per Core|vRAM|VM Used memory|VM Memory Swapped|VM Memory "
        "Ballooned|VMotion support|Storage VMotion support|Current EVC|Max EVC|Assigned "
        "License(s)|ATS Heartbeat|ATS Locking|Current CPU power man. policy|Supported CPU"
        " power man.|Host Power Policy|ESX Version|Boot time|DNS "
        "Servers|DHCP|Domain|Domain List|DNS Search Order|NTP Server(s)|NTPD running|Time"
        " Zone|Time Zone Name|GMT Offset|Vendor|Model|Serial number|Service tag|OEM "
        "specific string|BIOS Vendor|BIOS Version|BIOS Date|Certificate "
        "Issuer|Certificate Start Date|Certificate Expiry Date|Certificate "
        "Status|Certificate Subject|Object ID|AutoDeploy.MachineIdentity|UUID|VI SDK "
        "Server|VI SDK UUID"
    ),
    "vCluster": (
        "Name|Config status|OverallStatus|NumHosts|numEffectiveHosts|TotalCpu|NumCpuCores"
        "|NumCpuThreads|Effective Cpu|TotalMemory|Effective Memory|Num VMotions|HA "
        "enabled|Failover Level|AdmissionControlEnabled|Host monitoring|HB Datastore "
        "Candidate Policy|Isolation Response|Restart Priority|Cluster Settings|Max "
        "Failures|Max Failure Window|Failure Interval|Min Up Time|VM Monitoring|DRS "
        "enabled|DRS default VM behavior|DRS vmotion rate|DPM enabled|DPM default "
        "behavior|DPM Host Power Action Rate|Object ID|VI SDK Server|VI SDK UUID"
    ),
    "vDatastore": (
        "Name|Config status|Address|Accessible|Type|# VMs total|# VMs|Capacity "
        "MiB|Provisioned MiB|In Use MiB|Free MiB|Free %|SIOC enabled|SIOC Threshold|# "
        "Hosts|Hosts|Cluster name|Cluster capacity MiB|Cluster free space MiB|Block "
        "size|Max Blocks|# Extents|Major Version|Version|VMFS Upgradeable|MHA|URL|Object "
        "ID|VI SDK Server|VI SDK UUID"
    ),
    "vSource": (
        "Name|OS type|API type|API version|Version|Patch level|Build|Fullname|Product "
        "name|Product version|Product line|Vendor|VI SDK Server|VI SDK UUID"
    ),
    "vMetaData": (
        "RVTools major version|RVTools version|xlsx creation datetime|Server"
    ),
}

GOLD = ("Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz", 3000, 24, 768 * 1024,
        "Dell Inc.", "PowerEdge R740", "intel-cascadelake")
BROADWELL = ("Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz", 2400, 14, 512 * 1024,
             "HPE", "ProLiant DL380 Gen9", "intel-broadwell")
#: cluster -> (hosts, host model, VM network, datastores)
CLUSTERS = {
    "Prod": (5, GOLD, "VLAN110-Prod", ("PROD-DS01", "PROD-DS02", "PROD-DS03")),
    "Dev": (3, BROADWELL, "VLAN210-Dev", ("DEV-DS01", "DEV-DS02")),
    "DMZ": (2, BROADWELL, "VLAN310-DMZ", ("DMZ-DS01",)),
}
WIN22 = "Microsoft Windows Server 2022 (64-bit)"
WIN19 = "Microsoft Windows Server 2019 (64-bit)"
WIN03 = "Microsoft Windows Server 2003 (32-bit)"
RHEL9 = "Red Hat Enterprise Linux 9 (64-bit)"
RHEL8 = "Red Hat Enterprise Linux 8 (64-bit)"
UBUNTU = "Ubuntu Linux (64-bit)"
OL8 = "Oracle Linux 8 (64-bit)"

#: Fixed VMs: name, cluster, folder, vApp, vCPUs, GiB, disks GiB, OS, special.
#: Special: "off" powered off, "template", "rdm", "multiwriter", "oldsnap",
#: "snap", "notools", "usb", "old", "bigdisk".
FIXED = [
    ("web01", "Prod", "web", None, 4, 8, (60,), RHEL9, ""),
    ("web02", "Prod", "web", None, 4, 8, (60,), RHEL9, ""),
    ("dc01", "Prod", "infra", None, 2, 8, (80,), WIN22, ""),
    ("dc02", "Prod", "infra", None, 2, 8, (80,), WIN22, ""),
    ("erp-app01", "Prod", "erp", None, 8, 32, (80, 200), RHEL8, "snap"),
    ("erp-app02", "Prod", "erp", None, 8, 32, (80, 200), RHEL8, ""),
    ("erp-app03", "Prod", "erp", None, 8, 32, (80, 200), RHEL8, ""),
    ("erp-db01", "Prod", "erp", None, 16, 128, (100, 1000), OL8, ""),
    ("erp-db02", "Prod", "erp", None, 16, 128, (100, 1000), OL8, ""),
    ("crm-app01", "Prod", "crm", None, 4, 16, (80, 100), WIN19, "oldsnap"),
    ("crm-app02", "Prod", "crm", None, 4, 16, (80, 100), WIN19, ""),
    ("crm-db01", "Prod", "crm", None, 8, 64, (100, 500), WIN19, ""),
    ("mail01", "Prod", "mail", None, 8, 48, (100, 1500), WIN19, ""),
    ("mail02", "Prod", "mail", None, 8, 48, (100, 1500), WIN19, ""),
    ("sqlclu01", "Prod", "sql", None, 8, 64, (100, 2048), WIN19, "rdm"),
    ("sqlclu02", "Prod", "sql", None, 8, 64, (100,), WIN19, ""),
    ("orarac01", "Prod", "oracle", None, 8, 64, (100, 500), OL8, "multiwriter"),
    ("orarac02", "Prod", "oracle", None, 8, 64, (100, 500), OL8, "multiwriter"),
    ("fs01", "Prod", "infra", None, 4, 16, (80, 12288), WIN22, "bigdisk"),
    ("fax01", "Prod", "legacy", None, 1, 2, (40,), WIN03, "old"),
    ("lic01", "Prod", "infra", None, 2, 4, (60,), WIN19, "usb"),
    ("mon01", "Prod", "infra", None, 4, 8, (100,), RHEL8, "notools"),
    ("bi-etl01", "Prod", "bi", "vApp-BI", 8, 32, (80, 800), RHEL9, ""),
    ("bi-etl02", "Prod", "bi", "vApp-BI", 8, 32, (80, 800), RHEL9, ""),
    ("bi-web01", "Prod", "bi", "vApp-BI", 4, 16, (80,), RHEL9, ""),
    ("old-app01", "Prod", "legacy", None, 2, 8, (80,), WIN19, "off"),
    ("tmpl-win2022", "Dev", "templates", None, 2, 4, (80,), WIN22, "template"),
    ("tmpl-rhel9", "Dev", "templates", None, 2, 4, (60,), RHEL9, "template"),
    ("dmz-web01", "DMZ", "web", None, 4, 8, (60,), UBUNTU, ""),
    ("dmz-web02", "DMZ", "web", None, 4, 8, (60,), UBUNTU, ""),
    ("dmz-proxy01", "DMZ", "proxy", None, 2, 4, (40,), UBUNTU, ""),
    ("dmz-proxy02", "DMZ", "proxy", None, 2, 4, (40,), UBUNTU, ""),
    ("dmz-smtp01", "DMZ", "mail", None, 2, 4, (60,), RHEL8, ""),
    ("dmz-smtp02", "DMZ", "mail", None, 2, 4, (60,), RHEL8, ""),
    ("portal-web01", "DMZ", "portal", "vApp-Portal", 4, 8, (60,), RHEL9, ""),
    ("portal-app01", "DMZ", "portal", "vApp-Portal", 4, 16, (80, 100), RHEL9, ""),
]
#: Generated VMs: cluster -> (prefix and folder per application, count each).
GENERATED = {
    "Prod": (("hr-app", 6), ("pay-app", 5), ("intra-web", 6), ("sales-app", 8),
             ("wms-app", 6), ("ci-build", 6), ("file", 6)),
    "Dev": (("dev-app", 12), ("test-app", 12), ("dev-db", 6), ("qa-web", 3)),
    "DMZ": (("dmz-ftp", 2), ("dmz-vpn", 2), ("dmz-api", 4)),
}
NET_OCTET = {"Prod": 110, "Dev": 210, "DMZ": 31}
DEV_OFF = {"dev-app05", "dev-app11", "test-app03", "test-app09", "qa-web03"}


def _vm_list(rng: random.Random) -> list[dict]:
    """Every VM as a dict, in vInfo order (cluster, then name)."""
    vms = [dict(zip(("vm", "cluster", "app", "vapp", "cpus", "gib", "disks", "os",
                     "special"), row, strict=True)) for row in FIXED]
    for cluster, groups in GENERATED.items():
        for prefix, n in groups:
            for i in range(1, n + 1):
                name = f"{prefix}{i:02d}"
                cpus = rng.choice((2, 2, 4, 4, 4, 8))
                os_ = rng.choice((WIN19, WIN22, RHEL8, RHEL9, UBUNTU))
                data = rng.choice((0, 0, 100, 200, 500))
                vms.append({
                    "vm": name, "cluster": cluster, "app": prefix.split("-")[0] if
                    cluster != "Dev" else prefix, "vapp": None, "cpus": cpus,
                    "gib": cpus * rng.choice((2, 4, 4, 8)),
                    "disks": (80, data) if data else (80,), "os": os_,
                    "special": "off" if name in DEV_OFF else ""})
    order = {c: i for i, c in enumerate(CLUSTERS)}
    vms.sort(key=lambda v: (order[v["cluster"]], v["vm"]))
    for i, v in enumerate(vms):
        v["id"] = f"vm-{1001 + i}"
        v["uuid"] = _uuid(rng)
        v["smbios"] = _uuid(rng)
        v["on"] = v["special"] not in ("off", "template")
        v["tools_run"] = v["on"] and v["special"] != "notools"
        v["util"] = round(rng.uniform(0.04, 0.45), 3) if v["on"] else 0.0
        v["active"] = round(rng.uniform(0.1, 0.6), 3) if v["on"] else 0.0
        v["fill"] = [round(rng.uniform(0.2, 0.8), 3) for _ in v["disks"]]
        v["ip"] = f"10.{NET_OCTET[v['cluster']]}.{i // 200}.{10 + i % 200}"
        v["created"] = datetime(2019, 1, 7, 10) + timedelta(days=rng.randrange(0, 2200))
    return vms


def _uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _hosts() -> list[dict]:
    out = []
    for cluster, (n, model, _net, _ds) in CLUSTERS.items():
        for i in range(1, n + 1):
            cpu, mhz, cps, mib, vendor, hw, evc = model
            out.append({"host": f"esx-{cluster.lower()}-{i:02d}.example.local",
                        "cluster": cluster, "cpu": cpu, "mhz": mhz, "cps": cps,
                        "mib": mib, "vendor": vendor, "model": hw, "evc": evc,
                        "id": f"host-{100 + len(out)}"})
    return out


def _place(vms: list[dict], hosts: list[dict]) -> None:
    """Deal each cluster's VMs round-robin over its hosts (pairs land apart)."""
    for cluster in CLUSTERS:
        mine = [h for h in hosts if h["cluster"] == cluster]
        for i, v in enumerate(x for x in vms if x["cluster"] == cluster):
            v["host"] = mine[i % len(mine)]
            v["ds"] = CLUSTERS[cluster][3][i % len(CLUSTERS[cluster][3])]


def _common(v: dict) -> dict:
    """The columns every per-VM sheet repeats."""
    return {
        "VM": v["vm"], "Powerstate": "poweredOn" if v["on"] else "poweredOff",
        "Template": str(v["special"] == "template"), "SRM Placeholder": "False",
        "Datacenter": DC, "Cluster": v["cluster"], "Host": v["host"]["host"],
        "Folder": f"/{DC}/{v['cluster']}/{v['app']}",
        "OS according to the configuration file": v["os"],
        "OS according to the VMware Tools": v["os"] if v["tools_run"] else None,
        "OS according to the VMware tools": v["os"] if v["tools_run"] else None,
        "VM ID": v["id"], "VM UUID": v["uuid"], "VI SDK Server": VC, "VI SDK UUID": VC_UUID,
    }


def _disks(v: dict) -> list[dict]:
    """vDisk rows of one VM (capacity in MiB)."""
    rows = []
    windows = v["os"].startswith("Microsoft")
    for n, gib in enumerate(v["disks"]):
        key = str(2000 + n)
        rdm = v["special"] == "rdm" and n == 1
        shared = v["special"] == "multiwriter" and n == 1
        vmdk = f"{v['vm']}_{n}.vmdk" if n else f"{v['vm']}.vmdk"
        owner = "orarac01" if shared else v["vm"]
        ds = "PROD-DS03" if shared else v["ds"]
        rows.append({
            **_common(v), "Disk": f"Hard disk {n + 1}", "Disk Key": key,
            "Disk UUID": f"6000C29{v['uuid'][1:8]}-{v['uuid'][9:13]}-{n:04d}",
            "Disk Path": _mount(windows, n), "Capacity MiB": gib * 1024,
            "Raw": str(rdm), "Disk Mode": "independent_persistent" if rdm or shared
            else "persistent",
            "Sharing mode": "sharingMultiWriter" if shared else "sharingNone",
            "Thin": str(not (rdm or shared)), "Eagerly Scrub": str(shared),
            "Split": "False", "Write Through": "False", "Level": "normal",
            "Shares": 1000, "Reservation": 0, "Limit": -1,
            "Controller": "LSI Logic SAS" if windows else "VMware paravirtual SCSI",
            "Label": "SCSI controller 1" if rdm or shared else "SCSI controller 0",
            "SCSI Unit #": 7, "Unit #": n,
            "Shared Bus": "physicalSharing" if rdm else "noSharing",
            "Path": f"[{v['ds']}] {owner}/{owner}_{n}-rdmp.vmdk" if rdm
            else f"[{ds}] {owner}/{owner}_{n}.vmdk" if shared else f"[{ds}] {owner}/{vmdk}",
            "Raw LUN ID": "naa.600a098038304437522b4d6c4a2f6b31" if rdm else None,
            "Raw Comp. Mode": "physicalMode" if rdm else None,
            "Internal Sort Column": f"{v['vm']} {key}",
        })
    return rows


def _mount(windows: bool, n: int) -> str:
    if windows:
        return "CDEFG"[n] + ":\\"
    return "/" if n == 0 else f"/data{n}"


def _partitions(v: dict) -> list[dict]:
    """vPartition rows: what the guest sees (only with Tools running, no RDM)."""
    if not v["tools_run"]:
        return []
    rows = []
    for n, (gib, fill) in enumerate(zip(v["disks"], v["fill"], strict=True)):
        if v["special"] == "rdm" and n == 1:
            continue
        cap = gib * 1024 - (512 if n == 0 else 128)
        used = round(cap * fill)
        rows.append({**_common(v), "Disk Key": str(2000 + n),
                     "Disk": _mount(v["os"].startswith("Microsoft"), n),
                     "Capacity MiB": cap, "Consumed MiB": used, "Free MiB": cap - used,
                     "Free %": round(100 * (cap - used) / cap),
                     "Internal Sort Column": f"{v['vm']} {2000 + n}"})
    return rows


def _used_mib(v: dict) -> int:
    """Datastore space in use: thin disks by their fill, thick disks whole, plus swap."""
    used = 0
    for n, (gib, fill) in enumerate(zip(v["disks"], v["fill"], strict=True)):
        thick = v["special"] in ("rdm", "multiwriter") and n == 1
        used += gib * 1024 if thick else round(gib * 1024 * fill)
    return used + (v["gib"] * 1024 if v["on"] else 0)


def _info(v: dict) -> dict:
    mib = v["gib"] * 1024
    disk = sum(v["disks"]) * 1024
    hw = 7 if v["special"] == "old" else (19 if v["cluster"] == "Prod" else 17)
    return {
        **_common(v), "Config status": "green",
        "DNS Name": f"{v['vm']}.example.local" if v["tools_run"] else None,
        "Connection state": "connected",
        "Guest state": "running" if v["tools_run"] else "notRunning",
        "Heartbeat": "green" if v["tools_run"] else "gray",
        "Consolidation Needed": "False",
        "PowerOn": datetime(2026, 9, 13, 2, 10) + timedelta(minutes=int(v["id"][3:]))
        if v["on"] else None, "Suspend Interval": "0",
        "Creation date": v["created"], "Change Version": EXPORTED - timedelta(days=3),
        "CPUs": v["cpus"], "Overall Cpu Readiness": "0%", "Memory": mib,
        "Active Memory": round(mib * v["active"]), "NICs": 1, "Disks": len(v["disks"]),
        "Total disk capacity MiB": disk, "Fixed Passthru HotPlug": "False",
        "min Required EVC Mode Key": v["host"]["evc"], "Latency Sensitivity": "normal",
        "Op Notification Timeout": 0, "CBT": "TRUE",
        "Primary IP Address": v["ip"] if v["tools_run"] else None,
        "Network #1": CLUSTERS[v["cluster"]][2], "Num Monitors": 1,
        "Video Ram KiB": 8192, "Resource pool": f"/{DC}/{v['cluster']}/Resources",
        "Folder ID": f"group-v{100 + sorted(CLUSTERS).index(v['cluster'])}",
        "vApp": v["vapp"], "DAS protection": str(v["on"]), "FT State": "notConfigured",
        "FT Latency": "gray", "FT Bandwidth": -1, "FT Sec. Latency": -1,
        "Provisioned MiB": disk + mib, "In Use MiB": _used_mib(v),
        "Unshared MiB": _used_mib(v), "HA Restart Priority": "medium",
        "HA Isolation Response": "none", "HA VM Monitoring": "vmMonitoringDisabled",
        "Boot Required": "False", "Boot delay": 0, "Boot retry delay": 10000,
        "Boot retry enabled": "False", "Boot BIOS setup": "False",
        "Reboot PowerOff": "False", "EFI Secure boot": str(hw >= 17),
        "Firmware": "efi" if hw >= 17 else "bios", "HW version": hw,
        "HW upgrade status": "none", "HW upgrade policy": "never",
        "Path": f"[{v['ds']}] {v['vm']}/{v['vm']}.vmx",
        "Log directory": f"[{v['ds']}] {v['vm']}/",
        "Snapshot directory": f"[{v['ds']}] {v['vm']}/",
        "Suspend directory": f"[{v['ds']}] {v['vm']}/",
        "Customization Info": "IDLE" if v["tools_run"] else None,
        "SMBIOS UUID": v["smbios"],
        "VI SDK Server type": "VMware vCenter Server 8.0.2 build-24321653",
        "VI SDK API Version": "8.0.2.0",
    }


def _cpu(v: dict) -> dict:
    mx = v["cpus"] * v["host"]["mhz"]
    return {**_common(v), "CPUs": v["cpus"], "Sockets": v["cpus"] if v["cpus"] <= 2 else 2,
            "Cores p/s": 1 if v["cpus"] <= 2 else v["cpus"] // 2, "Max": mx,
            "Overall": round(mx * v["util"]), "Level": "normal",
            "Shares": 1000 * v["cpus"], "Reservation": 0,
            "Entitlement": round(mx * v["util"] * 1.1), "DRS Entitlement": round(mx * v["util"]),
            "Limit": -1, "Hot Add": "False", "Hot Remove": "False",
            "Numa Hotadd Exposed": "False"}


def _memory(v: dict) -> dict:
    mib = v["gib"] * 1024
    consumed = round(mib * min(0.98, v["active"] + 0.35)) if v["on"] else 0
    return {**_common(v), "Size MiB": mib, "Memory Reservation Locked To Max": "False",
            "Overhead": 0, "Max": mib, "Consumed": consumed,
            "Consumed Overhead": 60 if v["on"] else 0, "Private": consumed, "Shared": 0,
            "Swapped": 0, "Ballooned": 0, "Active": round(mib * v["active"]),
            "Entitlement": consumed, "DRS Entitlement": round(mib * v["active"]),
            "Level": "normal", "Shares": 10 * mib, "Reservation": 0, "Limit": -1,
            "Hot Add": "False"}


def _network(v: dict, i: int) -> dict:
    return {**_common(v), "NIC label": "Network adapter 1",
            "Adapter": "E1000" if v["special"] == "old" else "Vmxnet3",
            "Network": CLUSTERS[v["cluster"]][2], "Switch": f"DVS-{v['cluster']}",
            "Connected": str(v["on"]), "Starts Connected": "True",
            "Mac Address": f"00:50:56:a1:{i // 256:02x}:{i % 256:02x}",
            "Type": "assigned", "IPv4 Address": v["ip"] if v["tools_run"] else None,
            "Direct Path IO": "True",
            "Internal Sort Column": f"{v['vm']} Network adapter 1"}


def _tools(v: dict) -> dict:
    if v["special"] == "old":
        state, version = "toolsOld", 10346
    else:
        state, version = ("toolsOk" if v["tools_run"] else "toolsNotRunning"), 12389
    return {**_common(v), "VM Version": _info(v)["HW version"], "Tools": state,
            "Tools Version": version, "Required Version": 12389,
            "Upgradeable": "Yes" if state == "toolsOld" else "No",
            "Upgrade Policy": "manual", "Sync time": "False",
            "App status": "none", "Heartbeat status": "appStatusGray",
            "Kernel Crash state": "False", "Operation Ready": str(v["tools_run"]),
            "State change support": str(v["tools_run"]), "Interactive Guest": "False",
            "VMRef": v["id"][3:]}


def _snapshots(vms: list[dict]) -> list[dict]:
    """A snapshot 400 days old on crm-app01, a 3-day-old one on erp-app01."""
    out = []
    for v in vms:
        age = {"oldsnap": 400, "snap": 3}.get(v["special"])
        if age is None:
            continue
        when = EXPORTED - timedelta(days=age)
        name = f"before patch {when:%Y-%m-%d}"
        out.append({**_common(v), "Name": name, "Description": "taken by the patch job",
                    "Date / time": when,
                    "Filename": f"[{v['ds']}] {v['vm']}/{v['vm']}-Snapshot1.vmsn",
                    "Size MiB (vmsn)": 5.27, "Size MiB (total)": 48213.5 if age > 100
                    else 1024.25, "Quiesced": "False", "State": "poweredOn"})
    return out


def _usb(vms: list[dict]) -> list[dict]:
    return [{**_common(v), "Device Node": "USB 1",
             "Device Type": "Aladdin Knowledge Systems HASP HL 3.21 (licence dongle)",
             "Connected": "True", "Family": "other", "Speed": "full",
             "EHCI enabled": "True", "Auto connect": "True", "Bus number": 0,
             "Unit number": 1, "VMRef": v["id"][3:]}
            for v in vms if v["special"] == "usb"]


def _health(vms: list[dict], snaps: list[dict]) -> list[dict]:
    rows = [{"Name": s["VM"], "Message": f"VM has an active snapshot! {s['Name']} created "
             f"on {s['Date / time']:%Y/%m/%d %H:%M:%S}", "Message type": "Snapshot"}
            for s in snaps]
    rows += [{"Name": v["vm"], "Message":
              "VMware tools are out of date, not running or not installed!",
              "Message type": "VM Tools"} for v in vms if v["on"] and not
             (v["tools_run"] and v["special"] != "old")]
    rows.append({"Name": "[DEV-DS02] old-test07/old-test07.vmdk",
                 "Message": "Possibly a Zombie vmdk file! Please check.",
                 "Message type": "Zombie"})
    return [{**r, "VI SDK Server": VC, "VI SDK UUID": VC_UUID} for r in rows]


def _host_rows(hosts: list[dict], vms: list[dict]) -> list[dict]:
    """vHost: usage from the VMs on the host plus the hypervisor's own."""
    rows = []
    for h in hosts:
        mine = [v for v in vms if v["host"] is h]
        on = [v for v in mine if v["on"]]
        cores = 2 * h["cps"]
        demand = sum(_cpu(v)["Overall"] for v in on)
        consumed = sum(_memory(v)["Consumed"] for v in on)
        vcpus = sum(v["cpus"] for v in on)
        rows.append({
            "Host": h["host"], "Datacenter": DC, "Cluster": h["cluster"],
            "Config status": "green", "in Maintenance Mode": "False",
            "in Quarantine Mode": "False", "CPU Model": h["cpu"], "Speed": h["mhz"],
            "HT Available": "True", "HT Active": "True", "# CPU": 2,
            "Cores per CPU": h["cps"], "# Cores": cores,
            "CPU usage %": round(100 * demand / (cores * h["mhz"])) + 2,
            "# Memory": h["mib"], "Memory Tiering Type": "noTiering",
            "Memory usage %": round(100 * (consumed + 12288) / h["mib"]),
            "Console": 0, "# NICs": 4, "# HBAs": 2, "# VMs total": len(mine),
            "# VMs": len(on), "VMs per Core": len(on) / cores, "# vCPUs": vcpus,
            "vCPUs per Core": vcpus / cores, "vRAM": sum(v["gib"] * 1024 for v in on),
            "VM Used memory": sum(_memory(v)["Active"] for v in on),
            "VM Memory Swapped": 0, "VM Memory Ballooned": 0,
            "VMotion support": "True", "Storage VMotion support": "True",
            "Current EVC": h["evc"], "Max EVC": h["evc"],
            "Assigned License(s)": "(removed)", "ATS Heartbeat": "1", "ATS Locking": "1",
            "Current CPU power man. policy": "Balanced",
            "Supported CPU power man.": "ACPI P-states", "Host Power Policy": "dynamic",
            "ESX Version": "VMware ESXi 8.0.2 build-23305546",
            "Boot time": datetime(2026, 9, 12, 22, 40), "DNS Servers": "10.110.0.2, 10.110.0.3",
            "DHCP": "False", "DNS Search Order": "example.local",
            "NTP Server(s)": "ntp.example.local", "NTPD running": "True",
            "Time Zone": "UTC", "Time Zone Name": "UTC", "GMT Offset": "0",
            "Vendor": h["vendor"], "Model": h["model"],
            "Serial number": f"SN{int(h['id'][5:]):07d}", "Service tag": f"SN{int(h['id'][5:]):07d}",
            "Object ID": h["id"], "UUID": f"4c4c4544-0000-1000-8000-{int(h['id'][5:]):012d}",
            "VI SDK Server": VC, "VI SDK UUID": VC_UUID})
    return rows


def _cluster_rows(hosts: list[dict]) -> list[dict]:
    rows = []
    for i, name in enumerate(CLUSTERS):
        mine = [h for h in hosts if h["cluster"] == name]
        cores = sum(2 * h["cps"] for h in mine)
        mhz = sum(2 * h["cps"] * h["mhz"] for h in mine)
        mem = sum(h["mib"] for h in mine)
        rows.append({
            "Name": name, "Config status": "green", "OverallStatus": "green",
            "NumHosts": len(mine), "numEffectiveHosts": len(mine), "TotalCpu": mhz,
            "NumCpuCores": cores, "NumCpuThreads": 2 * cores,
            "Effective Cpu": round(mhz * 0.9), "TotalMemory": mem,
            "Effective Memory": round(mem * 0.97), "Num VMotions": 100 + 37 * i,
            "HA enabled": "True", "Failover Level": 1, "AdmissionControlEnabled": "True",
            "Host monitoring": "enabled",
            "HB Datastore Candidate Policy": "allFeasibleDsWithUserPreference",
            "Isolation Response": "none", "Restart Priority": "medium",
            "Cluster Settings": "True", "Max Failures": 3, "Max Failure Window": -1,
            "Failure Interval": 30, "Min Up Time": 120,
            "VM Monitoring": "vmMonitoringDisabled", "DRS enabled": "True",
            "DRS default VM behavior": "fullyAutomated", "DRS vmotion rate": 3,
            "DPM enabled": "False", "DPM default behavior": "automated",
            "DPM Host Power Action Rate": 3, "Object ID": f"domain-c{10 + i}",
            "VI SDK Server": VC, "VI SDK UUID": VC_UUID})
    return rows


def _datastore_rows(hosts: list[dict], vms: list[dict]) -> list[dict]:
    rows = []
    for cluster, (_n, _m, _net, names) in CLUSTERS.items():
        mine = [h["host"] for h in hosts if h["cluster"] == cluster]
        for name in names:
            on = [v for v in vms if v["ds"] == name]
            cap = (32 if name == "PROD-DS03" else 16) * 1024 * 1024
            used = sum(_used_mib(v) for v in on)
            rows.append({
                "Name": name, "Config status": "green",
                "Address": f"naa.600a0980383044375{len(rows):015d}", "Accessible": "True",
                "Type": "VMFS", "# VMs total": len(on), "# VMs": sum(v["on"] for v in on),
                "Capacity MiB": cap,
                "Provisioned MiB": sum(_info(v)["Provisioned MiB"] for v in on),
                "In Use MiB": used, "Free MiB": cap - used,
                "Free %": round(100 * (cap - used) / cap), "SIOC enabled": "False",
                "SIOC Threshold": 30, "# Hosts": len(mine), "Hosts": ", ".join(mine),
                "Block size": 1, "Max Blocks": cap, "# Extents": 1, "Major Version": 6,
                "Version": "6.82", "VMFS Upgradeable": "False", "MHA": "True",
                "URL": f"ds:///vmfs/volumes/{VC_UUID[:8]}-{len(rows):08x}/",
                "Object ID": f"datastore-{200 + len(rows)}",
                "VI SDK Server": VC, "VI SDK UUID": VC_UUID})
    return rows


def sheets() -> dict[str, list[dict]]:
    """Every sheet's rows (dicts keyed by header) in workbook order."""
    rng = random.Random(27)
    hosts = _hosts()
    vms = _vm_list(rng)
    _place(vms, hosts)
    snaps = _snapshots(vms)
    return {
        "vInfo": [_info(v) for v in vms],
        "vCPU": [_cpu(v) for v in vms],
        "vMemory": [_memory(v) for v in vms],
        "vDisk": [d for v in vms for d in _disks(v)],
        "vPartition": [p for v in vms for p in _partitions(v)],
        "vNetwork": [_network(v, i) for i, v in enumerate(vms)],
        "vUSB": _usb(vms),
        "vSnapshot": snaps,
        "vTools": [_tools(v) for v in vms],
        "vSource": [{"Name": "VMware vCenter Server", "OS type": "linux-x64",
                     "API type": "VirtualCenter", "API version": "8.0.2.0",
                     "Version": "8.0.2", "Patch level": "00500", "Build": "24321653",
                     "Fullname": "VMware vCenter Server 8.0.2 build-24321653",
                     "Product name": "VMware VirtualCenter Server",
                     "Product version": "8.0", "Product line": "vpx",
                     "Vendor": "VMware, Inc.", "VI SDK Server": VC, "VI SDK UUID": VC_UUID}],
        "vCluster": _cluster_rows(hosts),
        "vHost": _host_rows(hosts, vms),
        "vDatastore": _datastore_rows(hosts, vms),
        "vHealth": _health(vms, snaps),
        "vMetaData": [{"RVTools major version": 4.7, "RVTools version": "4.7.1.4",
                       "xlsx creation datetime": EXPORTED, "Server": VC}],
    }


def write(path: Path) -> None:
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, rows in sheets().items():
        header = HEADERS[name].split("|")
        ws = wb.create_sheet(name)
        ws.append(header)
        for row in rows:
            ws.append([row.get(h) for h in header])
        ws.freeze_panes = "B2"
    path.write_bytes(reproducible_bytes(wb))  # the reports' fixed-time writer


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else OUT
    out.parent.mkdir(parents=True, exist_ok=True)
    write(out)
    n = sum(1 for r in sheets()["vInfo"])
    print(f"wrote {n} VMs to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
