/** Definitions: storage, the compiled cache, and the service transports call. */
export { ADMIN_ONLY_COLLECTIONS, definitionToWire, FUNCTION_HISTORY_COLLECTION, FUNCTIONS_COLLECTION, FunctionRegistry, type RegistryWarn, type StoredFunction } from './registry.js';
export { StoredFunctions, type FunctionEnvironmentOptions } from './stored-functions.js';
export { findRoute, type RouteHit } from './route-lookup.js';
export { redactDefinition, REDACTED } from './redact.js';
