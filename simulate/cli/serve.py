"""`bidlab serve`: the bid-odds calculator, the rule comparer and the report in the browser.

The web layers (FastAPI, uvicorn, numba) are imported inside the command, not here: that
keeps `bidlab --help` from loading them.
"""

from __future__ import annotations

from pathlib import Path

import click

from simulate.errors import BidlabInputError

DEFAULT_REPORT = Path("out/report/site")


@click.command()
@click.option("--port", type=int, default=8765, show_default=True, help="The port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (the default answers this machine only).")
@click.option("--report", "report", default=None, metavar="DIR",
              help="The report site to serve at /report/ (default: out/report/site when it "
                   "is there).")
@click.option("--workers", type=int, default=2, show_default=True,
              help="Queries run at once (each uses every core).")
@click.option("--queue", type=int, default=8, show_default=True,
              help="Queries that may wait for a worker; more are answered 'busy, try again'.")
def serve(port: int, host: str, report: str | None, workers: int, queue: int) -> None:
    """Serve the bid-odds calculator (/odds), the rule comparer (/compare), the JSON API
    (/openapi.json, /docs) and the static report (/report/) on http://HOST:PORT."""
    if not 0 < port < 65536:
        raise BidlabInputError(f"--port {port}: allowed: 1 to 65535")
    if workers < 1 or queue < 0:
        raise BidlabInputError("--workers must be at least 1 and --queue at least 0")
    site = Path(report) if report is not None else DEFAULT_REPORT
    if report is not None and not (site / "index.html").is_file():
        raise BidlabInputError(f"--report {report}: no index.html there; give the report's "
                               "site folder (out/report/site)")
    _check_port(host, port)
    import uvicorn

    from simulate.web.app import create_app

    def ready(seconds: float) -> None:
        click.echo(f"bidlab serve: kernels warm after {seconds:.1f} s; answers are fast now",
                   err=True)

    app = create_app(site if (site / "index.html").is_file() else None, workers, queue,
                     on_ready=ready)
    shown = "localhost" if host in ("127.0.0.1", "::1") else host
    click.echo(f"bidlab serve: open http://{shown}:{port}/odds (compare: /compare, report: "
               f"/report/, API: /docs); Ctrl-C stops. Warming the kernels up (after an "
               f"update numba compiles them first: a minute or more)", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def _check_port(host: str, port: int) -> None:
    """Refuse, before warming up, an address that cannot be listened on."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        raise BidlabInputError(f"--host {host}: not an address of this machine") from None
    family, kind, proto, _, addr = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(addr)
        except OSError as exc:
            raise BidlabInputError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); "
                                   "give another --port") from None
