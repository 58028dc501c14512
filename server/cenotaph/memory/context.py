"""What every domain operation works with: the store, the embedder, the analyzer and a clock."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from typing import Any

from cenotaph.memory.errors import InvalidInput, Unavailable
from cenotaph.nlp.analysis import Analyzer
from cenotaph.nlp.embedder import Embedder, EmbedderUnavailable
from cenotaph.store import events, vectors
from cenotaph.store.db import Store

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def format_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime(TIME_FORMAT)


def parse_time(value: str, field_name: str) -> str:
    """A user's date or date-time (ISO 8601; naive means UTC) in the store's format."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("expected an ISO 8601 date or date-time", field=field_name)
    text = value.strip()
    try:
        if len(text) == 10:
            moment = datetime.combine(date.fromisoformat(text), time(), tzinfo=UTC)
        else:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
        if not 1900 <= moment.astimezone(UTC).year <= 9998:
            raise ValueError("year out of range")
    except (ValueError, OverflowError) as exc:
        raise InvalidInput(f"cannot read {value!r} as a date ({exc})", field=field_name) from None
    return format_time(moment)


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(slots=True)
class Context:
    store: Store
    embedder: Embedder
    analyzer: Analyzer
    clock: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    # Reads costly at scale, kept while the event log's head stays where it was: every write appends
    # an event in its own transaction, so a write by any process (or door) moves the head.
    _by_head: dict[Any, tuple[int, Any]] = field(default_factory=dict)
    # The vector table, once seen, stays: a reindex drops and makes it again in one transaction.
    _vectors_made: bool = False

    def now(self) -> str:
        return format_time(self.clock())

    def per_head(self, key: Any, compute: Callable[[], Any]) -> Any:
        """`compute()`, or what it gave for `key` at the log's present head. The head is read first:
        a write landing during the computation leaves a newer answer under an older head, which
        the next call recomputes, never a stale one kept."""
        with self.store.read() as conn:
            head = events.last_seq(conn)
        kept = self._by_head.get(key)
        if kept is not None and kept[0] == head:
            return kept[1]
        value = compute()
        if len(self._by_head) >= 64:  # keys are few (a project and a limit); a bound all the same
            self._by_head.clear()
        self._by_head[key] = (head, value)
        return value

    def event(self, conn: Any, *, actor: str, action: str, target: str, project: str,
              before: Any = None, after: Any = None, reason: str | None = None) -> int:
        return events.append(conn, at=self.now(), actor=actor, action=action, target=target, project=project,
                             before=before, after=after, reason=reason)

    def vectors_current(self) -> bool:
        """True when the vec0 table was built by the configured model."""
        return self.store.get_meta("embedding_model") == self.embedder.model_name

    def ensure_vectors(self) -> None:
        """Create the vec0 table for the configured model on a new store. A store built with
        another model keeps its vectors until `cenotaph reindex`; recall notes the mismatch. Asked
        once a process (a read of its own on every remember: four round trips on PostgreSQL)."""
        if self._vectors_made:
            return
        with self.store.read() as conn:
            if vectors.dimension(conn) is not None:
                self._vectors_made = True
                return
        with self.store.write() as conn:
            if vectors.dimension(conn) is None:
                vectors.create(conn, self.embedder.dim)
                self.store.set_meta(conn, "embedding_model", self.embedder.model_name)
                self.store.set_meta(conn, "embedding_dim", str(self.embedder.dim))
        self._vectors_made = True

    def embed(self, text: str):
        try:
            return self.embedder.embed_one(text)
        except EmbedderUnavailable as exc:
            raise Unavailable(str(exc), field="model") from exc
