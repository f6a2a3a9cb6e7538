"""The kernel warm-up (simulate.cli.warm): groups stamped once finished, failures reported
and never stamped, a finished group not started again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import simulate.cli.warm as warm


@pytest.fixture
def stamps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Stamps in a folder of the test's own (the kernel sources' state as it is)."""
    real = warm.warm_stamp

    def stamp(group: str) -> tuple[Path, str]:
        return tmp_path / f"warm-{group}.txt", real(group)[1]

    monkeypatch.setattr(warm, "warm_stamp", stamp)
    return tmp_path


def _process(code: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def test_a_finished_group_is_stamped_and_a_failed_one_is_not(stamps: Path) -> None:
    started = [("hands", _process("pass")),
               ("forced", _process("raise SystemExit('no compiler here')"))]
    assert warm.finish_warm(started) == ["forced: no compiler here"]
    assert warm.is_warm("hands") and not warm.is_warm("forced")
    assert not (stamps / "warm-forced.txt").exists()


def test_a_stamp_of_other_kernel_sources_is_not_warm(stamps: Path) -> None:
    (stamps / "warm-games.txt").write_text("kernel sources as they were")
    assert not warm.is_warm("games")


def test_warm_groups_are_not_started_again(stamps: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    for group in warm.GROUPS:
        path, state = warm.warm_stamp(group)
        path.write_text(state)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a warm group was started again")

    monkeypatch.setattr(warm.subprocess, "Popen", refuse)
    assert warm.start_warm(warm.GROUPS) == [] and warm.warm_kernels() == []


def test_stopping_kills_the_warm_up_and_stamps_nothing(stamps: Path) -> None:
    proc = _process("import time; time.sleep(60)")
    warm.stop_warm([("games", proc)])
    assert proc.returncode is not None and proc.returncode != 0
    assert not warm.is_warm("games")


def test_an_unknown_group_is_refused() -> None:
    with pytest.raises(ValueError, match="no warm-up group 'tricks'"):
        warm.start_warm(["tricks"])
    with pytest.raises(ValueError, match="no warm-up group 'tricks'"):
        warm.warm_group("tricks")
