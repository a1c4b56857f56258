// One error class per HTTP error class the server answers with; all extend EvidenceError.

import type { IngestResult } from "./types.js";

/** An error answer of the evidence server (status 0 for TransportError: no answer at all). */
export class EvidenceError extends Error {
  readonly status: number;
  /** The server's error code (bad_request, unauthorized, ..., or an ingest result's status). */
  readonly code: string;
  /** The decoded body: JSON, or text. */
  readonly body: unknown;
  readonly method: string;
  readonly path: string;
  /** The ingest result of a 409 or 422 upload, import or rebuild. */
  readonly result?: IngestResult;

  constructor(status: number, code: string, message: string, body: unknown, method: string, path: string, result?: IngestResult) {
    super(`${method} ${path}: ${status ? `${status} ${code}: ` : ""}${message}`);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.body = body;
    this.method = method;
    this.path = path;
    this.result = result;
  }
}

/** 400: the request is malformed; the message names the field. */
export class BadRequestError extends EvidenceError {}
/** 401 or 403. */
export class AuthError extends EvidenceError {}
/** 401: no bearer token, or one the server does not know. */
export class UnauthorizedError extends AuthError {}
/** 403: the token may not act for that principal, or the route needs another kind of token. */
export class ForbiddenError extends AuthError {}
/** 404: no such document, version, trace or route (or one the caller may not read). */
export class NotFoundError extends EvidenceError {}
/** 405: the path is not served for this method. */
export class MethodNotAllowedError extends EvidenceError {}
/** 409: the upload's document, version or bytes were deleted (result.status "deleted"); pass undelete. */
export class ConflictError extends EvidenceError {}
/** 410: the document or version is a tombstone. */
export class GoneError extends EvidenceError {}
/** 413: over the server's --max-body or --max-upload. */
export class PayloadTooLargeError extends EvidenceError {}
/** 415: a file type the server does not ingest. */
export class UnsupportedMediaTypeError extends EvidenceError {}
/** 422: the ingest failed, or the quarantine gate rejected the import (result.status "rejected", result.hint). */
export class UnprocessableError extends EvidenceError {}
/** 5xx: the server failed (internal) or cannot serve now (unavailable). */
export class ServerError extends EvidenceError {}
/** No HTTP answer: connection refused, reset, or timed out. */
export class TransportError extends EvidenceError {}

const byStatus: Record<number, typeof EvidenceError> = {
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
};

/** The error for an error answer; body is the decoded JSON (or text). */
export function errorFromResponse(status: number, body: unknown, method: string, path: string): EvidenceError {
  const cls = status >= 500 ? ServerError : byStatus[status] ?? EvidenceError;
  let code = "";
  let message = "";
  let result: IngestResult | undefined;
  if (isObject(body) && isObject(body.error)) {
    code = String(body.error.code ?? "");
    message = String(body.error.message ?? "");
  } else if (isObject(body)) {
    // an ingest result answering 409 or 422
    result = body as unknown as IngestResult;
    code = String(body.status ?? "");
    message = String(body.message ?? body.error ?? body.reason ?? body.hint ?? "");
  } else if (typeof body === "string") {
    message = body.trim().slice(0, 500);
  }
  return new cls(status, code, message, body, method, path, result);
}

function isObject(v: unknown): v is Record<string, any> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
