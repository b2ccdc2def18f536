"""The error boundary every command runs inside, without typer (so the fast path can use it).

Errors are answers: a bad scenario, a missing file or a malformed ``--set`` prints one line
``error: <message>`` on stderr and exits with code 2; a bug in the simulator exits with code 3
and asks for a bug report. No traceback reaches the user unless BUFFERLAB_DEBUG=1 is set.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from bufferlab._core import ScenarioError, SimulationPanic

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too):
# it is 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

EXIT_USER = 2
EXIT_BUG = 3
BUG_HINT = "this is a bug in bufferlab; please report it with the scenario file and the command"


class Exit(SystemExit):
    """Ends the command with an exit code (its message, if any, already printed).

    A ``SystemExit``: it ends the process with its code whether the command was called by
    typer or by the fast path of :mod:`bufferlab.cli.fast`, and no ``except Exception``
    (typer's, click's or the boundary's own) takes it for an error.
    """


def _one_line(message: str) -> str:
    """Error messages on one line, whatever the core or the OS wrote; a control character
    left in it (a name from the user's file echoed back) is shown as an escape, never sent to
    the terminal."""
    from bufferlab.display import printable

    return printable(" ".join(part.strip() for part in str(message).splitlines() if part.strip()))


def _print_error(message: str) -> None:
    sys.stdout.flush()
    print(f"error: {_one_line(message)}", file=sys.stderr)


def _fail(message: str, code: int = EXIT_USER) -> NoReturn:
    _print_error(message)
    raise Exit(code)


@contextmanager
def _errors() -> Iterator[None]:
    """Turns every failure into an `error:` line and an exit code, at the CLI boundary."""
    try:
        yield
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
        raise Exit(130) from None
    except Exception as e:  # anything else is our bug
        if _is_typer_exit(e):  # a command's own `raise typer.Exit(code)`
            raise
        if os.environ.get("BUFFERLAB_DEBUG"):
            raise
        culprit = getattr(e, "bufferlab_extension", None)
        if culprit is not None:  # raised in the user's own class (extend.blame)
            _user_class_failed(e, culprit)
        damaged = _damaged_database(e)
        if damaged is not None:
            _fail(damaged)
        _fail(f"internal error: {type(e).__name__}: {e} ({BUG_HINT})", EXIT_BUG)


def _user_class_failed(e: Exception, culprit: str) -> NoReturn:
    """An exception of a user's Python class: their frames (not bufferlab's), then the line."""
    from bufferlab.extend import user_frames

    frames = user_frames(e)
    sys.stdout.flush()
    if frames:
        print("Traceback (most recent call last), in your code:", file=sys.stderr)
        print("".join(frames).rstrip("\n"), file=sys.stderr)
    shown = " (its traceback is above)" if frames else ""
    _fail(f"{culprit} raised {type(e).__name__}: {e}; fix the class{shown}")


def _damaged_database(e: BaseException) -> str | None:
    """A DuckDB error that says a results database file is damaged: the file's fault, not
    ours (looked up only when duckdb is already loaded)."""
    duckdb = sys.modules.get("duckdb")
    if duckdb is None or not isinstance(e, duckdb.Error):
        return None
    from bufferlab.experiments.store import damage_message

    return damage_message(e)


def _is_typer_exit(e: BaseException) -> bool:
    """``typer.Exit`` is an ``Exception``; looked up only when typer is already loaded."""
    typer = sys.modules.get("typer")
    return typer is not None and isinstance(e, typer.Exit)


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
