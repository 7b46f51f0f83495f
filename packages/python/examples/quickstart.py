"""The README's quick start: a gallery, its files, a client who gets the link.

    LIGHTBOX_API_KEY=lbx_... LIGHTBOX_BASE_URL=https://lightbox.example.com \\
        python examples/quickstart.py front.jpg floorplan.pdf
"""

from __future__ import annotations

import sys

from lightbox import Lightbox


def main(paths: list[str]) -> None:
    with Lightbox() as lb:  # LIGHTBOX_API_KEY and LIGHTBOX_BASE_URL
        gallery = lb.listings.create(address="12 Harbour Rd, Portsmouth", beds=3)
        media = lb.media.upload(gallery.id, paths)
        lb.listings.update(gallery.id, status="active")

        client = lb.clients.create(name="Ada Byron", email="ada@example.com")
        assigned = lb.clients.assign(client.id, gallery.id)  # emails Ada her gallery link

        link = assigned.client_link.url if assigned.client_link else None
        print(f"gallery {gallery.id}: {len(media)} files, link {link}")
        for item in lb.listings.list(status="active"):
            print(item.id, item.address)


if __name__ == "__main__":
    main(sys.argv[1:])
