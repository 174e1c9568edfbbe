import { ERROR_CODES, type ErrorCode } from '@poi/shared/schemas/common';

export interface FieldError {
  field: string;
  message: string;
}

/** An error whose Japanese message is safe to show to the user as is. */
export class AppError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: { errors?: FieldError[]; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.statusCode = ERROR_CODES[code];
  }
}
