"""AttnViz entry point: page settings, the shared sidebar, and navigation over pages/.

The PAGES table below is the one list of pages; tests enumerate it.
"""

import streamlit as st

from attnviz.ui.sidebar import draw_sidebar

# section -> [(file, title, url path, icon, one-line "what it teaches")]
PAGES = {
    "Start": [
        ("pages/home.py", "Home", "home", ":material/home:", "What each page teaches."),
    ],
    "Foundations": [
        (
            "pages/soft_select.py",
            "Soft select",
            "soft-select",
            ":material/join:",
            "A query picks from a table of keys and values: hard select vs softmax weights.",
        ),
        (
            "pages/self_attention_steps.py",
            "Self-attention, step by step",
            "self-attention",
            ":material/stairs:",
            "Every matrix of Q = zW_q + B_q … softmax(QKᵀ/√e)V with its numbers and shape.",
        ),
    ],
    "Learning attention": [
        (
            "pages/kernel_smoother.py",
            "Attention as a kernel smoother",
            "kernel-smoother",
            ":material/scatter_plot:",
            "f(x) = Σ α(x, x_s) g(x_s) / n(x): learn a dot-product or Mahalanobis kernel live.",
        ),
    ],
    "Transformers": [
        (
            "pages/attention_on_text.py",
            "Attention on text",
            "text",
            ":material/text_fields:",
            "Your sentence: tokens, positions, heads, masks; why positions and why ÷√d_k.",
        ),
        (
            "pages/train_transformer.py",
            "Train a transformer live",
            "train-transformer",
            ":material/model_training:",
            "A tiny transformer learns reverse, sort, copy, … in seconds; watch its attention form.",
        ),
    ],
    "Real models": [
        (
            "pages/pretrained_explorer.py",
            "Pretrained model explorer",
            "pretrained",
            ":material/psychology:",
            "Every layer and head of a real model (MiniLM), queries and keys, rollout, head types.",
        ),
    ],
}

st.set_page_config(page_title="AttnViz", page_icon=":material/visibility:", layout="wide")
st.session_state["_global_settings"] = draw_sidebar()
st.session_state["page_table"] = PAGES
navigation = st.navigation(
    {
        section: [
            st.Page(path, title=title, url_path=url, icon=icon, default=(url == "home"))
            for path, title, url, icon, _ in entries
        ]
        for section, entries in PAGES.items()
    }
)
navigation.run()
