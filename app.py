"""AttnViz entry point: page settings, the shared sidebar, and navigation over the page table
(attnviz.ui.navigation.PAGES, the one list of pages)."""

import streamlit as st

from attnviz.ui.navigation import PAGES
from attnviz.ui.sidebar import FAVICON, adopt_aliases, draw_sidebar, lecture_requested

adopt_aliases()
st.set_page_config(
    page_title="AttnViz",
    page_icon=str(FAVICON),  # a bundled PNG: a material icon would be fetched from a font CDN
    layout="wide",
    initial_sidebar_state="collapsed" if lecture_requested() else "auto",
)
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
