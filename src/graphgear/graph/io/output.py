"""Output files that appear whole or not at all, and never replace what they should not.

Every file graphgear writes (graphs, the binary cache, traces, benchmark JSON) goes through `write_atomically`:

1. The content goes to a hidden temporary file in the target's own folder,
   ``.{name}.graphgear-{hostname}-{pid}-{random}.tmp``, created exclusively with mode 0600, flushed and fsync'ed, then
   given its final permissions and renamed onto the target (``os.replace``, atomic within one folder). A reader sees
   the old file or the new one, never a part.
2. Permissions: a new file gets ``0o666 & ~umask`` (the umask is read from ``/proc/self/status`` where there is one,
   so it is never changed, even for a moment); a file that is replaced keeps its permission bits (rwx for user, group,
   others; set-id and sticky bits are not carried onto new content) and, where this process may, its owner and group.
3. Refused before anything is created, with `FileError` naming the path: a target that exists and is not a regular
   file (a folder, a FIFO, a character or block device such as /dev/null, a socket), an existing file that is
   read-only (no write permission for this process, or, since root may write anything, none of its write bits set),
   a folder that does not exist, a folder that cannot be written.
4. Symlinks: a link at the path is followed to its final target (``os.path.realpath``). That target must be a regular
   file or not exist; the temporary file is made in the target's folder and renamed onto the target, so the link
   stays a link and now points at the new content. A dangling link creates its target (whose folder must exist). A
   link loop is refused.
5. The temporary file is removed on every failure: an exception raised by the content writer (KeyboardInterrupt
   too), an OSError while writing (a full disk, an I/O error: raised as `FileError` with the reason), and SIGTERM.
   While a write runs in the main thread under SIGTERM's default disposition, a handler turns SIGTERM into an
   exception so the temporary file is removed; then the default is restored and the signal sent again, so the process
   still dies of SIGTERM. A Python handler installed before is called where the signal arrives, as it would have been
   without graphgear: if it raises (sys.exit), the temporary file is removed on the way out; if it returns, the write
   goes on. An ignored SIGTERM stays ignored. Off the main thread no handler can be installed; an atexit hook removes
   any temporary file still registered when the interpreter exits.

Temporaries left by a process that was killed outright (SIGKILL, power loss) are removed by `clean_stale`: those whose
writer ran on this host and no longer runs, and, when asked, any older than a given age. `write_atomically` runs it on
the target's folder for temporaries of the same target name before it writes.
"""

from __future__ import annotations

import atexit
import os
import re
import secrets
import signal
import socket
import stat
import threading
import time
from pathlib import Path
from typing import Any, BinaryIO, Callable

from ...errors import FileError

__all__ = ["write_atomically", "check_writable", "clean_stale", "describe_mode"]

_NAME_MAX = 255  # bytes in one file name on Linux, macOS and Windows file systems
_TEMPORARY = re.compile(r"^\.(?P<name>.+)\.graphgear-(?P<host>.+)-(?P<pid>\d+)-(?P<random>[0-9a-f]+)\.tmp$", re.DOTALL)
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symlink loop"),
)



def describe_mode(mode: int) -> str:
    """What a file that is not a regular one is, in words ("a FIFO (named pipe)")."""
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return "not a regular file"


_live: set[str] = set()  # temporaries this process is writing now; removed at exit if still there
_live_lock = threading.Lock()


def write_atomically(path: str | os.PathLike[str], write: Callable[[BinaryIO], None], *, what: str = "output") -> None:
    """Write `path` whole or not at all: `write(f)` writes the content to the binary file `f`, which becomes `path`
    only once all of it is on disk. `what` names the content in messages ("graph", "trace", "cache entry").

    Raises `FileError` (path and reason) for a target that must not be replaced (see the module docstring) before
    anything is created, and for an OSError while writing; any exception from `write` removes the temporary file and
    propagates unchanged.
    """
    target, mode, owner = _prepare(path, what)
    folder, name = os.path.split(target)
    clean_stale(Path(folder), name=name)
    temporary = os.path.join(folder, _temporary_name(name))
    terminated = _SigtermGuard(temporary)
    with terminated:
        try:
            _write_file(temporary, write, mode, owner)
            os.replace(temporary, target)
        except BaseException as exc:
            _discard(temporary)
            if isinstance(exc, OSError) and not isinstance(exc, FileError):
                raise FileError(path, f"cannot write the {what}: {_reason(exc)}") from None
            raise
        finally:
            _forget(temporary)
    if terminated.fired:  # only under SIG_DFL, where the process was meant to die: the guard sent SIGTERM again
        raise FileError(path, f"the {what} was not written: interrupted by SIGTERM")
    _sync_folder(folder)


def check_writable(path: str | os.PathLike[str], *, what: str = "output") -> Path:
    """Refuse, with `FileError`, a path that `write_atomically` would refuse (rules 3 and 4 of the module docstring);
    return the file that would be written (the symlink's target for a link). Commands call it before long work so a
    bad output name fails at once rather than after the work."""
    return Path(_prepare(path, what)[0])


def clean_stale(folder: Path, *, older_than: float | None = None, name: str | None = None) -> int:
    """Remove graphgear's temporary files in `folder` whose writer is gone: written on this host by a process that no
    longer runs, or, when `older_than` (seconds) is given, older than that whoever wrote them. `name` limits it to
    temporaries of that target name. Returns how many were removed; files it cannot remove are left alone.

    A live writer's temporary is kept (its pid answers ``kill(pid, 0)``, or it is one of this process's own), so
    cleaning never breaks a write in progress; a pid reused by an unrelated process keeps a stale file until the
    `older_than` sweep.
    """
    prefix = None if name is None else "." + _clip_name(name) + ".graphgear-"
    host, now, removed = _hostname(), time.time(), 0
    with _live_lock:
        ours = {os.path.basename(t) for t in _live}  # by name: pid and random part make it unique
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        if not entry.name.endswith(".tmp") or (prefix is not None and not entry.name.startswith(prefix)):
            continue
        match = _TEMPORARY.match(entry.name)
        if match is None or entry.name in ours:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        dead = match["host"] == host and not _running(int(match["pid"]))
        old = older_than is not None and now - st.st_mtime > older_than
        if dead or old:
            try:
                os.unlink(entry.path)
                removed += 1
            except OSError:
                pass
    return removed


# ------------------------------------------------------------------------------------------------ checks (rules 3, 4)


def _prepare(path: str | os.PathLike[str], what: str) -> tuple[str, int, tuple[int, int] | None]:
    """The real target, its final mode and the owner to keep (None: a new file, or already ours); refuses what must
    not be written."""
    given = os.fspath(path)
    if isinstance(given, bytes):
        given = os.fsdecode(given)
    if not given:
        raise FileError(path, f"an empty file name; the {what} was not written")
    if given.endswith(os.sep) or (os.altsep and given.endswith(os.altsep)):
        raise FileError(path, f"names a folder, not a file; the {what} was not written")
    target = os.path.realpath(given)
    linked = os.path.islink(given)
    via = f"links to {target}, which " if linked else ""
    folder = os.path.dirname(target)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        raise FileError(path, f"{via}is in {folder}, which is not a folder; the {what} was not written") from None
    except OSError as exc:
        raise FileError(path, f"cannot write the {what}: {_reason(exc)}") from None
    if st is None:
        try:
            folder_st = os.stat(folder)
        except FileNotFoundError:
            raise FileError(path, f"{via}is in folder {folder}, which does not exist; the {what} was not written") \
                from None
        except OSError as exc:
            raise FileError(path, f"cannot write the {what}: folder {folder}: {_reason(exc)}") from None
        if not stat.S_ISDIR(folder_st.st_mode):
            raise FileError(path, f"{via}is in {folder}, which is not a folder; the {what} was not written")
    else:
        for test, kind in _KINDS:
            if test(st.st_mode):
                raise FileError(path, f"{via}is {kind}, not a regular file; the {what} was not written")
        if not os.access(target, os.W_OK) or not st.st_mode & 0o222:
            raise FileError(path, f"{via}is read-only; the {what} was not written")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise FileError(path, f"{via}is in folder {folder}, which cannot be written; the {what} was not written")
    if st is None:
        return target, 0o666 & ~_umask(), None
    ours = (os.geteuid(), os.getegid()) if hasattr(os, "geteuid") else (st.st_uid, st.st_gid)
    owner = None if (st.st_uid, st.st_gid) == ours else (st.st_uid, st.st_gid)
    return target, stat.S_IMODE(st.st_mode) & 0o777, owner


def _umask() -> int:
    """This process's umask, read without changing it where the system tells it (Linux); else a set-and-restore."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# ------------------------------------------------------------------------------------------- the write (rules 1, 2, 5)


def _write_file(temporary: str, write: Callable[[BinaryIO], None], mode: int, owner: tuple[int, int] | None) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_BINARY", 0)
    with _live_lock:
        _live.add(temporary)  # before the file exists: a signal between open and add must not leave it unregistered
    fd = os.open(temporary, flags, 0o600)
    try:
        with os.fdopen(fd, "wb", closefd=False) as f:
            write(f)  # type: ignore[arg-type]  # a BufferedWriter is a BinaryIO
            if not f.closed:  # a writer that closed f has flushed it
                f.flush()
        os.fsync(fd)
        if owner is not None:
            try:
                os.fchown(fd, *owner)  # before fchmod: a chown may clear mode bits
            except (OSError, AttributeError):
                pass  # not ours to give away: the new file belongs to this process's user
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        else:  # pragma: no cover - Windows
            os.chmod(temporary, mode)
    finally:
        os.close(fd)


def _discard(temporary: str) -> None:
    try:
        os.unlink(temporary)
    except OSError:
        pass


def _forget(temporary: str) -> None:
    with _live_lock:
        _live.discard(temporary)


@atexit.register
def _remove_live() -> None:
    """At interpreter exit, remove temporaries still being written (a write in another thread when the main one
    ended)."""
    with _live_lock:
        for temporary in list(_live):
            _discard(temporary)
        _live.clear()


def _sync_folder(folder: str) -> None:
    """fsync the folder so the rename itself survives a crash; best effort (some systems cannot open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _reason(exc: OSError) -> str:
    if exc.strerror:
        return exc.strerror
    if exc.errno:
        return os.strerror(exc.errno)
    return str(exc) or type(exc).__name__


class _Terminated(BaseException):
    """SIGTERM arrived during a write under the default disposition: unwinds the write so its cleanup runs."""


class _SigtermGuard:
    """SIGTERM during one write (rule 5). In the main thread under SIG_DFL, SIGTERM raises _Terminated so the write
    unwinds; on exit the temporary file is removed, the default restored and the signal sent again. A Python handler
    set before is called in place. SIG_IGN, a handler not set from Python, another thread: nothing is installed."""

    def __init__(self, temporary: str) -> None:
        self.temporary = temporary
        self.previous: Any = None
        self.installed = False
        self.fired = False

    def __enter__(self) -> _SigtermGuard:
        if threading.current_thread() is not threading.main_thread():
            return self
        previous = signal.getsignal(signal.SIGTERM)
        if previous is None or previous == signal.SIG_IGN:
            return self
        try:
            signal.signal(signal.SIGTERM, self._handle)
        except ValueError:  # not the main interpreter
            return self
        self.previous, self.installed = previous, True
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        if callable(self.previous):
            self.previous(signum, frame)  # what the program would have done; if it raises, the write unwinds
            return
        if not self.fired:  # SIG_DFL: unwind once; a second SIGTERM during the cleanup only waits for the first
            self.fired = True
            raise _Terminated

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> bool:
        if not self.installed:
            return False
        signal.signal(signal.SIGTERM, self.previous)
        if self.fired:
            _discard(self.temporary)  # already gone unless the signal came inside the cleanup itself
            os.kill(os.getpid(), signal.SIGTERM)  # SIG_DFL again: the process dies of SIGTERM, as it would have
            return isinstance(exc, _Terminated)  # still here (SIGTERM blocked): write_atomically reports it
        return False


# ----------------------------------------------------------------------------------------------- temporary names


def _hostname() -> str:
    return re.sub(r"[^A-Za-z0-9.-]", "_", socket.gethostname()) or "localhost"


def _temporary_name(name: str) -> str:
    return f".{_clip_name(name)}.graphgear-{_hostname()}-{os.getpid()}-{secrets.token_hex(4)}.tmp"


def _clip_name(name: str) -> str:
    """The target name as it appears in its temporaries: shortened so the temporary's name fits in NAME_MAX bytes."""
    room = _NAME_MAX - len(f"..graphgear-{_hostname()}-{os.getpid()}-00000000.tmp".encode()) - 8  # 8: a longer pid
    while len(os.fsencode(name)) > room:  # by characters, so a multi-byte one is never cut
        name = name[:-1]
    return name


def _running(pid: int) -> bool:
    """Whether a process with this pid runs on this host (one of another user counts)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OverflowError, OSError):
        return False
    return True

