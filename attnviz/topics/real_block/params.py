"""Parameters of "Inside one block of a real model": the prompt (up to MAX_TOKENS tokens), the
block (layer), the query head, the query token, whether the matrices show the query's row or all
of them, and the next token's temperature and top-p (on the last block).

Ranges are the bundled SmolLM2-135M's: 30 blocks, 9 query heads sharing 3 key/value heads."""

from attnviz.topics.params import PageParams, Param

MAX_TOKENS = 12  # a prompt's tokens shown: every matrix stays readable at this size
FACT = "The capital of France is"
LAYERS, HEADS = 30, 9
# settings under which a widget is drawn with its full range: a prompt of MAX_TOKENS tokens (the
# query token's slider ends at the last token), the last block (the next token's controls)
LONG = (("rb_text", "one two three four five six seven eight nine ten eleven twelve"),)
LAST = (("rb_layer", LAYERS - 1),)
LAST_TOKEN = -1  # the query token: the prompt's last, whatever its length

TRY_THIS: list[str] = [
    "On 'The capital of France is', step 2: the first token's rms is the largest of the row, "
    "more than 10 times any other token's: the stream of the first token is huge (the sink's), "
    "and RMSNorm divides it away.",
    "Step 3: set the query head to 3, 4 and 5 in turn: Q changes, K and V stay the same (the "
    "three heads share key/value head 1); head 6 reads key/value head 2, another K and V.",
    "Step 4: RoPE turns each pair of the query by its position × the pair's frequency; the "
    "arrows before and after have the same length (the rotation keeps lengths), and the first "
    "pair, the fastest, turns most.",
    "Step 5: a score depends on how far apart the query and the key are: the query token's "
    "score with itself is the same with and without RoPE (both turn by the same angles), its "
    "score with every earlier key changes.",
    "Step 7, at the defaults (block 23, head 4): '␣is' gives about 0.9 of its weight to "
    "'␣France', while the earlier tokens give most of theirs (0.8 or more) to the first token.",
    "Step 11: hover any column: stream in + attention = middle, and middle + MLP = stream out "
    "(the residual adds, it never replaces).",
    "Press **The last block**: step 12 shows the next token; '␣Paris' is the most likely, with "
    "probability ≈ 0.77 at temperature 1, and a temperature of 0.5 makes it more than 0.95.",
]

# each folded step: its open toggle -> its title (its figures' numbers, as Try this names them)
SECTIONS = {
    "rb_open_norm": "Steps 1–2: the stream in and RMSNorm",
    "rb_open_qkv": "Step 3: Q, K, V and the shared key/value head",
    "rb_open_rope": "Steps 4–5: rotary positions (RoPE)",
    "rb_open_scores": "Steps 6–8: scores, mask, softmax, ·V",
    "rb_open_out": "Steps 9–11: W_O, the MLP and the residual stream",
}

TABLE = PageParams(
    prefix="rb",
    params=(
        Param("rb_text", "prompt", "text_input", FACT),
        Param("rb_layer", "block (layer)", "slider", 23, low=0, high=LAYERS - 1, step=1),
        Param("rb_head", "query head", "slider", 4, low=0, high=HEADS - 1, step=1),
        Param(
            "rb_query",
            "query token",
            "selectbox",
            LAST_TOKEN,
            choices=(LAST_TOKEN, *range(MAX_TOKENS)),
            format_func=lambda p: "the last" if p == LAST_TOKEN else f"position {p}",
            url=False,  # a selectbox's link holds its label
            shown_when=LONG,
        ),
        Param(
            "rb_whole",
            "whole matrices",  # one line in a quarter of a projector's row
            "toggle",
            False,
            help="Off: each step shows the query token's row; on: every token's rows.",
        ),
        Param(
            "rb_temp", "temperature", "slider", 1.0, low=0.1, high=2.0, step=0.1, shown_when=LAST
        ),
        Param("rb_topp", "top-p", "slider", 0.9, low=0.05, high=1.0, step=0.05, shown_when=LAST),
        # the block's steps after the weights, folded (the page's lazy expanders, keyed by
        # these): a move builds and draws the open ones only; in the table so that a link, a
        # preset or a lesson step can open them
        *(Param(key, f"{title} (open)", "toggle", False) for key, title in SECTIONS.items()),
    ),
    presets={
        "A middle block": {"rb_text": FACT, "rb_layer": 23, "rb_head": 4},
        "The first block": {"rb_text": FACT, "rb_layer": 0, "rb_head": 0},
        "The last block": {"rb_text": FACT, "rb_layer": LAYERS - 1, "rb_head": 0},
    },
)
