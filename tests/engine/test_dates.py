"""The dates task: seeded splits by calendar day, targets that are the ISO form (or the reverse)
of their inputs, checked against the reference parser and against `datetime.strptime`, the
vocabulary, padding, the typed-input checks and the accuracy helpers."""

from __future__ import annotations

import re
from datetime import date, datetime

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.data.date_formats import (
    FIRST_DAY,
    FORMAT_NAMES,
    FORMATS,
    LAST_DAY,
    WORDY,
    ordinal,
    parse_human_date,
    render,
)
from attnviz.data.dates import (
    BOS,
    EOS,
    MAX_IN,
    PAD,
    UNK,
    VOCAB,
    DateTaskSpec,
    accuracy_by_length,
    build_dates,
    can_translate,
    check_input,
    decode,
    encode,
    encode_inputs,
    exact_match,
    exact_rows,
    length_buckets,
    token_accuracy,
)

SPEC = DateTaskSpec(n_train=2000, n_val=400)
# The standard library's reading of each format: an oracle written independently of ours.
STRPTIME = {
    "d mon yyyy": "%d %b %Y",
    "d month yyyy": "%d %B %Y",
    "month d, yyyy": "%B %d, %Y",
    "mon d yyyy": "%b %d %Y",
    "dd/mm/yyyy": "%d/%m/%Y",
    "dd.mm.yy": "%d.%m.%y",
    "weekday, d month yyyy": "%A, %d %B %Y",
    "dth of month yyyy": "%d of %B %Y",
}


def strptime_iso(text: str) -> str:
    """ISO of `text` read by datetime.strptime with whichever format reads it (the ordinal
    suffix dropped, two-digit years moved into 1950..2049, the weekday checked)."""
    plain = re.sub(r"^(\d+)(st|nd|rd|th)\b", r"\1", text)
    for fmt in STRPTIME.values():
        try:
            day = datetime.strptime(plain, fmt).date()
        except ValueError:
            continue
        if day.year > LAST_DAY.year:  # %y puts 00..68 in 2000..2068
            day = day.replace(year=day.year - 100)
        if "%A" in fmt:
            assert day.strftime("%A").lower() == plain.split(",")[0].lower(), text
        return day.isoformat()
    raise AssertionError(f"strptime reads {text!r} in no format")


def texts(x: torch.Tensor) -> list[str]:
    return [decode(row) for row in x]


def test_a_seed_gives_the_same_task_and_another_seed_another():
    build = build_dates.__wrapped__
    one, again, other = build(SPEC), build(SPEC), build(DateTaskSpec(n_train=2000, seed=1))
    assert torch.equal(one.train_x, again.train_x) and torch.equal(one.val_y, again.val_y)
    assert one.input_texts == again.input_texts and one.probe == again.probe
    assert not torch.equal(one.train_x, other.train_x)
    assert one.input_texts != other.input_texts


def test_validation_does_not_change_with_n_train():
    small, large = build_dates(SPEC), build_dates(DateTaskSpec(n_train=5000, n_val=400))
    assert small.input_texts == large.input_texts and torch.equal(small.val_x, large.val_x)


def test_no_calendar_day_is_in_both_splits_in_any_format():
    task = build_dates(SPEC)
    train_days = [parse_human_date(t) for t in texts(task.train_x)]
    val_days = [parse_human_date(t) for t in task.input_texts]
    assert None not in train_days and None not in val_days
    assert set(train_days).isdisjoint(val_days)
    assert len(set(train_days)) == len(train_days) and len(set(val_days)) == len(val_days)


@pytest.mark.parametrize("split", ["train", "val"])
def test_every_target_is_the_iso_form_of_its_input(split):
    task = build_dates(SPEC)
    inputs = texts(getattr(task, f"{split}_x"))
    targets = texts(getattr(task, f"{split}_y"))
    for text, target in zip(inputs, targets, strict=True):
        assert parse_human_date(text) == target == strptime_iso(text), text
    if split == "val":
        assert (inputs, targets) == (task.input_texts, task.target_texts)


def test_reverse_has_the_same_inputs_and_targets_that_are_their_exact_reverses():
    dates, reverse = build_dates(SPEC), build_dates(DateTaskSpec("reverse", 2000, 400))
    assert torch.equal(dates.train_x, reverse.train_x) and dates.input_texts == reverse.input_texts
    for x, y in zip(texts(reverse.train_x), texts(reverse.train_y), strict=True):
        assert y == x[::-1]
    assert reverse.target_texts == [t[::-1] for t in reverse.input_texts]
    assert reverse.max_out == MAX_IN and dates.max_out == 10 and "anti-diagonal" in reverse.notes


def test_encode_decode_round_trip_and_unknown_characters():
    for text in [*FORMATS.values(), "Wednesday, 30 September 2026", "23.11.26"]:
        assert UNK not in encode(text) and decode(encode(text)) == text
    assert encode("ß€x") == [UNK] * 3 and decode(encode("1ß")) == "1\ufffd"
    assert VOCAB[PAD] == "<pad>" and PAD == 0 and len(set(VOCAB)) == len(VOCAB)
    assert decode([BOS, *encode("2026"), EOS, *encode("99"), PAD]) == "2026"


def test_padding_and_lengths_agree():
    task = build_dates(SPEC)
    for x, lengths, y in [
        (task.train_x, task.train_x_len, task.train_y),
        (task.val_x, task.val_x_len, task.val_y),
    ]:
        assert x.dtype == y.dtype == lengths.dtype == torch.int64
        assert x.shape[1] == task.max_in and y.shape[1] == task.max_out + 2
        positions = torch.arange(x.shape[1])
        assert torch.equal(x != PAD, positions < lengths[:, None])
        assert (y[:, 0] == BOS).all() and ((y == EOS).sum(1) == 1).all()
        eos_at = (y == EOS).int().argmax(1)
        assert torch.equal(y != PAD, torch.arange(y.shape[1]) <= eos_at[:, None])
        assert (eos_at == 11).all()  # BOS + 10 ISO characters
    assert task.val_x_len.tolist() == [len(t) for t in task.input_texts]


def test_every_format_and_both_cases_appear_and_lengths_spread():
    task = build_dates(SPEC)
    assert set(task.val_formats) == set(FORMAT_NAMES)
    for fmt in WORDY:
        written = [t for t, f in zip(task.input_texts, task.val_formats, strict=True) if f == fmt]
        assert any(t == t.lower() for t in written) and any(t != t.lower() for t in written), fmt
    lengths = set(task.train_x_len.tolist())
    assert len(lengths) >= 3 and min(lengths) == 8 and max(lengths) <= MAX_IN == 28
    assert len(render(date(2026, 9, 30), "weekday, d month yyyy")) == MAX_IN  # a Wednesday


def test_the_probe_is_a_lower_case_day_month_year():
    task = build_dates(DateTaskSpec())
    text = task.input_texts[task.probe]
    assert task.val_formats[task.probe] == "d mon yyyy" and text == text.lower()
    assert re.fullmatch(r"\d\d [a-z]{3} \d{4}", text)


def test_bad_specs_are_refused_with_reasons():
    bad = DateTaskSpec("translate", n_train=5, n_val=10**6, seed=-1)
    assert len(bad.problems()) == 4 and DateTaskSpec().problems() == []
    with pytest.raises(ValueError, match="unknown date task"):
        build_dates(bad)


def test_check_input_names_each_problem():
    assert check_input("") == ["Type a date: the box is empty."] == check_input("  ")
    long = check_input("1" * 500)
    assert any("500 characters" in m and str(MAX_IN) in m for m in long)
    strange = check_input("ß€")
    assert any("ß" in m and "€" in m and "vocabulary" in m for m in strange)
    (hello,) = check_input("hello")
    assert "not a date" in hello.lower() and "still translates" in hello
    assert check_input("23 nov 2026") == [] == check_input("Monday, 23 November 2026")
    assert "Tuesday" in check_input("monday, 24 november 2026")[0]
    assert check_input("Mon, 23 November 2026") == []
    assert not can_translate("") and not can_translate("1" * 500) and can_translate("hello")
    assert "not a day" in check_input("30/02/2020")[0]
    assert "1950" in check_input("1 jan 1900")[0]


def test_the_parser_refuses_what_it_cannot_read():
    for text in ["hello", "23 foo 2026", "2026-11-23", "31/04/2026", "23 nov 26", "23 nov 2050"]:
        assert parse_human_date(text) is None, text
    assert parse_human_date("01.01.49") == "2049-01-01"  # two-digit years in 1950..2049
    assert parse_human_date("01.01.50") == "1950-01-01"
    assert parse_human_date("23 NOV 2026") == "2026-11-23"
    assert parse_human_date("sept 23 2026") == "2026-09-23" == parse_human_date("23 sep 2026")
    days = (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 31)
    expected = ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "31st"]
    assert [ordinal(d) for d in days] == expected


@settings(max_examples=300, deadline=None)
@given(
    day=st.dates(min_value=FIRST_DAY, max_value=LAST_DAY),
    fmt=st.sampled_from(FORMAT_NAMES),
    capitalised=st.booleans(),
)
def test_any_day_in_any_format_parses_back(day, fmt, capitalised):
    text = render(day, fmt, capitalised)
    assert parse_human_date(text) == day.isoformat() == strptime_iso(text)
    assert 8 <= len(text) <= MAX_IN and UNK not in encode(text)


def test_exact_match_and_token_accuracy_ignore_padding():
    target = torch.tensor([[5, 6, EOS, PAD], [5, 7, EOS, PAD], [8, EOS, PAD, PAD]])  # (3, 4)
    pred = torch.tensor([[5, 6, EOS, 9], [5, 6, EOS, 9], [8, EOS, 4, 4]])  # junk after EOS
    assert exact_rows(pred, target).tolist() == [True, False, True]
    assert exact_match(pred, target) == pytest.approx(2 / 3)
    assert token_accuracy(pred, target) == pytest.approx(7 / 8)
    short = pred[:, :2]  # cut before the first two rows' EOS: those rows miss it
    assert exact_rows(short, target).tolist() == [False, False, True]
    assert token_accuracy(short, target) == pytest.approx(5 / 8)
    assert exact_match(torch.cat([pred, pred], 1), target) == pytest.approx(2 / 3)


def test_accuracy_by_length_groups_examples_by_input_length():
    _, lengths = encode_inputs(["23.11.26", "1 jan 2000", "2 feb 2001", "23.11.27"])
    buckets = length_buckets(lengths)
    assert {n: rows.tolist() for n, rows in buckets.items()} == {8: [0, 3], 10: [1, 2]}
    correct = torch.tensor([True, True, False, True])
    assert accuracy_by_length(correct, lengths) == [(8, 1.0, 2), (10, 0.5, 2)]
