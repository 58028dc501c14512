"""The skill compiler: reinforced lessons rendered, without a model, into the files agents and CI
read (Agent Skills, instruction files, lint rules), behind a gate. `compile` only proposes: it
stores the drafts, their diffs and the sha256 of each file as it was diffed. A person's accept
writes them only if every file still has that sha256; otherwise nothing is written."""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import hashlib
import os
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from cenotaph.memory import proposals, validate
from cenotaph.memory.context import Context
from cenotaph.memory.errors import Conflict, InvalidInput
from cenotaph.memory.models import COMPILE_TARGETS, Actor
from cenotaph.memory.policy import lessons as lesson_store
from cenotaph.memory.policy.compile import biome, eslint, hooks, instructions, ruff, skills
from cenotaph.memory.policy.compile.drafts import FileDraft
from cenotaph.project import display_name
from cenotaph.store.records import ProposalRow

TARGETS = COMPILE_TARGETS
ABSENT = "absent"
ACTION = "compile"


@dataclass(slots=True)
class FileChange:
    """One file of a proposal: its draft, the diff from the file on disk, and that file's sha256."""

    path: str
    base_sha256: str  # or "absent"
    draft: str | None  # None: accepting deletes the file
    diff: str


@dataclass(slots=True)
class CompileResult:
    target: str
    root: str
    lessons: int  # reinforced lessons in the drafts
    files: list[FileChange]  # only the files that would change
    proposal: ProposalRow | None  # None: every file is up to date


@dataclass(slots=True)
class WrittenFile:
    path: str
    sha256: str  # or "absent": deleted


@dataclass(slots=True)
class CompileWrite:
    proposal_id: int
    target: str
    root: str
    files: list[WrittenFile]


def sha256_of(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return ABSENT


def _read(root: Path, relative: str) -> str | None:
    """The file's text with its own line endings: the bytes outside what Cenotaph manages stay."""
    try:
        return (root / relative).read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise Conflict(f"{relative} is not UTF-8 text", field="file") from None


def _compile_settings(root: Path) -> dict:
    """The `[compile]` table of the repository's `.cenotaph.toml` (empty when absent or unreadable)."""
    settings = root / ".cenotaph.toml"
    if not settings.is_file():
        return {}
    try:
        found = tomllib.loads(settings.read_text(encoding="utf-8")).get("compile", {})
    except (tomllib.TOMLDecodeError, AttributeError):
        return {}
    return found if isinstance(found, dict) else {}


def skills_dir(root: Path) -> str:
    """`[compile] skills_dir` in the repository's `.cenotaph.toml`, else `.claude/skills`."""
    found = _compile_settings(root).get("skills_dir")
    return found.strip() if isinstance(found, str) and found.strip() else skills.DEFAULT_DIR


def skill_names(root: Path) -> dict[str, str]:
    """A person's renames of topics, `[compile.skill_names]` in `.cenotaph.toml`: the name the
    compiler derives → the name to use. Kept in the repository, so every recompile (and every
    teammate's) honours them."""
    found = _compile_settings(root).get("skill_names", {})
    if not isinstance(found, dict):
        raise InvalidInput("[compile.skill_names] in .cenotaph.toml must be a table", field="skill_names")
    for old, new in found.items():
        if not isinstance(new, str) or not lesson_store.valid_skill_name(new):
            raise InvalidInput(f"[compile.skill_names] {old} = {new!r}: a skill name is lowercase letters, digits "
                               f"and single hyphens, at most {lesson_store.MAX_SKILL_NAME} characters",
                               field="skill_names")
    return dict(found)


def _inside(root: Path, relative: str, field: str) -> Path:
    path = (root / relative).resolve()
    if not path.is_relative_to(root.resolve()) or Path(relative).is_absolute():
        raise InvalidInput(f"{relative} is outside the repository", field=field)
    return path


def _folder(root: Path) -> Path:
    root = Path(root).resolve()
    if not root.is_dir():
        raise InvalidInput(f"{root} is not a folder", field="root")
    return root


def render(ctx: Context, target: str, project: str, root: Path, chosen: list[lesson_store.Lesson],
           directory: str | None = None) -> list[FileDraft]:
    """The drafts of `target` from the reinforced lessons `chosen` of `project` (same store, same bytes).
    A project id that is a local path never reaches a file: where a lesson quotes it, the
    project's display name stands for it."""
    if os.path.isabs(project):
        shown = display_name(project)
        chosen = [dataclasses.replace(
            l, text=l.text.replace(project, shown),
            approach=l.approach and dataclasses.replace(l.approach, reason=l.approach.reason.replace(project, shown)))
            for l in chosen]
    if target in ("skill", *instructions.FILES):
        grouped = lesson_store.topics(ctx, chosen, project, skill_names(root))
        if target == "skill":
            folder = directory if directory is not None else skills_dir(root)
            _inside(root, folder, "dir")
            return skills.render(grouped, project, root, folder)
        return [instructions.render(target, _read(root, instructions.FILES[target]), grouped)]
    donts = [l for l in chosen if l.kind == "dont"]
    if target == "ruff":
        path = ruff.config_file(root)
        return [ruff.render(path, _read(root, path), donts)]
    renderer = eslint.render if target == "eslint" else biome.render
    return renderer(root, lambda relative: _read(root, relative), donts)


def unified_diff(path: str, current: str | None, draft: str | None) -> str:
    def lines(text: str) -> list[str]:
        found = text.splitlines(keepends=True)
        if found and not found[-1].endswith("\n"):
            found[-1] += "\n\\ No newline at end of file\n"
        return found

    return "".join(difflib.unified_diff(lines(current or ""), lines(draft or ""),
                                        fromfile="/dev/null" if current is None else f"a/{path}",
                                        tofile="/dev/null" if draft is None else f"b/{path}"))


def propose(ctx: Context, actor: Actor, target: str, *, project: str, root: Path,
            directory: str | None = None) -> CompileResult:
    """Render `target` and store a proposal of the files that would change (or none: up to date)."""
    root = _folder(root)
    validate.choice(target, "target", TARGETS)
    chosen = lesson_store.reinforced(ctx, project)
    drafts = render(ctx, target, project, root, chosen, directory)
    count = len(chosen)
    return propose_drafts(ctx, actor, target, drafts, project=project, root=root, lessons=count,
                          why=f"from {count} lesson(s)")


def propose_drafts(ctx: Context, actor: Actor, target: str, drafts: list[FileDraft], *, project: str, root: Path,
                   lessons: int, why: str) -> CompileResult:
    """Store a proposal of the drafts that differ from their files (or none: all up to date),
    each with the sha256 its file had, which `write` checks before it writes."""
    changes = []
    for draft in drafts:
        _inside(root, draft.path, "path")
        current = _read(root, draft.path)
        if current == draft.draft:
            continue
        changes.append(FileChange(path=draft.path, base_sha256=sha256_of(root / draft.path), draft=draft.draft,
                                  diff=unified_diff(draft.path, current, draft.draft)))
    if not changes:
        return CompileResult(target=target, root=str(root), lessons=lessons, files=[], proposal=None)
    arguments = {"target": target, "root": str(root),
                 "files": [{"path": c.path, "base_sha256": c.base_sha256, "draft": c.draft, "diff": c.diff}
                           for c in changes]}
    row = proposals.propose(ctx, actor, action=ACTION, target=f"compile:{target}", project=validate.project(project),
                            arguments=arguments,
                            reason=f"compile {target}: {', '.join(c.path for c in changes)} {why}")
    return CompileResult(target=target, root=str(root), lessons=lessons, files=changes, proposal=row)


def propose_hooks(ctx: Context, actor: Actor, agent: str, *, install: bool, project: str, root: Path,
                  command: str, scope: str = "project") -> CompileResult:
    """Propose `agent`'s settings file of `scope` under `root` (a project, or a home folder for
    `user`) with Cenotaph's hooks merged in running `command`, or taken out; accepting it is the
    same gated write."""
    root = _folder(root)
    validate.choice(agent, "agent", tuple(hooks.AGENTS))
    path = hooks.settings_path(agent, validate.choice(scope, "scope", hooks.SCOPES))
    current = _read(root, path)
    draft = hooks.install(agent, current, command, path) if install else hooks.uninstall(agent, current, path)
    verb = "install" if install else "uninstall"
    return propose_drafts(ctx, actor, f"hooks-{verb}:{agent}" + ("" if scope == "project" else f":{scope}"), [draft], project=project, root=root, lessons=0,
                          why=f"({verb} Cenotaph's {agent} hooks)")


def changes_of(proposal: ProposalRow) -> list[FileChange]:
    return [FileChange(path=f["path"], base_sha256=f["base_sha256"], draft=f["draft"], diff=f["diff"])
            for f in proposal.arguments["files"]]


def _again(proposal: ProposalRow) -> str:
    """The command that proposes this change afresh, against the file as it is now."""
    target = proposal.arguments["target"]
    if not target.startswith("hooks-"):
        return f"`cenotaph compile --target {target}`"
    verb, agent, *scope = target.removeprefix("hooks-").split(":")
    return f"`cenotaph hooks {verb} {agent}{''.join(f' --{s}' for s in scope)}`"


def write(ctx: Context, actor: Actor, proposal: ProposalRow) -> CompileWrite:
    """Write a compile proposal's files, all or none: every file must still be as it was diffed."""
    root = Path(proposal.arguments["root"])
    changes = changes_of(proposal)
    for change in changes:
        if sha256_of(_inside(root, change.path, "path")) != change.base_sha256:
            raise Conflict(f"{change.path} changed since the proposal; propose it again with {_again(proposal)}",
                           field="file")
    written = []
    for change in changes:
        path = _inside(root, change.path, "path")
        if change.draft is None:
            path.unlink()
            with contextlib.suppress(OSError):  # the skill's folder, when nothing else is in it
                path.parent.rmdir()
            written.append(WrittenFile(path=change.path, sha256=ABSENT))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        data = change.draft.encode("utf-8")
        # A reader (an editor, a linter) sees the old file or the new one, never half of it.
        fd, scratch = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".cenotaph")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            if path.exists():
                os.chmod(scratch, path.stat().st_mode & 0o7777)
            else:
                os.chmod(scratch, 0o644)
            os.replace(scratch, path)
        except BaseException:
            Path(scratch).unlink(missing_ok=True)
            raise
        written.append(WrittenFile(path=change.path, sha256=hashlib.sha256(data).hexdigest()))
    with ctx.store.write() as tx:
        for file in written:
            ctx.event(tx, actor=actor.name, action="compile:write", target=f"file:{file.path}",
                      project=proposal.project, after={"sha256": file.sha256, "proposal": proposal.id,
                                                       "root": str(root)})
    return CompileWrite(proposal_id=proposal.id, target=proposal.arguments["target"], root=str(root), files=written)
