import re

import pytest

from entropic.engine.corpus import corpora
from entropic.engine.corpus import provenance as corpus_provenance


def test_the_real_shared_folder_matches_its_pins_and_sources_md():
    folder = corpora.shared_corpora_dir()
    if not (folder / "SOURCES.md").is_file():
        pytest.skip(f"no shared corpora at {folder}")
    table = (folder / "SOURCES.md").read_text()
    for name, pin in corpus_provenance.PINS.items():
        assert re.search(rf"^\| {name} \|.*\| {pin.bytes} \| `{pin.sha256}` \|$", table, re.M), name
    corpus = corpora.load_corpus("english", max_chars=5000)
    assert corpus.provenance.source == "shared" and corpus.provenance.matches_pin
    assert len(corpus.text) == 5000 and corpus.provenance.bytes == corpus_provenance.PINS["english"].bytes


def test_the_repositorys_corpora_page_gives_every_pin_with_its_source_licence_and_make_corpora():
    """CORPORA.md, in every clone: each corpus's row holds the pinned size and sha256 the code checks against."""
    from entropic import paths

    page = (paths.ROOT / "CORPORA.md").read_text()
    for name, pin in corpus_provenance.PINS.items():
        assert re.search(rf"^\| {name} \| `{name}\.txt` \|.*\| {pin.bytes} \| `{pin.sha256}` \|$", page, re.M), name
    assert "make corpora" in page and "license" in page
