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
