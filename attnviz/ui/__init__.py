"""The only Streamlit code besides app.py and pages/, by concern:

- here: serving the app (serve: `streamlit run app.py` with its options; preload, warm_up, offline);
- common/: the furniture every page shares (sidebar, widgets from a page's table, layout, figures,
  downloads, the scene cache, the head view component, the error boundary);
- training/: the live-training panel, its form and the "what changed" note of the training pages;
- parts/: one module per page for the Streamlit parts only that page draws, named as the page
  (attnviz/topics/<same name>/ holds the page's engine and scene);
- lecture/: presenter mode (a lesson played over the pages) and the live classroom's screens;
- static/: the style sheets and scripts the modules above mount.

The Streamlit-free engines these draw on live beside the other engines: the page table in
attnviz.topics.registry, lessons in attnviz.lessons, the classroom's store in attnviz.classroom."""
