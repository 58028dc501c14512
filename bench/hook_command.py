"""What the installed hook command and the person-only check add to a hook call:

* the portable command (`memory/policy/agent_hooks.command`, run by `/bin/sh -c` as the agents
  do) beside `cenotaph hook claude-code` run directly, alternated on the same PreToolUse input
  (`ls`, which opens no store), so that both see the same load;
* `cli/authority.person_only_verb` over every Bash command of the labelled set
  (tests/data/hook_calls), in process, per command.

Usage: python bench/hook_command.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT)]
from perf import commit_measured, stats  # noqa: E402  (bench/ is not a package)

from cenotaph.cli.authority import person_only_verb  # noqa: E402
from cenotaph.memory.policy.agent_hooks import command  # noqa: E402
from tests import hook_calls  # noqa: E402

CENOTAPH = str(Path(sys.executable).with_name("cenotaph"))


def timed(argv: list[str], stdin: str, env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, env=env, cwd=cwd, capture_output=True, text=True, timeout=120,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed: {done.stderr}")
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cenotaph-bench-") as scratch:
        root = Path(scratch)
        (root / ".venv" / "bin").mkdir(parents=True)
        (root / ".venv" / "bin" / "cenotaph").symlink_to(CENOTAPH)
        env = {**os.environ, "CENOTAPH_HOME": str(root / "home"), "CLAUDE_PROJECT_DIR": str(root)}
        payload = json.dumps({"cwd": str(root), "hook_event_name": "PreToolUse", "tool_name": "Bash",
                              "tool_input": {"command": "ls"}})
        direct, portable = [], []
        for _ in range(args.runs):
            direct.append(timed([CENOTAPH, "hook", "claude-code"], payload, env, root))
            portable.append(timed(["/bin/sh", "-c", command("claude-code")], payload, env, root))
    commands = [c["tool_input"]["command"] for c in hook_calls.calls()
                if c.get("tool_name") == "Bash" and isinstance(c.get("tool_input", {}).get("command"), str)]
    checks = []
    for _ in range(20):
        started = time.perf_counter()
        for text in commands:
            person_only_verb(text)
        checks.append((time.perf_counter() - started) * 1e6 / len(commands))
    print(json.dumps({
        "commit": commit_measured(), "load": os.getloadavg()[0],
        "direct": stats(direct), "portable_command": stats(portable),
        "extra_ms_median": round(statistics.median(portable) - statistics.median(direct), 2),
        "person_only_check_us_per_command": round(statistics.median(checks), 1), "bash_commands": len(commands),
    }, indent=2))


if __name__ == "__main__":
    main()
