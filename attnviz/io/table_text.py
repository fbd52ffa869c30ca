"""The soft-select page's key/value table as short URL text ("name:k1:k2:value;...") and back,
with readable errors for garbled input."""

from __future__ import annotations

import pandas as pd


def encode_table(table: pd.DataFrame) -> str:
    """Compact URL form: "name:k1:k2:value;..." (names lose ':' and ';')."""
    rows = []
    for name, k1, k2, v in table[["name", "key 1", "key 2", "value"]].itertuples(index=False):
        clean = str(name).replace(":", " ").replace(";", " ")[:20]
        rows.append(f"{clean}:{float(k1):g}:{float(k2):g}:{float(v):g}")
    return ";".join(rows)


def decode_table(text: str) -> pd.DataFrame:
    """Inverse of encode_table; raises ValueError with a readable reason on garbled text."""
    records = []
    for i, chunk in enumerate(text.split(";"), 1):
        parts = chunk.split(":")
        if len(parts) != 4:
            raise ValueError(f"row {i} of the shared table should have 4 fields, has {len(parts)}")
        try:
            numbers = [float(p) for p in parts[1:]]
        except ValueError as err:
            raise ValueError(f"row {i} of the shared table has a non-number: {err}") from None
        records.append([parts[0][:20], *numbers])
    if not 1 <= len(records) <= 12:
        raise ValueError("a shared table must have between 1 and 12 rows")
    return pd.DataFrame(records, columns=["name", "key 1", "key 2", "value"])
