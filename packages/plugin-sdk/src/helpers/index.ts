/**
 * The small helpers most plugins write again otherwise: checks of request bodies, ids, text a database can
 * store and the error codes the runtime throws. The checks are `@parley/core`'s (the server uses the same).
 */
export {
  ERROR_CODES,
  errorCodeOf,
  findJsonProblem,
  isErrorCode,
  isRecord,
  isUuid,
  MAX_JSON_DEPTH,
  MAX_TEXT_LENGTH,
  toStorableText,
  unstorableTextReason,
  UUID_PATTERN,
} from '@parley/core';
export type { ErrorCode, JsonProblem } from '@parley/core';
export { uuidV5 } from './uuid-v5';
