"""The circuits experiments' presets, as the Jobs a page's Start submits, with what each one was
measured to do (benchmarks/circuits.py prints the figures; tests/engine/test_circuits_*.py
asserts the induction ones).
"""

from __future__ import annotations

from dataclasses import replace

from attnviz.topics.circuits import grokking, induction
from attnviz.topics.circuits.induction import ATTENTION_ONLY, InductionJobSpec, SegmentData
from attnviz.topics.circuits.sinks import sink_job
from attnviz.topics.scene import Job

INDUCTION_DATA = SegmentData(seg_min=8, seg_max=16, seed=0)
INDUCTION_STEPS, INDUCTION_LR, INDUCTION_BATCH = 1000, 1e-2, 64

INDUCTION_PRESETS: dict[str, Job] = {
    # forms a previous-token head in layer 0 and an induction head in layer 1 after ~450 steps
    "2 layers, attention only": Job(
        InductionJobSpec(INDUCTION_DATA, ATTENTION_ONLY),
        induction.train_config(INDUCTION_STEPS, INDUCTION_LR, INDUCTION_BATCH),
    ),
    # one layer cannot compose a previous-token head with a copying head: no induction head
    "1 layer, attention only": Job(
        InductionJobSpec(INDUCTION_DATA, replace(ATTENTION_ONLY, n_layer=1)),
        induction.train_config(INDUCTION_STEPS, INDUCTION_LR, INDUCTION_BATCH),
    ),
}

GROKKING_PRESETS: dict[str, Job] = {
    # measured on one core (benchmarks/circuits.py): training accuracy 99 % by step 200,
    # validation 95 % at step 4600 (259 s); key frequencies 21 of 26 at the start, 3 at the end
    "a + b mod 53, 40 % of pairs": Job(
        grokking.GrokkingJobSpec(p=53, fraction=0.4), grokking.train_config(6000)
    ),
}

# measured: softmax without BOS parks up to half of a layer-1 head's mass on position 0 and
# evicting it costs loss that keeping it restores; softmax-plus-one without BOS keeps ≤ 0.07
# there; with BOS the sink moves onto BOS; sigmoid still uses position 0 (and learns less)
SINK_PRESETS: dict[str, Job] = {
    f"{attention}, {'BOS' if bos else 'no BOS'}": sink_job(attention, bos)
    for attention in ("softmax", "softmax1", "sigmoid")
    for bos in (False, True)
}
