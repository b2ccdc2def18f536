"""Runs one test of an ns-2.35 validation suite under ns-2 and under bufferlab and classifies it.

A test is `ns test-suite-SUITE.tcl TEST QUIET` in `tcl/test` of a fresh copy of the suites'
folder (tests write their traces and `temp.rands` beside the script), with stub `nam` and
`xgraph` programs first on PATH, as ../shared/ns2-testsuite/README.md runs them; bufferlab's
run is `python -m bufferlab run test-suite-SUITE.tcl TEST QUIET` in another fresh copy, with
the Python of this process (the current checkout's package). ns-2's results are cached outside
the repository, keyed by the suite's files, the test and the `ns` binary, so that a rerun only
runs bufferlab.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUITES_DIR = ROOT.parent / "shared" / "ns2-testsuite"
TEST_DIR = Path("tcl") / "test"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "bufferlab" / "ns2suite"

#: The suites in the order of the folder's README (by topic); any other suite found follows.
ORDER = [
    "simple", "red", "adaptive-red", "tcpVariants", "newreno", "sack", "testReno",
    "LimTransmit", "ecn", "ecn-ack", "rfc2581", "tcp", "aimd", "tcp-init-win", "tcpReset",
    "oddBehaviors", "tcpOptions", "quiescent", "frto", "links", "schedule", "pi", "rem", "rio",
    "cbq",
]  # fmt: skip

OUTCOMES = ("pass", "differs", "refused", "crash", "ns-2 fails")

#: what test-all-template1 runs: `awk '/^Class Test\//{print substr($2, index($2, "/") + 1)}'`
_CLASS_TEST = re.compile(r"^Class\s+Test/(\S+)", re.M)
_ERROR_AT = re.compile(r"^error: (?:\S+?:\d+: )?")


def suites(folder: Path = SUITES_DIR) -> list[str]:
    """The suites of the folder (test-suite-NAME.tcl), in ORDER, then by name."""
    found = {p.name[len("test-suite-") : -len(".tcl")] for p in (folder / TEST_DIR).glob("*.tcl")}
    found = {s for s in found if (folder / TEST_DIR / f"test-suite-{s}.tcl").is_file()}
    return [s for s in ORDER if s in found] + sorted(found - set(ORDER), key=str.lower)


def suite_file(suite: str, folder: Path = SUITES_DIR) -> Path:
    return folder / TEST_DIR / f"test-suite-{suite}.tcl"


def tests_of(suite: str, folder: Path = SUITES_DIR) -> list[str]:
    """The tests of a suite, as test-all-template1 lists them (each once)."""
    names = _CLASS_TEST.findall(suite_file(suite, folder).read_text(errors="replace"))
    return list(dict.fromkeys(names))


def suite_hash(suite: str, folder: Path = SUITES_DIR) -> str:
    """sha256 of the suite's file and of the helpers every suite may source or exec (the
    other .tcl files but the other suites, and bin/)."""
    h = hashlib.sha256()
    helpers = [p for p in (folder / TEST_DIR).glob("*.tcl") if not p.name.startswith("test-")]
    for p in [suite_file(suite, folder), *sorted(helpers), *sorted((folder / "bin").iterdir())]:
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


@dataclass
class Run:
    """One process: its exit status (None: killed at the time limit), whole-process wall time,
    the end of its stderr, and the bytes of the temp.rands it wrote (None: none)."""

    rc: int | None
    wall_s: float
    stderr: str
    rands: bytes | None


def _stubs(where: Path) -> Path:
    """A folder with `nam` and `xgraph` that exit 0 (some tests call them in finish)."""
    d = where / "stubs"
    d.mkdir(exist_ok=True)
    for name in ("nam", "xgraph"):
        p = d / name
        p.write_text("#!/bin/sh\nexit 0\n")
        p.chmod(0o755)
    return d


def run_in_copy(cmd: list[str], pristine: Path, timeout: float) -> Run:
    """Runs cmd in tcl/test of a fresh copy of the suites' folder."""
    with tempfile.TemporaryDirectory(prefix="ns2suite-") as d:
        work = Path(d) / "suite"
        shutil.copytree(pristine, work, symlinks=True)
        env = dict(os.environ)
        env["PATH"] = f"{_stubs(Path(d))}{os.pathsep}{env.get('PATH', '')}"
        env.pop("BUFFERLAB_DEBUG", None)
        cwd = work / TEST_DIR
        t0 = time.perf_counter()
        try:
            # its own session, so that a time limit kills the children (perl, csh) too
            p = subprocess.Popen(
                cmd,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
            try:
                _, err = p.communicate(timeout=timeout)
                rc: int | None = p.returncode
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, 9)
                _, err = p.communicate()
                rc = None
        finally:
            wall = time.perf_counter() - t0
        rands = cwd / "temp.rands"
        data = rands.read_bytes() if rands.is_file() else None
        return Run(rc, wall, err.decode(errors="replace")[-4000:], data)


def ns_version() -> str:
    """The ns binary's identity for the cache key (path, size, mtime)."""
    path = shutil.which("ns")
    if path is None:
        return "none"
    st = Path(path).resolve().stat()
    return f"{Path(path).resolve()}:{st.st_size}:{int(st.st_mtime)}"


def cached_ns2(
    suite: str, test: str, key: str, pristine: Path, timeout: float, rerun: bool
) -> tuple[Run, bool]:
    """ns-2's run of a test, from the cache when it is there; (run, whether it was cached)."""
    entry = f"{suite}.{test}.{key[:20]}"
    meta, rands = CACHE / f"{entry}.json", CACHE / f"{entry}.rands"
    if not rerun and meta.is_file():
        m = json.loads(meta.read_text())
        data = rands.read_bytes() if m["has_rands"] else None
        return Run(m["rc"], m["wall_s"], m["stderr"], data), True
    r = run_in_copy(["ns", f"test-suite-{suite}.tcl", test, "QUIET"], pristine, timeout)
    if r.rc is not None:  # a time limit is this machine's moment, not ns-2's answer
        CACHE.mkdir(parents=True, exist_ok=True)
        m = {k: v for k, v in asdict(r).items() if k != "rands"}
        m["has_rands"] = r.rands is not None
        # written whole then renamed: parallel runs never read half a file
        for path, data in ((rands, r.rands or b""), (meta, json.dumps(m).encode())):
            tmp = path.with_name(f".{path.name}.{os.getpid()}")
            tmp.write_bytes(data)
            tmp.replace(path)
    return r, False


def _short(text: str, n: int = 100) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


def _last_line(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ""


def refusal(stderr: str) -> str | None:
    """The reason of a refusal (exit 2 with one `error:` line): the line without `error:` and
    the script location, object handles made alike so that equal reasons group."""
    if "Traceback" in stderr:
        return None
    errors = [ln for ln in stderr.splitlines() if ln.startswith("error:")]
    if len(errors) != 1:
        return None
    return re.sub(r"\b_o\d+\b", "_oN", _ERROR_AT.sub("", errors[0]))


def first_difference(a: bytes, b: bytes) -> str:
    """The first line where ns-2's temp.rands (a) and bufferlab's (b) part, both versions."""
    la, lb = a.decode(errors="replace").splitlines(), b.decode(errors="replace").splitlines()
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "(end of file)"
        y = lb[i] if i < len(lb) else "(end of file)"
        if x != y:
            return f'line {i + 1} of {len(la)}: ns-2 "{_short(x, 60)}", bufferlab "{_short(y, 60)}"'
    return "the same lines, other bytes (line ends)"


def classify(ns: Run, bl: Run, timeout: float) -> tuple[str, str]:
    """(outcome, detail) of a test from ns-2's run and bufferlab's."""
    if ns.rc is None or ns.rc < 0 or ns.rands is None:
        why = "timeout" if ns.rc is None else f"exit {ns.rc}, no temp.rands"
        return "ns-2 fails", _short(f"{why}: {_last_line(ns.stderr)}".rstrip(": "))
    if bl.rc is None:
        return "crash", f"timeout after {timeout:g} s"
    if bl.rc == 2 and (reason := refusal(bl.stderr)) is not None:
        return "refused", _short(reason, 300)
    if bl.rc == ns.rc and bl.rands is not None:
        if bl.rands == ns.rands:
            return "pass", ""
        return "differs", first_difference(ns.rands, bl.rands)
    what = f"exit {bl.rc} (ns-2: {ns.rc})"
    if bl.rands is None:
        what += ", no temp.rands"
    tail = "Traceback" if "Traceback" in bl.stderr else ""
    return "crash", _short(f"{what}: {tail} {_last_line(bl.stderr)}".replace("  ", " "), 160)


def bufferlab_cmd(suite: str, test: str) -> list[str]:
    return [sys.executable, "-m", "bufferlab", "run", f"test-suite-{suite}.tcl", test, "QUIET"]


def run_test(
    suite: str, test: str, key: str, pristine: Path, timeout: float, rerun_ns: bool = False
) -> dict[str, object]:
    """One test under both simulators: its outcome, detail and wall times."""
    ns, cached = cached_ns2(suite, test, key, pristine, timeout, rerun_ns)
    bl = Run(None, 0.0, "", None)
    if ns.rc is not None and ns.rands is not None:  # nothing to compare with otherwise
        bl = run_in_copy(bufferlab_cmd(suite, test), pristine, timeout)
    outcome, detail = classify(ns, bl, timeout)
    return {
        "suite": suite,
        "test": test,
        "outcome": outcome,
        "detail": detail,
        "ns2_s": round(ns.wall_s, 3),
        "bufferlab_s": round(bl.wall_s, 3) if bl.wall_s else None,
        "ns2_cached": cached,
    }
