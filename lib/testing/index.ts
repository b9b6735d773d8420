export { startTestServer, type TestServer, type TestServerOptions } from './test-server.js';
export {
  TestClock,
  parseDuration,
  parseMoment,
  type Duration,
  type Moment,
  type TestClockOptions,
} from './test-clock.js';
export {
  checkSeed,
  readSeedFolder,
  SeedError,
  type CheckedSeed,
  type Seed,
  type SeedCollection,
  type SeedIndex,
  type SeedKvEntry,
  type SeedRecord,
} from './seed.js';
export type { ServerCheckpoint as Checkpoint } from '../http/index.js';
