"""The presenter's stage as one value (attnviz.lessons.stage): what a step's stage veils until
Reveal, and the size each of its views is drawn at, from the room the browser measured. The
expected sizes are worked out here from the room's numbers: the room's height shared by the rows
less the gaps between them, the width shared by the views side by side."""

from __future__ import annotations

from dataclasses import replace

import pytest

from attnviz.lessons.model import Question, Step
from attnviz.lessons.stage import (
    MIN_VIEW_PX,
    SIDE_BY_SIDE_MIN,
    VIEW_GAP_PX,
    Room,
    Stage,
    hidden_views,
)

QUESTION = Question("Which key wins?", ("a", "b"), "a")


def step(views: tuple[str, ...], question: Question | None = None) -> Step:
    return Step("soft-select", "A", "Look.", {}, views=views, question=question)


def test_a_question_veils_what_it_hides_until_reveal_and_all_its_views_when_it_names_none():
    both = ("key_plane", "weights")
    assert hidden_views(step(both, QUESTION), revealed=False) == ("key_plane", "weights")
    named = step(both, replace(QUESTION, hides=("weights",)))
    assert hidden_views(named, revealed=False) == ("weights",)
    assert hidden_views(named, revealed=True) == ()
    assert hidden_views(step(both), revealed=False) == ()


def test_two_views_in_a_narrow_room_stack_sharing_its_height_less_one_gap_and_its_width():
    narrow = SIDE_BY_SIDE_MIN - 20  # a phone or a half screen: one under the other
    stage = Stage.of(step(("key_plane", "weights")), "mine:1", False, Room(700, narrow, 1))
    assert not stage.side_by_side
    assert stage.height("weights") == (700 - VIEW_GAP_PX) // 2
    assert stage.width("weights") == narrow
    assert stage.shows("key_plane") and not stage.shows_only("key_plane")


def test_two_views_in_a_wide_room_side_by_side_take_its_height_and_half_its_width_less_a_gap():
    # the rows the browser saw when it measured do not decide it: the server lays them out
    stage = Stage.of(step(("key_plane", "weights")), "mine:1", False, Room(500, 1600, 2))
    assert stage.side_by_side
    assert stage.height("key_plane") == 500
    assert stage.width("key_plane") == (1600 - VIEW_GAP_PX) // 2


def test_three_views_share_a_row_and_four_stack_however_wide_the_room():
    room = Room(600, 1500, 1)
    three = Stage.of(step(("step_Q", "step_K", "step_V")), "mine:1", False, room)
    assert three.side_by_side and three.width("step_K") == (1500 - 2 * VIEW_GAP_PX) // 3
    four = Stage.of(step(("a", "b", "c", "d")), "mine:1", False, Room(1400, 1500, 1))
    assert not four.side_by_side
    assert four.height("c") == (1400 - 3 * VIEW_GAP_PX) // 4 and four.width("c") == 1500


def test_a_view_is_never_drawn_shorter_than_the_floor_however_small_the_room():
    stage = Stage.of(step(("weights",)), "mine:1", False, Room(100, 390, 1))
    assert stage.height("weights") == MIN_VIEW_PX
    assert stage.shows_only("weights")


def test_a_view_off_the_stage_or_a_room_not_yet_measured_has_no_size():
    measured = Stage.of(step(("weights",)), "mine:1", False, Room(600, 1200, 1))
    assert measured.height("key_plane") is None and measured.width("key_plane") is None
    unmeasured = Stage.of(step(("weights",)), "mine:1", False, None)
    assert unmeasured.height("weights") is None and unmeasured.width("weights") is None


@pytest.mark.parametrize(
    ("reported", "room"),
    [
        ([640, 1180, 1], Room(640, 1180, 1)),
        ((640.0, 1180.0, 2.0), Room(640, 1180, 2)),
        (None, None),
        ([640, 1180], None),
        (["tall", 1180, 1], None),
        ({"height": 640}, None),
    ],
)
def test_the_room_is_read_from_what_the_browser_reported_and_nothing_else(reported, room):
    assert Room.read(reported) == room


def test_the_settled_marker_names_the_room_as_the_stage_script_does():
    assert Room(640, 1180, 1).marker() == "640x1180x1"
