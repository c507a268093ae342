"""Corpus round 3: hand-made VM lists that drive VM-building tools
(tests/data/real/tables/, "Third round" in its README.md).

Each file is the CSV a Terraform, Ansible, PowerCLI, Hyper-V, libvirt or
vRealize script reads to build VMs: the CPU count as ``CPU``/``cpus``/``num_cpus``/``cores``, the
memory in the tool's own unit (bytes for Foreman, MB for vSphere and
Proxmox), often with no unit in the header or with the unit glued to the word
(``memoryGB``, ``mbmem``, ``gbdisk``). Figures are the files' own cells,
checked by hand::

    cd tests/data/real/tables
    awk -F';' 'NR>1{m+=$3;c+=$2;n++}END{print n,c,m,m/1024}' ansible_proxmox_vms.csv
    # 13 servers, 34 vCPUs, 53248 MB = 52 GiB
    awk -F, 'NR>2{m+=$4;c+=$3;n++}END{print n,c,m/2^30}' foreman_terraform_vms.csv
    # 4 servers (row 1 is a pasted '$ cat vms.csv' line), 12 vCPUs, 32 GiB
    awk -F, 'NR>1{m+=$7;c+=$6;n++}END{print n,c,m/1024,32e9/2^30}' proxmox_terraform_vms.csv
    # 5 servers, 10 vCPUs, 10 GiB, disk '32G' = 29.8023 GiB each
    awk -F, 'NR>1{m+=$5;c+=$4;d+=$6;n++}END{print n,c,m/1024,d*1e9/2^30}' bulk_vm_create_vms.csv
    # 4 servers, 6 vCPUs, 5 GiB, 120 GB = 111.759 GiB of disk
    awk -F, 'NR>1{m+=$9;c+=$8;n++}END{print n,c,m/2^30}' hyperv_deploy_lab_serverlist.csv
    # 5 servers, 18 vCPUs, 20 GiB (4294967296 B each)
    tr -d '\r' < powercli_deploy_vms_serverlist.csv | awk -F, 'NR>1{print $1,$6+$7+$8}'
    # VM-004 55 (GB of disk), the 6 others 45
    awk -F, '/^[^#]/ && NR>25{print $1,$4,$5,$7+$8}' libvirt_ansible_vms.csv
    # my-windows-vm 8192 MB 4 vCPUs 90 GB, my-linux-vm 2048 MB 2 vCPUs 20 GB
    awk -F, 'NR>1{print $5,$6,$7,$14+$15+$16}' vmbuild_powercli_vms.csv
    # ZZZTESTVM 2 (GB) 1 (vCPU) 60 (GB of disk: D: + E: + F:)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vsizer.cli import main
from vsizer.errors import InventoryError
from vsizer.inventory import read_inventory
from vsizer.inventory.headers import comment_row, looks_like_size, match_header
from vsizer.inventory.mem_unit import apply_mem_unit

pytestmark = pytest.mark.slow

REAL = Path(__file__).parent / "data" / "real" / "tables"
HOST = ["--host-model", "Dell PowerEdge R740 2x Platinum 8180"]


def _read(name: str):
    return read_inventory(REAL / name)


def _warning(inv, code: str) -> str:
    (w,) = [w for w in inv.quality.warnings if w.code == code]
    return w.message


def _column(inv, field: str) -> list:
    return inv.servers[field].tolist()


# --- memory in bytes (Foreman) ------------------------------------------------


def test_foreman_memory_in_bytes_is_read_as_bytes_with_a_warning():
    # defect: '8589934592' (8 GiB in bytes, as the Foreman provider takes it)
    # was read as MB and refused on every row: "expected a memory size from 0
    # to 65,536 GiB (64 TiB), got '8589934592'"
    inv = _read("foreman_terraform_vms.csv")
    assert _column(inv, "name") == [
        "terraform_client1.lab.io", "terraform_client2.lab.io",
        "terraform_client3.lab.io", "terraform_client4.lab.io",
    ]
    assert _column(inv, "vcpus") == [4, 2, 2, 4]
    assert _column(inv, "mem_gib") == [8.0, 8.0, 8.0, 8.0]
    assert inv.metadata["units"] == {"MEMORY": "B"}
    assert _warning(inv, "memory_unit_from_values") == (
        "foreman_terraform_vms.csv: column 'MEMORY' has no unit and every value is "
        "at least 2^26 (smallest 8,589,934,592): read as bytes; write the unit in "
        "the header, e.g. 'memory (GB)', or say --mem-unit"
    )


def test_bytes_need_every_value_above_2_26(tmp_path):
    # one value that could be MB: the column stays MB and the byte counts are
    # refused one line each (file, row, column, expected, found)
    p = tmp_path / "mixed.csv"
    p.write_text("name,vcpus,memory\na,2,8589934592\nb,2,4096\n", encoding="utf-8")
    with pytest.raises(InventoryError) as info:
        read_inventory(p)
    assert str(info.value).splitlines() == [
        "mixed.csv row 2, column 'memory': expected a memory size from 0 to "
        "65,536 GiB (64 TiB), got '8589934592'."
    ]


def test_mem_unit_overrides_a_bytes_guess():
    # --mem-unit says the column's unit whatever was guessed: 8589934592 MB
    inv = apply_mem_unit(_read("foreman_terraform_vms.csv"), "MB")
    assert _column(inv, "mem_gib") == [8589934592 / 1024] * 4


# --- memory in MB guessed from the numbers: a counted warning ------------------


def test_proxmox_memory_in_mb_is_a_counted_warning_not_a_note():
    # defect: the MB guess was a quality *note* only: no warning in the
    # terminal, JSON, Excel or HTML, and mem_gib counted as given
    inv = _read("ansible_proxmox_vms.csv")
    assert inv.metadata["delimiter"] == ";"
    assert len(inv.servers) == 13
    assert sum(_column(inv, "vcpus")) == 34
    assert sum(_column(inv, "mem_gib")) == 52.0
    assert _column(inv, "mem_gib")[:3] == [2.0, 2.0, 4.0]
    assert _warning(inv, "memory_unit_from_values") == (
        "ansible_proxmox_vms.csv: column 'memory' has no unit and every value is "
        "1024 or more (smallest 2,048): read as MB (= MiB); write the unit in the "
        "header, e.g. 'memory (GB)', or say --mem-unit"
    )
    assert not any("read as MB" in n for n in inv.quality.notes)


def test_the_mb_guess_reaches_the_plan_warnings(tmp_path, capsys):
    out = tmp_path / "plan.json"
    with pytest.raises(SystemExit) as done:
        main(["plan", str(REAL / "proxmox_terraform_vms.csv"), *HOST, "-q", "-o",
              str(out)])
    assert done.value.code == 0
    plan = json.loads(out.read_text(encoding="utf-8"))
    codes = [w["code"] for w in plan["warnings"]]
    assert codes.count("memory_unit_from_values") == 1
    servers = {s["name"]: s for s in plan["servers"]}
    assert len(servers) == 5
    assert servers["kube-worker02"]["mem_gib"] == 2.0
    assert servers["kube-worker02"]["vcpus"] == 2


def test_proxmox_disk_with_g_suffix():
    # 'disk_size' '32G': G is read as GB (10^9 bytes) as every disk size is
    inv = _read("proxmox_terraform_vms.csv")
    assert _column(inv, "name")[0] == "kube-master01"
    assert _column(inv, "disk_gib") == [pytest.approx(32e9 / 2**30)] * 5


# --- units glued to the header word, commented header, VM CPU counts ---------


def test_vra_bulk_list_with_commented_header_and_glued_units():
    # defect: '# name' (a header line commented out), 'mbmem' and 'gbdisk' were
    # unknown: "no column for 'name'", "no column for 'mem_gib'"
    inv = _read("bulk_vm_create_vms.csv")
    assert _column(inv, "name") == ["mickey", "minnie", "donald", "goofy"]
    assert _column(inv, "vcpus") == [1, 2, 2, 1]
    assert _column(inv, "mem_gib") == [1.0, 1.0, 2.0, 1.0]
    assert _column(inv, "disk_gib") == [pytest.approx(30e9 / 2**30)] * 4
    assert inv.metadata["units"] == {"mbmem": "MB", "gbdisk": "GB"}
    assert "memory_unit_from_values" not in {w.code for w in inv.quality.warnings}


def test_powercli_list_with_memory_gb_glued():
    # defect: 'memoryGB' and 'cpus' were unknown ("did you mean: 'memoryGB'
    # -> 'memory', 'cpus' -> 'vcpus'"); the VM name column is 'vmname'
    inv = _read("vmbuild_powercli_vms.csv")
    assert _column(inv, "name") == ["ZZZTESTVM"]
    assert _column(inv, "vcpus") == [1]
    assert _column(inv, "mem_gib") == [2.0]
    assert inv.metadata["columns"]["memoryGB"] == "mem_gib"


def test_ansible_vsphere_list_with_num_cpus():
    # defect: 'num_cpus' was unknown, so the list was refused for want of
    # sockets and cores per socket
    inv = _read("ansible_vsphere_bulk_vms.csv")
    assert _column(inv, "name") == ["testvm01"]
    assert _column(inv, "vcpus") == [2]
    assert _column(inv, "mem_gib") == [2.0]


@pytest.mark.parametrize(
    ("header", "field", "unit"),
    [
        ("memoryGB", "mem_gib", "GB"),
        ("RamMB", "mem_gib", "MB"),
        ("mbmem", "mem_gib", "MB"),
        ("gbdisk", "disk_gib", "GB"),
        ("diskTB", "disk_gib", "TB"),
        ("# name", "name", None),
        ("#hostname", "name", None),
        ("#メモリ(MB)", "mem_gib", "MB"),
        ("cpus", "vcpus", None),
        ("numCPU", "vcpus", None),
        ("Number of CPUs", "vcpus", None),
        ("num_cpu_cores", "cores_per_socket", None),
        ("NumCoresPerSocket", "cores_per_socket", None),
    ],
)
def test_header_forms(header, field, unit):
    m = match_header(header)
    assert (m.field, m.unit, m.header) == (field, unit, header)


@pytest.mark.parametrize("header", ["#", "rgb", "kbps", "tbd", "cpugb", "namegb", "##"])
def test_header_forms_that_stay_unknown(header):
    # a glued unit is read only on a size field (memory, disk)
    assert match_header(header).field is None


# --- one column per disk: summed, said; other sizes not read: said --------------


@pytest.mark.parametrize(
    ("name", "columns", "disks"),
    [
        ("vmbuild_powercli_vms.csv", "'DdrivesizeGB', 'EdrivesizeGB', 'FdrivesizeGB' "
         "(one column per disk)",
         [60e9]),
        ("ansible_proxmox_vms.csv", "'extra_disk1_size', 'extra_disk2_size' (one "
         "column per disk); 'extra_disk1_size', 'extra_disk2_size' in GB (10^9 "
         "bytes), no unit being stated",
         [60e9, 60e9, None, None, 60e9, 60e9, 1000e9, 1000e9, 1000e9, None, None,
          120e9, None]),
        ("libvirt_ansible_vms.csv", "'disk_gb', 'data_disk_gb' (one column per disk)",
         [90e9, 20e9]),
        ("powercli_deploy_vms_serverlist.csv", "'Hard disk 1', 'Hard disk 2', 'Hard "
         "disk 3' (one column per disk); 'Hard disk 1', 'Hard disk 2', 'Hard disk 3' "
         "in GB (10^9 bytes), no unit being stated", [55e9] + [45e9] * 6),
    ],
)
def test_per_disk_size_columns_are_summed_with_a_warning(name, columns, disks):
    # defect: one column per disk was not read (the reader took one disk
    # column, or none) and nothing said so: these lists planned no storage, or
    # the libvirt one its system disk only (80 of 90 GB)
    inv = _read(name)
    assert _warning(inv, "disk_from_columns") == (
        f"{name}: disk size = the sum of columns {columns}; a disk in no column is "
        "not counted"
    )
    got = [None if v != v else v for v in inv.servers["disk_gib"].astype(float)]
    assert got == [None if d is None else pytest.approx(d / 2**30) for d in disks]
    assert "size_columns_not_read" not in {w.code for w in inv.quality.warnings}


def test_the_one_disk_column_is_read_as_the_disk():
    inv = _read("ansible_vsphere_bulk_vms.csv")
    assert _column(inv, "disk_gib") == [pytest.approx(40e9 / 2**30)]
    assert _warning(inv, "disk_from_columns") == (
        "ansible_vsphere_bulk_vms.csv: disk size read from column 'disk0.size_gb' in GB"
    )


def test_a_disk_column_of_text_is_not_summed_and_sizes_not_read_are_said(tmp_path):
    # 'thin' is no size: the disk columns are left unread, and named; a size
    # that is no disk (the page file) is named too
    p = tmp_path / "vms.csv"
    p.write_text("name,vcpus,memory (GB),disk1 size (GB),disk2 size (GB),pagefile size\n"
                 "a,2,4,40,thin,4\n", encoding="utf-8")
    inv = read_inventory(p)
    assert "disk_gib" not in inv.metadata["columns"].values()
    assert _warning(inv, "size_columns_not_read") == (
        "vms.csv: column(s) 'disk1 size (GB)', 'disk2 size (GB)', 'pagefile size' "
        "look like sizes but are not read (one column per disk or an unknown name); "
        "give the total in one column, e.g. 'disk (GB)'"
    )
    p.write_text("name,vcpus,memory (GB),Disk 1 size (GB),Disk 2 size (TB)\n"
                 "a,2,4,40,1\nb,2,4,,\n", encoding="utf-8")
    inv = read_inventory(p)
    assert _column(inv, "disk_gib")[0] == pytest.approx((40e9 + 1e12) / 2**30)
    assert inv.servers["disk_gib"].isna().tolist() == [False, True]


@pytest.mark.parametrize(
    "name", ["proxmox_terraform_vms.csv", "foreman_terraform_vms.csv",
             "bulk_vm_create_vms.csv", "racktrack_servers.csv"],
)
def test_other_unread_columns_are_not_called_sizes(name):
    # 'template', 'ip', 'HOSTGROUP', 'disk0.type' ... are not sizes
    assert "size_columns_not_read" not in {w.code for w in _read(name).quality.warnings}


@pytest.mark.parametrize(
    ("header", "size"),
    [("Disk D (GB)", True), ("データ領域容量", True), ("HDDサイズ", True),
     ("disk0.datastore", False), ("NIC (Mbps)", False), ("OS (64-bit)", False),
     ("Disk read throughput [KB/s]", False), ("Disk 1 read throughput (MB per second)",
     False), ("備考", False)],
)
def test_looks_like_size(header, size):
    assert looks_like_size(header) is size


# --- a generic header word holding names (vSphere port group) ------------------


def test_ansible_vcenter_network_names_and_cores_per_socket():
    # defects: 'network' (the port group, 'VM Network') was read as a network
    # rate and refused on every row; 'num_cpu_cores' (vSphere cores per
    # socket, 1) was read as a second vCPU column that disagreed with num_cpus
    inv = _read("ansible_vcenter_vms.csv")
    assert _column(inv, "name") == ["web-server01", "web-server02"]
    assert _column(inv, "vcpus") == [4, 2]
    assert _column(inv, "cores_per_socket") == [1, 1]
    assert _column(inv, "mem_gib") == [8.0, 4.0]
    assert _column(inv, "disk_gib") == [pytest.approx(100e9 / 2**30),
                                         pytest.approx(50e9 / 2**30)]
    assert "net_mbps" not in inv.servers or inv.servers["net_mbps"].isna().all()
    assert "network" in inv.metadata["unmapped"]
    assert _warning(inv, "text_column_not_read") == (
        "ansible_vcenter_vms.csv: column 'network' holds names ('VM Network'), not "
        "numbers: not read as net_mbps"
    )


def test_a_generic_word_with_numbers_is_still_read_and_checked(tmp_path):
    # one number in the column: it is a rate column, and its names are errors
    p = tmp_path / "net.csv"
    p.write_text("name,vcpus,memory (GB),network,power\na,2,4,100,poweredOn\n"
                 "b,2,4,VM Network,poweredOff\n", encoding="utf-8")
    with pytest.raises(InventoryError) as info:
        read_inventory(p)
    assert str(info.value).splitlines() == [
        "net.csv row 3, column 'network': expected a non-negative network rate such "
        "as 100 or '100Mbps', got 'VM Network'."
    ]
    p.write_text("name,vcpus,memory (GB),network,power\na,2,4,100,poweredOn\n",
                 encoding="utf-8")
    inv = read_inventory(p)
    assert _column(inv, "net_mbps") == [100.0]
    assert _warning(inv, "text_column_not_read") == (
        "net.csv: column 'power' holds names ('poweredOn'), not numbers: not read "
        "as power_w"
    )


def test_a_non_generic_header_of_names_is_still_refused(tmp_path):
    # 'CPU数' is no generic word: text there is an error, one line per cell
    p = tmp_path / "ja.csv"
    p.write_text("サーバ名,CPU数,コア数/CPU,メモリ(GB)\na,two,4,8\n", encoding="utf-8")
    with pytest.raises(InventoryError) as info:
        read_inventory(p)
    assert str(info.value).splitlines()[0] == (
        "ja.csv row 2, column 'CPU数': expected a positive whole number, got 'two'."
    )


# --- comment lines above the header ----------------------------------------------


def test_libvirt_list_with_a_comment_block_above_the_header():
    # defect: 23 '#' comment lines (the field documentation) above the header
    # used up the 10 rows searched for it: "row 1 was taken as the header (no
    # row among the first 10 non-empty rows has a recognized header)"
    inv = _read("libvirt_ansible_vms.csv")
    assert inv.metadata["header_row"] == 25
    assert _column(inv, "name") == ["my-windows-vm", "my-linux-vm"]
    assert _column(inv, "vcpus") == [4, 2]
    assert _column(inv, "mem_gib") == [8.0, 2.0]
    # system disk + data disk: 80 + 10 and 20 + 0 GB
    assert _column(inv, "disk_gib") == [pytest.approx(90e9 / 2**30),
                                         pytest.approx(20e9 / 2**30)]
    assert _column(inv, "os") == ["win11", "debian12"]


@pytest.mark.parametrize(
    ("cells", "comment"),
    [(["# Fields:"], True), (["#", None, ""], True), (["  # usage"], True),
     (["# name", "cpus", "mbmem"], False), (["name"], False), ([7], False),
     # a blank marker beside it (texts alone, and a sheet's row with a number)
     (["N/A", "# note"], True), (["n/a", None, "# x"], True), ([3, "# x"], False),
     (["a#b"], False)],
)
def test_comment_row(cells, comment):
    assert comment_row(cells) is comment


def test_comment_lines_between_servers_are_skipped_and_noted(tmp_path):
    # the same '#' lines below the header were servers with no vCPUs: refused
    p = tmp_path / "cm.csv"
    p.write_text("# servers\nname,vcpus,memory (GB)\na,2,4\n# b is retired\nc,2,8\n",
                 encoding="utf-8")
    inv = read_inventory(p)
    assert _column(inv, "name") == ["a", "c"]
    assert inv.metadata["data_rows"] == 2
    assert "cm.csv: 1 comment line(s) starting with '#' not read (row(s) 4)" in (
        inv.quality.notes)


def test_used_or_free_disk_space_is_never_added_to_the_disk_size(tmp_path):
    p = tmp_path / "vms.csv"
    p.write_text("name,vcpus,memory (GB),disk (GB),disk used size (GB),"
                 "data disk free space (GB),data disk size (GB)\n"
                 "a,2,4,100,30,5,50\n", encoding="utf-8")
    inv = read_inventory(p)
    assert _column(inv, "disk_gib") == [pytest.approx(150e9 / 2**30)]
    assert _warning(inv, "disk_from_columns") == (
        "vms.csv: disk size = the sum of columns 'disk (GB)', 'data disk size (GB)' "
        "(one column per disk); a disk in no column is not counted"
    )
    assert "'disk used size (GB)', 'data disk free space (GB)'" in _warning(
        inv, "size_columns_not_read")


# --- Hyper-V: virtual processors and memory in bytes -----------------------------


def test_hyperv_lab_list_processors_and_startup_bytes():
    # defect: 'Processors' (Set-VMProcessor count) was unknown and 'Memory'
    # (New-VM -MemoryStartupBytes) in bytes: refused ("no column for
    # 'sockets'"); the file starts with a UTF-8 byte-order mark
    inv = _read("hyperv_deploy_lab_serverlist.csv")
    assert inv.metadata["encoding"] == "utf-8-sig"
    assert _column(inv, "name") == ["LAB01DC01", "LAB01DC02", "LAB01MS01",
                                    "LAB01MS02", "LAB01MS03"]
    assert _column(inv, "vcpus") == [2, 2, 2, 8, 4]
    assert _column(inv, "mem_gib") == [4.0] * 5
    assert _warning(inv, "cpu_column_counts") == (
        "hyperv_deploy_lab_serverlist.csv: column 'Processors' holds core counts "
        "('2'), not CPU names: read as vcpus (the cores each server has)"
    )
    assert "smallest 4,294,967,296): read as bytes" in _warning(
        inv, "memory_unit_from_values")


def test_powercli_deploy_list_hard_disk_columns():
    # defect: 'Hard disk 1', 'Hard disk 2', 'Hard disk 3' (vSphere's disk
    # names) were not read and nothing said so: no storage was planned
    inv = _read("powercli_deploy_vms_serverlist.csv")
    assert len(inv.servers) == 7
    assert _column(inv, "vcpus") == [2] * 7
    assert _column(inv, "mem_gib") == [4.0] * 7
    assert _column(inv, "disk_gib")[0] == pytest.approx(55e9 / 2**30)


def test_a_numbered_disk_column_of_flags_is_not_a_size():
    # 'extra_disk1' holds yes/no: not summed (its size is 'extra_disk1_size')
    inv = _read("ansible_proxmox_vms.csv")
    assert "extra_disk1" in inv.metadata["unmapped"]
    assert "extra_disk1_size" not in inv.metadata["unmapped"]



# --- pipe-separated exports ----------------------------------------------------


def test_pipe_separated_list_is_read(tmp_path):
    # A university CMDB merged with Lansweeper data (cameronridderikhoff/
    # CMDB_Project machines.csv, not kept: no licence, staff names) is
    # '|'-separated; every line was one cell: "no row among the first 10
    # non-empty rows has a recognized header"
    p = tmp_path / "machines.csv"
    p.write_text("Hostname|Operating System|Processor|vCPUs|RAM (GB)|Comments\n"
                 "acme|Linux Ubuntu 14.04|Intel Q9400 @2.66GHz|4|8|lab, shared\n"
                 "admin-fw1|OpenBSD 4.5|Intel Pentium 4 @ 2.66GHz|1|512MB|\n",
                 encoding="utf-8")
    inv = read_inventory(p)
    assert inv.metadata["delimiter"] == "|"
    assert _column(inv, "name") == ["acme", "admin-fw1"]
    assert _column(inv, "mem_gib") == [8.0, 0.5]
    assert _column(inv, "cpu_mhz") == [2660.0, 2660.0]


@pytest.mark.parametrize(
    ("text", "sep"),
    [("a|b|c\n1|2|3\n", "|"), ("a,b,c\n1,x|y|z|w,3\n", ","),
     ("# doc\na|b\n1|2\n", "|"), ("a|b\n1\n", ","), ("a;b\n1;2\n", ";")],
)
def test_pipe_only_when_every_line_has_as_many(text, sep):
    from vsizer._textio import sniff_delimiter

    assert sniff_delimiter(text) == sep


# --- a bare CPU count beside cores per socket --------------------------------------


@pytest.mark.parametrize(
    ("header", "cps", "count", "per", "vcpus", "sockets", "message"),
    [
        ("CPUs", "Cores per CPU", 2, 8, 16, 2,
         "column 'CPUs' read as sockets, beside 'Cores per CPU': 2 is no whole "
         "multiple of 8, so it is no total"),
        ("Processors", "Cores per socket", 2, 8, 16, 2,
         "column 'Processors' read as sockets, beside 'Cores per socket': 2 is no "
         "whole multiple of 8, so it is no total"),
        ("CPUs", "Cores per socket", 4, 2, 4, None,
         "column 'CPUs' read as vCPUs (the total): every value is a whole multiple "
         "of 'Cores per socket'"),
    ],
)
def test_cpu_count_beside_cores_per_socket(tmp_path, header, cps, count, per, vcpus,
                                            sockets, message):
    # 'cpus' and 'Processors' became vCPU counts (for the VM lists above); a
    # ledger's 'CPUs' 2 beside 'Cores per CPU' 8 is 16 cores, not 2
    p = tmp_path / "l.csv"
    p.write_text(f"name,{header},{cps},Memory (GB)\nweb,{count},{per},64\n",
                 encoding="utf-8")
    inv = read_inventory(p)
    assert _column(inv, "vcpus") == [vcpus]
    got = inv.servers["sockets"].astype(float).tolist()[0]
    assert (None if got != got else got) == sockets
    assert _warning(inv, "cpu_count_meaning") == f"l.csv: {message}"
    assert "cpu_column_counts" not in {w.code for w in inv.quality.warnings}
