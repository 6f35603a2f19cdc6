"""Documents in, passages out: parsing (``parse``) and chunking (``chunking``).

``parse.parse_file`` / ``parse.parse_bytes`` turn a PDF, DOCX, HTML, Markdown
or text file into a :class:`~docuchat.corpus.types.ParsedDocument`;
``chunking.chunk_document`` cuts it into :class:`~docuchat.corpus.types.Chunk`
objects whose offsets point back into the document's text.
"""
