/** The browser console's static files, served by the HTTP server outside /api. */
export {
  contentSecurityPolicy,
  defaultConsoleDir,
  isConsoleRequest,
  resolveConsolePath,
  serveConsole,
} from './static-files.js';
