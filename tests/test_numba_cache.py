"""Tests of `graphgear._numba_cache`: ``import graphgear`` works where numba would find no writable cache folder (a
read-only install with a read-only home), by pointing numba at a private folder under the temporary directory.

Each case runs Python in a subprocess (numba picks its cache folders at import). They share one temporary directory, so
the kernels the first compiles into the fallback folder are loaded from there by the next.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import graphgear
from graphgear import _numba_cache

PACKAGE = Path(graphgear.__file__).resolve().parent

# Before graphgear is imported: numba's probe of a cache folder (tempfile.TemporaryFile(dir=...)) fails with
# PermissionError under the package folder and under $HOME, as on a read-only install with a read-only home.
DENY_PROBES = textwrap.dedent(
    """
    import importlib.util, os, tempfile
    denied = [os.path.realpath(os.path.dirname(importlib.util.find_spec("graphgear").origin)),
              os.path.realpath(os.environ["HOME"])]
    real = tempfile.TemporaryFile
    def guarded(*args, **kwargs):
        folder = kwargs.get("dir", args[6] if len(args) > 6 else None)
        if folder is not None:
            folder = os.path.realpath(folder)
            if any(folder == d or folder.startswith(d + os.sep) for d in denied):
                raise PermissionError(13, "Permission denied", folder)
        return real(*args, **kwargs)
    tempfile.TemporaryFile = guarded
    """
)

RUN_BFS = textwrap.dedent(
    """
    import os
    import numba
    import graphgear as gg
    result = gg.bfs(gg.load("grid:4:4"), 0)
    assert result.distances.tolist() == [0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6], result.distances
    print("CACHE_DIR=" + numba.config.CACHE_DIR)
    print("ENV=" + os.environ.get("NUMBA_CACHE_DIR", ""))
    """
)


@pytest.fixture(scope="module")
def shared_tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("numba_cache")


def child_env(home: Path, tmpdir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "NUMBA_CACHE_DIR")}
    env.update(HOME=str(home), TMPDIR=str(tmpdir))
    return env


def folders(shared: Path) -> tuple[Path, Path]:
    home, tmpdir = shared / "home", shared / "tmp"
    home.mkdir(exist_ok=True)
    tmpdir.mkdir(exist_ok=True)
    return home, tmpdir


def check_fallback(done: subprocess.CompletedProcess, tmpdir: Path) -> None:
    assert done.returncode == 0, done.stderr[-3000:]
    chosen = re.search(r"^CACHE_DIR=(.*)$", done.stdout, re.M).group(1)
    assert Path(chosen).parent.resolve() == tmpdir.resolve() and Path(chosen).name.startswith("graphgear-numba-")
    assert re.search(r"^ENV=(.*)$", done.stdout, re.M).group(1) == chosen  # for child processes too
    info = os.lstat(chosen)
    assert stat.S_ISDIR(info.st_mode) and not info.st_mode & 0o077
    assert any(Path(chosen).rglob("*.nbi")), "numba cached nothing in the fallback folder"


def test_import_without_a_writable_cache_folder(shared_tmp):
    """numba's probes fail for the package's __pycache__ and the home's cache: graphgear still imports and runs."""
    home, tmpdir = folders(shared_tmp)
    done = subprocess.run([sys.executable, "-c", DENY_PROBES + RUN_BFS], env=child_env(home, tmpdir),
                          capture_output=True, text=True, timeout=600)
    check_fallback(done, tmpdir)


def test_import_without_the_fix_fails(shared_tmp):
    """The same conditions without `ensure_writable_cache` (numba as it is): the import fails. This is what the fix
    is for; if numba ever learns to fall back by itself, this test says so."""
    home, tmpdir = folders(shared_tmp)
    no_fix = (  # the module graphgear/__init__.py imports it from, replaced by one that does nothing
        "import sys, types\nstub = types.ModuleType('graphgear._numba_cache')\n"
        "stub.ensure_writable_cache = lambda: None\nsys.modules['graphgear._numba_cache'] = stub\n"
    )
    done = subprocess.run([sys.executable, "-c", DENY_PROBES + no_fix + RUN_BFS], env=child_env(home, tmpdir),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode != 0 and "no locator available" in done.stderr


def test_writable_install_is_left_alone(shared_tmp):
    """With a writable __pycache__ (this checkout), numba's own choice stands: nothing is set."""
    home, tmpdir = folders(shared_tmp)
    done = subprocess.run([sys.executable, "-c", RUN_BFS], env=child_env(home, tmpdir), capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "CACHE_DIR=\n" in done.stdout and "ENV=\n" in done.stdout


def test_user_setting_wins(shared_tmp):
    home, tmpdir = folders(shared_tmp)
    mine = shared_tmp / "mine"
    env = child_env(home, tmpdir)
    env["NUMBA_CACHE_DIR"] = str(mine)
    done = subprocess.run([sys.executable, "-c", DENY_PROBES + RUN_BFS], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"CACHE_DIR={mine}\n" in done.stdout


def test_untrusted_fallback_folder_is_not_used(tmp_path, monkeypatch):
    """A graphgear-numba-<uid> that is open to others (someone else may have made it) is passed over for a fresh
    private folder: numba loads pickled code from its cache."""
    monkeypatch.setattr(_numba_cache.tempfile, "tempdir", str(tmp_path))
    shared = tmp_path / f"graphgear-numba-{_numba_cache._uid()}"
    shared.mkdir()
    shared.chmod(0o777)
    chosen = Path(_numba_cache.fallback_folder())
    assert chosen != shared and chosen.parent == tmp_path and not chosen.stat().st_mode & 0o077
    shared.chmod(0o700)
    assert Path(_numba_cache.fallback_folder()) == shared
    shared.rmdir()
    (tmp_path / shared.name).symlink_to(chosen)  # a link is not trusted either
    assert Path(_numba_cache.fallback_folder()) != shared


def test_kernel_folders_are_complete():
    """Every module with a cached kernel lies in a folder `ensure_writable_cache` probes."""
    found = {
        os.path.relpath(path.parent, PACKAGE)
        for path in PACKAGE.rglob("*.py")
        if re.search(r"cache\s*=\s*True", path.read_text(encoding="utf-8"))
    }
    found.discard(".")  # _numba_cache.py's own docstring
    assert found <= set(_numba_cache.KERNEL_FOLDERS), f"add {sorted(found - set(_numba_cache.KERNEL_FOLDERS))}"


def _read_only_mounts_work() -> bool:
    if sys.platform != "linux" or shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    probe = "mount --bind / /mnt 2>/dev/null || true; mount -t tmpfs none /tmp && mount -o remount,ro /tmp"
    try:
        done = subprocess.run(["unshare", "-rm", "--propagation", "private", "sh", "-c", probe],
                              capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@pytest.mark.skipif(not _read_only_mounts_work(), reason="no mount namespace with read-only bind mounts here")
def test_import_from_a_read_only_install(shared_tmp):
    """For real: in a private mount namespace (unshare), the package folder and $HOME are bound read-only."""
    home, tmpdir = folders(shared_tmp)
    script = (
        'set -e; for d in "$PKG" "$HOME"; do mount --bind "$d" "$d"; mount -o remount,bind,ro "$d"; done; '
        'if touch "$PKG/graph/__pycache__/probe" 2>/dev/null; then echo "still writable" >&2; exit 3; fi; '
        'exec "$PYTHON" -c "$CODE"'
    )
    env = child_env(home, tmpdir)
    env.update(PKG=str(PACKAGE), PYTHON=sys.executable, CODE=RUN_BFS)
    done = subprocess.run(["unshare", "-rm", "--propagation", "private", "sh", "-c", script], env=env,
                          capture_output=True, text=True, timeout=600)
    check_fallback(done, tmpdir)
