/** Every fixed number of the console and the server (timeouts, lengths, limits, storage keys), declared once. */
export const API_TIMEOUT_MS = 30_000;
export const LOG_TIMEOUT_MS = 5_000;

export const OTP_LENGTH = 6;
export const OTP_RESEND_WAIT_SECONDS = 60;
export const OTP_TTL_MINUTES = 10;
export const OTP_MAX_ATTEMPTS = 5;
export const OTP_MAX_PER_HOUR = 5;
export const MAGIC_TOKEN_LENGTH = 64;
export const MAGIC_FAILURE_REDIRECT_MS = 3_000;

export const SESSION_IDLE_DAYS = 7;
export const SESSION_ABSOLUTE_DAYS = 30;

export const EMAIL_MAX = 254;
export const DISPLAY_NAME_MAX = 100;
export const AVATAR_INITIALS_MAX = 2;

export const PRICE_MIN = 0;
export const PRICE_MAX = 1000;
export const PRICE_STEP = 0.01;

export const IMPORT_MAX_BYTES = 10 * 1024 * 1024;
/** A gzip-compressed upload (≤ IMPORT_MAX_BYTES as sent) may expand to at most this much. */
export const IMPORT_MAX_EXPANDED_BYTES = 100 * 1024 * 1024;
export const IMPORT_PROGRESS_STEP = 10;
export const IMPORT_PROGRESS_INTERVAL_MS = 200;
export const IMPORT_PROGRESS_CAP = 90;
export const IMPORT_SUCCESS_CLOSE_MS = 1_000;

export const POI_FIELD_MAX = {
  name: 255,
  address: 500,
  category: 100,
  description: 1000,
  phone: 50,
  website: 500,
  image_url: 500,
} as const;
export const LATITUDE_MAX = 90;
export const LONGITUDE_MAX = 180;
export const COORDINATE_DECIMALS = 6;

export const POI_SEARCH_DEFAULT_LIMIT = 20;
export const POI_SEARCH_MAX_LIMIT = 100;
export const USER_PICKER_LIMIT = 100;

export const TOAST_AUTO_CLOSE_MS = 5_000;
export const TOAST_LIMIT = 20;

export const DEFAULT_AFTER_LOGIN = '/dashboard';

export const FRONTEND_LOG_MAX_BYTES = 16 * 1024;
export const FRONTEND_LOG_FIELD_MAX = 4_000;
export const FRONTEND_LOG_RETENTION_DAYS = 30;

export const STORAGE_TOKEN_KEY = 'auth_token';
export const STORAGE_USER_KEY = 'user';

/** API keys, metering and pricing. */
export const API_KEY_PREFIX = 'poi_live_';
export const API_KEY_RANDOM_LENGTH = 32;
export const API_KEY_CHECKSUM_LENGTH = 6;
export const API_KEY_NAME_MAX = 100;
export const API_KEY_RESTRICTIONS_MAX = 20;
/** After a rotation the old key keeps working this long. */
export const API_KEY_ROTATION_OVERLAP_HOURS = 24;
/** Requests without a valid key are limited per IP address. */
export const UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE = 60;
/** Usage events are written at least this often. */
export const USAGE_FLUSH_INTERVAL_MS = 1_000;
/** Months, days and free-search quotas follow Japan time (UTC+9, no daylight saving). */
export const BILLING_UTC_OFFSET_HOURS = 9;
