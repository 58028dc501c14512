"""The processes the crash test kills. A zygote loads the models once and forks a writer per
trial (the kill must hit a process of its own, and loading the models per trial would be most of
the run); each writer streams writes through the domain on its trial's store and appends one
JSON line to its trial's file as each is acknowledged (after its transaction committed), with
`reindex` or `restore` running on a second thread meanwhile in those modes. Before each write it
names the write in flight, so that the test knows which one the kill may have cut short.

Usage: python -m tests.reliability.crash_writer; then one JSON line a trial on stdin,
{"db", "mode": writes|reindex|restore, "seed", "backup", "out"}, answered with {"pid"}."""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import threading

from cenotaph.memory.context import Context
from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory
from cenotaph.nlp.analysis import Analyzer
from cenotaph.nlp.embedder import Embedder
from cenotaph.store.db import Store

WRITER = Actor(name="crash-writer", kind="human")
PROJECT = "crash/project"
MAX_WRITES = 100_000
_out = threading.Lock()
_file = None


def say(**message) -> None:
    with _out:
        os.write(_file, (json.dumps(message) + "\n").encode())  # one write a line: whole or not at all


def maintenance(memory, mode: str, backup: str | None) -> None:
    say(maintenance="started")
    if mode == "reindex":
        memory.reindex()
    else:
        memory.restore(WRITER, backup)
    say(maintenance="done")


def writer(memory: Memory, mode: str, seed: int, backup: str | None) -> None:
    rng = random.Random(seed)
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


def main() -> int:
    global _file
    embedder, analyzer = Embedder(), Analyzer()
    embedder.embed_one("warm up")
    analyzer.analyze("warm up")
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # killed writers are reaped by the kernel
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        spec = json.loads(line)
        pid = os.fork()
        if pid == 0:
            try:
                _file = os.open(spec["out"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                memory = Memory(Context(store=Store(spec["db"]), embedder=embedder, analyzer=analyzer))
                writer(memory, spec["mode"], spec["seed"], spec.get("backup"))
            finally:
                os._exit(0)
        print(json.dumps({"pid": pid}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
