/**
 * The reference for the ws-read scenario: a bare `ws` server on node:http
 * that parses each JSON frame (for its messageId) and answers the Success
 * frame EddyDB would, with the exact record given as JSON in BARE_RECORD,
 * and does nothing else: no auth, routing or storage. Run transpiled (see
 * bench/lib/procs.ts `compiled`), not under tsx.
 */
import http from 'node:http';
import { WebSocketServer } from 'ws';

const record = process.env.BARE_RECORD ?? '{}';
const server = http.createServer((_req, res) => {
  res.writeHead(404);
  res.end();
});
const wss = new WebSocketServer({ server, path: '/api/ws', perMessageDeflate: false });
wss.on('connection', (ws) => {
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString()) as { messageId?: string };
    ws.send(`{"type":"Success","payload":{"data":${record}},"messageId":${JSON.stringify(m.messageId)}}`);
  });
});
server.listen(0, '127.0.0.1', () => {
  const addr = server.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${addr.port}`);
});
process.on('SIGTERM', () => {
  for (const ws of wss.clients) ws.terminate();
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
