"""AttnViz entry point: page settings, navigation over the page table (attnviz.topics.registry,
the one table of pages), a lesson's step (presenter mode: attnviz.ui.lecture.presenter), the shared
sidebar, then the page; after the first page, the server warms up in the background."""

# first, in every session's thread: wait until the server's heavy imports are done, so that no
# session imports pandas or torch while another thread does (a half-made module: see preload.py)
from attnviz.ui import preload  # isort: skip

preload.wait()
# pandas next: Plotly reads sys.modules["pandas"] without importing it (get_module(
# should_load=False)); under `streamlit run` (no preload) a figure built while another thread is
# still importing pandas met a half-made module ("partially initialized module 'pandas'")
import pandas  # noqa: F401  isort: skip
import streamlit as st

from attnviz.topics.registry import HOME, page, sections
from attnviz.ui.common import here
from attnviz.ui.common.accessible import accessible_chrome
from attnviz.ui.common.boundary import error_boundary
from attnviz.ui.common.navigation import mend_navigation
from attnviz.ui.common.settings import remember
from attnviz.ui.common.sidebar import FAVICON, adopt_aliases, draw_sidebar, lecture_requested
from attnviz.ui.common.view_export import offer as offer_view_export
from attnviz.ui.lecture.joined import in_a_room
from attnviz.ui.lecture.step_export import this_view_as_a_step
from attnviz.ui.offline import forbid_address_lookups
from attnviz.ui.warm_up import warm_up_server

forbid_address_lookups()  # no outside request, even for a cross-origin websocket
adopt_aliases()
st.set_page_config(
    page_title="AttnViz",
    page_icon=str(FAVICON),  # a bundled PNG: a material icon would be fetched from a font CDN
    layout="wide",
    initial_sidebar_state="collapsed" if lecture_requested() else "auto",
)
navigation = st.navigation(
    {
        section: [
            st.Page(p.script, title=p.title, url_path=p.url, icon=p.icon, default=p is HOME)
            for p in entries
        ]
        for section, entries in sections().items()
    },
    expanded=True,  # every page listed: past 10, Streamlit hides the rest behind "View more"
)
current = here.enter(page(navigation.url_path or HOME.url))  # the Page this run draws
presenting = "lesson" in st.query_params  # presenter mode: a lesson's step
if presenting or "_lesson_goto" in st.session_state or "_lesson_moved_to" in st.session_state:
    from attnviz.ui.lecture.position import settle
    from attnviz.ui.lecture.presenter import (
        REQUESTED,
        ask,
        enter_step,
        follow_request,
        presenter_bar,
    )
    from attnviz.ui.lecture.stage import mark_drawn

    if REQUESTED in st.session_state:
        follow_request(current)  # Present / Previous / Next was pressed: go to that step's page
    settle(current)  # a rerun sent before the browser saw the last move goes where it went
    enter_step(current)  # the step's settings, before any widget is drawn
elif in_a_room():  # a student in a live classroom room (the URL's or this session's)
    from attnviz.ui.lecture.student import follow_room

    follow_room(current)
accessible_chrome()  # app.css and the navigation's roles (WCAG 2.1 AA), every page
mend_navigation()  # Back leaves a page in one press; a phone's sidebar folds after a pick
remember(draw_sidebar())
question = presenter_bar(current) if presenting else None
this_view_as_a_step(current)
try:
    with error_boundary(current):
        navigation.run()
        offer_view_export(current)  # "Download this view as HTML" and "Copy as Python"
    if presenting:
        ask(question, current)  # after the page: its answer comes from what the page just drew
finally:  # however the page ended (st.stop too): what the stage shows is drawn now
    if presenting:
        mark_drawn()  # the views are drawn for the room the stage measured: it may settle
warm_up_server()  # once per server, after the first page is drawn: the pretrained model loads
