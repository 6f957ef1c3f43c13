"""Studies built on many shots: hit maps, design comparisons, calibration, statistics."""
