"""Recall and remember from the editor (shared_schema/recall.schema.json): requests
`cenotaph/recall` and `cenotaph/remember`, answered by this process, which has the model and
spaCy loaded already, instead of a `cenotaph` process per question that loads them again (2–3 s).
The results are those of `cenotaph recall --json` and `cenotaph remember --json`, field for field."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, StringConstraints, model_validator

from cenotaph.lsp.features.commands import _domain, _project, _ProjectOrUri, parse
from cenotaph.memory.models import KINDS, as_json

if TYPE_CHECKING:
    from cenotaph.lsp.features import ServerContext

RECALL = "cenotaph/recall"
REMEMBER = "cenotaph/remember"

Kind = Literal[KINDS]  # type: ignore[valid-type]


# Lengths, blank text and tags are the domain's to refuse (memory/validate.py), naming the field.
class RecallParams(_ProjectOrUri):
    query: Annotated[str, StringConstraints(min_length=1)]
    k: Annotated[int, Field(ge=1, le=200)] = 10
    kinds: list[Kind] | None = None

    @model_validator(mode="after")
    def _scoped(self) -> RecallParams:
        self._require_project()
        return self


class RememberParams(_ProjectOrUri):
    content: Annotated[str, StringConstraints(min_length=1)]
    kind: Kind = "note"
    tags: list[str] | None = None

    @model_validator(mode="after")
    def _scoped(self) -> RememberParams:
        self._require_project()
        return self


async def recall(ls: ServerContext, params: RecallParams) -> dict[str, Any]:
    project = _project(ls, params)
    response = await _domain(ls, lambda: ls.memory.recall(ls.actor, params.query, project=project, k=params.k,
                                                      kinds=params.kinds))
    return as_json(response)


async def remember(ls: ServerContext, params: RememberParams) -> dict[str, Any]:
    project = _project(ls, params)
    result = await _domain(ls, lambda: ls.memory.remember(ls.actor, params.content, project=project, kind=params.kind,
                                                      tags=params.tags))
    if result.stored:
        ls.store_changed()
    return as_json(result)


def register(server: ServerContext) -> None:
    @server.feature(RECALL)
    async def recall_request(ls: ServerContext, params: Any) -> dict[str, Any]:
        return await recall(ls, parse(RECALL, RecallParams, (params,)))

    @server.feature(REMEMBER)
    async def remember_request(ls: ServerContext, params: Any) -> dict[str, Any]:
        return await remember(ls, parse(REMEMBER, RememberParams, (params,)))
