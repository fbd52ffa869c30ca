"""Home: three ways in (learn alone, teach a room, from Python), the box that joins a live
classroom room by its code, then what each page teaches, with links."""

import streamlit as st

from attnviz.topics.registry import HOME, sections
from attnviz.ui.common.home import ways_in
from attnviz.ui.lecture.student import join_box

st.title("AttnViz: see, poke and train attention")
st.markdown(
    "Each page shows one idea from the lecture notes with numbers you can change; the address "
    "bar holds the settings, so a copied link shows exactly what you see."
)
ways_in()  # learn, teach, from Python
with st.container(width=520):  # smaller: for a student with a code on the projector
    join_box()  # a live classroom's room code, typed by a student
for section, entries in sections().items():
    entries = [page for page in entries if page is not HOME]
    if not entries:
        continue
    st.subheader("Lessons for a lecture" if section == "Start" else section)
    for page in entries:
        st.page_link(page.script, label=page.title, icon=page.icon)
        st.caption(page.blurb)
