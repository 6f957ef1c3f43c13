"""Where a study's jobs run and how a run survives: local worker processes that die with
their parent or a Dask cluster, one run at a time per output (its lock), and each
finished space kept as a part so that --resume does the rest."""
