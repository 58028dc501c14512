"""`cenotaph serve` reads a pipe on its event loop and anything else (here a file) through pygls's
reader; either way whole sessions are answered, and the end of input ends the server."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import CENOTAPH

SESSION = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None,
                                                                    "capabilities": {}}},
    {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
    {"jsonrpc": "2.0", "method": "exit"},
]


def framed(messages: list[dict]) -> bytes:
    out = b""
    for message in messages:
        body = json.dumps(message).encode()
        out += b"Content-Length: %d\r\n\r\n" % len(body) + body
    return out


def responses(stdout: bytes) -> dict[int, dict]:
    """The answers to requests, by id (notifications such as cenotaph/mcpEndpoint left out)."""
    found = {}
    while stdout:
        header, _, rest = stdout.partition(b"\r\n\r\n")
        length = int(header.split(b"Content-Length: ")[1].split(b"\r\n")[0])
        message = json.loads(rest[:length])
        stdout = rest[length:]
        if "id" in message and "method" not in message:
            found[message["id"]] = message
    return found


def test_a_file_as_stdin_is_read_by_pygls_reader(tmp_path: Path, cli_env, db_path) -> None:
    script = tmp_path / "session.bin"
    script.write_bytes(framed(SESSION))
    with script.open("rb") as stdin:
        done = subprocess.run([CENOTAPH, "serve", "--db", str(db_path)], stdin=stdin, capture_output=True,
                              env=cli_env, timeout=120)
    answers = responses(done.stdout)
    assert answers[1]["result"]["serverInfo"]["name"] == "cenotaph"
    assert answers[2]["result"] is None
    assert done.returncode == 0, done.stderr.decode()


def test_a_pipe_is_read_on_the_loop_including_a_message_split_across_writes(tmp_path: Path, cli_env,
                                                                           db_path) -> None:
    log = (tmp_path / "stderr.log").open("wb")
    server = subprocess.Popen([CENOTAPH, "serve", "--db", str(db_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=log, env=cli_env)
    assert server.stdin is not None and server.stdout is not None
    data = framed(SESSION[:1])
    server.stdin.write(data[:10])  # part of the header
    server.stdin.flush()
    server.stdin.write(data[10:] + framed(SESSION[1:3]))
    server.stdin.flush()
    server.stdin.close()  # no `exit`: the end of input ends the server
    answers = responses(server.stdout.read())
    server.wait(timeout=120)
    log.close()
    assert answers[1]["result"]["serverInfo"]["name"] == "cenotaph"
    assert answers[2]["result"] is None
    assert server.returncode == 0, (tmp_path / "stderr.log").read_text()
