"""What a section page shows, as MyST: the banner, numbered tables with captions, the comparison with
its verdicts, the prose facts.

Every function here returns or displays Markdown that the book parses as MyST (``_config.yml`` sets
``nb_render_markdown_format: myst``), so a table is a numbered ``{table}`` with a caption and a label
that prose can ``{numref}``, and a warning is a real admonition. Every number, in a cell or glued into
the prose (``glue``), is written by ``numbers.number``: three significant digits, powers of ten as
5.17×10⁻⁴, booleans as ✓ and ✗, a missing number as a dash explained under the table; verdicts are
coloured badges; a table too wide for a desktop's column is shown in parts (``show_parts``). The banner
lives in ``banner``. Used by every section notebook; ``runner`` computes, this module shows.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from ..report import verdicts
from ..report.names import in_words
from ..report.numbers import DASH, missing, number, with_decimals
from .banner import banner_markdown, show_banner  # noqa: F401  (every page shows its banner through page)
from .provenance import provenance_markdown

BADGES = {verdicts.REPRODUCED: "success", verdicts.CLAIM_HOLDS: "warning", verdicts.NOT_REPRODUCED: "danger",
          verdicts.NOT_SIGNIFICANT: "secondary", verdicts.UNDECIDED: "info", verdicts.UNDEFINED: "secondary",
          verdicts.NOT_CHECKED: "light"}
# Column and index names the sections' frames share, as a header says them (any other header is a section's
# own words).
HEADERS = {"r_star": "r*", "d_model": "width", "index": ""}
CALL = re.compile(r"(?<=[^\W\d_]{5})\((?=\w)")  # "Spearman(predicted": a line may break after the bracket
LONG_INT = re.compile(r"(?<![\w.])\d{5,}(?![\w.])")  # a whole number of five digits or more, grouped when shown
STAR = re.compile(r"(?<=[\w)\]])\*(?!\*)")  # r*, K*, (…)*: a star Markdown would take for emphasis (not **)


def badge(verdict: str) -> str:
    return f"{{bdg-{BADGES[verdict]}}}`{verdict}`"


def claim_anchor(claim: str) -> str:
    """The HTML id of a claim's row in the ledger (``claim`` as ``ledger.claim_id`` names it)."""
    return "claim-" + re.sub(r"[^a-z0-9]+", "-", claim.lower())


# What a reference calls its claim, so that two references side by side say which claim each judges: a claim's key in
# words (its teacher, rung or spectrum included), where the key alone does not read as words.
WORDS = {"linear_qk": "linear", "softmax_qk": "softmax", "r1": "at r = 1", "r2": "at r = 2", "at_r_star": "at r*",
         "cv_seed": "seed CV", "mp_corrected": "MP-corrected rank", "data_only_rank": "data-only rank",
         "v_known": "V known", "v_unknown": "V unknown", "power_law": "power law", "loss_rank": "loss and rank",
         "progress": "fitting progress", "layers": "layer order", "layer_values": "layer ranges", "ffn": "FFN",
         "measure_cv": "measures' CV", "predictor_cv": "predictor's CV", "pearson": "Pearson r",
         "spearman": "Spearman ρ", "mixer_low": "mixer at r* = 1", "mixer_high": "mixer at r* = 8",
         "no_exact": "no exact estimator", "softmax": "softmax", "knee": "knee", "energy": "energy rank",
         "linear_numerical": "linear, numerical rank", "linear_mixer": "linear, mixer",
         "softmax_numerical": "softmax, log inversion's numerical rank",
         "softmax_small": "softmax, log inversion at r* = 1"}


def claim_label(claim: str) -> str:
    """The words a reference names its claim by (``WORDS``): ``attention_native.deficiency_linear_qk`` reads
    "deficiency, linear", ``real_corpora.pearson`` "Pearson r"."""
    names = re.compile("|".join(sorted(map(re.escape, WORDS), key=len, reverse=True)))  # the longest name first
    key = names.sub(lambda m: f"\x00{WORDS[m[0]]}\x00", claim.split(".", 1)[1])
    parts = [part.strip("_").replace("_", " ") for part in key.split("\x00")]
    return ", ".join(part for part in parts if part).replace("excess, at", "excess at")


def claim_reference(claim: str, verdicts_of: list[str]) -> str:
    """A claim's reference in a sentence: the claim's name in words (``claim_label``), then the badge of each verdict
    its ledger rows give (one, or one per regime where they differ), linking the claim's row in the ledger, marked
    ``claim-ref`` with the claim's name (``data-claim``) so that the book's sentence check can read it. Raw HTML: the
    name is kept as it is (Markdown would read the underscores of ``recovery_linear_qk``)."""
    badges = " ".join(f'<span class="sd-sphinx-override sd-badge sd-bg-{BADGES[v]} sd-bg-text-{BADGES[v]}">{v}</span>'
                      for v in dict.fromkeys(verdicts_of))
    return (f'<a class="claim-ref" data-claim="{claim}" href="ledger.html#{claim_anchor(claim)}" '
            f'title="the claim {claim} in the ledger"><span class="claim-label">{claim_label(claim)}:</span> '
            f'{badges}</a>')


def glue_claims(rows) -> dict[str, str]:
    """Glue a reference to each claim of ``rows`` (ledger rows, ``ledger.claim_rows`` or ``ledger.frame``), named
    ``claim_<section>_<key>``: a sentence typed on a page that refers to a claim writes
    ``{glue:md}`claim_ladder_B1``` beside it, and so carries the claim's current verdicts. Returns the references
    by claim, for a caption written in a page's code."""
    from IPython.display import Markdown

    frame = pd.DataFrame(rows)
    references = {claim: claim_reference(claim, list(own["verdict"]))
                  for claim, own in frame.dropna(subset=["claim"]).groupby("claim", sort=False)}
    for claim, reference in references.items():
        glue("claim_" + claim.replace(".", "_"), Markdown(reference))
    return references


def cell(value, digits: int = 3) -> str:
    """One table cell: a number, a boolean or a missing value as ``numbers.number`` writes it (three
    significant digits, ✓/✗, a dash); text with its pipes escaped, a star after a letter (``r*``) escaped
    so that Markdown never reads it as emphasis, and a line break allowed after the bracket of a long
    word ("Spearman(predicted, …)"), so that such a column can narrow."""
    if not isinstance(value, str):
        return number(value, digits)
    return CALL.sub("(<wbr>", text(value).replace("|", "\\|").replace("\n", " "))


def text(value: str) -> str:
    """Plain text for Markdown, in the book's words (``names.in_words``: no code name, measures as math), every
    star after a letter or bracket (``r*``, ``K*``) escaped, so that Markdown never reads it as emphasis
    ("r*−1 … r*" would otherwise lose both stars)."""
    return STAR.sub(r"\\*", in_words(value))


def table_markdown(frame: pd.DataFrame, caption: str, name: str, index: bool = True, digits: int = 3,
                   missing: str | None = None) -> str:
    """A numbered MyST table with ``caption`` and label ``name``. A dash marks a missing value; ``missing``
    (or a default) says why, under the table."""
    if frame.empty:  # nothing to tabulate at this profile: say so instead of an empty table
        return f"*{caption}* No rows at this profile.\n"
    named = not isinstance(frame.index, pd.RangeIndex)
    shown = frame.reset_index() if index and named else frame
    header = [HEADERS.get(str(c), str(c)) for c in shown.columns]
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    dashes = False
    for values in shown.itertuples(index=False):
        cells = [cell(v, digits) for v in values]
        dashes |= DASH in cells
        lines.append("| " + " | ".join(cells) + " |")
    body = f"```{{table}} {text(caption)}\n:name: {name}\n\n" + "\n".join(lines) + "\n```\n"
    if dashes:
        body += f"\n{DASH}: {text(missing or 'no value: the quantity is not defined for this row')}.\n"
    return body


def show_table(frame: pd.DataFrame, caption: str, name: str, **kwargs) -> None:
    from IPython.display import Markdown, display

    display(Markdown(table_markdown(frame, caption, name, **kwargs)))


def show_parts(frame: pd.DataFrame, caption: str, name: str, parts: int | list[list] = 2, **kwargs) -> None:
    """``frame`` as several numbered tables of some of its columns each (``parts`` lists them, or an even split
    into that many), every one with the index, so that a wide table fits a desktop's column: the first
    labelled ``name`` (the label prose refers to), the next ``name-2`` and on."""
    columns = list(frame.columns)
    if frame.empty:
        return show_table(frame, caption + ".", name, **kwargs)
    if isinstance(parts, int):
        size = -(-len(columns) // parts)
        parts = [columns[k:k + size] for k in range(0, len(columns), size)]
    for k, part in enumerate(parts):
        label = name if k == 0 else f"{name}-{k + 1}"
        show_table(frame[part], f"{caption} (part {k + 1} of {len(parts)})", label, **kwargs)


def _agreement(agrees, tolerance: str) -> str:
    if missing(agrees):
        return DASH
    return f"{cell(bool(agrees))} {tolerance}"


MARKS = "¹²³⁴⁵⁶⁷⁸⁹"
OPEN = "○"  # the claim-holds mark where the data decide nothing: the verdict column says which way (one word)


def claim_mark(holds, verdict: str) -> str:
    """The "claim holds" cell: ✓ or ✗, except where the verdict says the data decide nothing (not significant,
    undecided), which reads ○ (its sign alone is no success; the verdict column names why), and an undefined row a
    dash."""
    if verdict in (verdicts.NOT_SIGNIFICANT, verdicts.UNDECIDED):
        return OPEN
    if verdict in (verdicts.UNDEFINED, verdicts.NOT_CHECKED) or missing(holds):
        return DASH
    return cell(bool(holds))


def _with_p(ours, p, decimals: int = 0) -> str | float:
    """Our number at the precision the paper states for it (``decimals``, 0: as ``number`` writes it), with the
    permutation p-value of a correlation beside it where the row has one."""
    shown = with_decimals(ours, decimals) if decimals and not isinstance(ours, str) else ours
    if missing(p):
        return shown
    return f"{shown if isinstance(shown, str) else number(shown)} (p = {number(p)})"


def _shown(frame: pd.DataFrame) -> list[str]:
    """Each row's value as its table writes it where a section gave one (``verdicts.row``'s ``shown``), else ""."""
    column = frame["ours shown"] if "ours shown" in frame else pd.Series("", frame.index)
    return [text if isinstance(text, str) else "" for text in column]


def _decimals(says: str, value) -> int:
    """The decimals the paper writes its number with (the claim's rounding), 0 for a whole number or none."""
    if missing(value):
        return 0
    resolution = verdicts.Claim(str(says), float(value), "").resolution
    return max(0, round(-math.log10(2 * resolution))) if resolution else 0


def comparison_markdown(comparison: pd.DataFrame, caption: str, name: str) -> str:
    """The table beside the paper, verdict first: the verdict count, the criteria it uses, the value rule,
    then one row per quantity (the value's agreement shown with its tolerance). A non-empty ``note`` of a
    row (e.g. the budgets at which its claim holds) marks its verdict and is listed under the table."""
    kinds = dict.fromkeys(comparison["kind"])
    criteria = "\n".join(f"- *{kind}*: {text(verdicts.CRITERIA[kind])}" for kind in kinds)
    notes = [n if isinstance(n, str) else "" for n in comparison.get("note", pd.Series("", comparison.index))]
    marked = [i for i, n in enumerate(notes) if n]
    if len(marked) > len(MARKS):
        raise ValueError(f"{len(marked)} notes under one table; at most {len(MARKS)}")
    marks = {i: MARKS[k] for k, i in enumerate(marked)}
    rows = pd.DataFrame({
        "verdict": [badge(v) + marks.get(i, "") for i, v in enumerate(comparison["verdict"])],
        "quantity": comparison.index,
        "paper says": comparison["paper says"] + " (" + comparison["where"] + ")",
        "ours": [shown or _with_p(o, p, _decimals(says, value)) for o, p, says, value, shown in
                 zip(comparison["ours"], comparison["p"], comparison["paper says"], comparison["paper value"],
                     _shown(comparison), strict=True)],
        "claim holds": [claim_mark(h, v) for h, v in zip(comparison["claim holds"], comparison["verdict"],
                                                          strict=True)],
        "value agrees (tolerance)": [_agreement(a, t) for a, t in zip(comparison["value agrees"],
                                                                     comparison["value tolerance"], strict=True)],
    })
    estimators = list(dict.fromkeys(comparison["estimator"]))
    if len(estimators) > 1:  # a column only where the rows' numbers come from different kinds of estimator
        rows.insert(2, "computed by", comparison["estimator"].to_numpy())
        said = ""
    else:
        said = f"Every number of ours below comes from {_kind_words(estimators[0])}.\n\n"
    body = table_markdown(rows, caption, name, index=False,
                          missing="the paper states no number for this quantity, so only its claim is judged"
                          if comparison["paper value"].isna().any() else None)
    body += "".join(f"\n{marks[i]} {text(notes[i])}\n" for i in marked)
    rules = fold("How these verdicts are decided", f"A claim holds when\n\n{criteria}\n\nA value agrees by the "
                 f"book's one {{ref}}`value rule <value-rule>`.\n\n{said}")
    return f"{verdicts.summary_markdown(comparison)}\n\n{body}\n{rules}"


def fold(title: str, body: str) -> str:
    """``body`` (MyST) folded under ``title``: a dropdown, closed until a reader opens it (and left out of the
    printed book, which links to the page instead)."""
    return f"::::{{dropdown}} {text(title)}\n:class-container: evidence\n\n{body.strip()}\n::::\n"


def code_block(language: str, code: str):
    """``code`` as a fenced block of ``language``, to glue into a page as MyST (``{glue:md}`` directive)."""
    from IPython.display import Markdown

    return Markdown(f"```{language}\n{code.rstrip()}\n```")


def show_markdown(body: str) -> None:
    """Show ``body`` (MyST Markdown: a generated sentence or paragraph) as the page's own text."""
    from IPython.display import Markdown, display

    display(Markdown(body))


def show_fold(title: str, *bodies: str) -> None:
    from IPython.display import Markdown, display

    display(Markdown(fold(title, in_words("\n\n".join(bodies)))))


def show_provenance(results, what: str = "the table above") -> None:
    """Under a reproduced table or figure: where its numbers come from, folded (``provenance``)."""
    from IPython.display import Markdown, display

    display(Markdown(provenance_markdown(results, what)))


def _kind_words(kind: str) -> str:
    """An estimator kind (or several joined) with what it computes, for a sentence."""
    return "; ".join(f"*{part}*: {verdicts.ESTIMATOR_KINDS[part][0]}" for part in verdicts.estimator_kinds(kind))


def show_comparison(comparison: pd.DataFrame, caption: str, name: str) -> None:
    from IPython.display import Markdown, display

    display(Markdown(comparison_markdown(comparison, caption, name)))


SNAKE = re.compile(r"(?<![\w`$\\{])([a-z][a-z0-9]*_[a-z0-9_]*[a-z0-9])(?![\w`(}])")  # a code name: val_every, user_dir


ENVIRONMENT = re.compile(r"(\$[A-Z][A-Z0-9]*_[A-Z0-9_]+)")  # an environment variable: $ENTROPIC_CORPORA


def configuration_markdown(results, name: str) -> str:
    """The resolved configuration in a dropdown (the banner above it names every difference): value, the
    paper's value (or that the paper states none), description."""
    table = results.cfg.table()
    literal = {"True": "✓", "False": "✗", "None": "none"}  # values as the table reads them, not Python's
    table[["value", "paper"]] = table[["value", "paper"]].map(lambda v: literal.get(v, v)).map(
        lambda v: LONG_INT.sub(lambda m: number(int(m.group())), v) if isinstance(v, str) else v)  # 1,536,000
    table.index = pd.Index([f"`{name}`" for name in table.index], name="parameter")  # what a reader types
    table[["value", "paper", "description"]] = table[["value", "paper", "description"]].map(
        lambda v: SNAKE.sub(r"`\1`", ENVIRONMENT.sub(r"`\1`", v)) if isinstance(v, str) else v)  # names in a cell
    differing = int((table["differs"] != "").sum())
    inner = table_markdown(table, "The parameters of this page beside the paper's (◀ marks a difference).", name)
    differ = "none differs" if not differing else f"{differing} differ{'s' if differing == 1 else ''}"
    return fold(f"All {len(table)} parameters beside the paper's ({differ})", inner)


def show_configuration(results, name: str) -> None:
    from IPython.display import Markdown, display

    display(Markdown(configuration_markdown(results, name)))


class Number:
    """A number glued for the prose: its Markdown is the text ``numbers.number`` writes, its plain form the
    exact value (what a reader of the executed notebook, or a test, gets back)."""

    def __init__(self, value, digits: int = 3):
        self.value, self.digits = value, digits

    def _repr_markdown_(self) -> str:
        return number(self.value, self.digits)

    def __repr__(self) -> str:
        return repr(self.value.item() if hasattr(self.value, "item") else self.value)


def glue(name: str, value, digits: int = 3) -> None:
    """Glue ``value`` for a page's prose as Markdown (``{glue:md}`name:myst```): a number as ``numbers.number``
    writes it (``Number``, to ``digits`` significant digits), so prose and tables write every number alike; text (or
    Markdown) as it is."""
    from IPython.display import Markdown

    try:
        from myst_nb import glue as myst_glue
    except ImportError:  # a launched notebook without the book's extras: glued values feed only the book's prose
        return
    if isinstance(value, str):
        value = Markdown(in_words(value))
    elif not isinstance(value, Markdown):
        value = Number(value, digits)
    myst_glue(name, value, display=False)


def glue_facts(section: str, facts: dict) -> None:
    """Glue every fact of a section for its page's prose, named ``<section>_<fact>`` (see ``glue``)."""
    for name, value in facts.items():
        glue(f"{section}_{name}", value)


def save(results, **frames: pd.DataFrame) -> None:
    """Write a section's tables as CSV under ``build/tables/<label>/<section>/`` for readers and tests."""
    save_tables(results.label, results.section, **frames)


def save_tables(label: str, name: str, **frames: pd.DataFrame) -> None:
    """Write tables as CSV under ``build/tables/<label>/<name>/``."""
    from .. import paths

    folder = paths.TABLES / label / name
    folder.mkdir(parents=True, exist_ok=True)
    for name, frame in frames.items():
        frame.to_csv(folder / f"{name}.csv")


def ledger_markdown(claims: pd.DataFrame, caption: str, name: str) -> str:
    """The claims ledger as a numbered table: verdict, the deciding table (a link), the quantity, the
    paper's words, ours, whether the claim holds and whether the value agrees."""
    anchored = claims["claim"].notna() & ~claims["claim"].duplicated()  # a claim's first row holds its anchor
    rows = pd.DataFrame({
        "verdict, decided in": [badge(verdict) + " " + (f"{{numref}}`{table}`" if verdict != verdicts.NOT_CHECKED
                                                         else f"{{doc}}`{section}`")
                                for table, verdict, section in zip(claims["table"], claims["verdict"],
                                                                   claims["section"], strict=True)],
        "quantity": claims["quantity"],
        "paper says": [(f'<span id="{claim_anchor(claim)}"></span>' if anchor else "") + f"{says} ({where})"
                       for claim, anchor, says, where in zip(claims["claim"], anchored, claims["paper says"],
                                                             claims["where"], strict=True)],
        "ours": [shown or _with_p(o, None, _decimals(says, value)) for o, says, value, shown in
                 zip(claims["ours"], claims["paper says"], claims["paper value"], _shown(claims), strict=True)],
        "computed by": claims["estimator"],
        "claim holds": [claim_mark(h, v) for h, v in zip(claims["claim holds"], claims["verdict"], strict=True)],
        "value agrees": claims["value agrees"],
    })
    return table_markdown(rows, caption, name, index=False,
                          missing="not decided: the claim is not checked, or the paper states no number for it")


def ledger_folds(claims: pd.DataFrame) -> str:
    """The ledger's rows, one fold per section of the paper, in the book's order: its title says the section's
    verdicts, so a reader opens the section whose count asks a question."""
    parts = []
    for section, own in claims.groupby("section", sort=False):
        title = own["title"].iloc[0]
        said = ", ".join(f"{n} {verdict}" for verdict, n in verdicts.counts(own).items() if n)
        parts.append(fold(f"{title}: {len(own)} claim{'s' if len(own) != 1 else ''} ({said})",
                          ledger_markdown(own, f"The claims of {title}, verdict first, with the table that decides "
                                               f"each.", f"tbl-ledger-claims-{section}")))
    return "\n".join(parts)


def estimator_kinds() -> pd.DataFrame:
    """Every kind of estimator a row can name (``verdicts.ESTIMATOR_KINDS``), with whether it is a pre-training
    estimator in the paper's sense, as a table."""
    return pd.DataFrame([{"kind of estimator": kind, "what it computes": text, "pre-training (the paper's sense)": pre}
                         for kind, (text, pre) in verdicts.ESTIMATOR_KINDS.items()])


def criteria() -> pd.DataFrame:
    """Every criterion of ``verdicts.CRITERIA``, as a table (the value rule is stated once, in the reproducing
    chapter, and linked from every table's fold)."""
    return pd.DataFrame([{"kind of claim": kind, "the claim holds when": text}
                         for kind, text in verdicts.CRITERIA.items()])
