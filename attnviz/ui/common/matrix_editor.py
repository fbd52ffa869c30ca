"""An editable matrix whose hand edits are kept in the URL so a shared link shows them.

Rows and columns count from 0, as in the step figures ("patch 0", "key 0"): the grid's row
index, its column names (x0, x1, ...) and the messages about bad cells all agree.
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd
import streamlit as st

from attnviz.io.matrix_text import decode_matrix, encode_matrix


def bad_cells_message(matrix: np.ndarray, name: str) -> str | None:
    """A message naming (0-based, as the grid shows) the empty, NaN or infinite cells, else None."""
    arr = np.asarray(matrix, dtype=np.float64)  # (rows, cols)
    if np.isfinite(arr).all():
        return None
    rows, cols = np.nonzero(~np.isfinite(arr))
    cells = list(zip(rows.tolist(), cols.tolist(), strict=True))
    where = ", ".join(f"(row {r}, column {c})" for r, c in cells[:5])
    more = f" and {len(cells) - 5} more" if len(cells) > 5 else ""
    return (
        f"{name} has empty, NaN or infinite cells at {where}{more} (counting from 0, as the grid "
        "does): type finite numbers."
    )


def edit_matrix(
    default: np.ndarray, name: str, url_key: str, col_prefix: str, title: str = ""
) -> str | None:
    """Show `default` (or the URL's version) in a titled data editor; return the edited matrix
    as the URL keeps it ("" while it equals `default`).

    `title` (markdown, may hold LaTeX) heads the grid; `name` is used in messages. Returns None
    (after showing a clear message) when a cell is empty, NaN or infinite.
    """
    base = default
    shared = st.query_params.get(url_key)
    if shared:
        try:
            base = decode_matrix(shared, default.shape)
        except ValueError as err:
            st.warning(f"The link's {name} was ignored: {err}.")
    rows, cols = default.shape
    st.markdown(f"{title or name} &nbsp; [{rows} × {cols}]")
    frame = pd.DataFrame(base, columns=[f"{col_prefix}{j}" for j in range(cols)])
    shape_key = f"{url_key}_{rows}x{cols}_{encode_matrix(default)}"
    edited = st.data_editor(frame, key=f"ed_{zlib.crc32(shape_key.encode())}", width="stretch")
    matrix = edited.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    problem = bad_cells_message(matrix, name)
    if problem:
        st.error(problem)
        return None
    text = "" if np.allclose(matrix, default) else encode_matrix(matrix)
    if text:
        st.query_params[url_key] = text
    else:
        st.query_params.pop(url_key, None)
    return text
