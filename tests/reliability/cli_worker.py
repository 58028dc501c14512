"""The command-line writer of the many-writers test, as its own process: the workload through
`cenotaph.cli.main`, one command after another, each opening and closing the store as a
`cenotaph` process does. The models are loaded and the argument parser built once (a fresh
process per command would spend the run loading them). Protocol on stdout, one JSON object a
line: {"ready"}, then an {"ack"} per answered command or an {"error"} that ends the run, then
{"done"}; stdin's first line starts the run, so that every writer begins at once.

Usage: python -m tests.reliability.cli_worker DB PROJECT WRITER COUNT CONTRADICTION_IDS_JSON"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import logging
import sys

from cenotaph import cli
from cenotaph.nlp import analysis
from cenotaph.nlp import embedder as embedding
from tests.reliability.drivers import cli_argv, cli_result
from tests.reliability.workload import Expected, stream


def _say(**message) -> None:
    sys.__stdout__.write(json.dumps(message) + "\n")
    sys.__stdout__.flush()


def main() -> int:
    db, project, writer, count, contradictions = sys.argv[1:6]
    # cli.main's basicConfig is then a no-op: log records reach this process's real stderr, which
    # the test reads, not the buffer a command's output is captured in.
    logging.basicConfig(level="WARNING", stream=sys.__stderr__)
    embedder, analyzer = embedding.Embedder(), analysis.Analyzer()
    embedder.embed_one("warm up")
    analyzer.analyze("warm up")
    # The same real models for every command: `cenotaph.app` looks them up here when a command
    # opens the store.
    shared = []
    embedding.Embedder = lambda *args, **kwargs: shared.append(embedder) or embedder
    analysis.Analyzer = lambda: analyzer
    parser = cli.build_parser()  # and one argument parser: parsing leaves it as it was
    cli.build_parser = lambda: parser
    _say(ready=True)
    sys.stdin.readline()
    acks: list = []
    ops = stream(writer, int(count), json.loads(contradictions), acks, Expected())
    result = None
    try:
        while True:
            op = ops.send(result)
            argv = [*cli_argv(op), "--db", db, "--project", project, "--json"]
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = cli.main(argv)
            if status != 0 or err.getvalue().strip():
                _say(error=f"{argv!r} → exit {status}: {out.getvalue()} {err.getvalue()}")
                return 1
            result = cli_result(op, json.loads(out.getvalue()))
            _say(ack={"op": dataclasses.asdict(op), "result": result})
    except StopIteration:
        pass
    if len(shared) != int(count):  # else each command loaded the models afresh: the run measured that
        _say(error=f"{len(shared)} of {count} commands used the shared models")
        return 1
    _say(done=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
