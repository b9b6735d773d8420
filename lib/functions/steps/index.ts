/**
 * The step table: every step type a definition may name, by `type`. One
 * module per step (see step.ts, "How to write a step"); adding a step is a
 * file and a line here.
 */
import type { StepType } from './step.js';
import { findAll } from './read/find-all.js';
import { insert } from './write/insert.js';
import { query } from './read/query.js';
import { findById } from './read/find-by-id.js';
import { findOne } from './read/find-one.js';
import { textSearch } from './read/text-search.js';
import { vectorSearch } from './read/vector-search.js';
import { hybridSearch } from './read/hybrid-search.js';
import { project } from './shaping/project.js';
import { count } from './shaping/count.js';
import { filter } from './shaping/filter.js';
import { sort } from './shaping/sort.js';
import { limit } from './shaping/limit.js';
import { skip } from './shaping/skip.js';
import { addFields } from './shaping/add-fields.js';
import { group } from './shaping/group.js';
import { batchInsert } from './write/batch-insert.js';
import { update } from './write/update.js';
import { updateById } from './write/update-by-id.js';
import { findOneAndUpdate } from './write/find-one-and-update.js';
import { updateWithAction } from './write/update-with-action.js';
import { upsert } from './write/upsert.js';
import { deleteStep } from './write/delete.js';
import { deleteById } from './write/delete-by-id.js';
import { batchDelete } from './write/batch-delete.js';
import { setField } from './records/set-field.js';
import { increment } from './records/increment.js';
import { push } from './records/push.js';
import { currentDatetime } from './records/current-datetime.js';
import { ifStep } from './control/if.js';
import { forEach } from './control/for-each.js';
import { parallel } from './control/parallel.js';
import { tryCatch } from './control/try-catch.js';
import { sleep } from './control/sleep.js';
import { returnStep } from './control/return.js';
import { validate } from './control/validate.js';
import { callFunction } from './control/call-function.js';
import { createSavepoint, releaseSavepoint, rollbackToSavepoint } from './control/savepoints.js';
import { kvGet } from './kv/kv-get.js';
import { kvSet } from './kv/kv-set.js';
import { kvDelete } from './kv/kv-delete.js';
import { kvExists } from './kv/kv-exists.js';
import { kvQuery } from './kv/kv-query.js';
import { idempotencyClaim } from './concurrency/idempotency-claim.js';
import { rateLimit } from './concurrency/rate-limit.js';
import { lockAcquire } from './concurrency/lock-acquire.js';
import { lockRelease } from './concurrency/lock-release.js';
// external (outbound HTTP and e-mail)
import { httpRequest } from './external/http-request.js';
import { swr } from './external/swr.js';
import { emailSend } from './external/email-send.js';
// crypto and encoding (issue 12)
import { bcryptHashStep } from './crypto/bcrypt-hash.js';
import { bcryptVerifyStep } from './crypto/bcrypt-verify.js';
import { jwtSign } from './crypto/jwt-sign.js';
import { jwtVerifyStep } from './crypto/jwt-verify.js';
import { hmacSign } from './crypto/hmac-sign.js';
import { hmacVerify } from './crypto/hmac-verify.js';
import { aesEncrypt } from './crypto/aes-encrypt.js';
import { aesDecrypt } from './crypto/aes-decrypt.js';
import { totpGenerate } from './crypto/totp-generate.js';
import { totpVerify } from './crypto/totp-verify.js';
import { randomToken } from './crypto/random-token.js';
import { uuidGenerate } from './crypto/uuid-generate.js';
import { base64Encode } from './encoding/base64-encode.js';
import { base64Decode } from './encoding/base64-decode.js';
import { hexEncode } from './encoding/hex-encode.js';
import { hexDecode } from './encoding/hex-decode.js';
import { slugifyStep } from './encoding/slugify.js';
// AI (issue 13): language models and embeddings through the port the server supplies
import { chat } from './ai/chat.js';
import { embed } from './ai/embed.js';

export const STEPS: readonly StepType<unknown>[] = [
  // read
  findAll, query, findById, findOne, textSearch, vectorSearch, hybridSearch,
  // shaping
  project, count, filter, sort, limit, skip, addFields, group,
  // write
  insert, batchInsert, update, updateById, findOneAndUpdate, updateWithAction, upsert, deleteStep, deleteById, batchDelete,
  // working-record edits
  setField, increment, push, currentDatetime,
  // control
  ifStep, forEach, parallel, tryCatch, sleep, returnStep, validate, callFunction,
  // transactions
  createSavepoint, rollbackToSavepoint, releaseSavepoint,
  // key-value (the engine's KV store, durable; never part of a transaction)
  kvGet, kvSet, kvDelete, kvExists, kvQuery,
  // caching and concurrency (atomic check-and-set in the engine's single writer)
  idempotencyClaim, rateLimit, lockAcquire, lockRelease,
  // external: HttpRequest and EmailSend reach outside ('outside'); SWR's HTTP call and cache do too but its
  // audit write takes part in a transaction, so it is a 'write' step (see external/swr.ts)
  httpRequest, swr, emailSend,
  // crypto and encoding (issue 12): pure computations on the working records, so transactional functions may hold them
  bcryptHashStep, bcryptVerifyStep, jwtSign, jwtVerifyStep, hmacSign, hmacVerify, aesEncrypt, aesDecrypt,
  totpGenerate, totpVerify, randomToken, uuidGenerate,
  base64Encode, base64Decode, hexEncode, hexDecode, slugifyStep,
  // AI (issue 13): a provider's completion and the configured embedder, reached through `x.ai`; outside a transaction's reach
  chat, embed,
];

/** Steps by type name (a Map, so a type named like a prototype key finds nothing). */
export const STEP_TABLE: ReadonlyMap<string, StepType<unknown>> = new Map(STEPS.map((s) => [s.type, s]));

export {
  AI_ROLES, NO_FUNCTION_AI, type AiCompletion, type AiCompletionRequest, type AiEmbeddings, type AiMessage, type AiRole, type FunctionAi,
} from '../services.js';
export { SLICED_BCRYPT } from './crypto/bcrypt/bcrypt-runner.js';
export type { BcryptJob, BcryptRunner } from '../services.js';
export { BcryptWorkerPool } from './crypto/bcrypt/bcrypt-pool.js';
export { swrSettled } from './external/swr.js';
export { step, type CompiledStep, type Execution, type MemberNames, type MemberReader, type Returned, type Row, type StepAccess, type StepType } from './step.js';
