"""The printed book's arrangement: the single-page build turned into a preprint before Chromium prints it
(``publish.pdf``). Two scripts run in the page: :data:`PREPRINT` before the first print, :data:`NUMBER_PAGES`
between the first print and the second.

What :data:`PREPRINT` does, in order:

- the site's controls leave (header links, copy and toggle buttons, launch buttons, a fold's "Hide the …" line);
- the abstract moves from the intro to a title page (printed once), followed by a contents page;
- what a web page folds beneath its findings leaves the chapter. A fold that proves or derives (it holds a proof
  or a numbered equation) moves whole into an appendix part at the end; of every other fold only its numbered
  tables and figures with their captions move there. The rest of such a fold (settings in prose, declarations,
  provenance, re-run commands) stays on the web page. Each chapter says, under its opening paragraph, what of its
  folds the appendix prints;
- a chapter that teaches (it holds exercises) prints whole instead: its folds open in place, solutions, plan, key
  formulas and discussion questions included, its provenance and rebuild commands left out;
- a section left empty (its heading alone, as "The evidence" once its folds have moved) leaves too;

Used by ``publish.pdf``; the print style that goes with it is ``_assets/print.css``.
"""

from __future__ import annotations

# Selectors shared by the script and the tests that read the printed book.
CONTROLS = (".headerlink, .copybtn, .toggle-button, button, .sd-summary-state-marker, .sd-summary-chevron-right, "
            ".sd-summary-chevron-down, .dropdown-launch-buttons, .article-header-buttons, .onlyprint, script, "
            "summary .expanded, .web-only")  # .web-only: what only the web book says (its PDF link, the downloads)
FOLDS = "details.evidence, details.provenance, div.evidence, div.provenance, details.hide, div.solution"
ARGUMENT = "div.proof, span.eqno"  # a fold holding one of these proves or derives: it prints whole
KEPT = "figure, table"  # what the appendix prints of every other fold (a table's caption is its own)

PREPRINT = r"""({front, CONTROLS, FOLDS, ARGUMENT, KEPT}) => {
  const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];
  const isHeading = e => /^H[1-6]$/.test(e.tagName);
  $$(CONTROLS).forEach(e => e.remove());  // .onlyprint: the theme's printed title and page contents (ours follow)
  $$('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  const body = document.querySelector('.bd-article') || document.body;
  const chapters = $$('span[id^="document-"] + section', body);
  const appendix = document.createElement('section');
  appendix.className = 'evidence-appendix';
  appendix.innerHTML = '<h1 class="preprint-part">Appendix: the evidence</h1><p>What each chapter\'s web page folds '
    + 'beneath its findings, in the order of the chapters: proofs and derivations whole, and of every other fold its '
    + 'tables and figures with their captions. The settings, declarations, provenance and re-run commands of the '
    + 'folds are on the web pages.</p>';
  // A fold's part in the appendix: a proof's fold whole and open (its title a line of its own), of any other
  // fold its tables and figures.
  const printed = fold => {
    if (!fold.querySelector(ARGUMENT)) return $$(KEPT, fold).filter(e => !e.parentElement.closest(KEPT));
    $$('details', fold).concat(fold.matches('details') ? [fold] : []).forEach(d => { d.open = true; });
    const whole = document.createElement('div');
    whole.className = 'fold-whole';
    const summary = fold.querySelector(':scope > summary');
    if (summary) {
      const title = document.createElement('p');
      title.className = 'fold-title'; title.innerHTML = summary.innerHTML;
      summary.remove(); whole.appendChild(title);
    }
    whole.append(...(fold.querySelector(':scope > .sd-summary-content') || fold).childNodes);
    return [whole];
  };
  const count = (n, one, many) => n ? `${n} ${n === 1 ? one : many}` : '';
  // The folds of ``root`` (none inside ``others``) leave it; what the appendix prints of them goes under "Evidence for
  // ``title``", and a line under the root's opening paragraph says so.
  const gather = (root, title, others) => {
    const folds = $$(FOLDS, root).filter(e => !e.parentElement.closest(FOLDS) && !others.some(o => o.contains(e)));
    const moved = folds.flatMap(printed);
    folds.forEach(fold => fold.remove());
    if (!moved.length) return;
    const part = document.createElement('section');
    part.className = 'evidence-chapter';
    part.innerHTML = `<h2>Evidence for ${title}</h2>`;
    part.append(...moved);
    appendix.appendChild(part);
    const tables = moved.filter(e => e.matches('table, figure.entropic-table')).length;
    const figures = moved.filter(e => e.matches('figure:not(.entropic-table)')).length;
    const what = [count(moved.length - tables - figures, 'proof or derivation', 'proofs or derivations'),
                  count(tables, 'table', 'tables'), count(figures, 'figure', 'figures')]
      .filter(Boolean).join(', ').replace(/, ([^,]*)$/, ' and $1');
    const note = document.createElement('p');
    note.className = 'evidence-note';
    note.textContent = `Printed in the appendix, under "Evidence for ${title}": the ${what} that the web page folds.`;
    const heading = [...root.children].find(isHeading);
    const opening = [...root.children].find(e => e.tagName === 'P' && heading
                                              && heading.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING);
    (opening || heading || root.firstChild).after(note);
  };
  const titles = chapters.map((chapter, k) => {
    const heading = [...chapter.children].find(isHeading);  // its title, at any depth
    const title = heading ? heading.textContent.replace(/#$/, '').trim() : `Chapter ${k + 1}`;
    if (heading) {
      const mark = document.createElement('span');
      mark.className = 'preprint-marker'; mark.textContent = `@@chapter-${k + 1}@@`;
      heading.prepend(mark);
    }
    return title;
  });
  const intro = body.querySelector('section');
  // A chapter that teaches (it holds exercises) prints whole, as a teacher hands it out: its folds open in place,
  // the exercises' solutions, the lesson plan, the key formulas and the discussion questions included; only its
  // provenance and the commands that rebuild it leave.
  const whole = chapter => {
    $$('details.provenance, div.provenance', chapter).forEach(e => e.remove());
    $$('details', chapter).reverse().forEach(d => {  // innermost first; a fold becomes a block with its title
      const summary = d.querySelector(':scope > summary');
      if (summary && /^Re-run/.test(summary.textContent.trim())) { d.remove(); return; }
      const block = document.createElement('div');
      block.className = 'fold-whole';
      if (summary) {
        const title = document.createElement('p');
        title.className = 'fold-title'; title.innerHTML = summary.innerHTML;
        summary.remove(); block.appendChild(title);
      }
      block.append(...(d.querySelector(':scope > .sd-summary-content') || d).childNodes);
      d.replaceWith(block);
    });
  };
  if (intro && !chapters.includes(intro)) gather(intro, 'the introduction', chapters);
  chapters.forEach((chapter, k) => (chapter.querySelector('.exercise') ? whole(chapter)
                                                                     : gather(chapter, titles[k], [])));
  body.appendChild(appendix);
  // what the folds leave empty (a code cell's output box, a section with its heading alone) leaves too
  const empty = e => !e.textContent.trim() && !e.querySelector('img, svg, table, mjx-container');
  $$('div.cell', body).filter(empty).forEach(e => e.remove());
  $$('section', body).reverse().forEach(section => {
    if ([...section.children].filter(e => !isHeading(e)).every(empty)) section.remove();
  });
  const page = document.createElement('section');
  page.className = 'preprint-front';
  const abstract = document.querySelector('.abstract');
  page.innerHTML = `<div class="title-page"><h1>${front.title}</h1><p class="subtitle">${front.subtitle}</p>`
    + `<p class="meta">${front.meta}</p>` + (abstract ? `<h2>Abstract</h2>${abstract.innerHTML}` : '') + '</div>'
    + '<div class="contents-page"><h2>Contents</h2><ol class="contents">'
    + titles.map((t, k) => `<li><span class="entry">${t}</span>`
                           + `<span class="page" data-chapter="${k + 1}">000</span></li>`).join('')
    + '<li><span class="entry">Appendix: the evidence</span><span class="page" data-chapter="evidence">000</span></li>'
    + '</ol></div>';
  if (abstract) abstract.remove();  // printed once, on the title page
  const marker = document.createElement('span');
  marker.className = 'preprint-marker'; marker.textContent = '@@chapter-evidence@@';
  appendix.querySelector('h1').prepend(marker);
  body.prepend(page);
  document.querySelectorAll('img').forEach(i => { i.loading = 'eager'; });
  // Every link leads inside the PDF or to the published site, never to a file of the machine that prints it: a link
  // whose target is on this page points there; a link to another page of the book goes to that page's chapter here,
  // or, with its fragment not printed, to the page on the site; anything else of the build (a download, the PDF
  // itself) goes to the site, and without a site the link leaves, its text staying.
  const docs = $$('span[id^="document-"]').map(e => e.id.slice('document-'.length));
  const unwrap = a => a.replaceWith(...a.childNodes);
  $$('a[href]').forEach(a => {
    const href = a.getAttribute('href');
    if (/^(https?:|mailto:)/.test(href)) return;
    const [path, frag] = [href.split('#')[0], decodeURIComponent(href.split('#')[1] || '')];
    if (frag && document.getElementById(frag)) { a.setAttribute('href', '#' + frag); return; }
    const page = path.replace(/^(\.\.\/|\.\/)*/, '').replace(/^file:\/\/.*?_build\/singlehtml\//, '');
    const name = page.replace(/\.html$/, '');
    const doc = docs.find(d => d === name || d.endsWith('/' + name));
    if (doc !== undefined && !frag && path.endsWith('.html')) { a.setAttribute('href', '#document-' + doc); return; }
    if (front.site && page) {
      const where = doc !== undefined ? doc + '.html' : page;
      a.setAttribute('href', front.site + where + (frag ? '#' + encodeURIComponent(frag) : ''));
      return;
    }
    unwrap(a);
  });
  return titles;
}"""



def arguments(front: dict[str, str]) -> dict:
    """What :data:`PREPRINT` is called with: the title page's ``title``, ``subtitle`` and ``meta`` lines (``front``)
    and the selectors above."""
    return {"front": front, "CONTROLS": CONTROLS, "FOLDS": FOLDS, "ARGUMENT": ARGUMENT, "KEPT": KEPT}


# The second pass: the contents get the page numbers the first pass found, and the markers leave.
NUMBER_PAGES = r"""(pages) => {
  document.querySelectorAll('.contents .page').forEach(e => { e.textContent = pages[e.dataset.chapter] ?? ''; });
  document.querySelectorAll('.preprint-marker').forEach(e => e.remove());
}"""
