"""Parameters of the Self-attention, step by step page (seed 004): sizes, switches, reveal, and
the page's "Try this" claims (each tested: tests/app/test_self_attention_try_this.py)."""

from attnviz.topics.params import PageParams, Param

STEP_NAMES = ("z", "Q, K, V", "Q Kᵀ", "÷ √e", "mask", "softmax", "· V")
# hand-edited matrices (URL text, not widgets): the input, then each weight and its bias
MATRIX_URL_KEYS = ("sa_z", "sa_wq", "sa_bq", "sa_wk", "sa_bk", "sa_wv", "sa_bv")


def _size(key: str, label: str, default: int) -> Param:
    return Param(key, label, "slider", default, low=1, high=8, step=1)


TABLE = PageParams(
    prefix="sa",
    params=(
        _size("sa_m", "m patches", 4),
        _size("sa_d", "d features", 3),
        _size("sa_e", "e (query/key width)", 3),
        _size("sa_d2", "d₂ (value width)", 3),
        Param("sa_causal", "causal mask", "toggle", False),
        Param("sa_scaled", "divide by √e", "toggle", True),
        Param("sa_bias", "biases B", "toggle", True),
        Param("sa_reveal", "Reveal up to step", "select_slider", "· V", choices=STEP_NAMES),
        Param("sa_row", "one query row only", "toggle", False),
        Param(
            "sa_i",
            "query patch i",
            "slider",
            0,
            low=0,
            high=7,
            step=1,
            shown_when=(("sa_m", 8),),  # its range is 0..m−1: the live row, and row mode's row
        ),
        # the expander "the weights behind Q, K, V", built only while open (its key is the
        # table's, so a link, a preset or a lesson step can open it)
        Param("sa_open_w", "the weights behind Q, K, V (open)", "toggle", False),
    ),
    presets={
        "Lecture: 3 patches": {
            "sa_m": 3,
            "sa_d": 2,
            "sa_e": 2,
            "sa_d2": 2,
            "sa_reveal": "z",
            "sa_row": True,
        },
        "Causal, 5 tokens": {
            "sa_m": 5,
            "sa_d": 4,
            "sa_e": 4,
            "sa_d2": 3,
            "sa_causal": True,
            "sa_reveal": "· V",
        },
        "Large e, no scaling": {"sa_e": 8, "sa_d": 8, "sa_scaled": False, "sa_reveal": "softmax"},
    },
)

TRY_THIS = [
    "Press **Lecture: 3 patches** and click **Next ▶** (or press →) to reveal the layer one step "
    "at a time.",
    "Turn off *divide by √e* with e = 8: the softmax rows get peakier (closer to one-hot).",
    "Turn on the causal mask: the upper triangle becomes −∞ and its weights exactly 0.",
    "Edit z so two patches are identical: their rows of Q, K, V and of the output match.",
]
