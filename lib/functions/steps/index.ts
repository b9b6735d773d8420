/**
 * The step table: every step type a definition may name, by `type`, one
 * entry each. A family's step types are the rows of its module (see step.ts,
 * "How to write a step"); adding a step is a row there and a line here.
 */
import type { StepType } from './step.js';
import { findAll, findById, findOne, hybridSearch, query, textSearch, vectorSearch } from './read.js';
import { addFields, count, filter, group, limit, project, skip, sort } from './shaping.js';
import { batchDelete, batchInsert, deleteById, deleteStep, insert, upsert } from './write.js';
import { findOneAndUpdate, update, updateById, updateWithAction } from './update.js';
import { currentDatetime, increment, push, setField } from './records.js';
import {
  callFunction,
  createSavepoint,
  forEach,
  ifStep,
  parallel,
  releaseSavepoint,
  returnStep,
  rollbackToSavepoint,
  sleep,
  tryCatch,
  validate,
} from './control.js';
import { kvDelete, kvExists, kvGet, kvQuery, kvSet } from './kv.js';
import { idempotencyClaim, lockAcquire, lockRelease, rateLimit } from './concurrency.js';
import { httpRequest, swr } from './external/http.js';
import { emailSend } from './external/email.js';
import { base64Decode, base64Encode, hexDecode, hexEncode, slugifyStep } from './crypto/encoding.js';
import { aesDecrypt, aesEncrypt } from './crypto/aes.js';
import { bcryptHashStep, bcryptVerifyStep } from './crypto/bcrypt.js';
import { hmacSign, hmacVerify } from './crypto/hmac.js';
import { jwtSign, jwtVerifyStep } from './crypto/jwt.js';
import { randomToken, uuidGenerate } from './crypto/random.js';
import { totpGenerate, totpVerify } from './crypto/totp.js';
import { chat, embed } from './external/ai.js';

export const STEPS: readonly StepType<unknown>[] = [
  // read
  findAll,
  query,
  findById,
  findOne,
  textSearch,
  vectorSearch,
  hybridSearch,
  // shaping
  project,
  count,
  filter,
  sort,
  limit,
  skip,
  addFields,
  group,
  // write
  insert,
  batchInsert,
  update,
  updateById,
  findOneAndUpdate,
  updateWithAction,
  upsert,
  deleteStep,
  deleteById,
  batchDelete,
  // working-record edits
  setField,
  increment,
  push,
  currentDatetime,
  // control
  ifStep,
  forEach,
  parallel,
  tryCatch,
  sleep,
  returnStep,
  validate,
  callFunction,
  // transactions
  createSavepoint,
  rollbackToSavepoint,
  releaseSavepoint,
  // key-value (the engine's KV store, durable; never part of a transaction)
  kvGet,
  kvSet,
  kvDelete,
  kvExists,
  kvQuery,
  // caching and concurrency (atomic check-and-set in the engine's single writer)
  idempotencyClaim,
  rateLimit,
  lockAcquire,
  lockRelease,
  // outbound: HttpRequest and EmailSend reach outside ('outside'); SWR's HTTP call and cache do too, but its
  // audit write takes part in a transaction, so it is a 'write' step (see external/http.ts)
  httpRequest,
  swr,
  emailSend,
  // crypto and encoding: pure computations on the working records, so transactional functions may hold them
  bcryptHashStep,
  bcryptVerifyStep,
  jwtSign,
  jwtVerifyStep,
  hmacSign,
  hmacVerify,
  aesEncrypt,
  aesDecrypt,
  totpGenerate,
  totpVerify,
  randomToken,
  uuidGenerate,
  base64Encode,
  base64Decode,
  hexEncode,
  hexDecode,
  slugifyStep,
  // language models: a provider's completion and the configured embedder, through `run.ai`;
  // outside a transaction's reach
  chat,
  embed,
];

/** Steps by type name (a Map, so a type named like a prototype key finds nothing). */
export const STEP_TABLE: ReadonlyMap<string, StepType<unknown>> = new Map(STEPS.map((entry) => [entry.type, entry]));

export { BcryptWorkerPool, SLICED_BCRYPT } from './crypto/bcrypt-runners.js';
export { swrSettled } from './external/http.js';
export {
  step,
  type CompiledStep,
  type Execution,
  type MemberNames,
  type MemberReader,
  type Returned,
  type Row,
  type StepAccess,
  type StepSettings,
  type StepType,
} from './step.js';
