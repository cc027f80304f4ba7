"""When two guards' assumptions about one argument can never hold together."""

from __future__ import annotations

from initlint.simulation.assumptions import exclusive, membership, other_values

AMONG = membership(["'sparse'", "'mixed'"])


def test_opposite_truths_of_one_test_exclude() -> None:
    assert exclusive((("mode", "'a'", True),), (("mode", "'a'", False),))
    assert exclusive((("x", "truthy", True),), (("x", "truthy", False),))
    assert not exclusive((("mode", "'a'", True),), (("other", "'a'", False),))


def test_a_value_ruled_out_by_every_member() -> None:
    among = (("mode", AMONG, True),)
    assert exclusive(among, (("mode", "'sparse'", False), ("mode", "'mixed'", False)))
    assert exclusive(among, (("mode", AMONG, False),))
    # ruling out one member leaves the other
    assert not exclusive(among, (("mode", "'sparse'", False),))


def test_values_python_finds_equal() -> None:
    assert exclusive((("n", "1", True),), (("n", "True", False),))
    assert not other_values((("n", "1", True),), (("n", "1.0", True),))


def test_sets_of_values_that_share_none() -> None:
    assert other_values((("mode", "'dense'", True),), (("mode", AMONG, True),))
    assert not other_values((("mode", "'sparse'", True),), (("mode", AMONG, True),))
    assert not other_values((("mode", "'dense'", False),), (("mode", AMONG, True),))
    assert not other_values((("x", "truthy", True),), (("x", "'a'", True),))
