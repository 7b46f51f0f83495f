"""Bases of the resource classes (generated and hand-written) and helpers their methods share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ._models import NotGiven

if TYPE_CHECKING:
    from ._core import AsyncHTTP, SyncHTTP


class SyncAPIResource:
    def __init__(self, http: SyncHTTP) -> None:
        self._http = http


class AsyncAPIResource:
    def __init__(self, http: AsyncHTTP) -> None:
        self._http = http


def _seg(value: str) -> str:
    """A path segment: ids are opaque, so escape everything (a bad id is simply not found)."""
    return quote(str(value), safe="")


def _body(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON body of keyword arguments, leaving out those not given."""
    out: dict[str, Any] = {}
    for key, value in fields.items():
        if isinstance(value, NotGiven):
            continue
        out[key] = list(value) if isinstance(value, tuple) else value
    return out
