"""The terminal transcripts of docs/getting-started.md and docs/tutorial.md are what the current
code prints, and the numbers their prose quotes from those outputs are the current ones.

A fenced block whose first line starts with ``$ `` is a transcript: each ``$ cmd`` line is a
command, the lines after it (up to the next ``$``) its expected output; a line ``...`` stands for
any number of output lines the page leaves out. A block right after the marker
``<!-- file: PATH -->`` (MkDocs does not render it) is a file the reader saves: it is written to
PATH before the commands that follow run. Each page is replayed, in order, in a fresh directory
holding a copy of examples/, as a reader would in the clone: through bash, with the ``bufferlab``
of this environment, no terminal, ``COLUMNS=120``, stdout and stderr together.

Only what varies from one machine or one run to the next is normalised before comparing: wall
times (``simulated 30 s in 22.8 ms``, ``50/50 runs ok in 1.3 s``), runs per second, elapsed and
ETA times and the width of progress bars, the kind of a sweep's workers (threads on a machine
with one CPU, processes on more), and this test's directory. Everything simulated must
match exactly. The size of the HTML report (``338 KiB``) is checked too: it is the same from run
to run (its figures are PNGs drawn by the installed matplotlib, as for the committed example
report that tests/test_docs_numbers.py compares byte for byte).

PROSE lists the numbers the pages' prose quotes from these outputs, each with how it is derived
from the replayed runs; each must appear in its page as written.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import ROOT

DOCS = ROOT / "docs"
PAGES = ["getting-started.md", "tutorial.md"]
COLUMNS = 120  # the width the pages' tables were printed at
# The commands a transcript may run (anything else is refused rather than run).
ALLOWED = {"bufferlab", "mkdir", "cp"}

FENCE = re.compile(r"^(`{3,})")
FILE_MARKER = re.compile(r"^<!-- file: (\S+) -->$")
ELIDED = "..."


# -- the pages' transcripts ---------------------------------------------------------------------


@dataclass
class Step:
    """One ``$ cmd`` of a transcript with its quoted output, or one file the reader saves."""

    line: int  # the page's line of the command (1-based), or of the file's opening fence
    cmd: str | None = None
    expected: list[str] = field(default_factory=list)
    path: str | None = None
    text: str = ""


def parse(page: str) -> list[Step]:
    lines = (DOCS / page).read_text(encoding="utf-8").splitlines()
    steps: list[Step] = []
    previous = ""  # the last non-blank line before a fence
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if lines[i].strip():
                previous = lines[i].strip()
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != m[1]:
            end += 1
        body = lines[i + 1 : end]
        marker = FILE_MARKER.match(previous)
        if marker:
            steps.append(Step(i + 1, path=marker[1], text="\n".join(body) + "\n"))
        elif body and body[0].startswith("$ "):
            for k, text in enumerate(body):
                if text.startswith("$ "):
                    steps.append(Step(i + 2 + k, cmd=text[2:].strip()))
                else:
                    steps[-1].expected.append(text)
        previous = lines[end] if end < len(lines) else ""
        i = end + 1
    return steps


@dataclass
class Result:
    step: Step
    code: int
    output: list[str]


@dataclass
class Replay:
    page: str
    work: Path
    results: list[Result]

    def result(self, cmd: str) -> Result:
        """The first run of ``cmd`` (as the page writes it)."""
        for r in self.results:
            if r.step.cmd == cmd:
                return r
        raise AssertionError(f"docs/{self.page} no longer runs `$ {cmd}`")

    def output(self, cmd: str) -> list[str]:
        return [line.rstrip() for line in self.result(cmd).output]


def _env() -> dict[str, str]:
    bindir = Path(sys.executable).parent
    assert (bindir / "bufferlab").exists(), f"no bufferlab command beside {sys.executable}"
    env = dict(os.environ)
    for var in ("BUFFERLAB_DEBUG", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "LINES"):
        env.pop(var, None)
    env["COLUMNS"] = str(COLUMNS)
    env["PYTHONUNBUFFERED"] = "1"  # stdout and stderr interleave as on a terminal
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    return env


def replay(page: str, work: Path) -> Replay:
    shutil.copytree(ROOT / "examples", work / "examples")
    env = _env()
    results = []
    for step in parse(page):
        if step.path is not None:
            target = work / step.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(step.text, encoding="utf-8")
            continue
        assert step.cmd is not None
        program = shlex.split(step.cmd)[0]
        assert program in ALLOWED, (
            f"docs/{page}:{step.line}: `$ {step.cmd}`: this test replays only {sorted(ALLOWED)}"
        )
        proc = subprocess.run(
            step.cmd,
            shell=True,
            executable="/bin/bash",
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=600,
        )
        output = proc.stdout.replace(str(work), "<workdir>").splitlines()
        results.append(Result(step, proc.returncode, output))
    return Replay(page, work, results)


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Replay]:
    """Each page replayed once per test module, on first use."""
    done: dict[str, Replay] = {}

    def get(page: str) -> Replay:
        if page not in done:
            done[page] = replay(page, tmp_path_factory.mktemp(page.removesuffix(".md")))
        return done[page]

    return get


# -- comparing a quoted output with the real one ------------------------------------------------

NORMALISE = [
    # wall times: "simulated 30 s in 22.8 ms (...)", "50/50 runs ok in 1.3 s (full)"
    (re.compile(r"(simulated .*? in )\d[\d.,]* ?(?:ns|µs|us|ms|s|min)\b"), r"\1<wall>"),
    (re.compile(r"(runs ok in )\d[\d.,]* ?(?:ms|s|min)\b"), r"\1<wall>"),
    # progress bars: the bar's width, the rate, the elapsed time and the ETA
    (re.compile(r"━+"), "━"),
    (re.compile(r"\d+(?:\.\d+)? runs/s"), "<rate> runs/s"),
    (re.compile(r"\b\d+:\d\d:\d\d\b"), "<h:mm:ss>"),
    # the sweep's worker kind: "auto" picks processes only where there are 2 CPUs or more
    (re.compile(r"all (?:thread|process) workers"), "all <kind> workers"),
]


def normalise(line: str) -> str:
    line = line.rstrip()
    for pattern, repl in NORMALISE:
        line = pattern.sub(repl, line)
    return line


def first_difference(expected: list[str], actual: list[str]) -> tuple[int, str] | None:
    """None when ``actual`` matches ``expected`` (``...`` lines are wildcards), else the index
    in ``expected`` of the first line that does not match and what the output has instead."""
    exp = [normalise(x) for x in expected]
    act = [normalise(x) for x in actual]
    while act and not act[-1]:  # a trailing blank line does not show on the page
        act.pop()
    while exp and not exp[-1]:
        exp.pop()

    def shown(i: int) -> str:
        return repr(actual[i].rstrip()) if i < len(actual) else "<end of output>"

    if not exp:  # a command quoted without output prints nothing
        return None if not act else (0, f"the output has {shown(0)}")

    # Segments of quoted lines between the "..." lines, with the index of their first line.
    segments: list[tuple[int, list[str]]] = [(0, [])]
    for i, x in enumerate(exp):
        if x == ELIDED:
            segments.append((i + 1, []))
        else:
            segments[-1][1].append(x)
    pos = 0
    for k, (start, seg) in enumerate(segments):
        first, last = k == 0, k == len(segments) - 1
        if not seg:
            continue  # a leading or trailing "...", or two in a row
        if first:
            candidates = [0]
        else:
            candidates = [c for c in range(pos, len(act)) if act[c] == seg[0]]
            if not candidates:
                return start, f"the output has no such line after its line {pos}"
        best = None
        for c in candidates:
            m = 0
            while m < len(seg) and c + m < len(act) and act[c + m] == seg[m]:
                m += 1
            if m == len(seg) and (not last or c + m == len(act)):
                best = None
                pos = c + m
                break
            if best is None or m > best[1]:
                best = (c, m)
        if best is not None:
            c, m = best
            if m == len(seg):  # the quoted output ends, the real one goes on
                return start + m - 1, f"the output goes on after it: {shown(c + m)}"
            return start + m, f"the output has {shown(c + m)}"
    return None


@pytest.mark.parametrize("page", PAGES)
def test_transcripts_match_the_current_output(page: str, replays) -> None:
    rep = replays(page)
    assert rep.results, f"docs/{page} has no transcript"
    failures = []
    for r in rep.results:
        diff = first_difference(r.step.expected, r.output)
        if diff is not None:
            i, what = diff
            quoted = r.step.expected[i] if i < len(r.step.expected) else "<end of quote>"
            failures.append(
                f"docs/{page}:{r.step.line + 1 + i}: `$ {r.step.cmd}`: the page quotes\n"
                f"    {quoted!r}\n  but {what}"
            )
        elif r.code != 0 and not any(x.startswith("error:") for x in r.step.expected):
            failures.append(f"docs/{page}:{r.step.line}: `$ {r.step.cmd}` exits with {r.code}")
    assert not failures, "stale transcript output:\n" + "\n".join(failures)


def test_first_difference_wildcards_and_normalisation() -> None:
    out = ["a  ", "b", "c", "x 1/1 ━━━━ 9.1 runs/s 0:00:02", "d", ""]
    assert first_difference(["a", "...", "c", "x 1/1 ━━ 3.2 runs/s 0:00:01", "d"], out) is None
    assert first_difference(["...", "d"], out) is None
    assert first_difference(["a", "..."], out) is None
    assert first_difference(["a", "b"], out) == (1, "the output goes on after it: 'c'")
    assert first_difference(["a", "x", "..."], out) == (1, "the output has 'b'")
    assert first_difference(["...", "c", "e"], out)[0] == 2
    assert first_difference(["a", "...", "z"], out) == (
        2,
        "the output has no such line after its line 1",
    )
    assert first_difference([], []) is None
    assert first_difference([], ["x"]) == (0, "the output has 'x'")
    sweep = "sweep t: 2 points, 4 runs, all {} workers"
    assert first_difference([sweep.format("process")], [sweep.format("thread")]) is None
    assert first_difference([sweep.format("process")], [sweep.format("dask")]) is not None


# -- the numbers the prose quotes ----------------------------------------------------------------

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


def cells(lines: list[str], first: str) -> list[str]:
    """The cells of the first table row whose first cell is ``first``."""
    for line in lines:
        row = re.split(r"\s{2,}", line.strip())
        if row[0] == first:
            return row
    raise AssertionError(f"no row {first!r} in the output")


def table_rows(lines: list[str], title: str) -> list[list[str]]:
    """The rows of the table under the line ``title`` (after its rule, up to a blank line)."""
    i = lines.index(title)
    while not lines[i].strip().startswith("─"):
        i += 1
    rows = []
    for line in lines[i + 1 :]:
        if not line.strip():
            break
        rows.append(re.split(r"\s{2,}", line.strip()))
    return rows


def packets(limit: str) -> int:
    assert limit.endswith("p"), limit
    return int(limit[:-1])


# getting-started.md

GS_RUN = "bufferlab run examples/dumbbell_udp.toml"


def gs_wall_time(get) -> str:
    # The prose names the wall time of the quoted run (not a simulated number, but the page
    # must quote the same one twice).
    quoted = next(s for s in parse("getting-started.md") if s.cmd == GS_RUN).expected[0]
    wall = re.search(r" in (\S+ \S+) \(", quoted)[1]
    return f"(the wall time, {wall} here,"


def gs_scenario(get) -> str:
    out = get("getting-started.md").output(GS_RUN)
    udp = [
        r
        for r in table_rows(out, "Flows (one-way delay: source to sink)")
        if r[2].startswith("udp/")
    ]
    queue = cells(out, "bottleneck r0→r1")  # the Queues table comes first: its discipline
    links = table_rows(out, "Busiest links (top 5 by utilisation)")
    rate, delay = next(r[1:3] for r in links if r[0] == queue[0])
    scenario = tomllib.loads((ROOT / "examples" / "dumbbell_udp.toml").read_text())
    limit = packets(scenario["links"]["bottleneck"]["queue"]["limit"])
    sim = re.search(r"simulated (\d+) s in", out[0])[1]
    kind = {"droptail": "DropTail", "red": "RED"}[queue[1]]
    return (
        f"{WORDS[len(udp)].capitalize()} UDP sources (CBR, Poisson and on/off) share a {rate}, "
        f"{delay} bottleneck with a {limit}-packet {kind} buffer for {sim} simulated seconds"
    )


def gs_sweep(get) -> str:
    sweep = tomllib.loads((ROOT / "examples" / "sweep_red_table3.toml").read_text())
    sizes = len(sweep["grid"]["links.bottleneck.queue.limit"])
    rates = len(sweep["zip"][0]["links.bottleneck.rate"])  # zipped with the UDP flow's rate
    out = get("getting-started.md").output(
        "bufferlab sweep examples/sweep_red_table3.toml --quick --db first.duckdb"
    )
    points = int(re.search(r": (\d+) points, (\d+) runs", out[0])[1])
    runs = int(re.search(r": (\d+) points, (\d+) runs", out[0])[2])
    one = "one" if runs == points == sizes * rates else f"<{runs} runs over {points} points>"
    return (
        f"({WORDS[sizes]} sizes) and its rate ({WORDS[rates]}); `--quick` runs {one} "
        f"replication per point instead of {WORDS[sweep['sweep']['replications']]}"
    )


# tutorial.md

T_RUN = "bufferlab run mywork/scenario.toml"
T_SWEEP = "bufferlab sweep mywork/sweep.toml --db mywork/results.duckdb"


def t_flow_count(get) -> str:
    rep = get("tutorial.md")
    valid = re.search(r"\((\d+) flows\)", rep.output("bufferlab validate mywork/scenario.toml")[0])
    flows = table_rows(rep.output(T_RUN), "Flows (one-way delay: source to sink)")
    return (
        f"(`validate` counts the {WORDS[int(valid[1])]} entries of `[[flows]]`; the run has "
        f"{WORDS[len(flows)]} flows.)"
    )


def t_droptail_queue(get) -> str:
    rep = get("tutorial.md")
    scenario = tomllib.loads((rep.work / "mywork" / "scenario.toml").read_text())
    limit = packets(scenario["links"]["bottleneck"]["queue"]["limit"])
    row = cells(rep.output(T_RUN), "bottleneck r0→r1")
    avg, sojourn_mean = row[6], row[8]
    return f"the {limit}-packet buffer nearly full: {avg} packets on average, {sojourn_mean} of"


def t_exit_code(get) -> str:
    code = get("tutorial.md").result(f"{T_RUN} --set links.bottleneck.queue.limit=10").code
    return f"A mistake is one line naming the field and the fix, with exit code {code}:"


def t_sweep_grid(get) -> str:
    rep = get("tutorial.md")
    sweep = tomllib.loads((rep.work / "mywork" / "sweep.toml").read_text())
    grid = [len(v) for v in sweep["grid"].values()]
    counts = re.search(r": (\d+ points, \d+ runs),", rep.output(T_SWEEP)[0])[1]
    return f"every combination: {grid[0]} x {grid[1]} = {counts}"


def _aggregate(get):
    from bufferlab.experiments.stats import aggregate

    rep = get("tutorial.md")
    agg = aggregate(rep.work / "mywork" / "results.duckdb", "my-buffer")
    agg["p"] = agg["links.bottleneck.queue.limit"].map(packets)
    agg["kind"] = agg["links.bottleneck.queue.kind"]
    return agg.sort_values(["metric", "kind", "p"])


def t_identical_pairs(get) -> str:
    agg = _aggregate(get)
    same = agg[(agg["n"] > 1) & (agg["std"] == 0)]
    util = agg[(agg["metric"] == "links[bottleneck].utilisation") & (agg["kind"] == "droptail")]
    lowest = same["p"].min()
    if (
        set(same["metric"]) != {"links[bottleneck].utilisation"}
        or set(same["kind"]) != {"droptail"}
        or set(same["p"]) != set(util[util["p"] >= lowest]["p"])
        or set(same["mean"]) != {1.0}
    ):
        return f"<the identical (point, metric) pairs are now:\n{same.to_string()}>"
    return (
        f"the {WORDS[len(same)]} pairs are DropTail's bottleneck utilisation from {lowest} "
        "packets up, exactly 1 in every replication"
    )


def t_video_delay(get) -> str:
    agg = _aggregate(get)
    video = agg[agg["metric"] == "flows[video].delay_mean_s"]
    ms = {
        kind: [(p, round(v * 1e3)) for p, v in zip(g["p"], g["mean"], strict=True)]
        for kind, g in video.groupby("kind")
    }
    dt, red = ms["droptail"], ms["red"]
    grows = all(a[1] < b[1] for a, b in itertools.pairwise(dt))
    i = min(i for i in range(len(red)) if len({v for _, v in red[i:]}) == 1)
    at_least = red[0][0]
    both = (
        f"At {at_least} packets both give {dt[0][1]} ms"
        if dt[0][0] == at_least and dt[0][1] == red[0][1]
        else f"<at {at_least} packets DropTail gives {dt[0][1]} ms, RED {red[0][1]} ms>"
    )
    return (
        f"Under DropTail it {'grows' if grows else 'does not grow'} with the buffer, from "
        f"{dt[0][1]} ms to {dt[-1][1]} ms; under RED it stays near {red[i][1]} ms from "
        f"{red[i][0]} packets up ... {both}"
    )


def t_red_same_runs(get) -> str:
    # "so 100 and 200 give the same runs": the RED points whose every metric (mean, std over
    # the replications) is that of the largest buffer.
    agg = _aggregate(get)
    red = agg[agg["kind"] == "red"]
    by_p = {
        p: g[["metric", "n", "mean", "std"]].reset_index(drop=True) for p, g in red.groupby("p")
    }
    top = max(by_p)
    same = sorted(p for p, g in by_p.items() if g.equals(by_p[top]))
    return f"so {' and '.join(map(str, same))} give the same runs"


def t_study_runs(get) -> str:
    rep = get("tutorial.md")
    row = cells(rep.output("bufferlab study list --studies mywork/studies"), "buffer_red")
    full, quick = int(row[1]), int(row[2])
    run = rep.output(
        "bufferlab study run buffer_red --studies mywork/studies --docs-dir mywork/docs "
        "--out mywork/study-out"
    )
    points = len(table_rows(run, "Table 1: Video delay, goodput and drops against the buffer size"))
    return (
        f"Run it: `--quick` first ({quick} runs), then the full study ... over the "
        f"{WORDS[full // points]} replications"
    )


@dataclass
class Prose:
    page: str
    derive: Callable[[Callable[[str], Replay]], str]


PROSE = [
    Prose("getting-started.md", gs_wall_time),
    Prose("getting-started.md", gs_scenario),
    Prose("getting-started.md", gs_sweep),
    Prose("tutorial.md", t_flow_count),
    Prose("tutorial.md", t_droptail_queue),
    Prose("tutorial.md", t_exit_code),
    Prose("tutorial.md", t_sweep_grid),
    Prose("tutorial.md", t_identical_pairs),
    Prose("tutorial.md", t_video_delay),
    Prose("tutorial.md", t_red_same_runs),
    Prose("tutorial.md", t_study_runs),
]


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("check", PROSE, ids=[p.derive.__name__ for p in PROSE])
def test_prose_quotes_the_current_numbers(check: Prose, replays) -> None:
    page = _flat((DOCS / check.page).read_text(encoding="utf-8"))
    want = _flat(check.derive(replays))
    # "A ... B" in a fragment: A and then B further on in the page.
    parts = want.split(" ... ")
    at = 0
    for part in parts:
        found = page.find(part, at)
        assert found >= 0, (
            f"docs/{check.page}: the prose should say, from the current output,\n  {part!r}\n"
            f"(derived by {check.derive.__name__}; whole fragment: {want!r})"
        )
        at = found + len(part)
