"""One module per page: the Streamlit parts only that page draws (its folded sections, live
views, tools), named as the page's topic in attnviz/topics/."""
