"""Download buttons for the matrices a page shows, as CSV and JSON."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from attnviz.io.export import matrices_to_csv, matrices_to_json


def matrices(
    named: dict[str, np.ndarray],
    file_stem: str,
    key: str,
    labels: dict[str, tuple[Sequence[str], Sequence[str]]] | None = None,
) -> None:
    """CSV (one block per matrix) and JSON ({name: nested lists}) downloads side by side.

    `labels` maps a matrix's name to its (row labels, column labels), e.g. the tokens: those
    matrices are written with a header row and a label column (JSON: "rows", "columns").
    The files are produced only when a button is clicked (Streamlit calls the callable then),
    so large matrices cost nothing on ordinary reruns."""
    left, right = st.columns(2)
    left.download_button(
        "Download CSV",
        lambda: matrices_to_csv(named, labels),
        f"{file_stem}.csv",
        "text/csv",
        key=f"{key}_csv",
        on_click="ignore",  # no rerun: one raced the file's fetch (a stuck button)
    )
    right.download_button(
        "Download JSON",
        lambda: matrices_to_json(named, labels),
        f"{file_stem}.json",
        "application/json",
        key=f"{key}_json",
        on_click="ignore",  # no rerun: one raced the file's fetch (a stuck button)
    )
