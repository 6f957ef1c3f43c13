"""The physics: the engine-neutral shot core and its engines (Bullet's in
sim/physics/bullet/, MuJoCo's in sim/physics/mujoco/), the knock-out test,
ballistics and the aim solver. It never imports the views, the studies, the command
line or matplotlib (tests/test_repository.py checks it)."""
