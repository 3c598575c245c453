"""Any OpenAI-compatible server (`vllm serve`, SGLang, a hosted API): chat completions over HTTP
with a concurrency limit, retries with backoff on 429/5xx and timeouts, and a per-request timeout.
Each sample is its own request (n=1), so every sample gets its own token count and finish reason."""

from __future__ import annotations

import asyncio
import os
import random
import threading
from typing import Any

from .base import Conversation, Generation, Sampling, prompt_seed

RETRYABLE = {408, 409, 429, 500, 502, 503, 504}


class GenerationFailed(RuntimeError):
    """The server kept failing after every retry."""


class OpenAIBackend:
    name = "openai"

    def __init__(
        self,
        model: str | None = None,
        base_url: str = "http://127.0.0.1:8000/v1",
        api_key: str | None = None,
        concurrency: int = 16,
        timeout: float = 120.0,
        retries: int = 4,
    ) -> None:
        self.model_name = model or "default"
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY", "EMPTY")
        self.concurrency = concurrency
        self.timeout = timeout
        self.retries = retries

    def generate(self, conversations: list[Conversation], sampling: Sampling) -> list[list[Generation]]:
        """The requests run on an event loop in a daemon thread while this thread waits: Ctrl-C
        ends the wait at once (the CLI then keeps what was finished), where asyncio's own
        cancellation could wait on a hung server's open connections until their timeout."""
        outcome: dict[str, Any] = {}

        def requests() -> None:
            try:
                outcome["value"] = asyncio.run(self._generate_all(conversations, sampling))
            except BaseException as exc:  # handed to the waiting thread
                outcome["error"] = exc

        worker = threading.Thread(target=requests, name="evalkit-openai-requests", daemon=True)
        worker.start()
        while worker.is_alive():
            worker.join(0.1)
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]

    async def _generate_all(self, conversations: list[Conversation], sampling: Sampling) -> list[list[Generation]]:
        import httpx

        limit = asyncio.Semaphore(self.concurrency)
        headers = {"Authorization": f"Bearer {self.api_key}"}
        async with httpx.AsyncClient(base_url=self.base_url, headers=headers, timeout=self.timeout) as client:

            async def one(conv: Conversation, k: int) -> Generation:
                async with limit:
                    return await self._request(
                        client, conv, sampling, prompt_seed(sampling.seed, conv[-1]["content"]) + k
                    )

            tasks = [[one(c, k) for k in range(sampling.n)] for c in conversations]
            flat = await asyncio.gather(*(t for group in tasks for t in group))
        return [flat[i * sampling.n : (i + 1) * sampling.n] for i in range(len(conversations))]

    async def _request(self, client: Any, conv: Conversation, sampling: Sampling, seed: int) -> Generation:
        import httpx

        body = {
            "model": self.model_name,
            "messages": conv,
            "n": 1,
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            "max_tokens": sampling.max_tokens,
            "seed": seed,
            **sampling.extra,
        }
        last = ""
        for attempt in range(self.retries + 1):
            try:
                response = await client.post("/chat/completions", json=body)
                if response.status_code == 200:
                    data = response.json()
                    choice = data["choices"][0]
                    tokens = int(data.get("usage", {}).get("completion_tokens", 0))
                    reason = "length" if choice.get("finish_reason") == "length" else "stop"
                    return Generation(choice["message"].get("content") or "", tokens, reason)
                last = f"HTTP {response.status_code}: {response.text[:200]}"
                if response.status_code not in RETRYABLE:
                    break
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                last = f"{type(exc).__name__}: {exc}"
            await asyncio.sleep(min(8.0, 0.25 * 2**attempt) * (0.5 + random.random()))
        raise GenerationFailed(f"{self.base_url}/chat/completions failed after {self.retries + 1} tries: {last}")

    def close(self) -> None:
        pass
