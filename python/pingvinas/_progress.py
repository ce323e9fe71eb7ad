"""The progress bar of matches and self-play (stderr, no dependency)."""

from __future__ import annotations

import sys
import threading
import time

__all__ = ["Progress"]


class Progress:
    """A plain progress bar on stderr. On a terminal it redraws one line with ``\\r``; elsewhere
    (logs, CI) it prints a plain line every ``every`` seconds and at the end."""

    def __init__(self, total: int, enabled: bool, every: float = 10.0) -> None:
        self.total, self.done, self.enabled = total, 0, enabled
        self.start = time.monotonic()
        self.lock = threading.Lock()
        self.tty = sys.stderr.isatty()
        self.every, self.last = every, float("-inf")
        self._draw()

    def tick(self, games: int = 1) -> None:
        with self.lock:
            self.done += games
            self._draw()

    def _draw(self) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * self.done / max(self.total, 1))
        elapsed = time.monotonic() - self.start
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        bar = "#" * filled + "." * (width - filled)
        line = f"[{bar}] {self.done}/{self.total} games  {elapsed:.0f}s elapsed, ~{eta:.0f}s left"
        if self.tty:
            sys.stderr.write(f"\r{line} " + ("\n" if self.done == self.total else ""))
        elif self.done == self.total or elapsed - self.last >= self.every:
            self.last = elapsed
            sys.stderr.write(line + "\n")
        else:
            return
        sys.stderr.flush()
