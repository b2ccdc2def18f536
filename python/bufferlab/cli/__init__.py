"""The `bufferlab` command: a typer app whose commands call the library (never the reverse).

Each group of commands is its own module and registers itself on the app of ``_app``:
``run_typer`` (run, import-ns2, validate, schema, version; their bodies are in ``run``),
``experiments`` (sweep, results, plot, report, advise) and ``study``. Errors are answered at
one boundary (``_boundary._errors``).

The common invocations of the single-run commands (``bufferlab run FILE --json --set ...``,
validate, schema, version) take a fast path (:mod:`bufferlab.cli.fast`) that imports neither
typer nor rich (unless a table is printed); everything else, ``--help`` included, goes to the
typer app. Importing this package loads neither: the app is ``bufferlab.cli.app``, built on
first use.
"""

from __future__ import annotations

import gc
import importlib
import sys

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too):
# it is 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Submodules reachable as attributes (``bufferlab.cli.experiments``) before they are imported.
_SUBMODULES = {"_app", "_boundary", "experiments", "fast", "format", "run", "run_typer", "study"}


def _typer_app() -> Any:
    """The typer app with every command registered."""
    from bufferlab.cli import experiments, run_typer  # noqa: F401  (they register their commands)
    from bufferlab.cli._app import app
    from bufferlab.cli.study import study_app

    if not any(g.typer_instance is study_app for g in app.registered_groups):
        app.add_typer(study_app, name="study")
    for typer_app in (app, study_app):
        for command in typer_app.registered_commands:
            if command.help is None and command.callback is not None:
                command.help = _reflowed(command.callback.__doc__ or "")
    return app


def _reflowed(doc: str) -> str:
    """A command's docstring as help prose: each paragraph on one line, so the terminal wraps
    it at its own width (typer keeps a docstring's line breaks, which wrap twice at 80 columns).
    """
    import inspect

    paragraphs = inspect.cleandoc(doc).split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `bufferlab` console script.

    Usage errors (an unknown option, a missing argument) are answered like every other error:
    one `error:` line on stderr and exit code 2.
    """
    from bufferlab.cli import fast

    # One command, then the process ends: a collection every 700 new objects (Python's
    # default) is a twentieth of an ns-2 script's time, for memory that lasts a second
    # (docs/performance.md, "ns-2's validation suites side by side"). Cycles are still
    # collected, at this larger step.
    gc.set_threshold(20_000, 20, 20)
    args = sys.argv[1:] if argv is None else list(argv)
    call = fast.parse(args)
    if call is not None:
        if argv is None and fast.is_script_run(call):
            fast.exit_after(call)  # the console script running an ns-2 script: no teardown
        sys.exit(fast.call(call))
    typer_main(args)


def typer_main(args: list[str]) -> None:
    """The `bufferlab` command through the typer app alone (what :func:`main` falls back to)."""
    import typer

    from bufferlab.cli._boundary import _print_error

    app = _typer_app()
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


def __getattr__(name: str) -> Any:
    """PEP 562: ``app`` (the typer app) and the submodules, imported when first asked for."""
    if name == "app":
        return _typer_app()
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    main()
