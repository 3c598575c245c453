"""A loopback server that speaks the OpenAI chat-completions protocol, for testing our real client.
(A fake is fine here: we do not ship the remote API, only the client.)"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeOpenAI:
    """Answers each chat request with a deterministic completion; can fail the first N requests."""

    def __init__(self, fail_first: int = 0, status: int = 503, slow_after: int | None = None) -> None:
        self.requests: list[dict] = []
        self.fail_first = fail_first
        self.status = status
        self.slow_after = slow_after  # requests after this many hang (to interrupt a run mid-way)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                if len(outer.requests) <= outer.fail_first:
                    self.send_response(outer.status)
                    self.end_headers()
                    self.wfile.write(b'{"error": "try again"}')
                    return
                if outer.slow_after is not None and len(outer.requests) > outer.slow_after:
                    import time

                    time.sleep(60)
                prompt = body["messages"][-1]["content"]
                numbers = prompt.split("Now solve: ")[-1].split()
                text = f"Answer: {' + '.join(numbers)} = 24"
                long = body["max_tokens"] < 8
                reply = {
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "length" if long else "stop",
                        }
                    ],
                    "usage": {"completion_tokens": min(body["max_tokens"], 12)},
                }
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "FakeOpenAI":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
