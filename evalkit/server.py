"""`evalkit serve`: an HTTP reward server.

- POST /score    {"verifier": "game24", "config": {...}, "items": [{"completion": "...", "task": {...}}]}
                 -> {"scores": [Score.to_dict(), ...]}
- POST /openrlhf {"query": [...], "prompts": [...], "labels": [...]} (OpenRLHF's remote reward
                 protocol; `?verifier=NAME`, default game24) -> {"rewards", "scores", "extra_logs"}
- GET /health, GET /metrics (Prometheus text format).
Limits: at most `concurrency` requests scored at once (others wait), a request size limit (413),
a per-request timeout (504). Malformed JSON or fields -> 400, unknown verifier -> 404.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse

import verifiers
from verifiers import verdict_counts


class HTTPError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


@dataclass
class Metrics:
    requests: int = 0
    failures: dict[int, int] = field(default_factory=dict)
    items: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)

    def text(self) -> str:
        lines = [
            "# TYPE evalkit_requests_total counter",
            f"evalkit_requests_total {self.requests}",
            "# TYPE evalkit_items_scored_total counter",
            f"evalkit_items_scored_total {self.items}",
        ]
        lines += [f'evalkit_responses_failed_total{{status="{k}"}} {v}' for k, v in sorted(self.failures.items())]
        lines += [f'evalkit_verdicts_total{{verdict="{k}"}} {v}' for k, v in sorted(self.verdicts.items())]
        recent = sorted(self.latencies[-1000:])
        for q in (0.5, 0.95):
            value = recent[min(len(recent) - 1, int(q * len(recent)))] if recent else 0.0
            lines.append(f'evalkit_request_seconds{{quantile="{q}"}} {value:.6f}')
        return "\n".join(lines) + "\n"


class RewardService:
    """The scoring behind the HTTP layer (kept separate so it can be tested and reused)."""

    def __init__(self, concurrency: int = 4, timeout: float = 60.0, workers: int | None = None) -> None:
        self.slots = asyncio.Semaphore(concurrency)
        self.timeout = timeout
        self.workers = workers
        self.metrics = Metrics()
        self._verifiers: dict[str, verifiers.Verifier] = {}
        self._lock = threading.Lock()

    def verifier(self, name: Any, config: Any) -> verifiers.Verifier:
        if not isinstance(name, str):
            raise HTTPError(400, "'verifier' must be a string")
        if not isinstance(config, dict):
            raise HTTPError(400, "'config' must be an object")
        key = json.dumps([name, config], sort_keys=True)
        with self._lock:
            if key not in self._verifiers:
                try:
                    self._verifiers[key] = verifiers.get(name, **config)
                except verifiers.UnknownVerifier as exc:
                    raise HTTPError(404, str(exc)) from None
                except (TypeError, ValueError) as exc:
                    raise HTTPError(400, f"bad config: {exc}") from None
            return self._verifiers[key]

    async def score(self, v: verifiers.Verifier, completions: list[str], tasks: list[dict]) -> list[verifiers.Score]:
        async with self.slots:
            try:
                scores = await asyncio.wait_for(
                    v.ascore_batch(completions, tasks, workers=self.workers, timeout=min(self.timeout, 60)),
                    self.timeout,
                )
            except asyncio.TimeoutError:
                raise HTTPError(504, f"scoring took longer than {self.timeout:g} s") from None
        self.metrics.items += len(scores)
        for verdict, count in verdict_counts(scores).items():
            self.metrics.verdicts[verdict] = self.metrics.verdicts.get(verdict, 0) + count
        return scores

    async def handle_score(self, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict) or not isinstance(body.get("items"), list):
            raise HTTPError(400, 'expected {"verifier": ..., "items": [{"completion": ..., "task": {...}}]}')
        v = self.verifier(body.get("verifier", "game24"), body.get("config", {}))
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
        scores = await self.score(v, completions, tasks)
        return {"scores": [s.to_dict() for s in scores]}

    async def handle_openrlhf(self, body: Any, verifier_name: str) -> dict[str, Any]:
        import asyncio

        from evalkit.adapters.openrlhf import openrlhf_result

        if not isinstance(body, dict) or not all(isinstance(body.get(k), list) for k in ("query", "prompts", "labels")):
            raise HTTPError(400, 'expected {"query": [...], "prompts": [...], "labels": [...]}')
        queries, prompts, labels = body["query"], body["prompts"], body["labels"]
        if not len(queries) == len(prompts) == len(labels):
            raise HTTPError(400, "query, prompts and labels differ in length")
        self.verifier(verifier_name, {})  # an unknown verifier is the request's fault: 4xx
        # the same code as the file route: one bad label is one ERROR item (0.0, flagged), never a 400
        async with self.slots:
            try:
                out = await asyncio.wait_for(
                    asyncio.to_thread(openrlhf_result, verifier_name, queries, prompts, labels), self.timeout
                )
            except asyncio.TimeoutError:
                raise HTTPError(504, f"scoring took longer than {self.timeout:g} s") from None
        self.metrics.items += len(queries)
        return out

    def close(self) -> None:
        for v in self._verifiers.values():
            v.close()


def create_app(
    concurrency: int = 4, timeout: float = 60.0, max_body_bytes: int = 8 << 20, workers: int | None = None
) -> Any:
    app = FastAPI(title="evalkit reward server")
    service = RewardService(concurrency, timeout, workers)
    app.state.service = service

    async def read_json(request: Request) -> Any:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_body_bytes:
            raise HTTPError(413, f"request larger than {max_body_bytes} bytes")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > max_body_bytes:
                raise HTTPError(413, f"request larger than {max_body_bytes} bytes")
        try:
            return json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise HTTPError(400, f"malformed JSON: {exc}") from None

    async def respond(handler, request: Request) -> Any:
        start = time.perf_counter()
        service.metrics.requests += 1
        try:
            result = await handler(await read_json(request))
            return JSONResponse(result)
        except HTTPError as exc:
            service.metrics.failures[exc.status] = service.metrics.failures.get(exc.status, 0) + 1
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        finally:
            service.metrics.latencies.append(time.perf_counter() - start)

    @app.post("/score")
    async def score(request: Request) -> Any:
        return await respond(service.handle_score, request)

    @app.post("/openrlhf")
    async def openrlhf(request: Request, verifier: str = "game24") -> Any:
        return await respond(lambda body: service.handle_openrlhf(body, verifier), request)

    @app.get("/health")
    async def health() -> Any:
        return {"status": "ok", "verifiers": verifiers.names()}

    @app.get("/metrics")
    async def metrics() -> Any:
        return PlainTextResponse(service.metrics.text())

    @app.on_event("shutdown")
    async def shutdown() -> None:
        service.close()

    return app
