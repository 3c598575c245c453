"""`evalkit serve`: an HTTP reward server that serves only what its operator configured.

- POST /score    {"verifier": KEY, "items": [{"completion": "...", "task": {...}}]}
                 -> {"scores": [Score.to_dict(), ...]}
- POST /openrlhf {"query": [...], "prompts": [...], "labels": [...]} (OpenRLHF's remote reward
                 protocol; `?verifier=KEY`) -> {"rewards", "scores", "extra_logs"}

A request that names no verifier is scored by the one the server serves; where it serves several,
it is 400 naming them: no default picks a reward for a client.
- GET /health (no token needed), GET /metrics (Prometheus text format).

What it serves is fixed at start: `served` maps a key to a verifier name and its config (the
default: every installed verifier at its default config). Each is built once, on first use. A
request names a key; a `config` in a request is refused (403) unless the operator opted in with
`allow_client_config`, and even then it may only narrow the served config (each setting's
`client` policy: lower a limit, shorten an allowlist, never change a sandbox or a path); the
verifiers it builds live in a small LRU whose evicted members are closed, so no client can grow
the server's processes or change its rewards unasked.

A request's life: token, then its body read within `body_seconds` (408) and at most
`max_body_bytes` (413), then admission (429 past `max_waiting` requests or `max_admitted_bytes`
bytes), then a scoring slot, and only then is the body parsed. Scoring has a deadline that follows
the batch (its items' time budgets over the workers) or the operator's `timeout`: items not scored
by then come back as `error` ("not scored") with every score made in time, and the work left is cancelled, as
it is when the client disconnects. Every refusal or failure answers one line `{"error": ...}` and
is counted in /metrics.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hmac
import json
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Iterator, Mapping

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from starlette.exceptions import HTTPException as RoutingError

import verifiers
from verifiers import verdict_counts
from verifiers.base import client_refusal
from verifiers.batch import worker_count
from verifiers.deadline import Deadline
from verifiers.score import ITEM_TIMEOUT_SECONDS
from verifiers.text import valid_data

from .server_limits import ServerLimits

MAX_TASK_DEPTH = 64  # nesting of a task's JSON; deeper cannot be a real task (and cannot travel to a worker)
DEADLINE_GRACE_SECONDS = 30.0  # past its deadline, a scoring call that has not returned is answered 504


class Refused(Exception):
    """A request the reward service will not score: why (`reason`, a word from `STATUS`) and one line
    for the client. The service knows no HTTP; the routes answer each reason with its status."""

    def __init__(self, reason: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.reason, self.message = reason, message
        self.status = STATUS[reason] if status is None else status  # `status`: the router's own (404, 405)


# each reason a request is refused for, and the HTTP status the routes answer it with
STATUS = {
    "bad_request": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "client_config": 403,
    "unknown": 404,
    "slow_body": 408,
    "too_large": 413,
    "too_many_items": 413,
    "too_dense": 413,
    "busy": 429,
    "internal": 500,
    "timeout": 504,
}


@dataclass
class Metrics:
    requests: int = 0
    failures: dict[int, int] = field(default_factory=dict)
    refusals: dict[str, int] = field(default_factory=dict)
    items: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    latencies: collections.deque = field(default_factory=lambda: collections.deque(maxlen=1000))  # the recent ones

    def refused(self, error: Refused) -> None:
        self.failures[error.status] = self.failures.get(error.status, 0) + 1
        self.refusals[error.reason] = self.refusals.get(error.reason, 0) + 1

    def scored(self, scores: list[verifiers.Score]) -> None:
        self.items += len(scores)
        for verdict, count in verdict_counts(scores).items():
            self.verdicts[verdict] = self.verdicts.get(verdict, 0) + count

    def text(self) -> str:
        lines = [
            "# TYPE evalkit_requests_total counter",
            f"evalkit_requests_total {self.requests}",
            "# TYPE evalkit_items_scored_total counter",
            f"evalkit_items_scored_total {self.items}",
        ]
        lines += [f'evalkit_responses_failed_total{{status="{k}"}} {v}' for k, v in sorted(self.failures.items())]
        lines += [f'evalkit_refusals_total{{reason="{k}"}} {v}' for k, v in sorted(self.refusals.items())]
        lines += [f'evalkit_verdicts_total{{verdict="{k}"}} {v}' for k, v in sorted(self.verdicts.items())]
        recent = sorted(self.latencies)
        for q in (0.5, 0.95):
            value = recent[min(len(recent) - 1, int(q * len(recent)))] if recent else 0.0
            lines.append(f'evalkit_request_seconds{{quantile="{q}"}} {value:.6f}')
        return "\n".join(lines) + "\n"


def default_served() -> dict[str, tuple[str, dict[str, Any]]]:
    """Every installed verifier at its default config, keyed by its name."""
    return {name: (name, {}) for name in verifiers.names()}


class _ClientVerifiers:
    """Verifiers built from client configs (only with the operator's opt-in): at most `size`, the
    least recently used closed when a new one needs room, never while a request still uses it."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.entries: collections.OrderedDict[str, list[Any]] = collections.OrderedDict()  # key -> [verifier, users]
        self.lock = threading.Lock()

    def acquire(self, key: str, build: Any) -> verifiers.Verifier:
        evicted = []
        with self.lock:
            entry = self.entries.get(key)
            if entry is None:
                idle = [k for k, (_, users) in self.entries.items() if users == 0]
                while len(self.entries) >= self.size and idle:
                    evicted.append(self.entries.pop(idle.pop(0))[0])
                if len(self.entries) >= self.size:
                    raise Refused("busy", f"all {self.size} client-config verifiers are busy; retry later")
                entry = self.entries[key] = [build(), 0]
            self.entries.move_to_end(key)
            entry[1] += 1
        for v in evicted:
            v.close()
        return entry[0]

    def release(self, key: str) -> None:
        with self.lock:
            if key in self.entries:
                self.entries[key][1] -= 1

    def close(self) -> None:
        with self.lock:
            entries, self.entries = list(self.entries.values()), collections.OrderedDict()
        for v, _ in entries:
            v.close()


def _depth_over(value: Any, limit: int) -> bool:
    """Is `value` (parsed JSON) nested deeper than `limit`? Iterative: never recurses itself."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def _shown(value: Any) -> str:
    """A client's value, short enough to quote in an error line."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class RewardService:
    """The scoring behind the HTTP layer (kept separate so it can be tested and reused)."""

    def __init__(
        self,
        served: Mapping[str, tuple[str, Mapping[str, Any]]] | None = None,
        limits: ServerLimits = ServerLimits(),
        *,
        allow_client_config: bool = False,
        workers: int | None = None,
    ) -> None:
        self.served = {k: (name, dict(config)) for k, (name, config) in (served or default_served()).items()}
        self.limits = limits
        self.allow_client_config = allow_client_config
        self.workers = workers
        self.pending = 0
        self.admitted_bytes = 0
        self._reading: collections.Counter[str] = collections.Counter()  # client address -> bodies arriving
        self.metrics = Metrics()
        # per served verifier, `concurrency` scoring slots and threads of its own: a game24 request
        # never waits for code sandboxes. Each thread returns by its deadline, so none is lost to a request
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._threads: dict[str, ThreadPoolExecutor] = {}
        self._built: dict[str, verifiers.Verifier] = {}
        self._client = _ClientVerifiers(limits.max_client_configs)
        self._lock = threading.Lock()

    def check_served(self) -> None:
        """Build every served verifier once, so that a bad name or config fails at start."""
        for key in self.served:
            self._served_verifier(key)

    def _served_verifier(self, key: str) -> verifiers.Verifier:
        with self._lock:
            if key not in self._built:
                name, config = self.served[key]
                self._built[key] = verifiers.get(name, config)
            return self._built[key]

    def only_verifier(self, how: str) -> str:
        """The verifier a request that names none means: the one this server serves, or 400 naming
        the choices (a default would score with another reward than the client meant, silently)."""
        if len(self.served) == 1:
            return next(iter(self.served))
        raise Refused("bad_request", f"name the verifier with {how}: this server serves {sorted(self.served)}")

    def verifier(self, key: Any, config: Any = None) -> tuple[verifiers.Verifier, str | None]:
        """The verifier a request names, and the client-config key to release after it (or None)."""
        if not isinstance(key, str):
            raise Refused("bad_request", "'verifier' must be a string")
        if key not in self.served:
            raise Refused("unknown", f"unknown verifier {_shown(key)}: this server serves {sorted(self.served)}")
        if config is not None and not isinstance(config, dict):
            raise Refused("bad_request", "'config' must be an object")
        name, served_config = self.served[key]
        if not config or config == served_config:
            return self._served_verifier(key), None
        if not self.allow_client_config:
            raise Refused(
                "client_config",
                f"this server scores {key!r} with its operator's config only; a request may not set 'config' "
                "(the operator can start it with --allow-client-config)",
            )
        served_verifier = self._served_verifier(key)
        refusal = client_refusal(type(served_verifier).Config, config, served_verifier.config_dict())
        if refusal is not None:
            raise Refused("client_config", f"client config for {key!r} refused: {refusal}")
        merged = {**served_config, **config}
        client_key = json.dumps([name, merged], sort_keys=True)

        def build() -> verifiers.Verifier:
            try:
                return verifiers.get(name, merged)
            except TypeError as exc:  # an unknown key or a mistyped value
                raise Refused("bad_request", f"bad config: {exc}") from None
            except ValueError as exc:  # a value the config's own checks refuse (max_tests 0, a negative limit)
                raise Refused("client_config", f"client config for {key!r} refused: {exc}") from None

        return self._client.acquire(client_key, build), client_key

    # ------------------------------------------------------------------ admission
    @contextlib.contextmanager
    def body_from(self, client: str) -> Iterator[None]:
        """A place among the bodies `client` is sending at once, or 429: one client's slow bodies
        hold its own connections, never every one the server has."""
        if self._reading[client] >= self.limits.max_bodies_per_client:
            raise Refused(
                "busy", f"{self._reading[client]} request bodies from this client are still arriving; retry later"
            )
        self._reading[client] += 1
        try:
            yield
        finally:
            self._reading[client] -= 1
            if not self._reading[client]:
                del self._reading[client]

    def admit(self, size: int) -> None:
        """Take a place among the admitted requests, or 429: past the waiting count or the bytes held."""
        if self.pending >= self.limits.concurrency + self.limits.max_waiting:
            raise Refused("busy", f"{self.pending} requests in progress or waiting; retry later")
        if self.admitted_bytes + size > self.limits.max_admitted_bytes:
            raise Refused("busy", f"{self.admitted_bytes} bytes of requests in progress or waiting; retry later")
        self.pending += 1
        self.admitted_bytes += size

    def leave(self, size: int) -> None:
        self.pending -= 1
        self.admitted_bytes -= size

    # ------------------------------------------------------------------ deadlines
    def deadline_for(self, v: verifiers.Verifier, items: int) -> Deadline:
        """The operator's `timeout`, or one that follows the batch: each item's worst case (the
        verifier's time budget, at least the per-item timeout) for each round of the workers, with
        room for every other request that may share them. Its clock starts when the request's first
        item reaches a worker: time spent queued behind another client's items is not its own."""
        if self.limits.timeout is not None:
            return Deadline(self.limits.timeout, started=False)
        per_item = max(ITEM_TIMEOUT_SECONDS, v.time_budget() or 0.0)
        rounds = math.ceil(max(1, items) / worker_count(self.workers))
        return Deadline(per_item * rounds * self.limits.concurrency, started=False)

    def _slot(self, key: str) -> asyncio.Semaphore:
        """The scoring slots of one served verifier (made on its first request)."""
        if key not in self._slots:
            self._slots[key] = asyncio.Semaphore(self.limits.concurrency)
            self._threads[key] = ThreadPoolExecutor(self.limits.concurrency, thread_name_prefix=f"evalkit-{key[:20]}")
        return self._slots[key]

    async def run_scoring(
        self, key: str, work: Callable[[Deadline], Any], deadline: Deadline, request: Request | None
    ) -> Any:
        """`work(deadline)` on one of verifier `key`'s scoring threads, once one of its slots is free.
        It returns by its deadline (what is not scored by then is ERROR, "not scored"); a client that
        disconnects cancels it. A call still running well past its deadline (a verifier that ignores
        it) is answered 504."""
        async with self._slot(key):
            return await self._scored(key, work, deadline, request)

    async def _scored(
        self, key: str, work: Callable[[Deadline], Any], deadline: Deadline, request: Request | None
    ) -> Any:
        future = asyncio.get_running_loop().run_in_executor(self._threads[key], work, deadline)
        while True:
            done, _ = await asyncio.wait({future}, timeout=1.0)
            if done:
                return future.result()
            if request is not None and await request.is_disconnected():
                deadline.cancel()  # nobody waits for these scores any more
            if deadline.left() < -DEADLINE_GRACE_SECONDS:
                deadline.cancel()
                raise Refused("timeout", f"scoring did not end within {deadline.seconds:g} s")

    # ------------------------------------------------------------------ routes
    def _check_count(self, count: int) -> None:
        if count > self.limits.max_items:
            raise Refused(
                "too_many_items", f"{count} items; this server takes at most {self.limits.max_items} per request"
            )

    async def handle_score(self, body: Any, request: Request | None = None) -> dict[str, Any]:
        if not isinstance(body, dict) or not isinstance(body.get("items"), list):
            raise Refused("bad_request", 'expected {"verifier": ..., "items": [{"completion": ..., "task": {...}}]}')
        unknown = sorted(set(body) - {"verifier", "items", "config"})
        if unknown:  # `"verifer": "code"` would score with the default verifier: a swapped reward
            raise Refused(
                "bad_request", f"unknown key {unknown[0][:40]!r} (a request has 'verifier', 'items' and 'config')"
            )
        self._check_count(len(body["items"]))
        completions, tasks = [], []
        for i, item in enumerate(body["items"]):
            if (
                not isinstance(item, dict)
                or not isinstance(item.get("completion"), str)
                or not isinstance(item.get("task"), dict)
            ):
                raise Refused("bad_request", f"items[{i}] needs a string 'completion' and an object 'task'")
            if _depth_over(item["task"], MAX_TASK_DEPTH):
                raise Refused("bad_request", f"items[{i}].task is nested deeper than {MAX_TASK_DEPTH} levels")
            completions.append(item["completion"])
            tasks.append(item["task"])
        key = body["verifier"] if "verifier" in body else self.only_verifier("'verifier' in the body")
        v, client_key = self.verifier(key, body.get("config"))
        try:
            deadline = self.deadline_for(v, len(completions))
            scores = await self.run_scoring(
                key,
                lambda d: v.score_batch(
                    completions, tasks, workers=self.workers, timeout=ITEM_TIMEOUT_SECONDS, deadline=d
                ),
                deadline,
                request,
            )
        finally:
            if client_key is not None:
                self._client.release(client_key)
        self.metrics.scored(scores)
        return {"scores": [s.to_dict() for s in scores]}

    async def handle_openrlhf(self, body: Any, key: str, request: Request | None = None) -> dict[str, Any]:
        from evalkit.adapters.openrlhf import openrlhf_result

        if not isinstance(body, dict) or not all(isinstance(body.get(k), list) for k in ("query", "prompts", "labels")):
            raise Refused("bad_request", 'expected {"query": [...], "prompts": [...], "labels": [...]}')
        queries, prompts, labels = body["query"], body["prompts"], body["labels"]
        if not len(queries) == len(prompts) == len(labels):
            raise Refused("bad_request", "query, prompts and labels differ in length")
        self._check_count(len(queries))
        if any(_depth_over(label, MAX_TASK_DEPTH) for label in labels):
            raise Refused("bad_request", f"a label is nested deeper than {MAX_TASK_DEPTH} levels")
        v, _ = self.verifier(key)  # an unknown key is the request's fault: 4xx
        # the same code as the file route: one bad label is one ERROR item (0.0, flagged), never a 400
        out = await self.run_scoring(
            key,
            lambda d: openrlhf_result(v, queries, prompts, labels, workers=self.workers, deadline=d),
            self.deadline_for(v, len(queries)),
            request,
        )
        self.metrics.items += len(queries)
        return out

    def close(self) -> None:
        with self._lock:
            built, self._built = list(self._built.values()), {}
        for v in built:
            v.close()
        self._client.close()
        for threads in list(self._threads.values()):
            threads.shutdown(wait=False, cancel_futures=True)


def _authorised(request: Request, token: str | None) -> None:
    if token is None:
        return
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer" or not given:
        raise Refused("unauthorized", "this server needs 'Authorization: Bearer <token>'")
    if not hmac.compare_digest(given.strip().encode(), token.encode()):
        raise Refused("forbidden", "wrong token")


def _query_known(request: Request, known: tuple[str, ...]) -> None:
    """A query parameter the route does not read is refused, never ignored: `/score?verifier=code`
    scored with the body's verifier (game24 by default) would swap the reward without a word."""
    unknown = sorted(set(request.query_params.keys()) - set(known))
    if unknown:
        where = "; /score takes its verifier from the body's 'verifier'" if "verifier" in unknown else ""
        raise Refused("bad_request", f"unknown query parameter {unknown[0][:40]!r}{where}")


async def _read_body(request: Request, limits: ServerLimits) -> bytes:
    """The raw body, at most `max_body_bytes` (413) and within `body_seconds` (408): read before the
    request is admitted, so a body that never ends holds no place in the queue."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limits.max_body_bytes:
        raise Refused("too_large", f"request larger than {limits.max_body_bytes} bytes")

    async def read() -> bytes:
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limits.max_body_bytes:
                raise Refused("too_large", f"request larger than {limits.max_body_bytes} bytes")
        return bytes(body)

    try:
        return await asyncio.wait_for(read(), limits.body_seconds)
    except asyncio.TimeoutError:
        raise Refused("slow_body", f"the request body did not arrive within {limits.body_seconds:g} s") from None


# bytes of body per JSON object or array at the least: parsed, each costs 56-200 bytes of memory, so
# a body of empty objects (`{},` is 3 bytes) would hold 20-60 times its size; a real request's items
# (a completion and a task) have tens of bytes per object or more
BYTES_PER_CONTAINER = 8
DENSE_SLACK = 4096  # objects and arrays any body may have (a small body's memory never matters)


def _parse(body: bytes) -> Any:
    """The body as JSON data; a key given twice in one object is refused (parsers disagree on which
    one counts, as they do for a repeated `?verifier=`: a gateway may check the first, we would use the last).
    A body denser in objects and arrays than `BYTES_PER_CONTAINER` is refused before it is parsed (413),
    so that the memory a body takes stays near its size."""
    containers = body.count(b"{") + body.count(b"[")
    if containers > len(body) // BYTES_PER_CONTAINER + DENSE_SLACK:
        raise Refused(
            "too_dense", f"{containers} objects and arrays in {len(body)} bytes: too many for the body's size"
        )
    try:
        return json.loads(body, object_pairs_hook=_unique_keys)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise Refused("bad_request", f"malformed JSON: {exc}") from None
    except RecursionError:
        raise Refused("bad_request", "malformed JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer past Python's digit limit
        raise Refused("bad_request", f"malformed JSON: {str(exc).splitlines()[0][:120]}") from None


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    made = dict(pairs)
    if len(made) != len(pairs):
        repeated = next(key for key, count in collections.Counter(key for key, _ in pairs).items() if count > 1)
        raise ValueError(f"the key {_shown(repeated)} appears twice in one object")
    return made


def _json(content: Any, status: int = 200) -> JSONResponse:
    """A JSON answer that always encodes: text with lone surrogates (a program's exception text) is
    made valid UTF-8 instead of failing the whole response."""
    try:
        return JSONResponse(content, status_code=status)
    except UnicodeEncodeError:
        return JSONResponse(valid_data(content), status_code=status)


def create_app(
    served: Mapping[str, tuple[str, Mapping[str, Any]]] | None = None,
    limits: ServerLimits = ServerLimits(),
    *,
    allow_client_config: bool = False,
    token: str | None = None,
    workers: int | None = None,
) -> Any:
    service = RewardService(served, limits, allow_client_config=allow_client_config, workers=workers)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        service.close()  # on SIGTERM/SIGINT too: uvicorn ends the lifespan before it exits

    # no /docs, /redoc or /openapi.json: a server answers only its routes, and those behind the token
    app = FastAPI(title="evalkit reward server", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.service = service

    def refuse(error: Refused) -> JSONResponse:
        service.metrics.refused(error)
        return _json({"error": error.message}, error.status)

    @app.exception_handler(RoutingError)
    async def not_routed(request: Request, exc: RoutingError) -> JSONResponse:
        """No such path, or not this method: the same one-line JSON as every other refusal."""
        message = f"{request.method} {request.url.path[:100]}: {exc.detail}"
        response = refuse(Refused("not_routed", message, exc.status_code))
        response.headers.update(exc.headers or {})  # `Allow` on a 405
        return response

    @app.exception_handler(Exception)
    async def failed(_request: Request, exc: Exception) -> JSONResponse:
        return refuse(Refused("internal", f"internal error: {type(exc).__name__}: {str(exc)[:200]}"))

    async def respond(handler: Callable[[Any, Request], Any], request: Request, query: tuple[str, ...] = ()) -> Any:
        start = time.perf_counter()
        try:
            _authorised(request, token)
        except Refused as exc:  # refused by reason, never counted as a request (an outsider moves no metric)
            return refuse(exc)
        service.metrics.requests += 1
        try:
            _query_known(request, query)
            with service.body_from(request.client.host if request.client else ""):
                body = await _read_body(request, limits)
            service.admit(len(body))
        except Refused as exc:
            return refuse(exc)
        try:  # the handler waits for a slot of the verifier it names (RewardService.run_scoring)
            return _json(await handler(_parse(body), request))
        except Refused as exc:
            return refuse(exc)
        finally:
            service.leave(len(body))
            service.metrics.latencies.append(time.perf_counter() - start)

    def one_verifier(request: Request) -> str:
        keys = request.query_params.getlist("verifier")
        if len(keys) > 1:
            raise Refused("bad_request", "?verifier= given more than once")
        return keys[0] if keys else service.only_verifier("?verifier=")

    @app.post("/score")
    async def score(request: Request) -> Any:
        return await respond(service.handle_score, request)  # its verifier is the body's, never the query's

    @app.post("/openrlhf")
    async def openrlhf(request: Request) -> Any:  # the verifier is read after the token is checked
        return await respond(
            lambda body, req: service.handle_openrlhf(body, one_verifier(req), req), request, ("verifier",)
        )

    @app.get("/health")
    async def health() -> Any:
        return {"status": "ok"}

    @app.get("/metrics")
    async def metrics(request: Request) -> Any:
        try:
            _authorised(request, token)
        except Refused as exc:
            return refuse(exc)
        return PlainTextResponse(service.metrics.text())

    return app
