"""`bidlab simulate`: figures by seat, records written atomically, bad input on one line."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from simulate.cli.main import cli, main


def test_simulate_prints_distribution_by_seat() -> None:
    result = CliRunner().invoke(cli, ["simulate", "kings_and_fools", "-p", "3", "-c", "4",
                                      "--hands", "5000", "--no-progress"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("kings_and_fools(players=3")
    rows = [line.split() for line in lines[2:5]]
    for seat, row in enumerate(rows):
        assert int(row[0]) == seat
        probs = [float(x) for x in row[1:6]]
        assert abs(sum(probs) - 1.0) < 1e-3
    assert "(dealer)" in lines[4]


def test_simulate_writes_records(tmp_path: Path) -> None:
    out = tmp_path / "hands.parquet"
    result = CliRunner().invoke(cli, ["simulate", "hoffer", "-c", "5", "--hands", "300",
                                      "--fixed", "2:HIJO AS KS 9H 10D", "--trump", "S",
                                      "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    df = pd.read_parquet(out)
    assert len(df) == 300 * 4
    assert set(df[df.seat == 2].cards.iloc[0].split()) == {"HIJO", "AS", "KS", "9H", "10D"}
    assert (df.trump == "S").all()
    assert not list(tmp_path.glob("*.part"))


@pytest.mark.parametrize("args,needle", [
    (["simulate", "hoffer", "--hands", "0"], "hands must be a positive"),
    (["simulate", "hoffer", "-c", "9"], "cannot be dealt"),
    (["simulate", "hoffer", "--play", "genius"], "unknown play policy"),
    (["simulate", "hoffer", "-c", "2", "--fixed", "0:AS AS"], "more times"),
    (["simulate", "hoffer", "-c", "2", "--fixed", "zero:AS KS"], "SEAT:CARDS"),
    (["simulate", "oh_hell", "-c", "5", "--trump", "NT"], "NT cannot be forced"),
    (["simulate", "hoffer", "--out", "x.txt"], ".parquet or .csv"),
])
def test_simulate_bad_input(args: list[str], needle: str, capsys: pytest.CaptureFixture[str],
                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(args + ["--no-progress"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bidlab: error:") and needle in err[0]
    assert list(tmp_path.iterdir()) == []
