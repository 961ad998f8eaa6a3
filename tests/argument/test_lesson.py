"""The lesson's words read from the teaching chapter (``lesson_text``), its slides (``slides``) and its handout
(``handout``): the chapter holds a whole lesson, the slides open offline with one picture per block and prompts
without solutions, and the handout is one page. The deck the page itself writes is checked in
``test_teaching``."""

import itertools
import os
import re
import unicodedata
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from entropic import paths
from entropic.argument import handout, lesson, lesson_text, slides

CHAPTER = paths.notebook_source("teaching").read_text()
VALUES = {"teaching_sigma": 0.05, "teaching_noise_sigma": 0.5, "teaching_band_pct": 5.0, "teaching_bound_T_small": 8,
          "teaching_bound_T_large": 32,
          "teaching_predict_takeaway": "In this miniature data reveal $r^*$ before training for both teachers.",
          "teaching_predict_summary": "data give it before training for both teachers in the miniature",
          "teaching_predict_path": "both teachers",
          "teaching_sweep": ("whether real text's attention-native rank is low; the capacity sweep decides 0 of 6 "
                             "corpora at 15.36M tokens so far, and its calibration cannot earn 'low rank' there")}
# what the page passes for the words its lesson pastes


def browser() -> str:
    from entropic.publish import pdf

    try:
        return pdf.chromium()
    except RuntimeError as error:
        if os.environ.get("ENTROPIC_SKIP_BROWSER"):
            pytest.skip("ENTROPIC_SKIP_BROWSER is set")
        pytest.fail(str(error))


def test_the_chapter_holds_a_whole_lesson_goals_a_fifty_minute_path_blocks_exercises_and_questions():
    parts = lesson_text.lesson_parts(CHAPTER)
    goals = re.findall(r"^\d+\. ", parts["goals"], re.M)
    assert 3 <= len(goals) <= 5
    assert all(line.startswith("|") for line in parts["path"].splitlines())  # the rows of its numbered table
    rows = [line for line in parts["path"].splitlines()[2:] if line.startswith("|")]
    spans = [re.match(r"\| (\d+)–(\d+) \|", row).groups() for row in rows]
    assert spans[0][0] == "0" and spans[-1][1] == "50"  # the path covers 0–50 minutes without a gap
    assert all(int(a[1]) == int(b[0]) for a, b in itertools.pairwise(spans))
    blocks = parts["blocks"]
    assert len(blocks) >= 7 and all(b["picture"] and b["takeaway"] and b["exercises"] for b in blocks)
    assert len(lesson_text.exercises(parts)) >= 7
    assert len(re.findall(r"^\d+\. ", parts["discussion"], re.M)) >= 3
    assert parts["summary"] and parts["formulas"]
    for block in blocks:  # a prompt never quotes a computed answer: it pastes only the inputs the page passes
        for exercise in block["exercises"]:
            lesson_text.plain(exercise["prompt"], VALUES)


def test_plain_keeps_a_references_text_pastes_values_and_refuses_what_a_slide_cannot_show():
    assert lesson_text.plain("see {ref}`the transition <teaching-transition>`", {}) == "see the transition"
    assert lesson_text.plain("σ = {glue:md}`x:myst`", {"x": 0.05}) == "σ = 0.05"
    with pytest.raises(ValueError, match="did not pass"):
        lesson_text.plain("{glue:md}`y:myst`", {})
    with pytest.raises(ValueError, match="prf:ref"):
        lesson_text.plain("{prf:ref}`thm-tightness`", {})


def test_no_solution_reaches_the_lessons_blocks():
    parts = lesson_text.lesson_parts(CHAPTER)
    solutions = lesson_text.solution_texts(CHAPTER)
    assert len(solutions) == len(lesson_text.exercises(parts))
    shown = " ".join(b["title"] + b["takeaway"] + " ".join(e["prompt"] for e in b["exercises"])
                     for b in parts["blocks"])
    for solution in solutions:
        for phrase in phrases(solution):
            assert phrase not in shown


def phrases(text: str) -> list[str]:
    """Runs of prose of at least 25 characters (no role, math or Markdown mark inside): what a leaked solution
    would carry over verbatim."""
    pieces = re.split(r"\{[\w:-]+\}`[^`]*`|\$[^$]*\$|[*`()]", text)
    return [p.strip() for p in pieces if len(p.strip()) >= 25]


@pytest.fixture(scope="module")
def materials(tmp_path_factory):
    """The lesson written from the chapter with stand-in pictures (one line each)."""
    parts = lesson_text.lesson_parts(CHAPTER)
    figures = {}
    for block in parts["blocks"]:
        figure, ax = plt.subplots(figsize=(4, 2))
        ax.plot([0, 1], [0, 1], label=block["title"])
        figures[block["picture"]] = figure
    return lesson.write_materials(tmp_path_factory.mktemp("lesson"), figures, VALUES, browser=browser)


def expected_slides(parts: dict) -> int:
    """Title, goals, path; per block its picture, its prompts and its take-away; discussion, summary, formulas."""
    return 3 + sum(1 + len(b["exercises"]) + bool(b["takeaway"]) for b in parts["blocks"]) + 3


def test_the_slides_open_offline_with_every_slide_one_picture_per_block_and_math_typeset(materials):
    from playwright.sync_api import sync_playwright

    parts = lesson_text.lesson_parts(CHAPTER)
    assert materials["slide_count"] == expected_slides(parts)
    outside, errors = [], []
    with sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=browser(), args=["--no-sandbox", "--disable-gpu"])
        page = chromium.new_page(viewport={"width": 1280, "height": 800})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:"))
                   else (outside.append(r.request.url), r.abort()))
        page.goto(materials["slides"].as_uri(), wait_until="load")
        page.wait_for_function("() => window.Reveal && Reveal.isReady()")
        total = page.evaluate("() => Reveal.getTotalSlides()")
        images = page.evaluate("() => [...document.images].map(i => i.naturalWidth)")
        typeset = page.evaluate("() => document.querySelectorAll('mjx-container').length")
        alts = page.evaluate("() => [...document.images].map(i => i.alt)")
        text = page.evaluate("() => document.body.innerText")
        links = page.evaluate("() => document.querySelectorAll('a[href]').length")
        chromium.close()
    assert not outside and not errors and not links  # nothing fetched from outside the file, nothing failed, no link
    assert total == materials["slide_count"]
    assert len(images) == len(parts["blocks"]) and all(images)
    assert alts == [block["alt"] for block in parts["blocks"]] and all(alts)  # what each picture shows, in words
    assert typeset > 10 and "$" not in text  # every formula typeset
    html = materials["slides"].read_text()  # and no address of a web host of scripts or fonts, even unused
    assert not re.search(r"https?://[^\s\"']*(cdn|jsdelivr|unpkg|googleapis|gstatic)", html, re.I)


def test_an_address_on_a_cdn_is_cut_to_its_path_and_a_deck_that_names_one_is_refused(tmp_path):
    assert slides.without_cdn('u="https://cdn.jsdelivr.net/npm/sre@"+v') == 'u="npm/sre@"+v'
    assert slides.without_cdn("see https://www.mathjax.org") == "see https://www.mathjax.org"
    import nbformat

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
        "<link href='https://fonts.googleapis.com/css?family=Lato'>", metadata={"slideshow": {"slide_type": "slide"}})])
    with pytest.raises(ValueError, match="googleapis"):
        slides.write_deck(notebook, tmp_path / "deck.html")


def test_the_slides_show_every_prompt_and_no_solution(materials):
    deck = re.sub(r"<script.*?</script>|<style.*?</style>", "", materials["slides"].read_text(), flags=re.S)
    parts = lesson_text.lesson_parts(CHAPTER)
    for k, exercise in enumerate(lesson_text.exercises(parts), start=1):
        assert f"Exercise {k}: {exercise['title']}" in deck
    for solution in lesson_text.solution_texts(CHAPTER):
        for phrase in phrases(solution):
            assert phrase not in deck, phrase
    assert "Solution" not in deck and "<a " not in deck  # and no link: the file stands alone
    text = re.sub(r"<[^>]*>", "", deck)  # what the slides show (an anchor's id may keep a formula's TeX)
    assert "$" not in text and deck.count('<span class="math notranslate nohighlight">') > 10  # formulas marked


def test_an_alt_text_carries_its_formulas_as_words():
    assert lesson_text.spoken("$r^*$ from data, at $\\sigma_{i}$") == "r* from data, at sigma_i"


def test_the_slides_mark_formulas_as_the_pages_do_and_leave_scripts_and_code_alone():
    html = (r"<p>pays $\lambda_j^2$; $$\min_V f$$</p><code>$c$</code><script>x = '$y$';</script>"
            r"<p>a \$ sign</p><img alt='$r$'>")
    assert slides.marked_math(html) == (
        r'<p>pays <span class="math notranslate nohighlight">\(\lambda_j^2\)</span>; '
        r'<span class="math notranslate nohighlight">\[\min_V f\]</span></p>'
        r"<code>$c$</code><script>x = '$y$';</script><p>a \$ sign</p><img alt='$r$'>")


def test_the_handout_is_one_page_of_goals_formulas_and_every_prompt(materials):
    from pypdf import PdfReader

    reader = PdfReader(materials["handout"])
    assert len(reader.pages) == handout.pdf_pages(materials["handout"]) == 1
    text = " ".join(unicodedata.normalize("NFKC", reader.pages[0].extract_text()).split())  # ligatures: fi
    assert "Learning goals" in text and "Key formulas" in text
    assert "$" not in text  # every formula typeset (marked as the slides mark theirs)
    parts = lesson_text.lesson_parts(CHAPTER)
    for k, exercise in enumerate(lesson_text.exercises(parts), start=1):
        assert f"Exercise {k}: {exercise['title']}" in text


# Formulas of the handout whose right edge passes the right edge of their column (the columns measured as laid out)
OUTSIDE_COLUMNS = """() => {
  const box = document.querySelector('.columns'), style = getComputedStyle(box), b = box.getBoundingClientRect();
  const gap = parseFloat(style.columnGap), count = parseInt(style.columnCount);
  const width = (b.width - gap * (count - 1)) / count;
  return [...box.querySelectorAll('mjx-container')].map(m => (m.querySelector('svg') || m).getBoundingClientRect())
    .filter(r => {
    const k = Math.floor((r.left - b.left + gap / 2) / (width + gap));
    return r.right > b.left + k * (width + gap) + width + 0.5;
  }).length;
}"""


def test_every_formula_of_the_handout_stays_inside_its_column(tmp_path):
    from playwright.sync_api import sync_playwright

    page_file = tmp_path / "handout.html"
    page_file.write_text(handout.handout_html(lesson_text.lesson_parts(CHAPTER), VALUES, slides.mathjax_script()))
    with sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=browser(), args=["--no-sandbox", "--disable-gpu"])
        page = chromium.new_page(viewport={"width": handout.PRINTED_PX, "height": 1000})  # as it prints
        page.emulate_media(media="print")
        page.goto(page_file.as_uri(), wait_until="load")
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("() => MathJax.startup.promise")
        formulas, outside = page.evaluate("() => document.querySelectorAll('.columns mjx-container').length"), \
            page.evaluate(OUTSIDE_COLUMNS)
        chromium.close()
    assert formulas > 20 and outside == 0


def test_a_handout_with_a_formula_too_wide_for_its_column_is_refused(tmp_path):
    parts = lesson_text.lesson_parts(CHAPTER)
    wide = {**parts, "formulas": parts["formulas"] + "\n- Too wide: $" + " + ".join(f"x_{{{k}}}" for k in range(120))
            + "$."}
    with pytest.raises(ValueError, match="past their column"):
        handout.write_handout(wide, VALUES, tmp_path / "handout.pdf", browser())


def test_a_handout_that_runs_past_one_page_is_refused(tmp_path):
    parts = lesson_text.lesson_parts(CHAPTER)
    longer = {**parts, "goals": parts["goals"] + "\n" + "\n".join(f"{k}. more words to learn" * 8
                                                                   for k in range(6, 60))}
    with pytest.raises(ValueError, match="must fit one"):
        handout.write_handout(longer, VALUES, tmp_path / "handout.pdf", browser())


def test_a_handout_printed_before_from_the_same_page_is_kept_and_a_damaged_copy_is_named(tmp_path, monkeypatch):
    parts = lesson_text.lesson_parts(CHAPTER)
    parts, values = {**parts, "title": parts["title"] + " (kept)"}, VALUES  # a handout of this test's own
    first = handout.write_handout(parts, values, tmp_path / "first.pdf", browser()).read_bytes()
    kept = handout._printed(handout.handout_html(parts, values, slides.mathjax_script()), browser())
    assert kept.read_bytes() == first

    def printed_again(*_):
        raise AssertionError("printed again")

    monkeypatch.setattr(handout, "_print", printed_again)
    assert handout.write_handout(parts, values, tmp_path / "second.pdf", browser()).read_bytes() == first
    with pytest.raises(AssertionError, match="printed again"):  # another page is printed
        handout.write_handout({**parts, "title": parts["title"] + " again"}, values, tmp_path / "other.pdf", browser())
    kept.write_bytes(first[:100])
    with pytest.raises(ValueError, match=f"{kept.name} is not the one-page handout"):
        handout.write_handout(parts, values, tmp_path / "third.pdf", browser())
    kept.unlink()


def test_the_links_point_from_the_page_to_the_materials_relative_to_the_build():
    made = {"slides": paths.BUILD / "lesson" / lesson.SLIDES, "handout": paths.BUILD / "lesson" / lesson.HANDOUT,
            "missing": None, "slide_count": 30}
    text = lesson.links(made, paths.EXECUTED)
    assert "{download}`the slides <../lesson/teaching-slides.html>`" in text
    assert "<../lesson/teaching-handout.pdf>" in text and "30 reveal.js slides" in text and "`make slides`" in text
    text = lesson.links({**made, "handout": None, "missing": "no Chromium"}, paths.EXECUTED)
    assert "handout" in text and "no Chromium" in text and "pdf>" not in text


def test_the_slides_take_their_assets_from_installed_packages():
    assert slides.mathjax_script().is_file()
    assert (slides.package_folder("sphinx_revealjs") / "_static" / "revealjs" / "dist" / "reveal.js").is_file()
    table = "| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |"
    assert slides.without_last_column(table) == "| a | b |\n|---|---|\n| 1 | 2 |"
    assert Path(lesson.__file__).parent == Path(slides.__file__).parent


def test_the_chapter_reads_as_a_notebook_that_imports_and_calls_and_never_defines():
    import jupytext

    notebook = jupytext.read(paths.notebook_source("teaching"))
    code = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    assert code and not [c for c in code if re.search(r"^\s*(def|class)\b", c, re.M)]


def _lesson_page(folder, parts: dict) -> None:
    """Every text the slides and the handout show (the lesson's parts, its values pasted in spans marked as the data's,
    its formulas marked as the slides and the handout mark theirs) as one page of the teaching chapter, where the
    book's sentence check reads it."""
    from nbconvert.filters.markdown_mistune import markdown2html_mistune as html

    texts = [parts[name] for name in ("title", "goals", "path", "summary", "discussion", "formulas")]
    texts += [text for block in parts["blocks"]
              for text in (block["title"], block["takeaway"], *(e["title"] + ". " + e["prompt"]
                                                               for e in block["exercises"]))]
    page = folder / "build" / "sections" / "teaching.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    shown = "".join(slides.marked_math(html(lesson_text.plain(text, VALUES, mark=True))) for text in texts)
    page.write_text(f"<html><body><article>{shown}</article></body></html>")  # formulas marked as the slides mark them


def test_the_slides_and_the_handout_state_no_result_typed_by_hand(tmp_path):
    import sentences

    parts = lesson_text.lesson_parts(CHAPTER)
    _lesson_page(tmp_path, parts)
    assert sentences.typed_results(tmp_path) == []
    block = parts["blocks"][0]
    doctored = {**parts, "blocks": [{**block, "takeaway": block["takeaway"] + " Softmax students fall short of the "
                                                                             "floor."}, *parts["blocks"][1:]]}
    _lesson_page(tmp_path / "doctored", doctored)
    assert any("falls short" in p or "fall short" in p for p in sentences.typed_results(tmp_path / "doctored"))
