"""The typer app and the error boundary every command runs inside.

Errors are answers: a bad scenario, a missing file or a malformed ``--set`` prints one line
``error: <message>`` on stderr and exits with code 2; a bug in the simulator exits with code 3
and asks for a bug report. No traceback reaches the user unless BUFFERLAB_DEBUG=1 is set.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from bufferlab._core import ScenarioError, SimulationPanic

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


def _quantity(text: str, kind: str, option: str, example: str) -> float:
    """A command-line value in the scenario grammar, in base units of ``kind``."""
    from bufferlab import _core

    q = _core.quantity(text)
    if kind == "bytes" and q == (0.0, ""):
        return 0.0  # --max-memory 0: no limit
    if q is None or q[1] != kind or q[0] <= 0:
        _fail(
            f'{option}: "{text}" is not a {"time" if kind == "s" else "size"}; use e.g. {example}'
        )
    return q[0]
