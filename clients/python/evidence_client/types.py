"""Typed dataclasses for every request and answer of the evidence HTTP API.

Field names are the server's JSON names (docs/contract.md, docs/openapi.json).
Offsets (``source_start``, ``source_end``, ``start``, ``end``) are half-open
ranges of Unicode code points into a version's canonical text, the unit
Python's ``str`` slicing counts; pages start at 1.

Answers are decoded leniently: a field the server adds later is kept in
``raw`` (the whole decoded object) and never fails decoding, since the
contract adds fields and never renames them.
"""

from __future__ import annotations

import dataclasses
import sys
import typing
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

_hints_cache: Dict[type, Dict[str, Any]] = {}


def _hints(cls: type) -> Dict[str, Any]:
    h = _hints_cache.get(cls)
    if h is None:
        h = typing.get_type_hints(cls, vars(sys.modules[cls.__module__]))
        _hints_cache[cls] = h
    return h


def _convert(tp: Any, v: Any) -> Any:
    if v is None:
        return None
    origin = typing.get_origin(tp)
    if origin is typing.Union:  # Optional[X]
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return _convert(args[0], v) if len(args) == 1 else v
    if origin in (list, List) and isinstance(v, list):
        (arg,) = typing.get_args(tp) or (Any,)
        return [_convert(arg, x) for x in v]
    if isinstance(tp, type) and issubclass(tp, Model) and isinstance(v, dict):
        return tp.from_dict(v)
    return v


class Model:
    """Base of the answer types: decoding from and encoding to the server's JSON."""

    raw: Dict[str, Any]

    @classmethod
    def from_dict(cls, d: Dict[str, Any]):
        """Decodes one JSON object; unknown keys stay in ``raw`` only."""
        hints = _hints(cls)
        kw = {}
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if f.name == "raw" or f.name not in d:
                continue
            kw[f.name] = _convert(hints[f.name], d[f.name])
        obj = cls(**kw)
        obj.raw = d
        return obj

    def to_dict(self) -> Dict[str, Any]:
        """The JSON object the server reads: fields left None are omitted."""
        out: Dict[str, Any] = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            if f.name == "raw":
                continue
            v = getattr(self, f.name)
            if v is None:
                continue
            out[f.name] = _encode(v)
        return out


def _encode(v: Any) -> Any:
    if isinstance(v, Model):
        return v.to_dict()
    if isinstance(v, list):
        return [_encode(x) for x in v]
    if isinstance(v, dict):
        return {k: _encode(x) for k, x in v.items()}
    return v


def _raw() -> Any:
    return field(default_factory=dict, repr=False, compare=False)


# ---- requests ----


@dataclass
class Evidence(Model):
    """One citation of a claim: a chunk id, and optionally the words quoted from it or a code-point range."""

    chunk_id: str
    quote: Optional[str] = None
    source_start: Optional[int] = None
    source_end: Optional[int] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class Claim(Model):
    """One claim of an answer, with its citations; ``requires_evidence=False`` for a greeting or advice."""

    claim_id: str
    text: str
    evidence: List[Evidence] = field(default_factory=list)
    requires_evidence: Optional[bool] = None
    risk: Optional[str] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class VerifyRequest(Model):
    """The body of ``POST /v1/verify`` (docs/contract.md, Claims in, verdicts out)."""

    request_id: Optional[str] = None
    principal: Optional[str] = None
    retrieved: Optional[List[str]] = None
    answer: Optional[str] = None
    claims: Optional[List[Claim]] = None
    retrieval_error: Optional[str] = None
    metadata: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class Citation(Model):
    """One citation of ``POST /v1/resolve``."""

    chunk_id: str
    quote: Optional[str] = None
    source_start: Optional[int] = None
    source_end: Optional[int] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class RebuildRequest(Model):
    """The body of ``POST /v1/documents/{id}/rebuild``; all None: the defaults."""

    chunk_size: Optional[int] = None
    overlap: Optional[int] = None
    dry_run: Optional[bool] = None
    raw: Dict[str, Any] = _raw()


# ---- resolutions and links ----


@dataclass
class Selector(Model):
    type: str = ""
    start: Optional[int] = None
    end: Optional[int] = None
    exact: Optional[str] = None
    prefix: Optional[str] = None
    suffix: Optional[str] = None
    conformsTo: Optional[str] = None
    value: Optional[str] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class Target(Model):
    """A W3C Web Annotation target pinned to the version."""

    document_version: str = ""
    text_hash: str = ""
    source: Optional[str] = None
    selector: List[Selector] = field(default_factory=list)
    raw: Dict[str, Any] = _raw()


@dataclass
class Excerpt(Model):
    """The verified excerpt: what to show where no deep link exists."""

    document_id: str = ""
    document_version: str = ""
    page_number: Optional[int] = None
    page_label: Optional[str] = None
    section_path: List[str] = field(default_factory=list)
    text: str = ""
    raw: Dict[str, Any] = _raw()


@dataclass
class DeepLink(Model):
    """A link into the source: ``kind`` pdf_page, text_fragment, heading or none."""

    kind: str = ""
    url: Optional[str] = None
    fragment: Optional[str] = None
    page_number: Optional[int] = None
    page_label: Optional[str] = None
    highlight: Any = None
    fallback: Optional[str] = None
    target: Optional[Target] = None
    excerpt: Optional[Excerpt] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class CitationResult(Model):
    """Where a citation's quote or offsets are in the chunk (``match`` none with ``reason`` when nowhere)."""

    match: str = ""
    distance: Optional[int] = None
    elided: Optional[bool] = None
    reason: Optional[str] = None
    source_start: Optional[int] = None
    source_end: Optional[int] = None
    page_number: Optional[int] = None
    page_end: Optional[int] = None
    page_label: Optional[str] = None
    section_path: List[str] = field(default_factory=list)
    text: Optional[str] = None
    link: Optional[DeepLink] = None
    raw: Dict[str, Any] = _raw()


#: statuses of a resolution that serves text
SERVED_STATUSES = ("ok", "superseded")


@dataclass
class Resolution(Model):
    """A chunk (or range) resolved to the exact stored span.

    ``status`` is ok, superseded, quarantined, deleted, forbidden or not_found;
    only ok and superseded carry text, ``link`` and ``viewer_url`` (a signed
    viewer link for the principal the resolution was made for)."""

    status: str = ""
    chunk_id: Optional[str] = None
    reason: Optional[str] = None
    document_id: Optional[str] = None
    document_version: Optional[str] = None
    version_status: Optional[str] = None
    current_version: Optional[str] = None
    text_unchanged: Optional[bool] = None
    media_type: Optional[str] = None
    source_url: Optional[str] = None
    text_hash: Optional[str] = None
    source_start: int = 0
    source_end: int = 0
    page_number: Optional[int] = None
    page_end: Optional[int] = None
    page_label: Optional[str] = None
    section_path: List[str] = field(default_factory=list)
    low_confidence: Optional[str] = None
    text: Optional[str] = None
    quarantine: Optional[Dict[str, Any]] = None
    link: Optional[DeepLink] = None
    viewer_url: Optional[str] = None
    citation: Optional[CitationResult] = None
    raw: Dict[str, Any] = _raw()

    @property
    def served(self) -> bool:
        """True when the resolution serves text (status ok or superseded)."""
        return self.status in SERVED_STATUSES


@dataclass
class ResolveResult(Model):
    """The answer of ``POST /v1/resolve``: one resolution per citation, in order."""

    results: List[Resolution] = field(default_factory=list)
    metadata: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = _raw()


# ---- verification reports ----


@dataclass
class Figure(Model):
    kind: str = ""
    value: str = ""
    text: str = ""
    basis_points: Optional[bool] = None
    reference: Optional[bool] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class Finding(Model):
    """A meaning check's finding, with the words on both sides."""

    check: str = ""
    reason: str = ""
    claim: str = ""
    evidence: str = ""
    message: str = ""
    raw: Dict[str, Any] = _raw()


@dataclass
class Location(Model):
    chunk_id: str = ""
    page_number: int = 0
    page_label: Optional[str] = None
    section_path: List[str] = field(default_factory=list)
    source_start: int = 0
    source_end: int = 0
    raw: Dict[str, Any] = _raw()


@dataclass
class JudgeVerdict(Model):
    judge: str = ""
    label: Optional[str] = None
    score: float = 0.0
    fragment: Optional[str] = None
    latency_ms: float = 0.0
    cached: Optional[bool] = None
    error: Optional[str] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class EvidenceReport(Model):
    """The verdict on one citation: ``status`` ok, unresolved, forbidden, stale, insufficient or contradicts."""

    chunk_id: str = ""
    status: str = ""
    match: Optional[str] = None
    distance: int = 0
    elided: Optional[bool] = None
    document_id: Optional[str] = None
    document_version: Optional[str] = None
    version_status: Optional[str] = None
    current_version: Optional[str] = None
    text_unchanged: Optional[bool] = None
    page_number: Optional[int] = None
    page_end: Optional[int] = None
    page_label: Optional[str] = None
    section_path: List[str] = field(default_factory=list)
    source_start: int = 0
    source_end: int = 0
    text: Optional[str] = None
    missing_figures: List[Figure] = field(default_factory=list)
    reasons: List[str] = field(default_factory=list)
    checks: List[str] = field(default_factory=list)
    findings: List[Finding] = field(default_factory=list)
    found_in: Optional[Location] = None
    viewer_url: Optional[str] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class ClaimReport(Model):
    """The verdict on one claim: ``status`` and the ``disposition`` the failure policy gives it."""

    claim_id: str = ""
    status: str = ""
    disposition: str = ""
    reasons: List[str] = field(default_factory=list)
    missing_figures: List[Figure] = field(default_factory=list)
    missing_qualifiers: List[str] = field(default_factory=list)
    evidence: List[EvidenceReport] = field(default_factory=list)
    checks: List[str] = field(default_factory=list)
    entailment: str = ""
    findings: List[Finding] = field(default_factory=list)
    judge: Optional[JudgeVerdict] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class Sentence(Model):
    """An uncited factual sentence of the answer; start and end in code points into the answer."""

    text: str = ""
    start: int = 0
    end: int = 0
    raw: Dict[str, Any] = _raw()


@dataclass
class Metrics(Model):
    """Citation support and claim coverage, reported apart, never merged."""

    citation_support_rate: float = 0.0
    claim_coverage_rate: float = 0.0
    citations: int = 0
    accepted_citations: int = 0
    claims_requiring_evidence: int = 0
    supported_claims: int = 0
    raw: Dict[str, Any] = _raw()


@dataclass
class Failures(Model):
    """Failures counted by category."""

    support: int = 0
    coverage: int = 0
    resolution: int = 0
    version: int = 0
    permission: int = 0
    raw: Dict[str, Any] = _raw()


@dataclass
class Source(Model):
    label: str = ""
    document_id: str = ""
    document_version: str = ""
    version_status: str = ""
    current_version: Optional[str] = None
    text_unchanged: Optional[bool] = None
    title: str = ""
    url: Optional[str] = None
    link_kind: str = ""
    page_number: Optional[int] = None
    page_label: Optional[str] = None
    effective_dates: List[str] = field(default_factory=list)
    chunk_ids: List[str] = field(default_factory=list)
    raw: Dict[str, Any] = _raw()


@dataclass
class VerifyReport(Model):
    """The verifier's report: ``disposition`` accept, partial, block, abstain, clarify or review."""

    request_id: str = ""
    trace_id: Optional[str] = None
    disposition: str = ""
    reasons: List[str] = field(default_factory=list)
    claims: List[ClaimReport] = field(default_factory=list)
    uncited_sentences: List[Sentence] = field(default_factory=list)
    metrics: Optional[Metrics] = None
    failures: Optional[Failures] = None
    policy: str = ""
    grounding: str = ""
    sources: List[Source] = field(default_factory=list)
    metadata: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = _raw()

    def viewer_urls(self) -> List[str]:
        """Every evidence item's signed viewer link, in claim order."""
        return [e.viewer_url for c in self.claims for e in c.evidence if e.viewer_url]


@dataclass
class Trace(Model):
    """A stored verification trace: the request, the report, the time and the policy."""

    trace_id: str = ""
    time: str = ""
    store_sequence: int = 0
    policy: Optional[Dict[str, Any]] = None
    request: Optional[VerifyRequest] = None
    report: Optional[VerifyReport] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class TraceSummary(Model):
    """One trace of ``GET /v1/traces``: what it answered and why, without the request's text."""

    trace_id: str = ""
    time: str = ""
    request_id: str = ""
    principal: str = ""
    disposition: str = ""
    policy: str = ""
    claims: int = 0
    failed_claims: int = 0
    reasons: List[str] = field(default_factory=list)
    categories: List[str] = field(default_factory=list)
    documents: List[str] = field(default_factory=list)
    raw: Dict[str, Any] = _raw()


@dataclass
class TraceList(Model):
    """A page of ``GET /v1/traces``, newest first; ``next_cursor`` empty when the window was read."""

    traces: List[TraceSummary] = field(default_factory=list)
    next_cursor: str = ""
    scanned: int = 0
    raw: Dict[str, Any] = _raw()


@dataclass
class TraceStats(Model):
    """``GET /v1/traces/stats``: counts in all and per group of ``by`` (each group a dict as served)."""

    by: str = ""
    since: Optional[str] = None
    until: Optional[str] = None
    traces: int = 0
    failed_traces: int = 0
    claims: int = 0
    failed_claims: int = 0
    dispositions: Dict[str, int] = field(default_factory=dict)
    groups: List[Dict[str, Any]] = field(default_factory=list)
    raw: Dict[str, Any] = _raw()


# ---- documents, chunks, ingest ----


@dataclass
class IngestResult(Model):
    """The result of an upload, import or rebuild: ``status`` ingested, unchanged, rejected, failed or deleted."""

    status: str = ""
    path: Optional[str] = None
    document_id: str = ""
    document_version: Optional[str] = None
    restored: Optional[bool] = None
    superseded: Optional[str] = None
    media_type: Optional[str] = None
    chunks: int = 0
    quarantined: int = 0
    pages: int = 0
    source_bytes: int = 0
    reason: Optional[str] = None
    error: Optional[str] = None
    message: Optional[str] = None
    metadata_updated: List[str] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)
    repaired: Optional[int] = None
    chunks_format: Optional[str] = None
    offsets: Optional[str] = None
    page_base: Optional[int] = None
    page_stripped: Optional[bool] = None
    quarantine_reasons: Optional[Dict[str, int]] = None
    hint: Optional[str] = None
    dry_run: Optional[bool] = None
    metadata: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class ChunkRecord(Model):
    """A servable chunk, as ``evidence chunks`` exports it: what a vector store embeds.

    ``external_id`` is the chunk's id in the pipeline it was imported from;
    ``acl`` the document's access list (administrators only; [] for everyone)."""

    chunk_id: str = ""
    document_id: str = ""
    document_version: str = ""
    source_start: int = 0
    source_end: int = 0
    page_number: int = 0
    page_end: int = 0
    page_label: Optional[str] = None
    section_path: List[str] = field(default_factory=list)
    source_url: Optional[str] = None
    media_type: str = ""
    external_id: Optional[str] = None
    acl: Optional[List[str]] = None
    low_confidence: Optional[str] = None
    span_hash: str = ""
    text: str = ""
    raw: Dict[str, Any] = _raw()


@dataclass
class ChunkPage(Model):
    """One page of ``GET /v1/documents/{id}/chunks``; ``next_cursor`` while more are left."""

    document_id: str = ""
    document_version: str = ""
    version_status: str = ""
    chunks: List[ChunkRecord] = field(default_factory=list)
    next_cursor: Optional[str] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class Document(Model):
    document_id: str = ""
    current_version: Optional[str] = None
    status: str = ""
    versions: int = 0
    media_type: Optional[str] = None
    pages: int = 0
    chunks: int = 0
    quarantined: int = 0
    acl: Optional[List[str]] = None
    source_url: Optional[str] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class DocumentList(Model):
    documents: List[Document] = field(default_factory=list)
    failures: List[Dict[str, Any]] = field(default_factory=list)
    raw: Dict[str, Any] = _raw()


@dataclass
class DeleteResult(Model):
    document_id: str = ""
    deleted_versions: List[str] = field(default_factory=list)
    raw: Dict[str, Any] = _raw()


@dataclass
class QuarantinedChunk(Model):
    chunk_id: str = ""
    document_id: str = ""
    document_version: str = ""
    version_status: str = ""
    external_id: Optional[str] = None
    reason: str = ""
    claimed: Optional[str] = None
    found: Optional[str] = None
    claimed_start: Optional[int] = None
    claimed_end: Optional[int] = None
    claimed_text: Optional[str] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class QuarantineList(Model):
    chunks: List[QuarantinedChunk] = field(default_factory=list)
    by_reason: Dict[str, int] = field(default_factory=dict)
    total: int = 0
    raw: Dict[str, Any] = _raw()
