"""End-to-end answer time of `/api/odds`, as a user sees it: `python -m simulate.web.timing`.

Starts the server on a free localhost port (kernels warmed first), then for every shipped
game asks for the bid odds of a hand of its largest size (its usual player count), with
`--samples` accepted deals, `--repeats` times with different seeds (so no answer comes from
the cache), and prints the median and the slowest wall-clock time per game.
"""

from __future__ import annotations

import argparse
import random
import socket
import statistics
import threading
import time
from typing import Any

from simulate.rules.load import load_variant, shipped_variants
from simulate.rules.variant import Variant


def example_query(v: Variant, samples: int) -> dict[str, Any]:
    """A hand of the game's largest size (a fixed random draw) in seat 0, with the trump a
    seat 0 player would know (none where it names trump itself or the rules fix it)."""
    h = max(v.schedule)
    hand = random.Random(0).sample(list(v.cards.names), h)
    q: dict[str, Any] = {"game": v.name, "hand": " ".join(hand), "seat": 0, "samples": samples}
    if v.trump_chooser in ("turn_up", "dealer", "first_bidder") and \
            len(v.cards) - h * v.players > 0:
        q["trump"] = "S"
    return q


def main(argv: list[str] | None = None) -> None:
    """Time /api/odds for every shipped game and print one line each."""
    import httpx
    import uvicorn

    from simulate.web.app import create_app, warm_up

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args(argv)
    warm_up()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(create_app(warm=False), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        with httpx.Client(base_url=url, timeout=120) as client:
            for name in shipped_variants():
                v = load_variant(name)
                q = example_query(v, args.samples)
                client.get("/api/odds", params={**q, "seed": 10**6})   # this game's tables
                times = []
                for seed in range(args.repeats):
                    started = time.perf_counter()
                    r = client.get("/api/odds", params={**q, "seed": seed})
                    times.append(time.perf_counter() - started)
                    if r.status_code != 200 or r.headers["x-bidlab-cache"] != "miss":
                        raise SystemExit(f"{name}: {r.status_code} {r.text[:200]}")
                print(f"{name:16s} {max(v.schedule):2d} cards, {v.players} players: median "
                      f"{statistics.median(times):.3f} s, max {max(times):.3f} s over "
                      f"{len(times)} queries of {args.samples:,} samples", flush=True)
    finally:
        server.should_exit = True
        thread.join(10)


if __name__ == "__main__":
    main()
