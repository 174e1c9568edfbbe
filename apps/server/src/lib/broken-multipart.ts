import { messages } from '@poi/shared/messages';
import { AppError } from './errors';

/**
 * What reading a multipart body failed with, once the routes' own limits (file size, number of
 * files and fields) are told apart: the body itself could not be read. A content type without a
 * boundary (busboy: "Multipart: Boundary not found"), a boundary the body never uses, a body cut
 * before its closing boundary ("Unexpected end of multipart data", also what a chunked body that
 * stops mid-part gives) or a connection closed mid-body (FST_MP_PREMATURE_CLOSE) are all the
 * sender's doing: 400 with one Japanese message (docs/resilience.md "Odd input gets a 4xx"), never
 * the 500 an unknown error becomes. The route reads the whole form before writing anything, so
 * nothing was written.
 */
export function brokenMultipart(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError('BAD_REQUEST', messages.multipartBroken);
}

/**
 * A multipart content type must name a non-empty boundary (RFC 2046: 1 to 70 characters). With
 * `boundary=` busboy finds no part and says nothing, and the form would be refused as if a field
 * were missing: told as what it is instead, before any part is read.
 */
export function assertBoundary(contentType: string | undefined): void {
  const boundary = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType ?? '');
  if (!boundary) throw new AppError('BAD_REQUEST', messages.multipartBroken);
}
