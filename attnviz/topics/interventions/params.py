"""Parameters of "Finding the heads that answer": the prompt pair and its two answers, the cell
and head picked on the maps, the heads knocked out, and the folded sections.

Layer and head ranges are the bundled SmolLM2-135M's (30 layers × 9 heads); the scene cuts them
to a smaller model's.
"""

from attnviz.topics.language_model.params import own_model_param
from attnviz.topics.params import PageParams, Param

NAMES = "When Mary and John went to the store, John gave a drink to"
NAMES_SWAPPED = "When Mary and John went to the store, Mary gave a drink to"
CAPITAL = "The capital of France is"
CAPITAL_OTHER = "The capital of Italy is"
REPEATED = "piano orbit lemon cactus violet engine marble tiger piano orbit lemon cactus violet"
REPEATED_OTHER = (
    "piano orbit lemon cactus violet rabbit marble tiger piano orbit lemon cactus violet"
)
# the longest pair the page takes (40 tokens each): a link may pick its last position
LONGEST = (
    "When Mary and John went to the store after a long day at work in the old town by the quiet "
    "green river, they talked about the weather and the news, and then John gave a drink to"
)
LONGEST_SWAPPED = LONGEST.replace("then John", "then Mary")
NAME_MOVERS = "L23 H3, L29 H1, L23 H0"  # the three heads with the largest parts on the names pair
LAYERS, HEADS, POSITIONS = 30, 9, 40

TRY_THIS: list[str] = [
    "Press **Names (IOI)**: the logit difference ' Mary' − ' John' is about +6.1 on the clean "
    "prompt and about −5.5 on the corrupted one, where the second 'John' became 'Mary'.",
    "Press **Names (IOI)**: in the residual stream's map, patching the changed position (the "
    "second name) brings back over 90 % of the logit difference in every layer up to 20; from "
    "layer 24 on the last position does: the answer has moved there.",
    "Open **Direct logit attribution** on the names pair: the parts add up to the logit "
    "difference (error under 0.001), and layer 23, head 3 has the largest part of any head.",
    "Open **Knock heads out** on the names pair with the three heads of the largest parts "
    "knocked out (zero): ' Mary' still comes first, with a smaller logit difference: other heads "
    "take over.",
    "Open **The circuit on the prompt** on the names pair: from the last token, layer 23, head 3 "
    "(the largest part) looks at the second ' John', the name to avoid; heads 0 and 1 of the "
    "same layer look at ' Mary'; layer 24, head 4 also looks at ' Mary' but its part is "
    "negative: it works against the answer.",
]

TABLE = PageParams(
    prefix="ip",
    params=(
        Param("ip_clean", "clean prompt", "text_input", NAMES),
        own_model_param("ip_model"),
        Param("ip_corrupt", "corrupted prompt", "text_input", NAMES_SWAPPED),
        Param(
            "ip_right",
            "right answer (blank: the clean prompt's top token)",
            "text_input",
            "",
            help="A token; a leading space is part of it, as in ' Mary' (a longer text is read by "
            "its first token).",
        ),
        Param(
            "ip_wrong",
            "wrong answer (blank: the corrupted prompt's top token)",
            "text_input",
            "",
            help="A token; a leading space is part of it, as in ' John' (a longer text is read "
            "by its first token).",
        ),
        Param("ip_layer", "layer", "slider", 24, low=0, high=LAYERS - 1, step=1),
        Param(
            "ip_pos",
            "position",
            "slider",
            13,
            low=0,
            high=POSITIONS - 1,
            step=1,
            shown_when=(("ip_clean", LONGEST), ("ip_corrupt", LONGEST_SWAPPED)),
        ),
        Param("ip_hlayer", "layer", "slider", 23, low=0, high=LAYERS - 1, step=1),
        Param("ip_head", "head", "slider", 3, low=0, high=HEADS - 1, step=1),
        Param(
            "ip_exact",
            "patch every head exactly (one run per head: a few seconds)",
            "toggle",
            False,
        ),
        Param(
            "ip_ablate",
            "heads to knock out",
            "text_input",
            "",
            help="Layer and head, comma-separated: L23 H3, L29 H1. A click on a head map adds it.",
        ),
        Param("ip_how", "knock out by", "radio", "zero", choices=("zero", "mean")),
        Param("ip_open_heads", "Patching each head (open)", "toggle", False),
        Param("ip_open_dla", "Direct logit attribution (open)", "toggle", False),
        Param("ip_open_ablate", "Knock heads out (open)", "toggle", False),
        Param("ip_open_circuit", "The circuit on the prompt (open)", "toggle", False),
    ),
    presets={
        "Names (IOI)": {
            "ip_clean": NAMES,
            "ip_corrupt": NAMES_SWAPPED,
            "ip_right": "",
            "ip_wrong": "",
            "ip_layer": 24,
            "ip_pos": 13,
            "ip_hlayer": 23,
            "ip_head": 3,
            "ip_ablate": NAME_MOVERS,
        },
        "A capital": {
            "ip_clean": CAPITAL,
            "ip_corrupt": CAPITAL_OTHER,
            "ip_right": "",
            "ip_wrong": "",
            "ip_layer": 20,
            "ip_pos": 4,
            "ip_ablate": "",
        },
        "A repeated sequence": {
            "ip_clean": REPEATED,
            "ip_corrupt": REPEATED_OTHER,
            "ip_right": " engine",
            "ip_wrong": " rabbit",
            "ip_layer": 20,
            "ip_pos": 13,
            "ip_ablate": "",
        },
    },
)
