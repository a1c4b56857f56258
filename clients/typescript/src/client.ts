// The HTTP client of `evidence serve` (docs/service.md): fetch-based, no runtime dependencies.

import { errorFromResponse, TransportError } from "./errors.js";
import type {
  ChunkPage,
  ChunkRecord,
  CitationRequest,
  DeleteResult,
  DocumentList,
  ImportOptions,
  IngestOptions,
  IngestResult,
  ListChunksOptions,
  Manifest,
  QuarantineList,
  QuarantineOptions,
  RebuildRequest,
  Resolution,
  ResolveResult,
  SourceBytes,
  Trace,
  TraceFilters,
  TraceList,
  TraceStats,
  Provider,
  ProviderVerifyRequest,
  VerifyReport,
  VerifyRequest,
} from "./types.js";

export interface ClientOptions {
  /** Bearer token (a service token uploads; a principal's token acts for that principal only). */
  token?: string;
  /** The end user a service token acts for: sent as X-Evidence-Principal. */
  principal?: string;
  /** Milliseconds a request may take (default 60,000). */
  timeoutMs?: number;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

const resolutionStatuses = new Set(["ok", "superseded", "quarantined", "deleted", "forbidden", "not_found"]);

type Query = Record<string, string | number | boolean | undefined | null>;

/**
 * A client of one evidence server. Every method rejects with a subclass of EvidenceError for an error
 * answer, one class per HTTP error class. A resolution that serves no text (quarantined, deleted,
 * forbidden, not_found) is an answer, returned with its status, not thrown.
 */
export class Client {
  readonly baseUrl: string;
  readonly token?: string;
  readonly principal?: string;
  readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;

  constructor(baseUrl: string, options: ClientOptions = {}) {
    if (!/^https?:\/\//.test(baseUrl)) {
      throw new TypeError(`baseUrl ${JSON.stringify(baseUrl)}: want an http:// or https:// URL`);
    }
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.token = options.token;
    this.principal = options.principal;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.fetchFn = options.fetch ?? globalThis.fetch;
  }

  /** A client like this one acting for another principal. */
  withPrincipal(principal: string | undefined): Client {
    return new Client(this.baseUrl, { token: this.token, principal, timeoutMs: this.timeoutMs, fetch: this.fetchFn });
  }

  private async request<T>(
    method: string,
    path: string,
    opts: { query?: Query; json?: unknown; body?: BodyInit; resolution?: boolean } = {},
  ): Promise<T> {
    let url = this.baseUrl + path;
    const q = encodeQuery(opts.query);
    if (q) url += "?" + q;
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (this.principal) headers["X-Evidence-Principal"] = this.principal;
    let body = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers["Content-Type"] = "application/json";
    }
    let resp: Response;
    try {
      resp = await this.fetchFn(url, { method, headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (e) {
      const cause = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
      throw new TransportError(0, "transport", `${this.baseUrl}: ${cause}`, undefined, method, path);
    }
    const text = await resp.text();
    let data: unknown = text;
    if ((resp.headers.get("content-type") ?? "").includes("json") || /^\s*[{[]/.test(text)) {
      try {
        data = JSON.parse(text);
      } catch {
        /* keep the text */
      }
    }
    if (resp.ok) return data as T;
    const isError = typeof data === "object" && data !== null && typeof (data as any).error === "object";
    if (opts.resolution && !isError && resolutionStatuses.has((data as any)?.status)) return data as T;
    throw errorFromResponse(resp.status, data, method, path);
  }

  // ---- reads ----

  /** True when the server can read its store (GET /healthz). */
  async health(): Promise<boolean> {
    try {
      await this.request("GET", "/healthz");
      return true;
    } catch {
      return false;
    }
  }

  /** GET /v1/chunks/{chunk_id}: the exact stored span, its link and signed viewer_url. */
  resolve(chunkId: string): Promise<Resolution> {
    return this.request("GET", `/v1/chunks/${seg(chunkId)}`, { resolution: true });
  }

  /** POST /v1/resolve: up to 1,000 citations in one read transaction. */
  resolveCitations(
    citations: (CitationRequest | string)[],
    options: { principal?: string; metadata?: Record<string, unknown> } = {},
  ): Promise<ResolveResult> {
    const body: Record<string, unknown> = { citations: citations.map((c) => (typeof c === "string" ? { chunk_id: c } : c)) };
    const principal = options.principal ?? this.principal;
    if (principal) body.principal = principal;
    if (options.metadata !== undefined) body.metadata = options.metadata;
    return this.request("POST", "/v1/resolve", { json: body });
  }

  /** GET /v1/versions/{version}/text: a code-point range of a version's canonical text. */
  text(version: string, start?: number, end?: number): Promise<Resolution> {
    return this.request("GET", `/v1/versions/${seg(version)}/text`, { query: { start, end }, resolution: true });
  }

  /** POST /v1/verify: the verifier's report; the trace is stored unless trace is false. */
  verify(request: VerifyRequest, options: { trace?: boolean } = {}): Promise<VerifyReport> {
    const body = { ...request };
    if (this.principal && !body.principal) body.principal = this.principal;
    return this.request("POST", "/v1/verify", { json: body, query: options.trace === false ? { trace: "false" } : undefined });
  }

  /** GET /v1/traces/{trace_id}: a stored trace (NotFoundError when it is not the caller's). */
  trace(traceId: string): Promise<Trace> {
    return this.request("GET", `/v1/traces/${seg(traceId)}`);
  }

  /** POST /v1/verify?from=PROVIDER: a provider's cited answer converted to claims and verified. */
  verifyProvider(provider: Provider, request: ProviderVerifyRequest, options: { trace?: boolean } = {}): Promise<VerifyReport> {
    const body = { ...request };
    if (this.principal && !body.principal) body.principal = this.principal;
    return this.request("POST", "/v1/verify", { json: body, query: { from: provider, trace: options.trace === false ? "false" : undefined } });
  }

  /** GET /v1/traces: one page of trace summaries passing every filter, newest first. */
  listTraces(filters: TraceFilters & { limit?: number; cursor?: string } = {}): Promise<TraceList> {
    return this.request("GET", "/v1/traces", { query: { ...filters } });
  }

  /** GET /v1/traces/stats: counts in all and per group of by (category, reason, document, policy). */
  traceStats(options: TraceFilters & { by?: "category" | "reason" | "document" | "policy"; top?: number } = {}): Promise<TraceStats> {
    return this.request("GET", "/v1/traces/stats", { query: { ...options } });
  }

  /** GET /v1/documents: the documents the caller may read. */
  documents(): Promise<DocumentList> {
    return this.request("GET", "/v1/documents");
  }

  /** GET /v1/documents/{id}/chunks: one page of servable chunk records. */
  listChunks(documentId: string, options: ListChunksOptions = {}): Promise<ChunkPage> {
    return this.request("GET", `/v1/documents/${seg(documentId)}/chunks`, { query: { ...options } });
  }

  /** Every servable chunk record of the version, page by page (one version's: the cursor stays in it). */
  async *iterChunks(documentId: string, options: { version?: string; pageSize?: number } = {}): AsyncGenerator<ChunkRecord> {
    let cursor: string | undefined;
    do {
      const page = await this.listChunks(documentId, { version: options.version, limit: options.pageSize ?? 1000, cursor });
      yield* page.chunks;
      cursor = page.next_cursor;
    } while (cursor);
  }

  /** GET /v1/quarantine: quarantined (or, with repaired, re-anchored) chunks of readable documents. */
  quarantine(options: QuarantineOptions = {}): Promise<QuarantineList> {
    return this.request("GET", "/v1/quarantine", {
      query: { ...options, all: options.all || undefined, repaired: options.repaired || undefined },
    });
  }

  // ---- writes (a service token) ----

  /**
   * POST /v1/documents: upload a source for the server to cut into chunks. Rejects with ConflictError
   * (409) for a deleted document unless undelete, UnprocessableError (422) when the ingest failed.
   */
  ingest(source: SourceBytes, options: IngestOptions = {}): Promise<IngestResult> {
    return this.upload(source, options, {});
  }

  /**
   * POST /v1/documents with a manifest part: import another pipeline's chunks (generic, LangChain,
   * LlamaIndex or Haystack shape). An import over maxQuarantined (default 0) rejects with
   * UnprocessableError whose result.status is "rejected" and result.hint says why.
   */
  importManifest(source: SourceBytes, manifest: Manifest, options: ImportOptions = {}): Promise<IngestResult> {
    const parts: [string, Blob, string][] = [["manifest", new Blob([manifestBytes(manifest) as BlobPart], { type: "application/x-ndjson" }), "manifest.jsonl"]];
    if (options.text !== undefined) parts.push(["text", toBlob(options.text), "text.txt"]);
    return this.upload(source, options, {
      repair: options.repair ? "true" : undefined,
      chunks_format: options.chunksFormat,
      offsets: options.offsets,
      max_quarantined: options.maxQuarantined === undefined ? undefined : String(options.maxQuarantined),
    }, parts);
  }

  private async upload(source: SourceBytes, o: IngestOptions, extra: Record<string, string | undefined>, parts: [string, Blob, string][] = []): Promise<IngestResult> {
    const name = o.filename ?? o.documentId;
    if (!name) throw new TypeError("ingest: give filename (with its extension) or documentId");
    const form = new FormData();
    const fields: Record<string, string | undefined> = {
      id: o.documentId,
      url: o.url,
      acl: o.acl === undefined ? undefined : o.acl.join(","),
      chunk_size: (o as IngestOptions).chunkSize?.toString(),
      overlap: (o as IngestOptions).overlap?.toString(),
      undelete: o.undelete ? "true" : undefined,
      dry_run: o.dryRun ? "true" : undefined,
      metadata: o.metadata === undefined ? undefined : JSON.stringify(o.metadata),
      ...extra,
    };
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) form.append(k, v);
    form.append("file", toBlob(source), basename(name));
    for (const [k, blob, fname] of parts) form.append(k, blob, fname);
    return this.request("POST", "/v1/documents", { body: form });
  }

  /** POST /v1/documents/{id}/rebuild: a new current version cut from the stored text. */
  rebuild(documentId: string, request: RebuildRequest = {}): Promise<IngestResult> {
    return this.request("POST", `/v1/documents/${seg(documentId)}/rebuild`, { json: request });
  }

  /** DELETE /v1/documents/{id}: tombstone a document or one version (an administrator only). */
  delete(documentId: string, options: { version?: string } = {}): Promise<DeleteResult> {
    return this.request("DELETE", `/v1/documents/${seg(documentId)}`, { query: { version: options.version } });
  }
}

/**
 * text[start:end] in Unicode code points, the unit of every offset the server sends (a JavaScript
 * string's indices count UTF-16 code units, which differ for characters outside the BMP, like emoji).
 */
export function codePointSlice(text: string, start: number, end?: number): string {
  return Array.from(text).slice(start, end).join("");
}

function seg(s: string): string {
  if (!s) throw new TypeError("empty identifier in a path");
  return encodeURIComponent(s);
}

function encodeQuery(q?: Query): string {
  if (!q) return "";
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null) p.append(k, String(v));
  return p.toString();
}

function toBlob(s: SourceBytes): Blob {
  if (s instanceof Blob) return s;
  return new Blob([s as BlobPart]);
}

function manifestBytes(m: Manifest): string | Uint8Array {
  if (typeof m === "string" || m instanceof Uint8Array) return m;
  return m.map((c) => JSON.stringify(c)).join("\n") + "\n";
}

function basename(p: string): string {
  return p.split("/").pop() || p;
}
