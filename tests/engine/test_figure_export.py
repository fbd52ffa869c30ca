"""Downloads carry their labels: a labelled CSV block reads back with the csv module to the same
row labels, column labels and numbers; JSON gets "rows" and "columns"; old calls are unchanged."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from attnviz.io.export import matrices_to_csv, matrices_to_json

TOKENS = ["1", "2", "3", "2"]  # digit and repeated tokens stay text
W = np.array([[0.1, 0.9, 0, 0], [0.5, 0.5, 0, 0], [1e-19, 0, 1, 0], [0.25] * 4])
OUT = np.array([[1.5, -2.0]])


def blocks(text: str) -> list[list[list[str]]]:
    return [list(csv.reader(io.StringIO(b))) for b in text.split("\n\n") if b.strip()]


def test_labelled_csv_round_trips_with_the_csv_module():
    text = matrices_to_csv(
        {"weights": W, "output": OUT, "bare": np.eye(2)},
        labels={"weights": (TOKENS, TOKENS), "output": (["query 0"], ["dim 0", "dim 1"])},
    )
    weights, output, bare = blocks(text)
    assert weights[0] == ["# weights [4 x 4]"]
    assert weights[1] == ["row \\ column", *TOKENS]
    assert [r[0] for r in weights[2:]] == TOKENS
    np.testing.assert_allclose(np.array([r[1:] for r in weights[2:]], float), W, rtol=1e-6)
    assert output[1:] == [["row \\ column", "dim 0", "dim 1"], ["query 0", "1.5", "-2"]]
    assert bare[0] == ["# bare [2 x 2]"]  # an unlabelled matrix stays bare numbers
    np.testing.assert_array_equal(np.array(bare[1:], float), np.eye(2))


def test_labels_with_commas_and_quotes_survive():
    tricky = ["a,b", 'say "hi"']
    text = matrices_to_csv({"m": np.eye(2)}, labels={"m": (tricky, tricky)})
    (block,) = blocks(text)
    assert block[1][1:] == tricky and [r[0] for r in block[2:]] == tricky


def test_old_unlabelled_csv_is_unchanged_and_loadtxt_reads_it():
    text = matrices_to_csv({"a": W, "b": OUT})
    assert text.splitlines()[0] == "# a [4 x 4]"
    parts = [
        np.loadtxt(io.StringIO(b), delimiter=",", ndmin=2) for b in text.split("\n\n") if b.strip()
    ]
    np.testing.assert_allclose(parts[0], W, rtol=1e-5)
    np.testing.assert_allclose(parts[1], OUT)


def test_json_carries_rows_and_columns():
    body = json.loads(
        matrices_to_json({"weights": W, "plain": OUT}, labels={"weights": (TOKENS, TOKENS)})
    )
    assert body["weights"]["rows"] == TOKENS == body["weights"]["columns"]
    assert "rows" not in body["plain"] and body["plain"]["values"] == [[1.5, -2.0]]
    np.testing.assert_allclose(body["weights"]["values"], W)


def test_labels_of_the_wrong_length_are_refused_clearly():
    with pytest.raises(ValueError, match="labels of 'w' are 3 × 4, the matrix is 4 × 4"):
        matrices_to_csv({"w": W}, labels={"w": (TOKENS[:3], TOKENS)})


def test_typed_labels_cannot_become_spreadsheet_formulas():
    text = matrices_to_csv({"m": np.eye(2)}, {"m": (["=cmd()", "ok"], ["@x", "b"])})
    rows = list(csv.reader(io.StringIO(text.split("\n", 1)[1])))
    assert rows[0][1:] == ["'@x", "b"]
    assert [r[0] for r in rows[1:3]] == ["'=cmd()", "ok"]
