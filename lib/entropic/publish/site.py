"""What the published book says about itself: its repository, site, version, build date and commit.

The book is built with a configuration derived from ``_config.yml`` (:func:`book_config`). Its repository is one
setting, ``repository.url`` of ``_config.yml``, which the publishing workflow replaces with the repository it runs
in (``ENTROPIC_REPOSITORY``) and a publisher sets to the repository the book is published from. A book built where
neither names one (``repository.url`` empty, as committed) links no repository: no repository, issue or launch
buttons, a footer and provenance without links into a repository, downloadable notebooks that say where to install
the project from instead of naming an address. A published book's footer links the licence and the commit on every
page, and the launch cell of each downloadable notebook (``book.downloadable``) installs the project from that
repository at that commit. Every page's footer also names the package version, the build date and the PDF.
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


def published_url(root: Path = paths.ROOT) -> str | None:
    """The address the book is published at: the GitHub Pages site of its repository (``https://<owner>.github.io/
    <name>/``, what the publishing workflow deploys), or None when no repository is named (a local build)."""
    url = repository_url(root)
    if url is None:
        return None
    host, owner, name = url.removeprefix("https://").split("/")
    return f"https://{owner.lower()}.github.io/{name}/" if host == "github.com" else None


def repository_url(root: Path = paths.ROOT) -> str | None:
    """The repository the book is published from (no trailing slash): ``ENTROPIC_REPOSITORY``, else
    ``repository.url`` of ``_config.yml``; None when neither names one (a book built outside the publishing
    workflow, which then links no repository). A malformed address raises ``ValueError``."""
    url = os.environ.get("ENTROPIC_REPOSITORY") or (_config(root).get("repository") or {}).get("url") or ""
    if not url:
        return None
    if not re.fullmatch(r"https://[\w.-]+/[\w.-]+/[\w.-]+", url.rstrip("/")):
        raise ValueError(f"the repository URL must read https://<host>/<owner>/<name>, got {url!r} (set "
                         f"repository.url in _config.yml or ENTROPIC_REPOSITORY)")
    return url.rstrip("/")


def published_repository(root: Path = paths.ROOT) -> str:
    """The repository, where publishing needs one (the site, Binder's environment): ``ValueError`` without it."""
    url = repository_url(root)
    if url is None:
        raise ValueError("publishing needs the repository the book is published from: set repository.url in "
                         "_config.yml (the publishing workflow sets ENTROPIC_REPOSITORY)")
    return url


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


def citation(repository: str | None, root: Path = paths.ROOT, version: str = __version__) -> str:
    """BibTeX for this reproduction and for the paper it reproduces, as a page shows them: the reproduction's ``url``
    is the repository the book is published from, left out where none is named (``repository`` None)."""
    year = str(_config(root).get("copyright", "")).strip() or build_date()[:4]
    url = f"  url     = {{{repository}}},\n" if repository else ""
    return ("@software{entropic_reproduction,\n  author  = {{The entropic reproduction project}},\n"
            "  title   = {The Entropic Bound for Transformers --- an executable reproduction},\n"
            f"  version = {{{version}}},\n  year    = {{{year}}},\n{url}}}\n\n"
            "@misc{entropic_bound,\n"
            "  title         = {The Entropic Bound for Transformers: Why Static Rank Fails and Attention-Native Rank "
            "Recovers},\n  year          = {2026},\n  eprint        = {2607.23050},\n"
            "  archivePrefix = {arXiv},\n  url           = {https://arxiv.org/abs/2607.23050},\n}\n")


PDF_LINK = "@ENTROPIC-PDF@"  # the PDF's address on a page, written relative to that page when it is built (setup)


def footer(repository: str | None, sha: str | None, date: str, version: str = __version__) -> str:
    """The line under every page: the licences, then version, build date, commit and the PDF (at the site's root,
    linked relative to each page: the published site's, or the local build's once ``make pdf`` has run). The code's
    licence and the commit link into ``repository`` where the book is published from one, else they are named."""
    commit = (f'<a href="{repository}/commit/{sha}">{sha[:7]}</a>' if repository else sha[:7]) if sha else None
    built = f"built {date} from commit {commit}" if commit else f"built {date}"
    code = f'<a href="{repository}/blob/main/LICENSE">{CODE_LICENSE}</a>' if repository else CODE_LICENSE
    return (f'<p class="entropic-footer">Text and figures: <a href="{TEXT_LICENSE[1]}">{TEXT_LICENSE[0]}</a>; '
            f"code: {code}; the corpora of App. B keep their own licences. entropic {version}, {built}. "
            f'<a href="{PDF_LINK}">The whole book as a PDF</a>.</p>')


def book_config(root: Path, target: Path, builder: str = "html") -> Path:
    """Write the configuration the book is built with: ``root/_config.yml`` with the repository (or, where none is
    named, without its buttons), the footer and the PDF link of this build (see the module docstring), and for the
    single page that ``pdf`` prints, the Sphinx extension it needs (``publish.pdf``). Returns ``target``."""
    import yaml

    config = _config(root)
    repository = repository_url(root)
    config.setdefault("repository", {})["url"] = repository or ""  # "": not Jupyter Book's own default
    html = config.setdefault("html", {})
    html["extra_footer"] = footer(repository, commit(), build_date())
    if repository is None:  # built where no repository is named: no button links one, no launch button opens one
        html["use_repository_button"] = html["use_issues_button"] = False
        config["launch_buttons"] = {**config.get("launch_buttons", {}), "binderhub_url": "", "colab_url": ""}
    sphinx = config.setdefault("sphinx", {}).setdefault("config", {})
    sphinx.setdefault("myst_substitutions", {})["pdf"] = (  # a sentence of the web book, which the PDF leaves out
        f'<span class="web-only">It can also be read as <a href="{PDF_LINK}">the whole book as one PDF</a>.</span>')

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
