"""Guest agent: runs inside a QEMU guest, executes commands sent over a serial port.

Started by the guest's /init (chrooted into the host root shared over virtiofs) as
``python3 -I guest_agent.py /dev/ttyS1``. Standard library only: it must not
import vsizer. Protocol, one JSON object per line in both directions:

* guest → host ``{"event": "ready", "uptime_s": ...}`` once, when it can take commands;
* host → guest ``{"op": "run", "id": n, "argv": [...], "timeout": s}``;
* guest → host ``{"event": "start", "id": n}`` right before the command starts and
  ``{"event": "done", "id": n}`` right after it ends (the host timestamps both
  lines: time is taken on the host), then
  ``{"event": "end", "id": n, "rc": ..., "stdout": ..., "stderr": ...}``;
* host → guest ``{"op": "exit"}``: the agent returns and /init powers the guest off.
"""

import json
import os
import subprocess
import sys
import termios
import tty

NET = [
    ["ip", "link", "set", "lo", "up"],
    ["ip", "link", "set", "eth0", "up"],
    ["ip", "addr", "add", "10.0.2.15/24", "dev", "eth0"],
    ["ip", "route", "add", "default", "via", "10.0.2.2"],
]


def main(port):
    fd = os.open(port, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(fd)
    attrs = termios.tcgetattr(fd)
    attrs[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSANOW, attrs)
    rfile = os.fdopen(fd, "rb", buffering=0)
    wfd = os.dup(fd)

    def send(obj):
        data = (json.dumps(obj) + "\n").encode()
        while data:
            data = data[os.write(wfd, data):]

    for argv in NET:
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open("/proc/uptime") as fh:
        send({"event": "ready", "uptime_s": float(fh.read().split()[0])})
    buf = b""
    while True:
        chunk = rfile.read(4096)
        if not chunk:
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                msg = json.loads(line.decode())
            except ValueError:
                send({"event": "error", "message": "bad command line"})
                continue
            if msg.get("op") == "exit":
                return
            run(msg, send)


def run(msg, send):
    send({"event": "start", "id": msg["id"]})
    try:
        done = subprocess.run(
            msg["argv"], capture_output=True, timeout=msg.get("timeout"),
            stdin=subprocess.DEVNULL,
        )
        rc, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        rc, out, err = 124, exc.stdout or b"", b"timeout"
    except OSError as exc:
        rc, out, err = 127, b"", str(exc).encode()
    send({"event": "done", "id": msg["id"]})  # tiny line: the host's stop watch
    send({"event": "end", "id": msg["id"], "rc": rc,
          "stdout": out.decode(errors="replace"), "stderr": err.decode(errors="replace")})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/dev/ttyS1")
