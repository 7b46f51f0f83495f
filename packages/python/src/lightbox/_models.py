"""Typed models with attribute access, and the small values every call shares.

A model is built from the API's JSON: declared fields become attributes (nested objects become
their model, lists of objects lists of models); a field the API added after this version was
generated is kept too, as an attribute and in ``to_dict()``, so a newer server never breaks an
older library.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypedDict, TypeVar

import httpx

__all__ = [
    "Model",
    "LightboxObject",
    "NotGiven",
    "NOT_GIVEN",
    "NotModified",
    "ResponseInfo",
    "RequestOptions",
]

M = TypeVar("M", bound="Model")
Converter = Callable[[Any], Any]


@dataclass(frozen=True)
class ResponseInfo:
    """What came with an answer: its status, headers, ``X-Request-Id`` and ``ETag``."""

    status: int
    headers: httpx.Headers
    request_id: str | None
    etag: str | None

    @classmethod
    def of(cls, response: httpx.Response) -> ResponseInfo:
        headers = response.headers
        return cls(response.status_code, headers, headers.get("x-request-id"), headers.get("etag"))


class NotModified:
    """What a conditional GET answers when the resource has not changed since ``if_none_match`` (304)."""

    not_modified = True

    def __init__(self, last_response: ResponseInfo) -> None:
        self.last_response = last_response
        self.etag = last_response.etag

    def __repr__(self) -> str:
        return f"NotModified(etag={self.etag!r})"


class NotGiven:
    """The default of optional body fields: absent from the request (``None`` sends JSON null)."""

    _instance: ClassVar[NotGiven | None] = None

    def __new__(cls) -> NotGiven:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()


class RequestOptions(TypedDict, total=False):
    """Per-call options, passed as ``request_options={...}`` to any method."""

    timeout: float
    """Seconds each attempt may take (overrides the client's ``timeout``)."""
    max_retries: int
    """Retries after the first attempt (overrides the client's ``max_retries``)."""
    idempotency_key: str
    """For POSTs: the Idempotency-Key (one is generated when absent)."""
    headers: Mapping[str, str]
    """Extra request headers."""
    extra_query: Mapping[str, Any]
    """Extra query parameters (e.g. a filter newer than this version of the library); None values are left out."""


def _convert_unknown(value: Any) -> Any:
    if isinstance(value, dict):
        return LightboxObject(value)
    if isinstance(value, list):
        return [_convert_unknown(v) for v in value]
    return value


class Model:
    """Base of every generated model: attribute access, ``to_dict()``, equality by content."""

    _converters: ClassVar[dict[str, Converter]] = {}
    last_response: ResponseInfo | None

    def __init__(self, data: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_data", dict(data))
        object.__setattr__(self, "last_response", None)
        converters = type(self)._converters
        annotations = _declared(type(self))
        for key, value in data.items():
            if not key.isidentifier():
                continue
            convert = converters.get(key)
            if convert is not None and value is not None:
                value = convert(value)
            elif key not in annotations:
                value = _convert_unknown(value)
            object.__setattr__(self, key, value)

    @classmethod
    def from_dict(cls: type[M], data: Mapping[str, Any]) -> M:
        return cls(data)

    def to_dict(self) -> dict[str, Any]:
        """The object as the API sent it (JSON types, a copy)."""
        copied: dict[str, Any] = _copy(self._data)
        return copied

    def __getattr__(self, name: str) -> Any:
        # Only called for attributes that were not set: a declared field the server did not send.
        if name.startswith("__") or name not in _declared(type(self)):
            raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")
        return None

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._data == other._data  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._data if k.isidentifier())
        return f"{type(self).__name__}({fields})"


class LightboxObject(Model):
    """An object without a declared schema (an event's ``data.object``): any field by attribute."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"this object has no attribute {name!r}")


_DECLARED: dict[type, frozenset[str]] = {}


def _declared(cls: type) -> frozenset[str]:
    names = _DECLARED.get(cls)
    if names is None:
        collected: set[str] = set()
        for klass in cls.__mro__:
            collected.update(getattr(klass, "__annotations__", {}))
        names = frozenset(collected - {"last_response", "_converters"})
        _DECLARED[cls] = names
    return names


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def model(cls: type[Model]) -> Converter:
    """A converter making ``cls`` of a JSON object (generated code uses it)."""
    return cls


def one_of(*classes: type[Model]) -> Converter:
    """A converter for a union of models (an ``anyOf`` of object schemas, such as a photo's or a
    video's ``variants``): the class whose declared fields best fit the object's, the first on a tie."""

    def fit(cls: type[Model], keys: set[str]) -> int:
        declared = _declared(cls)
        return len(keys & declared) - len(declared - keys)

    def run(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        keys = set(value)
        return max(classes, key=lambda cls: fit(cls, keys))(value)

    return run


def list_of(convert: Converter) -> Converter:
    def run(value: Any) -> Any:
        return [None if v is None else convert(v) for v in value]

    return run
