"""The lesson's words, read from the teaching chapter's MyST (``notebooks/teaching.md``), its one source: the
slides (``argument.slides``) and the handout (``argument.handout``) take their text from here, so they cannot
drift from the page.

MyST comment lines, which the page does not show, mark the chapter's parts: ``% lesson: goals``,
``% lesson: path``, ``% lesson: discussion``, ``% lesson: summary`` and ``% lesson: formulas`` open a part and
``% lesson: end`` closes it. Every ``##`` section that holds a figure (outside its solutions and folds) is a
block of the lesson: its first figure, its paragraph that opens with ``**Take-away.**`` and its ``exercise``
directives. The solutions (between ``solution-start`` and ``solution-end``) never leave the page.
"""

from __future__ import annotations

import re

from ..report.numbers import number

PARTS = ("goals", "path", "discussion", "summary", "formulas")
MARK = re.compile(r"^% lesson: (\w+)\s*$", re.M)
ROLE = re.compile(r"\{(?P<role>[\w:-]+)\}`(?P<content>[^`]*)`")
EXERCISE = re.compile(r"^```\{exercise\} (?P<title>.+)\n:label: (?P<label>\S+)\n(?P<body>.*?)^```$", re.M | re.S)
SOLUTION = re.compile(r"^```\{solution-start\}.*?^```\{solution-end\}\n```$", re.M | re.S)
FOLD = re.compile(r"^(:{3,})\{dropdown\}.*?^\1$", re.M | re.S)
# a figure's name and alt text: a code cell's ``mystnb`` options, or a ``glue:figure`` directive's
FIGURE = re.compile(r"^(?:\s+name|:name): (fig-[\w-]+)\n(?:(?:\s+image:\n\s+alt|:alt): (.+)\n)?", re.M)
TAKEAWAY = re.compile(r"^\*\*Take-away\.\*\* (.+?)(?:\n\n|\Z)", re.M | re.S)
CODE = re.compile(r"^```\{code-cell\}.*?^```$", re.M | re.S)


def plain(text: str, values: dict, mark: bool = False) -> str:
    """MyST ``text`` as plain Markdown: ``{glue:md}`name:myst``` becomes ``values[name]`` (a number as the book
    writes numbers; with ``mark``, in a ``generated`` span, as the book marks what its data write, so that the book's
    sentence check can tell the lesson's typed words from its pasted ones), ``{ref}``/``{doc}``/``{numref}`` with
    an explicit text keep that text. Any other role, or a glued name without a value, raises ``ValueError``: a slide
    could not show it."""

    def one(match: re.Match) -> str:
        role, content = match["role"], match["content"]
        if role == "glue:md":
            name = content.removesuffix(":myst")
            if name not in values:
                raise ValueError(f"the lesson's text pastes {name!r}, which the page did not pass")
            value = values[name]
            value = value if isinstance(value, str) else number(value)
            return f'<span class="generated">{value}</span>' if mark else value
        text = re.fullmatch(r"(?s)(.+?)\s*<[^<>]+>", content)
        if role in ("ref", "doc", "numref") and text:
            return text[1]
        raise ValueError(f"the lesson's text uses the role {{{role}}}`{content}`, which a slide cannot show: "
                         f"give it an explicit text (`text <target>`)")

    return ROLE.sub(one, text).strip()


def _part(text: str, name: str) -> str:
    """The Markdown between ``% lesson: name`` and the next ``% lesson: end``."""
    found = re.search(rf"^% lesson: {name}\s*\n(.*?)^% lesson: end\s*$", text, re.M | re.S)
    if found is None:
        raise ValueError(f"the chapter marks no part '{name}' (a line '% lesson: {name}' … '% lesson: end')")
    return found[1].strip()


def spoken(text: str) -> str:
    """``text`` with its inline formulas as the words an alt text carries: ``$r^*$`` becomes ``r*`` (the
    delimiters, braces and the backslashes of commands dropped)."""
    def words(match: re.Match) -> str:
        return re.sub(r"[{}]|\\(?=[A-Za-z])", "", match[1].replace("^*", "*"))

    return re.sub(r"\$([^$]+)\$", words, text)


def lesson_parts(text: str) -> dict:
    """The lesson's parts in the chapter's MyST ``text`` (see the module docstring): ``title``, the ``PARTS`` as
    MyST (of ``path`` its table's rows alone), and ``blocks``, one per section with a picture: ``title``,
    ``picture`` (its first figure's name), ``alt`` (that figure's alt text, its formulas in words: :func:`spoken`),
    ``takeaway`` and ``exercises`` (``label``, ``title``, ``prompt``)."""
    unknown = set(MARK.findall(text)) - {*PARTS, "end"}
    if unknown:
        raise ValueError(f"unknown lesson parts {sorted(unknown)}; expected {PARTS}")
    title = re.search(r"^# (.+)$", text, re.M)
    parts = {"title": title[1].strip() if title else "", **{name: _part(text, name) for name in PARTS}}
    # the path is a numbered table on the page ({table} directive): the lesson keeps its rows
    parts["path"] = "\n".join(line for line in parts["path"].splitlines() if line.startswith("|"))
    shown = FOLD.sub("", SOLUTION.sub("", text))  # what a block shows: no solution, no fold
    blocks = []
    for section in re.split(r"^## ", shown, flags=re.M)[1:]:
        heading, body = section.split("\n", 1)
        picture = FIGURE.search(body)
        if picture is None:
            continue
        takeaway = TAKEAWAY.search(body)
        alt = (picture[2] or "").strip()
        alt = alt[1:-1].replace("''", "'") if alt.startswith("'") and alt.endswith("'") else alt
        blocks.append({"title": heading.strip(), "picture": picture[1], "alt": spoken(alt or heading.strip()),
                       "takeaway": takeaway[1].strip() if takeaway else "",
                       "exercises": [{"label": m["label"], "title": m["title"].strip(), "prompt": m["body"].strip()}
                                     for m in EXERCISE.finditer(body)]})
    if not blocks:
        raise ValueError("the chapter has no section with a picture: the lesson has no block")
    return {**parts, "blocks": blocks}


def exercises(parts: dict) -> list[dict]:
    """Every exercise of the lesson, in the order of its blocks."""
    return [exercise for block in parts["blocks"] for exercise in block["exercises"]]


def solution_texts(text: str) -> list[str]:
    """The prose of every gated solution of the chapter (its Markdown outside code cells), one string each."""
    out = []
    for solution in SOLUTION.findall(text):
        prose = re.sub(r"^```\{solution-(start|end)\}.*?^```$", "", CODE.sub("", solution), flags=re.M | re.S)
        out.append(prose.strip())
    return out
