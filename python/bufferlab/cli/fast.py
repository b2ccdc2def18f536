"""The fast path of the `bufferlab` command: the common invocations of run, validate, schema
and version, parsed without typer (issue #19: start-up under 100 ms).

typer, rich and the pydantic adapter typer loads take longer to import than a small run takes
(docs/performance.md, "Command-line start-up"). :func:`parse` accepts only an argument list it
understands completely, a subset of what the typer declaration in
:mod:`bufferlab.cli.run_typer` accepts, and turns it into the same call of the same function of
:mod:`bufferlab.cli.run` typer would make. Anything else (``--help``, another command, an
unknown or repeated option, a missing or doubtful value, extra arguments after a scenario)
gives ``None`` and goes to the typer app, which answers it as before, its errors included. So
the output, the exit code and the error lines are the typer path's; tests/test_cli_fast.py
checks both paths side by side.

``run SCRIPT.tcl ARGS...`` (an ns-2 script and its argv, issue #20) takes the fast path too:
typer's start-up was most of the time of a small script's run. The script's path stays a str
there (typer's is a Path; run() takes either), so that a script's run never imports pathlib;
and the console script ends the process as soon as the script has (:func:`exit_after`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too):
# it is 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

# What an option's value is: a flag (no value), one value (the last word of the tuple: how to
# convert it), or a repeatable one (a list in the order given).
FLAG, ONE, MANY = "flag", "one", "many"


def _seed(text: str) -> int | None:
    """``--seed``: click's IntRange(0, 2**64 - 1), for plain digits only (else typer decides)."""
    if not text.isascii() or not text.isdigit():
        return None
    n = int(text)
    return n if n <= 2**64 - 1 else None


def _path(text: str) -> Path:
    from pathlib import Path  # not at start-up: an ns-2 script's run needs no pathlib

    return Path(text)


_RUN: dict[str, tuple[str, str, Callable[[str], Any] | None]] = {
    "--seed": ("seed", ONE, _seed),
    "--set": ("set_", MANY, str),
    "-s": ("set_", MANY, str),
    "--json": ("json_out", FLAG, None),
    "--out": ("out", ONE, _path),
    "-o": ("out", ONE, _path),
    "--trace-ns2": ("trace_ns2", ONE, _path),
    "--trace-link": ("trace_links", MANY, str),
    "--trace-flow": ("trace_flows", MANY, str),
    "--trace-events": ("trace_events", ONE, str),
    "--pcap": ("pcap", ONE, _path),
    "--pcap-link": ("pcap_links", MANY, str),
    "--max-wall": ("max_wall", ONE, str),
    "--max-memory": ("max_memory", ONE, str),
    "--allow-python": ("allow_python", FLAG, None),
    "--all-queues": ("all_queues", FLAG, None),
}
_VALIDATE = {k: _RUN[k] for k in ("--set", "-s", "--json", "--allow-python")}

# command -> (its options, whether it takes FILE)
_COMMANDS: dict[str, tuple[dict[str, tuple[str, str, Callable[[str], Any] | None]], bool]] = {
    "run": (_RUN, True),
    "validate": (_VALIDATE, True),
    "schema": ({}, False),
    "version": ({}, False),
}


class Call:
    """A command of :mod:`bufferlab.cli.run` and its keyword arguments, as typer passes them."""

    __slots__ = ("command", "kwargs")

    def __init__(self, command: str, kwargs: dict[str, Any]) -> None:
        self.command = command
        self.kwargs = kwargs

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Call) and (self.command, self.kwargs) == (
            other.command,
            other.kwargs,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dict it holds

    def __repr__(self) -> str:
        return f"Call({self.command!r}, {self.kwargs!r})"


def parse(args: list[str]) -> Call | None:
    """The call for ``args`` (the words after ``bufferlab``), or ``None``: typer's to answer."""
    if not args or args[0] not in _COMMANDS or os.environ.get("_BUFFERLAB_COMPLETE"):
        return None
    options, takes_file = _COMMANDS[args[0]]
    kwargs: dict[str, Any] = {}
    files: list[str] = []
    words = iter(args[1:])
    for word in words:
        if not word.startswith("-") or word == "-":
            if word in ("", "-"):
                return None
            files.append(word)
            continue
        name, eq, inline = word.partition("=") if word.startswith("--") else (word, "", "")
        spec = options.get(name)
        if spec is None:  # --help, --, an unknown option, -sVALUE
            return None
        key, kind, convert = spec
        if kind == FLAG:
            if eq:
                return None  # typer: "does not take a value"
            kwargs[key] = True
            continue
        text = inline if eq else next(words, None)
        if not text or text.startswith("-"):
            return None  # a missing value, or one typer may read otherwise
        assert convert is not None
        value = convert(text)
        if value is None:
            return None
        if kind == MANY:
            kwargs.setdefault(key, []).append(value)
        elif key in kwargs:
            return None  # given twice
        else:
            kwargs[key] = value
    if takes_file:
        if not files:
            return None
        from bufferlab.cli.run import is_script  # imported for the call anyway

        file, rest = files[0], files[1:]
        if is_script(file):
            if args[0] != "run":
                return None
            # An ns-2 script: the words after it are its argv. run() refuses the scenario
            # options for it, on either path.
            kwargs["script_args"] = rest
        elif rest:
            return None  # extra arguments: typer's error
        kwargs["file"] = file if is_script(file) else _path(file)
    elif files:
        return None
    return Call(args[0], kwargs)


def is_script_run(c: Call) -> bool:
    """Whether the call runs an ns-2 script (`run SCRIPT.tcl ...`)."""
    from bufferlab.cli.run import is_script

    return c.command == "run" and is_script(c.kwargs["file"])


def exit_after(c: Call) -> None:
    """Runs an ns-2 script's call and ends the process with its exit code, without Python's
    teardown (every module, the Tcl interpreter and the engine freed one object at a time, a
    last collection: an eighth of a suite test's time, docs/performance.md). Nothing is left to
    write by then: the script's Tcl channels were flushed and closed when it ended
    (``Interp.source``), its output goes through them, and stdout and stderr are flushed here.
    """
    try:
        code = call(c)
    except SystemExit as e:  # the script's `exit N` with N != 0, or an error's exit 2
        if not isinstance(e.code, int):
            raise
        code = e.code
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # its reader has gone (`| head`): exit 1, as call() does
            code = code or 1
    os._exit(code)


def call(c: Call) -> int:
    """Runs the command; its exit code (its errors end it with theirs, as under typer)."""
    import bufferlab.cli.run as run

    try:
        getattr(run, c.command)(**c.kwargs)
    except KeyboardInterrupt:  # outside the command's error boundary: what typer does
        return 130
    except BrokenPipeError:  # stdout closed early (`| head`): exit 1 quietly, as typer does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return 0
