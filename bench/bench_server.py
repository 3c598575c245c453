"""Load test of `evalkit serve` on loopback: N concurrent clients for a bounded time, every answer
checked (nothing lost), p50/p95 latency. The server runs in this process on 127.0.0.1 only."""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any, Iterator

from bench.common import write_results

ITEM = {"completion": "Answer: (6 - 4) * (4 + 8) = 24", "task": {"numbers": [4, 4, 6, 8]}}


def load_test(url: str, clients: int = 8, seconds: float = 5.0, items_per_request: int = 16) -> dict:
    import httpx

    latencies: list[float] = []
    failed = lost = 0
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client(k: int) -> None:
        nonlocal failed, lost
        with httpx.Client(timeout=30) as http:
            i = 0
            while time.monotonic() < stop and i < 10_000:  # bounded in time and in count
                items = [
                    {**ITEM, "completion": f"client {k}, request {i}, item {j}\n{ITEM['completion']}"}
                    for j in range(items_per_request)
                ]
                start = time.perf_counter()
                r = http.post(f"{url}/score", json={"verifier": "game24", "items": items})
                elapsed = time.perf_counter() - start
                with lock:
                    latencies.append(elapsed)
                    if r.status_code != 200:
                        failed += 1
                    elif len(r.json()["scores"]) != items_per_request or any(
                        s["verdict"] != "correct" for s in r.json()["scores"]
                    ):
                        lost += items_per_request
                i += 1

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    latencies.sort()
    return {
        "requests": len(latencies),
        "failed": failed,
        "lost_items": lost,
        "clients": clients,
        "items_per_s": len(latencies) * items_per_request / seconds,
        "p50_s": latencies[len(latencies) // 2] if latencies else 0.0,
        "p95_s": latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))] if latencies else 0.0,
    }


@contextlib.contextmanager
def serving(app: Any) -> Iterator[str]:
    """Run `app` on 127.0.0.1 (a free port) in a thread; yields its base URL, stops it after."""
    import uvicorn

    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started and thread.is_alive():
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{srv.servers[0].sockets[0].getsockname()[1]}"
    finally:
        srv.should_exit = True
        thread.join(10)


def main() -> dict:
    from evalkit.server import ServerLimits, create_app

    with serving(create_app({"game24": ("game24", {})}, ServerLimits(concurrency=4))) as url:
        report = load_test(url, clients=16, seconds=10.0)
    table = [
        ("measure", "value"),
        ("clients", str(report["clients"])),
        ("requests (16 items each)", str(report["requests"])),
        ("failed requests", str(report["failed"])),
        ("lost items", str(report["lost_items"])),
        ("items scored/s", f"{report['items_per_s']:.0f}"),
        ("p50 latency", f"{report['p50_s'] * 1000:.0f} ms"),
        ("p95 latency", f"{report['p95_s'] * 1000:.0f} ms"),
    ]
    write_results(
        "server", report, table, notes="game24 over HTTP on 127.0.0.1, 10 s, 2 CPU cores shared by clients and server."
    )
    return report


if __name__ == "__main__":
    main()
