"""The graveyard: abandon an approach, reinstate it, check names against it, and suppress a name."""

from __future__ import annotations

import argparse

from cenotaph.cli.commands.team import share_after, shared_lines
from cenotaph.cli.common import (
    REDACT_HELP,
    Handler,
    Subcommands,
    Verb,
    actor,
    emit,
    project_of,
    repository_root,
    writer,
)
from cenotaph.cli.render import outcome
from cenotaph.memory.models import as_json
from cenotaph.memory.team.folder import source_of
from cenotaph.nlp import ecosystems
from cenotaph.store.records import ApproachRow


def cmd_abandon(args: argparse.Namespace, memory) -> None:
    with memory.together():  # a share that fails takes the record back
        result = memory.abandon(writer(args, memory), args.name, reason=args.reason, project=project_of(args),
                                effort=args.effort, ecosystem=args.ecosystem, aliases=args.alias,
                                workspace=repository_root())
        shared = share_after(args, memory, [result.approach.name])
    a = result.approach
    where = "everywhere" if a.project == "" else f"in {a.project}"
    text = f"abandoned {a.display_name} ({a.ecosystem}: {a.name}) {where}, approach #{a.id}\n" \
           f"ecosystem {a.ecosystem}: {result.decided_by}"
    if result.recall_suppressed:
        text += f"\nmemories that mention {a.name} are now kept out of recall (effort {a.effort}/5); " \
                f"lift with `cenotaph unsuppress {a.name} --kind recall --reason …`"
    for silence in result.silenced:
        scope = "everywhere" if silence.project == "" else f"in {silence.project}"
        text += f"\nstill silenced in editors {scope} ({silence.reason}): editors will not flag it; lift with " \
                f"`cenotaph unsuppress {a.name} --kind diagnostic{' --global' if silence.project == '' else ''} " \
                "--reason …`"
    emit(args, {**as_json(result), "shared": shared} if shared else result,
         "\n".join([text, *shared_lines(shared)]))


def abandon(commands: Subcommands) -> None:
    p = commands.add("abandon", cmd_abandon, "record an approach as abandoned (the graveyard)")
    p.add_argument("name")
    p.add_argument("--reason", required=True)
    p.add_argument("--effort", type=int, help="1–5: how much it cost before it was abandoned")
    p.add_argument("--ecosystem", choices=ecosystems.NAMES,
                   help="where it lives; by default the repository's manifests say (asked when two ecosystems fit)")
    p.add_argument("--alias", action="append", default=[], help="another name it goes by (e.g. its import name)")
    p.add_argument("--global", dest="global_scope", action="store_true", help="abandoned everywhere, not just here")
    p.add_argument("--redact", action="store_true", help=REDACT_HELP)
    p.add_argument("--share", action="store_true", help="also write it into the repository's .cenotaph/ folder")


def cmd_refile(args: argparse.Namespace, memory) -> None:
    approach = memory.refile(actor(memory), args.name, ecosystem=args.ecosystem, project=project_of(args))
    emit(args, approach, f"refiled {approach.display_name} under {approach.ecosystem} ({approach.name}), "
                         f"approach #{approach.id}; its reason and effort stay")


def refile(commands: Subcommands) -> None:
    p = commands.add("refile", cmd_refile, "move an abandoned approach to another ecosystem (doctor names them)")
    p.add_argument("name")
    p.add_argument("--ecosystem", required=True, choices=ecosystems.NAMES)
    p.add_argument("--global", dest="global_scope", action="store_true")


def cmd_reinstate_approach(args: argparse.Namespace, memory) -> None:
    approach = memory.reinstate_approach(actor(memory), args.name, reason=args.reason, project=project_of(args))
    emit(args, approach, f"reinstated {approach.display_name}: {args.reason}" if isinstance(approach, ApproachRow)
         else outcome(approach))


def reinstate_approach(commands: Subcommands) -> None:
    p = commands.add("reinstate-approach", cmd_reinstate_approach, "take an approach out of the graveyard")
    p.add_argument("name")
    p.add_argument("--reason", required=True)
    p.add_argument("--global", dest="global_scope", action="store_true")


def cmd_check(args: argparse.Namespace, memory) -> None:
    verdicts = memory.check_approaches(args.names, project=project_of(args), ecosystem=args.ecosystem)
    lines = []
    for v in verdicts:
        if v.approach is None:
            lines.append(f"{v.name}: clear")
        else:
            shared = f", shared in the repository by {v.approach.actor}" if v.source == "repo" else ""
            lines.append(f"{v.name}: {v.status} ({v.scope}{shared}) — {v.approach.reason}")
            lines += [f"  also abandoned {'in the repository by ' + a.actor if source_of(a) == 'repo' else 'by you'}"
                      f"{' everywhere' if a.project == '' else ''}: {a.reason}" for a in v.also]
    emit(args, {"results": verdicts}, "\n".join(lines))


def check(commands: Subcommands) -> None:
    p = commands.add("check", cmd_check, "check names against the graveyard")
    p.add_argument("names", nargs="+")
    p.add_argument("--ecosystem", choices=ecosystems.NAMES)


def cmd_suppress(args: argparse.Namespace, memory) -> None:
    row = memory.suppress(actor(memory), args.name, kind=args.kind, project=project_of(args), reason=args.reason)
    emit(args, row, outcome(row))


def cmd_unsuppress(args: argparse.Namespace, memory) -> None:
    result = memory.unsuppress(actor(memory), args.name, kind=args.kind, project=project_of(args), reason=args.reason)
    emit(args, result, outcome(result))


def _suppression_verb(verb: str, handler: Handler, help_text: str) -> Verb:
    def add(commands: Subcommands) -> None:
        p = commands.add(verb, handler, help_text)
        p.add_argument("name")
        p.add_argument("--kind", required=True, choices=("diagnostic", "recall"))
        p.add_argument("--global", dest="global_scope", action="store_true", help="everywhere, not just this project")
        p.add_argument("--reason", required=True)
    return add


suppress = _suppression_verb("suppress", cmd_suppress,
                             "stop flagging a name (diagnostic) or keep memories naming it out of recall")
unsuppress = _suppression_verb("unsuppress", cmd_unsuppress, "lift a suppression")
