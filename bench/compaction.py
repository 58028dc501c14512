"""Compaction: where its cosine threshold (memory/knowledge/compaction.py: COMPACT_SIMILARITY) comes from,
and how long `cenotaph compact` takes to find clusters.

Threshold.
Two labelled sets of memory pairs, as a project's memory holds them: SAME (one subject said twice:
a restatement, a follow-up, a detail added later; what one summary should stand for) and
DIFFERENT (two subjects of the same project, often sharing words or a library: what must never
share a summary). Each pair is embedded with the model the store uses; the script prints both
distributions and, for each candidate threshold, how many SAME pairs it would join (recall) and
how many DIFFERENT pairs it would wrongly join.

Speed: `compact` (every memory a candidate, `--older-than 0`) on a copy of perf.py's cached store
of 10,000 memories (the cache itself is never opened, so its schema stays as other checkouts need
it), median and p95 over repeated runs. Usage: python bench/compaction.py [--size 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cenotaph import paths  # noqa: E402
from cenotaph.memory.context import Context  # noqa: E402
from cenotaph.memory.service import Memory  # noqa: E402
from cenotaph.nlp.analysis import Analyzer  # noqa: E402
from cenotaph.nlp.embedder import Embedder  # noqa: E402
from cenotaph.store.db import Store  # noqa: E402
from perf import PROJECT, commit_measured, snapshot, stats  # noqa: E402

SAME = [
    ("The CI runs on GitHub Actions with Python 3.11 and 3.12.",
     "GitHub Actions runs our CI on Python 3.11 and 3.12."),
    ("Deploys go out from the release branch every Tuesday.",
     "We deploy the release branch on Tuesdays."),
    ("The staging database is a nightly copy of production with emails scrubbed.",
     "Staging's database is refreshed from production every night, with email addresses scrubbed."),
    ("Use httpx instead of requests for outgoing HTTP calls.",
     "Outgoing HTTP calls use httpx, not requests."),
    ("The login page rate-limits to five attempts a minute per IP.",
     "Login attempts are limited to five per minute for each IP address."),
    ("The billing job runs at 02:00 UTC and retries three times on failure.",
     "The nightly billing job starts at 2am UTC and retries up to three times."),
    ("The search index is rebuilt from scratch on every schema change.",
     "Every schema change triggers a full rebuild of the search index."),
    ("Feature flags live in LaunchDarkly; never hard-code them.",
     "We keep feature flags in LaunchDarkly rather than hard-coding them."),
    ("Migrations are written with Alembic and reviewed by the database owner.",
     "Alembic migrations need a review from the database owner."),
    ("The API gateway terminates TLS and forwards plain HTTP to the services.",
     "TLS is terminated at the API gateway; services behind it speak plain HTTP."),
    ("Logs are shipped to Loki and kept for 14 days.",
     "We ship logs to Loki with a 14-day retention."),
    ("The mobile app talks to the backend over GraphQL only.",
     "The mobile app uses only the GraphQL API of the backend."),
    ("Secrets are stored in Vault and injected at container start.",
     "Containers get their secrets from Vault when they start."),
    ("Frontend tests run with Vitest and Playwright for end-to-end.",
     "We test the frontend with Vitest, and Playwright covers end-to-end."),
    ("The embeddings cache is keyed on the model name and the text hash.",
     "Cache keys for embeddings combine the model name with a hash of the text."),
    ("Code review needs two approvals before merging to main.",
     "Merging into main requires two approving reviews."),
    ("Background jobs use Celery with Redis as the broker.",
     "Celery runs our background jobs, with Redis as its broker."),
    ("The on-call engineer writes the release notes.",
     "Release notes are written by whoever is on call."),
    ("Images are resized on upload to at most 2048 pixels wide.",
     "Uploaded images get resized to a maximum width of 2048 px."),
    ("We pin every dependency with uv lock and update weekly.",
     "Dependencies are pinned in uv's lock file and bumped once a week."),
    ("Postgres connections go through PgBouncer in transaction mode.",
     "PgBouncer pools the Postgres connections in transaction mode."),
    ("Error reports go to Sentry with the release version attached.",
     "Sentry receives our error reports tagged with the release version."),
    ("The docs site is built with MkDocs and published on every merge.",
     "Every merge publishes the MkDocs documentation site."),
    ("Timestamps are stored in UTC and converted only in the UI.",
     "We store all timestamps as UTC and convert them in the interface."),
]

DIFFERENT = [
    ("The CI runs on GitHub Actions with Python 3.11 and 3.12.",
     "Deploys go out from the release branch every Tuesday."),
    ("The staging database is a nightly copy of production with emails scrubbed.",
     "Migrations are written with Alembic and reviewed by the database owner."),
    ("Use httpx instead of requests for outgoing HTTP calls.",
     "The API gateway terminates TLS and forwards plain HTTP to the services."),
    ("The login page rate-limits to five attempts a minute per IP.",
     "The mobile app talks to the backend over GraphQL only."),
    ("The billing job runs at 02:00 UTC and retries three times on failure.",
     "Background jobs use Celery with Redis as the broker."),
    ("The search index is rebuilt from scratch on every schema change.",
     "The embeddings cache is keyed on the model name and the text hash."),
    ("Logs are shipped to Loki and kept for 14 days.",
     "Error reports go to Sentry with the release version attached."),
    ("Secrets are stored in Vault and injected at container start.",
     "Feature flags live in LaunchDarkly; never hard-code them."),
    ("Frontend tests run with Vitest and Playwright for end-to-end.",
     "Code review needs two approvals before merging to main."),
    ("Postgres connections go through PgBouncer in transaction mode.",
     "The staging database is a nightly copy of production with emails scrubbed."),
    ("We pin every dependency with uv lock and update weekly.",
     "The CI runs on GitHub Actions with Python 3.11 and 3.12."),
    ("The docs site is built with MkDocs and published on every merge.",
     "Code review needs two approvals before merging to main."),
    ("Timestamps are stored in UTC and converted only in the UI.",
     "The billing job runs at 02:00 UTC and retries three times on failure."),
    ("Images are resized on upload to at most 2048 pixels wide.",
     "The mobile app talks to the backend over GraphQL only."),
    ("The on-call engineer writes the release notes.",
     "Deploys go out from the release branch every Tuesday."),
    ("Celery workers restart every 1000 tasks to contain memory leaks.",
     "Background jobs use Celery with Redis as the broker."),
    ("The Postgres primary has 64 GB of RAM and two read replicas.",
     "Postgres connections go through PgBouncer in transaction mode."),
    ("Sentry alerts page the on-call engineer after ten errors a minute.",
     "Error reports go to Sentry with the release version attached."),
    ("The search page debounces keystrokes by 300 ms.",
     "The search index is rebuilt from scratch on every schema change."),
    ("Vault tokens for CI expire after one hour.",
     "Secrets are stored in Vault and injected at container start."),
    ("Playwright tests run against a seeded staging database.",
     "Frontend tests run with Vitest and Playwright for end-to-end."),
    ("The login page supports passkeys since March.",
     "The login page rate-limits to five attempts a minute per IP."),
    ("Loki queries time out after 30 seconds on the shared cluster.",
     "Logs are shipped to Loki and kept for 14 days."),
    ("The release branch is cut from main on Monday evening.",
     "Deploys go out from the release branch every Tuesday."),
]


def cosines(embedder: Embedder, pairs: list[tuple[str, str]]) -> list[float]:
    left = embedder.embed([a for a, _ in pairs])
    right = embedder.embed([b for _, b in pairs])
    return [float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))) for a, b in zip(left, right, strict=True)]


def clustering_speed(embedder: Embedder, size: int, runs: int) -> None:
    cached = paths.cache_dir().parent / "cenotaph-bench" / f"store-{size}.db"
    if not cached.exists():
        print(f"no cached store of {size} memories: run `python bench/perf.py --sizes {size}` first")
        return
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "store.db"
        snapshot(cached, copy, readonly_source=True)
        store = Store(copy)
        memory = Memory(Context(store=store, embedder=embedder, analyzer=Analyzer()))
        samples, clusters = [], []
        for _ in range(runs):
            start = time.perf_counter()
            clusters = memory.compact_candidates(PROJECT, older_than_days=0)
            samples.append((time.perf_counter() - start) * 1000)
        store.close()
    sizes = [len(c.member_ids) for c in clusters]
    print(f"compact over {size} memories (commit {commit_measured()}, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}): {stats(samples)}; {len(clusters)} clusters, "
          f"{sum(sizes)} memories in them, largest {max(sizes, default=0)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    embedder = Embedder()
    same, different = cosines(embedder, SAME), cosines(embedder, DIFFERENT)
    for name, values in (("same subject", same), ("different subjects", different)):
        q = statistics.quantiles(values, n=20)
        print(f"{name:18} n={len(values)} min {min(values):.3f}  p5 {q[0]:.3f}  median {statistics.median(values):.3f}"
              f"  p95 {q[-1]:.3f}  max {max(values):.3f}")
    print("threshold  same joined  different joined")
    for threshold in (0.70, 0.72, 0.75, 0.78, 0.80, 0.82, 0.85, 0.88, 0.90):
        print(f"  {threshold:.2f}     {sum(v >= threshold for v in same):2}/{len(same)}        "
              f"{sum(v >= threshold for v in different):2}/{len(different)}")
    clustering_speed(embedder, args.size, args.runs)


if __name__ == "__main__":
    main()
