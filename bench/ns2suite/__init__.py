"""ns-2.35's own validation suites (../shared/ns2-testsuite) under ns-2 and bufferlab: which
tests give ns-2's `temp.rands` byte for byte (issue #35). `python -m bench.ns2suite --help`;
harness.py runs and classifies one test, table.py renders docs/ns2-suites.json into
docs/ns2-scripts.md."""
