"""Collision geometry and mass properties of a designer's own mesh.

A convex mesh is one part (its hull). A mesh of separate shells that are each
convex (a piggy drawn as a box on four legs) is those shells, exactly and at once.
Any other is split into convex parts by CoACD (docs/physics.md says why CoACD and
not PyBullet's V-HACD), with a fixed seed, in a child process under a cap on its
CPU time (not wall time: a busy machine slows it, it does not refuse it), at most
the part cap of them. The parts are cached in the user cache folder under the
mesh's sha256 and the settings; a cached file is used only when the sha256 and
settings written inside it, and the checksum of its parts, match (its name is
never trusted), and its parts are whole convex solids (a file edited and
checksummed again is measured again); a cache folder that cannot be made is
refused on one line.

Mass properties come from the closed mesh itself (a solid of uniform density), not
from the parts, whose hulls bridge the mesh's hollows.
"""

from __future__ import annotations

import hashlib
import math
import resource
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import trimesh

from models.errors import InputError
from models.files import make_folder, read_text, write_text_atomic
from models.hulls import simplified_hull
from models.mesh_files import MESH_MODEL_VERSION, MeshFile
from models.meshes import MassProperties, obj_text, parse_obj

#: CPU seconds one decomposition may use before it is refused (the kernel counts them,
#: so the cap is the same on an idle machine and a busy one).
DECOMPOSE_CPU_CAP_S = 120.0
#: Wall seconds after which a decomposition is given up as hung, however little CPU
#: it used: far beyond what the CPU cap allows even on a machine at load 30.
DECOMPOSE_HUNG_AFTER_S = 3600.0
#: The largest cached parts file read (a mesh's parts, far below).
MAX_CACHE_BYTES = 64 * 2**20
#: A mesh whose hull is bigger than it by no more than this share is convex.
CONVEX_TOLERANCE = 1e-4

#: Run first in the child: the kernel ends it (SIGXCPU, then SIGKILL a second later)
#: once it has used ``sys.argv[5]`` CPU seconds, whatever else runs on the machine.
_CPU_LIMIT = """
import resource, sys
_cap = int(sys.argv[5])
_hard = _cap + 1
_, _user = resource.getrlimit(resource.RLIMIT_CPU)  # a user's lower limit is kept
if _user != resource.RLIM_INFINITY:
    _cap, _hard = min(_cap, _user), min(_hard, _user)
resource.setrlimit(resource.RLIMIT_CPU, (_cap, _hard))
"""

#: The child process: CoACD on the mesh in ``mesh.npz``, its parts to ``parts.npz``.
_COACD_SCRIPT = """
import sys, numpy, coacd
coacd.set_log_level("error")
mesh = numpy.load(sys.argv[1])
parts = coacd.run_coacd(
    coacd.Mesh(mesh["vertices"], mesh["faces"]),
    threshold=float(sys.argv[3]), max_convex_hull=int(sys.argv[4]), seed=0,
)
numpy.savez(sys.argv[2], *[vertices for vertices, _ in parts])
"""


@dataclass(frozen=True)
class DecompositionSettings:
    """How a mesh is split: CoACD's concavity ``threshold`` (smaller: closer to the
    mesh, more parts) and the most parts made."""

    threshold: float = 0.05
    max_parts: int = 16

    def key(self) -> str:
        # the model's version: cached parts made another way are not used
        return (
            f"format={MESH_MODEL_VERSION} threshold={self.threshold!r} max_parts={self.max_parts}"
        )


def collision_parts(
    mesh_file: MeshFile, settings: DecompositionSettings, cache_dir: Path | None = None
) -> list[trimesh.Trimesh]:
    """The mesh's convex collision parts, mm, in its part's frame.

    Parameters
    ----------
    mesh_file : a checked mesh (:func:`models.mesh_files.read_mesh_file`).
    settings : the decomposition's threshold and part cap.
    cache_dir : where parts are cached (default: the user cache folder).
    """
    mesh = mesh_file.mesh
    hull = mesh.convex_hull
    if hull.volume <= mesh.volume * (1 + CONVEX_TOLERANCE):
        return [simplified_hull(hull.vertices)]
    shells = _convex_shells(mesh, settings.max_parts)
    if shells:
        return [simplified_hull(shell.vertices) for shell in shells]
    folder = cache_dir or _user_cache()
    header = f"# {mesh_file.sha256} {mesh_file.part} {settings.key()}"
    settings_hash = hashlib.sha256(settings.key().encode()).hexdigest()[:8]
    cached = folder / f"{mesh_file.part}-{mesh_file.sha256[:16]}-{settings_hash}.obj"
    parts = _read_cached(cached, header, mesh.bounds)
    if parts is None:
        make_folder(folder, "the mesh cache folder")  # before the work it would keep
        parts = [simplified_hull(p.vertices) for p in _coacd(mesh, settings, mesh_file.path.name)]
        body = obj_text({f"part-{i}": p for i, p in enumerate(parts)})
        digest = hashlib.sha256(body.encode()).hexdigest()
        # one temporary file per process: two workers may decompose the same mesh at once
        write_text_atomic(cached, f"{header}\n# body {digest}\n{body}")
        # as read back from the file, so that a first run and a cached one agree
        parts = [p.convex_hull for p in parse_obj(body).values()]
    return parts


def _convex_shells(mesh: trimesh.Trimesh, max_parts: int) -> list[trimesh.Trimesh] | None:
    """The mesh's separate shells when there are two to ``max_parts`` of them and each
    is convex (their hulls are then the mesh's exact parts); else ``None``."""
    shells = mesh.split(only_watertight=False)
    if not 1 < len(shells) <= max_parts:
        return None
    hulls = [shell.convex_hull for shell in shells]
    convex = all(
        abs(shell.volume) > 0 and hull.volume <= abs(shell.volume) * (1 + CONVEX_TOLERANCE)
        for shell, hull in zip(shells, hulls, strict=True)
    )
    return hulls if convex else None


def _user_cache() -> Path:
    from platformdirs import user_cache_path

    return user_cache_path("go-piggy-go") / "meshes"


def _read_cached(path: Path, header: str, bounds: np.ndarray) -> list[trimesh.Trimesh] | None:
    """The cached parts, when the file is for this mesh (of ``bounds``) and these
    settings, its body is intact and its parts could be this mesh's; else ``None``."""
    try:
        first, second, body = read_text(path, "mesh cache", MAX_CACHE_BYTES).split("\n", 2)
    except (InputError, ValueError):  # not there, not a file, not text, too large
        return None
    if first != header or second != f"# body {hashlib.sha256(body.encode()).hexdigest()}":
        return None
    try:  # a body edited and its checksum made again: parts that may be anything
        with np.errstate(all="ignore"):  # huge or flat ones overflow: refused, quietly
            parts = [p.convex_hull for p in parse_obj(body).values()]
            whole = all(_could_be_a_part(p, bounds) for p in parts)
    except Exception:  # trimesh's and qhull's many kinds: measured again
        return None
    return parts if parts and whole else None


def _could_be_a_part(part: trimesh.Trimesh, bounds: np.ndarray) -> bool:
    """Whether ``part`` could be a collision part of a mesh of ``bounds``: finite, of a
    volume, and near the mesh (within its box grown by its size on every side: a
    convex part of its decomposition hugs the mesh, give or take the simplification)."""
    size = float(np.max(bounds[1] - bounds[0]))
    return bool(
        np.all(np.isfinite(part.vertices))
        and np.all(part.bounds[0] >= bounds[0] - size)
        and np.all(part.bounds[1] <= bounds[1] + size)
        and part.volume > 0
    )


def _coacd(
    mesh: trimesh.Trimesh, settings: DecompositionSettings, name: str
) -> list[trimesh.Trimesh]:
    """CoACD's parts of a mesh, in a child process (it prints to the terminal and
    cannot be stopped from inside) under :data:`DECOMPOSE_CPU_CAP_S` of CPU time."""
    cpu_cap_s = max(1, math.ceil(DECOMPOSE_CPU_CAP_S))  # the kernel counts whole seconds
    with tempfile.TemporaryDirectory() as folder:
        source, out = Path(folder) / "mesh.npz", Path(folder) / "parts.npz"
        np.savez(source, vertices=np.asarray(mesh.vertices), faces=np.asarray(mesh.faces))
        command = [
            sys.executable,
            "-c",
            _CPU_LIMIT + _COACD_SCRIPT,
            str(source),
            str(out),
            repr(settings.threshold),
            str(settings.max_parts),
            str(cpu_cap_s),
        ]
        cpu_before = _children_cpu_s()
        try:
            done = subprocess.run(command, capture_output=True, timeout=DECOMPOSE_HUNG_AFTER_S)
        except subprocess.TimeoutExpired:
            raise InputError(
                f"{name}: its convex decomposition was still running after "
                f"{DECOMPOSE_HUNG_AFTER_S:g} s of wall time, under its CPU cap: given up as "
                f"hung; try again on a less busy machine"
            ) from None
        cpu_used_s = _children_cpu_s() - cpu_before
        if done.returncode != 0:
            raise InputError(_failure(name, done, cpu_used_s, cpu_cap_s)) from None
        with np.load(out) as saved:
            parts = [
                trimesh.convex.convex_hull(saved[key]) for key in sorted(saved.files, key=_index)
            ]
    return [p for p in parts if p.volume > 0]


def _children_cpu_s() -> float:
    """CPU seconds (user and system) used so far by this process's ended children."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _failure(
    name: str, done: subprocess.CompletedProcess[bytes], cpu_used_s: float, cpu_cap_s: int
) -> str:
    """The one line for a decomposition that ended badly: over its CPU cap (ended by
    the kernel, SIGXCPU or SIGKILL, with the cap used up), or failed on its own."""
    ended_by = signal.Signals(-done.returncode) if done.returncode < 0 else None
    if ended_by in (signal.SIGXCPU, signal.SIGKILL) and cpu_used_s >= cpu_cap_s - 0.5:
        return (
            f"{name}: its convex decomposition used {cpu_used_s:.0f} s of CPU, its cap is "
            f"{cpu_cap_s} s: raise 'mesh_threshold' (fewer, coarser parts) or simplify "
            f"the mesh (fewer faces)"
        )
    last = done.stderr.decode(errors="replace").strip().splitlines()[-1:]
    why = last[0] if last else (f"ended by {ended_by.name}" if ended_by else "no message")
    return f"{name}: its convex decomposition failed ({why})"


def _index(key: str) -> int:
    """``arr_12`` -> 12: numpy.savez's names, in the order they were given."""
    return int(key.rsplit("_", 1)[1])


def parts_obj_file(parts: list[np.ndarray], cache_dir: Path | None = None) -> Path:
    """An OBJ of convex parts ((n_i, 3) vertex arrays, mm), which PyBullet loads as a
    compound of their hulls; written once under the sha256 of its text."""
    text = obj_text({f"part-{i}": trimesh.convex.convex_hull(v) for i, v in enumerate(parts)})
    path = (
        (cache_dir or _user_cache()) / "shapes" / f"{hashlib.sha256(text.encode()).hexdigest()}.obj"
    )
    if not path.is_file() or path.read_text() != text:
        make_folder(path.parent, "the mesh cache folder")
        write_text_atomic(path, text)
    return path


def mesh_mass_properties(mesh: trimesh.Trimesh) -> MassProperties:
    """Mass properties of a closed mesh as a solid of unit density: volume (mm^3),
    centre of mass (3,), principal moments (3,), mm^5, and principal axes (3, 3),
    columns, with the signs fixed as :func:`models.meshes.union_mass_properties`
    fixes them."""
    inertia = np.asarray(mesh.moment_inertia, dtype=float) / mesh.density
    moments, axes = np.linalg.eigh(inertia)
    for i in range(3):
        if axes[np.argmax(np.abs(axes[:, i])), i] < 0:
            axes[:, i] *= -1
    if np.linalg.det(axes) < 0:
        axes[:, 2] *= -1
    return MassProperties(
        float(mesh.volume), np.asarray(mesh.center_mass, dtype=float), moments, axes
    )
