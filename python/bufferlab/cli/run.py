"""The single-run commands: run, import-ns2, validate, schema, version; what they do.

Without typer: their options are declared in :mod:`bufferlab.cli.run_typer` (the help texts,
the parser) and parsed there or, for the common invocations, by :mod:`bufferlab.cli.fast`;
both call the functions here with the same arguments. rich is imported only when a table or a
progress bar is shown.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import bufferlab
from bufferlab import _core
from bufferlab.cli._boundary import Exit, _errors, _fail, _quantity
from bufferlab.display import printable

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too):
# it is 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from bufferlab.scenario import Scenario


def _load(file: Path, sets: list[str] | None) -> Scenario:
    from bufferlab.scenario import load, normalise_overrides

    overrides = normalise_overrides(sets or [])
    return load(file).with_overrides(overrides)


@contextmanager
def _progress_bar(delay_s: float = 2.0) -> Iterator[Any]:
    """A progress callback that shows a rich bar on a terminal once a run has taken `delay_s`."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(
        TextColumn("simulating"),
        BarColumn(),
        TextColumn("{task.completed:.1f}/{task.total:.1f} s simulated"),
        TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    state: dict[str, Any] = {"task": None}

    def on_progress(sim_s: float, end_s: float, events: int, wall_s: float) -> bool:
        if wall_s < delay_s:
            return True
        if state["task"] is None:
            bar.start()
            state["task"] = bar.add_task("run", total=end_s, rate="")
        rate = f"{events / wall_s / 1e6:.1f} M events/s" if wall_s > 0 else ""
        bar.update(state["task"], completed=sim_s, rate=rate)
        return True

    try:
        yield on_progress
    finally:
        if state["task"] is not None:
            bar.stop()


def is_script(file: str | os.PathLike[str]) -> bool:
    """Whether ``bufferlab run`` takes the file for an ns-2 script (its suffix is .tcl)."""
    return os.path.splitext(os.fspath(file))[1] == ".tcl"


# -- commands -------------------------------------------------------------------------------


def run(
    file: Path,
    script_args: list[str] | None = None,
    seed: int | None = None,
    set_: list[str] | None = None,
    json_out: bool = False,
    out: Path | None = None,
    trace_ns2: Path | None = None,
    trace_links: list[str] | None = None,
    trace_flows: list[str] | None = None,
    trace_events: str | None = None,
    pcap: Path | None = None,
    pcap_links: list[str] | None = None,
    max_wall: str | None = None,
    max_memory: str | None = None,
    allow_python: bool = False,
    all_queues: bool = False,
) -> None:
    """`bufferlab run`: a scenario's run and its report (or an ns-2 script's run)."""
    if is_script(file):
        unused = {
            "--set": set_, "--json": json_out or None, "--out": out, "--trace-ns2": trace_ns2,
            "--trace-link": trace_links, "--trace-flow": trace_flows,
            "--trace-events": trace_events, "--pcap": pcap, "--pcap-link": pcap_links,
            "--max-memory": max_memory, "--all-queues": all_queues or None,
        }  # fmt: skip
        given = [k for k, v in unused.items() if v]
        with _errors():
            if given:
                _fail(
                    f"{', '.join(given)}: not for ns-2 scripts (the script writes its own "
                    "output); `bufferlab import-ns2` gives a scenario these options apply to"
                )
            wall_s = None if max_wall is None else _quantity(max_wall, "s", "--max-wall", "30s")
            _run_ns2(file, script_args or [], seed, wall_s)
        return
    if script_args:
        _fail(f"unexpected arguments {' '.join(script_args)} (only ns-2 scripts take arguments)")
    with _errors():
        scenario = _load(file, set_)
        wall_s = None if max_wall is None else _quantity(max_wall, "s", "--max-wall", "30s")
        memory = None if max_memory is None else _quantity(max_memory, "bytes", "--max-memory",
                                                            "4GB")  # fmt: skip
        with _progress_bar() as on_progress:
            res = bufferlab.run(
                scenario,
                seed=seed,
                ns2_trace=trace_ns2,
                trace_links=trace_links,
                trace_flows=trace_flows,
                trace_events=trace_events,
                pcap_dir=pcap,
                pcap_links=pcap_links,
                progress=on_progress,
                max_wall=wall_s,
                max_memory=None if memory is None else int(memory),
                allow_python=allow_python,
            )
        for w in res.warnings:
            print(f"warning: {printable(w)}", file=sys.stderr)
        stopped = res.stopped
        if stopped and stopped.get("kind") != "max_wall":
            # A run that took too much memory or stalled is an error; what it measured is
            # still written where asked, then the command fails.
            if out is not None:
                written = res.save(out)
                print(f"wrote {len(written)} files (partial) to {printable(out)}", file=sys.stderr)
            _fail(str(stopped.get("message")))
        if stopped:
            print(
                f"warning: {printable(stopped.get('message'))}; these are PARTIAL results",
                file=sys.stderr,
            )
        elif res.partial:
            print(
                f"warning: stopped at {res.sim_time_s or 0:.3f} s of simulated time; "
                "these are PARTIAL results",
                file=sys.stderr,
            )
        if out is not None:
            written = res.save(out)
            print(f"wrote {len(written)} files to {printable(out)}", file=sys.stderr)
        if json_out:
            sys.stdout.write(res.to_json() + "\n")
            sys.stdout.flush()
        else:
            from bufferlab.cli.format import output_console, print_report

            # Wide enough not to truncate when the output goes to a file or a pipe.
            console = output_console(160)
            print_report(res, console, all_queues=all_queues)


def _run_ns2(script: Path, args: list[str], seed: int | None, max_wall: float | None) -> None:
    from bufferlab.ns2 import Ns2Error, run_script

    try:
        code = run_script(script, args, seed=seed, max_wall=max_wall)
    except Ns2Error as e:
        _fail(str(e))
    sys.stdout.flush()
    if code:
        raise Exit(code)


def import_ns2(
    script: Path, script_args: list[str] | None = None, output: Path | None = None
) -> None:
    """`bufferlab import-ns2`: the static part of an ns-2 script as a scenario file."""
    from bufferlab.ns2 import Ns2Error, import_script
    from bufferlab.ns2.toml_text import scenario_text

    with _errors():
        args = script_args or []
        try:
            scenario, left_out = import_script(script, args)
        except Ns2Error as e:
            _fail(str(e))
        cmd = printable(" ".join([script.name, *args]))
        header = [
            f"Translated by `bufferlab import-ns2` from the ns-2 script {cmd}",
            "(the static part: network, queues, flows and their start/stop times).",
        ]
        if left_out:
            header.append("Left out (run the script itself: bufferlab run " + cmd + "):")
            # each line of a multi-line event its own comment line (scenario_text splits them),
            # control characters in it shown as escapes
            header += ["  " + "\n".join(map(printable, e.splitlines())) for e in left_out]
            for e in left_out:
                print(f"warning: left out (dynamic): {printable(e)}", file=sys.stderr)
        text = scenario_text(scenario, header)
        _core.validate(text, f"{script.name} (translated)")
        if output is None:
            sys.stdout.write(text)
        else:
            output.write_text(text)
            print(f"wrote {printable(output)}", file=sys.stderr)


def validate(
    file: Path, set_: list[str] | None = None, json_out: bool = False, allow_python: bool = False
) -> None:
    """`bufferlab validate`: a scenario file (and overrides) checked without running it."""
    import json

    with _errors():
        scenario = _load(file, set_)
        both = json.loads(
            _core.resolve(
                scenario.text,
                source=scenario.source,
                overrides=list(scenario.overrides),
                allow_python=allow_python,
            )
        )
        normalised = both["scenario"]
        if json_out:
            sys.stdout.write(json.dumps(both, indent=2) + "\n")
            return
        for w in both["resolved"]["warnings"]:
            print(f"warning: {printable(w)}", file=sys.stderr)
        name = normalised.get("name") or scenario.name or ""
        flows = normalised.get("flows")
        what = f" ({len(flows)} flows)" if isinstance(flows, list) else ""
        print(f"ok: {printable(file)}: scenario {name!r} is valid{what}")


def schema() -> None:
    """`bufferlab schema`: the JSON Schema of the scenario format."""
    with _errors():
        sys.stdout.write(_core.schema().rstrip("\n") + "\n")


def version() -> None:
    """`bufferlab version`."""
    print(f"bufferlab {_core.__version__}")
