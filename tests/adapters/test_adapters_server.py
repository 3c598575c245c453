"""`evalkit serve` on loopback: the endpoints, 4xx answers, a timeout, a bounded load test, and
what a client on the network cannot do: build verifiers, change rewards, or skip the token."""

import dataclasses
import time

import httpx
import pytest

import verifiers
from sandboxes.owners import container_owners, descendants, process_alive
from verifiers import Score, Verdict, Verifier


@verifiers.register("sleepy-server-test")
class Sleepy(Verifier):
    @dataclasses.dataclass(frozen=True)
    class Config:
        seconds: float = 3.0

    def evaluate(self, completion, task):
        time.sleep(self.config.seconds)
        return Score(1.0, Verdict.CORRECT)


SERVED = {"game24": ("game24", {}), "sleepy-server-test": ("sleepy-server-test", {})}


@pytest.fixture(scope="module")
def server():
    from bench.bench_server import serving
    from evalkit.server import ServerLimits, create_app

    limits = ServerLimits(concurrency=4, timeout=1.5, max_body_bytes=64 << 10, max_items=64)
    with serving(create_app(SERVED, limits, workers=1)) as url:
        yield url


ITEM = {"completion": "Answer: (6 - 4) * (4 + 8) = 24", "task": {"numbers": [4, 4, 6, 8]}}


def test_endpoints(server):
    assert httpx.get(f"{server}/health").json()["status"] == "ok"
    r = httpx.post(
        f"{server}/score", json={"verifier": "game24", "items": [ITEM, {**ITEM, "completion": ""}]}, timeout=30
    )
    assert r.status_code == 200 and [s["verdict"] for s in r.json()["scores"]] == ["correct", "invalid"]
    body = {"query": ["p" + ITEM["completion"]], "prompts": ["p"], "labels": ["4 4 6 8"]}
    o = httpx.post(f"{server}/openrlhf?verifier=game24", json=body, timeout=30)
    assert o.status_code == 200 and o.json()["rewards"] == pytest.approx([0.7])
    # a server of several verifiers never picks one for a request that names none
    unnamed = httpx.post(f"{server}/openrlhf", json=body, timeout=30)
    assert unnamed.status_code == 400 and "['game24', 'sleepy-server-test']" in unnamed.json()["error"]
    assert "evalkit_items_scored_total 3" in httpx.get(f"{server}/metrics").text


@pytest.mark.parametrize(
    "payload, status, message",
    [
        (b"{not json", 400, "malformed JSON"),
        (b'{"items": "x"}', 400, "expected"),
        (b'{"verifier": "nope", "items": []}', 404, "unknown verifier"),
        (b'{"verifier": "game24", "config": {"weights": [0, 0, 1]}, "items": []}', 403, "may not set 'config'"),
        (b'{"verifier": "code", "items": []}', 404, "serves ['game24', 'sleepy-server-test']"),
        (b'{"verifier": "game24", "items": [' + b'{"completion": "", "task": {}},' * 64 + b"{}]}", 413, "at most 64"),
        (b'{"verifier": "game24", "items": [{"completion": 3}]}', 400, "items[0]"),
        (b'{"items": [' + b'"x",' * 40000 + b'"x"]}', 413, "larger than"),
        (b'{"items": []}', 400, "name the verifier with 'verifier' in the body"),
        # a body of empty objects would take 25 times its size once parsed: refused before parsing
        (b'{"verifier": "game24", "items": [' + b"{}," * 20000 + b"{}]}", 413, "too many for the body's size"),
    ],
)
def test_bad_requests_get_a_4xx_with_a_message(server, payload, status, message):
    r = httpx.post(f"{server}/score", content=payload, headers={"content-type": "application/json"}, timeout=30)
    assert r.status_code == status and message in r.json()["error"]


def test_items_not_scored_by_the_operators_timeout_come_back_as_errors_with_the_rest(server):
    start = time.monotonic()
    r = httpx.post(f"{server}/score", json={"verifier": "sleepy-server-test", "items": [ITEM]}, timeout=30)
    assert r.status_code == 200 and time.monotonic() - start < 10
    [late] = r.json()["scores"]
    assert late["verdict"] == "error" and "deadline of 1.5 s" in late["reason"] and late["info"]["scored"] is False


def test_load_on_loopback_loses_nothing(server):
    from bench.bench_server import load_test

    report = load_test(server, clients=8, seconds=4.0, items_per_request=16)
    assert report["requests"] > 0 and report["failed"] == 0 and report["lost_items"] == 0
    assert 0 < report["p50_s"] <= report["p95_s"]


def _descendants() -> set[int]:
    """Every live process below this one (worker pools hang off the forkserver, our child)."""
    import os

    return descendants(os.getpid())


def test_client_configs_with_the_opt_in_keep_the_process_count_bounded():
    """1000 requests over 200 configs: each config's verifier (with its worker pool) lives in an LRU
    of 4 and is closed on eviction, so the server's processes stay bounded; nothing is lost."""
    from concurrent.futures import ThreadPoolExecutor

    from bench.bench_server import serving
    from evalkit.server import ServerLimits, create_app

    limits = ServerLimits(max_client_configs=4, max_waiting=1000)
    app = create_app({"game24": ("game24", {})}, limits, allow_client_config=True, workers=1)
    before = len(_descendants())
    counts, answers = [], []
    with serving(app) as url, httpx.Client(timeout=60) as http:

        def ask(k: int) -> tuple[int, float]:
            config = {"wrong_answer_credit": (k // 5) / 1000}  # 200 configs, 5 requests each
            body = {"verifier": "game24", "config": config, "items": [{**ITEM, "completion": "Answer: 4 + 4 + 6 + 8"}]}
            r = http.post(f"{url}/score", json=body)
            return r.status_code, r.json()["scores"][0]["components"]["outcome"] if r.status_code == 200 else -1

        with ThreadPoolExecutor(4) as pool:
            for start in range(0, 1000, 100):
                answers += pool.map(ask, range(start, start + 100))
                counts.append(len(_descendants()))
        metrics = http.get(f"{url}/metrics").text
    assert [status for status, _ in answers] == [200] * 1000
    assert [outcome for _, outcome in answers] == pytest.approx([(k // 5) / 1000 for k in range(1000)])
    assert max(counts) <= before + 1 + 2 * 4  # the forkserver and at most 4 pools of 1 worker (2 while swapping)
    assert "evalkit_items_scored_total 1000" in metrics


@pytest.fixture(scope="module")
def guarded():
    """A server that needs a token, scoring one request at a time with no queue."""
    from bench.bench_server import serving
    from evalkit.server import ServerLimits, create_app

    served = {"sleepy-server-test": ("sleepy-server-test", {"seconds": 1.0})}
    with serving(create_app(served, ServerLimits(concurrency=1, max_waiting=0), token="s3cret", workers=0)) as url:
        yield url


def test_a_token_is_required_and_checked(guarded):
    body = {"verifier": "sleepy-server-test", "items": []}
    assert httpx.get(f"{guarded}/health").status_code == 200  # liveness needs no token
    missing = httpx.post(f"{guarded}/score", json=body)
    wrong = httpx.post(f"{guarded}/score", json=body, headers={"Authorization": "Bearer nope"})
    right = httpx.post(f"{guarded}/score", json=body, headers={"Authorization": "Bearer s3cret"})
    assert (missing.status_code, wrong.status_code, right.status_code) == (401, 403, 200)
    assert "Bearer" in missing.json()["error"] and httpx.get(f"{guarded}/metrics").status_code == 401
    metrics = httpx.get(f"{guarded}/metrics", headers={"Authorization": "Bearer s3cret"}).text
    assert 'evalkit_refusals_total{reason="unauthorized"} 2' in metrics  # /score and /metrics
    assert 'evalkit_refusals_total{reason="forbidden"} 1' in metrics


def test_requests_past_the_queue_get_429(guarded):
    from concurrent.futures import ThreadPoolExecutor

    body = {"verifier": "sleepy-server-test", "items": [ITEM]}
    headers = {"Authorization": "Bearer s3cret"}
    with ThreadPoolExecutor(3) as pool:
        statuses = sorted(
            pool.map(
                lambda _: httpx.post(f"{guarded}/score", json=body, headers=headers, timeout=30).status_code, range(3)
            )
        )
    assert statuses[0] == 200 and 429 in statuses


def test_the_command_refuses_a_public_bind_without_a_token_and_a_bad_config_at_start():
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "EVALKIT_TOKEN"}
    public = subprocess.run(
        [sys.executable, "-m", "evalkit", "serve", "--host", "0.0.0.0"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert public.returncode != 0 and "--token or EVALKIT_TOKEN" in public.stderr
    assert public.stderr.strip().count("\n") == 0  # one readable line
    bad = subprocess.run(
        [sys.executable, "-m", "evalkit", "serve", "--verifier", "game24", "--config", '{"weights": "x"}'],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert bad.returncode != 0 and "cannot serve" in bad.stderr and "weights" in bad.stderr


@pytest.mark.slow
def test_sigterm_closes_every_verifier_the_server_built(tmp_path):
    """A server that scored code on Docker (a worker pool, warm containers) and answered /openrlhf
    leaves no process and no container behind after SIGTERM."""
    import signal
    import socket
    import subprocess
    import sys

    from pytest_plugin.required_parts import require_part

    def docker_ready():
        from sandboxes.image import IMAGE

        return subprocess.run(["docker", "image", "inspect", IMAGE], capture_output=True).returncode == 0

    require_part(docker_ready, "a running Docker daemon with the evalkit sandbox image", "bash scripts/setup-env.sh")

    def containers(owners: set[int]) -> set[str]:
        """The sandbox containers `owners` hold (another test worker's come and go on their own)."""
        return {cid for cid, owner in container_owners().items() if owner in owners}

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = ["--verifier", "code", "--config", '{"backend": "docker", "pool_size": 1}', "--verifier", "game24"]
    server = subprocess.Popen(
        [sys.executable, "-m", "evalkit", "serve", "--port", str(port), "--workers", "1", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        item = {
            "completion": "```python\ndef f(x):\n    return x + 1\n```",
            "task": {"test_cases": ["assert f(1) == 2"]},
        }
        r = httpx.post(f"{url}/score", json={"verifier": "code", "items": [item]}, timeout=120)
        assert r.status_code == 200 and r.json()["scores"][0]["verdict"] == "correct"
        o = httpx.post(
            f"{url}/openrlhf?verifier=game24",
            json={"query": ["pAnswer: 1"], "prompts": ["p"], "labels": ["4 4 6 8"]},
            timeout=60,
        )
        assert o.status_code == 200
        children = descendants(server.pid)
        assert children  # its worker pool
        assert containers(children | {server.pid})  # the code verifier's warm container is up
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
    deadline = time.monotonic() + 30
    while (
        containers(children | {server.pid}) or [p for p in children if process_alive(p)]
    ) and time.monotonic() < deadline:
        time.sleep(0.3)
    assert containers(children | {server.pid}) == set()
    assert [p for p in children if process_alive(p)] == []
