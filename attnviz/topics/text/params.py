"""Parameters of the Attention on text page (seeds 002, 003): the text, tokenizer, model shape,
positions, score, masks, temperature, the head and query shown, and the padding section's inputs.

Ranges that depend on other settings are narrowed where the widget is drawn (draw(..., high=)):
heads must divide d_model, the head index is below the head count, the query index below the
number of tokens. Here each parameter carries its widest range.
"""

from attnviz.core.positional import ENCODINGS
from attnviz.core.tokenizers import KINDS
from attnviz.topics.params import PageParams, Param
from attnviz.topics.text.attention import MAX_TOKENS, SCORES, valid_heads

DEFAULT_TEXT = "a large airplane flying in the blue sky"
MAX_CHARS = 20_000  # of the text box (the second sentence takes 2,000)
D_MODELS = (8, 16, 24, 32, 48, 64)
HEAD_COUNTS = tuple(sorted({h for d in D_MODELS for h in valid_heads(d)}))
MAX_HEADS = HEAD_COUNTS[-1]
TEMPERATURES = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)  # also the sweep of experiment (d)
# A text whose MAX_TOKENS word tokens show the query slider's whole range.
LONGEST_TEXT = " ".join(["word"] * MAX_TOKENS)

PRONOUN_TEXT = "the trophy did not fit in the suitcase because it was too big"
TRY_THIS: list[str] = [
    "Press **No positions: a bag of words** and open (a): shuffled words give the same "
    "attention, permuted.",
    "Turn off *divide by √d_k* with 1 head and d_model 64: rows become nearly one-hot (the "
    "largest weight of a row averages about 0.9, against about 0.4 with the division).",
    "Press **Repeated pattern**, then choose positional encoding *none*: the map becomes one "
    "3 × 3 block tiled 3 × 3 times, because without positions the copies of a word are "
    "indistinguishable.",
    "Temperature 0.05 vs 10: sharp vs uniform rows (watch the entropy under the bar chart).",
]

# Not parameters: the open state of the lazy sections (the layout's concern, kept in the URL).
HEAD_VIEW_HEADS = "ta_hv_heads"  # which heads the head view draws; every head again whenever
# the head count changes (its default is every head of the default head count)

TABLE = PageParams(
    prefix="ta",
    params=(
        Param("ta_text", "Your text", "text_area", DEFAULT_TEXT),
        Param("ta_tok", "tokenizer", "radio", KINDS[0], choices=KINDS),
        Param(
            "ta_vocab",
            "BPE vocabulary size",
            "slider",
            400,
            low=260,
            high=800,
            step=20,
            help="Used by the BPE tokenizer only (disabled for the others).",
        ),
        Param("ta_d", "d_model", "select_slider", 32, choices=D_MODELS),
        # choices narrowed to valid_heads(d_model) on the page
        Param("ta_heads", "heads (d_k = d_model / heads)", "select_slider", 4, choices=HEAD_COUNTS),
        Param("ta_pos", "positional encoding", "selectbox", ENCODINGS[0], choices=ENCODINGS),
        Param("ta_score", "score a(q, k)", "selectbox", SCORES[0], choices=SCORES),
        Param("ta_scaled", "divide by √d_k", "toggle", True),
        Param("ta_causal", "causal mask", "toggle", False),
        Param("ta_temp", "temperature", "select_slider", 1.0, choices=TEMPERATURES),
        Param(
            HEAD_VIEW_HEADS,
            "heads in the head view",
            "pills",
            (0, 1, 2, 3),  # every head of the default 4
            choices=tuple(range(MAX_HEADS)),
            shown_when=(("ta_heads", MAX_HEADS),),
        ),
        # Drawn only with more than one head (high = heads - 1); with MAX_HEADS its whole range.
        Param(
            "ta_head",
            "head",
            "slider",
            0,
            low=0,
            high=MAX_HEADS - 1,
            step=1,
            shown_when=(("ta_heads", MAX_HEADS),),
        ),
        # Drawn only with more than one token (high = tokens - 1); LONGEST_TEXT shows it whole.
        Param(
            "ta_query",
            "query token",
            "slider",
            0,
            low=0,
            high=MAX_TOKENS - 1,
            step=1,
            shown_when=(("ta_text", LONGEST_TEXT),),
        ),
        Param(
            "ta_second",
            "second sentence (batched with yours; the shorter one is padded with [PAD])",
            "text_input",
            "the cat sat",
        ),
        Param("ta_padmask", "padding mask", "toggle", True),
        # sections built only while open (the page's lazy expanders, keyed by these): in the
        # table so that a link, a preset or a lesson step can open them
        Param("ta_open_shuffle", "Why positional encodings (open)", "toggle", False),
        Param("ta_open_pad", "Padding mask (open)", "toggle", False),
    ),
    presets={
        "Captioning (seed 002)": {},
        "Pronoun puzzle": {
            "ta_text": PRONOUN_TEXT,
            "ta_query": 9,  # "it": which noun does it look at?
        },
        "Repeated pattern": {"ta_text": "one two three one two three one two three"},
        "No positions: a bag of words": {
            "ta_text": "the dog bit the man",
            "ta_pos": "none",
            "ta_query": 1,  # "dog" looks exactly as in "the man bit the dog"
        },
    },
)
