"""An editable matrix whose hand edits are kept in the URL so a shared link shows them."""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd
import streamlit as st

from attnviz.io.matrix_text import decode_matrix, encode_matrix, finite_problem


def edit_matrix(default: np.ndarray, name: str, url_key: str, col_prefix: str) -> np.ndarray | None:
    """Show `default` (or the URL's version) in a data editor; return the edited matrix.

    Returns None (after showing a clear message) when a cell is empty, NaN or infinite.
    """
    base = default
    shared = st.query_params.get(url_key)
    if shared:
        try:
            base = decode_matrix(shared, default.shape)
        except ValueError as err:
            st.warning(f"The link's {name} was ignored: {err}.")
    frame = pd.DataFrame(base, columns=[f"{col_prefix}{j + 1}" for j in range(base.shape[1])])
    shape_key = f"{url_key}_{default.shape[0]}x{default.shape[1]}_{encode_matrix(default)}"
    edited = st.data_editor(frame, key=f"ed_{zlib.crc32(shape_key.encode())}", width="stretch")
    matrix = edited.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    problem = finite_problem(matrix, name)
    if problem:
        st.error(problem)
        return None
    if np.allclose(matrix, default):
        st.query_params.pop(url_key, None)
    else:
        st.query_params[url_key] = encode_matrix(matrix)
    return matrix
