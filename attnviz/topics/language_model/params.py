"""Parameters of "Inside a language model": the prompt, how it starts (BOS, chat template), the
layer, head and query shown, how the next token is chosen, and the folded sections.

Layer and head ranges are the bundled SmolLM2-135M's (30 layers × 9 query heads in 3 groups).
"""

from attnviz.topics.language_model.heads import KIND_NAMES, KINDS
from attnviz.topics.params import PageParams, Param

OWN_HELP = (
    "Your own causal language model: a Hugging Face folder inside a folder the server lists in "
    "`ATTNVIZ_MODEL_DIRS`, or a Hub name already in the local cache (nothing is downloaded). "
    "Llama, Mistral, Qwen2, Qwen3, Gemma 2, Gemma 3, Phi-3, SmolLM and GPT-2 folders open "
    "here; the layer and head sliders then range over its own layers and heads."
)


def own_model_param(key: str) -> Param:
    """The own-model box of the two language-model pages (topics/language_model/own.py)."""
    return Param(
        key,
        "model (empty = bundled SmolLM2; or your own folder)",
        "text_input",
        "",
        url=False,  # a folder of this server: kept out of links (a link opens the bundled one)
        help=OWN_HELP,
    )


FACT = "The capital of France is"
NAMES = "When Mary and John went to the store, John gave a drink to"
REPEATED = (
    "piano orbit lemon cactus violet engine marble tiger "
    "piano orbit lemon cactus violet engine marble tiger"
)
CODE = "def fibonacci(n):\n    if n < 2:\n        return n\n    return"
CHAT = "What is the capital of France?"
LAYERS, HEADS = 30, 9
AUTO = -1  # a "why" setting left to the page (attnviz.topics.language_model.why)
POSITIONS = (AUTO, *range(256))  # forward.MAX_TOKENS positions
LONG = (("lm_text", " ".join(["tiger"] * 256)),)  # a prompt under which every position exists

TRY_THIS: list[str] = [
    "Press **A fact**: the model's most likely next token after 'The capital of France is' is "
    "'␣Paris', with probability ≈ 0.77.",
    "Press **Names (IOI)**: after '… John gave a drink to' the next token is '␣Mary' (≈ 0.92): "
    "the name that is not repeated.",
    "Press **A repeated sequence**: layer 18, head 6 is the induction head (the highest induction "
    "score of all 270 heads); in its map each word of the second copy from '␣orbit' on puts "
    "more than 0.85 of its weight on the word after its first copy.",
    "Open **Attention sinks** on 'The capital of France is': the mean weight on the first token "
    "is above one half in 27 of the 30 layers, and in 25 with a BOS token in front: the sink "
    "stays, whichever token comes first.",
    "Press **Names (IOI)**: in the **Logit lens**, '␣Mary' is the top token only after the last "
    "layer; after every earlier layer it is '␣the' or a space.",
    "Press **Names (IOI)**, set layer 23, head 1 and turn on **what flows**: the first token "
    "holds about 0.72 of the head's weight (a sink) but only about 0.28 of what it moves.",
    "Press **A repeated sequence** (layer 18, head 6, the induction head) and turn on **what "
    "flows**: most of what the head moves at the last '␣tiger' comes from '␣piano', the model's "
    "next token, yet '␣piano' is not among the tokens its output pushes up (the bars under the "
    "map): finding the answer is not writing it.",
    "Press **A repeated sequence** and open **Why does this head look there?**: layer 18, head 6 "
    "looks from the last '␣tiger' to '␣piano', and on the key's side layer 16, head 0 (the "
    "model's strongest previous-token head) adds about 90 % of the score: the key at '␣piano' "
    'says "the token before me was ␣tiger", the query asks for it. That is an induction circuit.',
]

TABLE = PageParams(
    prefix="lm",
    params=(
        Param("lm_text", "prompt", "text_area", FACT),
        own_model_param("lm_model"),
        Param(
            "lm_chat",
            "wrap in the chat template (a user turn)",
            "toggle",
            False,
            help="The model is an instruction-tuned chat model: its template marks whose turn it "
            "is with <|im_start|> and <|im_end|>.",
        ),
        Param("lm_bos", "start with the BOS token", "toggle", False),
        Param("lm_layer", "layer", "slider", 18, low=0, high=LAYERS - 1, step=1),
        Param("lm_head", "head", "slider", 6, low=0, high=HEADS - 1, step=1),
        Param(
            "lm_flow",
            "what flows, not the weight",
            "toggle",
            False,
            help="The head map shows each source's share of what the head moves, "
            "‖α_ij W_O v_j‖ over its row (Kobayashi et al., 2020): a large weight on a token "
            "whose vector is small moves little. Under it: the tokens whose next-token logits "
            "the head's output at the last token pushes up and down most (through the final "
            "norm and the unembedding).",
        ),
        Param("lm_sample", "sample instead of greedy", "toggle", False),
        Param("lm_temp", "temperature", "slider", 0.8, low=0.1, high=2.0, step=0.1),
        Param("lm_topk", "top-k (0 = all)", "slider", 50, low=0, high=200, step=1),
        Param("lm_topp", "top-p", "slider", 0.95, low=0.05, high=1.0, step=0.05),
        Param("lm_seed", "sampling seed", "number_input", 0, low=0, high=2**31 - 1, step=1),
        Param("lm_new", "new tokens", "slider", 12, low=1, high=20, step=1),
        Param("lm_gen_step", "step", "slider", 1, low=1, high=20, step=1),
        Param("lm_kind", "score", "radio", "induction", choices=KINDS, format_func=KIND_NAMES.get),
        Param("lm_open_gen", "Generation, token by token (open)", "toggle", False),
        Param("lm_open_lens", "Logit lens (open)", "toggle", False),
        Param("lm_open_heads", "Every head labelled (open)", "toggle", False),
        Param("lm_open_sinks", "Attention sinks (open)", "toggle", False),
        Param("lm_open_why", "Why does this head look there? (open)", "toggle", False),
        # the cell taken apart: positions, or AUTO (-1): the last query, the key the head
        # weights most after the first token, no second key (topics/language_model/why.py);
        # not in links: a selectbox's link holds its label, here the prompt's token
        *(
            Param(key, label, "selectbox", AUTO, choices=POSITIONS, url=False, shown_when=LONG)
            for key, label in (
                ("lm_why_query", "query token"),
                ("lm_why_key", "key token"),
                ("lm_why_versus", "compared with the key"),
            )
        ),
    ),
    presets={
        "A fact": {"lm_text": FACT, "lm_chat": False, "lm_layer": 18, "lm_head": 6},
        "Names (IOI)": {"lm_text": NAMES, "lm_chat": False, "lm_open_lens": True},
        "A repeated sequence": {
            "lm_text": REPEATED,
            "lm_chat": False,
            "lm_layer": 18,
            "lm_head": 6,
            "lm_open_heads": True,
        },
        "Code": {"lm_text": CODE, "lm_chat": False, "lm_open_gen": True},
        "A chat turn": {"lm_text": CHAT, "lm_chat": True, "lm_open_gen": True},
    },
)
