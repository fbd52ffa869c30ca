"""A training run's history (losses and metrics by step) and its CSV form. No torch, so figures
can read it."""

from __future__ import annotations

from dataclasses import dataclass, field

from attnviz.training.messages import Evaluation


@dataclass
class History:
    step: list[int] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)  # the batch loss of every step
    eval_step: list[int] = field(default_factory=list)
    val_loss: list[float] = field(default_factory=list)
    train_metric: list[float] = field(default_factory=list)
    val_metric: list[float] = field(default_factory=list)
    extra: list[dict[str, float]] = field(default_factory=list)  # each evaluation's `extra`

    def add_step(self, step: int, train_loss: float) -> None:
        self.step.append(step)
        self.train_loss.append(train_loss)

    def add_evaluation(self, ev: Evaluation) -> None:
        self.eval_step.append(ev.step)
        self.val_loss.append(ev.val_loss)
        self.train_metric.append(ev.train_metric)
        self.val_metric.append(ev.val_metric)
        self.extra.append(dict(ev.extra))

    def latest_extra(self, name: str) -> float | None:
        """The latest evaluation's extra number `name`, or None if it has none."""
        return self.extra[-1].get(name) if self.extra else None

    def extend(self, more: History) -> None:
        for name in self.__dataclass_fields__:
            getattr(self, name).extend(getattr(more, name))

    def to_csv(self) -> str:
        """One row per step (and step 0): training batch loss, and the evaluations where made
        (with a column for each extra number any evaluation has, after the four usual ones)."""
        names = sorted({k for ex in self.extra for k in ex})
        evals = {
            s: (v, tm, vm, *(ex.get(k) for k in names))
            for s, v, tm, vm, ex in zip(
                self.eval_step,
                self.val_loss,
                self.train_metric,
                self.val_metric,
                self.extra,
                strict=True,
            )
        }
        train = dict(zip(self.step, self.train_loss, strict=True))
        lines = [",".join(["step", "train_loss", "val_loss", "train_metric", "val_metric", *names])]
        blank = (None,) * (3 + len(names))
        for s in sorted(set(train) | set(evals)):
            cells = [train.get(s), *evals.get(s, blank)]
            lines.append(",".join([str(s)] + ["" if c is None else f"{c:.6g}" for c in cells]))
        return "\n".join(lines) + "\n"
