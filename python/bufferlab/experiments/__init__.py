"""Experiments: parameter sweeps with replications, the results store, statistics, figures,
the HTML report and the buffer-size advisor.

The modules read one way, each using only those before it (docs/architecture.md):

``metrics`` (metric names) -> ``spec`` (the sweep file and its runs) -> ``store`` (the DuckDB
results database) -> ``execute`` (running a sweep into the store) -> ``stats`` (aggregation with
confidence intervals) -> ``figures`` -> ``report`` -> ``advise``.

The ``bufferlab sweep/results/plot/report/advise`` commands (:mod:`bufferlab.cli.experiments`)
call these modules; nothing here imports the CLI.
"""
