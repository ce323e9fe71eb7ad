"""Output files written whole or not at all: a path is checked before any work is done for it,
and written through a temporary file beside it, renamed into place once complete (an error or
Ctrl-C halfway leaves the file that was there, or none)."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from typing import IO, Any, Union

PathLike = Union[str, "os.PathLike[str]"]


def _probe(directory: str, shown: str) -> None:
    """Creates and removes a file in ``directory``: what writing there needs, asked of the
    system itself (permissions alone miss read-only mounts and ``/proc``)."""
    try:
        f, name = _create_temp(os.path.join(directory, ".probe"))
    except OSError as e:
        why = e.strerror or e
        raise ValueError(
            f"cannot write {shown}: no new file can be made in {directory} ({why})"
        ) from None
    f.close()
    os.unlink(name)


def check_output(
    path: PathLike, *, replace: bool = True, hint: str = "", make_dirs: bool = False
) -> str:
    """``path`` as a str, if a file can be written there: its directory exists and takes new
    files (``make_dirs``: or can be made, as :func:`check_output_dir` checks), and ``path`` is
    no directory or other non-regular file. With ``replace=False`` an existing file is refused
    too (``hint`` follows the message: how to ask for it).

    :raises ValueError: naming the path and what is wrong.
    """
    p = os.fspath(path)
    if not isinstance(p, str) or not p:
        raise ValueError(f"{p!r}: expected a file name")
    if os.path.isdir(p):
        raise ValueError(f"{p}: a directory, not a file")
    if os.path.lexists(p):
        if not os.path.isfile(p):
            raise ValueError(f"{p}: not a regular file")
        if not replace:
            raise ValueError(f"{p} exists{hint}")
    _check_directory(_target(p), p, make_dirs)
    return p


def _check_directory(p: str, shown: str, make_dirs: bool = False) -> None:
    """The directory ``p`` would be written in exists, is one, and takes new files."""
    parent = os.path.dirname(p) or "."
    if make_dirs and not os.path.lexists(parent):
        check_output_dir(parent)
        return
    if not os.path.isdir(parent):
        what = "is not a directory" if os.path.lexists(parent) else "does not exist"
        raise ValueError(f"cannot write {shown}: {parent} {what}")
    _probe(parent, shown)


def check_output_dir(path: PathLike, *, writes: Iterable[str] = (), hint: str = "") -> str:
    """``path`` as a str, if files can be written in it: it is a directory, or the nearest of
    its ancestors that exists is one (it will be made), and it takes new files. A directory
    that already holds a file named in ``writes`` (globs) is refused (``hint`` follows the
    message), so that a run never replaces another's files unasked.

    :raises ValueError: naming the path and what is wrong.
    """
    import glob

    p = os.fspath(path)
    if not isinstance(p, str) or not p:
        raise ValueError(f"{p!r}: expected a directory name")
    if os.path.lexists(p) and not os.path.isdir(p):
        raise ValueError(f"{p}: a file, not a directory")
    if os.path.isdir(p):
        held = sorted({os.path.basename(f) for w in writes for f in glob.glob(os.path.join(p, w))})
        if held:
            shown = ", ".join(held[:4]) + (", ..." if len(held) > 4 else "")
            raise ValueError(f"{p} already holds {shown}{hint}")
        _probe(p, p)
        return p
    ancestor = os.path.dirname(os.path.abspath(p))
    while not os.path.lexists(ancestor):
        ancestor = os.path.dirname(ancestor)
    if not os.path.isdir(ancestor):
        raise ValueError(f"cannot make {p}: {ancestor} is not a directory")
    _probe(ancestor, p)
    return p


def _create_temp(path: str, binary: bool = False) -> tuple[IO[Any], str]:
    """A new file beside ``path`` (hidden, with a random name), open for writing; made with the
    permissions a new file gets (the umask applies)."""
    directory, base = os.path.split(path)
    for _ in range(100):
        name = os.path.join(directory, f".{base}.{secrets.token_hex(4)}.part")
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        return os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else "utf-8"), name
    raise FileExistsError(f"no free temporary name beside {path}")


def _target(path: PathLike) -> str:
    """What writing ``path`` replaces: the file a link points to (the link stays)."""
    p = os.fspath(path)
    return os.path.realpath(p) if os.path.islink(p) else p


def named(error: OSError, path: str, temp: str) -> OSError:
    """``error`` of writing ``temp`` (or of no file) as an error of ``path``: the file the user
    named, not the temporary file the system reported."""
    if error.errno is None or error.filename not in (None, temp):
        return error
    return type(error)(error.errno, error.strerror, path)


class Output:
    """A file written through a temporary file beside it: :meth:`commit` renames it into place
    (keeping the permissions of the file it replaces), :meth:`discard` removes it."""

    def __init__(self, path: PathLike, *, binary: bool = False) -> None:
        self.path = _target(path)
        self.file, self.temp = _create_temp(self.path, binary)

    def commit(self) -> None:
        """Renames the temporary file into place; if that fails (or the last write before it),
        removes it and raises ``OSError`` naming :attr:`path`."""
        try:
            self.file.close()
            with contextlib.suppress(OSError):
                os.chmod(self.temp, stat.S_IMODE(os.stat(self.path).st_mode))
            os.replace(self.temp, self.path)
        except OSError as e:
            self.discard()
            raise named(e, self.path, self.temp) from None
        except BaseException:
            self.discard()
            raise

    def discard(self) -> None:
        with contextlib.suppress(OSError):  # a close that flushes a failed write fails again
            self.file.close()
        with contextlib.suppress(OSError):
            os.unlink(self.temp)


@contextlib.contextmanager
def replacing(path: PathLike, *, binary: bool = False) -> Iterator[IO[Any]]:
    """``with replacing(path) as f: f.write(...)``: ``path`` holds what was written once the
    block ends, and is untouched if it raises (an ``OSError`` of a write names ``path``)."""
    out = Output(path, binary=binary)
    try:
        yield out.file
    except OSError as e:
        out.discard()
        raise named(e, out.path, out.temp) from None
    except BaseException:
        out.discard()
        raise
    out.commit()


@contextlib.contextmanager
def replacing_path(path: PathLike) -> Iterator[str]:
    """``with replacing_path(path) as temp: writer(temp)``: for writers that take a path (the
    temporary file keeps ``path``'s extension); renamed into place once the block ends."""
    out = Output(path, binary=True)
    out.file.close()
    root, ext = os.path.splitext(out.temp[: -len(".part")])
    temp = f"{root}.part{ext}"
    try:
        os.replace(out.temp, temp)
        out.temp = temp
        yield temp
    except OSError as e:
        out.discard()
        raise named(e, out.path, out.temp) from None
    except BaseException:
        out.discard()
        raise
    out.commit()


def write_text(path: PathLike, text: str) -> None:
    """Writes ``text`` (UTF-8) to ``path`` whole or not at all."""
    with replacing(path) as f:
        f.write(text)


def write_bytes(path: PathLike, data: bytes) -> None:
    """Writes ``data`` to ``path`` whole or not at all."""
    with replacing(path, binary=True) as f:
        f.write(data)
