"""Parameters of the Pretrained model explorer: the model, the sentence, layer/head/query, views.

Layer, head and query ranges here are those of the default scene (the bundled MiniLM, 6 layers ×
12 heads, and the default sentence's 16 tokens); the page narrows or widens them to the model and
sentence actually shown (draw(..., high=...)). Every setting below the sentence is drawn only once
the model box's model has been read, so each is `shown_when` the box is empty (the bundled MiniLM).
The generation settings (pe_gen_*) are drawn only for a causal language model typed in the model
box (never the bundled MiniLM), so no link can reach them (url=False).
"""

from attnviz.topics.params import PageParams, Param

DEFAULT_TEXT = "The animal didn't cross the street because it was too tired."
SECOND_TEXT = "The animal didn't cross the street because it was too wide."
REPETITION = "one two three one two three one two three"
LONG_TEXT = " ".join(["the lecture hall was full of students"] * 70)  # ~490 tokens

TRY_THIS: list[str] = [
    "Press **Pronoun coreference**: in layer 3, head 1, 'it' puts ≈ 0.68 of its weight on "
    "'animal' and ≈ 0.05 on 'street'.",
    "Press **Previous-token heads**: every line of layer 0, head 2 goes one token back; the table "
    "labels it *previous token*. Find the other one in layer 1.",
    "Many heads look nearly empty because they park their attention on [CLS] (on the default "
    "sentence about 30 of the 72 put more than half of every row there): turn on *hide "
    "[CLS]/[SEP]* and their rows spread over the words.",
    "Open **Compare with a second sentence** ('too tired' against 'too wide') and go to layer 3, "
    "head 1: of all 72 heads, 'it' changes where it looks most there.",
    "Press **Rollout on a long sentence**: ~500 tokens still draw; the model view and the maps "
    "max-pool them into blocks (each cell its block's largest weight), and rollout shows what "
    "each token draws on after all six layers.",
]

BUNDLED = (("pe_model", ""),)  # drawn once the model is read; the ranges are the bundled MiniLM's

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
        Param("pe_layer", "layer", "slider", 0, low=0, high=5, step=1, shown_when=BUNDLED),
        Param("pe_head", "head", "slider", 0, low=0, high=11, step=1, shown_when=BUNDLED),
        Param("pe_hide", "hide [CLS]/[SEP] and renormalise", "toggle", False, shown_when=BUNDLED),
        Param("pe_allheads", "all heads", "toggle", False, shown_when=BUNDLED),
        Param(
            "pe_flow",
            "what flows, not the weight",
            "toggle",
            False,
            help=(
                "The head map by what each token gives the head's output: the weight times "
                "the length of the vector moved, ‖α_ij W_O v_j‖, over its row (Kobayashi et "
                "al., 2020). A token that takes weight but carries a short vector moves little."
            ),
            shown_when=BUNDLED,
        ),
        Param(
            "pe_query",
            "query token",
            "slider",
            0,
            low=0,
            high=15,
            step=1,
            help="Or click a token on the left of the head view.",
            shown_when=(*BUNDLED, ("pe_text", DEFAULT_TEXT)),  # 0..15: the default's 16 tokens
        ),
        Param(
            "pe_proj",
            "projection",
            "radio",
            "pca",
            choices=("pca", "tsne"),
            help="t-SNE is slower; it runs only when chosen.",
            shown_when=BUNDLED,
        ),
        Param("pe_other", "second sentence", "text_input", SECOND_TEXT, shown_when=BUNDLED),
        # sections built only while open (the page's lazy expanders, keyed by these): in the
        # table so that a link, a preset or a lesson step can open them
        Param(
            "pe_open_layers", "Across layers and heads (open)", "toggle", False, shown_when=BUNDLED
        ),
        Param(
            "pe_open_proj", "Queries and keys together (open)", "toggle", False, shown_when=BUNDLED
        ),
        Param(
            "pe_open_compare",
            "Compare with a second sentence (open)",
            "toggle",
            False,
            shown_when=BUNDLED,
        ),
        Param(
            "pe_gen_n",
            "new tokens",
            "slider",
            8,
            low=1,
            high=32,
            step=1,
            url=False,
            help="Greedy generation with the key/value cache, one token per step.",
        ),
        Param(
            "pe_gen_step",
            "step",
            "slider",
            1,
            low=1,
            high=32,
            step=1,
            url=False,
            shown_when=(("pe_gen_n", 32),),
        ),
        Param("pe_gen_mean", "average over heads", "toggle", True, url=False),
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
            "pe_open_layers": True,  # the head table
        },
        "Rollout on a long sentence": {
            "pe_text": LONG_TEXT,
            "pe_layer": 5,
            "pe_hide": True,
            "pe_query": 7,
            "pe_open_layers": True,  # the rollout
        },
    },
)
