"""What the published book says about itself: its repository, site, version, build date and commit.

The book is built with a configuration derived from ``_config.yml`` (:func:`book_config`): the repository
its buttons link to (``ENTROPIC_REPOSITORY``, which the publishing workflow sets to the repository it
runs in, else ``repository.url`` of ``_config.yml``), and a footer on every page with the licences, the
package version, the build date, the commit and a link to the PDF. The launch cell of each downloadable
notebook (``book.downloadable``) installs the project from the same repository at the same commit.
Used by ``publish.build`` (and so by ``make book`` and ``make pdf``).
"""

from __future__ import annotations

import datetime
import os
import re
import subprocess
from pathlib import Path

from .. import __version__, paths

PDF_NAME = "entropic-bound.pdf"  # the whole book as one PDF, at the site's root (make pdf, the workflow)
CODE_LICENSE = "MIT"
TEXT_LICENSE = ("CC BY 4.0", "https://creativecommons.org/licenses/by/4.0/")


def _config(root: Path) -> dict:
    import yaml

    path = root / "_config.yml"  # a regular install has none: its repository is then unknown (repository_url says so)
    return (yaml.safe_load(path.read_text()) or {}) if path.is_file() else {}


def repository_url(root: Path = paths.ROOT) -> str:
    """The repository the book links to and launched notebooks install from (no trailing slash)."""
    url = os.environ.get("ENTROPIC_REPOSITORY") or (_config(root).get("repository") or {}).get("url", "")
    if not re.fullmatch(r"https://[\w.-]+/[\w.-]+/[\w.-]+", url.rstrip("/")):
        raise ValueError(f"the repository URL must read https://<host>/<owner>/<name>, got {url!r} (set "
                         f"repository.url in _config.yml or ENTROPIC_REPOSITORY)")
    return url.rstrip("/")


def commit() -> str | None:
    """The commit the book is built from: the workflow's ``GITHUB_SHA``, else the clone's HEAD (None when
    neither is known, as in a regular install)."""
    if re.fullmatch(r"[0-9a-f]{40}", os.environ.get("GITHUB_SHA", "")):
        return os.environ["GITHUB_SHA"]
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=paths.CHECKOUT, capture_output=True, text=True,
                              timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    sha = done.stdout.strip()
    return sha if done.returncode == 0 and re.fullmatch(r"[0-9a-f]{40}", sha) else None


def build_date() -> str:
    """Today (UTC), or ``SOURCE_DATE_EPOCH``'s day for a reproducible build."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = (datetime.datetime.fromtimestamp(int(epoch), datetime.UTC) if epoch
              else datetime.datetime.now(datetime.UTC))
    return moment.strftime("%Y-%m-%d")


PDF_LINK = "@ENTROPIC-PDF@"  # the PDF's address on a page, written relative to that page when it is built (setup)


def footer(repository: str, sha: str | None, date: str, version: str = __version__) -> str:
    """The line under every page: the licences, then version, build date, commit and the PDF (at the site's root,
    linked relative to each page: the published site's, or the local build's once ``make pdf`` has run)."""
    built = (f'built {date} from commit <a href="{repository}/commit/{sha}">{sha[:7]}</a>' if sha
             else f"built {date}")
    pdf = PDF_LINK
    return (f'<p class="entropic-footer">Text and figures: <a href="{TEXT_LICENSE[1]}">{TEXT_LICENSE[0]}</a>; '
            f'code: <a href="{repository}/blob/main/LICENSE">{CODE_LICENSE}</a>; the corpora of App. B keep '
            f'their own licences. entropic {version}, {built}. '
            f'<a href="{pdf}">The whole book as a PDF</a>.</p>')


def book_config(root: Path, target: Path, builder: str = "html") -> Path:
    """Write the configuration the book is built with: ``root/_config.yml`` with the repository, the
    footer and the PDF link of this build (see the module docstring), and for the single page that
    ``pdf`` prints, the Sphinx extension it needs (``publish.pdf``). Returns ``target``."""
    import yaml

    config = _config(root)
    repository = repository_url(root)
    config.setdefault("repository", {})["url"] = repository
    config.setdefault("html", {})["extra_footer"] = footer(repository, commit(), build_date())
    sphinx = config.setdefault("sphinx", {}).setdefault("config", {})
    sphinx.setdefault("myst_substitutions", {})["pdf"] = f'<a href="{PDF_LINK}">the whole book as one PDF</a>'

    sphinx["extensions"] = [*sphinx.get("extensions", []), "entropic.publish.site"]
    if builder == "singlehtml":
        sphinx["extensions"] = [*sphinx["extensions"], "entropic.publish.pdf"]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    return target


def _relative_pdf(app, pagename, templatename, context, doctree) -> None:
    """Every ``PDF_LINK`` of a page (its footer) as the PDF's address relative to that page."""
    address = context["pathto"](PDF_NAME, 1)
    for key, value in list(context.items()):
        if isinstance(value, str) and PDF_LINK in value:
            context[key] = value.replace(PDF_LINK, address)


def setup(app):
    """Sphinx extension of every build (``book_config`` lists it): the PDF linked relative to each page."""
    app.connect("html-page-context", _relative_pdf)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
