"""How cost grows with the store: recall and LSP diagnostics latency against the number of memories,
as a PNG, from the JSON that `bench/perf.py --out` and `bench/lsp_perf.py --out` write (each holds
one entry per store size). Medians are drawn as lines, p95 as dashed lines, targets as dotted ones.

With `--pg` (bench/pg_perf.py --out), the memory core panel gains the PostgreSQL store's lines beside
the SQLite ones measured in that same run.

Usage: python bench/plot.py --perf perf.json [--lsp lsp.json] [--pg pg.json] [--out docs/benchmarks-scale.png]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402  (the backend is chosen first)

RECALL_SERIES = {"recall": "recall (semantic lane)", "recall_exact": "recall (exact lane)",
                 "mcp_stdio_recall": "recall over MCP stdio", "remember": "remember (with embedding)"}
RECALL_TARGETS = [(10_000, 25.0), (100_000, 80.0)]  # issue 2
LSP_FILES = {"model.py": "Python file", "requirements.txt": "requirements.txt"}


def recall_points(perf: dict) -> dict[str, list[tuple[int, float, float]]]:
    """Series name → (memories, median ms, p95 ms), by store size."""
    series: dict[str, list[tuple[int, float, float]]] = {}
    for entry in sorted(perf["sizes"], key=lambda e: e["memories"]):
        for key in RECALL_SERIES:
            if key in entry:
                series.setdefault(key, []).append((entry["memories"], entry[key]["median_ms"], entry[key]["p95_ms"]))
    return series


PG_SERIES = {"recall": "recall", "remember": "remember"}
PG_STORES = {"postgres": "PostgreSQL", "sqlite": "SQLite, same run"}


def pg_points(pg: dict) -> tuple[dict[str, list[tuple[int, float, float]]], dict[str, str]]:
    """The PostgreSQL store beside SQLite (bench/pg_perf.py): series and their labels."""
    series: dict[str, list[tuple[int, float, float]]] = {}
    labels: dict[str, str] = {}
    for entry in sorted(pg["sizes"], key=lambda e: e["memories"]):
        for key, label in PG_SERIES.items():
            for store, store_label in PG_STORES.items():
                figures = entry.get(key, {}).get(store)
                if figures:
                    series.setdefault(f"{key}:{store}", []).append(
                        (entry["memories"], figures["median_ms"], figures["p95_ms"]))
                    labels[f"{key}:{store}"] = f"{label} ({store_label})"
    return series, labels


def diagnostics_points(lsp: dict) -> dict[str, list[tuple[int, float, float]]]:
    """didOpen → publishDiagnostics (server side, per file; client-observed too when measured)."""
    series: dict[str, list[tuple[int, float, float]]] = {}
    for report in sorted(lsp["sizes"], key=lambda r: r["memories"]):
        for name, figures in report.get("server_side", {}).items():
            opened = figures["didOpen_to_publish"]
            series.setdefault(f"server: {LSP_FILES.get(name, name)}", []).append(
                (report["memories"], opened["median_ms"], opened["p95_ms"]))
        client = report.get("client_side", {}).get("didOpen_to_publish_2000_lines")
        if client:
            series.setdefault("client-observed: Python file", []).append(
                (report["memories"], client["median_ms"], client["p95_ms"]))
    return series


def draw(axes, series: dict[str, list[tuple[int, float, float]]], labels: dict[str, str], title: str,
         target: float | list[tuple[int, float]] | None) -> None:
    for index, (key, points) in enumerate(series.items()):
        colour = f"C{index}"
        sizes = [p[0] for p in points]
        axes.plot(sizes, [p[1] for p in points], marker="o", color=colour, label=f"{labels.get(key, key)} median")
        axes.plot(sizes, [p[2] for p in points], linestyle="--", color=colour, alpha=0.6, label="p95")
    if isinstance(target, list):  # a target per store size
        axes.plot([x for x, _ in target], [y for _, y in target], color="grey", linestyle=":", marker="x",
                  label="recall target " + ", ".join(f"{y:g} ms at {x:,}" for x, y in target))
    elif target is not None:
        axes.axhline(target, color="grey", linestyle=":", label=f"target {target:g} ms")
    axes.set_xscale("log")
    axes.set_xlabel("memories in the project")
    axes.set_ylabel("milliseconds")
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=7)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--perf", type=Path, help="bench/perf.py --out file (needed unless --pg is given)")
    parser.add_argument("--lsp", type=Path, help="bench/lsp_perf.py --out file")
    parser.add_argument("--pg", type=Path, help="bench/pg_perf.py --out file (PostgreSQL beside SQLite)")
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks-scale.png"))
    parser.add_argument("--diagnostics-target", type=float, default=10.0,
                        help="target line (ms) on the LSP panel (issue 4: didOpen → publish, 2,000 lines)")
    args = parser.parse_args()
    if not (args.perf or args.pg):
        parser.error("give --perf, --pg or both")

    pg = json.loads(args.pg.read_text()) if args.pg else None
    perf = json.loads(args.perf.read_text()) if args.perf else {"sizes": pg["sizes"], "commit": pg.get("commit"),
                                                                 "cores": pg.get("cores")}
    lsp = json.loads(args.lsp.read_text()) if args.lsp else None
    panels = 2 if lsp else 1
    figure, axes = plt.subplots(1, panels, figsize=(6.5 * panels, 4.5), squeeze=False)
    series, labels = (recall_points(perf) if args.perf else {}), dict(RECALL_SERIES)
    if pg:
        pg_series, pg_labels = pg_points(pg)
        series.update(pg_series)
        labels.update(pg_labels)
    draw(axes[0][0], series, labels, "Memory core", RECALL_TARGETS)
    if lsp:
        draw(axes[0][1], diagnostics_points(lsp), {}, "Language server: didOpen → diagnostics (2,000 lines)",
             args.diagnostics_target)
    loads = [entry["load_average"][0] for entry in perf["sizes"] if "load_average" in entry]
    where = ", ".join(filter(None, [f"commit {perf['commit']}" if perf.get("commit") else "",
                                    f"load average {min(loads):.1f}–{max(loads):.1f} on "
                                    f"{perf.get('cores', '?')} cores" if loads else ""]))
    figure.suptitle(f"Latency against store size{f' ({where})' if where else ''}", fontsize=10)
    figure.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(args.out, dpi=120)
    print(args.out)


if __name__ == "__main__":
    main()
