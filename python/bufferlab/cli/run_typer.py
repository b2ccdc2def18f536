"""typer's declaration of the single-run commands (run, import-ns2, validate, schema,
version): their options and help. Each calls its function in :mod:`bufferlab.cli.run`, as the
fast path of :mod:`bufferlab.cli.fast` does for the common invocations."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

import bufferlab.cli.run as _run
from bufferlab.cli._app import AllowPython, FileArg, SetOpt, app

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
    allow_python: AllowPython = False,
    all_queues: Annotated[
        bool,
        typer.Option(
            "--all-queues",
            help="Show every queue with arrivals, not only the busy ones (idle queues are "
            "folded away by default).",
        ),
    ] = False,
) -> None:
    """Run a scenario and show (or write) its results.

    A run longer than a couple of seconds shows a progress bar on a terminal; Ctrl-C stops it
    and prints the results measured so far, marked partial.

    An ns-2 script (FILE ending in .tcl) runs in a Tcl interpreter with ns-2's API on
    bufferlab's engine; ARGS become its argv (docs/ns2-scripts.md). A script is a program, as
    in ns-2: it runs with your rights (it can read and write your files and run commands), so
    run only scripts you trust. A scenario file (TOML) is data and never runs code.
    """
    _run.run(
        file=file,
        script_args=script_args,
        seed=seed,
        set_=set_,
        json_out=json_out,
        out=out,
        trace_ns2=trace_ns2,
        trace_links=trace_links,
        trace_flows=trace_flows,
        trace_events=trace_events,
        pcap=pcap,
        pcap_links=pcap_links,
        max_wall=max_wall,
        max_memory=max_memory,
        allow_python=allow_python,
        all_queues=all_queues,
    )


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

    Running the script is how it is read: it runs with your rights (as under ns-2, it can read
    and write your files and run commands), so import only scripts you trust. The scenario file
    it writes is data: running that never runs code.
    """
    _run.import_ns2(script=script, script_args=script_args, output=output)


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
    allow_python: AllowPython = False,
) -> None:
    """Check a scenario file (and overrides) without running it."""
    _run.validate(file=file, set_=set_, json_out=json_out, allow_python=allow_python)


@app.command()
def schema() -> None:
    """Print the JSON Schema of the scenario format (for editors and validators)."""
    _run.schema()


@app.command()
def version() -> None:
    """Print the bufferlab version."""
    _run.version()
