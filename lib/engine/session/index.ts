/** Sessions: the statement interface (session.ts) and its two implementations. */
export {
  isTransactionSession,
  type Caller,
  type SearchResult,
  type Session,
  type SessionEngine,
  type TransactionSession,
} from './session.js';
export { AutoCommitSession } from './auto-commit-session.js';
export { openTransactionSession } from './transaction-session.js';
