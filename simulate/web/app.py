"""The FastAPI application of `bidlab serve`: the pages, the JSON API and the report.

Pages: /odds (the bid-odds calculator), /compare (rule comparisons), /report/ (the static
report, when one is there). API (described at /openapi.json, browsable at /docs):

  GET  /api/games          the shipped games and the uploads kept
  GET  /api/game           one configuration: deck, seats, trump, options (game, players, set)
  POST /api/variants       upload a variant TOML file (the body; at most 64 KiB)
  GET  /api/odds           the bid-odds table of a hand as JSON, the best bid marked
  GET  /api/odds/stream    the same as NDJSON lines: {"progress", "note"} ..., then
                           {"result"} or {"error", "field", "status"}
  POST /api/compare        A against B on the same deals: NDJSON progress then the result
                           (format=json: one JSON answer; format=csv: the rows as CSV)
  GET  /api/status         the worker pool's counters

Queries are checked before they are queued (4xx with one sentence, never a 500), run on the
worker pool (simulate.web.jobs) and cached by canonical variant, query and seed.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from simulate.errors import BidlabInputError
from simulate.web import compare_api, odds_api
from simulate.web.errors import refusal, validation_sentence
from simulate.web.jobs import Busy, Job, Pool
from simulate.web.sheets import SheetStore
from simulate.web.variants import Games, TooLarge, describe

STATIC = Path(__file__).parent / "static"
POLL = 0.1          # seconds between looks at a running job (progress, a gone client)
# the query parameters of /api/odds
Sets = Annotated[list[str], Query(alias="set", description="option=value (repeatable)")]
DOCS = {
    "game": "a shipped game (see /api/games) or an uploaded file's id",
    "hand": "the hand, e.g. 'KS QH 9H' (rank then suit, or a special card's name)",
    "seat": "0 = the dealer's left ... players-1 = the dealer",
    "trump": "S H D C NT: turned up, named by another player, or named by this seat",
    "bids_before": "the earlier bidders' bids in bidding order, e.g. 1,0",
    "field": "the opponents' bid policy; several (table,heuristic,greedy) add the "
             "field sensitivity panel, the first giving the main table",
}



class State:
    """What the routes share: the games, the worker pool, the report's sheets."""

    def __init__(self, report: Path | None, workers: int, queue: int, cache_size: int) -> None:
        self.report = report if report is not None and (report / "index.html").is_file() \
            else None
        data = report.parent / "data" if report is not None else None
        self.sheets = SheetStore(data if data is not None and data.is_dir() else None)
        self.games = Games()
        self.pool = Pool(workers, queue, cache_size)
        self.ready = threading.Event()      # the kernels are warm


def warm_up() -> None:
    """Run the odds and game kernels once on a few deals so the first answer is fast (numba
    compiles, or loads its cache, on first use)."""
    from simulate.games.compare import compare_games
    from simulate.hands.odds import bid_odds
    from simulate.rules.load import load_variant

    v = load_variant("kings_and_fools")
    bid_odds(v, "KS FOOL 7H", seat=0, samples=1_000, workers=1)
    b = load_variant("kings_and_fools", bonus_requires_exact=True)
    compare_games(v, b, 64, skill=False, workers=1)


def _warm(state: State, on_ready: Callable[[float], None] | None) -> None:
    started = time.perf_counter()
    try:
        warm_up()
    finally:
        state.ready.set()
    if on_ready is not None:
        on_ready(time.perf_counter() - started)


def create_app(report: Path | None = None, workers: int = 2, queue: int = 8,
               cache_size: int = 256, warm: bool = True,
               on_ready: Callable[[float], None] | None = None) -> FastAPI:
    """The application: `report` is the static site folder to serve at /report/ (skipped
    when it has no index.html; the cheat-sheet cells come from its sibling data folder);
    `workers` queries run at once and `queue` more wait; `warm` warms the kernels in the
    background at start-up, then calls on_ready(seconds it took)."""
    state = State(report, workers, queue, cache_size)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if warm:     # in the background: the pages answer at once, queries wait for it
            threading.Thread(target=_warm, args=(state, on_ready), daemon=True,
                             name="bidlab-warm-up").start()
        else:
            state.ready.set()
        yield
        state.pool.close()
        state.games.close()

    app = FastAPI(title="bidlab", summary="Bid odds and rule comparisons for precision-bidding "
                  "trick-taking games", lifespan=lifespan)
    app.state.bidlab = state

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        sentence, field = validation_sentence(list(exc.errors()))
        return refusal(sentence, 422, field)

    @app.exception_handler(Exception)
    async def _crash(_request: Request, exc: Exception) -> JSONResponse:
        # a bug, not bad input: still one JSON sentence, never a traceback to the client
        return refusal(f"internal error, please report it: {type(exc).__name__}: {exc}", 500,
                       None)

    _page_routes(app, state)
    _game_routes(app, state)
    _odds_routes(app, state)
    _compare_routes(app, state)
    return app


def _page_routes(app: FastAPI, state: State) -> None:
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    @app.get("/report/{path:path}", include_in_schema=False)
    async def report_file(path: str) -> Response:
        return _report_file(state.report, path)

    @app.get("/", include_in_schema=False)
    async def home() -> RedirectResponse:
        return RedirectResponse("/odds")

    @app.get("/odds", include_in_schema=False)
    async def odds_page() -> FileResponse:
        return FileResponse(STATIC / "odds.html")

    @app.get("/compare", include_in_schema=False)
    async def compare_page() -> FileResponse:
        return FileResponse(STATIC / "compare.html")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        return Response(status_code=204)

    @app.get("/report", include_in_schema=False)
    async def report_slash() -> RedirectResponse:
        return RedirectResponse("/report/")


NO_REPORT = ("<!doctype html><title>bidlab report</title><p>No report is served: run <code>make "
             "report</code> (it writes out/report/site) or start <code>bidlab serve --report "
             "DIR</code>. <a href='/odds'>Bid odds</a></p>")


def _report_file(root: Path | None, path: str) -> Response:
    """A file of the report site; its pages with the example hands' calculator links made
    live (the static site keeps them in data-calc: opened from disk there is no server)."""
    if root is None:
        return HTMLResponse(NO_REPORT, 404)
    base = root.resolve()
    target = (base / path).resolve()
    if target.is_dir():
        target = target / "index.html"
    if not target.is_relative_to(base) or not target.is_file():
        return HTMLResponse("<!doctype html><title>not found</title><p>No such page in the "
                            "report. <a href='/report/'>The report</a></p>", 404)
    if target.suffix == ".html":
        text = target.read_text(encoding="utf-8")
        return HTMLResponse(text.replace(' data-calc="', ' href="'))
    return FileResponse(target)


def _input_error(exc: BidlabInputError, policies: str | None = None) -> JSONResponse:
    return refusal(str(exc), 413 if isinstance(exc, TooLarge) else 422, policies=policies)


def _game_routes(app: FastAPI, state: State) -> None:
    @app.get("/api/games", summary="The shipped games and the uploaded variant files kept")
    async def games() -> Any:
        out = []
        for name in state.games.names():
            v = await run_in_threadpool(state.games.load, name)
            d = describe(v, name)
            out.append({k: d[k] for k in ("game", "title", "summary", "player_range",
                                          "usual_players", "canonical")})
        return out

    @app.get("/api/game", summary="One configuration: deck, seats, trump, bidding, options")
    async def game(game: str, players: int | None = None,
                   sets: Annotated[list[str], Query(alias="set")] = []) -> Any:  # noqa: B006
        try:
            v = await run_in_threadpool(state.games.load, game, players, sets)
        except BidlabInputError as exc:
            return _input_error(exc)
        return describe(v, game)

    @app.post("/api/variants", summary="Upload a variant TOML file (the request body)")
    async def upload(request: Request, filename: str = "variant.toml") -> Any:
        limit = state.games.max_bytes
        try:
            declared = int(request.headers.get("content-length") or 0)
        except ValueError:
            declared = 0
        body = bytearray()
        if declared <= limit:
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    break
        size = max(declared, len(body))
        try:
            if size > limit:
                raise TooLarge(f"variant file: {size:,} bytes is too large; allowed: at "
                               f"most {limit:,} bytes")
            return await run_in_threadpool(state.games.upload, bytes(body), filename)
        except BidlabInputError as exc:
            return _input_error(exc)

    @app.get("/api/status", summary="The worker pool's counters")
    async def status() -> Any:
        return {**state.pool.stats(), "warm": state.ready.is_set()}


async def _wait(request: Request | None, job: Job) -> tuple[str, Any] | None:
    """The job's answer, or None when the client went away first."""
    fut = asyncio.wrap_future(job.future)
    while True:
        done, _ = await asyncio.wait({fut}, timeout=POLL)
        if done:
            return fut.result()
        if request is not None and await request.is_disconnected():
            return None


def _answer(result: tuple[str, Any], hit: bool) -> Response:
    kind, value = result
    headers = {"X-Bidlab-Cache": "hit" if hit else "miss"}
    if kind == "ok":
        return JSONResponse(value, headers=headers)
    if kind == "error":
        return refusal(value, 422, headers=headers)
    if kind == "cancelled":
        return refusal("the query was cancelled; try again", 503, None, {"Retry-After": "1"})
    return refusal(f"internal error, please report it: {value}", 500, None)


def _stream(state: State, key: Any, work: Callable[[Job], Any]) -> StreamingResponse:
    """NDJSON lines: progress while the job runs, then its result or error (a cache hit
    answers at once). The client going away releases (and so may cancel) the job."""
    hit = state.pool.cached(key)
    job = None if hit is not None else state.pool.submit(key, work)

    async def lines() -> AsyncIterator[bytes]:
        try:
            result = hit
            if job is not None:
                fut = asyncio.wrap_future(job.future)
                last = None
                while True:
                    done, _ = await asyncio.wait({fut}, timeout=POLL)
                    if done:
                        break
                    now = (round(job.progress, 3), job.note)
                    if now != last:
                        last = now
                        yield _line({"progress": now[0], "note": now[1]})
                result = fut.result()
            assert result is not None
            kind, value = result
            if kind == "ok":
                yield _line({"result": value, "cache": "hit" if hit is not None else "miss"})
            else:
                resp = _answer(result, False)
                body = json.loads(bytes(resp.body))
                yield _line({**body, "status": resp.status_code})
        finally:
            if job is not None:
                state.pool.release(job)

    return StreamingResponse(lines(), media_type="application/x-ndjson",
                             headers={"Cache-Control": "no-store"})


def _line(obj: Any) -> bytes:
    return (json.dumps(obj) + "\n").encode()


async def _run_json(request: Request, state: State, key: Any,
                    work: Callable[[Job], Any]) -> Response:
    hit = state.pool.cached(key)
    if hit is not None:
        return _answer(hit, True)
    job = state.pool.submit(key, work)
    try:
        result = await _wait(request, job)
    finally:
        state.pool.release(job)
    if result is None:
        return refusal("the client went away; the query was cancelled", 499)
    return _answer(result, False)


def _busy(exc: Busy) -> JSONResponse:
    return refusal(str(exc), 503, None, {"Retry-After": "1"})


def _odds_routes(app: FastAPI, state: State) -> None:
    async def prepare(game: str, players: int | None, sets: list[str], hand: str, seat: int,
                      trump: str | None, bids_before: str | None, samples: int, seed: int,
                      field: str, play: str, exhaustive: bool
                      ) -> tuple[Any, Callable[[Job], Any]]:
        def check() -> tuple[Any, Callable[[Job], Any]]:
            v = state.games.load(game, players, sets)
            q = odds_api.check_odds(v, game, sets, hand, seat, trump, bids_before, samples,
                                    seed, field, play, exhaustive)
            return odds_api.cache_key(v, q), lambda job: odds_api.run_odds(job, v, q,
                                                                            state.sheets)
        return await run_in_threadpool(check)

    @app.get("/api/odds", summary="Bid odds of a hand: every legal bid on the same deals")
    async def odds(request: Request,
                   game: Annotated[str, Query(description=DOCS["game"])],
                   hand: Annotated[str, Query(description=DOCS["hand"])],
                   players: int | None = None, sets: Sets = [],  # noqa: B006
                   seat: Annotated[int, Query(description=DOCS["seat"])] = 0,
                   trump: Annotated[str | None, Query(description=DOCS["trump"])] = None,
                   bids_before: Annotated[str | None,
                                          Query(description=DOCS["bids_before"])] = None,
                   samples: int = 100_000, seed: int = 0,
                   field: Annotated[str, Query(description=DOCS["field"])] = "table",
                   play: str = "precision", exhaustive: bool = False) -> Response:
        try:
            key, work = await prepare(game, players, sets, hand, seat, trump, bids_before,
                                      samples, seed, field, play, exhaustive)
            return await _run_json(request, state, key, work)
        except BidlabInputError as exc:
            return _input_error(exc)
        except Busy as exc:
            return _busy(exc)

    @app.get("/api/odds/stream", summary="Bid odds as NDJSON: progress lines, then the result")
    async def odds_stream(game: str, hand: str, players: int | None = None,
                          sets: Sets = [], seat: int = 0,  # noqa: B006
                          trump: str | None = None, bids_before: str | None = None,
                          samples: int = 100_000, seed: int = 0, field: str = "table",
                          play: str = "precision", exhaustive: bool = False) -> Response:
        try:
            key, work = await prepare(game, players, sets, hand, seat, trump, bids_before,
                                      samples, seed, field, play, exhaustive)
            return _stream(state, key, work)
        except BidlabInputError as exc:
            return _input_error(exc)
        except Busy as exc:
            return _busy(exc)


def _compare_routes(app: FastAPI, state: State) -> None:
    @app.post("/api/compare", summary="A against B on the same deals, with paired differences")
    async def compare(request: Request, body: compare_api.CompareRequest,
                      format: Annotated[str, Query(
                          description="ndjson (progress lines, then the result), json or "
                                      "csv")] = "ndjson") -> Response:
        if format not in ("ndjson", "json", "csv"):
            return refusal(f"format {format!r} is not allowed; allowed: ndjson, json, csv",
                           422, "format")
        try:
            a, bs = await run_in_threadpool(compare_api.configs, state.games, body)
            key = compare_api.cache_key(a, bs, body)

            def work(job: Job) -> Any:
                return compare_api.run_compare(job, a, bs, body)

            if format == "ndjson":
                return _stream(state, key, work)
            answer = await _run_json(request, state, key, work)
        except BidlabInputError as exc:
            return _input_error(exc, policies="policies")
        except Busy as exc:
            return _busy(exc)
        if format == "csv" and answer.status_code == 200:
            data = json.loads(bytes(answer.body))
            return Response(data["csv"], media_type="text/csv", headers={
                "Content-Disposition": 'attachment; filename="bidlab-compare.csv"'})
        return answer
