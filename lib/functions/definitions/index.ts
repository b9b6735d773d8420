/** Definitions: storage, the compiled cache, and the service transports call. */
export {
  ADMIN_ONLY_COLLECTIONS,
  definitionToWire,
  FUNCTION_HISTORY_COLLECTION,
  FUNCTIONS_COLLECTION,
  FunctionRegistry,
  type RegistryWarn,
  type StoredFunction,
} from './registry.js';
export {
  findRoute,
  StoredFunctions,
  type FunctionCallObserver,
  type FunctionEnvironmentOptions,
  type RouteHit,
} from './stored-functions.js';
export { redactDefinition, REDACTED } from './redact.js';
