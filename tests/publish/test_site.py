"""What the published book says about itself (publish/site.py) and what launches from it
(publish/launch.py): the footer of every page, the repository and issue buttons, launch links that name
the page's own notebook, notebooks that install the commit the page names, and Binder's environment; and a book
built where no repository is named (as committed, and in the tests' session) linking none."""

import json
import re

import nbformat
import pytest

from entropic import __version__, paths
from entropic.publish import build as book
from entropic.publish import launch, site

REPOSITORY_LINK = re.compile(r'href="https://github\.com/[\w.-]+/[\w.-]+(?:/(?:blob|tree|commit|issues)[^"]*)?"')

# --- units ---------------------------------------------------------------------------------------------

def test_the_repository_comes_from_the_workflow_else_the_configuration(monkeypatch):
    monkeypatch.setenv("ENTROPIC_REPOSITORY", "https://github.com/fork/entropic/")
    assert site.repository_url() == "https://github.com/fork/entropic"
    monkeypatch.setenv("ENTROPIC_REPOSITORY", "not a url")
    with pytest.raises(ValueError, match="not a url"):
        site.repository_url()
    monkeypatch.delenv("ENTROPIC_REPOSITORY")
    assert site.repository_url() is None  # as committed, _config.yml names none: the workflow or a publisher does


def _config_with(tmp_path, url: str):
    """A book root whose _config.yml is the project's with ``repository.url`` set to ``url``."""
    import yaml

    config = yaml.safe_load((paths.ROOT / "_config.yml").read_text())
    config["repository"]["url"] = url
    (tmp_path / "_config.yml").write_text(yaml.safe_dump(config))
    return tmp_path


def test_a_book_built_where_no_repository_is_named_links_none(monkeypatch, tmp_path):
    import yaml

    monkeypatch.delenv("ENTROPIC_REPOSITORY", raising=False)
    root = _config_with(tmp_path, "")
    built = yaml.safe_load(site.book_config(root, tmp_path / "built.yml").read_text())
    assert built["repository"]["url"] == ""  # not Jupyter Book's default, which names its own repository
    assert not built["html"]["use_repository_button"] and not built["html"]["use_issues_button"]
    assert not built["launch_buttons"]["binderhub_url"] and not built["launch_buttons"]["colab_url"]
    footer = built["html"]["extra_footer"]
    assert re.findall(r'href="([^"]+)"', footer) == [site.TEXT_LICENSE[1], site.PDF_LINK]  # the licence, the PDF
    assert "code: MIT" in footer and "from commit" in footer and "github" not in footer
    cell = launch.setup_cell("surrogate", "paper", None, "f" * 40)
    assert "git+" not in cell and "http" not in cell and "pip install -e ." in cell
    assert "url" not in site.citation(None).split("@misc")[0]  # the reproduction's entry names no address
    with pytest.raises(ValueError, match=r"repository\.url"):
        site.published_repository(root)


def test_a_published_book_links_the_repository_it_is_published_from(monkeypatch, tmp_path):
    import yaml

    monkeypatch.delenv("ENTROPIC_REPOSITORY", raising=False)
    root = _config_with(tmp_path, "https://github.com/publisher/entropic")
    built = yaml.safe_load(site.book_config(root, tmp_path / "built.yml").read_text())
    assert built["repository"]["url"] == "https://github.com/publisher/entropic"
    assert built["html"]["use_repository_button"] and built["launch_buttons"]["binderhub_url"]
    monkeypatch.setenv("ENTROPIC_REPOSITORY", "https://github.com/workflow/entropic")  # the workflow replaces it
    assert site.published_repository(root) == "https://github.com/workflow/entropic"
    assert "url     = {https://github.com/workflow/entropic}" in site.citation(site.repository_url(root))


def test_the_commit_is_the_workflows_else_the_clones(monkeypatch):
    monkeypatch.setenv("GITHUB_SHA", "a" * 40)
    assert site.commit() == "a" * 40
    monkeypatch.delenv("GITHUB_SHA")
    assert site.commit() is None or re.fullmatch(r"[0-9a-f]{40}", site.commit())


def test_the_footer_names_licences_version_date_commit_and_pdf():
    text = site.footer("https://github.com/o/r", "b" * 40, "2026-12-01", "9.9.9")
    for part in ("CC BY 4.0", "MIT", "entropic 9.9.9", "built 2026-12-01", "https://github.com/o/r/commit/" + "b" * 40,
                 f'href="{site.PDF_LINK}"'):
        assert part in text, part
    assert "commit" not in site.footer("https://github.com/o/r", None, "2026-12-01")
    unpublished = site.footer(None, "b" * 40, "2026-12-01")
    assert f"from commit {'b' * 7}" in unpublished and "/commit/" not in unpublished and "LICENSE" not in unpublished


def test_every_page_links_the_pdf_at_the_sites_root_relative_to_itself():
    def context(page: str) -> dict:
        depth = page.count("/")
        return {"pathto": lambda name, _: "../" * depth + name, "body": f'<a href="{site.PDF_LINK}">PDF</a>',
                "theme_extra_footer": site.footer("https://github.com/o/r", None, "2026-12-01")}

    for page, address in (("build/sections/intro", "../../entropic-bound.pdf"), ("index", "entropic-bound.pdf")):
        found = context(page)
        site._relative_pdf(None, page, "page.html", found, None)
        assert f'href="{address}"' in found["body"] and f'href="{address}"' in found["theme_extra_footer"]
        assert site.PDF_LINK not in str(found)


def test_binder_gets_python_3_11_the_cpu_torch_of_the_lock_and_the_pinned_project():
    lock = (paths.ROOT / "requirements.lock").read_text()
    files = launch.binder_files("https://github.com/o/r", "c" * 40, lock)
    torch = re.search(r"^torch==(\S+)$", lock, re.M)[1]
    assert files["runtime.txt"] == "python-3.11\n" and files["constraints.txt"] == lock
    requirements = files["requirements.txt"].splitlines()
    assert f"--extra-index-url {launch.TORCH_CPU_INDEX}" in requirements and "-c constraints.txt" in requirements
    assert f"torch=={torch}+cpu" in requirements
    assert f"entropic[book] @ git+https://github.com/o/r@{'c' * 40}" in requirements
    with pytest.raises(ValueError, match="torch"):
        launch.binder_files("https://github.com/o/r", None, "numpy==1.0\n")


def test_a_launched_section_installs_the_core_and_a_page_the_book_extras():
    assert launch.requirement("surrogate", "https://github.com/o/r", "d" * 40) == \
        f"entropic @ git+https://github.com/o/r@{'d' * 40}"
    assert launch.requirement("theory", "https://github.com/o/r", None) == "entropic[book] @ git+https://github.com/o/r"
    assert launch.launch_corpora("surrogate") == []
    assert launch.launch_corpora("real_corpora")
    assert "corpus_sources.fetch_missing" in launch.setup_cell("real_corpora", "paper", "https://x/o/r", "e")


# --- the tiny book ---------------------------------------------------------------------------------------

def _pages(html_root):
    return sorted(p for p in html_root.rglob("*.html")
                  if "_static" not in p.parts and "_downloads" not in p.parts  # downloads: the lesson's slides
                  and p.name not in ("genindex.html", "search.html", "index.html"))


@pytest.mark.integration
def test_every_page_has_the_footer_and_the_repository_and_issue_buttons_of_a_named_repository(tiny_html):
    repository, sha = site.repository_url(), site.commit()
    pages = _pages(tiny_html.parent)
    assert len(pages) >= 10
    for page in pages:
        text = page.read_text()
        footer = re.search(r'<p class="entropic-footer">(.*?)</p>', text, re.S)
        assert footer is not None, page
        assert "CC BY 4.0" in footer[1] and "MIT" in footer[1] and f"entropic {__version__}" in footer[1], page
        assert re.search(r"built \d{4}-\d{2}-\d{2}", footer[1]), page
        if repository is None:  # built where none is named (the tests' session): no link into any repository
            assert not REPOSITORY_LINK.search(text), (page, REPOSITORY_LINK.search(text)[0])
            continue
        assert ">MIT<" in footer[1], page  # the licence, linked in the repository
        if sha:
            assert f"{repository}/commit/{sha}" in footer[1], page
        assert f'href="{repository}"' in text, page  # the repository button
        assert f'href="{repository}/issues/new' in text, page  # the issue button


@pytest.mark.integration
def test_the_markdown_a_page_prints_is_myst_its_directives_rendered_not_left_as_text(tiny_html, tiny_book):
    """A page's banner (a warning admonition for each problem of its results) and its configuration dropdown are
    Markdown that its cells print: the book renders their directives, so a page's warning reaches the reader as an
    admonition (tests/test_commands.py checks the warnings in the pages; this, that they render)."""
    for page in _pages(tiny_html.parent):
        assert not re.search(r"(```|:::)\{[a-z-]+\}", page.read_text()), page  # no directive left as text
    for name in book.toc_sections(tiny_book):
        html = (tiny_html.parent / "build" / "sections" / f"{name}.html").read_text()
        summaries = [re.sub(r"<[^>]+>|\s+", " ", m[1]).strip() for m in
                     re.finditer(r'<details class="[^"]*sd-dropdown[^"]*">(.*?)</summary>', html, re.S)]
        assert any(re.match(r"All \d+ parameters", text) for text in summaries), (name, summaries)


@pytest.mark.integration
def test_every_launch_link_names_the_pages_own_notebook_which_installs_the_commit_the_page_names(tiny_html, tiny_book):
    repository, sha = site.repository_url(), site.commit()
    pages = sorted((tiny_html.parent / "build" / "sections").glob("*.html"))
    assert pages
    for page in pages:
        text, name = page.read_text(), page.stem
        links = re.findall(r'href="(https://(?:mybinder\.org|colab\.research\.google\.com)[^"]+)"', text)
        notebook = nbformat.read(tiny_book / "build" / "sections" / f"{name}.ipynb", as_version=4)
        if repository is None:  # nothing to launch from, nothing to install from
            assert not links and "git+" not in notebook.cells[0].source, page
            continue
        assert len(links) == 2, page
        assert all(link.endswith(f"build/sections/{name}.ipynb") for link in links), links
        setup = notebook.cells[0]
        assert "entropic-setup" in setup.metadata["tags"], name
        installs = re.search(r'"(entropic(?:\[book\])? @ git\+[^"]+)"', setup.source)[1]
        assert installs == launch.requirement(name, repository, sha), name
        if sha:
            assert f"{repository}/commit/{sha}" in text and installs.endswith(f"@{sha}"), name
        parameters = next(c for c in notebook.cells if "injected-parameters" in c.metadata.get("tags", []))
        assert f'profile = "{launch.LAUNCH_PROFILE}"' in parameters.source, name


@pytest.mark.integration
def test_the_assembled_site_serves_the_notebooks_where_the_launch_buttons_look(tiny_html, tiny_book, tmp_path,
                                                                                  monkeypatch):
    pdf = tmp_path / "book.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    monkeypatch.setenv("ENTROPIC_REPOSITORY", "https://github.com/publisher/entropic")  # publishing names one
    out = launch.assemble_site(tmp_path / "site", html=tiny_html.parent, executed=tiny_book / "build" / "sections",
                               pdf=pdf)
    for page in (tiny_html.parent / "build" / "sections").glob("*.html"):
        launched = out / "build" / "sections" / f"{page.stem}.ipynb"
        assert json.loads(launched.read_text())["metadata"]["entropic"]["section"] == page.stem
    assert (out / "index.html").is_file() and (out / site.PDF_NAME).read_bytes() == pdf.read_bytes()
    assert (out / "binder" / "runtime.txt").read_text() == "python-3.11\n"
    assert (out / ".nojekyll").exists()
    with pytest.raises(ValueError, match="make book"):
        launch.assemble_site(tmp_path / "empty", html=tmp_path / "nothing", executed=tmp_path)
    monkeypatch.delenv("ENTROPIC_REPOSITORY")
    if site.repository_url() is None:
        with pytest.raises(ValueError, match="publishing needs"):
            launch.assemble_site(tmp_path / "unnamed", html=tiny_html.parent, executed=tiny_book / "build" / "sections")
