"""The `bufferlab` command.

Errors are answers: a bad scenario, a missing file or a malformed ``--set`` prints one line
``error: <message>`` on stderr and exits with code 2; a bug in the simulator exits with code 3
and asks for a bug report. No traceback reaches the user unless BUFFERLAB_DEBUG=1 is set.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from bufferlab import _core
from bufferlab._core import ScenarioError, SimulationPanic
from bufferlab.results import Results
from bufferlab.run import run as run_scenario
from bufferlab.scenario import Scenario, load, normalise_overrides
from bufferlab.study import study_app

EXIT_USER = 2
EXIT_BUG = 3
BUG_HINT = "this is a bug in bufferlab; please report it with the scenario file and the command"

app = typer.Typer(
    name="bufferlab",
    help="Packet-level network simulator for router buffer sizing and AQM studies.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

FileArg = Annotated[
    Path,
    typer.Argument(help="Scenario file (TOML).", show_default=False, metavar="FILE"),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        "-s",
        help="Override a value: dotted.path=value (repeatable), "
        "e.g. --set links.bottleneck.queue.limit=10KB",
        metavar="PATH=VALUE",
        show_default=False,
    ),
]


def _one_line(message: str) -> str:
    """Error messages on one line, whatever the core or the OS wrote."""
    return " ".join(part.strip() for part in str(message).splitlines() if part.strip())


def _print_error(message: str) -> None:
    sys.stdout.flush()
    print(f"error: {_one_line(message)}", file=sys.stderr)


def _fail(message: str, code: int = EXIT_USER) -> NoReturn:
    _print_error(message)
    raise typer.Exit(code)


@contextmanager
def _errors() -> Iterator[None]:
    """Turns every failure into an `error:` line and an exit code, at the CLI boundary."""
    try:
        yield
    except typer.Exit:
        raise
    except ScenarioError as e:
        _fail(str(e))
    except SimulationPanic as e:
        _fail(f"{e} ({BUG_HINT})", EXIT_BUG)
    except FileNotFoundError as e:
        _fail(f"{e.filename}: no such file")
    except IsADirectoryError as e:
        _fail(f"{e.filename}: is a directory, not a scenario file")
    except PermissionError as e:
        _fail(f"{e.filename}: permission denied")
    except UnicodeDecodeError as e:
        _fail(f"the scenario file is not UTF-8 text ({e.reason})")
    except OSError as e:
        _fail(f"{e.filename or ''}: {e.strerror or e}".lstrip(": "))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise typer.Exit(130) from None
    except Exception as e:  # anything else is our bug
        if os.environ.get("BUFFERLAB_DEBUG"):
            raise
        _fail(f"internal error: {type(e).__name__}: {e} ({BUG_HINT})", EXIT_BUG)


def _load(file: Path, sets: list[str] | None) -> Scenario:
    overrides = normalise_overrides(sets or [])
    return load(file).with_overrides(overrides)


# -- formatting -----------------------------------------------------------------------------


def _num(x: Any) -> float | None:
    if x is None:
        return None
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def fmt_rate(bps: Any) -> str:
    v = _num(bps)
    if v is None:
        return "-"
    for unit, scale in (("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
        if abs(v) >= scale:
            return f"{v / scale:.3g} {unit}"
    return f"{v:.3g} bit/s"


def fmt_time(s: Any) -> str:
    v = _num(s)
    if v is None:
        return "-"
    if v == 0:
        return "0"
    if abs(v) >= 1:
        return f"{v:.3g} s"
    if abs(v) >= 1e-3:
        return f"{v * 1e3:.3g} ms"
    return f"{v * 1e6:.3g} µs"


def fmt_int(n: Any) -> str:
    v = _num(n)
    return "-" if v is None else f"{int(v):,}"


def fmt_pct(part: Any, whole: Any) -> str:
    p, w = _num(part), _num(whole)
    if p is None or not w:
        return "-"
    return f"{100 * p / w:.2f}%"


def fmt_float(x: Any, digits: int = 3) -> str:
    v = _num(x)
    return "-" if v is None else f"{v:.{digits}g}"


def _link_name(rec: dict[str, Any]) -> str:
    return f"{rec.get('link')} {rec.get('from')}→{rec.get('to')}"


def _table(title: str, columns: list[str]) -> Table:
    """A compact table; the first column is left-aligned, the numbers right-aligned."""
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for i, col in enumerate(columns):
        t.add_column(col, justify="left" if i < 3 else "right", no_wrap=i == 0)
    return t


def print_report(res: Results, console: Console, busiest: int = 5) -> None:
    raw = res.raw
    console.print(
        f"[bold]{raw.get('scenario', '')}[/bold]  seed {raw.get('seed')}  "
        f"simulated {fmt_time(raw.get('sim_time_s'))} in {fmt_time(raw.get('wall_s'))} "
        f"({fmt_int(raw.get('events'))} events)"
        + ("  [yellow](partial run)[/yellow]" if raw.get("partial") else "")
    )

    flows = _table(
        "Flows",
        ["flow", "path", "app", "sent", "received", "loss", "throughput", "goodput",
         "delay mean", "p99", "jitter"],
    )  # fmt: skip
    for f in raw.get("flows", []):
        flows.add_row(
            str(f.get("name")),
            f"{f.get('src')} → {f.get('dst')}",
            f"{f.get('protocol')}/{f.get('app')}",
            fmt_int(f.get("tx_packets")),
            fmt_int(f.get("rx_packets")),
            fmt_pct(f.get("lost_packets"), f.get("tx_packets")),
            fmt_rate(f.get("throughput_bps")),
            fmt_rate(f.get("goodput_bps")),
            fmt_time(f.get("delay_mean_s")),
            fmt_time(f.get("delay_p99_s")),
            fmt_time(f.get("jitter_s")),
        )
    console.print(flows)

    active = [q for q in raw.get("queues", []) if (q.get("arrivals") or 0) > 0]
    queues = _table(
        "Queues (with arrivals)",
        ["queue", "discipline", "arrivals", "drops", "drop %", "marks", "avg pkts",
         "max pkts", "sojourn mean", "p99"],
    )  # fmt: skip
    queues.columns[2].justify = "right"
    for q in active:
        queues.add_row(
            _link_name(q),
            str(q.get("discipline")),
            fmt_int(q.get("arrivals")),
            fmt_int(q.get("drops")),
            fmt_pct(q.get("drops"), q.get("arrivals")),
            fmt_int(q.get("marks")),
            fmt_float(q.get("avg_packets")),
            fmt_int(q.get("max_packets")),
            fmt_time(q.get("sojourn_mean_s")),
            fmt_time(q.get("sojourn_p99_s")),
        )
    console.print(queues)

    used = [ln for ln in raw.get("links", []) if (ln.get("tx_packets") or 0) > 0]
    used.sort(key=lambda ln: -(_num(ln.get("utilisation")) or 0.0))
    links = _table(
        f"Busiest links (top {busiest} by utilisation)",
        ["link", "rate", "delay", "packets", "utilisation", "lost"],
    )
    for c in links.columns[1:]:
        c.justify = "right"
    for ln in used[:busiest]:
        util = _num(ln.get("utilisation"))
        links.add_row(
            _link_name(ln),
            fmt_rate(ln.get("rate_bps")),
            fmt_time(ln.get("delay_s")),
            fmt_int(ln.get("tx_packets")),
            "-" if util is None else f"{100 * util:.1f}%",
            fmt_int(ln.get("lost_packets")),
        )
    console.print(links)

    fair = raw.get("fairness") or {}
    names = fair.get("flows") or []
    mean, std = fmt_rate(fair.get("throughput_mean_bps")), fmt_rate(fair.get("throughput_std_bps"))
    console.print(
        f"Fairness: Jain index [bold]{fmt_float(fair.get('jain'))}[/bold] over {len(names)} "
        f"flows ({', '.join(map(str, names))}); throughput mean "
        f"{mean}, std {std}"
    )


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


# -- commands -------------------------------------------------------------------------------


@app.command()
def run(
    file: FileArg,
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
) -> None:
    """Run a scenario and show (or write) its results.

    A run longer than a couple of seconds shows a progress bar on a terminal; Ctrl-C stops it
    and prints the results measured so far, marked partial.
    """
    with _errors():
        scenario = _load(file, set_)
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
            )
        if res.raw.get("partial"):
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
            console = Console() if sys.stdout.isatty() else Console(width=160)
            print_report(res, console)


@app.command()
def validate(
    file: FileArg,
    set_: SetOpt = None,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the normalised scenario as JSON.")
    ] = False,
) -> None:
    """Check a scenario file (and overrides) without running it."""
    with _errors():
        scenario = _load(file, set_)
        normalised = scenario.validate()
        if json_out:
            sys.stdout.write(json.dumps(normalised, indent=2) + "\n")
        else:
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


app.add_typer(study_app, name="study")


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `bufferlab` console script.

    Usage errors (an unknown option, a missing argument) are answered like every other error:
    one `error:` line on stderr and exit code 2.
    """
    args = sys.argv[1:] if argv is None else list(argv)
    if not args:
        args = ["--help"]
    try:
        code = app(args=args, prog_name="bufferlab", standalone_mode=False)
    except typer.Abort:
        print("interrupted", file=sys.stderr)
        code = 130
    except Exception as e:
        # Usage errors of the command-line parser (click's, or the copy vendored by newer
        # typer releases): they carry an exit code and a message.
        code = getattr(e, "exit_code", None)
        if not (isinstance(code, int) and callable(getattr(e, "format_message", None))):
            raise
        ctx = getattr(e, "ctx", None)
        hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        _print_error(f"{e.format_message()}{hint}")
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()


# The experiment commands (sweep, results, plot, report, advise) live in their own module.
from bufferlab import cli_experiments as _cli_experiments  # noqa: E402, F401
