"""The one list of pages, by section: app.py builds the navigation from it, the home page links
it, tests and benchmarks enumerate it. Plain data (no streamlit import), so anything may read it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageEntry:
    path: str  # the page script, relative to the repository root
    title: str
    url: str  # url_path: the page's address is /<url>
    icon: str
    blurb: str  # one line: what it teaches


PAGES: dict[str, list[PageEntry]] = {
    "Start": [
        PageEntry("pages/home.py", "Home", "home", ":material/home:", "What each page teaches."),
        PageEntry(
            "pages/guided_lessons.py",
            "Lessons",
            "lessons",
            ":material/slideshow:",
            "Guided stories across the pages for a lecture: predict, then reveal.",
        ),
    ],
    "Foundations": [
        PageEntry(
            "pages/soft_select.py",
            "Soft select",
            "soft-select",
            ":material/join:",
            "A query picks from a table of keys and values: hard select vs softmax weights.",
        ),
        PageEntry(
            "pages/self_attention_steps.py",
            "Self-attention, step by step",
            "self-attention",
            ":material/stairs:",
            "Every matrix of Q = zW_q + B_q … softmax(QKᵀ/√e)V with its numbers and shape.",
        ),
    ],
    "Learning attention": [
        PageEntry(
            "pages/kernel_smoother.py",
            "Attention as a kernel smoother",
            "kernel-smoother",
            ":material/scatter_plot:",
            "f(x) = Σ α(x, x_s) g(x_s) / n(x): learn a dot-product or Mahalanobis kernel live.",
        ),
    ],
    "Recurrence": [
        PageEntry(
            "pages/recurrent_networks.py",
            "Recurrent networks and attention",
            "recurrent",
            ":material/repeat:",
            "An RNN translates dates with and without attention: the alignment forms as it learns.",
        ),
    ],
    "Transformers": [
        PageEntry(
            "pages/attention_on_text.py",
            "Attention on text",
            "text",
            ":material/text_fields:",
            "Your sentence: tokens, positions, heads, masks; why positions and why ÷√d_k.",
        ),
        PageEntry(
            "pages/train_transformer.py",
            "Train a transformer live",
            "train-transformer",
            ":material/model_training:",
            "A tiny transformer learns reverse, sort, copy, … in seconds; watch its attention form.",
        ),
        PageEntry(
            "pages/circuits.py",
            "Watching circuits form",
            "watch-circuits",
            ":material/hub:",
            "Induction heads, grokking and attention sinks form as you watch a tiny model train.",
        ),
        PageEntry(
            "pages/attention_at_scale.py",
            "Attention at scale",
            "attention-at-scale",
            ":material/speed:",
            "Why attention costs T²: windows, linear attention, FlashAttention, the KV cache.",
        ),
    ],
    "Vision": [
        PageEntry(
            "pages/vision.py",
            "Vision: attention over patches",
            "vision-patches",
            ":material/grid_view:",
            "A tiny ViT beside a CNN on digits and shapes: where each head looks, live.",
        ),
        PageEntry(
            "pages/image_captioning.py",
            "Captioning: words that look at the image",
            "captioning",
            ":material/image_search:",
            "A captioner writes what it sees; each word's attention is drawn on the image, live.",
        ),
    ],
    "Real models": [
        PageEntry(
            "pages/pretrained_explorer.py",
            "Pretrained model explorer",
            "pretrained",
            ":material/psychology:",
            "Every layer and head of a real model (MiniLM), queries and keys, rollout, head types.",
        ),
    ],
}


def all_pages() -> list[PageEntry]:
    """Every page in navigation order."""
    return [entry for entries in PAGES.values() for entry in entries]
