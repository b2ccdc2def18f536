"""Typed stub of the native module ``bufferlab._core`` (built from crates/bufferlab-py)."""

__version__: str

class ScenarioError(ValueError):
    """The scenario (file, overrides or values) is invalid; the message names the field."""

class SimulationPanic(RuntimeError):
    """A bug inside the simulator core (a caught panic). Please report it."""

def run(
    text: str,
    source: str = "<string>",
    seed: int | None = None,
    overrides: list[str] | None = None,
) -> str:
    """Run a scenario (TOML text) and return the report as a JSON string.

    The simulation runs with the GIL released. Raises ScenarioError for an invalid scenario
    and SimulationPanic for a bug in the core.
    """

def validate(
    text: str,
    source: str = "<string>",
    overrides: list[str] | None = None,
) -> str:
    """Validate a scenario (TOML text, with overrides) and return it normalised, as JSON."""

def schema() -> str:
    """Return the JSON Schema of the scenario file format, as a JSON string."""
