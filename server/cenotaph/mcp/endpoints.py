"""The endpoint files that let agents on this machine find a language server's MCP endpoint:
`$XDG_STATE_HOME/cenotaph/endpoints/<pid>.json` holding `{url, token, project, store}`
(shared_schema/endpoint.schema.json). Standard library only: `cenotaph mcp` reads them before
it decides whether to load the models at all."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from cenotaph import paths
from cenotaph.store.dialect import is_postgres_url, redact

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class EndpointRecord:
    """A live endpoint: where it serves, its token, the project and store it serves, and the
    process serving it (the file's name)."""

    url: str
    token: str
    project: str
    store: str | None
    pid: int

    def report(self) -> dict[str, object]:
        return {k: v for k, v in asdict(self).items() if k != "pid"}


def store_key(path: Path | str) -> str:
    """How an endpoint file names a store: its absolute path, symlinks resolved, so that two
    spellings of one file compare equal."""
    if str(path) == ":memory:":
        return str(path)
    if is_postgres_url(path):  # a PostgreSQL store: its URL, password left out (as the store's `path` has it)
        return redact(str(path))
    return str(Path(path).expanduser().resolve())


def endpoints_dir() -> Path:
    return paths.state_dir() / "endpoints"


def _private_dir(folder: Path) -> None:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)  # mkdir's mode is filtered by the umask and ignored for existing folders


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    with contextlib.suppress(OSError, IndexError):
        # A zombie (exited, not yet reaped) serves nothing either.
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    return True


def write_endpoint_file(url: str, token: str, project: str, pid: int, store: str | None = None) -> Path:
    """Write `{url, token, project, store}` to `<pid>.json` (0600, in a 0700 folder), atomically.
    Files of processes that are gone are removed first; an earlier file of a reused pid is
    replaced."""
    folder = endpoints_dir()
    _private_dir(folder)
    read_endpoints()  # prunes the stale ones
    report = {"url": url, "token": token, "project": project}
    if store is not None:
        report["store"] = store
    target = folder / f"{pid}.json"
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")  # mkstemp creates 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def _parse(text: str, pid: int) -> EndpointRecord | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    url, token, project, store = (data.get(k) for k in ("url", "token", "project", "store"))
    if not all(isinstance(v, str) for v in (url, token, project)) or not isinstance(store, (str, type(None))):
        return None
    return EndpointRecord(url=url, token=token, project=project, store=store, pid=pid)


def read_endpoints(project: str | None = None, store: str | None = None) -> list[EndpointRecord]:
    """The live endpoints on this machine (of `project` and `store`, when given), newest first.
    A file whose process is gone (a crash) is stale: it is removed."""
    folder = endpoints_dir()
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if not path.stem.isdigit():
            continue
        pid = int(path.stem)
        if not _pid_alive(pid):
            log.info("removing stale MCP endpoint file %s (process %d is gone)", path, pid)
            path.unlink(missing_ok=True)
            continue
        try:
            record, modified = _parse(path.read_text(encoding="utf-8"), pid), path.stat().st_mtime
        except OSError:
            continue
        if record is None:
            continue
        if (project is None or record.project == project) and (store is None or record.store == store):
            found.append((modified, record))
    return [record for _, record in sorted(found, key=lambda pair: pair[0], reverse=True)]
