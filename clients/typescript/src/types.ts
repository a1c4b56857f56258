// Types of every request and answer of the evidence HTTP API (docs/openapi.json, docs/contract.md).
// Field names are the server's JSON names. Offsets (source_start, source_end, start, end) are half-open
// ranges of Unicode code points into a version's canonical text: NOT JavaScript string indices, which
// count UTF-16 code units. Use codePointSlice to cut a JavaScript string by them. Pages start at 1.
// The server adds fields and never renames them, so every answer type is open to more.

// ---- requests ----

/** One citation of a claim: a chunk id, and optionally the words quoted from it or a code-point range. */
export interface Evidence {
  chunk_id: string;
  quote?: string;
  source_start?: number;
  source_end?: number;
}

/** One claim of an answer with its citations; requires_evidence false for a greeting or advice. */
export interface Claim {
  claim_id: string;
  text: string;
  evidence?: Evidence[] | null;
  requires_evidence?: boolean;
  risk?: string;
}

/** The body of POST /v1/verify. */
export interface VerifyRequest {
  request_id?: string;
  principal?: string;
  retrieved?: string[] | null;
  answer?: string;
  claims?: Claim[] | null;
  retrieval_error?: string;
  metadata?: Record<string, unknown> | null;
}

/** One citation of POST /v1/resolve. */
export interface CitationRequest {
  chunk_id: string;
  quote?: string;
  source_start?: number;
  source_end?: number;
}

/** The body of POST /v1/resolve (at most 1,000 citations). */
export interface ResolveRequest {
  principal?: string;
  citations: CitationRequest[];
  metadata?: Record<string, unknown>;
}

/** The body of POST /v1/documents/{id}/rebuild; empty: the defaults. */
export interface RebuildRequest {
  chunk_size?: number;
  overlap?: number;
  dry_run?: boolean;
}

/** Upload fields of POST /v1/documents (docs/service.md). */
export interface IngestOptions {
  /** The name whose extension picks the extractor (default: the document id). */
  filename?: string;
  /** document_id (default: the filename). */
  documentId?: string;
  url?: string;
  /** Principals allowed to read; [] means everyone; absent keeps the stored list. */
  acl?: string[];
  chunkSize?: number;
  overlap?: number;
  undelete?: boolean;
  dryRun?: boolean;
  metadata?: Record<string, unknown>;
}

/** The import's fields, beside a manifest part (docs/chunk-import.md). */
export interface ImportOptions extends Omit<IngestOptions, "chunkSize" | "overlap"> {
  /** The canonical text the other pipeline split (pages joined by form feeds), taken as is. */
  text?: string | Uint8Array;
  repair?: boolean;
  chunksFormat?: "auto" | "generic" | "langchain" | "llamaindex" | "haystack";
  offsets?: "auto" | "document" | "page";
  /** Most quarantined chunks for the import to be stored: a count, "5%" or a share 0.05; default 0. */
  maxQuarantined?: number | string;
}

/** A manifest: JSON Lines text or bytes, or the chunks as objects. */
export type Manifest = string | Uint8Array | Record<string, unknown>[];

/** A source to upload: its bytes, or its text. */
export type SourceBytes = Uint8Array | ArrayBuffer | Blob | string;

// ---- resolutions and links ----

export interface Selector {
  type: "TextPositionSelector" | "TextQuoteSelector" | "FragmentSelector";
  start?: number;
  end?: number;
  exact?: string;
  prefix?: string;
  suffix?: string;
  conformsTo?: string;
  value?: string;
}

/** A W3C Web Annotation target pinned to the version. */
export interface Target {
  source?: string;
  document_version: string;
  text_hash: string;
  selector: Selector[];
}

/** The verified excerpt: what to show where no deep link exists. */
export interface Excerpt {
  document_id?: string;
  document_version?: string;
  page_number?: number;
  page_label?: string;
  section_path?: string[];
  text?: string;
}

export interface DeepLink {
  kind: "pdf_page" | "text_fragment" | "heading" | "none";
  url?: string;
  fragment?: string;
  page_number?: number;
  page_label?: string;
  highlight?: unknown;
  fallback?: string;
  target: Target;
  excerpt: Excerpt;
}

export type ResolutionStatus = "ok" | "superseded" | "quarantined" | "deleted" | "forbidden" | "not_found";

export interface CitationResult {
  match: "exact" | "whitespace" | "normalized" | "fuzzy" | "offsets" | "none";
  distance?: number;
  elided?: boolean;
  reason?: "quote_not_found" | "quote_ambiguous" | "offsets_outside_chunk";
  source_start?: number;
  source_end?: number;
  page_number?: number;
  page_end?: number;
  page_label?: string;
  section_path?: string[];
  text?: string;
  link?: DeepLink;
}

/** A chunk or range resolved to the exact stored span; only ok and superseded carry text and links. */
export interface Resolution {
  status: ResolutionStatus;
  chunk_id?: string;
  reason?: string;
  document_id?: string;
  document_version?: string;
  version_status?: "current" | "superseded" | "deleted";
  current_version?: string;
  text_unchanged?: boolean;
  media_type?: string;
  source_url?: string;
  text_hash?: string;
  source_start: number;
  source_end: number;
  page_number?: number;
  page_end?: number;
  page_label?: string;
  section_path?: string[];
  low_confidence?: string;
  text?: string;
  quarantine?: Record<string, unknown>;
  link?: DeepLink;
  /** The viewer page, signed for the principal the resolution was made for; opens without a token. */
  viewer_url?: string;
  citation?: CitationResult;
}

export interface ResolveResult {
  results: Resolution[];
  metadata?: Record<string, unknown>;
}

// ---- verification ----

export interface Figure {
  kind: string;
  value: string;
  text: string;
  basis_points?: boolean;
  reference?: boolean;
}

export interface Finding {
  check: "polarity" | "direction" | "period" | "modality" | "name" | "role" | "exception" | "quote";
  reason: string;
  claim: string;
  evidence: string;
  message: string;
}

export interface Location {
  chunk_id: string;
  page_number: number;
  page_label?: string;
  section_path?: string[];
  source_start: number;
  source_end: number;
}

export interface JudgeVerdict {
  judge: string;
  label?: "supported" | "contradicted" | "not_addressed";
  score: number;
  fragment?: string;
  latency_ms: number;
  cached?: boolean;
  error?: string;
}

export interface EvidenceReport {
  chunk_id: string;
  status: "ok" | "unresolved" | "forbidden" | "stale" | "insufficient" | "contradicts";
  match?: "exact" | "whitespace" | "normalized" | "fuzzy" | "none";
  distance: number;
  elided?: boolean;
  document_id?: string;
  document_version?: string;
  version_status?: "current" | "superseded" | "deleted";
  current_version?: string;
  text_unchanged?: boolean;
  page_number?: number;
  page_end?: number;
  page_label?: string;
  section_path?: string[];
  source_start: number;
  source_end: number;
  text?: string;
  missing_figures: Figure[];
  reasons: string[];
  checks: string[];
  findings?: Finding[];
  found_in?: Location;
  viewer_url?: string;
}

export type ClaimDisposition = "accept" | "remove_claim" | "block_claim" | "block_answer" | "clarify" | "review";

export interface ClaimReport {
  claim_id: string;
  status: "supported" | "unsupported" | "contradicted" | "unresolved" | "forbidden" | "stale" | "uncited";
  disposition: ClaimDisposition;
  reasons: string[];
  missing_figures: Figure[];
  missing_qualifiers?: string[];
  evidence: EvidenceReport[];
  checks: string[];
  entailment: string;
  findings?: Finding[];
  judge?: JudgeVerdict;
}

export interface Sentence {
  text: string;
  /** code points into the answer */
  start: number;
  end: number;
}

export interface Metrics {
  citation_support_rate: number;
  claim_coverage_rate: number;
  citations: number;
  accepted_citations: number;
  claims_requiring_evidence: number;
  supported_claims: number;
}

export interface Failures {
  support: number;
  coverage: number;
  resolution: number;
  version: number;
  permission: number;
}

export interface Source {
  label: string;
  document_id: string;
  document_version: string;
  version_status: "current" | "superseded" | "deleted";
  current_version?: string;
  text_unchanged?: boolean;
  title: string;
  url?: string;
  link_kind: "pdf_page" | "text_fragment" | "heading" | "none";
  page_number?: number;
  page_label?: string;
  effective_dates?: string[];
  chunk_ids: string[];
}

export type Disposition = "accept" | "partial" | "block" | "abstain" | "clarify" | "review";

export interface VerifyReport {
  request_id: string;
  trace_id?: string;
  disposition: Disposition;
  reasons: string[];
  claims: ClaimReport[];
  uncited_sentences: Sentence[];
  metrics: Metrics;
  failures: Failures;
  policy: string;
  grounding: "grounded" | "insufficient_evidence" | "retrieval_unavailable";
  sources: Source[];
  metadata?: Record<string, unknown>;
}

export interface Policy {
  name?: string;
  risk?: "normal" | "high";
  superseded?: "accept_if_text_unchanged" | "accept" | "review" | "block";
  fuzzy_max_distance?: number;
  allow_fuzzy?: boolean;
  qualifiers?: Record<string, unknown>[];
  meaning_checks?: boolean;
  require_judge?: "none" | "high_risk" | "all";
  judge?: Record<string, unknown>;
}

/** A stored verification trace. */
export interface Trace {
  trace_id: string;
  time: string;
  store_sequence: number;
  policy: Policy;
  request: VerifyRequest;
  report: VerifyReport;
}

/** The filters of GET /v1/traces and /v1/traces/stats; since/until: RFC 3339 or a duration ("24h", "7d"). */
export interface TraceFilters {
  request_id?: string;
  principal?: string;
  disposition?: Disposition;
  reason?: string;
  category?: "support" | "coverage" | "resolution" | "version" | "permission" | string;
  document?: string;
  since?: string;
  until?: string;
}

export interface TraceSummary {
  trace_id: string;
  time: string;
  request_id: string;
  principal: string;
  disposition: Disposition;
  policy: string;
  claims: number;
  failed_claims: number;
  reasons: string[];
  categories: string[];
  documents: string[];
}

/** A page of GET /v1/traces, newest first; next_cursor empty when the window was read. */
export interface TraceList {
  traces: TraceSummary[];
  next_cursor: string;
  scanned: number;
}

export interface TraceGroup {
  key: string;
  traces: number;
  failed_traces: number;
  claims: number;
  failed_claims: number;
  dispositions: Record<string, number>;
}

export interface TraceStats {
  by: string;
  since?: string;
  until?: string;
  traces: number;
  failed_traces: number;
  claims: number;
  failed_claims: number;
  dispositions: Record<string, number>;
  groups: TraceGroup[];
}

/** The body of POST /v1/verify?from=PROVIDER: a provider's cited answer and the map of its documents. */
export interface ProviderVerifyRequest {
  /** The provider's response as its API returned it. */
  response: Record<string, unknown>;
  /** The provider's document keys, each tied to a stored document (version optional: current). */
  map: Record<string, { document_id: string; document_version?: string }>;
  offset_unit?: "code_point" | "utf16" | "byte";
  request_id?: string;
  principal?: string;
  metadata?: Record<string, unknown>;
}

export type Provider = "anthropic" | "openai" | "cohere" | "gemini";

// ---- documents, chunks, ingest ----

export interface IngestResult {
  status: "ingested" | "unchanged" | "rejected" | "failed" | "deleted";
  path?: string;
  document_id: string;
  document_version?: string;
  restored?: boolean;
  superseded?: string;
  media_type?: string;
  chunks: number;
  quarantined: number;
  pages: number;
  source_bytes: number;
  reason?: string;
  error?: string;
  message?: string;
  metadata_updated?: string[];
  warnings?: string[];
  repaired?: number;
  chunks_format?: string;
  offsets?: "document" | "page";
  page_base?: number;
  page_stripped?: boolean;
  quarantine_reasons?: Record<string, number>;
  hint?: string;
  dry_run?: boolean;
  metadata?: Record<string, unknown>;
}

/** A servable chunk record, as `evidence chunks` exports it: what a vector store embeds. */
export interface ChunkRecord {
  chunk_id: string;
  document_id: string;
  document_version: string;
  source_start: number;
  source_end: number;
  page_number: number;
  page_end: number;
  page_label?: string;
  section_path: string[];
  source_url?: string;
  media_type: string;
  /** The chunk's id in the pipeline it was imported from. */
  external_id?: string;
  /** The document's access list (administrators only; [] for everyone). */
  acl?: string[];
  low_confidence?: string;
  span_hash: string;
  text: string;
}

export interface ChunkPage {
  document_id: string;
  document_version: string;
  version_status: "current" | "superseded";
  chunks: ChunkRecord[];
  next_cursor?: string;
}

export interface ListChunksOptions {
  version?: string;
  limit?: number;
  cursor?: string;
}

export interface DocumentSummary {
  document_id: string;
  current_version?: string;
  status: string;
  versions: number;
  media_type?: string;
  pages: number;
  chunks: number;
  quarantined: number;
  acl?: string[];
  source_url?: string;
}

export interface DocumentList {
  documents: DocumentSummary[];
  failures?: Record<string, unknown>[];
}

export interface DeleteResult {
  document_id: string;
  deleted_versions: string[];
}

export interface QuarantinedChunk {
  chunk_id: string;
  document_id: string;
  document_version: string;
  version_status: string;
  external_id?: string;
  reason: string;
  claimed?: string;
  found?: string;
  claimed_start?: number;
  claimed_end?: number;
  claimed_text?: string;
}

export interface QuarantineList {
  chunks: QuarantinedChunk[];
  by_reason: Record<string, number>;
  total: number;
}

export interface QuarantineOptions {
  document?: string;
  version?: string;
  reason?: string;
  all?: boolean;
  repaired?: boolean;
}

/** The error body of every error answer. */
export interface ErrorBody {
  error: {
    code:
      | "bad_request"
      | "unauthorized"
      | "forbidden"
      | "not_found"
      | "deleted"
      | "method_not_allowed"
      | "payload_too_large"
      | "unsupported_media_type"
      | "unavailable"
      | "internal";
    message: string;
  };
}
