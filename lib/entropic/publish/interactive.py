"""The explorables' JavaScript in the book: Bokeh's own files, from the installed ``bokeh`` package, served beside the
book (no CDN) and loaded only by the pages that show an explorable (``argument.explorables``).

This Sphinx extension (listed in ``_config.yml``) copies ``bokeh.min.js`` and ``bokeh-widgets.min.js`` into the build's
``_static/bokeh/`` and adds them to the head of each page whose body holds an explorable; every build of the book, the
single page that ``publish.pdf`` prints included, goes through it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

FILES = ("bokeh.min.js", "bokeh-widgets.min.js")  # the core and its sliders and menus, in the order they load
MARK = 'class="explorable"'  # what argument.explorables.as_html writes around each explorable


def _source() -> Path:
    import bokeh

    return Path(bokeh.__file__).parent / "server" / "static" / "js"


def _version() -> str:
    import bokeh

    return bokeh.__version__


def _page_context(app, pagename, templatename, context, doctree) -> None:
    if MARK in context.get("body", ""):
        for name in FILES:
            app.add_js_file(f"bokeh/{_version()}/{name}", loading_method="defer")  # the text first


def _copy(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        target = Path(app.outdir) / "_static" / "bokeh" / _version()
        target.mkdir(parents=True, exist_ok=True)
        for name in FILES:
            shutil.copy2(_source() / name, target / name)


def setup(app):
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
