"""The book's code: a section page's pieces (``page``, ``banner``, ``captions``), the generated pages
(``intro``, ``ledger``), papermill and Jupyter Book (``build``; its pages' kernels, forked warm: ``kernels``), the
site's links and launch buttons (``site``, ``launch``) and the PDF (``pdf``)."""
