"""The side-by-side bench (`bench/run.py`), one concept per module, in the order they depend on
each other: paths -> cases -> peers -> normalise -> timing -> docs."""
