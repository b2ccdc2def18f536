"""The single-run commands: run, validate, schema, version."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from bufferlab import _core
from bufferlab.cli._app import FileArg, SetOpt, _errors, _fail, _quantity, app
from bufferlab.cli.format import output_console, print_report
from bufferlab.run import run as run_scenario
from bufferlab.scenario import Scenario, load, normalise_overrides


def _load(file: Path, sets: list[str] | None) -> Scenario:
    overrides = normalise_overrides(sets or [])
    return load(file).with_overrides(overrides)


@contextmanager
def _progress_bar(delay_s: float = 2.0) -> Iterator[Any]:
    """A progress callback that shows a rich bar on a terminal once a run has taken `delay_s`."""
    if not sys.stderr.isatty():
        yield None
        return
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


# The arguments after an ns-2 script, its `argv` (`run SCRIPT.tcl ...`, `import-ns2`).
ScriptArgs = Annotated[
    list[str] | None,
    typer.Argument(
        help="Arguments of an ns-2 script (its argv).", show_default=False, metavar="[ARGS]..."
    ),
]


# -- commands -------------------------------------------------------------------------------


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def run(
    file: Annotated[
        Path,
        typer.Argument(
            help="Scenario file (TOML), or an ns-2 script (.tcl) run on bufferlab's engine.",
            show_default=False,
            metavar="FILE",
        ),
    ],
    script_args: ScriptArgs = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            help="Seed of the random streams (replaces the scenario's).",
            min=0,
            max=2**64 - 1,
            show_default=False,
        ),
    ] = None,
    set_: SetOpt = None,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the report as one JSON object on stdout.")
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Write report.json, flows.csv, queues.csv, links.csv "
            "and queue_series.parquet into this directory.",
            show_default=False,
        ),
    ] = None,
    trace_ns2: Annotated[
        Path | None,
        typer.Option("--trace-ns2", help="Write an ns-2 wired trace file.", show_default=False),
    ] = None,
    trace_links: Annotated[
        list[str] | None,
        typer.Option("--trace-link", help="Trace only this link (repeatable).", show_default=False),
    ] = None,
    trace_flows: Annotated[
        list[str] | None,
        typer.Option("--trace-flow", help="Trace only this flow (repeatable).", show_default=False),
    ] = None,
    trace_events: Annotated[
        str | None,
        typer.Option(
            "--trace-events",
            help="Trace only these events, e.g. 'rd' (of + - r d).",
            show_default=False,
        ),
    ] = None,
    pcap: Annotated[
        Path | None,
        typer.Option(
            "--pcap", help="Write pcap files (one per link direction) into DIR.", show_default=False
        ),
    ] = None,
    pcap_links: Annotated[
        list[str] | None,
        typer.Option(
            "--pcap-link", help="Capture only this link (repeatable).", show_default=False
        ),
    ] = None,
    max_wall: Annotated[
        str | None,
        typer.Option(
            "--max-wall",
            help="Stop after this much wall time (e.g. 30s, 5min); partial results are kept.",
            show_default=False,
        ),
    ] = None,
    max_memory: Annotated[
        str | None,
        typer.Option(
            "--max-memory",
            help="Stop when the run holds more memory (e.g. 4GB; default 80% of the "
            "machine's; 0 for no limit).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run a scenario and show (or write) its results.

    A run longer than a couple of seconds shows a progress bar on a terminal; Ctrl-C stops it
    and prints the results measured so far, marked partial.

    An ns-2 script (FILE ending in .tcl) runs in a Tcl interpreter with ns-2's API on
    bufferlab's engine; ARGS become its argv (docs/ns2-scripts.md).
    """
    if file.suffix == ".tcl":
        unused = {
            "--set": set_, "--json": json_out or None, "--out": out, "--trace-ns2": trace_ns2,
            "--trace-link": trace_links, "--trace-flow": trace_flows,
            "--trace-events": trace_events, "--pcap": pcap, "--pcap-link": pcap_links,
            "--max-wall": max_wall, "--max-memory": max_memory,
        }  # fmt: skip
        given = [k for k, v in unused.items() if v]
        with _errors():
            if given:
                _fail(
                    f"{', '.join(given)}: not for ns-2 scripts (the script writes its own "
                    "output); `bufferlab import-ns2` gives a scenario these options apply to"
                )
            _run_ns2(file, script_args or [], seed)
        return
    if script_args:
        _fail(f"unexpected arguments {' '.join(script_args)} (only ns-2 scripts take arguments)")
    with _errors():
        scenario = _load(file, set_)
        wall_s = None if max_wall is None else _quantity(max_wall, "s", "--max-wall", "30s")
        memory = None if max_memory is None else _quantity(max_memory, "bytes", "--max-memory",
                                                            "4GB")  # fmt: skip
        with _progress_bar() as on_progress:
            res = run_scenario(
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
            )
        for w in res.warnings:
            print(f"warning: {w}", file=sys.stderr)
        stopped = res.stopped
        if stopped and stopped.get("kind") != "max_wall":
            # A run that took too much memory or stalled is an error; what it measured is
            # still written where asked, then the command fails.
            if out is not None:
                written = res.save(out)
                print(f"wrote {len(written)} files (partial) to {out}", file=sys.stderr)
            _fail(str(stopped.get("message")))
        if stopped:
            print(f"warning: {stopped.get('message')}; these are PARTIAL results", file=sys.stderr)
        elif res.raw.get("partial"):
            print(
                f"warning: stopped at {res.raw.get('sim_time_s', 0):.3f} s of simulated time; "
                "these are PARTIAL results",
                file=sys.stderr,
            )
        if out is not None:
            written = res.save(out)
            print(f"wrote {len(written)} files to {out}", file=sys.stderr)
        if json_out:
            sys.stdout.write(res.to_json() + "\n")
            sys.stdout.flush()
        else:
            # Wide enough not to truncate when the output goes to a file or a pipe.
            console = output_console(160)
            print_report(res, console)


def _run_ns2(script: Path, args: list[str], seed: int | None) -> None:
    from bufferlab.ns2 import Ns2Error, run_script

    try:
        code = run_script(script, args, seed=seed)
    except Ns2Error as e:
        _fail(str(e))
    sys.stdout.flush()
    if code:
        raise typer.Exit(code)


@app.command("import-ns2", context_settings={"ignore_unknown_options": True})
def import_ns2(
    script: Annotated[
        Path, typer.Argument(help="ns-2 script (.tcl).", show_default=False, metavar="SCRIPT")
    ],
    script_args: ScriptArgs = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Write the scenario here (default: stdout).", show_default=False
        ),
    ] = None,
) -> None:
    """Translate the static part of an ns-2 script (network, queues, flows, their start and
    stop times) into a scenario file.

    The script runs up to `$ns run`; what it would do during the run (procs scheduled with
    `$ns at`: samplers, finish) is left out, listed in the file's header and on stderr.
    """
    from bufferlab.ns2 import Ns2Error, import_script
    from bufferlab.ns2.toml_text import scenario_text

    with _errors():
        args = script_args or []
        try:
            scenario, left_out = import_script(script, args)
        except Ns2Error as e:
            _fail(str(e))
        cmd = " ".join([script.name, *args])
        header = [
            f"Translated by `bufferlab import-ns2` from the ns-2 script {cmd}",
            "(the static part: network, queues, flows and their start/stop times).",
        ]
        if left_out:
            header.append("Left out (run the script itself: bufferlab run " + cmd + "):")
            header += [f"  {e}" for e in left_out]
            for e in left_out:
                print(f"warning: left out (dynamic): {e}", file=sys.stderr)
        text = scenario_text(scenario, header)
        _core.validate(text, f"{script.name} (translated)")
        if output is None:
            sys.stdout.write(text)
        else:
            output.write_text(text)
            print(f"wrote {output}", file=sys.stderr)


@app.command()
def validate(
    file: FileArg,
    set_: SetOpt = None,
    json_out: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print the normalised scenario and the network as built (every default "
            "resolved: paths, RTTs, TCP and queue settings) as JSON.",
        ),
    ] = False,
) -> None:
    """Check a scenario file (and overrides) without running it."""
    with _errors():
        scenario = _load(file, set_)
        both = json.loads(
            _core.resolve(scenario.text, source=scenario.source, overrides=list(scenario.overrides))
        )
        normalised = both["scenario"]
        if json_out:
            sys.stdout.write(json.dumps(both, indent=2) + "\n")
            return
        for w in both["resolved"]["warnings"]:
            print(f"warning: {w}", file=sys.stderr)
        name = normalised.get("name") or scenario.name or ""
        flows = normalised.get("flows")
        what = f" ({len(flows)} flows)" if isinstance(flows, list) else ""
        print(f"ok: {file}: scenario {name!r} is valid{what}")


@app.command()
def schema() -> None:
    """Print the JSON Schema of the scenario format (for editors and validators)."""
    with _errors():
        sys.stdout.write(_core.schema().rstrip("\n") + "\n")


@app.command()
def version() -> None:
    """Print the bufferlab version."""
    print(f"bufferlab {_core.__version__}")
