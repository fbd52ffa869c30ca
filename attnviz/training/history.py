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

    def add_step(self, step: int, train_loss: float) -> None:
        self.step.append(step)
        self.train_loss.append(train_loss)

    def add_evaluation(self, ev: Evaluation) -> None:
        self.eval_step.append(ev.step)
        self.val_loss.append(ev.val_loss)
        self.train_metric.append(ev.train_metric)
        self.val_metric.append(ev.val_metric)

    def extend(self, more: History) -> None:
        for name in self.__dataclass_fields__:
            getattr(self, name).extend(getattr(more, name))

    def to_csv(self) -> str:
        """One row per step (and step 0): training batch loss, and the evaluations where made."""
        evals = {
            s: (v, tm, vm)
            for s, v, tm, vm in zip(
                self.eval_step, self.val_loss, self.train_metric, self.val_metric, strict=True
            )
        }
        train = dict(zip(self.step, self.train_loss, strict=True))
        lines = ["step,train_loss,val_loss,train_metric,val_metric"]
        for s in sorted(set(train) | set(evals)):
            cells = [train.get(s), *evals.get(s, (None, None, None))]
            lines.append(",".join([str(s)] + ["" if c is None else f"{c:.6g}" for c in cells]))
        return "\n".join(lines) + "\n"
