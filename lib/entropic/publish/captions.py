"""The book's tables in HTML: each caption above the box that scrolls, never inside it.

The theme puts a wide table in a box that scrolls sideways (``pst-scrollable-table-container``) with its
``<caption>`` inside the table, so on a phone the caption scrolls away with the columns and is cut
mid-sentence. This Sphinx extension (listed in ``_config.yml``) rewrites every captioned table of a page
into a ``<figure class="entropic-table">`` whose ``<figcaption>`` (number, text, link) sits above that
box; the figure takes the table's id, so a cross-reference lands on the caption. Used by every build of
the book (``publish.build``), the single page that ``publish.pdf`` prints included.
"""

from __future__ import annotations

import re

TABLE = re.compile(
    r'<div class="pst-scrollable-table-container">(?P<open><table(?P<attrs>[^>]*)>)\s*'
    r"<caption>(?P<caption>.*?)</caption>(?P<rest>.*?</table>\s*</div>)", re.DOTALL)
ID = re.compile(r'\s+id="(?P<id>[^"]*)"')


def _lift(match: re.Match) -> str:
    attrs = match["attrs"]
    found = ID.search(attrs)
    ident = f' id="{found["id"]}"' if found else ""
    table = "<table" + ID.sub("", attrs, count=1) + ">"
    return (f'<figure class="entropic-table"{ident}>\n<figcaption>{match["caption"]}</figcaption>\n'
            f'<div class="pst-scrollable-table-container">{table}{match["rest"]}\n</figure>')


def lift_captions(body: str) -> str:
    """Every captioned table of ``body`` (a page's HTML) as a figure with its caption above the scrolling
    box; tables without a caption are left as they are."""
    return TABLE.sub(_lift, body)


def _page_context(app, pagename, templatename, context, doctree) -> None:
    if "body" in context:
        context["body"] = lift_captions(context["body"])


def setup(app):
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
