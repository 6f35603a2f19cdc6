"""``docuchat ingest``, ``docs`` and ``search`` through click's runner on a real SQLite file."""

from __future__ import annotations

import json
import re
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from .conftest import BAD_REASONS, run, run_json


def test_ingest_summary_lists_counts_and_skipped_files_with_reasons(
    mixed_folder: Path, db: str
) -> None:
    result = run("ingest", str(mixed_folder), "--db", db, "--embedder", "none")

    assert result.exit_code == 1  # some files were skipped
    assert "4 documents (4 added), 4 pages" in result.stdout
    assert "4 skipped" in result.stdout
    for name, reason in BAD_REASONS.items():
        assert any(name in line and reason in line for line in result.stdout.splitlines())


def test_ingest_json_is_one_object_with_files_and_reasons(mixed_folder: Path, db: str) -> None:
    summary = run_json("ingest", str(mixed_folder), "--db", db, "--embedder", "none")

    assert summary["documents"] == summary["added"] == 4
    assert summary["pages"] == 4 and summary["chunks"] >= 4
    assert summary["skipped"] == 4 and summary["embedder"] is None
    assert {Path(s["path"]).name: s["reason"] for s in summary["skipped_files"]} == BAD_REASONS
    assert {f["status"] for f in summary["files"]} == {"added"}


def test_second_run_is_unchanged_and_embeds_nothing_new(good_folder: Path, db: str) -> None:
    first = run_json("ingest", str(good_folder), "--db", db, "--embedder", "hash:32")
    second = run_json("ingest", str(good_folder), "--db", db, "--embedder", "hash:32")

    assert first["embedder"] == "hash-32" and first["embedded"] == first["chunks"]
    assert second["unchanged"] == 4 and second["embedded"] == 0
    assert run("ingest", str(good_folder), "--db", db, "--embedder", "none").exit_code == 0


def test_default_database_lives_in_docuchat_home_or_docuchat_db(
    good_folder: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run("ingest", str(good_folder / "notes.md"), "--embedder", "none")
    assert (home / "docuchat.db").is_file()

    monkeypatch.setenv("DOCUCHAT_DB", str(tmp_path / "elsewhere.db"))
    run("ingest", str(good_folder / "notes.md"), "--embedder", "none")
    assert len(run_json("docs", "list")) == 1
    assert (tmp_path / "elsewhere.db").is_file()


def test_docs_list_and_remove(good_folder: Path, db: str) -> None:
    run("ingest", str(good_folder), "--db", db, "--embedder", "hash:32")
    documents = run_json("docs", "list", "--db", db)
    notes = next(d for d in documents if d["title"] == "Field notes")

    assert len(documents) == 4
    assert {"id", "title", "source", "media_type", "page_count", "chunk_count"} <= notes.keys()
    assert "Field notes" in run("docs", "list", "--db", db).stdout
    removed = run("docs", "remove", notes["id"], "--db", db)
    assert removed.exit_code == 0 and notes["id"] in removed.stdout
    assert notes["id"] not in {d["id"] for d in run_json("docs", "list", "--db", db)}
    again = run("docs", "remove", notes["id"], "--db", db)
    assert again.exit_code == 1 and f"no document '{notes['id']}'" in again.output


def test_docs_list_shows_file_names_one_line_each_within_80_columns(
    good_folder: Path, db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    long_name = good_folder / ("a-report-with-a-very-long-file-name-" * 3 + ".md")
    long_name.write_text("# " + "A title that goes on and on " * 4 + "\n\nSome text.")
    run("ingest", str(good_folder), "--db", db)
    monkeypatch.setenv("COLUMNS", "80")

    lines = run("docs", "list", "--db", db).stdout.splitlines()

    assert max(len(line) for line in lines) <= 80
    rows = [line for line in lines if re.match(r"\s*[0-9a-f]{16} ", line)]
    assert len(rows) == 5  # one line per document, however long its names
    for name in ("notes.md", "volcanoes.txt", "tides.html", "crazyones.pdf"):
        assert any(name in row for row in rows), name
    assert any(row.split()[1].startswith("a-report-with-") and "…" in row for row in rows)


def test_an_empty_store_says_to_run_ingest(db: str) -> None:
    listed = run("docs", "list", "--db", db)
    assert listed.exit_code == 0 and "docuchat ingest PATH" in listed.output
    for command in (["search", "glaciers"], ["ask", "Why do glaciers retreat?"]):
        result = run(*command, "--db", db)
        assert result.exit_code == 1, command
        assert f"no documents yet for owner 'local' in {db}" in result.output
        assert "docuchat ingest PATH" in result.output


def test_search_json_and_text_output(good_folder: Path, db: str) -> None:
    run("ingest", str(good_folder), "--db", db, "--embedder", "hash:32")
    found = run_json("search", "retreating glaciers", "--db", db, "--embedder", "hash:32")

    [best, *_] = found["results"]
    assert best["title"] == "Field notes" and best["bm25_rank"] == 1
    assert best["vector_rank"] is not None
    assert {best["snippet"][s:e].lower() for s, e in best["highlights"]} >= {"glaciers"}
    assert len(run_json("search", "the", "--k", "1", "--db", db)["results"]) == 1
    text = run("search", "magma", "--db", db, "--mode", "bm25").stdout
    assert "1. volcanoes" in text and "Volcanoes erupt when magma rises" in text
    assert "no matching passages" in run("search", "zebra", "--db", db, "--mode", "bm25").stdout


def test_owners_only_see_their_own_documents(good_folder: Path, db: str) -> None:
    run("ingest", str(good_folder), "--db", db, "--embedder", "none", "--owner", "ann")

    assert run_json("docs", "list", "--db", db, "--owner", "bob") == []
    bobs = run("search", "glaciers", "--db", db, "--owner", "bob", "--mode", "bm25")
    assert bobs.exit_code == 1 and "no documents yet for owner 'bob'" in bobs.output
    assert len(run_json("docs", "list", "--db", db, "--owner", "ann")) == 4


def test_bad_embedder_or_database_fail_cleanly_before_writing(
    good_folder: Path, db: str, tmp_path: Path
) -> None:
    bad_spec = run("ingest", str(good_folder), "--db", db, "--embedder", "word2vec")
    assert bad_spec.exit_code == 1 and "unknown embedder 'word2vec'" in bad_spec.output
    assert not Path(db).exists()

    not_a_db = tmp_path / "notes.txt"
    not_a_db.write_text("not a database " * 100)
    broken = run("docs", "list", "--db", str(not_a_db))
    assert broken.exit_code == 1 and "cannot open the database" in broken.output


class _RefusingEmbeddings(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint that refuses every request with a 400."""

    def do_POST(self) -> None:
        body = json.dumps({"error": {"message": "model 'nope' does not exist"}}).encode()
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def refusing_endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _RefusingEmbeddings)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{server.server_port}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    yield
    server.shutdown()
    server.server_close()


@pytest.mark.usefixtures("refusing_endpoint")
def test_an_embedding_failure_keeps_the_text_searchable(good_folder: Path, db: str) -> None:
    result = run("ingest", str(good_folder), "--db", db, "--embedder", "openai:nope", "--json")
    summary = json.loads(result.stdout)

    assert result.exit_code == 1
    assert summary["added"] == 4 and summary["embedded"] == 0
    assert "HTTP 400" in summary["embedding_error"]
    found = run_json("search", "glaciers", "--db", db, "--mode", "bm25")["results"]
    assert found[0]["title"] == "Field notes"


@pytest.mark.parametrize(("spec", "reads"), [("minilm-onnx", True), ("hash", False)])
def test_ingest_builds_the_reader_that_answers_will_read_with(
    onnx_models: Path, home: Path, good_folder: Path, db: str, spec: str, reads: bool
) -> None:
    """The query embedder's model is there already; the reader is built by the ingest (not
    by the first answer), and only for the embedder whose answers are read with it."""
    from docuchat.embeddings import OnnxEmbedder
    from docuchat.research.reader import model_file_in

    (home / "models").mkdir(parents=True)
    embedder_file = OnnxEmbedder.model_file_in(onnx_models)
    shutil.copy(embedder_file, home / "models" / embedder_file.name)

    result = run("ingest", str(good_folder), "--db", db, "--embedder", spec, "--json")

    assert result.exit_code == 0 and json.loads(result.stdout)["embedded"] == 4
    assert model_file_in(home / "models").is_file() is reads


@pytest.mark.usefixtures("onnx_models")  # the embed extra, so that only the folder fails
def test_a_models_folder_that_cannot_be_written_stops_embedding_with_why(
    home: Path, good_folder: Path, db: str
) -> None:
    home.mkdir()
    (home / "models").symlink_to(home / "gone" / "models")  # dangling: mkdir cannot make it

    result = run("ingest", str(good_folder), "--db", db, "--embedder", "minilm-onnx", "--json")
    summary = json.loads(result.stdout)

    assert result.exit_code == 1 and summary["added"] == 4 and summary["embedded"] == 0
    assert summary["embedding_error"].startswith("cannot build the embedder's model in")
    found = run_json("search", "glaciers", "--db", db, "--mode", "bm25")["results"]
    assert found[0]["title"] == "Field notes"


def test_hostile_files_cost_only_themselves_and_each_says_why(tmp_path: Path, db: str) -> None:
    from email.message import EmailMessage

    from corpus.bombs import pdf_bomb

    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "bomb.pdf").write_bytes(pdf_bomb(2 * 1024**3))  # 2 GiB inflated
    for charset in ("rot13", "hex", "base64", "zlib", "punycode", "no-such-charset"):
        (folder / f"{charset}.html").write_text(
            f'<meta charset="{charset}"><p>Declared {charset}, written in UTF-8.</p>'
        )
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "a@example.org", "b@example.org", "Minutes"
    mail.set_content("The minutes are attached.")
    mail.add_attachment(b"Budget approved.", maintype="text", subtype="plain", filename="m.txt")
    mail.add_attachment(b"MZ", maintype="application", subtype="octet-stream", filename="x.exe")
    (folder / "minutes.eml").write_bytes(mail.as_bytes())

    result = run("ingest", str(folder), "--db", db, "--json")

    assert result.exit_code == 1 and "Traceback" not in result.output
    summary = json.loads(result.stdout)
    assert sorted(Path(f["path"]).name for f in summary["files"]) == sorted(
        [f"{c}.html" for c in ("rot13", "hex", "base64", "zlib", "punycode", "no-such-charset")]
        + ["minutes.eml", "minutes.eml › m.txt"]
    )
    skipped = {Path(s["path"]).name: s["reason"] for s in summary["skipped_files"]}
    assert skipped == {
        "bomb.pdf": "exceeds the parse limits",
        "minutes.eml › x.exe": "unsupported file type",
    }
