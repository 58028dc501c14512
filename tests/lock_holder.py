"""Another process holding the store's write lock, as a long `import` does: it opens the store,
takes the lock (BEGIN IMMEDIATE on SQLite), prints `held`, and lets go when its stdin closes or
after `at_most` seconds, whichever comes first.

Usage: python -m tests.lock_holder STORE AT_MOST_SECONDS"""

from __future__ import annotations

import select
import sys

from cenotaph.app import open_store


def main(location: str, at_most: float) -> None:
    store = open_store(location)
    try:
        with store.write():
            print("held", flush=True)
            select.select([sys.stdin], [], [], at_most)  # readable once the parent closes it
    finally:
        store.close()


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
