"""One module per format. Each exposes ``MEDIA_TYPE`` and ``parse(data, stem)``.

``parse`` turns the file's bytes into a :class:`~docuchat.corpus.types.ParsedDocument`
(``stem`` is the file name without its suffix, the title of last resort) or
raises an :class:`~docuchat.errors.IngestError`. The shared helpers live in
``_document`` (layout and offsets) and ``_decode`` (bytes to text).
"""
