"""Writing the files of a run: whole or not at all, with one-line errors.

A run writes into a hidden sibling of its target (``.NAME.partial-PID-XXXXXXXX`` in the
same directory, so on the same file system) and moves it into place only when it is
complete; the new files are fsync'd as they are moved.

- :func:`staged_file`: the sibling replaces the target with one ``os.replace``, so the
  target is, at every moment, the old file or the new one, whole.
- :func:`staged_dir`: a target directory that does not exist becomes the sibling with one
  rename. Into one that exists, each entry of the sibling moves with ``os.replace``,
  replacing the entry of the same name; every other entry of the target stays (a run
  never deletes a file it did not write, so ``--out-dir .`` is safe).

The moves run with SIGINT and SIGTERM held (:func:`verity.interrupts.signals_held`): a
signal that arrives during them takes effect once they are done (and
:attr:`verity.interrupts.Stopped.landed` names what was moved). So an interrupted run
leaves the target holding all of the old files or all of the new ones; only a hard kill
(SIGKILL, a power cut) in the microseconds of the moves can leave some of each, every
one whole, and the rest of the new ones in the named sibling. When the block raises
(an error, Ctrl-C, SIGTERM) the sibling is removed and the target is left as it was.

A failed run leaves nothing new either: the folders a staged write creates for its
target (``--out-dir new/run``) are removed again when the block raises
(:func:`new_dirs_undone`, which a command also wraps around a run that writes in
place). :func:`check_file_target` and :func:`check_dir_target` refuse, before the run,
a target that cannot be written (a file target's folder missing, a file where a folder
should be), so no run is spent on a write that cannot happen.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

from verity.errors import InputError
from verity.interrupts import Stopped, signals_held

__all__ = [
    "PARTIAL",
    "check_dir_target",
    "check_file_target",
    "make_dir",
    "new_dirs_undone",
    "staged_dir",
    "staged_file",
    "write_file",
]

#: What a staging sibling's name holds after the target's name: ``.NAME.partial-...``.
PARTIAL = ".partial-"


def make_dir(path: Path) -> None:
    """Create ``path`` (and its parents) unless it exists, with a one-line error."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create {path}: {exc.strerror or exc}") from None


def check_file_target(path: Path, option: str) -> None:
    """Refuse, before a run, a file target it could not write at its end: ``path`` a
    directory, or its folder missing or not a folder. ``option`` names it in the one-line
    error (``--out FILE``)."""
    if path.is_dir():
        raise InputError(f"cannot write {option} {path}: it is a directory; give a file name")
    if (path.exists() and not path.is_file()) or _in_staging(path):
        return  # written in place (/dev/stdout)
    folder = _absolute(path).parent
    if not folder.is_dir():
        why = "is not a folder" if folder.exists() else "does not exist"
        raise InputError(f"cannot write {option} {path}: the folder {folder} {why}")


def check_dir_target(path: Path) -> None:
    """Refuse, before a run, a directory target :func:`staged_dir` could not create or
    fill: a file of that name, or a file where one of the folders above it should be."""
    target = _absolute(path)
    if target.exists() and not target.is_dir():
        raise InputError(f"cannot create {path}: a file of that name exists")
    for folder in target.parents:
        if os.path.lexists(folder):
            if not folder.is_dir():
                raise InputError(f"cannot create {path}: {folder} is not a folder")
            return


def _missing_dirs(path: Path) -> list[Path]:
    """``path`` and those of its parents that do not exist, the deepest first."""
    missing: list[Path] = []
    here = Path(os.path.abspath(path))
    while not os.path.lexists(here) and here != here.parent:
        missing.append(here)
        here = here.parent
    return missing


def _remove_empty(folders: list[Path]) -> None:
    """Remove each of ``folders`` (the deepest first) that exists and is empty."""
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()


@contextlib.contextmanager
def new_dirs_undone(path: Path) -> Iterator[None]:
    """When the block raises, the folders among ``path`` and its parents that did not
    exist before it are removed again, each one that is still empty; so a failed run
    leaves no new empty folder behind."""
    missing = _missing_dirs(path)
    try:
        yield
    except BaseException:
        _remove_empty(missing)
        raise


def write_file(path: Path, text: str) -> Path:
    """Write ``text`` as UTF-8 to ``path`` whole (:func:`staged_file`), with a one-line
    error; a path that exists and is not a regular file (``/dev/stdout``), or that lies
    in a staging directory of :func:`staged_dir`, is written in place. Returns ``path``."""
    if (path.exists() and not path.is_file()) or _in_staging(path):
        _write(path, text)
        return path
    with staged_file(path) as tmp:
        _write(tmp, text)
    return path


def _in_staging(path: Path) -> bool:
    """True when ``path`` lies in a staging sibling, which moves into place whole."""
    return any(p.name.startswith(".") and PARTIAL in p.name for p in path.parents)


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


def _sibling(target: Path) -> Path:
    """A fresh hidden name beside ``target``: ``.NAME.partial-PID-XXXXXXXX``."""
    return target.with_name(f".{target.name}{PARTIAL}{os.getpid()}-{secrets.token_hex(4)}")


def _absolute(path: Path) -> Path:
    """``path`` made absolute (a symbolic link to a file: its file), so that ``.`` has a
    name and a parent."""
    if path.is_symlink() and path.is_file():
        return Path(os.path.realpath(path))
    return Path(os.path.abspath(path))


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # not every system opens a directory to sync it
        _fsync(path)


def _fsync_tree(root: Path) -> None:
    for folder, _, names in os.walk(root):
        for name in names:
            _fsync(Path(folder) / name)
        _fsync_dir(Path(folder))


def _discard(path: Path) -> None:
    """Remove a staging sibling (file or directory), held against signals."""
    with signals_held():
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                path.unlink()


def _move_into(source: Path, target: Path) -> None:
    """Move the entries of the directory ``source`` into the directory ``target``."""
    for entry in sorted(source.iterdir()):
        there = target / entry.name
        if entry.is_dir() and there.is_dir() and not there.is_symlink():
            _move_into(entry, there)
        else:
            os.replace(entry, there)


@contextlib.contextmanager
def _moving(tmp: Path, shown: Path, what: str) -> Iterator[None]:
    """The moving-into-place block: an OSError is a one-line error, a signal held in
    it names ``shown`` as landed; the sibling is removed either way."""
    try:
        with signals_held():
            yield
    except Stopped as stop:
        stop.landed = str(shown)
        raise
    except OSError as exc:
        raise InputError(f"cannot {what} {shown}: {exc.strerror or exc}") from None
    finally:
        _discard(tmp)


@contextlib.contextmanager
def staged_file(path: Path, *, parents: bool = False) -> Iterator[Path]:
    """Yield an empty file beside ``path``; when the block ends normally it replaces
    ``path`` whole; when it raises, it is removed and ``path`` is left as it was.
    ``path``'s folder must exist, unless ``parents``: then the folders it lacks are made
    (and removed again when the block raises)."""
    if not parents:
        with _staged_file(path) as tmp:
            yield tmp
        return
    with new_dirs_undone(path.parent):
        make_dir(path.parent)
        with _staged_file(path) as tmp:
            yield tmp


@contextlib.contextmanager
def _staged_file(path: Path) -> Iterator[Path]:
    target = _absolute(path)
    if target.is_dir():
        raise InputError(f"cannot write {path}: it is a directory")
    tmp = _sibling(target)
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        yield tmp
    except BaseException:
        _discard(tmp)
        raise
    with _moving(tmp, path, "write"):
        _fsync(tmp)
        os.replace(tmp, target)


@contextlib.contextmanager
def staged_dir(path: Path) -> Iterator[Path]:
    """Yield an empty directory beside ``path``; when the block ends normally its entries
    move into ``path`` (created when absent), replacing the entries of the same name;
    when it raises, it is removed and ``path`` is left as it was, and so are the folders
    above it (those made for it are removed again)."""
    check_dir_target(path)
    target = _absolute(path)
    with new_dirs_undone(target.parent):
        make_dir(target.parent)
        with _staged_dir(target, path) as tmp:
            yield tmp


@contextlib.contextmanager
def _staged_dir(target: Path, path: Path) -> Iterator[Path]:
    """:func:`staged_dir` into ``target`` (absolute; its folder exists); ``path`` as
    the user wrote it, for messages."""
    tmp = _sibling(target)
    try:
        os.mkdir(tmp, 0o777)
    except OSError as exc:
        raise InputError(f"cannot create {path}: {exc.strerror or exc}") from None
    try:
        yield tmp
    except BaseException:
        _discard(tmp)
        raise
    with _moving(tmp, path, "move files into"):
        _fsync_tree(tmp)
        if target.is_dir():
            _move_into(tmp, target)
        else:
            os.rename(tmp, target)
        _fsync_dir(target.parent)
