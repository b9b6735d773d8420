/**
 * The step table: every step type a definition may name, by `type`. One
 * module per step (see step.ts, "How to write a step"); adding a step is a
 * file and a line here.
 */
import type { StepType } from './step.js';
import { findAll } from './read/find-all.js';
import { insert } from './write/insert.js';
import { ifStep } from './control/if.js';
import { forEach } from './control/for-each.js';
import { parallel } from './control/parallel.js';
import { tryCatch } from './control/try-catch.js';
import { sleep } from './control/sleep.js';
import { returnStep } from './control/return.js';
import { validate } from './control/validate.js';
import { callFunction } from './control/call-function.js';
import { createSavepoint, releaseSavepoint, rollbackToSavepoint } from './control/savepoints.js';
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

export const STEPS: readonly StepType<unknown>[] = [
  // read
  findAll,
  // write
  insert,
  // control
  ifStep, forEach, parallel, tryCatch, sleep, returnStep, validate, callFunction,
  // transactions
  createSavepoint, rollbackToSavepoint, releaseSavepoint,
  // crypto and encoding (issue 12): pure computations on the working records, so transactional functions may hold them
  bcryptHashStep, bcryptVerifyStep, jwtSign, jwtVerifyStep, hmacSign, hmacVerify, aesEncrypt, aesDecrypt,
  totpGenerate, totpVerify, randomToken, uuidGenerate,
  base64Encode, base64Decode, hexEncode, hexDecode, slugifyStep,
];

/** Steps by type name (a Map, so a type named like a prototype key finds nothing). */
export const STEP_TABLE: ReadonlyMap<string, StepType<unknown>> = new Map(STEPS.map((s) => [s.type, s]));

export { step, type CompiledStep, type Execution, type MemberNames, type MemberReader, type Returned, type Row, type StepAccess, type StepType } from './step.js';
