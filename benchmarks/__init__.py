"""Benchmarks (outside the test suite): `make bench` or `python -m benchmarks.bench`."""
