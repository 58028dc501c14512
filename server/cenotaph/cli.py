"""The command line: a thin translation of arguments to domain calls and results to text or JSON."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cenotaph import __version__, project as project_resolution
from cenotaph.memory.errors import CenotaphError
from cenotaph.memory.models import KINDS, OUTCOMES, Actor, RecallResponse
from cenotaph.nlp.names import ECOSYSTEMS
from cenotaph.store.connect import StoreUnavailable
from cenotaph.store.migrations import SchemaTooNew

CLI_ACTOR = Actor(name="cli", kind="human")


class CommandFailed(Exception):
    """A command that ran but could not do what was asked (exit status 1)."""


def _to_jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_jsonable(v) for k, v in value.items()}
    return value


def _emit(args: argparse.Namespace, payload: Any, text: str) -> None:
    if args.json:
        json.dump(_to_jsonable(payload), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(text.rstrip("\n") + "\n")


def _project(args: argparse.Namespace) -> str:
    if getattr(args, "global_scope", False):
        return ""
    return project_resolution.resolve(args.project, Path.cwd())


def _progress(done: int, total: int) -> None:
    if not sys.stderr.isatty() and done not in (total,):
        return
    width = 30
    filled = int(width * done / total) if total else width
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


# --- commands --------------------------------------------------------------------------------------


def cmd_remember(args: argparse.Namespace, memory) -> None:
    result = memory.remember(CLI_ACTOR, args.text, project=_project(args), kind=args.kind, tags=args.tag,
                             force=args.force, valid_from=args.valid_from, valid_to=args.valid_to)
    if not result.stored:
        _emit(args, result, f"not stored: near-duplicate of #{result.duplicate_of} "
                            f"(cosine {result.similarity:.2f}); use --force to store it anyway")
        raise CommandFailed
    lines = [f"remembered #{result.id}"]
    lines += [f"warning: contradicts #{w.other_id}: {w.explanation}" for w in result.contradictions]
    _emit(args, result, "\n".join(lines))


def _format_recall(response: RecallResponse) -> str:
    if not response.results:
        return f"nothing found in {response.project or 'the global scope'}"
    lines = [f"{n.rstrip('.')}." for n in response.notices]
    for i, r in enumerate(response.results, start=1):
        if r.result_type == "abandoned_warning":
            where = "everywhere" if r.is_global else "in this project"
            lines.append(f"{i}. ABANDONED {where}: {r.content}")
            continue
        flags = [r.kind, r.state if r.state != "active" else "", r.trust, "global" if r.is_global else "",
                 "DISPUTED" if r.disputed else "", "hint matched" if r.reinstate_hint_matched else ""]
        meta = ", ".join(f for f in flags if f)
        lines.append(f"{i}. #{r.id} [{r.lane} {r.score:.3f}; {meta}] {r.content}")
    return "\n".join(lines)


def cmd_recall(args: argparse.Namespace, memory) -> None:
    response = memory.recall(CLI_ACTOR, args.query, project=_project(args), k=args.k, as_of=args.as_of,
                             valid_at=args.valid_at, include_refuted=args.include_refuted)
    _emit(args, response, _format_recall(response))


def cmd_abandon(args: argparse.Namespace, memory) -> None:
    result = memory.abandon(CLI_ACTOR, args.name, reason=args.reason, project=_project(args), effort=args.effort,
                            ecosystem=args.ecosystem, aliases=args.alias)
    a = result.approach
    where = "everywhere" if a.project == "" else f"in {a.project}"
    text = f"abandoned {a.display_name} ({a.ecosystem}: {a.name}) {where}, approach #{a.id}"
    if result.recall_suppressed:
        text += f"\nmemories that mention {a.name} are now kept out of recall (effort {a.effort}/5); " \
                f"lift with `cenotaph unsuppress {a.name} --kind recall`"
    _emit(args, result, text)


def cmd_reinstate_approach(args: argparse.Namespace, memory) -> None:
    approach = memory.reinstate_approach(CLI_ACTOR, args.name, reason=args.reason, project=_project(args))
    _emit(args, approach, f"reinstated {approach.display_name}: {args.reason}")


def _parse_abandoned(values: Sequence[str]) -> list[tuple[str, str]]:
    pairs = []
    for i, value in enumerate(values):
        name, sep, reason = value.partition("=")
        if not sep or not name.strip() or not reason.strip():
            raise CenotaphError(f"expected NAME=REASON, got {value!r}", field=f"--abandoned[{i}]")
        pairs.append((name.strip(), reason.strip()))
    return pairs


def cmd_experience(args: argparse.Namespace, memory) -> None:
    result = memory.record_experience(
        CLI_ACTOR, args.summary, project=_project(args), outcome=args.outcome, effort=args.effort,
        iterations=args.iterations, breakthrough=args.breakthrough, gotchas=args.gotcha,
        abandoned=_parse_abandoned(args.abandoned), tags=args.tag,
    )
    lines = [f"recorded experience #{result.id}"]
    lines += [f"abandoned {r.approach.display_name}: {r.approach.reason}" for r in result.abandoned]
    _emit(args, result, "\n".join(lines))


def cmd_check(args: argparse.Namespace, memory) -> None:
    verdicts = memory.check_approaches(args.names, project=_project(args), ecosystem=args.ecosystem)
    lines = []
    for v in verdicts:
        if v.approach is None:
            lines.append(f"{v.name}: clear")
        else:
            lines.append(f"{v.name}: {v.status} ({v.scope}) — {v.approach.reason}")
    _emit(args, {"results": verdicts}, "\n".join(lines))


def cmd_doctor(args: argparse.Namespace, memory) -> None:
    from cenotaph.store.connect import binding

    ctx = memory.ctx
    sqlite_version, vec_version = ctx.store.versions()
    report = {
        "version": __version__,
        "store": str(ctx.store.path),
        "schema_version": ctx.store.schema_version,
        "sqlite_binding": binding().name,
        "sqlite_version": sqlite_version,
        "sqlite_vec_version": vec_version,
        "model": ctx.embedder.model_name,
        "store_model": ctx.store.get_meta("embedding_model"),
        "model_matches_store": ctx.vectors_current() or ctx.store.get_meta("embedding_model") is None,
        "project": _project(args),
    }
    text = "\n".join(f"{k}: {v}" for k, v in report.items())
    if not report["model_matches_store"]:
        text += "\nthe store was embedded by another model: run `cenotaph reindex`"
    _emit(args, report, text)


def cmd_reindex(args: argparse.Namespace, memory) -> None:
    report = memory.reindex(progress=_progress)
    _emit(args, report, f"re-embedded {report.memories} memories with {report.model} (dim {report.dim})")


# --- parser ----------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", help="store file (default: $CENOTAPH_HOME/cenotaph.db or $XDG_DATA_HOME/cenotaph)")
    common.add_argument("--project", help="project id (default: from .cenotaph.toml, git origin or repository path)")
    common.add_argument("--json", action="store_true", help="machine-readable output (shapes in shared_schema/)")

    parser = argparse.ArgumentParser(prog="cenotaph", description="A shared memory for coding work: dead ends stay dead.")
    parser.add_argument("--version", action="version", version=f"cenotaph {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, handler: Callable, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        p.set_defaults(handler=handler)
        return p

    p = command("remember", cmd_remember, "store a memory verbatim")
    p.add_argument("text")
    p.add_argument("--kind", default="note", choices=KINDS)
    p.add_argument("--tag", action="append", default=[])
    p.add_argument("--force", action="store_true", help="store even if a near-duplicate exists")
    p.add_argument("--valid-from", help="when it started to hold (ISO 8601; default now)")
    p.add_argument("--valid-to", help="when it stopped holding (ISO 8601)")

    p = command("recall", cmd_recall, "find memories; abandoned approaches named in the query come first")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=10, help="how many memories (default 10)")
    p.add_argument("--as-of", help="what the store held at this time")
    p.add_argument("--valid-at", help="what was true at this time")
    p.add_argument("--include-refuted", action="store_true")

    p = command("abandon", cmd_abandon, "record an approach as abandoned (the graveyard)")
    p.add_argument("name")
    p.add_argument("--reason", required=True)
    p.add_argument("--effort", type=int, help="1–5: how much it cost before it was abandoned")
    p.add_argument("--ecosystem", choices=ECOSYSTEMS)
    p.add_argument("--alias", action="append", default=[], help="another name it goes by (e.g. its import name)")
    p.add_argument("--global", dest="global_scope", action="store_true", help="abandoned everywhere, not just here")

    p = command("reinstate-approach", cmd_reinstate_approach, "take an approach out of the graveyard")
    p.add_argument("name")
    p.add_argument("--reason", required=True)
    p.add_argument("--global", dest="global_scope", action="store_true")

    p = command("experience", cmd_experience, "record what was tried, its effort and outcome")
    p.add_argument("--summary", required=True)
    p.add_argument("--outcome", required=True, choices=OUTCOMES)
    p.add_argument("--effort", required=True, type=int)
    p.add_argument("--iterations", type=int)
    p.add_argument("--breakthrough")
    p.add_argument("--gotcha", action="append", default=[])
    p.add_argument("--abandoned", action="append", default=[], metavar="NAME=REASON")
    p.add_argument("--tag", action="append", default=[])

    p = command("check", cmd_check, "check names against the graveyard")
    p.add_argument("names", nargs="+")
    p.add_argument("--ecosystem", choices=ECOSYSTEMS)

    p = sub.add_parser("serve", parents=[common], help="run the language server over stdio (editors start this)")
    p.set_defaults(handler=None, entry="cenotaph.lsp.server")
    p = sub.add_parser("mcp", parents=[common], help="serve the MCP tools over stdio (agents start this)")
    p.set_defaults(handler=None, entry="cenotaph.mcp.server")

    command("doctor", cmd_doctor, "show the store, versions, model and project")
    command("reindex", cmd_reindex, "re-embed every memory with the configured model")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=os.environ.get("CENOTAPH_LOG", "WARNING").upper(), stream=sys.stderr,
                        format="cenotaph: %(levelname)s %(name)s: %(message)s")
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.handler is None:
        # Servers own stdin/stdout and their event loop: hand over to their own entry point.
        import importlib

        return importlib.import_module(args.entry).main(args)
    from cenotaph.app import open_memory

    try:
        memory = open_memory(args.db)
        try:
            args.handler(args, memory)
        finally:
            memory.ctx.store.close()
    except CommandFailed:
        return 1
    except CenotaphError as exc:
        _fail(args, str(exc), getattr(exc, "field", None))
        return 2
    except (StoreUnavailable, SchemaTooNew) as exc:
        _fail(args, str(exc), "store")
        return 2
    return 0


def _fail(args: argparse.Namespace, message: str, field: str | None) -> None:
    if getattr(args, "json", False):
        json.dump({"error": {"message": message, "field": field}}, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    sys.stderr.write(f"cenotaph: error: {message}\n")


if __name__ == "__main__":
    sys.exit(main())
