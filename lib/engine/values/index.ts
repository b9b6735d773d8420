export * from './tagged.js';
export * from './datetime.js';
export * from './from-wire.js';
export * from './to-wire.js';
export * from './compare.js';
export * from './joined.js';
export * from './json.js';
export * from './int64.js';
