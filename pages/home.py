"""Home: what AttnViz is and what each page teaches, with links; the box that joins a live
classroom room by its code."""

import streamlit as st

from attnviz.topics.registry import HOME, sections
from attnviz.ui.lecture.student import join_box

st.title("AttnViz: see, poke and train attention")
st.markdown(
    "Every page shows one idea from the lecture notes with numbers you can change. "
    "Settings live in the URL: copy the address bar to share exactly what you see. "
    "Lecture mode in the sidebar enlarges everything for a projector (1280×720 or 1920×1080) "
    "and folds the sidebar away; High contrast darkens text, borders and colour scales."
)
join_box()  # a live classroom's room code, typed by a student
for section, entries in sections().items():
    entries = [page for page in entries if page is not HOME]
    if not entries:
        continue
    st.subheader("Lessons for a lecture" if section == "Start" else section)
    for page in entries:
        st.page_link(page.script, label=page.title, icon=page.icon)
        st.caption(page.blurb)
