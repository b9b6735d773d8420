/** Jest setupFilesAfterEnv: after each test of every file, the shared server goes back to its seed, by URL. */
import { resetEddy } from './eddy-control.js';

afterEach(() => resetEddy());
