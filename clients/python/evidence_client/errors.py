"""Exceptions, one class per HTTP error class the server answers with.

Every error the server sends is ``{"error": {"code", "message"}}``; the
exception carries the status, the code, the message and the decoded body.
Catch :class:`EvidenceError` for all of them, or a subclass for one class:

====================================  ======  =================================
exception                             status  when
====================================  ======  =================================
:class:`BadRequestError`              400     the request is malformed (the message names the field)
:class:`UnauthorizedError`            401     no token, or an unknown one
:class:`ForbiddenError`               403     the token may not act for the principal, or the route needs another token
:class:`NotFoundError`                404     no such document, version or trace (or the caller may not read it)
:class:`MethodNotAllowedError`        405     a method the route is not served for
:class:`ConflictError`                409     an upload of a deleted document, version or bytes (``result``)
:class:`GoneError`                    410     the document or version is a tombstone
:class:`PayloadTooLargeError`         413     over the server's ``--max-body`` / ``--max-upload``
:class:`UnsupportedMediaTypeError`    415     a file type the server does not ingest
:class:`UnprocessableError`           422     an ingest that failed or an import the quarantine gate rejected (``result``)
:class:`ServerError`                  5xx     the server failed (``internal``) or is unavailable
:class:`TransportError`               --      no HTTP answer at all (connection refused, timeout)
====================================  ======  =================================

:class:`UnauthorizedError` and :class:`ForbiddenError` share the base
:class:`AuthError` (401/403).
"""

from __future__ import annotations

from typing import Any, Dict, Optional


class EvidenceError(Exception):
    """An error answer of the evidence server (or no answer, for TransportError)."""

    status: int = 0

    def __init__(self, status: int, code: str, message: str, body: Any = None, method: str = "", path: str = ""):
        self.status = status
        self.code = code
        self.message = message
        self.body = body
        self.method = method
        self.path = path
        where = f"{method} {path}: " if method else ""
        super().__init__(f"{where}{status} {code}: {message}" if status else f"{where}{message}")


class BadRequestError(EvidenceError):
    """400: the request is malformed; the message names the field."""


class AuthError(EvidenceError):
    """401 or 403: the caller is not who may do this."""


class UnauthorizedError(AuthError):
    """401: no bearer token, or one the server does not know."""


class ForbiddenError(AuthError):
    """403: the token may not act for that principal, or the route needs another kind of token."""


class NotFoundError(EvidenceError):
    """404: no such document, version, trace or route (or one the caller may not read)."""


class MethodNotAllowedError(EvidenceError):
    """405: the path is not served for this method."""


class _WithResult(EvidenceError):
    """An error whose body is an ingest result rather than an error object."""

    def __init__(self, status: int, code: str, message: str, body: Any = None, method: str = "", path: str = "",
                 result: Any = None):
        super().__init__(status, code, message, body, method, path)
        #: the :class:`~evidence_client.types.IngestResult` the server answered with, if any
        self.result = result


class ConflictError(_WithResult):
    """409: the upload's document, version or bytes were deleted; pass ``undelete=True`` to store them again."""


class GoneError(EvidenceError):
    """410: the document or version is a tombstone (deleted)."""


class PayloadTooLargeError(EvidenceError):
    """413: the body is over the server's --max-body (JSON) or --max-upload (uploads)."""


class UnsupportedMediaTypeError(EvidenceError):
    """415: the server does not ingest this type of file."""


class UnprocessableError(_WithResult):
    """422: the ingest failed (``result.reason``) or the import was rejected by the quarantine gate
    (``result.status == "rejected"``, ``result.hint`` says why); nothing was stored."""


class ServerError(EvidenceError):
    """5xx: the server failed (``internal``) or cannot serve now (``unavailable``)."""


class TransportError(EvidenceError):
    """No HTTP answer: the connection was refused, reset or timed out."""


_BY_STATUS: Dict[int, type] = {
    400: BadRequestError,
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    405: MethodNotAllowedError,
    409: ConflictError,
    410: GoneError,
    413: PayloadTooLargeError,
    415: UnsupportedMediaTypeError,
    422: UnprocessableError,
}


def error_class(status: int) -> type:
    """The exception class for an HTTP status (EvidenceError for one without its own)."""
    if status >= 500:
        return ServerError
    return _BY_STATUS.get(status, EvidenceError)


def from_response(status: int, body: Any, method: str, path: str, result: Optional[Any] = None) -> EvidenceError:
    """Builds the exception for an error answer; body is the decoded JSON (or text)."""
    code, message = "", ""
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        code = str(body["error"].get("code", ""))
        message = str(body["error"].get("message", ""))
    elif isinstance(body, dict):  # an ingest result answering 409 or 422
        code = str(body.get("status", ""))
        message = str(body.get("message") or body.get("error") or body.get("reason") or body.get("hint") or "")
    elif isinstance(body, str):
        message = body.strip()[:500]
    cls = error_class(status)
    if issubclass(cls, _WithResult):
        return cls(status, code, message, body, method, path, result=result)
    return cls(status, code, message, body, method, path)
