"""Studies: the seed papers reproduced and compared with their published numbers.

A study is a folder ``studies/NAME/`` with

* ``study.toml`` - what to run and how to tabulate it (format below);
* the scenario file(s) it names (``scenario.toml`` ...);
* ``published.json`` - the paper's tables as data (table and figure ids, units in the keys);
* ``peers.json`` (optional) - the same tables as the ns-2 / ns-3 peers recorded them;
* ``README.md`` - the assumptions: what the paper leaves open and what was chosen;
* ``discussion.md`` (optional) - hand-written discussion appended to docs/studies/NAME.md.

``bufferlab study run NAME|all [--quick|--tiny] [--out DIR]`` runs every experiment of the study
(grid points x replications, threads: the core releases the GIL), prints the paper's tables with
the published numbers side by side, draws the figures into ``DIR`` and writes
``docs/studies/NAME.md`` (tables, figures, the checks of each of the paper's conclusions).

study.toml::

    [study]
    title = "..."; paper = "000_....txt"; summary = "..."
    tolerance = 0.10          # relative spread accepted before a cell is flagged (see docs)

    [[experiment]]
    name = "main"
    scenario = "scenario.toml"
    replications = 5
    set = { "links.bottleneck.delay" = "20ms" }             # fixed overrides
    [experiment.params]                                      # the grid (cartesian product)
    loss = { values = [0.01, 0.05], set = "links.bottleneck.loss.rate" }
    buffer_kb = { values = [5, 10], set = { "links.bottleneck.queue.limit" = "{}KB" } }
    bw = [ { label = "0.05MB", "links.bottleneck.rate" = "0.4Mbps" }, ... ]
    [experiment.quick]                                       # --quick (and [experiment.tiny])
    replications = 2
    duration = "30s"
    params = { buffer_kb = [5, 10] }                         # a subset of the labels

    [metrics]                                 # per run, expressions (not Python: see below)
    tcp_thr_kbps = "mean(flows('tcp*', 'throughput_bps')) / 1e3"
    sent = { expr = "flow(F, 'tx_packets')", each = { S1 = "tcp0", S2 = "tcp1" }, dim = "source" }

    [[table]]   id = "Table 3"; experiment = "main"; where = { loss = 0.01 }
                rows = ["bw", "buffer_kb"]; columns = ["tcp_thr_kbps"]; published = "table3"
    [[figure]]  id = "Figure 3"; kind = "line" | "bars" | "queue" | "cwnd" | "flow_series"; ...
                ylim = [lo, hi]   # optional: a line figure of positive values starts at 0
                logx = true; logy = true          # optional: logarithmic axes (line figures)
    [[claim]]   text = "..."; check = "m('tcp_thr_kbps', buffer_kb=10) > m(...)"; evidence = "..."
                peers = ["ns-2"]; peer_table = "table3"   # optional: the check on the peer too
                note = "..."                              # optional: what the verdict rests on

Metric expressions see: ``flows(pattern, field)`` (list over flows whose name matches the glob),
``flow(name, field)``, ``queue(link, field)``, ``link(link, field)``, ``fairness(field)``,
``transfers(pattern, field, min_bytes, max_bytes)`` (the report's ``fct.flows`` by name and size),
``pct(xs, q)`` (nearest-rank quantile), ``P`` (the point's parameter labels), ``R`` (the raw
report), ``F`` (for ``each`` metrics), and ``sum mean std jain min max len sqrt nan``. Fields
may be dotted (``tcp.response_time_mean_s``).

Metrics, claims, plan values (``"= expression"``) and figure models are expressions of a small
language of their own (:mod:`bufferlab.study.expr`), checked when the study is loaded and never
handed to Python's ``eval``: a study folder is data. What the language allows, the names of each
field and the bounds are in ``studies/README.md``, "The expression language".

The package reads one way, each module using only those above it: ``expr`` (the expression
language), ``spec`` (the study file, its names and expressions checked), ``metrics`` (per-run
values), ``plan`` (grid points x replications), ``execute`` (runs and their values), then
``tables``, ``figures``, ``claims`` and ``page`` (what is shown). The ``bufferlab study``
commands are in :mod:`bufferlab.cli.study`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bufferlab.study.claims import check_claims
    from bufferlab.study.execute import Outcome, run_study
    from bufferlab.study.figures import draw_figure
    from bufferlab.study.page import save_outcome, write_markdown
    from bufferlab.study.plan import n_runs
    from bufferlab.study.spec import MODES, Study, StudyError, list_studies, load_study, studies_dir
    from bufferlab.study.tables import build_table, markdown_table

# Where each name of the package lives. They load on first use (PEP 562), so that importing one
# module of the package (the CLI reads only ``spec``) does not load them all. The planner is
# ``bufferlab.study.plan.plan``: a lazy name cannot share a submodule's name.
_HOME = {
    "check_claims": "claims",
    "Outcome": "execute",
    "run_study": "execute",
    "draw_figure": "figures",
    "save_outcome": "page",
    "write_markdown": "page",
    "n_runs": "plan",
    "MODES": "spec",
    "Study": "spec",
    "StudyError": "spec",
    "list_studies": "spec",
    "load_study": "spec",
    "studies_dir": "spec",
    "build_table": "tables",
    "markdown_table": "tables",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'bufferlab.study' has no attribute {name!r}")
    return getattr(importlib.import_module(f"bufferlab.study.{home}"), name)


__all__ = [
    "MODES",
    "Outcome",
    "Study",
    "StudyError",
    "build_table",
    "check_claims",
    "draw_figure",
    "list_studies",
    "load_study",
    "markdown_table",
    "n_runs",
    "run_study",
    "save_outcome",
    "studies_dir",
    "write_markdown",
]
