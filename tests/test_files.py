"""verity.files: a run's files move into place whole, or not at all; verity.interrupts:
signals held while they move."""

from __future__ import annotations

import os
import signal
import stat
from pathlib import Path

import pytest

from verity.errors import InputError
from verity.files import (
    check_dir_target,
    check_file_target,
    new_dirs_undone,
    staged_dir,
    staged_file,
    write_file,
)
from verity.interrupts import Stopped, signals_held, stopped_by_signals


class _Boom(Exception):
    pass


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_staged_dir_becomes_an_absent_target(tmp_path: Path) -> None:
    with staged_dir(tmp_path / "out") as staging:
        assert staging.parent == tmp_path and staging.name.startswith(".out.partial-")
        (staging / "a.json").write_text("new", encoding="utf-8")
        assert not (tmp_path / "out").exists()
    assert _names(tmp_path) == ["out"] and _names(tmp_path / "out") == ["a.json"]


def test_a_staged_dir_replaces_its_files_and_keeps_the_others(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "sub").mkdir(parents=True)
    (out / "a.json").write_text("old", encoding="utf-8")
    (out / "mine.txt").write_text("mine", encoding="utf-8")
    (out / "sub" / "kept").write_text("kept", encoding="utf-8")
    with staged_dir(out) as staging:
        (staging / "a.json").write_text("new", encoding="utf-8")
        (staging / "sub").mkdir()
        (staging / "sub" / "b").write_text("b", encoding="utf-8")
    assert (out / "a.json").read_text(encoding="utf-8") == "new"
    assert (out / "mine.txt").read_text(encoding="utf-8") == "mine"
    assert _names(out / "sub") == ["b", "kept"]
    assert _names(tmp_path) == ["out"]


def test_a_staged_dir_that_fails_leaves_the_target_as_it_was(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.json").write_text("old", encoding="utf-8")
    with pytest.raises(_Boom), staged_dir(out) as staging:
        (staging / "a.json").write_text("new", encoding="utf-8")
        raise _Boom
    assert (out / "a.json").read_text(encoding="utf-8") == "old"
    assert _names(tmp_path) == ["out"]


def test_a_staged_dir_over_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("x", encoding="utf-8")
    with (
        pytest.raises(InputError, match="a file of that name exists"),
        staged_dir(tmp_path / "out"),
    ):
        pass
    assert _names(tmp_path) == ["out"]


def test_a_staged_file_replaces_its_target_or_leaves_it(tmp_path: Path) -> None:
    path = tmp_path / "record.jsonl"
    path.write_text("old\n", encoding="utf-8")
    with pytest.raises(_Boom), staged_file(path) as staging:
        staging.write_text("new\n", encoding="utf-8")
        raise _Boom
    assert path.read_text(encoding="utf-8") == "old\n" and _names(tmp_path) == ["record.jsonl"]
    with staged_file(path) as staging:
        staging.write_text("new\n", encoding="utf-8")
    assert path.read_text(encoding="utf-8") == "new\n" and _names(tmp_path) == ["record.jsonl"]


def test_a_written_file_has_the_usual_mode(tmp_path: Path) -> None:
    mask = os.umask(0o022)
    try:
        write_file(tmp_path / "a.json", "{}")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o644


def test_a_file_that_is_not_regular_is_written_in_place() -> None:
    assert write_file(Path(os.devnull), "nothing") == Path(os.devnull)
    assert Path(os.devnull).exists() and not Path(os.devnull).is_file()


def test_a_held_signal_arrives_after_the_block() -> None:
    done: list[str] = []
    with pytest.raises(Stopped) as stopped, stopped_by_signals():
        with signals_held():
            os.kill(os.getpid(), signal.SIGTERM)
            done.append("moved")
        done.append("after")  # never: the held signal is delivered as the block ends
    assert done == ["moved"]
    assert stopped.value.exit_status == 143 and stopped.value.name == "SIGTERM"


def test_a_file_written_into_a_staged_dir_is_written_in_place(tmp_path: Path) -> None:
    """The directory moves whole, so its files need no staging of their own (and a
    signal can never land one of them and call that a finished run)."""
    with staged_dir(tmp_path / "out") as staging:
        (staging / "a.json").write_text("", encoding="utf-8")
        inode = (staging / "a.json").stat().st_ino
        write_file(staging / "a.json", "{}")
        assert (staging / "a.json").stat().st_ino == inode  # the same file, not a new one
    assert (tmp_path / "out" / "a.json").read_text(encoding="utf-8") == "{}"


def test_a_failed_staged_dir_removes_the_folders_made_for_it(tmp_path: Path) -> None:
    (tmp_path / "kept").mkdir()
    with pytest.raises(_Boom), staged_dir(tmp_path / "kept" / "new" / "deep" / "out") as staging:
        assert (tmp_path / "kept" / "new" / "deep").is_dir()
        (staging / "a.json").write_text("new", encoding="utf-8")
        raise _Boom
    assert _names(tmp_path) == ["kept"] and _names(tmp_path / "kept") == []


def test_a_failed_staged_file_with_parents_removes_the_folders_made_for_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "new" / "record.jsonl"
    with pytest.raises(_Boom), staged_file(path, parents=True) as staging:
        staging.write_text("new\n", encoding="utf-8")
        raise _Boom
    assert _names(tmp_path) == []
    with staged_file(path, parents=True) as staging:
        staging.write_text("new\n", encoding="utf-8")
    assert path.read_text(encoding="utf-8") == "new\n" and _names(path.parent) == ["record.jsonl"]


def test_new_folders_that_were_filled_are_kept(tmp_path: Path) -> None:
    """Only empty folders go: what a failed run already added in place (a bench's
    finished instances) stays."""
    out = tmp_path / "new" / "out"
    with pytest.raises(_Boom), new_dirs_undone(out):
        out.mkdir(parents=True)
        (tmp_path / "new" / "other").mkdir()
        raise _Boom
    assert _names(tmp_path) == ["new"] and _names(tmp_path / "new") == ["other"]
    with pytest.raises(_Boom), new_dirs_undone(tmp_path / "made"):
        (tmp_path / "made").mkdir()
        (tmp_path / "made" / "results.jsonl").write_text("{}\n", encoding="utf-8")
        raise _Boom
    assert _names(tmp_path / "made") == ["results.jsonl"]


def test_new_folders_of_a_run_that_ends_normally_stay(tmp_path: Path) -> None:
    with new_dirs_undone(tmp_path / "new" / "out"):
        (tmp_path / "new" / "out").mkdir(parents=True)
    assert (tmp_path / "new" / "out").is_dir()


def test_a_file_target_is_checked_before_the_run(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("x", encoding="utf-8")
    check_file_target(tmp_path / "folder" / "a.json", "--out")  # absent is fine
    check_file_target(tmp_path / "file", "--out")  # replaced at the end
    check_file_target(Path(os.devnull), "--out")  # written in place
    refused = {
        tmp_path / "missing" / "a.json": "the folder .*missing does not exist",
        tmp_path / "file" / "a.json": "the folder .*file is not a folder",
        tmp_path / "folder": "it is a directory",
    }
    for path, why in refused.items():
        with pytest.raises(InputError, match=f"^cannot write --out {path}: {why}"):
            check_file_target(path, "--out")
    assert _names(tmp_path) == ["file", "folder"]


def test_a_directory_target_is_checked_before_the_run(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    check_dir_target(tmp_path / "new" / "deep" / "out")  # made at the end
    with pytest.raises(InputError, match="a file of that name exists"):
        check_dir_target(tmp_path / "file")
    with pytest.raises(InputError, match=f"{tmp_path / 'file'} is not a folder"):
        check_dir_target(tmp_path / "file" / "deep" / "out")
    assert _names(tmp_path) == ["file"]
