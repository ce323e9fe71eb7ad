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
        self.closed = False
        self._draw()

    def tick(self, games: int = 1) -> None:
        with self.lock:
            self.done += games
            self._draw()

    def close(self) -> None:
        """Ends a bar stopped short of its total (a match stopped early, by its test or
        Ctrl-C): its last state is drawn and its line ended, so that what is printed next has
        a line of its own."""
        with self.lock:
            if self.closed or self.done >= self.total:
                return
            self.closed = True
            self.every = 0.0  # off a terminal: draw now, however recent the last line
            self._draw()
            if self.enabled and self.tty:
                sys.stderr.write("\n")
                sys.stderr.flush()

    def _draw(self) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * self.done / max(self.total, 1))
        elapsed = time.monotonic() - self.start
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        bar = "#" * filled + "." * (width - filled)
        rest = "stopped" if self.closed else f"~{eta:.0f}s left"
        line = f"[{bar}] {self.done}/{self.total} games  {elapsed:.0f}s elapsed, {rest}"
        if self.tty:
            sys.stderr.write(f"\r{line} " + ("\n" if self.done == self.total else ""))
        elif self.done == self.total or elapsed - self.last >= self.every:
            self.last = elapsed
            sys.stderr.write(line + "\n")
        else:
            return
        sys.stderr.flush()
