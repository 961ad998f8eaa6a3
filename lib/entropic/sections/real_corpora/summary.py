"""App. B's summary paragraph ("What holds and what differs"), every clause written from its claim's row of the
main table (``tables.compare``): the verdict each clause names is that row's, and each number is the row's own or
one of ``prose.facts``. Used by ``notebooks/real_corpora.md``."""

from __future__ import annotations

import math

import pandas as pd

from ...report import verdicts
from ...report.numbers import number
from .spec import CLAIMS


def _row(table: pd.DataFrame, key: str) -> pd.Series | None:
    own = table[(table["paper says"] == CLAIMS[key].says) & (table["where"] == CLAIMS[key].where)]
    return None if own.empty or own["verdict"].iloc[0] == verdicts.UNDEFINED else own.iloc[0]


def _p(row: pd.Series) -> str:
    return "" if row["p"] is None or pd.isna(row["p"]) else f" (p = {number(row['p'])})"


def summary(table: pd.DataFrame, facts: dict) -> str:
    """The paragraph: the grid judged, the power of six corpora, then each claim in the main table's order of
    topics, with its verdict as the table gives it."""
    out = [f"The table judges the grid at {facts['main_budget']} ({facts['models']} models)."]
    if isinstance(facts.get("paper_r_text"), str) and facts["paper_r_text"] != "—":
        out.append("Six corpora are six points: " + facts["paper_r_text"])
    pearson, loss = _row(table, "pearson"), _row(table, "loss_rank")
    if pearson is not None and loss is not None:
        same = pearson["verdict"] == loss["verdict"]
        out.append(f"Ours are r = {number(pearson['ours'])} between predicted and measured rank{_p(pearson)} and "
                   f"r = {number(loss['ours'])} between final loss and measured rank{_p(loss)}: "
                   + (f"both {pearson['verdict']}." if same else
                      f"{pearson['verdict']} and {loss['verdict']}."))
    stable, layers, values = _row(table, "cv_seed"), _row(table, "layers"), _row(table, "layer_values")
    if stable is not None:
        out.append(f"The largest seed CV of the measured rank is {number(stable['ours'])} against the paper's "
                   f"{number(CLAIMS['cv_seed'].value)} or less: {stable['verdict']}.")
    if layers is not None:
        out.append(f"Layer 1 {'sits above' if layers['claim holds'] else 'does not sit above'} layer 0 in every "
                   f"corpus at the largest width: {layers['verdict']}.")
    if values is not None:
        text = (f"Against the paper's layer ranges (13–19 and 30–44), ours at the largest width are "
                f"{values['ours shown'] or number(values['ours'])}")
        if isinstance(facts.get("long_change0"), str) and facts["long_change0"] != "—":
            text += (f"; a model trained {facts['long_factor']} times longer reads layer 0 at "
                     f"{number(facts['long_layer0'])}, {facts['long_change0']} over its last doubling")
        out.append(text + f": {values['verdict']}" + (" (by the declared rule, still moving with the budget)"
                                                      if values["verdict"] == verdicts.UNDECIDED else "") + ".")
    ffn, ridge, repeat = _row(table, "ffn"), _row(table, "ridge"), _row(table, "repeat")
    if ffn is not None:
        conditional = facts.get("ffn_r_conditional", math.nan)
        out.append(f"The FFN's stable rank against $H_1$: r = {number(ffn['ours'])}{_p(ffn)}"
                   + (f", {number(conditional)} for the conditional entropy" if not pd.isna(conditional) else "")
                   + f", against the paper's {number(CLAIMS['ffn'].value)}: {ffn['verdict']}.")
    if ridge is not None:
        out.append(f"The ridge operator reaches full rank in {facts['ridge_full']} of {facts['n_found']} corpora: "
                   f"{ridge['verdict']}.")
    if repeat is not None:
        out.append(f"The repeat operator separates {number(repeat['ours'])} of {facts['n_found']} corpora, against "
                   f"the paper's one: {repeat['verdict']}.")
    measure, predictor = _row(table, "measure_cv"), _row(table, "predictor_cv")
    if measure is not None and predictor is not None:
        out.append(f"Across corpora the measures vary by a CV of at most {number(measure['ours'])} (the paper: "
                   f"0.06–0.20; {measure['verdict']}) and the predictor by {number(predictor['ours'])} (the paper: "
                   f"{number(CLAIMS['predictor_cv'].value)}; {predictor['verdict']}).")
    if facts.get("spec_claims"):
        out.append(f"{facts['spec_robust']} of {facts['spec_claims']} claims keep their mark under every reading.")
    return " ".join(out)
