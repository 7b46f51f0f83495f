"""The Python library for the Lightbox API: galleries, media, clients, webhooks.

>>> from lightbox import Lightbox
>>> lb = Lightbox(api_key="lbx_...", base_url="https://lightbox.example.com")
>>> gallery = lb.listings.create(address="12 Harbour Rd, Portsmouth", beds=3)
"""

from ._client import AsyncLightbox, Lightbox
from ._core import VERSION as __version__
from ._errors import (
    AuthenticationError,
    ConflictError,
    ConnectionError,
    FetchFailedError,
    InternalServerError,
    LightboxError,
    MethodNotAllowedError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionError,
    PreconditionFailedError,
    RangeNotSatisfiableError,
    RateLimitError,
    RequestTimeoutError,
    ServiceUnavailableError,
    TimeoutError,
    UnprocessableEntityError,
    UnsupportedMediaTypeError,
    ValidationError,
    WebhookVerificationError,
)
from ._generated.models import *  # noqa: F403 - every model and enum alias
from ._generated.models import __all__ as _models_all
from ._models import NOT_GIVEN, LightboxObject, Model, NotGiven, NotModified, RequestOptions, ResponseInfo
from ._pagination import AsyncPage, SyncPage
from ._uploads import FileInput, UploadCapabilities
from ._webhooks import Webhooks, verify_webhook

__all__ = [
    "Lightbox",
    "AsyncLightbox",
    "__version__",
    "LightboxError",
    "ValidationError",
    "AuthenticationError",
    "PermissionError",
    "NotFoundError",
    "MethodNotAllowedError",
    "RequestTimeoutError",
    "ConflictError",
    "PreconditionFailedError",
    "PayloadTooLargeError",
    "UnsupportedMediaTypeError",
    "RangeNotSatisfiableError",
    "UnprocessableEntityError",
    "FetchFailedError",
    "RateLimitError",
    "InternalServerError",
    "ServiceUnavailableError",
    "ConnectionError",
    "TimeoutError",
    "WebhookVerificationError",
    "NOT_GIVEN",
    "NotGiven",
    "NotModified",
    "Model",
    "LightboxObject",
    "RequestOptions",
    "ResponseInfo",
    "SyncPage",
    "AsyncPage",
    "FileInput",
    "UploadCapabilities",
    "Webhooks",
    "verify_webhook",
    *_models_all,
]
