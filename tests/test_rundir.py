"""Run directories: a manifest and checksummed chunk files; resuming equals an uninterrupted
run; damaged or foreign chunks are reported, deleted and recomputed, never merged."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _support import load

import simulate as sim
from simulate.cli.main import main
from simulate.rules.load import VARIANTS_DIR
from simulate.runner.backends import LocalBackend
from simulate.runner.rundir import MANIFEST, RunDir, RunInterrupted, StopFlag, chunk_name

GAME, PLAYERS, H, HANDS, CHUNK = "kings_and_fools", 3, 4, 5_000, 700     # 8 chunks


def run(folder: Path | None = None, keep: str = "summary", **kw) -> sim.HandResults:
    v = load(GAME, PLAYERS)
    return sim.simulate_hands(v, H, kw.pop("hands", HANDS), seed=kw.pop("seed", 5),
                              keep=keep, chunk_size=CHUNK, workers=2,
                              run_dir=None if folder is None else RunDir(folder, **kw))


def arrays(res: sim.HandResults) -> tuple[np.ndarray, ...]:
    return res._summary if res._summary is not None else res._records  # type: ignore[return-value]


def assert_same(a: sim.HandResults, b: sim.HandResults) -> None:
    for x, y in zip(arrays(a), arrays(b), strict=True):
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)


@pytest.fixture(scope="module")
def plain() -> sim.HandResults:
    return run()


@pytest.fixture(scope="module")
def plain_records() -> sim.HandResults:
    return run(keep="records")


def chunk_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("chunk-*.npz"))


def test_run_dir_holds_manifest_and_every_chunk(tmp_path, plain):
    res = run(tmp_path / "r")
    assert_same(res, plain)
    folder = tmp_path / "r"
    assert chunk_files(folder) == [chunk_name(i) for i in range(8)]
    m = json.loads((folder / MANIFEST).read_text())
    v = load(GAME, PLAYERS)
    assert m["variant"] == v.canonical
    assert (m["hands"], m["hand_size"], m["seed"], m["chunk_size"], m["keep"]) == \
        (HANDS, H, 5, CHUNK, "summary")
    assert m["play"] == ["precision"] * 3 and m["bid"] == ["table"] * 3
    assert m["bidlab_version"] == sim.__version__
    assert {"trump", "fixed", "round", "format_version", "config_hash"} <= set(m)
    assert not list(folder.glob("*.part")) and not list(folder.glob(".*"))


def test_missing_chunks_are_recomputed_and_the_result_is_identical(tmp_path, plain):
    folder = tmp_path / "r"
    run(folder)
    for i in (0, 3, 7):
        (folder / chunk_name(i)).unlink()
    before = {n: (folder / n).stat().st_mtime_ns for n in chunk_files(folder)}
    lines: list[str] = []
    res = run(folder, report=lines.append)
    assert_same(res, plain)
    assert chunk_files(folder) == [chunk_name(i) for i in range(8)]
    for name, mtime in before.items():
        assert (folder / name).stat().st_mtime_ns == mtime, "kept chunks are not recomputed"
    assert lines == [f"{folder}: 5 of 8 chunks already done, 3 to compute"]


def _rewrite(path: Path, change) -> None:
    with np.load(path) as z:
        data = {k: z[k] for k in z.files}
    change(data)
    buf = io.BytesIO()
    np.savez_compressed(buf, **data)
    path.write_bytes(buf.getvalue())


def _flip_a_count(d):
    d["a0"] = d["a0"].copy()
    d["a0"].flat[0] += 1                  # a plausible wrong number; the checksum is stale


def _other_config(d):
    d["config_hash"] = np.array("f" * 64)


def _wrong_shape(d):
    d["a0"] = d["a0"][:1]
    from simulate.runner.specs import digest_arrays as arrays_checksum

    d["checksum"] = np.array(arrays_checksum([d[f"a{k}"] for k in range(9)]))


def _dropped_array(d):
    del d["a8"]


@pytest.mark.parametrize("damage,why", [
    (lambda p: p.write_bytes(b"not a zip at all"), "unreadable"),
    (lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]), "unreadable"),
    (lambda p: p.write_bytes(b""), "unreadable"),
    (lambda p: _rewrite(p, _flip_a_count), "checksum mismatch"),
    (lambda p: _rewrite(p, _other_config), "belongs to another configuration"),
    (lambda p: _rewrite(p, _wrong_shape), "has the wrong arrays or shapes"),
    (lambda p: _rewrite(p, _dropped_array), "has the wrong arrays or shapes"),
], ids=["garbage", "truncated", "empty", "checksum", "other-config", "shape", "missing-array"])
def test_damaged_chunk_is_reported_deleted_and_recomputed(tmp_path, plain, damage, why):
    folder = tmp_path / "r"
    run(folder)
    damage(folder / chunk_name(2))
    lines: list[str] = []
    res = run(folder, report=lines.append)
    assert_same(res, plain)
    assert lines[0].startswith(f"{folder / chunk_name(2)}: {why}")
    assert lines[0].endswith("; deleted, it will be computed again")
    assert lines[1:] == [f"{folder}: 7 of 8 chunks already done, 1 to compute"]
    again: list[str] = []
    run(folder, report=again.append)
    assert again == [f"{folder}: 8 of 8 chunks already done, 0 to compute"]


def test_stray_files_and_leftover_temporaries(tmp_path, plain):
    folder = tmp_path / "r"
    run(folder)
    (folder / chunk_name(8)).write_bytes((folder / chunk_name(0)).read_bytes())  # beyond the run
    (folder / ".chunk-000001.npz.abc.part").write_bytes(b"half")
    lines: list[str] = []
    assert_same(run(folder, report=lines.append), plain)
    assert any("chunk-000008.npz: is not a chunk of this run" in line for line in lines)
    assert not (folder / chunk_name(8)).exists()
    assert not list(folder.glob("*.part"))


def test_records_resume_gives_identical_records(tmp_path, plain_records):
    folder = tmp_path / "r"
    run(folder, keep="records")
    (folder / chunk_name(5)).unlink()
    _rewrite(folder / chunk_name(6), lambda d: d.__setitem__("a2", d["a2"] ^ np.uint64(1)))
    res = run(folder, keep="records", report=lambda s: None)
    assert_same(res, plain_records)


def test_another_run_in_the_folder_is_never_overwritten(tmp_path):
    folder = tmp_path / "r"
    run(folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    with pytest.raises(sim.BidlabInputError, match="holds another run .*seed"):
        run(folder, seed=6)
    with pytest.raises(sim.BidlabInputError, match="hands"):
        run(folder, hands=HANDS + 1)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_not_a_run_folder(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(sim.BidlabInputError, match="not empty and holds no bidlab run"):
        run(other)
    assert [p.name for p in other.iterdir()] == ["notes.txt"]
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(sim.BidlabInputError, match="is a file"):
        run(afile)


@pytest.mark.parametrize("edit,needle", [
    (lambda t: t.replace('"seed": 5', '"seed": 6'), "edited or damaged"),
    (lambda t: t[: len(t) // 2], "unreadable run manifest"),
    (lambda t: "[]", "not a bidlab run manifest"),
])
def test_damaged_manifest_is_one_clear_error(tmp_path, edit, needle):
    folder = tmp_path / "r"
    run(folder)
    m = folder / MANIFEST
    m.write_text(edit(m.read_text()))
    with pytest.raises(sim.BidlabInputError, match=needle):
        run(folder)


def test_stop_flag_keeps_finished_chunks_and_resume_completes(tmp_path, plain):
    folder = tmp_path / "r"
    flag = StopFlag()
    calls = 0
    real = LocalBackend.run

    def stopping_run(self, task, indices, take, **kw):
        def take_then_maybe_stop(i, value):
            nonlocal calls
            take(i, value)
            calls += 1
            if calls == 3:
                flag.set(15)
        return real(self, task, indices, take_then_maybe_stop, **kw)

    LocalBackend.run = stopping_run  # type: ignore[method-assign]
    try:
        with pytest.raises(RunInterrupted) as info:
            run(folder, stop=flag)
    finally:
        LocalBackend.run = real  # type: ignore[method-assign]
    exc = info.value
    assert exc.exit_status == 143 and exc.total == 8
    assert 3 <= exc.kept < 8 and len(chunk_files(folder)) == exc.kept
    assert str(exc) == (f"interrupted: {exc.kept} of 8 chunks kept; resume with "
                        f"bidlab simulate --resume {folder}")
    assert_same(run(folder, report=lambda s: None), plain)


def test_edited_variant_file_is_kept_in_the_run_dir(tmp_path):
    text = (VARIANTS_DIR / "oh_hell.toml").read_text(encoding="utf-8")
    path = tmp_path / "oh_hell_edit.toml"
    path.write_text(text + "\n# edited\n", encoding="utf-8")
    folder = tmp_path / "r"
    args = ["simulate", str(path), "-p", "4", "-c", "5", "--hands", "2000", "--chunk-size", "500",
            "--no-progress", "--run-dir", str(folder)]
    first = _cli(args)
    assert (folder / "variant.toml").read_bytes() == path.read_bytes()
    path.unlink()
    (folder / chunk_name(1)).unlink()
    second = _cli(["simulate", "--resume", str(folder), "--no-progress"])
    assert first == second


# ----- the CLI -----------------------------------------------------------------------------

def _cli(args: list[str], status: int = 0) -> str:
    from click.testing import CliRunner

    from simulate.cli.main import cli

    result = CliRunner().invoke(cli, args)
    assert result.exit_code == status, (result.output, result.exception)
    return result.stdout


BASE = ["simulate", GAME, "-p", str(PLAYERS), "-c", str(H), "--hands", str(HANDS), "--seed", "5",
        "--chunk-size", str(CHUNK), "--no-progress"]


def test_cli_resume_with_out_file_is_byte_identical(tmp_path):
    whole = tmp_path / "whole.parquet"
    _cli(BASE + ["--out", str(whole)])
    folder, part = tmp_path / "r", tmp_path / "part.parquet"
    first = _cli(BASE + ["--out", str(part), "--run-dir", str(folder)])
    assert part.read_bytes() == whole.read_bytes()
    part.unlink()
    for i in (0, 4):
        (folder / chunk_name(i)).unlink()
    second = _cli(["simulate", "--resume", str(folder), "--no-progress"])   # --out remembered
    assert second.replace(str(part), "") == first.replace(str(part), "")
    assert part.read_bytes() == whole.read_bytes()
    pd.testing.assert_frame_equal(pd.read_parquet(part), pd.read_parquet(whole))


def test_cli_rerun_with_same_run_dir_continues(tmp_path):
    folder = tmp_path / "r"
    first = _cli(BASE + ["--run-dir", str(folder)])
    (folder / chunk_name(3)).unlink()
    assert _cli(BASE + ["--run-dir", str(folder)]) == first
    assert _cli(BASE + ["--resume", str(folder), "--workers", "1"]) == first  # compatible


@pytest.mark.parametrize("extra,needles", [
    (["--seed", "6"], ["--seed 6 (the run: 5)"]),
    (["--hands", "10", "--play", "greedy"], ["--hands 10 (the run: 5000)",
                                             "--play greedy (the run: precision)"]),
    (["--chunk-size", "1000"], ["--chunk-size 1000 (the run: 700)"]),
    (["--out", "x.csv"], ["--out (the run kept a summary only"]),
    (["hoffer"], ["VARIANT hoffer(players=4"]),
    (["-p", "4"], ["need VARIANT as well"]),
])
def test_cli_resume_with_contradicting_options(tmp_path, extra, needles, capsys, monkeypatch):
    folder = tmp_path / "r"
    _cli(BASE + ["--run-dir", str(folder)])
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--resume", str(folder), "--no-progress", *extra])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bidlab: error:"), err
    for needle in needles:
        assert needle in err[0], err
    assert not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize("make,needle", [
    (lambda d: None, "does not exist"),
    (lambda d: d.mkdir(), "not a bidlab run directory"),
])
def test_cli_resume_of_nothing(tmp_path, make, needle, capsys):
    folder = tmp_path / "nothing"
    make(folder)
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--resume", str(folder)])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


def test_cli_run_dir_of_another_run(tmp_path, capsys):
    folder = tmp_path / "r"
    _cli(BASE + ["--run-dir", str(folder)])
    with pytest.raises(SystemExit) as exc:
        main(BASE + ["--seed", "9", "--run-dir", str(folder)])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds another run" in err[0] and "--resume" in err[0]


def test_signal_flag_outside_main_thread_is_harmless():
    from simulate.runner.rundir import stop_on_signals

    seen = []

    def body():
        with stop_on_signals() as flag:
            seen.append(flag.event.is_set())

    t = threading.Thread(target=body)
    t.start()
    t.join()
    assert seen == [False]
