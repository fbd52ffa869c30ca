"""The live classroom's data layer (issue 27): rooms a presenter opens, the step students follow,
questions asked in two rounds (peer instruction: vote alone, discuss, vote again), one vote per
voter per round, the counts the projector shows, a CSV export, expiry, and the QR code of the
students' link. No Streamlit here.

- `config`: where the database is (`ATTNVIZ_DATABASE_URL`, else an SQLite file in WAL mode).
- `schema`: the tables (SQLAlchemy Core, `create_all`; no migrations in v1) and the engine.
- `store`: `Store`, the operations; presenter operations check the presenter key's hash.
- `states`: what it answers with (`VoteResult`, `RoundState`, `RoomState`).
- `tokens`: room codes, presenter keys, voter ids; `checks`: input checks; `errors`: the
  errors, each with a message for a person (`StoreUnavailable` says "retrying…").
- `qr`: `qr_svg(url)`, the students' link as an SVG QR code drawn offline (segno).

Next: the projector and phone views (attnviz/ui/, pages/) over `Store`, a fragment polling
`join`/`counts` on a timer, the lesson bar's "Open a room", and the load test through HAProxy
(`benchmarks/load.py`: 200 students voting through two replicas on PostgreSQL).
"""

from attnviz.classroom.config import StoreConfig
from attnviz.classroom.errors import (
    BadInput,
    ClassroomError,
    NoSuchRoom,
    NotPresenter,
    StoreConfigError,
    StoreUnavailable,
)
from attnviz.classroom.states import RoomState, RoundState, VoteResult
from attnviz.classroom.store import Store

__all__ = [
    "BadInput",
    "ClassroomError",
    "NoSuchRoom",
    "NotPresenter",
    "RoomState",
    "RoundState",
    "Store",
    "StoreConfig",
    "StoreConfigError",
    "StoreUnavailable",
    "VoteResult",
]
