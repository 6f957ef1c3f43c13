"""The physics: the PyBullet scene, the stand-in shot engine, the knock-out test,
ballistics and the aim solver. It never imports the views, the studies, the command
line or matplotlib (tests/test_repository.py checks it)."""
