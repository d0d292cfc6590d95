"""The optional cluster mode (`pip install gpucost[cluster]`): object storage as the shared
store, a shared raw layer in Iceberg tables, Prefect work pools of fetchers and one publisher.

The embedded default (one machine, `make refresh`) never imports this package. See
docs/operations.md, "Cluster mode".
"""
