"""`evalkit serve`: an HTTP reward server that serves only what its operator configured.

- POST /score    {"verifier": KEY, "items": [{"completion": "...", "task": {...}}]}
                 -> {"scores": [Score.to_dict(), ...]}
- POST /openrlhf {"query": [...], "prompts": [...], "labels": [...]} (OpenRLHF's remote reward
                 protocol; `?verifier=KEY`, default game24) -> {"rewards", "scores", "extra_logs"}
- GET /health (no token needed), GET /metrics (Prometheus text format).

What it serves is fixed at start: `served` maps a key to a verifier name and its config (the
default: every installed verifier at its default config). Each is built once, on first use. A
request names a key; a `config` in a request is refused (403) unless the operator opted in with
`allow_client_config`, and then the verifiers it builds live in a small LRU whose evicted members
are closed, so no client can grow the server's processes or change its rewards unasked.

Refusals: 401 no bearer token / 403 wrong token (when a token is set), 403 client config, 404
unknown key, 413 request too large or too many items, 429 too many requests waiting, 504 timeout.
Each answers one line `{"error": ...}` and is counted in /metrics.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hmac
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Mapping

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse

import verifiers
from verifiers import verdict_counts
from verifiers.score import ITEM_TIMEOUT_SECONDS


class HTTPError(Exception):
    def __init__(self, status: int, message: str, reason: str = "bad_request") -> None:
        super().__init__(message)
        self.status, self.message, self.reason = status, message, reason


@dataclass
class Metrics:
    requests: int = 0
    failures: dict[int, int] = field(default_factory=dict)
    refusals: dict[str, int] = field(default_factory=dict)
    items: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)

    def refused(self, error: HTTPError) -> None:
        self.failures[error.status] = self.failures.get(error.status, 0) + 1
        self.refusals[error.reason] = self.refusals.get(error.reason, 0) + 1

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
        recent = sorted(self.latencies[-1000:])
        for q in (0.5, 0.95):
            value = recent[min(len(recent) - 1, int(q * len(recent)))] if recent else 0.0
            lines.append(f'evalkit_request_seconds{{quantile="{q}"}} {value:.6f}')
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class ServerLimits:
    """What one request may ask of the server."""

    concurrency: int = 4  # requests scored at once
    max_waiting: int = 64  # requests queued beyond those; more get 429
    timeout: float = 60.0  # seconds per request before a 504
    max_body_bytes: int = 8 << 20
    max_items: int = 4096  # items per request; more get 413
    max_client_configs: int = 8  # verifiers built from client configs kept at once (with the opt-in)


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
                    raise HTTPError(429, f"all {self.size} client-config verifiers are busy; retry later", "busy")
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
        self.slots = asyncio.Semaphore(limits.concurrency)
        self.pending = 0
        self.metrics = Metrics()
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

    def verifier(self, key: Any, config: Any = None) -> tuple[verifiers.Verifier, str | None]:
        """The verifier a request names, and the client-config key to release after it (or None)."""
        if not isinstance(key, str):
            raise HTTPError(400, "'verifier' must be a string")
        if key not in self.served:
            raise HTTPError(404, f"unknown verifier {key!r}: this server serves {sorted(self.served)}", "unknown")
        if config is not None and not isinstance(config, dict):
            raise HTTPError(400, "'config' must be an object")
        name, served_config = self.served[key]
        if not config or config == served_config:
            return self._served_verifier(key), None
        if not self.allow_client_config:
            raise HTTPError(
                403,
                f"this server scores {key!r} with its operator's config only; a request may not set 'config' "
                "(the operator can start it with --allow-client-config)",
                "client_config",
            )
        merged = {**served_config, **config}
        client_key = json.dumps([name, merged], sort_keys=True)

        def build() -> verifiers.Verifier:
            try:
                return verifiers.get(name, merged)
            except (TypeError, ValueError) as exc:
                raise HTTPError(400, f"bad config: {exc}") from None

        return self._client.acquire(client_key, build), client_key

    def admit(self) -> None:
        if self.pending >= self.limits.concurrency + self.limits.max_waiting:
            raise HTTPError(429, f"{self.pending} requests in progress or waiting; retry later", "busy")
        self.pending += 1

    async def score(self, v: verifiers.Verifier, completions: list[str], tasks: list[dict]) -> list[verifiers.Score]:
        async with self.slots:
            try:
                scores = await asyncio.wait_for(
                    v.ascore_batch(completions, tasks, workers=self.workers, timeout=ITEM_TIMEOUT_SECONDS),
                    self.limits.timeout,
                )
            except asyncio.TimeoutError:
                raise HTTPError(504, f"scoring took longer than {self.limits.timeout:g} s", "timeout") from None
        self.metrics.items += len(scores)
        for verdict, count in verdict_counts(scores).items():
            self.metrics.verdicts[verdict] = self.metrics.verdicts.get(verdict, 0) + count
        return scores

    def _check_count(self, count: int) -> None:
        if count > self.limits.max_items:
            raise HTTPError(
                413, f"{count} items; this server takes at most {self.limits.max_items} per request", "too_many_items"
            )

    async def handle_score(self, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict) or not isinstance(body.get("items"), list):
            raise HTTPError(400, 'expected {"verifier": ..., "items": [{"completion": ..., "task": {...}}]}')
        self._check_count(len(body["items"]))
        completions, tasks = [], []
        for i, item in enumerate(body["items"]):
            if (
                not isinstance(item, dict)
                or not isinstance(item.get("completion"), str)
                or not isinstance(item.get("task"), dict)
            ):
                raise HTTPError(400, f"items[{i}] needs a string 'completion' and an object 'task'")
            completions.append(item["completion"])
            tasks.append(item["task"])
        v, client_key = self.verifier(body.get("verifier", "game24"), body.get("config"))
        try:
            scores = await self.score(v, completions, tasks)
        finally:
            if client_key is not None:
                self._client.release(client_key)
        return {"scores": [s.to_dict() for s in scores]}

    async def handle_openrlhf(self, body: Any, key: str) -> dict[str, Any]:
        from evalkit.adapters.openrlhf import openrlhf_result

        if not isinstance(body, dict) or not all(isinstance(body.get(k), list) for k in ("query", "prompts", "labels")):
            raise HTTPError(400, 'expected {"query": [...], "prompts": [...], "labels": [...]}')
        queries, prompts, labels = body["query"], body["prompts"], body["labels"]
        if not len(queries) == len(prompts) == len(labels):
            raise HTTPError(400, "query, prompts and labels differ in length")
        self._check_count(len(queries))
        v, _ = self.verifier(key)  # an unknown key is the request's fault: 4xx
        # the same code as the file route: one bad label is one ERROR item (0.0, flagged), never a 400
        async with self.slots:
            try:
                out = await asyncio.wait_for(
                    asyncio.to_thread(openrlhf_result, v, queries, prompts, labels), self.limits.timeout
                )
            except asyncio.TimeoutError:
                raise HTTPError(504, f"scoring took longer than {self.limits.timeout:g} s", "timeout") from None
        self.metrics.items += len(queries)
        return out

    def close(self) -> None:
        with self._lock:
            built, self._built = list(self._built.values()), {}
        for v in built:
            v.close()
        self._client.close()


def _authorised(request: Request, token: str | None) -> None:
    if token is None:
        return
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer" or not given:
        raise HTTPError(401, "this server needs 'Authorization: Bearer <token>'", "unauthorized")
    if not hmac.compare_digest(given.strip().encode(), token.encode()):
        raise HTTPError(403, "wrong token", "forbidden")


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

    app = FastAPI(title="evalkit reward server", lifespan=lifespan)
    app.state.service = service

    async def read_json(request: Request) -> Any:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limits.max_body_bytes:
            raise HTTPError(413, f"request larger than {limits.max_body_bytes} bytes", "too_large")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limits.max_body_bytes:
                raise HTTPError(413, f"request larger than {limits.max_body_bytes} bytes", "too_large")
        try:
            return json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise HTTPError(400, f"malformed JSON: {exc}") from None

    def refuse(error: HTTPError) -> JSONResponse:
        service.metrics.refused(error)
        return JSONResponse({"error": error.message}, status_code=error.status)

    async def respond(handler, request: Request) -> Any:
        start = time.perf_counter()
        service.metrics.requests += 1
        try:
            _authorised(request, token)
            service.admit()
        except HTTPError as exc:
            return refuse(exc)
        try:
            return JSONResponse(await handler(await read_json(request)))
        except HTTPError as exc:
            return refuse(exc)
        finally:
            service.pending -= 1
            service.metrics.latencies.append(time.perf_counter() - start)

    @app.post("/score")
    async def score(request: Request) -> Any:
        return await respond(service.handle_score, request)

    @app.post("/openrlhf")
    async def openrlhf(request: Request, verifier: str = "game24") -> Any:
        return await respond(lambda body: service.handle_openrlhf(body, verifier), request)

    @app.get("/health")
    async def health() -> Any:
        return {"status": "ok"}

    @app.get("/metrics")
    async def metrics(request: Request) -> Any:
        try:
            _authorised(request, token)
        except HTTPError as exc:
            return refuse(exc)
        return PlainTextResponse(service.metrics.text())

    return app
