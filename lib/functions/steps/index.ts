/**
 * The step table: every step type a definition may name, by `type`. One
 * module per step (see step.ts, "How to write a step"); adding a step is a
 * file and a line here.
 */
import type { StepType } from './step.js';
import { findAll, findById, findOne, hybridSearch, query, textSearch, vectorSearch } from './read.js';
import { addFields, count, filter, group, limit, project, skip, sort } from './shaping.js';
import { batchDelete, batchInsert, deleteById, deleteStep, insert, upsert } from './write.js';
import { findOneAndUpdate, update, updateById, updateWithAction } from './update.js';
import { currentDatetime, increment, push, setField } from './records.js';
import {
  callFunction, createSavepoint, forEach, ifStep, parallel, releaseSavepoint, returnStep, rollbackToSavepoint, sleep, tryCatch, validate,
} from './control.js';
import { kvDelete, kvExists, kvGet, kvQuery, kvSet } from './kv.js';
import { idempotencyClaim, lockAcquire, lockRelease, rateLimit } from './concurrency.js';
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
