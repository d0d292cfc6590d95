"""When and how it runs: Prefect flows, the gpucost CLI, the report."""
