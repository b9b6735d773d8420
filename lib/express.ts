/**
 * `eddydb/express`: serve EddyDB's routes from an existing express app.
 *
 *     const eddy = await Server.create({ port: 0, host: '127.0.0.1', dataDir: './data' });
 *     app.use(createExpressHandler(eddy.dispatcher));   // before any body parser
 *     app.use(createConsoleHandler());                  // optional: the browser console at /, after the app's routes
 *     app.listen(3000).on('clientError', createClientErrorHandler(eddy.dispatcher));
 *
 * Needs no express types to compile against: the handler's parameter types
 * are the parts of express's request and response it uses.
 */
export {
  createClientErrorHandler,
  createConsoleHandler,
  createExpressHandler,
  type ExpressHandler,
  type ExpressNext,
  type ExpressRequest,
  type ExpressResponse,
} from './http/index.js';
