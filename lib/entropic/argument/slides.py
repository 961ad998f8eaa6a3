"""The lesson's slides: a reveal.js deck in one HTML file that opens offline (used by ``argument.lesson``).

:func:`deck_notebook` lays the lesson (``lesson.lesson_parts``) out as a notebook whose cells carry reveal.js
slide types: a title slide, the learning goals, the path (its take-aways left for the blocks), then per block a
slide with its one picture, one prompt slide per exercise (no solution: those stay on the page) and a take-away
slide, and at the end the discussion questions, the summary and the key formulas. :func:`write_deck` exports it
with nbconvert's reveal.js exporter and a template that writes reveal.js (the files the ``sphinx-revealjs``
package ships, reveal.js 5) and MathJax 3 (``django-static-mathjax``'s SVG bundle, which needs no font files)
into the page, so that the one file opens from a download, offline. The pictures are PNG data.
"""

from __future__ import annotations

import base64
import importlib.util
import io
import re
from pathlib import Path

from .lesson_text import exercises, plain

MATHJAX_CONFIG = ("window.MathJax = {tex: {inlineMath: [['\\\\(', '\\\\)']]}, "
                  "svg: {fontCache: 'global'}};")
CSS = """
.reveal .slides { text-align: left; }
.reveal h1, .reveal h2 { text-transform: none; } a.anchor-link { display: none; }
.reveal h1 { font-size: 1.6em; } .reveal h2 { font-size: 1.15em; margin-bottom: 0.5em; }
.reveal .jp-RenderedHTMLCommon { font-size: 26px; line-height: 1.35; }
.reveal .jp-RenderedHTMLCommon table { font-size: 20px; }
.reveal .jp-OutputArea-output img { width: 100%; height: 500px; object-fit: contain; display: block; margin: 0 auto; }
.reveal .jp-Cell { padding: 0; }
"""
TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block header -%}
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>{{ resources.lesson.title }}</title>
{% for css in resources.inlining.css -%}<style>{{ css }}</style>{% endfor %}
{{ resources.include_css("static/index.css") }}
{{ resources.include_css("static/theme-light.css") }}
{{ resources.include_css("static/custom_reveal.css") }}
<style>{{ resources.lesson.reveal_css }}</style>
<style>{{ resources.lesson.theme_css }}</style>
<style>{{ resources.lesson.css }}</style>
<script>{{ resources.lesson.mathjax_config }}</script>
<script>{{ resources.lesson.mathjax }}</script>
</head>
{%- endblock header -%}
{% block data_png scoped %}
<div class="jp-RenderedImage jp-OutputArea-output"><img src="data:image/png;base64,{{ output.data['image/png'] }}"
 alt="{{ output.data['text/plain'] | escape_html }}"></div>
{% endblock data_png %}
{% block footer_js %}
<script>{{ resources.lesson.reveal_js }}</script>
<script>Reveal.initialize({hash: true, slideNumber: false, transition: 'none', width: 1280, height: 800,
                           margin: 0.04});</script>
{% endblock footer_js %}
"""


# What the deck's prose holds: a script, a style, code or a tag (its attributes: an alt text's formula stays
# words of TeX), kept as they are; display math ($$...$$); inline math ($...$).
_PROSE_MATH = re.compile(r"<(script|style|pre|code)\b.*?</\1>|(<[^>]*>)|\$\$(.+?)\$\$|(?<!\\)\$(.+?)(?<!\\)\$", re.S)


def marked_math(html: str) -> str:
    """``html`` with every formula of its prose marked as the book's pages mark theirs: ``$x$`` becomes
    ``<span class="math notranslate nohighlight">\\(x\\)</span>``, ``$$x$$`` the same with ``\\[x\\]``; scripts,
    styles, code and the attributes of tags are left as they are. MathJax typesets the marked spans."""
    def mark(match: re.Match) -> str:
        if match[1] or match[2]:
            return match[0]
        tex, (start, end) = (match[3], ("\\[", "\\]")) if match[3] is not None else (match[4], ("\\(", "\\)"))
        return f'<span class="math notranslate nohighlight">{start}{tex}{end}</span>'

    return _PROSE_MATH.sub(mark, html)


# Hosts that serve scripts, styles or fonts on the web: the deck names none of them. MathJax's bundle holds the
# addresses of its speech rule engine's optional files on jsDelivr (fetched only when a reader turns speech on
# in its menu); they are cut down to names, so that an offline deck holds no address it could fetch.
CDN = re.compile(r"https?://(?:[\w-]+\.)*(?:jsdelivr\.net|unpkg\.com|cdnjs\.cloudflare\.com|googleapis\.com"
                 r"|gstatic\.com|cdn\.[\w.-]+)/?")


def without_cdn(text: str) -> str:
    """``text`` with every address on a web host of scripts and fonts (``CDN``) cut down to its path."""
    return CDN.sub("", text)


def package_folder(name: str) -> Path:
    """The folder of an installed package (found without importing it)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the lesson's slides need the package {name!r}: pip install 'entropic[book]'")
    return Path(spec.submodule_search_locations[0])


def mathjax_script() -> Path:
    """MathJax 3's TeX-to-SVG bundle, from the ``django-static-mathjax`` package."""
    return package_folder("mathjax") / "static" / "mathjax" / "es5" / "tex-svg.js"


def figure_png(figure, dpi: int = 200) -> bytes:
    """A Matplotlib figure as PNG bytes (what a slide shows)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return buffer.getvalue()


def without_last_column(table: str) -> str:
    """A Markdown pipe table without its last column."""
    return "\n".join("|".join(line.rstrip().rstrip("|").split("|")[:-1]) + "|" if line.startswith("|") else line
                     for line in table.splitlines())


def deck_notebook(parts: dict, pictures: dict[str, bytes], values: dict):
    """The lesson as a notebook of reveal.js slides (see the module docstring); ``pictures`` maps each block's
    figure name to its PNG, ``values`` what the lesson's text pastes (``lesson_text.plain``)."""
    import nbformat

    def slide(markdown: str, kind: str = "slide"):
        return nbformat.v4.new_markdown_cell(markdown, metadata={"slideshow": {"slide_type": kind}})

    cells = [slide(f"# {plain(parts['title'], values)}\n\nA 50-minute lesson. Predict before you compute: every "
                   f"exercise's solution is computed on the book's page."),
             slide(f"## Learning goals\n\n{plain(parts['goals'], values)}"),
             slide(f"## The path\n\n{without_last_column(plain(parts['path'], values))}")]
    number_of = {e["label"]: k for k, e in enumerate(exercises(parts), start=1)}
    for block in parts["blocks"]:
        if block["picture"] not in pictures:
            raise ValueError(f"no picture {block['picture']!r} for the block {block['title']!r}")
        title = plain(block["title"], values)
        cells.append(slide(f"## {title}"))
        image = base64.b64encode(pictures[block["picture"]]).decode()
        cells.append(nbformat.v4.new_code_cell("", metadata={"slideshow": {"slide_type": "-"}}, outputs=[
            nbformat.v4.new_output("display_data", data={"image/png": image, "text/plain": block["alt"]})]))
        for exercise in block["exercises"]:
            cells.append(slide(f"## Exercise {number_of[exercise['label']]}: {plain(exercise['title'], values)}\n\n"
                               f"*Predict first, then compute.*\n\n{plain(exercise['prompt'], values)}"))
        if block["takeaway"]:
            cells.append(slide(f"## Take-away: {title}\n\n{plain(block['takeaway'], values)}"))
    cells += [slide(f"## Discussion\n\n{plain(parts['discussion'], values)}"),
              slide(f"## Summary\n\n{plain(parts['summary'], values)}"),
              slide(f"## Key formulas\n\n{plain(parts['formulas'], values)}")]
    return nbformat.v4.new_notebook(cells=cells, metadata={"title": plain(parts["title"], values)})


def slide_count(notebook) -> int:
    """The number of slides of a :func:`deck_notebook`."""
    return sum(c.metadata.get("slideshow", {}).get("slide_type") == "slide" for c in notebook.cells)


def write_deck(notebook, target: Path) -> Path:
    """Export the slides ``notebook`` (:func:`deck_notebook`) with nbconvert's reveal.js exporter to ``target``,
    one HTML file that loads nothing from outside itself (the theme's ``@import`` lines, which would fetch web
    fonts, are left out), names no web host of scripts or fonts (``CDN``; a deck that would raises
    ``ValueError``) and links nowhere (the headings' anchor links are left out)."""
    import jinja2
    from nbconvert import SlidesExporter

    reveal = package_folder("sphinx_revealjs") / "_static" / "revealjs"
    theme = (reveal / "dist" / "theme" / "white.css").read_text()
    lesson = {"title": notebook.metadata.get("title", "Lesson"), "css": CSS, "mathjax_config": MATHJAX_CONFIG,
              "mathjax": without_cdn(mathjax_script().read_text()),
              "reveal_js": (reveal / "dist" / "reveal.js").read_text(),
              "reveal_css": (reveal / "dist" / "reveal.css").read_text(),
              "theme_css": re.sub(r"^@import .*$", "", theme, flags=re.M)}
    for name in ("mathjax", "reveal_js"):
        if "</script" in lesson[name]:
            raise ValueError(f"{name} holds '</script', which would end its inline script early")
    exporter = SlidesExporter(extra_loaders=[jinja2.DictLoader({"lesson.html.j2": TEMPLATE})],
                              template_file="lesson.html.j2", exclude_input=True, exclude_input_prompt=True,
                              exclude_output_prompt=True)
    body, _ = exporter.from_notebook_node(notebook, resources={"lesson": lesson})
    body = re.sub(r'<a class="anchor-link" href="[^"]*">[^<]*</a>', "", body)  # a slide needs no link to itself
    body = marked_math(body)
    if found := CDN.search(body):
        raise ValueError(f"the slides would name a web host of scripts or fonts: {found[0]!r}")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(body)
    return target
