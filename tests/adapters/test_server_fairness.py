"""One client's slow work never costs another's reward (issue 52): each served verifier has scoring
slots of its own, a request's deadline counts only the time its own items had, and an item the
server could not score is flagged as an error on every route, never paid as a wrong answer."""

from __future__ import annotations

import concurrent.futures
import time

import httpx
import pytest

LOOPING = "```python\ndef f(x):\n    while True:\n        pass\n```"
RIGHT = "```python\ndef f(x):\n    return x + 1\n```"
TASK = {"test_cases": ["assert f(1) == 2", "assert f(2) == 3"], "entry_point": "f"}
GAME24 = {"completion": "Answer: (6 - 4) * (4 + 8) = 24", "task": {"numbers": [4, 4, 6, 8]}}


@pytest.fixture(scope="module")
def server():
    from bench.bench_server import serving
    from evalkit.server import ServerLimits, create_app
    from tests.code.conftest import open_backend

    open_backend("local").close()  # bubblewrap present, or the CI failure that says how to get it
    served = {"game24": ("game24", {}), "code": ("code", {"backend": "local"})}
    with serving(create_app(served, ServerLimits(concurrency=4), workers=2)) as url:
        yield url


def post(url: str, body: dict) -> httpx.Response:
    return httpx.post(f"{url}/score", json=body, timeout=300)


def test_a_game24_request_answers_at_once_while_code_requests_loop(server):
    slow = {"verifier": "code", "items": [{"completion": LOOPING, "task": TASK}] * 2}
    with concurrent.futures.ThreadPoolExecutor(5) as pool:
        looping = [pool.submit(post, server, slow) for _ in range(4)]
        time.sleep(1.0)  # the four hold every code slot
        start = time.monotonic()
        game24 = post(server, {"verifier": "game24", "items": [GAME24]})
        seconds = time.monotonic() - start
        assert game24.status_code == 200 and game24.json()["scores"][0]["verdict"] == "correct"
        assert seconds < 5, seconds
        for done in looping:
            assert {s["verdict"] for s in done.result().json()["scores"]} == {"timeout"}


def test_a_right_program_after_a_request_of_slow_programs_is_scored(server):
    """Its clock starts when its item reaches a worker, so queueing behind the slow request's items
    is not counted against it: it is scored, never 'not scored'."""
    slow = {"verifier": "code", "items": [{"completion": LOOPING, "task": TASK}] * 8}
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        first = pool.submit(post, server, slow)
        time.sleep(1.0)
        right = post(server, {"verifier": "code", "items": [{"completion": RIGHT, "task": TASK}]})
        [score] = right.json()["scores"]
        assert score["verdict"] == "correct", score
        assert {s["verdict"] for s in first.result().json()["scores"]} == {"timeout"}


def test_openrlhf_flags_an_item_it_could_not_score_as_an_error():
    """Not scored by its deadline: OpenRLHF's error flag is 1, never a plain 0.0 a trainer learns from."""
    from evalkit.adapters.openrlhf import openrlhf_result
    from verifiers.deadline import Deadline

    deadline = Deadline(1.0)
    deadline.cancel()
    out = openrlhf_result("game24", ["Answer: (6-4)*(4+8)"], [""], ["4 4 6 8"], deadline=deadline)
    assert out["extra_logs"]["error"] == [1.0]


def test_one_clients_slow_bodies_hold_only_its_own_places_and_outsiders_move_no_metric():
    import socket

    from bench.bench_server import serving
    from evalkit.server import ServerLimits, create_app

    limits = ServerLimits(max_bodies_per_client=2, body_seconds=20)
    with serving(create_app({"game24": ("game24", {})}, limits, token="s3cret")) as url:
        host, port = url.split("//")[1].split(":")
        slow = []
        for _ in range(2):  # bodies that never finish arriving
            s = socket.create_connection((host, int(port)))
            s.sendall(
                b"POST /score HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
            )
            slow.append(s)
        time.sleep(0.5)
        auth = {"Authorization": "Bearer s3cret"}
        third = httpx.post(f"{url}/score", json={"items": [GAME24]}, headers=auth, timeout=30)
        assert third.status_code == 429 and "still arriving" in third.json()["error"]
        for s in slow:
            s.close()
        time.sleep(0.5)
        ok = httpx.post(f"{url}/score", json={"items": [GAME24]}, headers=auth, timeout=30)
        assert ok.status_code == 200, ok.text
        before = httpx.get(f"{url}/metrics", headers=auth).text
        for _ in range(5):
            assert httpx.post(f"{url}/score", json={"items": [GAME24]}, timeout=30).status_code == 401
        after = httpx.get(f"{url}/metrics", headers=auth).text
        requests = [line for line in after.splitlines() if line.startswith("evalkit_requests_total")]
        assert requests == [line for line in before.splitlines() if line.startswith("evalkit_requests_total")]
