"""The process the crash test kills: a stream of writes through the domain, one JSON line on
stdout as each is acknowledged (after its transaction committed), and in `reindex` and
`restore` mode that maintenance running on a second thread meanwhile. Before each write it
names the write in flight, so that the test knows which one the kill may have cut short.

Usage: python -m tests.reliability.crash_writer DB MODE SEED [BACKUP]   (MODE: writes|reindex|restore)"""

from __future__ import annotations

import json
import random
import sys
import threading

from cenotaph.app import open_memory
from cenotaph.memory.models import Actor

WRITER = Actor(name="crash-writer", kind="human")
PROJECT = "crash/project"
MAX_WRITES = 100_000
_out = threading.Lock()


def say(**message) -> None:
    with _out:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def maintenance(memory, mode: str, backup: str | None) -> None:
    say(maintenance="started")
    if mode == "reindex":
        memory.reindex()
    else:
        memory.restore(WRITER, backup)
    say(maintenance="done")


def main() -> int:
    db, mode, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    backup = sys.argv[4] if len(sys.argv) > 4 else None
    rng = random.Random(seed)
    memory = open_memory(db)
    memory.ctx.embedder.embed_one("warm up")
    memory.ctx.analyzer.analyze("warm up")
    say(ready=True)
    mine: dict[int, str] = {}  # my memories and their state
    for i in range(MAX_WRITES):
        if i == 5 and mode != "writes":
            threading.Thread(target=maintenance, args=(memory, mode, backup), daemon=True).start()
        roll = rng.random()
        live = [m for m, state in mine.items() if state != "deleted"]
        tag = f"{seed}-{i}"
        if roll < 0.5 or not live:
            content = f"Crash trial note {tag}: shard {rng.randrange(10**9)} keeps its \"offsets\" in ~/.cache/{tag}."
            say(intent="remember")
            result = memory.remember(WRITER, content, project=PROJECT, force=True)
            mine[result.id] = "active"
            say(ack="remember", id=result.id, content=content)
        elif roll < 0.6:
            target = rng.choice(live)
            content = f"Crash trial note {tag}, corrected: shard {rng.randrange(10**9)}."
            say(intent="update", id=target)
            memory.update(WRITER, target, content=content, reason=f"edit {tag}")
            say(ack="update", id=target, content=content)
        elif roll < 0.75:
            target = rng.choice(live)
            to = {"active": "deprioritised", "deprioritised": "archived", "archived": "active"}[mine[target]]
            say(intent="state", id=target)
            {"deprioritised": memory.deprioritise, "archived": memory.archive,
             "active": memory.reinstate}[to](WRITER, target, reason=f"move {tag}")
            mine[target] = to
            say(ack="state", id=target, state=to)
        elif roll < 0.85:
            name = f"crashlib-{tag}"
            say(intent="abandon", name=name)
            result = memory.abandon(WRITER, name, reason=f"crashed in {tag}", project=PROJECT, effort=rng.randint(1, 5))
            mine[result.memory_id] = "active"
            say(ack="abandon", name=name, memory_id=result.memory_id, recall_suppressed=result.recall_suppressed)
        elif roll < 0.92:
            target = rng.choice(live)
            say(intent="forget", id=target)
            memory.forget(WRITER, target, reason=f"forget {tag}", confirm=True)
            mine[target] = "deleted"
            say(ack="forget", id=target)
        else:
            name = f"noisy-{tag}"
            say(intent="suppress", name=name)
            memory.suppress(WRITER, name, kind="diagnostic", project=PROJECT, reason=f"quiet {tag}")
            say(ack="suppress", name=name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
