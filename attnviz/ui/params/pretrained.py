"""Parameters of the Pretrained model explorer: the model, the sentence, layer/head/query, views.

Layer, head and query ranges here are those of the default scene (the bundled MiniLM, 6 layers ×
12 heads, and the default sentence's 16 tokens); the page narrows or widens them to the model and
sentence actually shown (draw(..., high=...)).
"""

from attnviz.ui.params.table import PageParams, Param

DEFAULT_TEXT = "The animal didn't cross the street because it was too tired."
SECOND_TEXT = "The animal didn't cross the street because it was too wide."
REPETITION = "one two three one two three one two three"
LONG_TEXT = " ".join(["the lecture hall was full of students"] * 70)  # ~490 tokens

TABLE = PageParams(
    prefix="pe",
    params=(
        Param(
            "pe_model",
            "model (empty = bundled MiniLM; or a local folder / Hub name)",
            "text_input",
            "",
        ),
        Param("pe_text", "sentence", "text_area", DEFAULT_TEXT),
        Param("pe_layer", "layer", "slider", 0, low=0, high=5, step=1),
        Param("pe_head", "head", "slider", 0, low=0, high=11, step=1),
        Param("pe_hide", "hide [CLS]/[SEP] and renormalise", "toggle", False),
        Param("pe_allheads", "all heads", "toggle", False),
        Param(
            "pe_query",
            "query token",
            "slider",
            0,
            low=0,
            high=15,
            step=1,
            help="Or click a token on the left of the head view.",
        ),
        Param(
            "pe_proj",
            "projection",
            "radio",
            "pca",
            choices=("pca", "tsne"),
            help="t-SNE is slower; it runs only when chosen.",
        ),
        Param("pe_other", "second sentence", "text_input", SECOND_TEXT),
    ),
    presets={
        # layer 3, head 1 sends 'it' (token 10) to 'animal' with weight ≈ 0.68, to 'street' ≈ 0.05
        "Pronoun coreference": {
            "pe_text": DEFAULT_TEXT,
            "pe_layer": 3,
            "pe_head": 1,
            "pe_query": 10,
        },
        # layer 0, head 2 puts ≈ 1.0 on the token before; the table labels it "previous token"
        "Previous-token heads": {
            "pe_text": REPETITION,
            "pe_layer": 0,
            "pe_head": 2,
            "pe_query": 4,
        },
        "Rollout on a long sentence": {
            "pe_text": LONG_TEXT,
            "pe_layer": 5,
            "pe_hide": True,
            "pe_query": 7,
        },
    },
)
