"""The typer app, and the option types the commands share.

The error boundary (``_errors``, ``_fail``: one ``error:`` line and exit code 2, or 3 for a
bug) is in :mod:`bufferlab.cli._boundary`, which does not import typer, so that the fast path
of the common commands (:mod:`bufferlab.cli.fast`) answers errors the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bufferlab.cli._boundary import (  # noqa: F401  (the commands' names for them)
    BUG_HINT,
    EXIT_BUG,
    EXIT_USER,
    Exit,
    _errors,
    _fail,
    _one_line,
    _print_error,
    _quantity,
)

app = typer.Typer(
    name="bufferlab",
    help="Packet-level network simulator for router buffer sizing and AQM studies.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

# A scenario naming a Python class (a queue discipline, a congestion controller) runs that
# class's code when it is imported: only with this flag (docs/cli.md "What runs code").
AllowPython = Annotated[
    bool,
    typer.Option(
        "--allow-python",
        help="Import the Python classes the scenario names (their code runs with your "
        "rights); without it such a scenario is refused.",
    ),
]

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
        "e.g. -s duration=60s or -s links.access.rate=1Gbps",
        metavar="PATH=VALUE",
        show_default=False,
    ),
]
