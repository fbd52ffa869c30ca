"""A static table whose cells are shown as text. st.table reads GitHub-flavoured Markdown in
every cell, its index and its header; a table here may hold what a person typed or a link
carried (a token, a row name of soft select's table), so every cell goes through the one
escaper (attnviz.io.user_text.md_literal): shown as typed, never as a link, markup or a list."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from attnviz.io.user_text import md_literal


def plain_table(data: pd.DataFrame | list[dict], **kwargs: Any) -> None:
    """st.table(data, **kwargs) with every cell, row name and column name as literal text."""
    frame = pd.DataFrame(data)
    frame = frame.rename(index=md_literal, columns=md_literal).map(md_literal)
    st.table(frame, **kwargs)
