"""The book's sentences read against its tables: what ``make check`` asks of every page's prose beyond its tables.

A page's prose mixes sentences typed by hand (the argument, the explanation) with text generated from the stored
results: what a ``glue:md`` role or directive pastes (marked ``generated`` by ``entropic.publish.generated``), what
a glue role pastes as text (``pasted-text``) and what a cell displays (``cell_output``). A sentence that states a
result takes it from the data, so typed prose may not state one:

* ``typed_results``: no verdict word in typed prose (a verdict is the data's: a badge defines the words, a table or
  a generated sentence gives them); no direction of a result (correlated, exceeds, holds, fails, reads … exactly, in
  part) in a typed sentence that points at the evidence (a page of evidence or one of its tables linked, App. B, a
  table or a section of the paper named), the paper's quoted words aside; no number of a result typed by hand: a
  decimal, a range, a duration or a factor that the paper's text does not hold (the paper's own numbers may be
  quoted; a share in whole percent is a setting or a level, a numbered label is a name, and the bibliography's
  pages are the sources'). On the pages whose results are written from the data (``RESULT_PAGES``: the evidence
  pages, the intro, the teaching chapter) the prose, headings and captions typed by hand hold no direction of a
  result, with a pointer or without; no result in other words (a comparison with the paper, "agrees with", "falls
  short", "on our data", "we find", a sign, a count, a negated result); no place of a quantity against a band, a
  line or another quantity ("stays above the band", "rises with r*", "orders of magnitude"), but as a condition, a
  rule or a question; and a claim's reference licenses a direction
  only where the sentence says it as the paper's ("the paper reports that …"), never as ours. A question ("whether
  the claim holds"), the legend of a badge or a mark, the interpretation's title and the paper's own title say no
  result. On the capacity sweep's page and in the intro an integer typed outside a label is a count or a rank typed
  by hand.
* ``marks_contradicted``: App. B's specification table gives every claim, under the main reading, the mark its
  verdict in the main table means (✓ holds, ✗ fails, ○ not decided).
* ``abstract_contradicted``: the abstract's counts of verdicts, and the side of App. B on which its failures lie,
  are the ledger's.
* ``configuration_contradicted``: a configuration table's "paper" column holds a value only where the paper states
  one, and a banner that calls a page's parameters the paper's has no parameter the paper does not state.
* ``grammar``: generated sentences agree in number ("1 thread(s)", "these tables … reads" are errors).
* ``claims_unreferenced``: on the pages that speak of the paper's claims (its evidence pages, the intro, the
  teaching chapter), every typed sentence, heading, admonition and caption that refers to a claim carries the
  claim's reference (``{glue:md}`claim_<section>_<key>```, glued by ``page.glue_claims``: the claim's current
  verdicts, linking its row in the ledger). A sentence refers to a claim when it names the place where the paper
  makes one (§4–§7, Tables 1–5, App. B, C.1, D) other than as its setting ("the §4 task"), or says a result in
  other words than the verdicts' (confirmed, borne out, as the paper reports), counts claims or cases ("4 of 6
  claims", "five of the six corpora"), negates a result ("does not track") or says one of the claimed properties
  holds or fails ("recovery holds"). A sentence with the reference may state the paper's claim and its direction.
* ``claim_references_contradicted``: every reference names a claim the ledger lists, links its row there and
  shows the verdicts its rows give.

The verdict given a claim in every table and finding stays ``reader.verdicts_contradicted``'s. Each function takes
a built book's folder (``_build/html``) and returns one line per problem.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from entropic.publish.page import claim_anchor

# The numbers the paper states, per section, extracted from its text (``paper_numbers``) and committed, so that the
# check needs no copy of the paper beside the clone; where the paper is there, a test checks the file against it.
PAPER = Path(__file__).resolve().parents[2] / "shared" / "paper" / "entropic-bound.md"
PAPER_NUMBERS = Path(__file__).resolve().parents[1] / "book" / "paper-numbers.json"
PAPER_NUMBER = re.compile(r"-?\d[\d.,–-]*")  # a run of digits with its decimal points, separators and range dashes
VERDICTS = ("not reproduced", "reproduced", "claim holds, value differs", "not significant", "undecided",
            "not checked", "supported", "contradicted")
VERDICT = re.compile(r"\b(" + "|".join(VERDICTS) + r")\b", re.IGNORECASE)
DIRECTION = re.compile(r"\b(anti-?\s?correlated|uncorrelated|correlated|correlates|exceeds?|exceeded|"
                       r"reads? [^.;]{0,20}\bexactly|in part|only partial|holds|fails|failed|separates|tracks)\b",
                       re.IGNORECASE)
PARTIAL = re.compile(r"\b(only in part|in part under|only partial|partially predictable|anti-?\s?correlated)\b",
                     re.IGNORECASE)  # a direction of a result wherever it is typed: no argument needs these words
EVIDENCE_PAGES = ("surrogate", "ladder", "attention_native", "predictability", "ablation", "real_corpora",
                  "frontier", "text_rank", "ledger")
EVIDENCE_LINK = re.compile(r"(^|/)(" + "|".join(EVIDENCE_PAGES) + r")\.html|#tbl-(" + "|".join(EVIDENCE_PAGES) + ")")
EVIDENCE_NAME = re.compile(r"App\. [A-D]\b|\bTable (R?\d+(\.\d+)?)\b|§\s?\d")
NUMBER = re.compile(r"(?<![\w.,])(?:\d+ min \d+ s|\d+(?:\.\d+)?\s?h\b|\d+(?:,\d{3})* s\b|\d+(?:\.\d+)?×|"
                    r"\d+(?:,\d{3})*(?:\.\d+)?\s?[–-]\s?\d+(?:\.\d+)?|\d+\.\d+\s?%?)(?!\w|\.\d)")
LABELS = re.compile(r"(Exercises?|Theorems?|Lemmas?|Definitions?|Assumptions?|Corollar(y|ies)|Propositions?|"
                    r"Figures?|Tables?|Parts?|Sections?|Chapters?|eqs?\.|§|CC BY|version|Python|torch|pp?\.)\s*$",
                    re.IGNORECASE)
HEADINGS = ["h1", "h2", "h3", "h4", "h5", "h6"]
REFERENCE = "⟦claim⟧"  # where a typed sentence carries a claim's reference (its verdict, linking the ledger)
QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"")  # the paper's words, quoted: not a sentence of ours
TYPED_SKIP = ("div.cell_output, .pasted-text, .generated, script, style, pre, code, span.math, div.math, "
              "mjx-container, .sd-badge, table, .headerlink, div.cell_input, nav, a.reference, .provenance, "
              "figure.entropic-table")
SENTENCE = re.compile(r"(?<!\bApp\.)(?<!\beq\.)(?<!\beqs\.)(?<!\bFig\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bcf\.)(?<!\bvs\.)"
                      r"(?<=[.;!?])\s+(?=[A-Z(“\"])")


def _soup(html: str):
    from bs4 import BeautifulSoup

    return BeautifulSoup(html, "html.parser")


def normalized_paper(text: str) -> str:
    """The paper's text with its Markdown escapes, spaces and thousands separators removed: where a number it states
    can be found (its formulas repeat a number, "28.528.5", so a number is looked for, not split out)."""
    return re.sub(r"(?<=\d),(?=\d{3}\b)", "", text.replace("\\", "")).replace(" ", "").replace("−", "-")


def paper_numbers(text: str) -> dict:
    """The numbers of the paper's Markdown ``text`` per section (its ``#`` headings), each run of digits as the
    normalized text writes it, in order, once per section; with the text's sha256, the file ``PAPER_NUMBERS``."""
    sections, name = {}, "front matter"
    for line in text.splitlines():
        if line.startswith("#"):
            name = " ".join(line.lstrip("#").replace("\\", "").split())
        for run in PAPER_NUMBER.findall(normalized_paper(line)):
            if run not in sections.setdefault(name, []):
                sections[name].append(run)
    return {"sha256": hashlib.sha256(text.encode()).hexdigest(), "sections": sections}


def _paper_text() -> str:
    """The paper's stated numbers as one text, one run per line, read from ``PAPER_NUMBERS`` (the project's data,
    not the paper beside the clone)."""
    found = json.loads(PAPER_NUMBERS.read_text())["sections"]
    return "\n".join(run for runs in found.values() for run in runs)


def in_paper(number: str, paper: str) -> bool:
    """Whether the paper states ``number``: a whole number or a range of whole numbers as it is ("25–31" is not
    "25–310"), a decimal where a number starts (the paper's formulas repeat a number, "28.528.5", so a decimal may run
    on), a range of decimals when the paper states both ends ("0.006–0.087" for "[0.006, 0.087]")."""
    plain = re.sub(r"(?<=\d),(?=\d{3}\b)", "", number).replace(" ", "").replace("−", "-").rstrip("%×")
    ends = re.split(r"(?<=\d)[–-]", plain)
    if len(ends) == 2 and all("." in end for end in ends):
        return all(in_paper(end, paper) for end in ends)
    after = "" if "." in ends[-1] else r"(?![\d.])"
    forms = {plain, plain.replace("–", "-"), plain.replace("-", "–")}
    return any(re.search(rf"(?<!\d)(?<!\d\.){re.escape(form)}{after}", paper) for form in forms)


def _pages(folder: Path):
    for path in sorted(folder.rglob("*.html")):
        if any(part in path.parts for part in ("_static", "_sources", "_downloads", "_images")) \
                or path.name in ("genindex.html", "search.html", "prf-prf.html", "bibliography.html"):
            continue
        yield path


def typed_sentences(path: Path) -> list[tuple[str, bool]]:
    """The typed sentences of one built page as ``(sentence, points at the evidence)`` (``typed_blocks``)."""
    return [(sentence, evidence) for sentence, evidence, _ in typed_blocks(path)]


def typed_blocks(path: Path) -> list[tuple[str, bool, str]]:
    """The typed sentences of one built page as ``(sentence, points at the evidence, kind)``, kind ``heading``,
    ``caption`` or ``prose``: its headings, paragraphs (an admonition's title among them), list items and captions (a
    table's or a figure's caption is read wherever it sits, a cell's output included: its words are typed in the
    page's code) with every generated element, table, badge, formula, code, section number and cross-reference's text
    removed. A claim's reference (``page.claim_reference``) stays in the sentence as ``REFERENCE``."""
    soup = _soup(path.read_text())
    article = soup.select_one("article") or soup
    out = []
    for block in article.find_all(["p", "li", "figcaption", "caption", "dd", *HEADINGS]):
        if block.find(["p", "li", *HEADINGS]) or block.find_parent(["nav"]):
            continue
        caption = block.name in ("figcaption", "caption") or block.find_parent(["figcaption", "caption"])
        if block.find_parent(class_="generated") or (not caption and (block.find_parent("table")
                                                                      or block.find_parent(class_="cell_output"))):
            continue  # generated text, and a table's or an output's text other than its caption
        kind = "caption" if caption else "heading" if block.name in HEADINGS else "prose"
        links = [a.get("href", "") for a in block.find_all("a")
                 if not {"claim-ref", "headerlink"} & set(a.get("class", []))]  # a caption's own anchor aside
        linked = any(EVIDENCE_LINK.search(h) for h in links)
        copy = _soup(str(block))
        for reference in copy.select(".claim-ref"):  # with the glued span it sits in
            glued = reference.find_parent("span", class_="generated")
            (glued if glued is not None and glued.get_text(" ").strip() == reference.get_text(" ").strip()
             else reference).replace_with(f" {REFERENCE} ")
        for element in copy.select(TYPED_SKIP + ", .section-number, .caption-number"):
            element.decompose()
        text = " ".join(copy.get_text(" ").split())
        out += [(sentence, linked or bool(EVIDENCE_NAME.search(sentence)), kind) for sentence in SENTENCE.split(text)
                if sentence.strip()]
    return out


# The pages whose results are written from the data (``typed_results``' stricter half): the evidence pages, the intro
# and the teaching chapter. There the prose and headings typed by hand hold no direction of a result, pointer or
# none, and no result in other words (a comparison with the paper, a verb of agreement, a count, a negated result):
# the paper's claim beside its reference is said as the paper's ("the paper reports that …"). A figure's or a
# table's caption there is read the same way: it says what the figure or table shows and where to look, and what it
# reads there is pasted from the data (a ``glue:md`` role in the caption).
RESULT_PAGES = (*(name for name in EVIDENCE_PAGES if name != "ledger"), "intro", "teaching")
COMPARED = re.compile(r"\b(agree(?:s|d)? with|disagree(?:s|d)?|depart(?:s|ed)? from|differs? from|diverges? from|"
                      r"falls? short|(?:above|below|under|over|higher than|lower than|more than|less than|"
                      r"fewer than) (?:the paper|what the paper)|on our data|in our runs|we (?:find|found|observe|"
                      r"observed|measure|measured|see|saw)|(?:the )?(?:opposite|same) sign|(?:positively|negatively) "
                      r"(?:correlated|related))\b", re.IGNORECASE)
# The paper's own claim, said as the paper's: a direction there is the claim the reference beside it judges.
ATTRIBUTED = re.compile(r"\b(?:the paper|App\. B|§\s?\d)(?:'s|’s)? (?:\w+ )?(?:reports?|claims?|finds|says|states|"
                        r"argues|diagnosis|expects?|predicts?)\b", re.IGNORECASE)
# A sentence that says the paper's claim speaks of the paper only: a word of ours in it ("on our spectra", "we",
# "here") says the claim as ours.
FIRST_PERSON = re.compile(r"\b(?:our|ours|we|us|this book|here)\b", re.IGNORECASE)
# Words that say no result: a question ("whether the claim holds"), the legend of a badge or a mark (": the claim
# holds and …", "✓ the claim holds under it"), the title every evidence page gives its interpretation, and the
# paper's own title.
QUESTION = re.compile(r"\bwhether\b[^.;:]*$", re.IGNORECASE)
# Where a quantity lies, as a result: against a band, a line, a marker or another quantity ("stay far above the band",
# "sits on the optimum", "the two coincide"), a trend ("rises with r*") or a size in decades ("orders of magnitude").
# On a result page the data say it; typed words may say it only as a condition, a rule or a question ("a width is
# within the margin where its line ends inside the band", "every later rung must stay above it", "which lines stay
# inside it"), or as what a lemma implies ("must lie below r*", "one of rank r* reaches the noise floor (its
# Theorem 2)": a sentence that names the theorem it states).
THEOREM = re.compile(r"\b(?:Theorems?|Lemmas?|Propositions?|Corollar(?:y|ies))\b")
RELATION = re.compile(
    r"\b(?:stays?|stayed|sits?|sat|lies?|lay|falls?|fell|drops?|dropped|rises?|rose|climbs?|remains?|lands?|"
    r"reach(?:es|ed)?)\b(?:\s+[\w'’*-]+){0,3}?\s+(?:above|below|inside|into|within|on|onto|under|over|close to|near)\b"
    r"|\bcoincides?\b|\b(?:rises?|grows?|increases?|decreases?|falls?|shrinks?) with\b|\borders? of magnitude\b"
    r"|\b(?:smaller|larger|greater|higher|lower|closer|farther) (?:for|than|under)\b"
    r"|\b(?:stays?|lies?|remains?|sits?) in (?:the|its|it)\b"
    r"|\b(?:reach(?:es|ed)?|leaves?|left|enters?|entered) (?:the|its|it)\b(?:\s+[\w-]+)?\s+(?:floor|band|margin)\b",
    re.IGNORECASE)
CONDITION = re.compile(r"(?:\b(?:where|when|if|whose|which|would|why|how)\b[^.;:]*"
                       r"|\b(?:must|should|could|can|cannot|may|might|to)\s+(?:not\s+)?(?:\w+\s+)?)$", re.IGNORECASE)
LEGEND = re.compile(r"(?:^\s*:|[✓✗○][^.;✓✗○]{0,25}$)")
TITLES = ("What holds and what differs", "Why Static Rank Fails and Attention-Native Rank Recovers")
# On the capacity sweep's page and in the intro a count or a rank is the data's: an integer typed there, outside a
# label (Table R10.1, §7), is a result typed by hand; a level in whole percent ("its 90 % interval") and a multiple or
# a fraction of a symbol ("2δ", "δ/2") are the method's.
INTEGER_PAGES = ("text_rank", "intro")
INTEGER = re.compile(r"(?<![\w.,$/−-])\d+(?:,\d{3})*(?![\w.,]?\d|[^\W\d_]|\s?%)")


def _said(pattern: re.Pattern, text: str, unless: tuple[re.Pattern, ...] = ()) -> re.Match | None:
    """The first match of ``pattern`` in ``text`` that says something: not after a ``QUESTION``, a ``LEGEND`` or any
    pattern of ``unless`` that ends where it starts."""
    return next((m for m in pattern.finditer(text)
                 if not any(p.search(text[:m.start()]) for p in (QUESTION, LEGEND, *unless))), None)


def _placed(text: str) -> re.Match | None:
    """The first ``RELATION`` of ``text`` said as a result: not in a question, a legend, a condition or a rule, nor in
    a sentence that names the theorem it states."""
    if text.rstrip().endswith("?") or THEOREM.search(text):
        return None
    return _said(RELATION, text, unless=(CONDITION,))


def typed_results(folder: Path) -> list[str]:
    """Verdicts, directions of a result and numbers of a result in the prose typed by hand (module docstring)."""
    paper = _paper_text()
    problems = []
    for path in _pages(folder):
        name = str(path.relative_to(folder))
        strict = path.stem if path.stem in RESULT_PAGES else None
        for sentence, evidence, kind in typed_blocks(path):
            said = f"{name}: {sentence[:160]!r}"
            if found := VERDICT.search(sentence):
                problems.append(f"a verdict typed by hand ({found[0]!r}) in {said}")
            ours = QUOTED.sub(" ", sentence)
            for title in TITLES:
                ours = ours.replace(title, " ")
            read = bool(strict)
            # elsewhere a sentence that carries a claim's reference states the paper's claim, its verdict beside it;
            # on a result page it says the claim as the paper's
            as_the_papers = ATTRIBUTED.search(ours) and not FIRST_PERSON.search(ours)
            licensed = REFERENCE in sentence and (not read or as_the_papers)
            if not licensed and ((found := PARTIAL.search(ours))
                                 or ((evidence or read) and (found := _said(DIRECTION, ours)))):
                problems.append(f"a result's direction typed by hand ({found[0]!r}) in {said}")
            elif read and not licensed and any(found := _said(pattern, ours) for pattern in (
                    COMPARED, OTHER_WORDS, NEGATED_RESULT, COUNT)):
                problems.append(f"a result typed by hand in other words ({found[0]!r}) in {said}")
            elif read and not licensed and (found := _placed(ours)):
                problems.append(f"where a result lies typed by hand ({found[0]!r}) in {said}")
            if read and strict in INTEGER_PAGES:
                problems += [f"a count or a rank typed by hand ({match[0]!r}) in {said}"
                             for match in INTEGER.finditer(ours) if not LABELS.search(ours[:match.start()])]
            for match in NUMBER.finditer(sentence if kind != "caption" else ""):  # a caption's numbers: its code's
                if LABELS.search(sentence[:match.start()]):
                    continue
                if not in_paper(match[0], paper):
                    problems.append(f"a number typed by hand ({match[0]!r}) in {said}")
    return problems


# --- tables that state a verdict a second way ----------------------------------------------------------------------

MARK_OF = {"reproduced": "✓", "claim holds, value differs": "✓", "not reproduced": "✗", "not significant": "○",
           "undecided": "○", "undefined": "—"}


def _table_rows(table) -> tuple[list[str], list[list[str]]]:
    headers = [" ".join(th.get_text(" ").split()) for th in table.select("thead th")]
    rows = [[" ".join(td.get_text(" ").split()) for td in tr.find_all(["td", "th"])] for tr in table.select("tbody tr")]
    return headers, rows


def marks_contradicted(folder: Path) -> list[str]:
    """App. B's readings table against its main table: under the main reading each claim's mark is the one its
    verdict means (✓ reproduced or holds, ✗ not reproduced, ○ not significant or undecided), claim by claim in the
    order both tables list them."""
    path = folder / "build" / "sections" / "real_corpora.html"
    if not path.is_file():
        return []
    soup = _soup(path.read_text())
    main = soup.select_one("#tbl-real-corpora-appendix-b table") or soup.select_one("#tbl-real-corpora-appendix-b")
    if main is None:
        return ["App. B's page has no main table (tbl-real_corpora-appendix_b)"]
    headers, rows = _table_rows(main)
    verdicts = [row[headers.index("verdict")].rstrip("¹²³⁴⁵⁶⁷⁸⁹ ") for row in rows]
    marks = []
    for figure in soup.select("figure.entropic-table"):
        table = figure.select_one("table")
        if table is None:
            continue
        heads, body = _table_rows(table)
        if heads[:1] == ["reading"]:
            row = next((r for r in body if r and r[0] == "main"), None)
            if row is not None:
                marks += list(zip(heads[1:], row[1:], strict=False))
    if len(marks) != len(verdicts):
        return [f"App. B's readings tables mark {len(marks)} claims under the main reading, its main table judges "
                f"{len(verdicts)}"]
    return [f"App. B: “{claim}” is marked {mark} under the main reading, but its verdict is {verdict}"
            for (claim, mark), verdict in zip(marks, verdicts, strict=True)
            if MARK_OF.get(verdict) not in (mark, None) and mark]


# --- the abstract against the ledger --------------------------------------------------------------------------------

COUNTS = re.compile(r"(?P<reproduced>\d+) reproduce and (?P<holds>\d+) hold with a different value"
                    r"(?:; (?P<failed>\d+) fails? on our data(?: \((?P<sides>[^)]*)\))?)?")


def abstract_contradicted(folder: Path) -> list[str]:
    """The abstract's counts of claims that reproduce, hold with another value and fail, and where its failures
    lie (App. B's data statistics, its trained models), against the ledger's table of every claim."""
    intro, ledger = folder / "build" / "sections" / "intro.html", folder / "build" / "sections" / "ledger.html"
    if not intro.is_file() or not ledger.is_file():
        return []
    abstract = " ".join((_soup(intro.read_text()).select_one(".abstract") or _soup("")).get_text(" ").split())
    said = COUNTS.search(abstract)
    if said is None:
        return ["the abstract states no count of verdicts"]
    rows = []
    for table in _soup(ledger.read_text()).select("table"):
        headers, body = _table_rows(table)
        if "paper says" in headers and "computed by" in headers:
            at = headers.index("verdict, decided in"), headers.index("computed by")
            rows += [(row[at[0]], row[at[1]]) for row in body]
    counted = {"reproduced": sum(v.startswith("reproduced") for v, _ in rows),
               "holds": sum(v.startswith("claim holds, value differs") for v, _ in rows),
               "failed": sum(v.startswith("not reproduced") for v, _ in rows)}
    problems = [f"the abstract says {said[k]} {k}, the ledger has {n}" for k, n in counted.items()
                if said[k] is not None and int(said[k]) != n]
    if said["failed"] is None and counted["failed"]:
        problems.append(f"the abstract names no failure, the ledger has {counted['failed']}")
    failing = [side for verdict, side in rows if verdict.startswith("not reproduced")]
    if said["sides"] is not None:
        data = sum(side == "data statistic" for side in failing)
        for number, what in re.findall(r"(\d+|all|none) on ([^,;]+)", said["sides"]):
            expected = data if "statistic" in what else len(failing) - data
            if (number == "all" and expected != len(failing)) or (number.isdigit() and int(number) != expected):
                problems.append(f"the abstract says {number} on {what}; the ledger has {expected} of {len(failing)}")
    elif "all on" in abstract:
        problems.append("the abstract places every failure on one side without counting it")
    return problems


# --- configuration tables and the banner ------------------------------------------------------------------------------

OURS = re.compile(r"our choice|the paper states none|not stated by the paper|\(ours\)", re.IGNORECASE)
BANNER = re.compile(r"Its parameters are the paper's where it states them \((\d+) of (\d+)\)|"
                    r"Its parameters are the paper's(?! where)")


def configuration_contradicted(folder: Path) -> list[str]:
    """A configuration table gives a paper's value only where the paper states one (a description that calls the
    value ours has "not stated" in the paper column), and the banner's count of the parameters the paper states is
    the table's."""
    problems = []
    for path in _pages(folder):
        soup = _soup(path.read_text())
        name = str(path.relative_to(folder))
        for table in soup.select("table"):
            headers, rows = _table_rows(table)
            if headers[:3] != ["parameter", "value", "paper"] or "description" not in headers:
                continue
            described = headers.index("description")
            stated = 0
            for row in rows:
                paper = row[2]
                stated += not paper.startswith("not stated")
                if OURS.search(row[described]) and not paper.startswith("not stated"):
                    problems.append(f"{name}: {row[0]!r} is described as ours but its paper column says {paper!r}")
            text = " ".join(soup.get_text(" ").replace("’", "'").split())
            for match in BANNER.finditer(text):
                if match[1] is None:
                    problems.append(f"{name}: the banner calls every parameter the paper's, the table holds "
                                    f"{len(rows) - stated} the paper does not state")
                elif (int(match[1]), int(match[2])) != (stated, len(rows)):
                    problems.append(f"{name}: the banner says the paper states {match[1]} of {match[2]} parameters, "
                                    f"the table {stated} of {len(rows)}")
    return problems


# --- grammar of generated sentences ---------------------------------------------------------------------------------

GRAMMAR = [
    (re.compile(r"\w\(s\)"), "a plural left open"),
    (re.compile(r"(?<![\d.,])1 (students|corpora|claims|threads|jobs|seeds|entries|tasks|models|cells|tables|"
                r"figures|settings|readings|widths|hours)\b"), "one with a plural noun"),
    (re.compile(r"\band (the )?\w+ of this page (reads|holds|shows|gives)\b|"
                r"(?:^|\. )(These|Both) [^.;:()]{0,80}?\b(reads|holds|shows|gives)\b"),
     "a plural subject with a singular verb"),
    (re.compile(r"\b(?!that\b)(\w+) \1\b", re.IGNORECASE), "a word repeated"),
]


def grammar(folder: Path) -> list[str]:
    """Number agreement and doubled words in every paragraph, list item and caption of every page (generated and
    typed alike; tables and controls aside)."""
    problems = []
    for path in _pages(folder):
        soup = _soup(path.read_text())
        article = soup.select_one("article") or soup
        for element in article.select("script, style, pre, code, span.math, div.math, mjx-container, table, button, "
                                      ".claim-ref"):  # a claim's reference: badges, not words
            element.decompose()
        for block in article.find_all(["p", "li", "figcaption", "caption"]):
            if block.find(["p", "li"]):
                continue
            text = " ".join(block.get_text(" ").split())
            for pattern, what in GRAMMAR:
                for match in pattern.finditer(text):
                    if what == "a word repeated" and (match[1].isdigit() or len(match[1]) < 3):
                        continue
                    problems.append(f"{path.relative_to(folder)}: {what}: "
                                    f"…{text[max(0, match.start() - 40):match.end() + 20]}…")
    return problems


# --- claims: a sentence on a claim carries its reference --------------------------------------------------------------

# the pages whose sentences speak of the paper's claims (the ledger's): the result pages but the capacity sweep's, whose
# outcomes are this book's hypotheses
CLAIM_PAGES = tuple(name for name in RESULT_PAGES if name != "text_rank")
# Where the paper makes a claim (the ledger's "where" column: §4–§7, Tables 1–5, App. B, C.1 and D) ...
LOCATION = re.compile(r"§\s?[4-7]\b|\bTables? [1-5]\b|\bApp(?:\.|endix) (?:B|D|C\.1)\b")
# ... unless the sentence names the place for its setting: "the §4 task", "the Table 4 softmax grid", "§5 sizes".
SETTING = re.compile(r"^(?:\.\d+)?(?:'s|’s)?(?:\s+[\w-]+){0,2}?\s+(?:task|tasks|sizes|setting|settings|grid|teacher|"
                     r"teachers|protocol|convention|architecture|corpora|target|fixed operators?|students?|"
                     r"estimators?|ladder|spectrum|spectra|models?)\b", re.IGNORECASE)
# A result said in other words than the verdicts' and the directions' own: a verb of agreement, a count of claims
# or cases typed as words or integers, a negated result.
OTHER_WORDS = re.compile(r"\b(confirm(?:s|ed)?|replicat(?:es?|ed)|refut(?:es?|ed)|borne out|verifie[sd]|"
                         r"matches the paper|as the paper (?:finds|found|reports|reported|says|claims)|"
                         r"contrary to the paper|contradicts?|upheld|overturn(?:s|ed)?)\b", re.IGNORECASE)
NUMERAL = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
COUNT = re.compile(rf"\b(?:{NUMERAL}|all|none|half|most) of (?:the |its |these |our )?(?:{NUMERAL} )?(?:claims|corpora|"
                   r"tasks|ranks|verdicts|settings|estimators|regimes|rungs|cells|seeds|tables)\b", re.IGNORECASE)
NEGATED_RESULT = re.compile(r"(?<!\bcan )(?<!\bmay )\b(?:(?:does|do|did|is|are|was|were)(?: not|n't)|no longer|never|"
                            r"fails? to)\s+(?:\w+\s+)?(hold|track|transfer|recover|reach|separate|correlate|predict|"
                            r"restore|reproduce|exceed|saturate)s?\b", re.IGNORECASE)

# One of the claims' properties said to hold or fail ("recovery tracks the teacher's energy rank"): the legend of a
# mark ("✓ the claim holds under it") and the method ("whether the paper's claim holds") name no property.
CLAIMED = re.compile(r"\b(?:deficiency|achievability|recovery|predictability|tightness|the bound|the transitions?|"
                     r"(?:the )?energy effective rank)\b[^.;:]{0,60}?\b(?:holds?|fails?|tracks?|reproduces?|"
                     r"recovers?|is reproduced|persists?)\b", re.IGNORECASE)


def refers_to_claim(sentence: str, kind: str) -> str | None:
    """What makes a typed sentence speak of a claim (None where nothing does): in prose, the place where the paper
    makes one named other than as its setting; in prose, a heading or a caption alike, a result in other words, a
    count of claims or cases, a negated result, or one of the paper's claimed properties with a direction
    ("deficiency, achievability and recovery hold"). (A heading or caption that names a place is its title.)"""
    ours = QUOTED.sub(" ", sentence)
    if kind == "prose":
        for match in LOCATION.finditer(ours):
            if not SETTING.match(ours[match.end():]):
                return f"names {match[0]!r}"
    for pattern, what in ((OTHER_WORDS, "says a result in other words"), (COUNT, "counts"),
                          (NEGATED_RESULT, "negates a result"), (CLAIMED, "states a result")):
        if found := pattern.search(ours):
            return f"{what} ({found[0]!r})"
    return None


def claims_unreferenced(folder: Path) -> list[str]:
    """Every typed sentence, heading, admonition and caption of the pages that speak of the paper's claims which
    refers to a claim (``refers_to_claim``) carries the claim's reference, its current verdict beside it
    (``{glue:md}`claim_<section>_<key>```), or is generated from the ledger."""
    problems = []
    for name in CLAIM_PAGES:
        path = folder / "build" / "sections" / f"{name}.html"
        if not path.is_file():
            continue
        for sentence, _, kind in typed_blocks(path):
            if REFERENCE not in sentence and (why := refers_to_claim(sentence, kind)):
                problems.append(f"a sentence on a claim without its reference (it {why}) in "
                                f"build/sections/{name}.html: {sentence[:160]!r}")
    return problems


def _ledger_verdicts(folder: Path) -> dict[str, list[str]]:
    """Each claim's verdicts in the ledger's table, its rows' in order, by the claim's anchor there."""
    path = folder / "build" / "sections" / "ledger.html"
    found: dict[str, list[str]] = {}
    if not path.is_file():
        return found
    current = None
    for row in _soup(path.read_text()).select("table tbody tr"):
        anchor = row.select_one("span[id^=claim-]")
        badge = row.select_one(".sd-badge")
        current = anchor["id"] if anchor else current
        if current and badge is not None:
            found.setdefault(current, []).append(" ".join(badge.get_text(" ").split()))
    return found


def claim_references_contradicted(folder: Path) -> list[str]:
    """Every claim reference of every page names a claim the ledger lists, links its row there, and shows the
    verdicts its rows give, no other."""
    ledger = _ledger_verdicts(folder)
    if not ledger:
        return []
    problems = []
    for path in _pages(folder):
        name = str(path.relative_to(folder))
        for reference in _soup(path.read_text()).select(".claim-ref"):
            claim = reference.get("data-claim", "")
            anchor = claim_anchor(claim)
            shown = [" ".join(b.get_text(" ").split()) for b in reference.select(".sd-badge")]
            if anchor not in ledger:
                problems.append(f"{name}: a reference to the claim {claim!r}, which the ledger does not list")
            elif not reference.get("href", "").endswith(f"#{anchor}"):
                problems.append(f"{name}: the reference to {claim!r} does not link its row in the ledger")
            elif shown != list(dict.fromkeys(ledger[anchor])):
                problems.append(f"{name}: the reference to {claim!r} shows {', '.join(shown) or 'no verdict'}, the "
                                f"ledger {', '.join(dict.fromkeys(ledger[anchor]))}")
    return problems
