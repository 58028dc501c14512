"""`cenotaph mcp` as a bridge: the agent's stdio session relayed to a language server's Streamable
HTTP endpoint for the same store and project, so that one process per machine holds the models.

Standard library only (the point is to stay small). Each message from stdin is POSTed with the
bearer token, the session id and the routing headers the transport asks for; the answers (JSON
or an SSE stream) and the session's own stream (GET) are written back to stdout. When the
endpoint stops answering (its connections refused or broken, or, while an answer is awaited, a
ping of its own left unanswered), the bridge first looks for another live endpoint of the same store and
project, else it loads the stack and serves in this process; either way it replays the session's
set-up (`initialize`, `notifications/initialized`, subscriptions, the log level) so that the
agent goes on as before. A request the gone server may have acted on gets a JSON-RPC error, not
a silent retry: it could have written."""

from __future__ import annotations

import http.client
import itertools
import json
import logging
import os
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

from cenotaph.mcp.endpoints import EndpointRecord

log = logging.getLogger(__name__)

Message = dict[str, Any]
Emit = Callable[[Message], None]

# Kept and replayed when the session moves to another server: what a server remembers of a client.
SETUP_METHODS = frozenset({"initialize", "notifications/initialized", "resources/subscribe", "logging/setLevel"})
# Requests a gone server may have half-done are retried only when they change nothing.
WRITING_METHODS = frozenset({"tools/call"})
# The 2026-07-28 wire routes requests by headers that mirror the body (mcp.shared.inbound).
PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"
NAME_BEARING_METHODS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
SERVER_GONE = -32603  # JSON-RPC internal error
CONNECT_TIMEOUT_SECONDS = 5
# A server can accept connections and never answer (stopped, or its event loop stuck). While an
# answer is awaited, the server is pinged this often on a connection of its own; a ping left
# unanswered for PROBE_TIMEOUT_SECONDS means it is gone. Tools run on the server's worker
# threads, so a long call does not keep its ping from being answered.
HEARTBEAT_SECONDS = 5
PROBE_TIMEOUT_SECONDS = 10
REPLAY_TIMEOUT_SECONDS = 60  # loading the stack is part of it
_UNANSWERED = f"no answer to a ping within {PROBE_TIMEOUT_SECONDS} s"

# The SDK's own servers write compact JSON lines: a relayed session reads the same.
_COMPACT = (",", ":")
_PROBES = itertools.count(1)


class UpstreamGone(Exception):
    """The server stopped answering. `delivered`: the message may have reached it;
    `session_lost`: the server is there but has forgotten the session (a new one will do)."""

    def __init__(self, why: str, *, delivered: bool, session_lost: bool = False) -> None:
        super().__init__(why)
        self.delivered = delivered
        self.session_lost = session_lost


def _sse_messages(response: http.client.HTTPResponse) -> Iterator[Message]:
    """The JSON-RPC messages of an event stream (`data:` lines; a blank line ends an event)."""
    data: list[str] = []
    while True:
        line = response.readline()
        if not line:
            return
        text = line.decode("utf-8").rstrip("\r\n")
        if text.startswith("data:"):
            data.append(text[5:].removeprefix(" "))
        elif not text and data:
            payload, data = "\n".join(data), []
            if payload.strip():
                yield json.loads(payload)


def _messages(body: Any) -> list[Message]:
    return [m for m in body if isinstance(m, dict)] if isinstance(body, list) else [body] if isinstance(body, dict) else []


class HttpUpstream:
    """One language server's MCP endpoint, and the session the agent holds with it. What the
    server sends unasked goes to `notify`; `lost` is told when that stream breaks off."""

    def __init__(self, endpoint: EndpointRecord, *, notify: Emit, lost: Callable[[HttpUpstream], None]) -> None:
        self.endpoint = endpoint
        self._notify = notify
        self._lost = lost
        parts = urlsplit(endpoint.url)
        self._host, self._port, self._path = parts.hostname or "127.0.0.1", parts.port or 80, parts.path or "/"
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self._closed = threading.Event()
        # Each connection's socket, kept: http.client hands it to a response that closes the
        # connection when done, and a blocked read can only be ended through it.
        self._connections: dict[http.client.HTTPConnection, socket.socket] = {}
        self._lock = threading.Lock()

    def _headers(self, message: Message | None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.endpoint.token}",
                   "Accept": "application/json, text/event-stream" if message is not None else "text/event-stream"}
        if message is not None:
            headers["Content-Type"] = "application/json"
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        if self.protocol_version:
            headers["MCP-Protocol-Version"] = self.protocol_version
        params = message.get("params") if message is not None else None
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and isinstance(meta.get(PROTOCOL_VERSION_META_KEY), str):
            headers["MCP-Protocol-Version"] = meta[PROTOCOL_VERSION_META_KEY]
            headers["Mcp-Method"] = str(message.get("method", ""))
            name_key = NAME_BEARING_METHODS.get(headers["Mcp-Method"])
            if name_key is not None and isinstance(params.get(name_key), str):
                headers["Mcp-Name"] = params[name_key]
        return headers

    def _connection(self) -> http.client.HTTPConnection:
        connection = http.client.HTTPConnection(self._host, self._port, timeout=CONNECT_TIMEOUT_SECONDS)
        connection.connect()
        assert connection.sock is not None
        connection.sock.settimeout(None)  # a tool call or an event stream may take as long as it takes
        with self._lock:
            self._connections[connection] = connection.sock
        return connection

    def alive(self) -> bool:
        """Whether the server answers a ping within PROBE_TIMEOUT_SECONDS. Outside the session,
        whose requests may wait behind a long call; any HTTP answer will do, a refusal included:
        the server is there."""
        probe = {"jsonrpc": "2.0", "id": f"cenotaph-probe-{next(_PROBES)}", "method": "ping"}
        headers = {k: v for k, v in self._headers(probe).items() if k != "Mcp-Session-Id"}
        connection = http.client.HTTPConnection(self._host, self._port, timeout=PROBE_TIMEOUT_SECONDS)
        try:
            connection.request("POST", self._path, body=json.dumps(probe, separators=_COMPACT).encode(),
                               headers=headers)
            connection.getresponse().read()
        except (OSError, http.client.HTTPException):
            return False
        finally:
            connection.close()
        return True

    def _watch(self, sock: socket.socket, answered: threading.Event, hung: threading.Event) -> None:
        """Until `answered`, ping the server every HEARTBEAT_SECONDS; when it does not answer,
        shut the awaiting connection's socket so that its read fails at once."""
        while not answered.wait(HEARTBEAT_SECONDS):
            if not self.alive() and not answered.is_set():
                hung.set()
                _shut(sock)
                return

    def _release(self, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            self._connections.pop(connection, None)
        connection.close()

    def send(self, message: Message, emit: Emit) -> None:
        request_id = message.get("id") if "method" in message else None
        try:
            connection = self._connection()
        except OSError as exc:
            raise UpstreamGone(f"cannot connect: {exc}", delivered=False) from None
        done, hung = threading.Event(), threading.Event()
        try:
            try:
                connection.request("POST", self._path, body=json.dumps(message, separators=_COMPACT).encode(), headers=self._headers(message))
            except OSError as exc:
                raise UpstreamGone(f"cannot send: {exc}", delivered=False) from None
            threading.Thread(target=self._watch, args=(connection.sock, done, hung), name="cenotaph-mcp-watch",
                             daemon=True).start()
            try:
                response = connection.getresponse()
                answered = self._relay(message, response, emit)
            except (OSError, http.client.HTTPException, ValueError) as exc:
                raise UpstreamGone(_UNANSWERED if hung.is_set() else f"the answer broke off: {exc}",
                                   delivered=True) from None
            if request_id is not None and not answered:
                raise UpstreamGone(_UNANSWERED if hung.is_set() else "the stream ended without the answer",
                                   delivered=True)
        finally:
            done.set()
            self._release(connection)
        if message.get("method") == "notifications/initialized" and self.session_id:
            self._listen()

    def _relay(self, message: Message, response: http.client.HTTPResponse, emit: Emit) -> bool:
        """Pass the answer on; True when the answer to `message` (a request) was among it."""
        session_id = response.getheader("mcp-session-id")
        if session_id:
            self.session_id = session_id
        if response.status == 404 and self.session_id:
            raise UpstreamGone("the server no longer knows this session", delivered=False, session_lost=True)
        if response.status in (401, 403):
            raise UpstreamGone(f"refused (HTTP {response.status}): not the server its endpoint file named",
                               delivered=False)
        kind = (response.getheader("content-type") or "").split(";")[0].strip()
        if kind == "text/event-stream":
            found = False
            for reply in _sse_messages(response):
                found = self._forward(message, reply, emit) or found
            return found
        body = response.read()
        if response.status == 202 or not body.strip():
            return response.status < 400 and "id" not in message
        try:
            replies = _messages(json.loads(body))
        except ValueError:
            replies = []
        found, refusal = False, ""
        is_request = "method" in message and "id" in message
        for reply in replies:
            if is_request and "method" not in reply and reply.get("id") is None:
                # The transport refused the request before reading its id: answer it under its id.
                refusal = f": {(reply.get('error') or {}).get('message', '')}"
                continue
            found = self._forward(message, reply, emit) or found
        if not found and is_request:
            emit(_error(message["id"], f"the language server answered HTTP {response.status}{refusal}"))
            return True
        return found

    def _forward(self, message: Message, reply: Message, emit: Emit) -> bool:
        is_answer = "method" not in reply and reply.get("id") == message.get("id") and "id" in message
        if is_answer and message.get("method") == "initialize":
            version = (reply.get("result") or {}).get("protocolVersion")
            self.protocol_version = version if isinstance(version, str) else None
        emit(reply)
        return is_answer

    def _listen(self) -> None:
        """The session's own stream (GET): notifications the server sends unasked, such as a
        subscribed resource's update. Its end, unless we closed it, means the server went away:
        the session moves at once rather than at the agent's next call."""

        def run() -> None:
            try:
                connection = self._connection()
            except OSError:
                return
            opened = False
            try:
                connection.request("GET", self._path, headers=self._headers(None))
                response = connection.getresponse()
                opened = response.status == 200
                if not opened:
                    return
                for reply in _sse_messages(response):
                    self._notify(reply)
            except (OSError, http.client.HTTPException, ValueError, AttributeError):
                pass  # AttributeError: http.client's answer to reading a response close() has closed
            finally:
                self._release(connection)
            if opened and not self._closed.is_set():
                self._lost(self)

        threading.Thread(target=run, name="cenotaph-mcp-listen", daemon=True).start()

    def close(self) -> None:
        self._closed.set()
        with self._lock:
            connections = list(self._connections.items())
        for connection, sock in connections:
            # Shut first: closing a response waits for the thread reading it, which a server that
            # no longer answers would keep waiting.
            _shut(sock)
            connection.close()


def _shut(sock: socket.socket) -> None:
    """End a socket both ways: a read blocked on it returns at once."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class LocalUpstream:
    """This process serving the session itself: the stack loaded now, the SDK's stdio transport
    on a pair of pipes. Answers to the replayed set-up are kept from the agent."""

    def __init__(self, serve: Callable[[int, int], None], emit: Emit) -> None:
        self._emit = emit
        self._dead = False
        self._waiting: dict[Any, threading.Event] = {}
        self._lock = threading.Lock()
        to_server_r, self._to_server = os.pipe()
        self._from_server, from_server_w = os.pipe()
        self._server = threading.Thread(target=serve, args=(to_server_r, from_server_w), name="cenotaph-mcp-local",
                                        daemon=True)
        self._server.start()
        self._output = threading.Thread(target=self._pump, name="cenotaph-mcp-local-out", daemon=True)
        self._output.start()

    def _pump(self) -> None:
        with os.fdopen(self._from_server, "rb") as lines:
            for line in lines:
                if not line.strip():
                    continue
                message = json.loads(line)
                with self._lock:
                    done = self._waiting.pop(message.get("id"), None) if "method" not in message else None
                if done is not None:
                    done.set()
                else:
                    self._emit(message)
        # The server ended (or never started: the store could not be opened); nobody waits forever.
        with self._lock:
            self._dead = True
            waiting, self._waiting = list(self._waiting.values()), {}
        for done in waiting:
            done.set()

    def send(self, message: Message, emit: Emit) -> None:
        if not self._dead:
            try:
                os.write(self._to_server, json.dumps(message, separators=_COMPACT).encode() + b"\n")
                return
            except OSError:
                self._dead = True
        if "method" in message and "id" in message:
            emit(_error(message["id"], "Cenotaph could not serve this session here (see its log on stderr)"))

    def replay(self, message: Message, internal_id: str) -> None:
        """Send a set-up request under our own id and wait for (and drop) its answer."""
        done = threading.Event()
        with self._lock:
            self._waiting[internal_id] = done
        self.send({**message, "id": internal_id}, self._emit)
        if not done.wait(REPLAY_TIMEOUT_SECONDS):
            log.warning("the local server did not answer the replayed %s", message.get("method"))

    def close(self) -> None:
        """End of input: the server answers what it has and stops."""
        os.close(self._to_server)
        self._server.join(REPLAY_TIMEOUT_SECONDS)
        self._output.join(REPLAY_TIMEOUT_SECONDS)  # its last answers reach the agent


def _error(request_id: Any, text: str) -> Message:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": SERVER_GONE, "message": text}}


class Bridge:
    """The agent's session, relayed to whichever server holds it now."""

    def __init__(self, endpoint: EndpointRecord, *, find: Callable[[], list[EndpointRecord]],
                 serve_here: Callable[[int, int], None]) -> None:
        self.upstream: HttpUpstream | LocalUpstream = self._http(endpoint)
        self._find = find
        self._refused: set[str] = set()  # endpoints that failed this session: not tried again
        self._serve_here = serve_here
        self._out = sys.stdout.buffer
        self._out_lock = threading.Lock()
        self._switch = threading.Lock()
        self._setup: list[Message] = []
        self._ids = itertools.count(1)

    def _http(self, endpoint: EndpointRecord) -> HttpUpstream:
        return HttpUpstream(endpoint, notify=self.emit, lost=self._move)

    def emit(self, message: Message) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=_COMPACT).encode() + b"\n"
        with self._out_lock:
            self._out.write(data)
            self._out.flush()

    def _remember(self, message: Message) -> None:
        method = message.get("method")
        if method == "resources/unsubscribe":
            uri = (message.get("params") or {}).get("uri")
            self._setup = [m for m in self._setup
                           if not (m.get("method") == "resources/subscribe" and (m.get("params") or {}).get("uri") == uri)]
        elif method in SETUP_METHODS:
            self._setup.append(message)

    def deliver(self, message: Message) -> None:
        """Send one message from the agent; on a gone server, move the session and go on."""
        while True:
            upstream = self.upstream
            try:
                upstream.send(message, self.emit)
            except UpstreamGone as gone:
                log.warning("the language server at %s stopped answering (%s)",
                            getattr(upstream, "endpoint", None) and upstream.endpoint.url, gone)
                self._move(upstream, same_server_will_do=gone.session_lost)
                is_request = "method" in message and "id" in message
                if gone.delivered and is_request and message["method"] in WRITING_METHODS:
                    self.emit(_error(message["id"], "Cenotaph's language server went away or stopped answering during this call; "
                                                    "it may or may not have taken effect. The session goes on: "
                                                    "check (e.g. with recall) before calling again."))
                    return
                if not gone.delivered or is_request:
                    continue  # not received, or changes nothing: send it where the session is now
                return  # a notification or an answer the gone server may have had: nothing to redo
            self._remember(message)
            return

    def _move(self, gone: HttpUpstream | LocalUpstream, *, same_server_will_do: bool = False) -> None:
        """Move the session off `gone` (once, whichever thread notices first)."""
        with self._switch:
            if self.upstream is not gone:
                return
            gone.close()
            if isinstance(gone, HttpUpstream) and not same_server_will_do:
                self._refused.add(gone.endpoint.url)
            for endpoint in self._find():
                if endpoint.url in self._refused:
                    continue
                candidate = self._http(endpoint)
                try:
                    if not candidate.alive():
                        raise UpstreamGone("cannot connect", delivered=False)
                    self._replay_http(candidate)
                except UpstreamGone:
                    candidate.close()
                    self._refused.add(endpoint.url)
                    continue
                log.warning("MCP session moved to the language server at %s (pid %d)", endpoint.url, endpoint.pid)
                self.upstream = candidate
                return
            log.warning("no language server answers: serving MCP from this process (loading the models)")
            local = LocalUpstream(self._serve_here, self.emit)
            for message in self._setup:
                if "id" in message:
                    local.replay(message, f"cenotaph-replay-{next(self._ids)}")
                else:
                    local.send(message, self.emit)
            self.upstream = local

    def _replay_http(self, candidate: HttpUpstream) -> None:
        dropped: list[Message] = []
        for message in self._setup:
            replayed = {**message, "id": f"cenotaph-replay-{next(self._ids)}"} if "id" in message else message
            candidate.send(replayed, dropped.append)
        # Notifications the new server sent while we replayed go on to the agent.
        for message in dropped:
            if "method" in message:
                self.emit(message)

    def run(self) -> None:
        """Relay until the agent closes stdin. Each message gets its own thread: a long tool
        call must not hold up a `ping` or a cancellation."""
        workers: list[threading.Thread] = []
        for line in sys.stdin.buffer:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                self.emit({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
                continue
            if not isinstance(message, dict):
                self.emit({"jsonrpc": "2.0", "id": None,
                           "error": {"code": -32600, "message": "Invalid request: batches are not relayed"}})
                continue
            if message.get("method") in SETUP_METHODS:
                self.deliver(message)  # in order: later messages rely on it
                continue
            worker = threading.Thread(target=self.deliver, args=(message,), daemon=True)
            worker.start()
            workers = [w for w in workers if w.is_alive()] + [worker]
        for worker in workers:
            worker.join()
        self.upstream.close()
