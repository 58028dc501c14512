"""What a read leaves behind (the recall log that `why` reads, the recalled counters), written
after the answer by one background thread, in batches. A read never waits for the store's write
lock: when another process holds it, the records wait here in a bounded queue, and those that do
not fit are dropped and counted (a warning says how many) rather than delaying any answer."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from cenotaph.store.connect import StoreBusy, StoreUnavailable

log = logging.getLogger(__name__)

CAPACITY = 1_000  # records waiting for the store; beyond, new ones are dropped and counted
BATCH = 100  # records written in one transaction
# Each attempt's wait for the write lock: short, as this process's own writes queue behind it.
WRITE_WAIT_SECONDS = 0.5
RETRY_SECONDS = 0.5  # between attempts while another process holds the lock
CLOSE_WAIT_SECONDS = 5.0  # how long closing waits for what is still queued
_POLL_SECONDS = 0.2  # how often an idle recorder looks whether it is closing

# One read's trace: called with the connection of a write transaction.
Record = Callable[[Any], None]


class Recorder:
    def __init__(self, store: Any, *, capacity: int = CAPACITY) -> None:
        self._store = store
        self._queue: queue.Queue[Record] = queue.Queue(maxsize=capacity)
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._stop = threading.Event()
        self._idle = threading.Condition()
        self._unwritten = 0  # queued or being written
        self.dropped = 0  # never written: the queue was full, the store stayed busy or refused them

    def record(self, entry: Record) -> None:
        """Queue `entry` to be called in a write transaction; never waits."""
        self._start()
        with self._idle:
            self._unwritten += 1
        try:
            self._queue.put_nowait(entry)
        except queue.Full:
            self._lost(1, "the store is busy and the queue of reads' records is full")

    def flush(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for what is queued to be written (or given up); True if
        nothing is left. Within one process, a recall is then in the log its caller reads next."""
        with self._idle:
            return self._idle.wait_for(lambda: self._unwritten == 0, timeout)

    def close(self, timeout: float = CLOSE_WAIT_SECONDS) -> None:
        """Write what is queued (waiting at most `timeout` seconds; the rest is dropped), then stop."""
        if self._thread is None:
            return
        self.flush(timeout)
        self._stop.set()
        self._thread.join(WRITE_WAIT_SECONDS + 1)

    def _start(self) -> None:
        if self._thread is not None:
            return
        with self._start_lock:
            if self._thread is None:
                # A daemon: a store that stays busy must not keep the process from ending.
                self._thread = threading.Thread(target=self._run, name="cenotaph-recorder", daemon=True)
                self._thread.start()

    def _take(self, batch: list[Record]) -> None:
        """Fill `batch` from the queue: wait a moment for a first record, not for more."""
        try:
            if not batch:
                batch.append(self._queue.get(timeout=_POLL_SECONDS))
            while len(batch) < BATCH:
                batch.append(self._queue.get_nowait())
        except queue.Empty:
            pass

    def _run(self) -> None:
        batch: list[Record] = []
        while True:
            self._take(batch)
            if not batch:
                if self._stop.is_set():
                    return
                continue
            if self._write(batch):
                batch = []
            elif self._stop.is_set():  # closing, and the store is still busy: give the rest up
                while not self._queue.empty():
                    self._take(batch)
                self._lost(len(batch), "the store was still busy when it closed")
                batch = []
            else:
                self._stop.wait(RETRY_SECONDS)

    def _write(self, batch: list[Record]) -> bool:
        """True when `batch` is done with (written, or dropped); False to try again later."""
        try:
            with self._store.write(wait=WRITE_WAIT_SECONDS) as conn:
                for entry in batch:
                    entry(conn)
        except StoreBusy:
            return False
        except StoreUnavailable as exc:  # a full disk, a read-only store: the answers were given
            self._lost(len(batch), str(exc))
            return True
        except Exception:  # noqa: BLE001 - a record that cannot be written must not stop the others
            log.exception("writing what reads recorded")
            self._lost(len(batch), "an error")
            return True
        self._done(len(batch))
        return True

    def _lost(self, count: int, why: str) -> None:
        with self._idle:
            self.dropped += count
            dropped = self.dropped
        log.warning("dropped %d read record(s) (recall log, recalled counters; %d in all): %s", count, dropped, why)
        self._done(count)

    def _done(self, count: int) -> None:
        with self._idle:
            self._unwritten -= count
            self._idle.notify_all()
