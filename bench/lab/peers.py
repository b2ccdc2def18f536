"""Installing and locating the simulators: ns-2 (Debian's `ns2`), ns-3 (the `ns3` wheel, with
the peer program built against it) and bufferlab's example runner."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from lab.paths import BENCH, PEERS, ROOT, log


def sudo() -> list[str]:
    return [] if os.geteuid() == 0 else ["sudo"]


def ensure_ns2() -> tuple[str | None, str]:
    ns = shutil.which("ns")
    if not ns:
        log("installing ns-2 (Debian package ns2)")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        try:
            subprocess.run([*sudo(), "apt-get", "update", "-qq"], check=True, env=env)
            subprocess.run([*sudo(), "apt-get", "install", "-y", "-qq", "ns2"], check=True,
                           env=env, stdout=subprocess.DEVNULL)
        except (subprocess.CalledProcessError, FileNotFoundError) as e:
            return None, f"apt-get install ns2 failed: {e}"
        ns = shutil.which("ns")
    ver = ""
    try:
        ver = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "ns2"], capture_output=True,
                             text=True).stdout.strip()
    except FileNotFoundError:
        pass
    return ns, f"ns-2 {ver or '?'} (Debian package ns2)"


def ensure_ns3() -> tuple[str | None, str]:
    try:
        out = subprocess.run(["bash", str(BENCH / "peers" / "build_ns3.sh")], check=True,
                             capture_output=True, text=True)
    except subprocess.CalledProcessError as e:
        return None, f"ns-3 build failed: {e.stderr[-500:]}"
    binary = out.stdout.strip().splitlines()[-1]
    ver = subprocess.run([str(PEERS / "ns3venv" / "bin" / "python3"), "-m", "pip", "show", "ns3"],
                         capture_output=True, text=True).stdout
    m = re.search(r"^Version: (\S+)", ver, re.M)
    return binary, f"ns-3 {m.group(1) if m else '?'} (PyPI package ns3, C++ libraries)"


def ensure_bufferlab() -> tuple[str, str]:
    log("building the bufferlab core example runner (cargo build --profile fast --example run)")
    subprocess.run(["nice", "-n", "10", "cargo", "build", "--profile", "fast", "-q", "-p",
                    "bufferlab-core", "--example", "run"], check=True, cwd=ROOT)
    meta = json.loads(subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"],
                                     check=True, capture_output=True, text=True,
                                     cwd=ROOT).stdout)
    binary = Path(meta["target_directory"]) / "fast" / "examples" / "run"
    return str(binary), f"bufferlab core at {git_rev(ROOT)} (examples/run, profile fast)"


def git_rev(path: Path) -> str:
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, cwd=path).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "crates", "Cargo.lock"],
                               capture_output=True, text=True, cwd=path).stdout.strip()
        return f"commit {rev}" + (" + uncommitted changes in crates/" if dirty else "")
    except FileNotFoundError:
        return "unknown commit"
