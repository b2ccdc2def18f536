"""The `bufferlab` command: a typer app whose commands call the library (never the reverse).

Each group of commands is its own module and registers itself on the app of ``_app``:
``run`` (run, validate, schema, version), ``experiments`` (sweep, results, plot, report,
advise) and ``study``. Errors are answered at one boundary (``_app._errors``).
"""

from __future__ import annotations

import sys

import typer

from bufferlab.cli import experiments, run  # noqa: F401  (they register their commands)
from bufferlab.cli._app import _print_error, app
from bufferlab.cli.study import study_app

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
