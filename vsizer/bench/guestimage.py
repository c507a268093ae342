"""Guest boot files: a Debian cloud kernel (from apt) and a busybox initramfs.

No disk image is downloaded: the guest mounts the host's root read-only over
virtiofs and chroots into it (notes/kvm-feasibility.md §2), so it runs the host's
own fio, sysbench, iperf3, PostgreSQL and Python. Steps, cached under
``cache_dir`` and keyed by the kernel package version:

1. ``apt-get download linux-image-<ver>-cloud-amd64`` and ``dpkg-deb -x``;
2. cut the bzImage at the LZ4 magic and decompress it (``lz4 -dc``) into an ELF
   ``vmlinux``; the cloud kernel has CONFIG_PVH, so QEMU boots it directly;
3. write a gzip'd newc cpio: busybox-static, the virtio/fuse/virtiofs modules
   (cloud kernels build them as modules) and an ``/init`` that loads them in
   dependency order, mounts the host root and starts the guest agent.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from vsizer.errors import BenchmarkRunError

__all__ = ["GuestImage", "cpio_newc", "prepare_guest_image", "vmlinux_from_bzimage"]

KERNEL_META_PACKAGE = "linux-image-cloud-amd64"
MODULES = (
    "drivers/virtio/virtio_ring", "drivers/virtio/virtio",
    "drivers/virtio/virtio_pci_legacy_dev", "drivers/virtio/virtio_pci_modern_dev",
    "drivers/virtio/virtio_pci", "drivers/block/virtio_blk", "net/core/failover",
    "drivers/net/net_failover", "drivers/net/virtio_net", "fs/fuse/fuse",
    "fs/fuse/virtiofs",
)
LZ4_MAGIC = b"\x02\x21\x4c\x18"  # legacy LZ4 frame, as used by the kernel's bzImage

INIT = """#!/bin/busybox sh
B=/bin/busybox
$B mount -t proc proc /proc
$B mount -t sysfs sys /sys
$B mount -t devtmpfs dev /dev
for m in {modules}; do $B insmod /modules/$m.ko || echo "vsizer-init: insmod $m failed"; done
if $B mount -t virtiofs -o ro hostroot /mnt; then
  $B mount -t proc proc /mnt/proc
  $B mount -t sysfs sys /mnt/sys
  $B mount -t devtmpfs dev /mnt/dev
  $B mount -t tmpfs -o mode=1777 tmp /mnt/tmp
  $B mount -t tmpfs run /mnt/run
  $B mkdir -p /mnt/run/postgresql && $B chmod 1777 /mnt/run/postgresql
  $B hostname vsizer-guest
  $B cp /vsizer-agent.py /mnt/tmp/vsizer-agent.py
  $B chroot /mnt /usr/bin/python3 -I /tmp/vsizer-agent.py /dev/ttyS1
  echo "vsizer-init: agent exited with $?"
else
  echo "vsizer-init: cannot mount the host root over virtiofs"
fi
$B sync
$B poweroff -f
"""


@dataclass(frozen=True)
class GuestImage:
    """Boot files for a guest."""

    kernel: Path
    initramfs: Path
    kernel_version: str


def _run(argv: list[str], cwd: Path | None = None) -> str:
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False,
                              timeout=600)
    except OSError as exc:
        raise BenchmarkRunError(f"cannot run {argv[0]}: {exc.strerror}.") from None
    if done.returncode != 0:
        tail = " | ".join(done.stderr.strip().splitlines()[-3:])
        raise BenchmarkRunError(f"'{' '.join(argv)}' failed (exit {done.returncode}): {tail}")
    return done.stdout


def kernel_package() -> str:
    """The versioned package the cloud-kernel meta package depends on."""
    text = _run(["apt-cache", "depends", KERNEL_META_PACKAGE])
    match = re.search(r"Depends:\s+(linux-image-\d\S*-cloud-amd64)", text)
    if not match:
        raise BenchmarkRunError(
            f"apt-cache depends {KERNEL_META_PACKAGE}: no versioned linux-image package "
            "found (run 'apt-get update')."
        )
    return match.group(1)


def vmlinux_from_bzimage(bzimage: bytes) -> bytes:
    """Decompress the LZ4 payload of a bzImage into the ELF vmlinux."""
    at = bzimage.find(LZ4_MAGIC)
    if at < 0:
        raise BenchmarkRunError("the kernel image has no LZ4 payload (magic 02 21 4c 18).")
    done = subprocess.run(["lz4", "-dc"], input=bzimage[at:], capture_output=True, check=False)
    elf = done.stdout
    if not elf.startswith(b"\x7fELF"):
        raise BenchmarkRunError(
            "lz4 -dc of the kernel payload did not give an ELF image: "
            + done.stderr.decode(errors="replace").strip()[:200]
        )
    return elf


def cpio_newc(entries: list[tuple[str, int, bytes]]) -> bytes:
    """A newc cpio archive of ``(path, mode, data)`` entries (directories: empty data).

    Format: "New ASCII Format" of cpio(5); 110-byte header of 13 hex fields, NUL
    terminated name, both padded to 4 bytes, ending with ``TRAILER!!!``.
    """
    out = io.BytesIO()

    def pad() -> None:
        out.write(b"\0" * (-out.tell() % 4))

    for ino, (name, mode, data) in enumerate([*entries, ("TRAILER!!!", 0, b"")], start=1):
        raw = name.encode() + b"\0"
        fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(raw), 0]
        out.write(b"070701" + b"".join(b"%08X" % f for f in fields))
        out.write(raw)
        pad()
        out.write(data)
        pad()
    return out.getvalue()


def _initramfs(moddir: Path) -> bytes:
    busybox = Path("/bin/busybox")
    if not busybox.exists():
        raise BenchmarkRunError("/bin/busybox is missing (Debian package busybox-static).")
    dirs = ["bin", "dev", "proc", "sys", "mnt", "modules"]
    entries = [(d, stat.S_IFDIR | 0o755, b"") for d in dirs]
    entries.append(("bin/busybox", stat.S_IFREG | 0o755, busybox.read_bytes()))
    names = []
    for rel in MODULES:
        path = moddir / "kernel" / f"{rel}.ko"
        if not path.exists():
            raise BenchmarkRunError(f"kernel module {path} is missing from the kernel package.")
        name = rel.rsplit("/", 1)[1]
        names.append(name)
        entries.append((f"modules/{name}.ko", stat.S_IFREG | 0o644, path.read_bytes()))
    entries.append(("init", stat.S_IFREG | 0o755, render_init()))
    return gzip.compress(cpio_newc(entries), mtime=0)


def render_init() -> bytes:
    """The guest's ``/init`` script, modules in load order."""
    names = [rel.rsplit("/", 1)[1] for rel in MODULES]
    return INIT.replace("{modules}", " ".join(names)).encode()


def boot_initrd(image: GuestImage, agent: Path, out: Path) -> Path:
    """The cached initramfs followed by a second cpio with ``/init`` and the agent.

    The kernel unpacks concatenated archives in order, later files replacing
    earlier ones [1]_, so the guest always runs this checkout's init and agent
    without rebuilding the cached image. The agent travels in the initramfs, not
    over virtiofs: the guest mounts a tmpfs over /tmp and /run, which would hide a
    checkout there.

    References
    ----------
    .. [1] Linux kernel documentation, "ramfs, rootfs and initramfs"
       (Documentation/filesystems/ramfs-rootfs-initramfs.rst): "the kernel will
       accept multiple concatenated cpio archives".
    """
    overlay = cpio_newc([("init", stat.S_IFREG | 0o755, render_init()),
                         ("vsizer-agent.py", stat.S_IFREG | 0o644, agent.read_bytes())])
    out.write_bytes(image.initramfs.read_bytes() + gzip.compress(overlay, mtime=0))
    return out


def prepare_guest_image(cache_dir: str | Path) -> GuestImage:
    """Kernel and initramfs for guests, built once into ``cache_dir`` and reused."""
    cache = Path(cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    package = kernel_package()
    version = package.removeprefix("linux-image-")
    kernel = cache / f"vmlinux-{version}"
    initramfs = cache / f"initramfs-{version}.cpio.gz"
    if kernel.exists() and initramfs.exists():
        return GuestImage(kernel, initramfs, version)
    work = cache / f"extract-{version}"
    work.mkdir(exist_ok=True)
    os.chmod(work, 0o777)  # apt-get download drops privileges to _apt
    _run(["apt-get", "download", package], cwd=work)
    debs = sorted(work.glob(f"{package}_*.deb"))
    if not debs:
        raise BenchmarkRunError(f"apt-get download {package} left no .deb in {work}.")
    _run(["dpkg-deb", "-x", str(debs[-1]), str(work / "root")])
    vmlinuz = work / "root" / "boot" / f"vmlinuz-{version}"
    tmp = kernel.with_suffix(".tmp")
    tmp.write_bytes(vmlinux_from_bzimage(vmlinuz.read_bytes()))
    initramfs.with_suffix(".tmp").write_bytes(
        _initramfs(work / "root" / "lib" / "modules" / version)
    )
    initramfs.with_suffix(".tmp").replace(initramfs)
    tmp.replace(kernel)
    _run(["rm", "-rf", str(work)])
    return GuestImage(kernel, initramfs, version)
