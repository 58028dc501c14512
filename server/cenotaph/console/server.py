"""`cenotaph console`: open the store, bind the address (loopback unless `--host` says otherwise,
with a warning), make the per-start login token, print the address carrying it, open the browser
(unless `--no-browser`) and serve until interrupted."""

from __future__ import annotations

import argparse
import logging
import secrets
import sys
import threading
import time
import webbrowser
from pathlib import Path

log = logging.getLogger(__name__)


def main(args: argparse.Namespace) -> int:
    import uvicorn

    from cenotaph import identity
    from cenotaph import project as project_resolution
    from cenotaph.app import open_memory
    from cenotaph.console.app import Console, build_app, hosts_for
    from cenotaph.mcp.listener import hide_in_logs, is_loopback, listen, url_host
    from cenotaph.memory.errors import CenotaphError
    from cenotaph.store.connect import StoreUnavailable
    from cenotaph.store.migrations import SchemaTooNew

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    if not is_loopback(args.host):
        sys.stderr.write(f"cenotaph: warning: serving the console on {args.host}, not loopback: anyone who can reach "
                         "this address and learns the token can change the memory\n")
    try:
        memory = open_memory(args.db)
    except (CenotaphError, StoreUnavailable, SchemaTooNew) as exc:
        sys.stderr.write(f"cenotaph: error: {exc}\n")
        return 2
    try:
        project = project_resolution.resolve(args.project, Path.cwd())
        if (root := project_resolution.repository_root(Path.cwd())) is not None:
            memory.attach_repositories([(root, project)])  # its `.cenotaph/` folder takes part, as in the CLI
        try:
            sock = listen(args.host, args.port)
        except OSError as exc:
            sys.stderr.write(f"cenotaph: error: port: cannot listen on {args.host}:{args.port} ({exc.strerror}); "
                             "choose another with --port\n")
            return 2
        port = sock.getsockname()[1]
        token = secrets.token_urlsafe(32)
        hide_in_logs(token)
        console = Console(memory=memory, project=project, person=identity.person(memory, Path.cwd()), token=token,
                          port=port, hosts=hosts_for(args.host, port))
        shown_host = "127.0.0.1" if args.host in ("127.0.0.1", "localhost", "::1", "0.0.0.0") else url_host(args.host)
        url = f"http://{shown_host}:{port}/?token={token}"
        config = uvicorn.Config(build_app(console), log_config=None, access_log=False, log_level="warning")
        server = uvicorn.Server(config)
        sys.stdout.write(f"Cenotaph console for {project or 'the global scope'} as console:{console.person}\n"
                         f"    {url}\n(Ctrl-C stops it)\n")
        sys.stdout.flush()
        if not args.no_browser:
            threading.Thread(target=_open_when_serving, args=(server, url), daemon=True).start()
        server.run(sockets=[sock])
        return 0
    finally:
        memory.close()


def _open_when_serving(server, url: str) -> None:
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    if not webbrowser.open(url):
        log.warning("no browser could be opened: open the address above")
