#!/usr/bin/env python3
"""Runs the examples with a given interpreter (the venv the built wheel went into) against a real
Lightbox started here, from a directory outside the source tree so the installed package is the
one imported. Used by scripts/ci.sh; standard library plus httpx (to wait for the server)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support import Server  # noqa: E402

PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
MP4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"


def main() -> int:
    python = sys.argv[1]
    server = Server().start()
    try:
        server.account("owner@example.example")
        key = server.key("owner@example.example")
        env = {**os.environ, "LIGHTBOX_API_KEY": key, "LIGHTBOX_BASE_URL": server.url}
        env.pop("PYTHONPATH", None)
        with tempfile.TemporaryDirectory() as work:
            where = subprocess.run(
                [python, "-c", "import lightbox; print(lightbox.__file__)"], cwd=work, env=env,
                capture_output=True, text=True, check=True,
            ).stdout.strip()
            if str(ROOT / "src") in where:
                raise SystemExit(f"the example would use the source tree ({where}), not the installed wheel")
            print(f"lightbox imported from {where}")
            plan = Path(work, "floorplan.pdf")
            plan.write_bytes(PDF)
            subprocess.run([python, str(ROOT / "examples" / "quickstart.py"), str(plan)], cwd=work, env=env, check=True)
            video = Path(work, "tour.mp4")
            video.write_bytes(MP4 + os.urandom(3 * 1024 * 1024))
            gallery = subprocess.run(
                [python, "-c", "from lightbox import Lightbox; print(Lightbox().listings.create(address='1 Example St').id)"],
                cwd=work, env=env, capture_output=True, text=True, check=True,
            ).stdout.strip()
            subprocess.run(
                [python, str(ROOT / "examples" / "resumable_upload.py"), gallery, str(video)], cwd=work, env=env, check=True
            )
            # The incremental sync recipe needs a section 19 server (updated_since, sort, cursors).
            document = httpx.get(server.url + "/v1/openapi.json").json()
            names = {p.get("name") for p in document["paths"]["/v1/listings"]["get"].get("parameters", [])}
            if "updated_since" in names:
                state = Path(work, "sync-state")
                subprocess.run([python, str(ROOT / "examples" / "incremental_sync.py"), str(state)], cwd=work, env=env, check=True)
                assert state.exists()
            else:
                print("skipped examples/incremental_sync.py: this server has no updated_since yet (docs/api.md §19)")
    finally:
        server.stop()
    print("the examples ran against a real server with the installed wheel")
    return 0


if __name__ == "__main__":
    sys.exit(main())
