"""What can go wrong running an ns-2 script, as the command line answers it."""

from __future__ import annotations


class Ns2Error(Exception):
    """The script uses something bufferlab does not model, or uses it wrongly (exit code 2).

    The message says what and what to do; ``where`` (``file:line``) and ``command`` (the Tcl
    command) are filled in from the interpreter's frames when the error reaches the script.
    """

    def __init__(self, message: str, where: str | None = None, command: str | None = None):
        super().__init__(message)
        self.message = message
        self.where = where
        self.command = command

    def __str__(self) -> str:
        parts = [p for p in (self.where, f"`{self.command}`" if self.command else None) if p]
        return ": ".join([*parts, self.message])


class ScriptExit(Exception):
    """The script called ``exit``: the interpreter stops and the command returns ``code``."""

    def __init__(self, code: int):
        super().__init__(f"exit {code}")
        self.code = code


class TclScriptError(Exception):
    """A Tcl error of the script's own making (a method its class lacks, a variable never
    set), raised as Tcl raises it: `catch` sees it, and uncaught it stops the script."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class EvalInCaller(Exception):  # a control-flow signal, not an error
    """Tells ::ns2::dispatch to evaluate a Tcl command in the caller's frame."""

    def __init__(self, script: str):
        super().__init__(script)
        self.script = script
