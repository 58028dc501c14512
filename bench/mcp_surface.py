"""What an agent pays for the MCP surface (issue 28), in characters, through the Python SDK's own
client on the real server: `tools/list` serialized as JSON, and one `recall` of ten short
memories (the text block and the structured content together), with what it adds beyond the
memories' own text (counted once). Deterministic: no timing, so the load does not matter.

Usage: python bench/mcp_surface.py  (run it on an older commit's tree for the before)
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

from mcp import Client
from mcp.types import Implementation

sys.path.insert(0, str(Path(__file__).resolve().parent))
from perf import commit_measured  # noqa: E402  (bench/ is not a package)

from cenotaph.app import open_memory  # noqa: E402
from cenotaph.mcp.server import build_server  # noqa: E402
from cenotaph.memory.models import Actor  # noqa: E402

PROJECT = "bench/surface"
PERSON = Actor(name="bench", kind="human")
MEMORIES = [f"Deploy rule {i}: the {service} service deploys from the release branch after its {check} passes."
            for i, (service, check) in enumerate([
                ("billing", "contract test"), ("search", "index rebuild"), ("checkout", "smoke test"),
                ("auth", "token rotation"), ("mailer", "template lint"), ("reports", "query audit"),
                ("gateway", "load test"), ("images", "cache warmup"), ("orders", "schema check"),
                ("payments", "PCI scan")])]


async def measure(workdir: Path) -> dict[str, object]:
    memory = open_memory(workdir / "store.db")
    try:
        for text in MEMORIES:
            memory.remember(PERSON, text, project=PROJECT, kind="decision", force=True)
        async with Client(build_server(memory, project=PROJECT),
                          client_info=Implementation(name="bench", version="1")) as client:
            listed = await client.list_tools()
            recalled = await client.call_tool("recall", {"query": "which branch do services deploy from", "k": 10})
    finally:
        memory.ctx.store.close()
    text = "".join(c.text for c in recalled.content)
    total = len(text) + len(json.dumps(recalled.structured_content, ensure_ascii=False))
    own = sum(len(r["content"]) for r in recalled.structured_content["results"])
    return {"commit": commit_measured(), "tools": len(listed.tools),
            "tools_list_chars": len(listed.model_dump_json(by_alias=True, exclude_none=True)),
            "recall_k10_chars": total, "recall_k10_memory_text": own, "recall_k10_added": total - own}


def main() -> None:
    with tempfile.TemporaryDirectory() as workdir:
        print(json.dumps(asyncio.run(measure(Path(workdir))), indent=2))


if __name__ == "__main__":
    main()
