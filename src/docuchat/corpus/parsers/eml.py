"""E-mail (.eml) through the stdlib ``email`` package: headers, body, attachments.

The stdlib parser is the reference implementation of RFC 5322 and MIME (encoded
words, transfer encodings, nested parts) and needs nothing else. The document is
the headers a reader looks at (From, To, Cc, Date, Subject) as one block, then the
body: the plain-text part, else the HTML part read like any page. Parts whose
charset is unknown are decoded as text files are (charset-normalizer's guess).
Attachments are handed back to be ingested as documents of their own.
"""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage, Message

import lxml.html
from lxml import etree

from docuchat.corpus.parsers._decode import decode_text, text_codec
from docuchat.corpus.parsers._document import DocumentBuilder, pick_title
from docuchat.corpus.parsers.html import visible_blocks
from docuchat.corpus.types import Attachment, ParsedDocument, Section
from docuchat.errors import ParseLimitExceeded, UnsupportedFileType

MEDIA_TYPE = "message/rfc822"
MAX_ATTACHMENTS = 100
_SHOWN_HEADERS = ("From", "To", "Cc", "Date", "Subject")
_HEADERS = Section("Headers", instead_of_page=True)
_BODY = Section("Body", instead_of_page=True)


def parse(data: bytes, stem: str) -> ParsedDocument:
    message = email.message_from_bytes(data, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    shown = [(name, _header(message, name)) for name in _SHOWN_HEADERS]
    if not any(value for _, value in shown[:3]) or (message.defects and not message.keys()):
        raise UnsupportedFileType("the content is not an e-mail (no From, To or Cc header)")
    builder = DocumentBuilder()
    builder.add("\n".join(f"{name}: {value}" for name, value in shown if value), 1, place=_HEADERS)
    body = message.get_body(preferencelist=("plain", "html"))
    if body is not None:
        text = _text(body)
        if body.get_content_subtype() == "html":
            for block in _html_blocks(text):
                builder.add(block, 1, place=_BODY)
        else:
            for paragraph in text.replace("\r\n", "\n").split("\n\n"):
                builder.add(paragraph, 1, place=_BODY)
    return builder.build(
        title=pick_title(_header(message, "Subject"), fallback=stem),
        page_count=1,
        media_type=MEDIA_TYPE,
        metadata={"attachments": len(attachments := _attachments(message))},
        attachments=attachments,
    )


def _header(message: Message, name: str) -> str:
    try:
        return " ".join(str(message.get(name, "")).split())
    except (ValueError, LookupError):  # a malformed encoded word: the raw header
        return " ".join(str(message.get_all(name, [""])[0]).split())


def _text(part: Message) -> str:
    payload = part.get_payload(decode=True)
    data = payload if isinstance(payload, bytes) else b""
    codec = text_codec(part.get_content_charset() or "utf-8")
    try:
        if codec:
            return data.decode(codec)
    except UnicodeError:
        pass
    return decode_text(data)[0] if data.strip() else ""


def _html_blocks(markup: str) -> list[str]:
    try:
        return list(visible_blocks(lxml.html.document_fromstring(markup)))
    except (etree.ParserError, ValueError):
        return []


def _attachments(message: EmailMessage) -> tuple[Attachment, ...]:
    found = []
    for part in message.iter_attachments():
        name = part.get_filename() or ""
        if part.get_content_type() == "message/rfc822":
            inner = part.get_payload()  # the stdlib parses it into a one-item list
            attached = inner[0] if isinstance(inner, list) and inner else None
            data = attached.as_bytes() if isinstance(attached, Message) else b""
            name = name or "attached message.eml"
        else:
            payload = part.get_payload(decode=True)
            data = payload if isinstance(payload, bytes) else b""
        if name and data:
            found.append(Attachment(name, data))
    if len(found) > MAX_ATTACHMENTS:
        raise ParseLimitExceeded(
            f"the e-mail has {len(found)} attachments (limit {MAX_ATTACHMENTS})"
        )
    return tuple(found)
