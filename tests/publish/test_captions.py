"""A table's caption sits above the box that scrolls, never inside it (publish/captions.py)."""

from entropic.publish.captions import lift_captions

TABLE = ('<p>before</p><div class="pst-scrollable-table-container"><table class="table" id="tbl-x">\n'
         '<caption><span class="caption-number">Table R1.1 </span><span class="caption-text">Wide.</span>'
         '<a class="headerlink" href="#tbl-x">#</a></caption>\n<thead><tr><th>a</th></tr></thead>'
         '<tbody><tr><td>1</td></tr></tbody>\n</table>\n</div><p>after</p>')


def test_the_caption_leaves_the_scrolling_box_and_the_figure_takes_the_tables_id():
    html = lift_captions(TABLE)
    figure = html[html.index("<figure"):html.index("</figure>")]
    assert '<figure class="entropic-table" id="tbl-x">' in figure
    assert figure.index("<figcaption>") < figure.index('<div class="pst-scrollable-table-container">')
    assert "<caption>" not in html and 'id="tbl-x"' not in figure[figure.index("<table"):]
    assert "Table R1.1" in figure and 'href="#tbl-x"' in figure
    assert html.startswith("<p>before</p>") and html.endswith("<p>after</p>")


def test_a_table_without_a_caption_and_two_tables_in_a_row_are_handled():
    bare = '<div class="pst-scrollable-table-container"><table class="table">\n<tbody></tbody>\n</table>\n</div>'
    assert lift_captions(bare) == bare
    assert lift_captions(TABLE + TABLE.replace("tbl-x", "tbl-y")).count("<figure") == 2
