"""SQLite files that give deleted data's space back to the disk: created (or rewritten once)
with auto_vacuum=INCREMENTAL, then `SHRINK` after deletions frees their pages and empties the
write-ahead log. Used by the run store and the checkpoint file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

# run as a script (executescript steps each statement to its end: a plain execute of
# incremental_vacuum frees a single page)
SHRINK = "PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE);"

# the write-ahead log is cut back to this after each checkpoint (else it keeps its largest size)
JOURNAL_LIMIT = "PRAGMA journal_size_limit=1048576"


def make_shrinkable(path: Path) -> None:
    """auto_vacuum=INCREMENTAL on `path`: a new file gets it at once; a file made before is
    rewritten once (VACUUM), the first time it opens."""
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        if conn.execute("PRAGMA auto_vacuum").fetchone()[0] != 2:
            conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
            conn.execute("VACUUM")
    finally:
        conn.close()
