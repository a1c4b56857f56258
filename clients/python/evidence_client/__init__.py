"""evidence_client: a standard-library client of the evidence service (``evidence serve``).

    from evidence_client import Client, VerifyRequest, Claim, Evidence
    c = Client("http://127.0.0.1:8080")
    c.ingest("corpus/sample/expense-policy.md", document_id="expense-policy.md")
    report = c.verify(VerifyRequest(retrieved=[...], claims=[Claim("c1", "...", [Evidence(chunk_id, quote="...")])]))

Adapters for LangChain (:mod:`evidence_client.langchain`) and LlamaIndex (:mod:`evidence_client.llamaindex`)
import their framework only when asked for a framework object; :mod:`evidence_client.claims` holds the
prompt and the parser that turn an LLM's reply into claims. Python 3.9 or later, no dependencies.
"""

from .client import Client
from .errors import (
    AuthError,
    BadRequestError,
    ConflictError,
    EvidenceError,
    ForbiddenError,
    GoneError,
    MethodNotAllowedError,
    NotFoundError,
    PayloadTooLargeError,
    ServerError,
    TransportError,
    UnauthorizedError,
    UnprocessableError,
    UnsupportedMediaTypeError,
)
from .types import (
    ChunkPage,
    ChunkRecord,
    Citation,
    Claim,
    ClaimReport,
    DeleteResult,
    DocumentList,
    Evidence,
    EvidenceReport,
    IngestResult,
    QuarantineList,
    Resolution,
    ResolveResult,
    Trace,
    TraceList,
    TraceStats,
    TraceSummary,
    VerifyReport,
    VerifyRequest,
)

__version__ = "0.1.0"

__all__ = [
    "Client", "EvidenceError", "BadRequestError", "AuthError", "UnauthorizedError", "ForbiddenError",
    "NotFoundError", "MethodNotAllowedError", "ConflictError", "GoneError", "PayloadTooLargeError",
    "UnsupportedMediaTypeError", "UnprocessableError", "ServerError", "TransportError",
    "ChunkPage", "ChunkRecord", "Citation", "Claim", "ClaimReport", "DeleteResult", "DocumentList", "Evidence",
    "EvidenceReport", "IngestResult", "QuarantineList", "Resolution", "ResolveResult", "Trace", "TraceList", "TraceStats", "TraceSummary", "VerifyReport",
    "VerifyRequest",
]
