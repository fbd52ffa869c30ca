"""Parameters of the Soft select page (seeds 001, 004): the query, the score function, T, and
the page's "Try this" claims (each tested: tests/app/test_soft_select_try_this.py)."""

from attnviz.core.attention import SCORE_NAMES
from attnviz.topics.params import PageParams, Param

TEMPERATURES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)

TABLE = PageParams(
    prefix="ss",
    params=(
        Param("ss_q1", "query q, dimension 1", "slider", 0.5, low=-2.0, high=2.0, step=0.1),
        Param("ss_q2", "query q, dimension 2", "slider", 0.5, low=-2.0, high=2.0, step=0.1),
        Param("ss_score", "score function a(q, k)", "selectbox", "dot", choices=SCORE_NAMES),
        Param(
            "ss_temp",
            "temperature T",
            "select_slider",
            1.0,
            choices=TEMPERATURES,
            help="Divides every score before the softmax. Small T sharpens, large T flattens.",
        ),
    ),
    presets={
        "Nearly hard select": {"ss_temp": 0.05, "ss_score": "dot", "ss_q1": 0.9, "ss_q2": -0.8},
        "Plain mean": {"ss_temp": 100.0, "ss_score": "dot"},
        "Distance kernel": {"ss_score": "neg_sq_dist", "ss_temp": 0.2, "ss_q1": 0.0, "ss_q2": 0.0},
        "Cosine ignores length": {"ss_score": "cosine", "ss_temp": 0.1, "ss_q1": 2.0, "ss_q2": 0.0},
    },
)

TRY_THIS = [
    "Press **Nearly hard select**: one weight is ≈ 1, the soft result equals the database select.",
    "Press **Plain mean**: every weight is ≈ 1/m and the result is the mean of the values.",
    "Choose *cosine*, set the query to (0.5, 0.5), then to (2, 2): q keeps its direction, so the "
    "weights do not change. Do the same with *dot*: the weights sharpen as q grows.",
    "Edit the table: give two rows the same key: they get exactly the same weight (attention "
    "cannot tell them apart).",
]
