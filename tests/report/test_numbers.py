"""How the book writes a number: one function for tables, prose and figures."""

import math

import numpy as np

from entropic.report.numbers import DASH, MINUS, beside, counted, listed, number, power_of_ten, tokens


def test_small_and_large_values_are_powers_of_ten_in_superscripts_never_e_notation():
    assert number(5.17e-4) == "5.17×10⁻⁴" and number(9.1e-05, 2) == "9.1×10⁻⁵"
    assert number(-2.18e-14) == f"{MINUS}2.18×10⁻¹⁴" and number(123456.7) == "1.23×10⁵"
    assert power_of_ten(0.5, 2) == "5.0×10⁻¹"
    assert all("e" not in number(v) for v in (1e-9, 3.3e-5, 7.7e7, 99999.7, 0.000999))


def test_whole_numbers_are_grouped_and_signs_are_true_minus_signs():
    assert number(1536000) == "1,536,000" and number(1536000.0) == "1,536,000" and number(9999) == "9999"
    assert number(np.int64(20000)) == "20,000" and number(-3) == f"{MINUS}3" and number(-0.5) == f"{MINUS}0.5"
    assert number(-0.0) == "0" and number(0) == "0"


def test_three_significant_digits_marks_and_dashes():
    assert number(28.5123) == "28.5" and number(0.00499) == "0.00499" and number(1234.5) == "1234"
    assert number(True) == "✓" and number(np.bool_(False)) == "✗"
    assert number(None) == DASH and number(math.nan) == DASH and number(np.float32("nan")) == DASH
    assert number(math.inf) == "∞"


def test_a_token_budget_is_named_as_app_b_names_it():
    assert tokens(1536000) == "1.536M" and tokens(15_360_000) == "15.36M" and tokens(102400) == "0.1024M"


def test_a_range_is_written_in_the_books_format_one_number_where_all_are_equal():
    from entropic.report.numbers import missing, span

    assert span([31.4, float("nan"), 24.71]) == "24.7–31.4" and span([-2.0, -0.5]) == "−2–−0.5"
    assert span([200.0, 200.0]) == "200" and span([], "no n of the grid") == "no n of the grid"
    assert missing(None) and missing(float("nan")) and not missing(0.0) and not missing("nan")


def test_a_count_a_list_and_a_place_are_said_in_the_words_their_values_decide():
    assert counted(90, 90, "students") == "all 90 students"
    assert counted(0, 12, "cells") == "none of the 12 cells"
    assert counted(57, 60, "students") == "57 of the 60 students"
    assert counted(12000, 12000, "lags") == "all 12,000 lags"
    assert (counted(1, 1, "students"), counted(0, 1, "students")) == ("the one student", "not the one student")
    assert (listed([]), listed(["a"]), listed(["a", "b"]), listed(["a", "b", "c"])) == \
        ("nothing", "a", "a and b", "a, b and c")
    assert beside(23.4, 22.9, "the bound") == "lies 0.5 above the bound"
    assert beside(1.0, 3.5, "it") == "lies 2.5 below it"
    assert beside(2.0, 2.0, "the bound") == "equals the bound"
