"""`evalkit serve` on loopback: the endpoints, 4xx answers, a timeout, and a bounded load test."""

import dataclasses
import threading
import time

import httpx
import pytest

import verifiers
from verifiers import Score, Verdict, Verifier


@verifiers.register("sleepy-server-test")
class Sleepy(Verifier):
    @dataclasses.dataclass(frozen=True)
    class Config:
        seconds: float = 3.0

    def evaluate(self, completion, task):
        time.sleep(self.config.seconds)
        return Score(1.0, Verdict.CORRECT)


@pytest.fixture(scope="module")
def server():
    import uvicorn

    from evalkit.server import create_app

    app = create_app(concurrency=4, timeout=1.5, max_body_bytes=64 << 10, workers=1)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.05)
    port = srv.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


ITEM = {"completion": "Answer: (6 - 4) * (4 + 8) = 24", "task": {"numbers": [4, 4, 6, 8]}}


def test_endpoints(server):
    assert httpx.get(f"{server}/health").json()["status"] == "ok"
    r = httpx.post(
        f"{server}/score", json={"verifier": "game24", "items": [ITEM, {**ITEM, "completion": ""}]}, timeout=30
    )
    assert r.status_code == 200 and [s["verdict"] for s in r.json()["scores"]] == ["correct", "invalid"]
    o = httpx.post(
        f"{server}/openrlhf",
        json={"query": ["p" + ITEM["completion"]], "prompts": ["p"], "labels": ["4 4 6 8"]},
        timeout=30,
    )
    assert o.status_code == 200 and o.json()["rewards"] == pytest.approx([0.7])
    assert "evalkit_items_scored_total 3" in httpx.get(f"{server}/metrics").text


@pytest.mark.parametrize(
    "payload, status, message",
    [
        (b"{not json", 400, "malformed JSON"),
        (b'{"items": "x"}', 400, "expected"),
        (b'{"verifier": "nope", "items": []}', 404, "unknown verifier"),
        (b'{"verifier": "game24", "config": {"bad": 1}, "items": []}', 400, "bad config"),
        (b'{"verifier": "game24", "items": [{"completion": 3}]}', 400, "items[0]"),
        (b'{"items": [' + b'"x",' * 40000 + b'"x"]}', 413, "larger than"),
    ],
)
def test_bad_requests_get_a_4xx_with_a_message(server, payload, status, message):
    r = httpx.post(f"{server}/score", content=payload, headers={"content-type": "application/json"}, timeout=30)
    assert r.status_code == status and message in r.json()["error"]


def test_a_slow_request_times_out_with_504(server):
    r = httpx.post(f"{server}/score", json={"verifier": "sleepy-server-test", "items": [ITEM]}, timeout=30)
    assert r.status_code == 504 and "longer than 1.5 s" in r.json()["error"]


def test_load_on_loopback_loses_nothing(server):
    from bench.bench_server import load_test

    report = load_test(server, clients=8, seconds=4.0, items_per_request=16)
    assert report["requests"] > 0 and report["failed"] == 0 and report["lost_items"] == 0
    assert 0 < report["p50_s"] <= report["p95_s"]
