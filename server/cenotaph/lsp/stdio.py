"""The language server over stdin and stdout, stdin read by the event loop itself.

pygls reads stdin through its thread pool: each header line and each body is a hop to a worker
thread and back (the loop woken through its self-pipe), three or more per message, and each hop
waits for the scheduler and for the GIL. On a busy machine those waits were the tail of
didOpen → publishDiagnostics (bench/lsp_open_files.py). A pipe is read here by the loop's own
selector; anything else (a file, a terminal) keeps pygls's reader.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import TYPE_CHECKING, BinaryIO

from pygls.io_ import StdinAsyncReader, StdoutWriter, run_async

if TYPE_CHECKING:
    from pygls.server import JsonRPCServer

log = logging.getLogger(__name__)

HEADER_LIMIT = 1 << 20  # the longest header line read; bodies are read by length, whatever their size


class _PipeReader:
    """pygls's reader interface over an asyncio stream: the end of input reads as b""."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self._stream = stream

    async def readline(self) -> bytes:
        try:
            return await self._stream.readline()
        except ValueError:  # a "header" past HEADER_LIMIT: not a client speaking LSP
            log.error("a header line longer than %d bytes: closing", HEADER_LIMIT)
            return b""

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self._stream.readexactly(n)
        except asyncio.IncompleteReadError as exc:
            return exc.partial


async def _reader(stdin: BinaryIO, server: JsonRPCServer) -> _PipeReader | StdinAsyncReader:
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader(limit=HEADER_LIMIT)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), stdin)
    except ValueError:  # not a pipe, socket or character device
        return StdinAsyncReader(stdin, server.thread_pool)
    return _PipeReader(stream)


def serve(server: JsonRPCServer, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """What pygls's `start_io` does, with stdin read on the loop."""
    server._stop_event = stop = threading.Event()  # pygls's shutdown() sets it
    server.protocol.set_writer(StdoutWriter(stdout))

    async def run() -> None:
        await run_async(stop_event=stop, reader=await _reader(stdin, server), protocol=server.protocol,
                        logger=log, error_handler=server.report_server_error)

    try:
        asyncio.run(run())
    except BrokenPipeError:
        log.error("the connection to the client is lost: shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()
