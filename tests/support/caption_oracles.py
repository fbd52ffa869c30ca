"""The caption scores worked out in the test, never by the engine's metric code: greedy captions
written word by word from the captioner's teacher-forced forward alone, then exact match
(captions equal word for word, ended where the target ends), token accuracy (target positions,
EOS included, holding the right word) and corpus BLEU (Papineni et al. 2002: clipped n-gram
precisions p_1…p_4 summed over the corpus, their geometric mean, times the brevity penalty
exp(1 − r/c) when the c candidate words are fewer than the r reference words)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Scores:
    exact: float
    tokens: float
    bleu: float
    n: int  # captions scored


def greedy_by_hand(model, images: torch.Tensor, max_len: int) -> list[list[int]]:
    """Each image's caption ids, EOS included when written: at every step the likeliest next
    word of model(images, prefix)'s last position, PAD and BOS never written."""
    c = model.eval().config
    prefix = torch.full((len(images), 1), c.bos_id)
    rows: list[list[int]] = [[] for _ in images]
    with torch.no_grad():
        for _ in range(max_len):
            logits = model(images, prefix)[:, -1].clone()  # (B, V)
            logits[:, [c.pad_id, c.bos_id]] = -math.inf
            word = logits.argmax(-1)
            prefix = torch.cat([prefix, word[:, None]], 1)
            for row, w in zip(rows, word.tolist(), strict=True):
                if not row or row[-1] != c.eos_id:
                    row.append(w)
            if all(row[-1] == c.eos_id for row in rows):
                break
    return rows


def target_ids(y_row: torch.Tensor, bos: int, eos: int) -> list[int]:
    """A row BOS + caption + EOS + PAD…: the caption's ids and its EOS."""
    ids = y_row.tolist()
    assert ids[0] == bos
    return ids[1 : ids.index(eos) + 1]


def ngram_counts(words: list[int], n: int) -> Counter:
    return Counter(zip(*(words[i:] for i in range(n)), strict=False))


def bleu(candidates: list[list[int]], references: list[list[int]], max_n: int = 4) -> float:
    """Corpus BLEU with one reference per candidate (0 when some p_n is 0)."""
    log_p = 0.0
    for n in range(1, max_n + 1):
        clipped = total = 0
        for cand, ref in zip(candidates, references, strict=True):
            mine, theirs = ngram_counts(cand, n), ngram_counts(ref, n)
            clipped += sum(min(count, theirs[g]) for g, count in mine.items())
            total += sum(mine.values())
        if clipped == 0:
            return 0.0
        log_p += math.log(clipped / total) / max_n
    c, r = sum(map(len, candidates)), sum(map(len, references))
    penalty = 1.0 if c > r else math.exp(1 - r / c)
    return penalty * math.exp(log_p)


def scores_by_hand(model, images: torch.Tensor, y: torch.Tensor) -> Scores:
    """Exact match, token accuracy and BLEU of the greedy captions of `images` against the
    captions of `y` (rows BOS + caption + EOS + PAD; y.shape[1] − 1 words decoded at most)."""
    c = model.config
    written = greedy_by_hand(model, images, y.shape[1] - 1)
    wanted = [target_ids(row, c.bos_id, c.eos_id) for row in y]
    exact = sum(w == t for w, t in zip(written, wanted, strict=True))
    right = sum(
        i < len(w) and w[i] == word
        for w, t in zip(written, wanted, strict=True)
        for i, word in enumerate(t)
    )
    words = [[i for i in w if i != c.eos_id] for w in written]  # EOS is not a word
    refs = [t[:-1] for t in wanted]
    n_targets = sum(map(len, wanted))
    return Scores(exact / len(wanted), right / n_targets, bleu(words, refs), len(wanted))


def seen_and_held(task) -> tuple[list[int], list[int]]:
    """Validation indices whose scene holds no held-out (colour, kind) pair, and those that do,
    from the scenes' own shapes."""
    pairs = set(task.spec.held_out)
    held = [any((s.colour, s.kind) in pairs for s in scene) for scene in task.val_scenes]
    return [i for i, h in enumerate(held) if not h], [i for i, h in enumerate(held) if h]
