"""Memory of a server while large uploads arrive at once, and after they are ingested.

Issue 13 saw six uploads of 304 MB in all take a server from 141 to 900 MB,
and 798 MB stay after the jobs were done: the uploads were held in memory
until ingested. Here ``--uploads`` clients each send one upload at the same
moment (a ``--mb`` MB HTML file, which the parser reads whole, and a 2 MB text
file that is chunked and stored), and the server's RSS is sampled every 50 ms
until every job is done, then once more a few seconds later.

    python bench/upload_memory.py                      # this tree
    PYTHONPATH=/work/main/src python bench/upload_memory.py   # another tree, same load
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from load_server import BENCH, _auth, add_users, process, rss_mb

SETTLE_S = 3.0


def html_file(mb: int, n: int) -> bytes:
    padding = os.urandom(mb * 512 * 1024).hex()
    return (
        f"<html><head><title>Upload {n}</title><script>{padding}</script></head>"
        f"<body><p>The secret code of upload {n} is {n * 7}.</p></body></html>"
    ).encode()


def text_file(n: int) -> bytes:
    line = f"Upload {n} line {{}}: the plants of the office are watered on Mondays.\n"
    return "".join(line.format(i) for i in range(30_000)).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=6)
    parser.add_argument("--mb", type=int, default=48, help="size of each upload's HTML file")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), BENCH]))
    with tempfile.TemporaryDirectory() as home:
        db = Path(home) / "docuchat.db"
        [key] = add_users(db)[:1]
        env["DOCUCHAT_HOME"] = home
        serve = [sys.executable, "-c", "from docuchat.cli.main import main; main()", "serve"]
        serve += ["--port", "0", "--db", str(db), "--embedder", "none", "--no-access-log"]
        with process(serve, env, r"running on (http://\S+)") as (server, base):
            uploads = [
                {
                    "files": [
                        (f"big-{n}.html", html_file(args.mb, n)),
                        (f"notes-{n}.txt", text_file(n)),
                    ]
                }
                for n in range(args.uploads)
            ]
            total = sum(len(d) for u in uploads for _, d in u["files"])
            with httpx.Client(base_url=base, timeout=600) as client:
                baseline = rss_mb(server.pid)
                samples: list[float] = []
                stop = threading.Event()

                def sample() -> None:
                    while not stop.is_set():
                        samples.append(rss_mb(server.pid))
                        time.sleep(0.05)

                sampler = threading.Thread(target=sample)
                sampler.start()
                started = time.monotonic()
                jobs: list[str] = []
                statuses: list[int] = []

                def send(upload: dict[str, list[tuple[str, bytes]]]) -> None:
                    files = [("files", f) for f in upload["files"]]
                    with httpx.Client(base_url=base, timeout=600) as own:
                        response = own.post("/api/documents", headers=_auth(key), files=files)
                    statuses.append(response.status_code)
                    if response.status_code == 202:
                        jobs.append(response.json()["job_id"])

                senders = [threading.Thread(target=send, args=(u,)) for u in uploads]
                for thread in senders:
                    thread.start()
                for thread in senders:
                    thread.join()
                accepted = time.monotonic() - started
                del uploads
                for job_id in jobs:
                    while client.get(f"/api/jobs/{job_id}", headers=_auth(key)).json()[
                        "status"
                    ] not in ("done", "failed"):
                        time.sleep(0.1)
                ingested = time.monotonic() - started
                stop.set()
                sampler.join()
                time.sleep(SETTLE_S)
                after = rss_mb(server.pid)
    print(f"uploads: {args.uploads} x {args.mb + 2} MB = {total / 1e6:.0f} MB; statuses {statuses}")
    print(f"accepted in {accepted:.1f} s, all ingested in {ingested:.1f} s")
    print(
        f"server RSS MB: before {baseline:.0f}, peak {max(samples):.0f},"
        f" {SETTLE_S:.0f} s after the jobs {after:.0f}"
    )


if __name__ == "__main__":
    main()
