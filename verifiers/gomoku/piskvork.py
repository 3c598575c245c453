"""An external engine (Rapfi, KataGomo, …) as an oracle, over the Piskvork protocol.

The engine is the user's binary; evalkit never bundles one (their licences are GPL). The engine
plays both sides from the position after the model's move; the outcome for the model's side is
the reward. Piskvork coordinates are `x,y` = column,row from the top left, 0-based.
"""

from __future__ import annotations

import select
import subprocess
import time

from .board import EMPTY, geometry, makes_five
from .position import Position


class EngineError(RuntimeError):
    """The engine did not answer as the protocol says (an infrastructure failure: scored ERROR)."""


class PiskvorkEngine:
    def __init__(self, command: str, timeout: float = 5.0) -> None:
        self.command = command
        self.timeout = timeout
        self.proc = subprocess.Popen(
            [command], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1
        )
        self.size: int | None = None

    def _send(self, line: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise EngineError(f"engine {self.command} closed its input: {exc}") from None

    def _read(self) -> str:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                raise EngineError(f"engine {self.command} gave no answer within {self.timeout:g} s")
            line = self.proc.stdout.readline()
            if not line:
                raise EngineError(f"engine {self.command} exited")
            line = line.strip()
            if line and not line.upper().startswith(("MESSAGE", "DEBUG", "UNKNOWN")):
                return line

    def best_move(self, position: Position) -> int:
        if self.size != position.size:
            self._send(f"START {position.size}")
            if self._read().upper() != "OK":
                raise EngineError(f"engine refused a {position.size}x{position.size} board")
            self.size = position.size
        self._send("BOARD")
        for cell, stone in enumerate(position.stones):
            if stone != EMPTY:
                r, c = divmod(cell, position.size)
                self._send(f"{c},{r},{1 if stone == position.to_move else 2}")
        self._send("DONE")
        answer = self._read()
        try:
            x, y = (int(v) for v in answer.split(","))
        except ValueError:
            raise EngineError(f"engine answered {answer!r}, not 'x,y'") from None
        cell = y * position.size + x
        if not (0 <= x < position.size and 0 <= y < position.size) or position.stones[cell] != EMPTY:
            raise EngineError(f"engine proposed an illegal move {answer!r}")
        return cell

    def playout(self, position: Position, player: int) -> float:
        """Engine against itself from `position` to the end; the outcome for `player`."""
        geo = geometry(position.size)
        while EMPTY in position.stones:
            cell = self.best_move(position)
            mover = position.to_move
            position = position.play(cell)
            if makes_five(list(position.stones), geo, cell, mover):
                return 1.0 if mover == player else 0.0
        return 0.5

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self._send("END")
                self.proc.wait(1)
            except (EngineError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
