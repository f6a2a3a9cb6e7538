"""`bidlab report`: a small report end to end, re-rendering from stored tables, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from simulate.cli.main import cli, main


@pytest.mark.slow
def test_small_report_and_render_only(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    result = CliRunner().invoke(cli, ["report", "kings_and_fools", "hasenpfeffer", "--hands",
                                      "3000", "--forced-deals", "1000", "--games", "2000",
                                      "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    site, data = out / "site", out / "data"
    manifest = json.loads((data / "manifest.json").read_text())
    assert manifest["format"] == 5 and manifest["forced_deals"] == 1000
    sizes = manifest["games"][0]["sizes"]
    assert all({"class_table", "class_bids", "sheet", "points", "compact"} <= set(s["tables"])
               for s in sizes)
    assert all(s["forced_deals"] == 1000 and s["odds"] for s in sizes)   # every size
    assert sizes[-1]["fields"] and not sizes[0]["fields"]          # panels at the largest
    assert manifest["games"][1]["sizes"][0]["bid_names"]          # Hasenpfeffer's contracts
    assert [g["name"] for g in manifest["games"]] == ["kings_and_fools", "hasenpfeffer"]
    assert [s["hand_size"] for s in manifest["games"][0]["sizes"]] == list(range(1, 8))
    page = (site / "kings_and_fools.html").read_text()
    assert "kings_and_fools(players=4" in page and "precision" in page
    assert "kings_and_fools-balance.html" in page
    for name in ("kings_and_fools", "hasenpfeffer"):
        balance = (site / f"{name}-balance.html").read_text()
        for needle in ("Seats", "Skill index", "A rule change", "2,000 whole games",
                       f"{name}(players=4"):
            assert needle in balance, (name, needle)
        assert (site / name / "balance" / "win-share.png").is_file()
        assert (site / name / "balance" / "compare.csv").is_file()
    assert "bonus_requires_exact=true" in (site / "kings_and_fools-balance.html").read_text()
    assert manifest["games"][0]["balance"]["games"] == 2000
    before = {p.name for p in site.rglob("*.png")}
    (site / "index.html").unlink()
    again = CliRunner().invoke(cli, ["report", "--render-only", "--out", str(out)])
    assert again.exit_code == 0, again.output
    assert (site / "index.html").is_file()
    assert {p.name for p in site.rglob("*.png")} == before
    # render-only reads the forced tables back from the FORMAT 5 manifest
    page = (site / "kings_and_fools.html").read_text()
    assert "Best bid by hand class (every bid played)" in page and "too close to call" in page
    assert "1,000 deals per seat and hand size" in page
    assert "Does the answer depend on the opponents?" in page
    full = (site / "kings_and_fools-fullsheet.html").read_text()
    assert full.count('<table class="cheat">') == 7 * 4
    cheat = (site / "kings_and_fools-cheatsheet.html").read_text()     # the compact sheet
    bids = cheat[cheat.index('<table class="bids">'):]
    assert bids[:bids.index("</table>")].count("<tr") == 1 + 7 * 4
    for p in site.glob("*.html"):
        assert "best_bid_if_independent" not in p.read_text(), p.name
    # a manifest of another format is refused in one line
    manifest["format"] = 4
    (data / "manifest.json").write_text(json.dumps(manifest))
    old = CliRunner().invoke(cli, ["report", "--render-only", "--out", str(out)])
    assert old.exit_code != 0 and "another bidlab format" in str(old.exception or old.output)
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("args,needle", [
    (["report", "hoffer", "--hands", "10"], "at least 1000"),
    (["report", "hoffer", "--forced-deals", "10"], "--forced-deals 10"),
    (["report", "nonesuch"], "unknown variant"),
    (["report", "hoffer", "--players", "9"], "players is not allowed"),
])
def test_report_bad_input(args: list[str], needle: str, tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(args + ["--out", str(tmp_path / "r")])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0], err
    assert not (tmp_path / "r" / "site").exists()


def test_render_only_needs_a_stored_report(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["report", "--render-only", "--out", str(tmp_path)])
    assert exc.value.code == 2
    assert "run the report first" in capsys.readouterr().err
