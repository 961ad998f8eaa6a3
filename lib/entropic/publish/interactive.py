"""The explorables' JavaScript in the book: Bokeh's own files, from the installed ``bokeh`` package, served beside the
book (no CDN) and loaded only by the pages that show an explorable (``argument.explorables``), when one first comes
near the screen.

This Sphinx extension (listed in ``_config.yml``) copies ``bokeh.min.js`` and ``bokeh-widgets.min.js`` into the build's
``_static/bokeh/<version>/`` and adds the book's loader (``_assets/explorables.js``, which fetches them and draws each
explorable as it comes into view) to each page whose body holds an explorable; every build of the book, the single
page that ``publish.pdf`` prints included, goes through it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

FILES = ("bokeh.min.js", "bokeh-widgets.min.js")  # the core and its sliders and menus, in the order they load
LOADER = "explorables.js"  # in _assets (the book's static folder): loads FILES and draws each explorable
MARK = 'class="explorable"'  # what argument.explorables.as_html writes around each explorable


def _source() -> Path:
    import bokeh

    return Path(bokeh.__file__).parent / "server" / "static" / "js"


def _version() -> str:
    import bokeh

    return bokeh.__version__


def _page_context(app, pagename, templatename, context, doctree) -> None:
    if MARK in context.get("body", ""):
        app.add_js_file(LOADER, loading_method="defer", **{"data-bokeh": _version()})  # the text first


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
