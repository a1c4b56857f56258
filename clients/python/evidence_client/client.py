"""The HTTP client of ``evidence serve`` (docs/service.md), standard library only."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from . import errors
from .types import (
    ChunkPage,
    ChunkRecord,
    Citation,
    DeleteResult,
    DocumentList,
    IngestResult,
    QuarantineList,
    RebuildRequest,
    Resolution,
    ResolveResult,
    Trace,
    TraceList,
    TraceStats,
    VerifyReport,
    VerifyRequest,
)

#: a source to upload: a path, or the bytes themselves (then ``filename`` names the type)
Source = Union[str, "os.PathLike[str]", bytes]
#: a chunk manifest: JSON Lines as text or bytes, a path to such a file, or the chunks as dicts
Manifest = Union[str, bytes, "os.PathLike[str]", Sequence[Mapping[str, Any]]]

_RESOLUTION_STATUSES = ("ok", "superseded", "quarantined", "deleted", "forbidden", "not_found")


class Client:
    """A client of one evidence server.

    ``token`` is sent as ``Authorization: Bearer`` (default: the
    ``EVIDENCE_TOKEN`` environment variable, as the CLI reads it); ``principal``
    as ``X-Evidence-Principal``, the end user a service token acts for (and, for
    verification, the request's ``principal`` when it names none).

    Every method raises a subclass of :class:`~evidence_client.errors.EvidenceError`
    for an error answer, one class per HTTP error class. A resolution that does
    not serve text (quarantined, deleted, forbidden, not_found) is an answer,
    returned with its ``status``, not raised.
    """

    def __init__(self, base_url: str, token: Optional[str] = None, principal: Optional[str] = None,
                 timeout: float = 60.0, user_agent: str = "evidence-client-python/0.1"):
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url {base_url!r}: want an http:// or https:// URL")
        self.base_url = base_url.rstrip("/")
        self.token = token if token is not None else os.environ.get("EVIDENCE_TOKEN") or None
        self.principal = principal
        self.timeout = timeout
        self.user_agent = user_agent

    def with_principal(self, principal: Optional[str]) -> "Client":
        """A client like this one acting for another principal."""
        return Client(self.base_url, self.token or "", principal, self.timeout, self.user_agent)

    # ---- transport ----

    def _request(self, method: str, path: str, query: Optional[Mapping[str, Any]] = None,
                 body: Optional[bytes] = None, content_type: Optional[str] = None,
                 accept_resolution: bool = False, ingest: bool = False) -> Tuple[int, Any]:
        url = self.base_url + path
        q = _query(query)
        if q:
            url += "?" + q
        headers = {"Accept": "application/json", "User-Agent": self.user_agent}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        if self.principal:
            headers["X-Evidence-Principal"] = self.principal
        if content_type:
            headers["Content-Type"] = content_type
        req = urllib.request.Request(url, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.status, _decode(resp.read(), resp.headers.get("Content-Type", ""))
        except urllib.error.HTTPError as e:
            status, data = e.code, _decode(e.read(), e.headers.get("Content-Type", "") if e.headers else "")
            e.close()
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise errors.TransportError(0, "transport", f"{self.base_url}: {reason}", None, method, path) from e
        is_error = isinstance(data, dict) and isinstance(data.get("error"), dict)
        if accept_resolution and not is_error and isinstance(data, dict) and data.get("status") in _RESOLUTION_STATUSES:
            return status, data
        result = None
        if ingest and not is_error and isinstance(data, dict):
            result = IngestResult.from_dict(data)
        raise errors.from_response(status, data, method, path, result)

    def _json(self, method: str, path: str, payload: Any = None, query: Optional[Mapping[str, Any]] = None,
              **kw: Any) -> Any:
        body = None
        ctype = None
        if payload is not None:
            body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            ctype = "application/json"
        return self._request(method, path, query, body, ctype, **kw)[1]

    # ---- reads ----

    def health(self) -> bool:
        """True when the server can read its store (``GET /healthz``)."""
        try:
            self._request("GET", "/healthz")
            return True
        except errors.EvidenceError:
            return False

    def resolve(self, chunk_id: str) -> Resolution:
        """``GET /v1/chunks/{chunk_id}``: the exact stored span, its link and signed ``viewer_url``."""
        return Resolution.from_dict(self._json("GET", "/v1/chunks/" + _seg(chunk_id), accept_resolution=True))

    def resolve_citations(self, citations: Iterable[Union[Citation, Mapping[str, Any], str]],
                          principal: Optional[str] = None,
                          metadata: Optional[Mapping[str, Any]] = None) -> ResolveResult:
        """``POST /v1/resolve``: up to 1,000 citations in one read transaction; each result has ``citation``
        saying where its quote or offsets are in the chunk."""
        items = [_citation(c) for c in citations]
        payload: Dict[str, Any] = {"citations": items}
        if principal or self.principal:
            payload["principal"] = principal or self.principal
        if metadata is not None:
            payload["metadata"] = dict(metadata)
        return ResolveResult.from_dict(self._json("POST", "/v1/resolve", payload))

    def text(self, version: str, start: Optional[int] = None, end: Optional[int] = None) -> Resolution:
        """``GET /v1/versions/{version}/text``: a code-point range of a version's canonical text."""
        return Resolution.from_dict(self._json("GET", f"/v1/versions/{_seg(version)}/text",
                                               query={"start": start, "end": end}, accept_resolution=True))

    def verify(self, request: Union[VerifyRequest, Mapping[str, Any]], trace: bool = True) -> VerifyReport:
        """``POST /v1/verify``: the verifier's report; the trace is stored unless ``trace=False``."""
        payload = request.to_dict() if isinstance(request, VerifyRequest) else dict(request)
        if self.principal and not payload.get("principal"):
            payload["principal"] = self.principal
        q = None if trace else {"trace": "false"}
        return VerifyReport.from_dict(self._json("POST", "/v1/verify", payload, query=q))

    def trace(self, trace_id: str) -> Trace:
        """``GET /v1/traces/{trace_id}``: a stored verification trace (NotFoundError when not the caller's)."""
        return Trace.from_dict(self._json("GET", "/v1/traces/" + _seg(trace_id)))

    def list_traces(self, *, request_id: Optional[str] = None, principal: Optional[str] = None,
                    disposition: Optional[str] = None, reason: Optional[str] = None, category: Optional[str] = None,
                    document: Optional[str] = None, since: Optional[str] = None, until: Optional[str] = None,
                    limit: Optional[int] = None, cursor: Optional[str] = None) -> TraceList:
        """``GET /v1/traces``: one page of trace summaries passing every filter given, newest first
        (``since``/``until``: RFC 3339 or a duration before now, "24h", "7d")."""
        q = {"request_id": request_id, "principal": principal, "disposition": disposition, "reason": reason,
             "category": category, "document": document, "since": since, "until": until, "limit": limit,
             "cursor": cursor}
        return TraceList.from_dict(self._json("GET", "/v1/traces", query=q))

    def trace_stats(self, by: Optional[str] = None, top: Optional[int] = None, **filters: Optional[str]) -> TraceStats:
        """``GET /v1/traces/stats``: counts of the traces passing the filters (those of list_traces), in
        all and per group of ``by`` (category, reason, document, policy)."""
        q: Dict[str, Any] = {"by": by, "top": top}
        q.update(filters)
        return TraceStats.from_dict(self._json("GET", "/v1/traces/stats", query=q))

    def verify_provider(self, provider: str, response: Mapping[str, Any], document_map: Mapping[str, Any], *,
                        offset_unit: Optional[str] = None, request_id: Optional[str] = None,
                        principal: Optional[str] = None, metadata: Optional[Mapping[str, Any]] = None,
                        trace: bool = True) -> VerifyReport:
        """``POST /v1/verify?from=PROVIDER`` (anthropic, openai, cohere, gemini): a provider's cited answer,
        as its API returned it, converted to claims and verified. ``document_map`` ties the provider's
        document keys to stored documents: ``{"0": {"document_id": "...", "document_version": "..."}}``
        (docs/verify.md, Provider citation formats)."""
        body: Dict[str, Any] = {"response": dict(response), "map": dict(document_map)}
        for k, v in (("offset_unit", offset_unit), ("request_id", request_id),
                     ("principal", principal or self.principal), ("metadata", metadata)):
            if v is not None:
                body[k] = dict(v) if isinstance(v, Mapping) else v
        q: Dict[str, Any] = {"from": provider, "trace": None if trace else "false"}
        return VerifyReport.from_dict(self._json("POST", "/v1/verify", body, query=q))

    def documents(self) -> DocumentList:
        """``GET /v1/documents``: the documents the caller may read."""
        return DocumentList.from_dict(self._json("GET", "/v1/documents"))

    def list_chunks(self, document_id: str, version: Optional[str] = None, limit: Optional[int] = None,
                    cursor: Optional[str] = None) -> ChunkPage:
        """``GET /v1/documents/{id}/chunks``: one page of the servable chunk records."""
        q = {"version": version, "limit": limit, "cursor": cursor}
        return ChunkPage.from_dict(self._json("GET", f"/v1/documents/{_seg(document_id)}/chunks", query=q))

    def iter_chunks(self, document_id: str, version: Optional[str] = None, page_size: int = 1000) -> Iterator[ChunkRecord]:
        """Every servable chunk record of the version, page by page (one version's, whatever is ingested
        meanwhile: the cursor stays in the version it started in)."""
        cursor: Optional[str] = None
        while True:
            page = self.list_chunks(document_id, version=version, limit=page_size, cursor=cursor)
            yield from page.chunks
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    def quarantine(self, document: Optional[str] = None, version: Optional[str] = None, reason: Optional[str] = None,
                   all_versions: bool = False, repaired: bool = False) -> QuarantineList:
        """``GET /v1/quarantine``: quarantined (or, with ``repaired``, re-anchored) chunks of readable documents."""
        q = {"document": document, "version": version, "reason": reason,
             "all": all_versions or None, "repaired": repaired or None}
        return QuarantineList.from_dict(self._json("GET", "/v1/quarantine", query=q))

    # ---- writes (a service token) ----

    def ingest(self, source: Source, *, filename: Optional[str] = None, document_id: Optional[str] = None,
               url: Optional[str] = None, acl: Optional[Sequence[str]] = None, chunk_size: Optional[int] = None,
               overlap: Optional[int] = None, undelete: bool = False, dry_run: bool = False,
               metadata: Optional[Mapping[str, Any]] = None) -> IngestResult:
        """``POST /v1/documents``: upload a source to be cut into chunks by the server.

        ``source`` is a path or bytes (then ``filename``, or a ``document_id`` ending in an extension, names
        its type). ``acl`` None keeps the stored list, [] means everyone. Raises ConflictError (409) for a
        deleted document unless ``undelete``, UnprocessableError (422) when the ingest failed."""
        return self._upload(source, filename, document_id, url, acl, chunk_size, overlap, undelete, dry_run,
                            metadata, {}, [])

    def import_manifest(self, source: Source, manifest: Manifest, *, filename: Optional[str] = None,
                        document_id: Optional[str] = None, text: Optional[Union[str, bytes]] = None,
                        repair: bool = False, chunks_format: Optional[str] = None, offsets: Optional[str] = None,
                        max_quarantined: Optional[Union[int, float, str]] = None, url: Optional[str] = None,
                        acl: Optional[Sequence[str]] = None, undelete: bool = False, dry_run: bool = False,
                        metadata: Optional[Mapping[str, Any]] = None) -> IngestResult:
        """``POST /v1/documents`` with a ``manifest`` part: import another pipeline's chunks for a source.

        ``manifest`` is JSON Lines (text, bytes or a path) or a list of chunk dicts (generic, LangChain,
        LlamaIndex or Haystack shape, docs/chunk-import.md). ``text`` is the canonical text that pipeline
        split (pages joined by form feeds), taken as is. An import with more quarantined chunks than
        ``max_quarantined`` (a count, "5%" or a share 0.05; default 0) is rejected: UnprocessableError with
        ``result.status == "rejected"`` and ``result.hint``."""
        fields: Dict[str, Any] = {"repair": "true" if repair else None, "chunks_format": chunks_format,
                                  "offsets": offsets,
                                  "max_quarantined": None if max_quarantined is None else str(max_quarantined)}
        parts = [("manifest", "manifest.jsonl", "application/x-ndjson", _manifest_bytes(manifest))]
        if text is not None:
            parts.append(("text", "text.txt", "text/plain; charset=utf-8",
                          text.encode("utf-8") if isinstance(text, str) else text))
        return self._upload(source, filename, document_id, url, acl, None, None, undelete, dry_run, metadata,
                            fields, parts)

    def _upload(self, source: Source, filename: Optional[str], document_id: Optional[str], url: Optional[str],
                acl: Optional[Sequence[str]], chunk_size: Optional[int], overlap: Optional[int], undelete: bool,
                dry_run: bool, metadata: Optional[Mapping[str, Any]], extra: Mapping[str, Any],
                parts: List[Tuple[str, str, str, bytes]]) -> IngestResult:
        if isinstance(source, (bytes, bytearray)):
            data = bytes(source)
            name = filename or document_id
            if not name:
                raise ValueError("ingest of bytes: give filename (with its extension) or document_id")
        else:
            path = os.fspath(source)
            with open(path, "rb") as f:
                data = f.read()
            name = filename or os.path.basename(path)
        fields: Dict[str, Any] = {
            "id": document_id, "url": url,
            "acl": None if acl is None else ",".join(acl),
            "chunk_size": chunk_size, "overlap": overlap,
            "undelete": "true" if undelete else None, "dry_run": "true" if dry_run else None,
            "metadata": None if metadata is None else json.dumps(dict(metadata), ensure_ascii=False),
        }
        fields.update(extra)
        body, ctype = _multipart(fields, [("file", os.path.basename(name), "application/octet-stream", data)] + parts)
        return IngestResult.from_dict(self._request("POST", "/v1/documents", body=body, content_type=ctype,
                                                    ingest=True)[1])

    def rebuild(self, document_id: str, chunk_size: Optional[int] = None, overlap: Optional[int] = None,
                dry_run: bool = False) -> IngestResult:
        """``POST /v1/documents/{id}/rebuild``: a new current version cut from the stored text."""
        req = RebuildRequest(chunk_size=chunk_size, overlap=overlap, dry_run=dry_run or None)
        return IngestResult.from_dict(self._json("POST", f"/v1/documents/{_seg(document_id)}/rebuild",
                                                 req.to_dict(), ingest=True))

    def delete(self, document_id: str, version: Optional[str] = None) -> DeleteResult:
        """``DELETE /v1/documents/{id}``: tombstone a document or one version (an administrator only)."""
        return DeleteResult.from_dict(self._json("DELETE", "/v1/documents/" + _seg(document_id),
                                                 query={"version": version}))


def _seg(s: str) -> str:
    """One path segment: every reserved character escaped, slashes as %2F."""
    if not s:
        raise ValueError("empty identifier in a path")
    return urllib.parse.quote(s, safe="")


def _query(q: Optional[Mapping[str, Any]]) -> str:
    if not q:
        return ""
    items = []
    for k, v in q.items():
        if v is None:
            continue
        if isinstance(v, bool):
            v = "true" if v else "false"
        items.append((k, str(v)))
    return urllib.parse.urlencode(items)


def _decode(data: bytes, ctype: str) -> Any:
    if "json" in ctype or data[:1] in (b"{", b"["):
        try:
            return json.loads(data.decode("utf-8"))
        except ValueError:
            pass
    return data.decode("utf-8", "replace")


def _citation(c: Union[Citation, Mapping[str, Any], str]) -> Dict[str, Any]:
    if isinstance(c, str):
        return {"chunk_id": c}
    if isinstance(c, Citation):
        return c.to_dict()
    return dict(c)


def _manifest_bytes(m: Manifest) -> bytes:
    if isinstance(m, bytes):
        return m
    if isinstance(m, str) and ("\n" in m or m.lstrip().startswith("{")):
        return m.encode("utf-8")
    if isinstance(m, (str, os.PathLike)):
        with open(os.fspath(m), "rb") as f:
            return f.read()
    lines = [json.dumps(dict(c), ensure_ascii=False) for c in m]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _multipart(fields: Mapping[str, Any], files: List[Tuple[str, str, str, bytes]]) -> Tuple[bytes, str]:
    boundary = "evidence-" + uuid.uuid4().hex
    out = bytearray()
    for k, v in fields.items():
        if v is None:
            continue
        out += f"--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n".encode()
        out += str(v).encode("utf-8") + b"\r\n"
    for name, fname, ctype, data in files:
        safe = fname.replace('"', "_").replace("\r", "_").replace("\n", "_")
        out += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{safe}\"\r\n"
                f"Content-Type: {ctype}\r\n\r\n").encode("utf-8")
        out += data + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return bytes(out), "multipart/form-data; boundary=" + boundary
