"""`bidlab serve` as a real server: the command starts and stops, the pages work in headless
Chromium (Playwright driving the system's Chromium), and 50 concurrent mixed queries all
get a correct answer or a clean refusal while the server keeps answering.

The browser test skips, saying why, where Playwright or Chromium is missing (`make browser`
installs Chromium where it can). BIDLAB_SCREENSHOTS=DIR saves screenshots of both pages
there (docs/serve-odds.png and docs/serve-compare.png were taken so).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from statistics import median
from typing import Any

import pytest

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")
uvicorn = pytest.importorskip("uvicorn")

from simulate.web.app import create_app  # noqa: E402

ODDS = {"game": "kings_and_fools", "hand": "KS FOOL 7H 2C", "seat": 3, "bids_before": "0,0,2",
        "samples": 20_000}


class LiveServer:
    """The application on a free localhost port, served by uvicorn on a thread."""

    def __init__(self, **kwargs: Any) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        config = uvicorn.Config(create_app(**kwargs), log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert self.server.started, "the server did not start"
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(20)
        self.sock.close()


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    with LiveServer(report=None, workers=2, queue=8, warm=False) as server:
        yield server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_bidlab_serve_starts_answers_and_stops(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "simulate", "serve", "--port", str(port)],
                            cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        page = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                page = httpx.get(f"http://127.0.0.1:{port}/odds", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.2)
        assert page is not None and page.status_code == 200 and "bidlab" in page.text
        assert httpx.get(f"http://127.0.0.1:{port}/report/").status_code == 404
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert f"http://localhost:{port}/odds" in err and "Traceback" not in err


@pytest.mark.parametrize(("args", "words"), [
    (["--port", "0"], "allowed: 1 to 65535"),
    (["--report", "no/such/site"], "no index.html"),
    (["--workers", "0"], "at least 1"),
])
def test_bidlab_serve_bad_options(args: list[str], words: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "simulate", "serve", *args],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith("bidlab: error: ") and words in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_port_in_use_is_one_line() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        proc = subprocess.run([sys.executable, "-m", "simulate", "serve", "--port", str(port)],
                              capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "give another --port" in proc.stderr


BIG = {"game": "oh_hell", "hand": "AS KH 7D 2C 9S 8H QC", "seat": 3, "trump": "H",
       "samples": 1_000_000, "exhaustive": "true"}


def _settled(url: str, before: dict[str, int], cancelled: int) -> dict[str, int]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        now = httpx.get(f"{url}/api/status", timeout=5).json()
        if now["cancelled"] >= before["cancelled"] + cancelled and now["inflight"] == 0:
            return dict(now)
        time.sleep(0.1)
    raise AssertionError(f"the abandoned query did not stop: {now}")


def test_a_client_that_goes_away_stops_its_query(live: LiveServer) -> None:
    before = httpx.get(f"{live.url}/api/status", timeout=5).json()
    # the stream: read a progress line, then hang up
    with httpx.Client(base_url=live.url, timeout=30) as client:
        with client.stream("GET", "/api/odds/stream", params={**BIG, "seed": 7001}) as r:
            assert r.status_code == 200
            first = next(r.iter_lines())
            assert '"progress"' in first
    _settled(live.url, before, 1)
    # the plain answer: give up waiting after half a second
    with pytest.raises(httpx.TimeoutException):
        httpx.get(f"{live.url}/api/odds", params={**BIG, "seed": 7002}, timeout=0.5)
    after = _settled(live.url, before, 2)
    assert after["hits"] == before["hits"]          # nothing half-done was cached
    again = httpx.get(f"{live.url}/api/odds", params={**ODDS, "seed": 7003}, timeout=60)
    assert again.status_code == 200


# ----- the pages in a real browser ---------------------------------------------------------

def _browser() -> tuple[Any, str]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright for Python is not installed (make setup installs it)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium on PATH: `make browser` installs it where it runs as root "
                    "with apt-get")
    return sync_playwright, chromium


@pytest.mark.slow
def test_pages_in_headless_chromium(live: LiveServer) -> None:
    sync_playwright, chromium = _browser()
    shots = os.environ.get("BIDLAB_SCREENSHOTS")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium,
                                    args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            _odds_page(page, live.url, shots)
            _compare_page(page, live.url, shots)
            assert errors == []
        finally:
            browser.close()


def _odds_page(page: Any, url: str, shots: str | None) -> None:
    page.goto(f"{url}/odds?game=kings_and_fools")
    page.wait_for_selector('#deck .card[data-card="FOOL"]')
    assert page.locator("#deck .card.special").count() == 2      # the two Fools by name
    assert "\u2660" in page.text_content("#deck")                  # suit symbols
    for card in ("KS", "FOOL", "7H", "2C"):
        page.locator(f'#deck .card[data-card="{card}"]').first.click()
    assert page.input_value("#hand") == "KS FOOL 7H 2C"
    page.select_option("#seat", "3")
    assert "seats 0, 1, 2" in page.text_content("#earlier-hint")
    page.fill("#bids_before", "0,0,2")
    page.fill("#samples", "20000")
    page.check("#panel")
    page.click("#go")
    page.wait_for_selector("#best-bid", timeout=120_000)
    best = int(page.text_content("#best-bid"))
    api = httpx.get(f"{url}/api/odds", params={**ODDS, "field": "table,heuristic,greedy"},
                    timeout=120).json()
    assert [r["bid"] for r in api["best"]] == [best]
    bars = page.locator("svg.chart rect.bar")                      # one per bid played
    assert bars.count() == len([r for r in api["rows"] if r["n"]]) >= 3
    marked = [int(bars.nth(i).get_attribute("data-bid")) for i in range(bars.count())
              if bars.nth(i).get_attribute("data-best") == "1"]
    assert marked == [best]
    assert page.locator("#odds-table tbody tr").count() == len(api["rows"])
    means = [float(bars.nth(i).get_attribute("data-mean")) for i in range(bars.count())]
    assert means == pytest.approx([r["expected_score"] for r in api["rows"] if r["n"]])
    assert page.locator("#panel-box tbody tr").count() == 3
    assert "deals accepted" in page.text_content("#acceptance")
    assert page.locator("#tricks-chart rect").count() == 5
    assert page.locator("#bar").evaluate("e => e.style.width") == "100%"
    if shots:
        page.screenshot(path=str(Path(shots) / "serve-odds.png"), full_page=True)
    # the URL is the query: opened afresh it answers the same (from the cache)
    shared = page.url
    assert "hand=KS+FOOL+7H+2C" in shared and "bids_before=0%2C0%2C2" in shared
    page.goto(shared)
    page.wait_for_selector("#best-bid", timeout=60_000)
    assert int(page.text_content("#best-bid")) == best
    assert "cached" in page.text_content("#status")
    # keyboard entry with a bad card: the sentence shows next to the hand
    page.fill("#hand", "KS ZZ 7H")
    page.click("#go")
    page.wait_for_function("document.querySelector('.err[data-for=\"hand\"]').textContent")
    assert "malformed card 'ZZ'" in page.text_content('.err[data-for="hand"]')
    page.fill("#hand", "KS QS 7H 2C")
    page.fill("#bids_before", "1")
    page.click("#go")
    page.wait_for_function(
        "document.querySelector('.err[data-for=\"bids_before\"]').textContent")
    assert "give 3 bid(s)" in page.text_content('.err[data-for="bids_before"]')


def _compare_page(page: Any, url: str, shots: str | None) -> None:
    page.goto(f"{url}/compare?game=kings_and_fools&players=3")
    page.wait_for_selector("#chips .chip")
    page.fill("#set", "bonus_requires_exact=true")
    page.fill("#games", "1500")
    page.click("#go")
    page.wait_for_selector(".compare-table", timeout=120_000)
    assert page.locator("#bar").evaluate("e => e.style.width") == "100%"
    rows = page.locator(".compare-table tbody tr td.diff")
    assert rows.count() > 10
    assert page.locator("svg.compare-chart circle.dot").count() > 5
    with page.expect_download() as download:
        page.click("#csv")
    text = Path(download.value.path()).read_text()
    assert text.startswith("metric,") and "bonus_requires_exact=true" in text
    if shots:
        page.screenshot(path=str(Path(shots) / "serve-compare.png"), full_page=True)
    page.fill("#set", "bonus_requires_exact=perhaps")
    page.click("#go")
    page.wait_for_function("document.querySelector('.err[data-for=\"set\"]').textContent")
    assert "true or false" in page.text_content('.err[data-for="set"]')


# ----- load ---------------------------------------------------------------------------------

GOOD = [{**ODDS, "seed": s} for s in range(20)] + [dict(ODDS, seed=100)] * 5
BAD = [({**ODDS, "hand": "KS ZZ"}, "hand"), ({**ODDS, "seat": 7}, "seat"),
       ({**ODDS, "bids_before": "1"}, "bids_before"), ({**ODDS, "game": "chess"}, "game"),
       ({**ODDS, "set": "fools=9"}, "set"), ({**ODDS, "samples": -5}, "samples"),
       ({**ODDS, "hand": "KS KS"}, "hand"), ({**ODDS, "players": 1}, "players"),
       ({**ODDS, "seed": "abc"}, "seed"), ({**ODDS, "field": "oracle"}, "field")] * 2 + [
       ({**ODDS, "trump": "X"}, "trump"), ({**ODDS, "hand": ""}, "hand"),
       ({**ODDS, "seat": -1}, "seat"), ({**ODDS, "bids_before": "x,y,z"}, "bids_before"),
       ({**ODDS, "play": "psychic"}, "play")]


@pytest.mark.slow
def test_fifty_concurrent_mixed_queries(live: LiveServer) -> None:
    assert len(GOOD) + len(BAD) == 50

    async def one(client: Any, params: dict[str, Any]) -> tuple[Any, float]:
        started = time.perf_counter()
        r = await client.get("/api/odds", params=params)
        return r, time.perf_counter() - started

    async def storm() -> list[tuple[Any, float]]:
        async with httpx.AsyncClient(base_url=live.url, timeout=90) as client:
            queries = GOOD + [b for b, _ in BAD]
            order = sorted(range(50), key=lambda i: (i * 7) % 50)     # good and bad mixed
            answers = await asyncio.gather(*(one(client, queries[i]) for i in order))
            return [answers[order.index(i)] for i in range(50)]

    started = time.perf_counter()
    answers = asyncio.run(storm())
    elapsed = time.perf_counter() - started
    assert elapsed < 120
    ok = busy = 0
    for (r, _), q in zip(answers[:len(GOOD)], GOOD, strict=True):
        if r.status_code == 503:
            assert "busy" in r.json()["error"] and r.headers["retry-after"] == "1"
            busy += 1
            continue
        assert r.status_code == 200, r.text
        body = r.json()
        assert len(body["best"]) == 1 and body["accepted"] >= q["samples"]
        assert body["seed"] == q["seed"]
        ok += 1
    for (r, _), (_, field) in zip(answers[len(GOOD):], BAD, strict=True):
        assert r.status_code == 422, r.text
        assert r.json()["field"] == field and "\n" not in r.json()["error"]
    same = [r.json() for r, _ in answers[20:25] if r.status_code == 200]
    assert all(x == same[0] for x in same)                  # shared work, one answer
    assert ok >= 10
    status = httpx.get(f"{live.url}/api/status", timeout=10).json()
    assert status["inflight"] == 0
    after = httpx.get(f"{live.url}/api/odds", params={**ODDS, "seed": 555}, timeout=60)
    assert after.status_code == 200
    times = sorted(t for _, t in answers)
    print(f"\nload: 50 queries in {elapsed:.2f} s; {ok} answered, {busy} busy, "
          f"{len(BAD)} refused (4xx); latency median {median(times):.3f} s, "
          f"max {times[-1]:.3f} s; pool {status}")
