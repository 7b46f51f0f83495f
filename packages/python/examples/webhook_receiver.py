"""A webhook receiver on the standard library: verify, deduplicate, answer 204.

    LIGHTBOX_WEBHOOK_SECRET=whsec_... python examples/webhook_receiver.py 8000
"""

from __future__ import annotations

import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from lightbox import WebhookVerificationError, verify_webhook

SECRET = os.environ.get("LIGHTBOX_WEBHOOK_SECRET", "")
seen: set[str] = set()


class Hook(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", "0")))  # the raw body
        try:
            event = verify_webhook(body, self.headers, SECRET)
        except WebhookVerificationError as err:
            self.send_error(400, err.message)
            return
        if event.id not in seen:  # delivery is at least once: deduplicate by event id
            seen.add(event.id)
            print(event.type, event.data.object.to_dict().get("id"))
        self.send_response(204)
        self.end_headers()


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 8000), Hook).serve_forever()
