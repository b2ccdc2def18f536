"""Builds the wheel with profile-guided optimisation (PGO), or without it when it cannot.

    .venv/bin/python tools/pgo_wheel.py [--out dist] [--keep DIR] [--no-pgo]

What `make wheel` runs. Three steps, as rustc's PGO guide describes them
(doc.rust-lang.org/rustc/profile-guided-optimization.html):

1. an instrumented build of the extension (`maturin build --profile fast` with
   `-Cprofile-generate`), unpacked into a scratch folder;
2. training runs through that extension, one process per scenario (TRAINING below: the
   engine's TCP variants, queue disciplines and scales, as users run them), each writing a
   `.profraw` file;
3. `llvm-profdata merge`, then the wheel built again with `-Cprofile-use` into --out.

The profile tool must read the profiles of rustc's own LLVM: `llvm-profdata-N` for the major N
that `rustc -vV` reports (Debian's `llvm-N` package; rustup's `llvm-tools` component has it
too). Without one, or if any step fails, the wheel is built as before (no PGO) and a line says
why: a PGO build is faster (docs/performance.md, "Profile-guided optimisation"), never needed.
The PGO builds use target/pgo-*, so they do not evict the development build's cache.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: (scenario, overrides): every TCP variant, queue discipline and scale the bench covers, each
#: a fraction of a second to a few seconds of training.
TRAINING: list[tuple[str, list[str]]] = [
    ("bench/scenarios/c_ns2.toml", ["duration=20s"]),
    ("bench/scenarios/c_ns3.toml", ["duration=5s"]),
    ("bench/scenarios/b_reno_red.toml", []),
    ("bench/scenarios/b_vegas_drr.toml", []),
    ("bench/scenarios/e_reno_fq_codel.toml", []),
    ("bench/scenarios/e_vegas_pie.toml", []),
    ("bench/scenarios/f_cubic_3_20p.toml", []),
    ("bench/scenarios/g_bbr_2.toml", []),
    ("bench/scenarios/g_dctcp.toml", []),
    ("bench/scenarios/d_1000.toml", ["duration=1s"]),
    ("examples/dumbbell_udp.toml", []),
    ("examples/l4s_dualpi2.toml", []),
]

TRAIN_ONE = """
import sys
from pathlib import Path
from bufferlab import _core
path = Path(sys.argv[1])
_core.run(path.read_text(), source=str(path), overrides=sys.argv[2:])
"""


def llvm_major() -> str | None:
    out = subprocess.run(["rustc", "-vV"], capture_output=True, text=True).stdout
    m = re.search(r"^LLVM version: (\d+)", out, re.M)
    return m.group(1) if m else None


def find_profdata(major: str) -> str | None:
    """An llvm-profdata of LLVM `major`: the versioned Debian name, rustup's llvm-tools, or a
    plain `llvm-profdata` that says it is that version."""
    sysroot = subprocess.run(
        ["rustc", "--print", "sysroot"], capture_output=True, text=True
    ).stdout.strip()
    candidates = [shutil.which(f"llvm-profdata-{major}")]
    candidates += sorted(glob.glob(f"{sysroot}/lib/rustlib/*/bin/llvm-profdata"))
    candidates.append(shutil.which("llvm-profdata"))
    for c in candidates:
        if not c:
            continue
        version = subprocess.run([c, "--version"], capture_output=True, text=True).stdout
        if re.search(rf"LLVM version {major}\.", version):
            return c
    return None


def maturin(out: Path, rustflags: str | None = None, target_dir: str | None = None) -> Path:
    """Builds the wheel into `out` (with RUSTFLAGS and a target folder of its own when given);
    returns its path."""
    env = dict(os.environ)
    if rustflags is not None:
        env["RUSTFLAGS"] = rustflags
    if target_dir is not None:
        env["CARGO_TARGET_DIR"] = str(ROOT / target_dir)
    tool = str(Path(sys.executable).with_name("maturin"))
    subprocess.run(
        [tool, "build", "--profile", "fast", "--out", str(out)], cwd=ROOT, env=env, check=True
    )
    return max(out.glob("bufferlab-*.whl"), key=lambda p: p.stat().st_mtime)


def plain(out: Path, why: str) -> None:
    print(f"pgo_wheel: building without profile-guided optimisation: {why}", flush=True)
    maturin(out)


def train(wheel: Path, scratch: Path, profiles: Path) -> None:
    """Runs every training scenario through the instrumented extension."""
    site = scratch / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    env = {
        **os.environ,
        "PYTHONPATH": str(site),
        "LLVM_PROFILE_FILE": str(profiles / "train-%p-%m.profraw"),
    }
    for scenario, overrides in TRAINING:
        print(f"pgo_wheel: training on {scenario} {' '.join(overrides)}", flush=True)
        subprocess.run(
            [sys.executable, "-c", TRAIN_ONE, str(ROOT / scenario), *overrides],
            env=env,
            check=True,
            cwd=scratch,
            stdout=subprocess.DEVNULL,
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "dist")
    ap.add_argument("--keep", type=Path, help="keep the profiles and scratch files here")
    ap.add_argument("--no-pgo", action="store_true", help="the plain build only (quicker)")
    args = ap.parse_args()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    if args.no_pgo:
        plain(out, "--no-pgo")
        return 0
    major = llvm_major()
    profdata = find_profdata(major) if major else None
    if profdata is None:
        plain(
            out,
            f"no llvm-profdata for rustc's LLVM {major or '(unknown)'} "
            f"(install llvm-{major or 'N'} or rustup's llvm-tools)",
        )
        return 0
    scratch = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="bufferlab-pgo-"))
    profiles = scratch / "profiles"
    shutil.rmtree(profiles, ignore_errors=True)
    profiles.mkdir(parents=True)
    try:
        gen_out = scratch / "instrumented"
        print("pgo_wheel: 1/3 the instrumented build", flush=True)
        wheel = maturin(gen_out, f"-Cprofile-generate={profiles}", "target/pgo-gen")
        print("pgo_wheel: 2/3 training runs", flush=True)
        train(wheel, scratch, profiles)
        merged = scratch / "bufferlab.profdata"
        raws = sorted(str(p) for p in profiles.glob("*.profraw"))
        if not raws:
            raise RuntimeError("the training runs wrote no profiles")
        subprocess.run([profdata, "merge", "-o", str(merged), *raws], check=True)
        print(f"pgo_wheel: 3/3 the optimised build ({len(raws)} profiles)", flush=True)
        final = maturin(out, f"-Cprofile-use={merged}", "target/pgo-use")
    except (subprocess.CalledProcessError, RuntimeError, OSError) as e:
        plain(out, f"a PGO step failed ({e})")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"pgo_wheel: built {final.relative_to(ROOT) if final.is_relative_to(ROOT) else final}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
