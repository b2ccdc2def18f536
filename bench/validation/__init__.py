"""Ensemble comparison of bufferlab with ns-2.35 and ns-3.44 (issue #22): `python3 -m
bench.validation` (see __main__.py), the networks in networks.py, the runs in ensemble.py, the
statistics and the generated table of docs/validation.md in stats.py."""
