"""write_atomically: whole files or none, refusals that leave the target as it was, permissions, symlinks, cleanup
on exceptions, full disks and SIGTERM, and stale temporaries."""

from __future__ import annotations

import errno
import os
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from graphgear.engine.trace import Trace
from graphgear.errors import FileError
from graphgear.graph.io import output
from graphgear.graph.io.output import check_writable, clean_stale, write_atomically


def content(data: bytes):
    return lambda f: f.write(data)


def temporaries(folder: Path) -> list[str]:
    """graphgear's temporary files in `folder`."""
    return sorted(name for name in os.listdir(folder) if ".graphgear-" in name and name.endswith(".tmp"))


def temporary_name(name: str, pid: int, host: str | None = None) -> str:
    return f".{name}.graphgear-{host or output._hostname()}-{pid}-0123abcd.tmp"


def dead_pid() -> int:
    """The pid of a process that has ended."""
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                           check=True)
    return int(child.stdout)


@pytest.fixture
def umask():
    """Set the umask for one test and restore it after."""
    saved = os.umask(0o022)
    yield os.umask
    os.umask(saved)


# ----------------------------------------------------------------------------------------------------- whole files


def test_new_file_written_whole(tmp_path):
    target = tmp_path / "out.el"
    write_atomically(target, content(b"0 1\n"))
    assert target.read_bytes() == b"0 1\n"
    assert temporaries(tmp_path) == []
    assert not output._live


def test_existing_file_replaced(tmp_path):
    target = tmp_path / "out.el"
    target.write_bytes(b"old content that is longer\n")
    write_atomically(str(target), content(b"new\n"))
    assert target.read_bytes() == b"new\n"
    assert temporaries(tmp_path) == []


def test_temporary_is_hidden_in_the_target_folder_with_mode_0600(tmp_path):
    seen = {}

    def write(f):
        f.write(b"x")
        [name] = temporaries(tmp_path)
        seen["name"] = name
        seen["mode"] = stat.S_IMODE(os.stat(tmp_path / name).st_mode)

    write_atomically(tmp_path / "out.el", write)
    assert seen["name"].startswith(f".out.el.graphgear-{output._hostname()}-{os.getpid()}-")
    assert seen["mode"] == 0o600


def test_writer_that_closes_its_file(tmp_path):
    def write(f):
        f.write(b"closed early")
        f.close()

    write_atomically(tmp_path / "out.txt", write)
    assert (tmp_path / "out.txt").read_bytes() == b"closed early"


def test_long_name_fits(tmp_path):
    target = tmp_path / ("g" * 250)
    write_atomically(target, content(b"long"))
    assert target.read_bytes() == b"long"
    assert temporaries(tmp_path) == []


# ------------------------------------------------------------------------------------------------------- refusals


def assert_refused(path, kind: str, folder: Path) -> FileError:
    with pytest.raises(FileError) as info:
        write_atomically(path, content(b"must not appear"))
    assert str(path) in str(info.value) and kind in str(info.value)
    assert info.value.path == str(path)
    assert temporaries(folder) == []
    with pytest.raises(FileError):
        check_writable(path)
    return info.value


def test_refuses_folder(tmp_path):
    folder = tmp_path / "out.el"
    folder.mkdir()
    assert_refused(folder, "is a folder", tmp_path)
    assert folder.is_dir() and list(folder.iterdir()) == []


def test_refuses_fifo(tmp_path):
    fifo = tmp_path / "pipe.el"
    os.mkfifo(fifo)
    assert_refused(fifo, "FIFO", tmp_path)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_refuses_device():
    before = os.stat("/dev/null")
    assert_refused("/dev/null", "character device", Path("/dev"))
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


def test_refuses_socket(tmp_path):
    path = tmp_path / "s.el"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.bind(str(path))
        assert_refused(path, "socket", tmp_path)
        assert stat.S_ISSOCK(os.lstat(path).st_mode)


def test_refuses_read_only_file(tmp_path):
    target = tmp_path / "out.el"
    target.write_bytes(b"keep me\n")
    target.chmod(0o444)  # as root, os.access says yes: the missing write bits decide
    assert_refused(target, "read-only", tmp_path)
    assert target.read_bytes() == b"keep me\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o444


def test_refuses_missing_folder(tmp_path):
    target = tmp_path / "missing" / "out.el"
    assert_refused(target, "does not exist", tmp_path)
    assert not target.parent.exists()


def test_refuses_file_as_folder(tmp_path):
    (tmp_path / "file").write_bytes(b"x")
    assert_refused(tmp_path / "file" / "out.el", "not a folder", tmp_path)
    assert (tmp_path / "file").read_bytes() == b"x"


def test_refuses_unwritable_folder(tmp_path, monkeypatch):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    real_access = os.access
    if os.geteuid() == 0:  # root may write any folder: answer as access(2) does for an ordinary user
        monkeypatch.setattr(os, "access", lambda p, m: False if os.fspath(p) == str(folder) and m & os.W_OK
                            else real_access(p, m))
    try:
        assert_refused(folder / "out.el", "cannot be written", folder)
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o755)


def test_refuses_empty_name_and_trailing_slash(tmp_path):
    with pytest.raises(FileError, match="empty"):
        write_atomically("", content(b"x"))
    with pytest.raises(FileError, match="names a folder"):
        write_atomically(f"{tmp_path}/new/", content(b"x"))
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------------------------------- permissions


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600), (0o002, 0o664)])
def test_new_file_mode_follows_umask(tmp_path, umask, mask, mode):
    umask(mask)
    assert output._umask() == mask
    assert os.umask(mask) == mask  # reading it did not change it
    write_atomically(tmp_path / "out.el", content(b"x"))
    assert stat.S_IMODE((tmp_path / "out.el").stat().st_mode) == mode


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o604, 0o755, 0o200])
def test_replaced_file_keeps_its_mode(tmp_path, umask, mode):
    umask(0o077)
    target = tmp_path / "out.el"
    target.write_bytes(b"old")
    target.chmod(mode)
    write_atomically(target, content(b"new"))
    assert stat.S_IMODE(target.stat().st_mode) == mode
    target.chmod(0o600)
    assert target.read_bytes() == b"new"


# -------------------------------------------------------------------------------------------------------- symlinks


def test_symlink_to_file_replaces_the_target_and_stays_a_link(tmp_path):
    real = tmp_path / "data" / "graph.el"
    real.parent.mkdir()
    real.write_bytes(b"old")
    real.chmod(0o640)
    link = tmp_path / "link.el"
    link.symlink_to(Path("data") / "graph.el")
    write_atomically(link, content(b"new"))
    assert link.is_symlink() and os.readlink(link) == os.path.join("data", "graph.el")
    assert real.read_bytes() == b"new" and stat.S_IMODE(real.stat().st_mode) == 0o640
    assert temporaries(tmp_path) == [] and temporaries(real.parent) == []


def test_dangling_symlink_creates_its_target(tmp_path, umask):
    umask(0o022)
    link = tmp_path / "link.el"
    link.symlink_to(tmp_path / "made.el")
    write_atomically(link, content(b"made"))
    assert link.is_symlink() and (tmp_path / "made.el").read_bytes() == b"made"
    assert stat.S_IMODE((tmp_path / "made.el").stat().st_mode) == 0o644


def test_chain_of_symlinks_followed_to_the_end(tmp_path):
    (tmp_path / "real.el").write_bytes(b"old")
    (tmp_path / "b.el").symlink_to("real.el")
    (tmp_path / "a.el").symlink_to("b.el")
    write_atomically(tmp_path / "a.el", content(b"new"))
    assert (tmp_path / "a.el").is_symlink() and (tmp_path / "b.el").is_symlink()
    assert (tmp_path / "real.el").read_bytes() == b"new"


def test_symlink_to_folder_refused(tmp_path):
    (tmp_path / "dir").mkdir()
    link = tmp_path / "link.el"
    link.symlink_to("dir")
    error = assert_refused(link, "is a folder", tmp_path)
    assert "links to" in str(error) and link.is_symlink()


def test_symlink_to_device_refused(tmp_path):
    link = tmp_path / "null.el"
    link.symlink_to("/dev/null")
    assert_refused(link, "character device", tmp_path)
    assert os.readlink(link) == "/dev/null"


def test_symlink_to_read_only_file_refused(tmp_path):
    (tmp_path / "real.el").write_bytes(b"keep")
    (tmp_path / "real.el").chmod(0o444)
    (tmp_path / "link.el").symlink_to("real.el")
    assert_refused(tmp_path / "link.el", "read-only", tmp_path)
    assert (tmp_path / "real.el").read_bytes() == b"keep"


def test_dangling_symlink_into_missing_folder_refused(tmp_path):
    (tmp_path / "link.el").symlink_to(tmp_path / "missing" / "made.el")
    assert_refused(tmp_path / "link.el", "does not exist", tmp_path)
    assert not (tmp_path / "missing").exists()


def test_symlink_loop_refused(tmp_path):
    (tmp_path / "loop.el").symlink_to("loop.el")
    assert_refused(tmp_path / "loop.el", "symlink loop", tmp_path)


# -------------------------------------------------------------------------------------------------------- failures


@pytest.mark.parametrize("exception", [ValueError("bad value"), KeyboardInterrupt(), RuntimeError("late")])
def test_exception_in_write_leaves_nothing(tmp_path, exception):
    def write(f):
        f.write(b"partial" * 1000)
        raise exception

    with pytest.raises(type(exception)):
        write_atomically(tmp_path / "new.el", write)
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "old.el").write_bytes(b"old")
    with pytest.raises(type(exception)):
        write_atomically(tmp_path / "old.el", write)
    assert (tmp_path / "old.el").read_bytes() == b"old"
    assert temporaries(tmp_path) == [] and not output._live


def test_disk_full_is_a_file_error(tmp_path):
    (tmp_path / "out.el").write_bytes(b"old")

    def write(f):
        f.write(b"some")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(FileError, match="No space left") as info:
        write_atomically(tmp_path / "out.el", write, what="graph")
    assert str(tmp_path / "out.el") in str(info.value) and "graph" in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert (tmp_path / "out.el").read_bytes() == b"old" and temporaries(tmp_path) == []


def test_io_error_without_message_names_the_reason(tmp_path):
    def write(f):
        raise OSError(errno.EIO, None)

    with pytest.raises(FileError, match=os.strerror(errno.EIO)):
        write_atomically(tmp_path / "out.el", write)
    assert list(tmp_path.iterdir()) == []


def test_file_error_from_write_kept(tmp_path):
    def write(f):
        raise FileError("elsewhere", "went wrong")

    with pytest.raises(FileError, match="^elsewhere: went wrong$"):
        write_atomically(tmp_path / "out.el", write)
    assert list(tmp_path.iterdir()) == []


def test_sigterm_handler_restored(tmp_path):
    def mine(signum, frame):  # pragma: no cover - never called
        pass

    previous = signal.signal(signal.SIGTERM, mine)
    try:
        write_atomically(tmp_path / "a.el", content(b"x"))
        assert signal.getsignal(signal.SIGTERM) is mine
        with pytest.raises(ValueError):
            write_atomically(tmp_path / "b.el", lambda f: (_ for _ in ()).throw(ValueError("x")))
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_write_off_the_main_thread(tmp_path):
    before = signal.getsignal(signal.SIGTERM)
    seen = {}

    def write(f):
        f.write(b"threaded")
        seen["handler"] = signal.getsignal(signal.SIGTERM)
        seen["live"] = set(output._live)

    worker = threading.Thread(target=write_atomically, args=(tmp_path / "t.el", write))
    worker.start()
    worker.join()
    assert (tmp_path / "t.el").read_bytes() == b"threaded"
    assert seen["handler"] is before  # no handler installed from another thread
    assert len(seen["live"]) == 1  # but the temporary was registered for the atexit hook
    assert not output._live


def test_atexit_hook_removes_registered_temporaries(tmp_path):
    leftover = tmp_path / temporary_name("out.el", os.getpid())
    leftover.write_bytes(b"half")
    output._live.add(str(leftover))
    output._remove_live()
    assert not leftover.exists() and not output._live


CHILD = textwrap.dedent("""
    import signal, sys, time
    from graphgear.graph.io.output import write_atomically

    if sys.argv[2] == "raise":
        def handler(signum, frame):
            sys.exit(3)
        signal.signal(signal.SIGTERM, handler)
    elif sys.argv[2] == "ignore":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)

    def write(f):
        f.write(b"first half ")
        f.flush()
        time.sleep(float(sys.argv[3]))
        f.write(b"second half")

    write_atomically(sys.argv[1], write)
    print("written")
""")


def start_child(target: Path, disposition: str, sleep: float) -> subprocess.Popen:
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(target), disposition, str(sleep)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not temporaries(target.parent):
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "the child never started its write"
        time.sleep(0.02)
    time.sleep(0.1)  # the first half is written and the child sleeps
    child.send_signal(signal.SIGTERM)
    return child


def test_sigterm_during_write_removes_the_temporary_and_still_kills(tmp_path):
    (tmp_path / "out.el").write_bytes(b"old")
    child = start_child(tmp_path / "out.el", "default", 60)
    out, err = child.communicate(timeout=60)
    assert child.returncode == -signal.SIGTERM, err
    assert "written" not in out and "Traceback" not in err
    assert temporaries(tmp_path) == [] and (tmp_path / "out.el").read_bytes() == b"old"


def test_sigterm_with_a_raising_handler_removes_the_temporary(tmp_path):
    child = start_child(tmp_path / "out.el", "raise", 60)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 3, err
    assert list(tmp_path.iterdir()) == []


def test_ignored_sigterm_lets_the_write_finish(tmp_path):
    child = start_child(tmp_path / "out.el", "ignore", 1)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0 and "written" in out, err
    assert (tmp_path / "out.el").read_bytes() == b"first half second half"
    assert temporaries(tmp_path) == []


# --------------------------------------------------------------------------------------------- stale temporaries


def test_stale_temporary_of_a_dead_process_removed_by_the_next_write(tmp_path):
    pid = dead_pid()
    stale = tmp_path / temporary_name("out.el", pid)
    stale.write_bytes(b"half")
    live = tmp_path / temporary_name("out.el", os.getppid())  # a running process (pytest's parent)
    live.write_bytes(b"in progress")
    elsewhere = tmp_path / temporary_name("out.el", pid, host="another-host")
    elsewhere.write_bytes(b"someone else's")
    other_name = tmp_path / temporary_name("other.el", pid)
    other_name.write_bytes(b"half")
    write_atomically(tmp_path / "out.el", content(b"new"))
    assert not stale.exists()
    assert live.exists() and elsewhere.exists() and other_name.exists()  # alive, not ours to judge, another target
    assert (tmp_path / "out.el").read_bytes() == b"new"


def test_clean_stale_counts_and_ages(tmp_path):
    pid = dead_pid()
    (tmp_path / temporary_name("a.el", pid)).write_bytes(b"")
    (tmp_path / temporary_name("b.el", pid)).write_bytes(b"")
    young = tmp_path / temporary_name("c.el", os.getppid())
    young.write_bytes(b"")
    old = tmp_path / temporary_name("d.el", os.getppid(), host="another-host")
    old.write_bytes(b"")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    unrelated = tmp_path / ".notes.tmp"
    unrelated.write_bytes(b"")
    assert clean_stale(tmp_path) == 2
    assert clean_stale(tmp_path, older_than=3600) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([young.name, unrelated.name])
    assert clean_stale(tmp_path / "missing") == 0


def test_clean_stale_keeps_this_process_writes(tmp_path):
    def write(f):
        f.write(b"x")
        assert clean_stale(tmp_path, older_than=-1) == 0  # even "older than nothing" keeps a write in progress

    write_atomically(tmp_path / "out.el", write)
    assert (tmp_path / "out.el").read_bytes() == b"x"


# ------------------------------------------------------------------------------------------------ writers wired


def test_trace_to_json_writes_atomically(tmp_path):
    trace = Trace(algorithm="bfs", backend="cpu", controller="static")
    text = trace.to_json(tmp_path / "t.json")
    assert (tmp_path / "t.json").read_text() == text + "\n"
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(FileError, match="is a folder"):
        trace.to_json(tmp_path / "dir.json")
    assert temporaries(tmp_path) == []
