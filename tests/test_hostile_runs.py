"""Safe with anyone's files (issue #37): ns-2 scripts that never end stop on Ctrl-C and
``--max-wall``, and a script that reschedules itself at one instant is a stall; sweeps too big
to plan are refused before they expand; errors name the right culprit (a user's Python class,
a damaged or moved results database, a misspelt keyword). docs/reliability.md lists these."""

from __future__ import annotations

import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import bufferlab
from bufferlab import ScenarioError
from bufferlab.experiments.spec import MAX_RUNS, SweepError, load_sweep, parse_sweep
from conftest import EXAMPLE, ONE_FTP_FLOW, ROOT, dumbbell_toml, run_cli

# -- ns-2 scripts -----------------------------------------------------------------------------

NETWORK = (
    ONE_FTP_FLOW
    + """$ns at 0.1 "$ftp start"
proc finish {} { exit 0 }
proc ready {} { puts ready; flush stdout }
"""
)

# Scripts that would run forever, each printing `ready` once it is in its endless part.
ENDLESS = {
    "tcl_loop": "puts ready; flush stdout\nwhile 1 {}\n",
    "caught_loop": "puts ready; flush stdout\nwhile 1 { catch { while 1 {} } }\n",
    "loop_in_event": NETWORK + "proc f {} { ready; while 1 {} }\n$ns at 1 f\n"
    '$ns at 5 "finish"\n$ns run\n',
    "rescheduling": NETWORK + "proc f {} { global ns; ready; $ns at [expr [$ns now] + 1e-9] f }\n"
    '$ns at 1 f\n$ns at 5 "finish"\n$ns run\n',
    "engine": NETWORK.replace("1Mb", "10Gb") + '$ns at 1e6 "finish"\nready\n$ns run\n',
    "sleep": "puts ready; flush stdout\nafter 1000000\n",
}
SAME_INSTANT = NETWORK + (
    'proc f {} { global ns; $ns at [$ns now] f }\n$ns at 1 f\n$ns at 5 "finish"\n$ns run\n'
)


def _start(script: Path, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "BUFFERLAB_DEBUG"}
    return subprocess.Popen(
        [sys.executable, "-m", "bufferlab", "run", *args, str(script)],
        cwd=script.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(p: subprocess.Popen[str], timeout: float) -> tuple[int, str]:
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail(f"still running {timeout} s later")
    return p.returncode, err


@pytest.mark.parametrize("kind", sorted(ENDLESS))
def test_ctrl_c_stops_a_script_anywhere_with_130(tmp_path, kind):
    script = tmp_path / f"{kind}.tcl"
    script.write_text(ENDLESS[kind])
    p = _start(script)
    assert p.stdout is not None
    assert p.stdout.readline().strip() == "ready"
    time.sleep(0.3)  # well inside the endless part
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    code, err = _finish(p, 20)
    assert code == 130, err
    assert err.strip().splitlines() == ["interrupted"]
    assert time.monotonic() - t0 < 5


def test_ctrl_c_inside_pythons_call_from_tcl_is_still_ctrl_c(tmp_path):
    """A KeyboardInterrupt raised in Python that Tcl called, before the dispatcher's own
    ``try``, is kept by _tkinter: Tcl sees an error with no message, which can reach the
    interpreter before the watching thread has cancelled Tcl (a CI run's "Tcl error: " with
    exit 2 instead of 130). SIGINT's handler notes it, so it is Ctrl-C all the same."""
    from bufferlab.ns2.interp import Interp

    script = tmp_path / "s.tcl"
    script.write_text("sigint_here\nputs never\n")
    ip = Interp(str(script), [])

    def sigint_here() -> None:
        signal.raise_signal(signal.SIGINT)
        for _ in range(1000):  # Python's handler runs here, inside Tcl's call
            pass

    ip.tcl.createcommand("sigint_here", sigint_here)
    with pytest.raises(KeyboardInterrupt):
        ip.source()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


@pytest.mark.parametrize("kind", ["tcl_loop", "loop_in_event", "rescheduling", "engine", "sleep"])
def test_max_wall_stops_a_script_with_one_line(tmp_path, kind):
    script = tmp_path / f"{kind}.tcl"
    script.write_text(ENDLESS[kind])
    t0 = time.monotonic()
    code, err = _finish(_start(script, "--max-wall", "1s"), 30)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "stopped by --max-wall after 1." in lines[0]
    assert time.monotonic() - t0 < 15


def test_a_script_rescheduling_itself_at_one_instant_is_a_stall(tmp_path):
    script = tmp_path / "same.tcl"
    script.write_text(SAME_INSTANT)
    code, err = _finish(_start(script), 120)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "simulated time stalled at 1 s" in lines[0]
    assert "same.tcl:15" in lines[0] and '"f"' in lines[0]  # the line of `$ns at` in proc f


# -- sweeps too big to plan -------------------------------------------------------------------


def _sweep(tmp_path: Path, body: str) -> Path:
    f = tmp_path / "big.toml"
    f.write_text(f'[sweep]\nname = "big"\nbase = "{EXAMPLE.as_posix()}"\n{body}')
    return f


BIG_SWEEPS = {
    "replications": "replications = 1000000000\n",
    "replications_i64": "replications = 9223372036854775807\n",
    "grid": "[grid]\n"
    + "".join(f'"flows.{i}.start" = [{", ".join(str(v) for v in range(100))}]\n' for i in range(3))
    + '"seed" = ['
    + ", ".join(str(v) for v in range(100))
    + "]\n"
    + '"duration" = ['
    + ", ".join(str(v + 1) for v in range(100))
    + "]\n"
    + '"links.bottleneck.queue.limit" = ['
    + ", ".join(f'"{v + 1}p"' for v in range(100))
    + "]\n",
}


@pytest.mark.parametrize("kind", ["replications", "replications_i64", "grid"])
def test_a_sweep_too_big_to_plan_is_refused_before_it_expands(tmp_path, kind):
    f = _sweep(tmp_path, BIG_SWEEPS[kind])
    t0 = time.monotonic()
    with pytest.raises(SweepError) as e:
        load_sweep(f)
    assert time.monotonic() - t0 < 5
    msg = str(e.value)
    assert f"more than the {MAX_RUNS}" in msg and "split it" in msg


def test_a_sweep_too_big_to_plan_exits_2_at_the_command_line(tmp_path):
    f = _sweep(tmp_path, BIG_SWEEPS["replications"])
    r = run_cli("sweep", str(f), "--db", str(tmp_path / "r.duckdb"), "--limit", "2")
    assert r.code == 2
    assert r.stderr.count("\n") == 1 and "sweep.replications" in r.stderr


def test_more_replications_than_planned_are_bounded_too(tmp_path):
    sw = load_sweep(_sweep(tmp_path, "replications = 2\n[grid]\nseed = [1, 2, 3]\n"))
    assert len(sw.runs()) == 6
    with pytest.raises(SweepError, match="replications"):
        sw.runs(MAX_RUNS)


# -- a user's Python class ----------------------------------------------------------------------

USER_QUEUE = """import collections

from bufferlab import QueueDisc


class Boom(QueueDisc):
    def __init__(self):
        self.q = collections.deque()

    def enqueue(self, pkt, ctx):
        return self._decide(pkt)

    def _decide(self, pkt):
        if len(self.q) > 3:
            raise ZeroDivisionError("my own bug")
        self.q.append(pkt)
        return "accept"

    def dequeue(self, ctx):
        return self.q.popleft() if self.q else None


class Maybe(Boom):
    def enqueue(self, pkt, ctx):
        return "maybe"
"""


def _user_scenario(tmp_path: Path, cls: str) -> Path:
    (tmp_path / "userq.py").write_text(USER_QUEUE)
    f = tmp_path / f"{cls}.toml"
    f.write_text(
        dumbbell_toml(
            queue=f'{{ kind = "python", class = "userq.py:{cls}" }}',
            flows=[
                {"name": "u", "src": "s0", "dst": "d0", "app": {"kind": "cbr", "rate": "20Mbps"}}
            ],
            duration="1s",
        )
    )
    return f


def test_an_exception_in_a_users_class_is_theirs_exit_2(tmp_path):
    r = run_cli("run", "--allow-python", str(_user_scenario(tmp_path, "Boom")))
    assert r.code == 2, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("error: Boom.enqueue (userq.py:11) raised ZeroDivisionError: my own bug")
    assert "bug in bufferlab" not in r.stderr
    assert 'userq.py", line 15, in _decide' in r.stderr  # their frames
    assert "bufferlab/scenario.py" not in r.stderr  # not ours


def test_a_wrong_answer_of_a_users_class_is_theirs_exit_2(tmp_path):
    r = run_cli("run", "--allow-python", str(_user_scenario(tmp_path, "Maybe")))
    assert r.code == 2, r.stderr
    assert r.stderr.count("\n") == 1
    assert "userq.py:Maybe" in r.stderr and 'enqueue returned "maybe"' in r.stderr


def test_the_api_raises_the_users_exception_marked(tmp_path):
    with pytest.raises(ZeroDivisionError) as e:
        bufferlab.run(_user_scenario(tmp_path, "Boom"), allow_python=True)
    assert e.value.bufferlab_extension.startswith("Boom.enqueue")  # type: ignore[attr-defined]


# -- results databases --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def results_db(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("db")
    (d / "base.toml").write_text(
        dumbbell_toml(
            flows=[
                {"name": "u", "src": "s0", "dst": "d0", "app": {"kind": "cbr", "rate": "20Mbps"}}
            ],
            duration="2s",
            queue={"kind": "droptail", "limit": "20p"},
            monitor={"queue_interval": "10ms"},
        )
    )
    (d / "s.toml").write_text(
        '[sweep]\nname = "s"\nbase = "base.toml"\nreplications = 2\n'
        '[grid]\n"links.bottleneck.queue.limit" = ["10p", "20p"]\n'
    )
    r = run_cli("sweep", str(d / "s.toml"), "--db", str(d / "r.duckdb"), "-j", "1")
    assert r.code == 0 and "4 ok" in r.stderr, r.stderr
    assert any((d / "r.series").rglob("*.parquet"))
    return d / "r.duckdb"


def _damage(db: Path, how: str) -> None:
    if how == "truncated":
        os.truncate(db, db.stat().st_size // 2)
    elif how == "zero_length":
        os.truncate(db, 0)
    elif how == "not_duckdb":
        db.write_text("name,value\nx,1\n")
    elif how == "header_zeroed":
        with db.open("r+b") as f:
            f.write(b"\0" * 8192)
    elif how == "directory":
        db.unlink()
        db.mkdir()


@pytest.mark.parametrize(
    "how", ["truncated", "zero_length", "not_duckdb", "header_zeroed", "directory"]
)
@pytest.mark.parametrize("command", [["results", "s"], ["sweep"], ["report", "s"]])
def test_a_damaged_database_is_named_not_a_bug(tmp_path, results_db, how, command):
    d = tmp_path / "copy"
    shutil.copytree(results_db.parent, d)
    db = d / "r.duckdb"
    _damage(db, how)
    args = [*command, "--db", str(db)]
    if command == ["sweep"]:
        args.insert(1, str(d / "s.toml"))
    if command[0] == "report":
        args += ["-o", str(tmp_path / "r.html")]
    r = run_cli(*args)
    assert r.code == 2, r.stderr
    # one error line, the last (`sweep` says what it is about to run first)
    errors = [x for x in r.stderr.splitlines() if x.startswith("error:")]
    assert errors == r.stderr.strip().splitlines()[-1:] and "bug" not in r.stderr
    assert "r.duckdb" in r.stderr
    if how == "directory":
        assert "is a directory, not a results database" in r.stderr
    else:
        assert "damaged" in r.stderr
        assert "r.series" in r.stderr  # what is left: the runs' series, kept apart


def test_a_database_moved_without_its_series_names_the_folder(tmp_path, results_db):
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    shutil.copy(results_db, moved / "r.duckdb")
    r = run_cli("report", "s", "--db", str(moved / "r.duckdb"), "-o", str(tmp_path / "r.html"))
    assert r.code == 2, r.stderr
    assert r.stderr.count("\n") == 1
    assert "r.series/" in r.stderr and "None" not in r.stderr


def test_a_full_disk_under_pcap_names_the_file(tmp_path):
    """pcap_file's words for any I/O error were "Error reading bytes", even for a full disk."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
                             capture_output=True, text=True)  # fmt: skip
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {mounted.stderr.strip()}")
    try:
        r = run_cli("run", str(EXAMPLE), "--pcap", str(disk / "p"))
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)
    assert r.code == 2, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    assert "No space left on device" in r.stderr and ".pcap: cannot write" in r.stderr


# -- keyword arguments and dicts of the API -----------------------------------------------------


def test_an_unknown_keyword_is_refused_with_the_closest(tmp_path):
    with pytest.raises(TypeError, match="'colour'") as e:
        bufferlab.run(EXAMPLE, colour="red")
    assert "max_wall" in str(e.value)  # the valid ones are listed
    with pytest.raises(TypeError, match="did you mean 'max_wall'"):
        bufferlab.run(EXAMPLE, max_wal=3)


@pytest.mark.parametrize("value", [-5, 2**64, 1.5, "4GB", True])
def test_a_negative_max_memory_is_a_value_error_naming_it(value):
    with pytest.raises(ValueError, match="max_memory"):
        bufferlab.run(EXAMPLE, max_memory=value)


def test_a_self_referencing_dict_is_refused():
    d: dict = {"name": "x", "topology": {"kind": "dumbbell"}}
    d["topology"]["again"] = d
    with pytest.raises(ScenarioError, match=r"topology\.again: the dict contains itself"):
        bufferlab.Scenario.from_dict(d)


def test_a_deep_dict_is_refused():
    d: dict = {}
    inner = d
    for _ in range(100000):
        inner["x"] = {}
        inner = inner["x"]
    with pytest.raises(ScenarioError, match="nested more than 64 levels"):
        bufferlab.Scenario.from_dict(d)


# -- fuzzing: sweep files and ns-2 scripts ------------------------------------------------------

HOSTILE = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.sampled_from(['""', '"x"', "[]", "{}", '"1e40s"', "[1, 2]", '["a"]', "[[]]"]),
)


def _toml_value(v: object) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        return repr(v)
    return str(v)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    reps=HOSTILE,
    axis=st.sampled_from(["seed", "duration", "links.bottleneck.queue.limit", "x.y", ""]),
    values=st.lists(HOSTILE, min_size=0, max_size=4),
    width=st.integers(min_value=1, max_value=400),
    depth=st.integers(min_value=1, max_value=6),
)
@example(reps=2**63 - 1, axis="seed", values=[1], width=1, depth=1)
@example(reps=1, axis="seed", values=[1, 2], width=400, depth=6)
def test_fuzzed_sweep_files_plan_or_refuse(reps, axis, values, width, depth):
    grid = "".join(
        f'"{axis}{i}" = [{", ".join(str(j) for j in range(width))}]\n' for i in range(depth)
    )
    body = (
        f'[sweep]\nname = "f"\nbase = "{EXAMPLE.as_posix()}"\nreplications = {_toml_value(reps)}\n'
        f'[grid]\n"{axis}" = [{", ".join(_toml_value(v) for v in values)}]\n{grid}'
    )
    try:
        sw = parse_sweep(body, "f.toml", ROOT)
    except (SweepError, ScenarioError, ValueError) as e:
        assert "f.toml" in str(e) or "sweep" in str(e).lower()
        return
    points = math.prod(len(v) for v in sw.grid.values())
    assert points * sw.replications <= MAX_RUNS


NS2_HOSTILE = st.sampled_from(
    ["0", "-1", "1e308", "-1e308", "nan", "inf", "1e-300", "abc", "{}", '""', "[expr 1/0]",
     "2147483648", "9223372036854775808", "0x10", "1Mb", "1e40Gb", "10ms", "-5ms"]
)  # fmt: skip
NS2_COMMANDS = [
    '$ns at {v} "finish"',
    '$ns at 1 "$ns at {v} f"',
    "$ns duplex-link $n0 $n1 {v} 10ms DropTail",
    "$ns duplex-link $n0 $n1 1Mb {v} DropTail",
    "$ns queue-limit $n0 $n1 {v}",
    "$tcp set window_ {v}",
    "$tcp set packetSize_ {v}",
    "$ftp set maxpkts_ {v}",
    '$ns at {v} "$ftp stop"',
    '$ns at {v} "$ftp start"',
    "$tcp set fid_ {v}",
    "Agent/TCP set window_ {v}",
    "$ns at 1 {{f {v}}}",
    "ns-random {v}",
    "$defaultRNG seed {v}",
    "set x [new RNG]; $x seed {v}; $x uniform {v} 1",
    "$ns rtmodel-at {v} down $n0 $n1",
    "$ns trace-queue $n0 $n1 [open q.tr w]; $ns at {v} finish",
    "proc g {{}} {{ global ns; $ns at [expr [$ns now] + {v}] g }}; $ns at 1 g",
    "set i 0; while {{$i < {v}}} {{ incr i }}",
]
FUZZ_SCRIPT = NETWORK.replace(
    "proc finish {} { exit 0 }", "proc finish {} { exit 0 }\nproc f {args} { global ns }"
)


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    commands=st.lists(st.tuples(st.sampled_from(NS2_COMMANDS), NS2_HOSTILE), min_size=1, max_size=3)
)
@example(commands=[(NS2_COMMANDS[-2], "0")])  # rescheduling at one instant: a stall
@example(commands=[(NS2_COMMANDS[-2], "1e-9")])  # 2e9 events: --max-wall
@example(commands=[(NS2_COMMANDS[-1], "1e308")])  # a Tcl loop: --max-wall
@example(commands=[(NS2_COMMANDS[4], "nan")])  # int(nan) was an internal error, exit 3
def test_fuzzed_ns2_scripts_never_exit_3_nor_hang(tmp_path, commands):
    lines = [c.format(v=v) for c, v in commands]
    script = tmp_path / "fuzz.tcl"
    script.write_text(FUZZ_SCRIPT + "\n".join(lines) + '\n$ns at 3 "finish"\n$ns run\n')
    code, err = _finish(_start(script, "--max-wall", "5s"), 60)
    assert code in (0, 1, 2), err
    if code == 2:
        assert err.strip().splitlines()[-1].startswith("error: "), err
    assert "Traceback" not in err and "bug in bufferlab" not in err, err
    assert "not for ns-2 scripts" not in err  # --max-wall is the script's too
