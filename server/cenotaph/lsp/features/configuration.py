"""Settings from `initializationOptions`, then from `workspace/didChangeConfiguration` (pushed, or
pulled with `workspace/configuration`). An invalid value falls back to its default, and the user is
told which and why."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from cenotaph.lsp.settings import SECTION, names_ours, parse

if TYPE_CHECKING:
    from cenotaph.lsp.features import ServerContext

log = logging.getLogger(__name__)


def apply(ls: ServerContext, raw: Any) -> None:
    settings, problems = parse(raw)
    ls.settings = settings
    if problems:
        message = "Cenotaph: invalid settings — " + "; ".join(dict.fromkeys(problems))
        log.warning("%s", message)
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))


def register(server: ServerContext) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: ServerContext, params: types.DidChangeConfigurationParams) -> None:
        # Applied before the next message is handled: a save right after a settings change sees it.
        if names_ours(params.settings):
            apply(ls, params.settings)
            ls.republish_all()
            return
        # The pull model: the notification only says that something changed.
        capabilities = ls.client_capabilities.workspace
        if capabilities and capabilities.configuration:
            ls.spawn(_pull(ls))


async def _pull(ls: ServerContext) -> None:
    answer = await ls.workspace_configuration_async(
        types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)]))
    apply(ls, answer[0] if answer else None)
    ls.republish_all()
