"""Generated text marked in the built book: every glued Markdown fragment sits in an element of class ``generated``.

The pages' prose mixes sentences written by hand (the argument, the explanation) with sentences generated from the
stored results (``{glue:md}`` roles and directives; Markdown that a cell displays sits in the cell's output). This
Sphinx extension (listed in ``_config.yml``) wraps what a ``glue:md`` role pastes in ``<span class="generated">``
and what a ``glue:md`` directive pastes in ``<div class="generated">``, so that the book's sentence check
(``publish.sentences``) can tell a sentence the data wrote from one typed by hand. It changes nothing a reader sees.
"""

from __future__ import annotations

from docutils import nodes
from myst_nb.ext.glue.directives import PasteMarkdownDirective
from myst_nb.ext.glue.domain import NbGlueDomain
from myst_nb.ext.glue.roles import PasteMarkdownRole

CLASS = "generated"


class GeneratedMarkdownRole(PasteMarkdownRole):
    """``{glue:md}`` whose pasted inline nodes sit in one ``inline`` node of class ``generated``."""

    def run(self):
        pasted, messages = super().run()
        return ([nodes.inline("", "", *pasted, classes=[CLASS])] if pasted else pasted), messages


class GeneratedMarkdownDirective(PasteMarkdownDirective):
    """The ``glue:md`` directive whose pasted blocks sit in one ``container`` of class ``generated``."""

    def run(self):
        pasted = super().run()
        blocks = [node for node in pasted if not isinstance(node, nodes.system_message)]
        if not blocks:
            return pasted
        return [nodes.container("", *blocks, classes=[CLASS]),
                *[node for node in pasted if isinstance(node, nodes.system_message)]]


class GeneratedGlueDomain(NbGlueDomain):
    """myst-nb's glue domain with its Markdown role and directive marking what they paste."""

    roles = {**NbGlueDomain.roles, "md": GeneratedMarkdownRole()}  # noqa: RUF012  (Sphinx's Domain declares them so)
    directives = {**NbGlueDomain.directives, "md": GeneratedMarkdownDirective}  # noqa: RUF012


def setup(app):
    app.add_domain(GeneratedGlueDomain, override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
