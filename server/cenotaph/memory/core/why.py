"""`why TOPIC`: which recalls of the last 30 days surfaced memories (or graveyard warnings) about
TOPIC, from the recall log."""

from __future__ import annotations

import json
import re
from datetime import timedelta

from cenotaph.memory import validate
from cenotaph.memory.context import TIME_FORMAT, Context
from cenotaph.memory.core.recall import RECALL_LOG_DAYS
from cenotaph.memory.graveyard.verdicts import guess_ecosystem
from cenotaph.memory.models import WhyRecall, WhyReport
from cenotaph.nlp import ecosystems, names
from cenotaph.store import memories, recall_log
from cenotaph.store.records import MemoryRow


def why(ctx: Context, topic: str, project: str) -> WhyReport:
    topic = validate.text(topic, "topic", max_length=300).strip()
    project = validate.project(project)
    since = (ctx.clock() - timedelta(days=RECALL_LOG_DAYS)).strftime(TIME_FORMAT)
    keys = {ecosystems.normalize(topic, guess_ecosystem(topic)), names.fold(topic)}
    words = [w.lower() for w in re.findall(r"\w+", topic)]
    topic_lemmas = set(ctx.analyzer.lemmas(topic).split())

    def about(row: MemoryRow | None, entities: set[str]) -> bool:
        if row is None or row.state == "deleted":
            return False
        if keys & entities:
            return True
        in_words = all(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", row.content, re.IGNORECASE) for w in words)
        return in_words or (bool(topic_lemmas) and topic_lemmas <= set(row.lemmas.split()))

    recalls = []
    with ctx.store.read() as conn:
        logged = recall_log.since(conn, project, since)
        parsed = [(entry, json.loads(entry.results)) for entry in logged]
        memory_ids = {r["id"] for _, results in parsed for r in results if r.get("type") == "memory"}
        verdicts = {}
        for memory_id in memory_ids:
            row = memories.current(conn, memory_id)
            verdicts[memory_id] = about(row, set(memories.entities_of(conn, row.id)) if row else set())
    for entry, results in parsed:
        surfaced = [r for r in results if r.get("type") == "memory" and verdicts.get(r["id"])]
        warned = [r["name"] for r in results if r.get("type") == "abandoned_warning" and r.get("name") in keys]
        if surfaced or warned:
            recalls.append(WhyRecall(at=entry.at, actor=entry.actor, query=entry.query,
                                     memory_ids=[r["id"] for r in surfaced], scores=[r["score"] for r in surfaced],
                                     approaches=warned))
    return WhyReport(topic=topic, project=project, since=since, recalls=recalls)
