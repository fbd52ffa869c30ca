"""AttnViz entry point: page settings, the shared sidebar, and navigation over the page table
(attnviz.ui.navigation.PAGES, the one list of pages)."""

import streamlit as st

from attnviz.ui.navigation import PAGES
from attnviz.ui.sidebar import draw_sidebar

st.set_page_config(page_title="AttnViz", page_icon=":material/visibility:", layout="wide")
st.session_state["_global_settings"] = draw_sidebar()
navigation = st.navigation(
    {
        section: [
            st.Page(p.path, title=p.title, url_path=p.url, icon=p.icon, default=(p.url == "home"))
            for p in entries
        ]
        for section, entries in PAGES.items()
    }
)
navigation.run()
