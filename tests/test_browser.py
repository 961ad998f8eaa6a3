"""The built book in a real browser: every page at desktop (1280 px) and phone (400 px) width.

Zero console errors and failed requests, no code name in the prose, one verdict per claim across pages, every
image loaded, math rendered by MathJax with no raw TeX left, every internal link resolving, nothing wider than a
phone screen outside a box that scrolls sideways, and no Python object reprs or ``nan`` in the text. What a reader
must never meet (``reader``): a table caption that scrolls away with its table or runs off a phone's screen, a raw
``False``/``True``/``None``/``nan`` cell, a code name as a column header, an image whose alt text is a path,
clipped math, figure text under 9 px on a phone, a runner's ``[entropic]`` line; on a desktop, no table needs a
sideways scroll. Across pages, no count a page quotes is contradicted by the page that holds it. A page with a
problem is screenshot into ``_build/screens/`` of the book built for the tests
(``../shared/tools/look-at-book`` screenshots every page).

Chromium: Debian's ``chromium`` package, driven by Playwright's Python package pointed at that binary (no
browser download). ``.ci/run`` installs it; on a machine without it this test installs it with apt-get
when it can, and otherwise fails saying how (``ENTROPIC_SKIP_BROWSER=1`` skips it explicitly).
"""

import functools
import http.server
import math
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path
from urllib.parse import urldefrag, urlparse

import pytest

import reader
from entropic.publish.site import PDF_NAME

pytestmark = pytest.mark.integration
WIDTHS = {"desktop": 1280, "phone": 400}
# A page has settled once what it fetches after its load event has come: MathJax's typesetting and the fonts it sets
# with, and every image (those below the fold once scrolled to). Its explorables, which fetch Bokeh when they come near
# the screen, are drawn before (reader.draw_explorables): then every request, failed ones included, has been made.
SETTLED = """async () => {
  if (window.MathJax && MathJax.startup) await MathJax.startup.promise;
  await document.fonts.ready;
  await Promise.all([...document.images].map(i => i.complete ? null : new Promise(r => { i.onload = i.onerror = r; })));
}"""
REFRESH = re.compile(r'<meta http-equiv="Refresh" content="0; url=([^"]+)"', re.I)
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and shutil.which("apt-get") and os.geteuid() == 0:
        subprocess.run("apt-get update -qq && apt-get install -y -qq chromium", shell=True, capture_output=True)
        found = shutil.which("chromium")
    if found is None:
        if os.environ.get("ENTROPIC_SKIP_BROWSER"):
            pytest.skip("ENTROPIC_SKIP_BROWSER is set")
        pytest.fail("the browser test needs Debian's chromium: apt-get install chromium "
                    "(or set ENTROPIC_SKIP_BROWSER=1 to skip it)")
    return found


@pytest.fixture(scope="module")
def site(tiny_html):
    """The built book served on localhost: (base URL, HTML folder)."""
    folder = tiny_html.parent
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", folder
    server.shutdown()


def pages(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*.html")
                  if "_static" not in p.parts and p.name not in ("genindex.html", "search.html"))


SCROLLING_TABLES = """() => [...document.querySelectorAll('.bd-article .pst-scrollable-table-container')]
  .filter(c => c.scrollWidth > c.clientWidth + 1)
  .map(c => (c.closest('figure')?.querySelector('figcaption')?.innerText || c.innerText).trim().slice(0, 60))"""
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const scrolls = el => { for (let e = el.parentElement; e; e = e.parentElement) {
      const o = getComputedStyle(e).overflowX; if (o === 'auto' || o === 'scroll' || o === 'hidden') return true; }
    return false; };
  const out = [];
  for (const el of document.querySelectorAll('.bd-article *')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > width + 1 && !scrolls(el)) out.push(el.tagName + '.' + el.className);
  }
  return out.slice(0, 5);
}"""


def test_every_page_renders_cleanly_in_a_real_browser(site):
    from playwright.sync_api import sync_playwright

    base, folder = site
    screens = folder.parent / "screens"
    screens.mkdir(exist_ok=True)
    problems = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=FLAGS)
        for name in pages(folder):
            for label, width in WIDTHS.items():
                page = browser.new_page(viewport={"width": width, "height": 900})
                errors, failed = [], []
                page.on("console", lambda m, e=errors: e.append(f"{m.text} ({m.location.get('url')})")
                            if m.type == "error" else None)
                page.on("pageerror", lambda exc, e=errors: e.append(str(exc)))
                page.on("requestfailed", lambda r, f=failed: f.append(r.url))
                page.on("response", lambda r, f=failed: f.append(f"{r.status} {r.url}") if r.status >= 400 else None)
                page.goto(f"{base}/{name}", wait_until="load")
                if going := REFRESH.search((folder / name).read_text()):  # the book's index goes on to its first page
                    page.wait_for_url(f"{base}/{going[1]}", wait_until="load")
                page.evaluate(SETTLED)
                reader.draw_explorables(page)  # each as a reader reaching it draws it: Bokeh fetched, or failing here
                page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
                page.evaluate(SETTLED)
                where = f"{name} @{width}px"
                before = len(problems)
                problems += [f"{where}: console: {e}" for e in errors]
                problems += [f"{where}: request failed: {f}" for f in failed]
                widths = page.eval_on_selector_all("img", "els => els.map(e => [e.src, e.naturalWidth])")
                problems += [f"{where}: image not loaded: {src}" for src, w in widths if not w]
                text = page.inner_text("body")
                if page.query_selector(".math, .amsmath"):
                    if not page.query_selector("mjx-container"):
                        problems.append(f"{where}: math not rendered")
                if "$$" in text or re.search(r"\\\(|\\\[", text):
                    problems.append(f"{where}: raw TeX left in the text")
                if "IPython.core.display" in text or re.search(r"\bnan\b", text, re.IGNORECASE):
                    problems.append(f"{where}: a Python repr or nan in the text")
                problems += [f"{where}: {found}" for found in reader.checks(page, folder)]
                if label == "phone":
                    problems += [f"{where}: wider than the screen: {el}" for el in page.evaluate(OVERFLOW)]
                else:
                    problems += [f"{where}: a table needs a sideways scroll on a desktop: {caption}"
                                 for caption in page.evaluate(SCROLLING_TABLES)]
                    problems += [f"{where}: {found}" for found in reader.code_in_prose(page)]
                    for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)"):
                        target, fragment = urldefrag(href)
                        if not target.startswith(base):
                            continue
                        path = folder / urlparse(target).path.lstrip("/")
                        path = path / "index.html" if path.is_dir() else path
                        if path.name == PDF_NAME and path.parent == folder:
                            continue  # the PDF at the site's root is made by make pdf, not make book
                        if not path.is_file():
                            problems.append(f"{where}: broken link {href}")
                        elif fragment and f'id="{fragment}"' not in path.read_text(errors="ignore"):
                            problems.append(f"{where}: missing anchor {href}")
                if len(problems) > before:
                    page.screenshot(path=str(screens / f"{name.replace('/', '_')}.{label}.png"), full_page=True)
                page.close()
        browser.close()
    assert not problems, "\n".join(sorted(set(problems))[:40]) + f"\n(screenshots of these pages: {screens})"


def test_no_page_quotes_a_count_that_the_page_holding_it_contradicts(tiny_html):
    assert not reader.counts_contradicted(tiny_html.parent)


def test_every_page_gives_a_claim_the_verdict_its_ledger_row_gives(tiny_html):
    said = reader.stated_verdicts(tiny_html.parent)
    assert len(said) >= 10  # the comparison tables, the ledger and the intro were read
    assert not reader.verdicts_contradicted(tiny_html.parent)


# What the surrogate's explorable draws (argument/explorables.py), read from its Bokeh document in the page.
DRAWN = """() => { const doc = Bokeh.documents.find(d => d.get_model_by_name('surrogate-curve'));
  const model = name => doc.get_model_by_name(name);
  const curve = model('surrogate-curve').data;
  return {r: Array.from(curve.r), risk: Array.from(curve.risk), excess: Array.from(curve.excess),
          chosen: Array.from(model('surrogate-choice').data.risk), marker: model('surrogate-r-star').location,
          readout: model('surrogate-readout').text, r_star: model('surrogate-r-star-slider').value,
          rank: model('surrogate-rank').value, sigma: model('surrogate-sigma').value,
          ratio: model('surrogate-ratio').value, ratio_disabled: model('surrogate-ratio').disabled,
          kind: model('surrogate-spectrum').value}; }"""


def _teaching_page(browser, site, model: str):
    """The teaching page at a phone's width, its explorables drawn (each as a reader scrolling to it draws it), once
    the one holding the Bokeh model ``model`` is ready."""
    base, folder = site
    page = browser.new_page(viewport={"width": 400, "height": 900})
    page.goto(f"{base}/{next(name for name in pages(folder) if name.endswith('teaching.html'))}",
              wait_until="networkidle")
    assert page.evaluate("() => window.Bokeh === undefined"), "Bokeh loads only once an explorable is near the screen"
    reader.draw_explorables(page)
    page.wait_for_function(f"() => window.Bokeh && Bokeh.documents.some(d => d.get_model_by_name({model!r}))")
    return page


def _matches_numpy(drawn: dict) -> list[str]:
    """Where what the page drew differs from the library's numpy computation of the same settings: the curve to the
    last bits of a float64, the readout to the precision it prints."""
    from entropic.argument import explorables

    expected = explorables.surrogate_risk(drawn["r_star"], drawn["kind"], drawn["ratio"], drawn["sigma"])
    where = (f"r* = {drawn['r_star']}, {drawn['kind']}, ratio {drawn['ratio']}, σ = {drawn['sigma']}, "
             f"r = {drawn['rank']}")
    problems = [f"{where}: the drawn {column} is not numpy's" for column in ("r", "risk", "excess")
                if len(drawn[column]) != len(expected) or not all(
                    math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300)
                    for a, b in zip(drawn[column], expected[column], strict=True))]
    value = float(expected["excess"].iloc[drawn["rank"] - 1])
    printed = re.search(r"<b>([^<]+)</b>", drawn["readout"])[1]  # three significant digits, or 0
    shown = float(printed)
    unit = 10.0 ** (math.floor(math.log10(shown)) - 2) if shown else 0.0  # the last printed digit's
    if abs(shown - value) > unit / 2 * (1 + 1e-9) or (shown == 0) != (value == 0):
        problems.append(f"{where}: the readout prints {printed}, numpy computes {value!r}")
    chosen = float(expected["risk"].iloc[drawn["rank"] - 1])
    if f"rank-{drawn['rank']} " not in drawn["readout"] or not math.isclose(drawn["chosen"][0], chosen, rel_tol=1e-12):
        problems.append(f"{where}: the chosen rank's point or readout is not rank {drawn['rank']}'s")
    if drawn["marker"] != drawn["r_star"] or drawn["ratio_disabled"] != (drawn["kind"] != "geometric"):
        problems.append(f"{where}: the r* line or the ratio slider's state does not follow the settings")
    return problems


def test_every_slider_of_the_surrogate_explorable_redraws_what_numpy_computes(site):
    """The teaching page's explorable moved as a reader moves it, with the keyboard: each slider's handle focused and
    stepped with the arrow keys, the spectrum chosen from its menu; after every move the curve, the chosen point and
    the readout are numpy's for the settings the page shows. In print it is its static figure and one line."""
    from playwright.sync_api import sync_playwright

    from entropic.argument import explorables

    problems = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=FLAGS)
        page = _teaching_page(browser, site, "surrogate-curve")
        figure = page.locator("#explorable-surrogate-bound")
        problems += _matches_numpy(page.evaluate(DRAWN))
        handles = figure.locator(".noUi-handle")
        assert handles.count() == 4, "the explorable shows four sliders (r*, σ, the ratio, r)"
        moved = set()
        for label in explorables.SPECTRA.values():
            figure.locator("select").select_option(label=label)
            problems += _matches_numpy(page.evaluate(DRAWN))
            for index in range(handles.count()):
                handle = handles.nth(index)
                if handle.evaluate("h => h.closest('.noUi-target').hasAttribute('disabled')"):
                    continue
                handle.focus()
                for key in ("ArrowRight", "ArrowRight", "ArrowLeft", "End", "Home"):
                    before = page.evaluate(DRAWN)
                    page.keyboard.press(key)
                    after = page.evaluate(DRAWN)
                    moved |= {name for name in ("r_star", "rank", "sigma", "ratio") if after[name] != before[name]}
                    problems += _matches_numpy(after)
                handle.press("ArrowRight")
        assert moved == {"r_star", "rank", "sigma", "ratio"}, f"the keyboard moved only {sorted(moved)}"
        page.emulate_media(media="print")
        live, printed = figure.locator(".explorable-live"), figure.locator(".explorable-print img")
        assert not live.is_visible() and printed.is_visible(), "in print, the static figure in place of the live one"
        browser.close()
    assert not problems, "\n".join(problems[:20])


RANKS = """() => { const doc = Bokeh.documents.find(d => d.get_model_by_name('ranks-points'));
  const model = name => doc.get_model_by_name(name);
  return {r: Array.from(model('ranks-points').data.r), risk: Array.from(model('ranks-points').data.risk),
          mean_r: Array.from(model('ranks-means').data.r), mean_risk: Array.from(model('ranks-means').data.risk),
          line: model('ranks-r-star-line').location, verdicts: model('ranks-verdicts').text,
          teacher: model('ranks-teacher').value, rung: model('ranks-rung').value, r_star: model('ranks-r-star').value,
          rung_options: model('ranks-rung').options.map(o => o[0]), r_star_options: model('ranks-r-star').options}; }"""


def test_the_rank_explorable_draws_each_cases_stored_students_and_the_ledgers_verdicts(site):
    """The teaching page's second explorable, every teacher, rung and r* chosen from its menus: the points it draws
    are the stored students of that case at the book's profile (risk 1 + excess / floor, read here from the results
    store), its line their seed means, and its list the ledger's verdicts of the claims on that rung or teacher."""
    from playwright.sync_api import sync_playwright

    from entropic.argument import explorables
    from entropic.jobs import runner
    from entropic.publish import ledger

    quiet = {"compute": False, "progress": False, "log": lambda *_: None}
    ladder, native = runner.run("ladder", "tiny", **quiet), runner.run("attention_native", "tiny", **quiet)
    claims = ledger.frame("tiny", ["ladder", "attention_native"])

    def stored(teacher: str, key: str) -> tuple[list, list]:
        if teacher == "fixed":  # a rung's own row, and B1's and B2's the one comparing them
            runs, section = ladder["runs"], "ladder"
            starts = (f"{key}:", "B2 / B1") if key in ("B1", "B2") else (f"{key}:",)
            own = runs[(runs["rung"] == key) & (runs["r"] == ladder.cfg.r_star)]
        else:
            sweep, section, starts = native["sweep"], "attention_native", (f"{teacher}:",)
            own = sweep[(sweep["teacher"] == teacher) & (sweep["r_star"] == int(key))]
        rows = claims[(claims["section"] == section) & (claims["quantity"].str.startswith(starts))]
        students = sorted(zip(own["r"], 1 + own["excess"] / own["noise_floor"], strict=True))
        return students, list(rows["verdict"])

    problems, seen = [], 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=FLAGS)
        page = _teaching_page(browser, site, "ranks-points")
        figure = page.locator("#explorable-static-against-native")
        menus = figure.locator("select")
        for label in explorables.TEACHERS.values():
            if label not in menus.nth(0).inner_text():
                continue
            menus.nth(0).select_option(label=label)
            drawn = page.evaluate(RANKS)
            choices = drawn["rung_options"] if drawn["teacher"] == "fixed" else drawn["r_star_options"]
            menu = menus.nth(1) if drawn["teacher"] == "fixed" else menus.nth(2)
            for index in range(len(choices)):
                menu.select_option(index=index)
                drawn = page.evaluate(RANKS)
                key = drawn["rung"] if drawn["teacher"] == "fixed" else drawn["r_star"]
                students, verdicts = stored(drawn["teacher"], key)
                where = f"{drawn['teacher']} {key}"
                shown = sorted(zip(drawn["r"], drawn["risk"], strict=True))
                if len(shown) != len(students) or not all(
                        a[0] == b[0] and math.isclose(a[1], b[1], rel_tol=1e-12)
                        for a, b in zip(shown, students, strict=True)):
                    problems.append(f"{where}: the drawn students are not the stored ones")
                for r, mean in zip(drawn["mean_r"], drawn["mean_risk"], strict=True):
                    own = [risk for rank, risk in students if rank == r]
                    if not math.isclose(mean, sum(own) / len(own), rel_tol=1e-12):
                        problems.append(f"{where}: the mean at r = {r} is not the stored students'")
                listed = re.findall(r"<b>([^<]+)</b>", drawn["verdicts"])
                if listed != verdicts:
                    problems.append(f"{where}: the verdicts listed {listed} are not the ledger's {verdicts}")
                seen += 1
        browser.close()
    assert seen >= 3, f"only {seen} cases could be chosen"
    assert not problems, "\n".join(problems[:20])


# The third explorable's reading at every choice a reader can make: each reading of the menu, each stored budget of
# its slider, each margin δ of its slider, set through the page's own widgets (their callbacks run as a reader's
# moves run them) and read back once the page has redrawn (what it read names the state it was drawn for).
LOSSES = """async () => { const doc = Bokeh.documents.find(d => d.get_model_by_name('losses-read'));
  const model = name => doc.get_model_by_name(name);
  const reading = model('losses-reading'), delta = model('losses-delta'), budget = model('losses-budget');
  const read = model('losses-read'), rule = model('losses-rule');
  const drawn = async (ready) => {  // the page's callback runs in a later task: yield until it has
    for (let i = 0; i < 2000 && !ready(read.data); i++) await (i < 50 ? null : new Promise(r => setTimeout(r, 0))); };
  const out = [];
  for (const key of Object.values(reading.options).flat().map(o => o[0])) {
    reading.value = key;
    await drawn(d => d.reading[0] === key);
    for (let k = 0; k < (budget.disabled ? 1 : Math.round(budget.end) + 1); k++) {
      budget.value = k;
      for (let i = 0; i <= Math.round((delta.end - delta.start) / delta.step); i++) {
        const margin = +(delta.start + i * delta.step).toFixed(6);
        delta.value = margin;
        await drawn(d => d.delta[0] === margin && d.reading[0] === key);
        out.push({key, budget: read.data.budget[0], delta: read.data.delta[0], r_hat: read.data.r_hat[0],
                  exact: read.data.exact[0], states: Array.from(rule.data.status)});
      }
    }
  }
  return out; }"""
SHOWN = """() => { const doc = Bokeh.documents.find(d => d.get_model_by_name('losses-read'));
  const read = doc.get_model_by_name('losses-read').data;
  return {text: doc.get_model_by_name('losses-readout').text, r_hat: read.r_hat[0], delta: read.delta[0],
          budget: read.budget[0]}; }"""


def test_the_loss_explorable_reads_every_margin_and_budget_as_the_third_rule_does(site):
    """The teaching page's third explorable, every reading, stored budget and margin δ chosen through its widgets:
    the statuses and r̂ it shows are the third rule's (``text_rank.third.read``) on that reading's paired gaps from the
    results store, at that budget and δ; its menu offers every complete reading and its budget slider every
    checkpoint the rule can read at. The keyboard moves the δ slider, and the read-out prints the r̂ it read."""
    from playwright.sync_api import sync_playwright

    from entropic.argument import explorables
    from entropic.publish import intro
    from entropic.sections.text_rank import third

    found = intro.sweep_judged("tiny")
    assert found is not None, "the tiny book stores the capacity sweep"
    expected = {}
    for _, row in found[1]["readings"].iterrows():
        if row["complete"]:
            tokens, gaps = row["paired"]
            budgets = [int(b) for b in tokens if ((tokens >= b / 2) & (tokens <= b)).sum() >= 2]
            expected[f"{row['corpus']}|{row['reading']}|{int(row['budget'])}"] = (tokens, gaps, row["grid"], budgets)
    problems, moved = [], set()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=FLAGS)
        page = _teaching_page(browser, site, "losses-read")
        handles = page.locator("#explorable-rank-from-losses .noUi-handle")
        assert handles.count() == 2, "the explorable shows two sliders (δ, the budget)"
        handles.nth(0).focus()
        for key in ("Home", "ArrowRight", "End", "ArrowLeft"):
            before = page.evaluate(SHOWN)
            page.keyboard.press(key)
            page.wait_for_function(f"() => ({SHOWN})().delta !== {before['delta']}")
            after = page.evaluate(SHOWN)
            moved.add(after["delta"])
            if not re.search(rf"r̂ (=|≤) {after['r_hat']}</b>", after["text"]):
                problems.append(f"δ = {after['delta']}: the read-out {after['text']!r} does not print its r̂")
        drawn = page.evaluate(LOSSES)
        browser.close()
    assert len(moved) == 4, f"the keyboard moved δ to only {sorted(moved)}"
    assert {d["key"] for d in drawn} == set(expected), "the menu offers every complete reading, and only those"
    for key, (_, _, _, budgets) in expected.items():
        offered = sorted({d["budget"] for d in drawn if d["key"] == key})
        if offered != budgets:
            problems.append(f"{key}: the budget slider offers {offered}, the rule reads at {budgets}")
    for d in drawn:
        tokens, gaps, grid, _ = expected[d["key"]]
        read = third.read(tokens, gaps, grid, d["budget"], d["delta"])
        if (d["r_hat"], d["exact"], d["states"]) != (read["r_hat"], read["exact"], read["states"]):
            problems.append(f"{d['key']} at {d['budget']} tokens, δ = {d['delta']}: the page reads r̂ = {d['r_hat']} "
                            f"({d['states']}), the rule {read['r_hat']} ({read['states']})")
    start, stop, step = explorables.DELTAS
    steps = round((stop - start) / step) + 1
    assert len(drawn) == steps * sum(len(b) for *_, b in expected.values()), "every δ at every budget was read"
    assert not problems, "\n".join(problems[:20])
