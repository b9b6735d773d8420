/**
 * The one stream renderer: frame formats for SSE and WebSocket, the
 * slow-consumer policy, and cancellation through the abort signal.
 */
import { expect } from 'chai';
import { decode } from '@msgpack/msgpack';
import { Forbidden } from '../../../lib/errors.js';
import { sseDataFrames, sseEventFrames, wsFrames, type Frame } from '../../../lib/http/stream/frame-formats.js';
import { StreamRenderer, type SlowConsumerPolicy } from '../../../lib/http/stream/stream-renderer.js';
import { EventQueue } from '../../../lib/http/stream/event-queue.js';
import type { StreamEvent } from '../../../lib/http/procedures/procedure.js';

function setup(queuedBytes = 0) {
  const frames: Frame[] = [];
  const warnings: Array<[string, unknown]> = [];
  let dropped = 0;
  const controller = new AbortController();
  const policy: SlowConsumerPolicy = {
    maxQueuedBytes: 100,
    transport: 'SSE',
    closing: 'stream',
    log: (level, msg, extra) => {
      if (level === 'warn') warnings.push([msg, extra]);
    },
    describe: () => ({ keyId: 'k' }),
    drop: () => {
      dropped += 1;
      controller.abort();
    },
  };
  const sink = {
    queued: () => queuedBytes,
    write: (f: Frame) => {
      frames.push(f);
    },
  };
  const renderer = new StreamRenderer(sink, sseEventFrames(), policy, controller.signal);
  return { frames, warnings, dropped: () => dropped, controller, renderer };
}

describe('stream renderer', () => {
  it('renders SSE event frames and data frames, and errors as an error event with the HTTP body', () => {
    const e: StreamEvent = { event: 'mutation', data: { a: 1 } };
    expect(sseEventFrames().frame(e)).to.equal('event: mutation\ndata: {"a":1}\n\n');
    expect(sseDataFrames().frame({ event: 'chunk', data: { t: 'x' } })).to.equal('data: {"t":"x"}\n\n');
    expect(sseEventFrames().error(new Forbidden('no'))).to.equal('event: error\ndata: {"error":"no"}\n\n');
  });

  it(
    'renders WebSocket frames: the reply event as the Success with its messageId, others by type, in the current ' +
      'encoding',
    () => {
      let enc: 'json' | 'msgpack' = 'json';
      const f = wsFrames('subscribed', { mutation: 'MutationNotification' }, 'm1', () => enc);
      expect(JSON.parse(f.frame({ event: 'subscribed', data: { id: 's' } }) as string)).to.deep.equal({
        type: 'Success',
        payload: { data: { id: 's' } },
        messageId: 'm1',
      });
      expect(JSON.parse(f.frame({ event: 'mutation', data: { n: 1 } }) as string)).to.deep.equal({
        type: 'MutationNotification',
        payload: { n: 1 },
      });
      enc = 'msgpack';
      expect(decode(f.frame({ event: 'mutation', data: { n: 2 } }) as Buffer)).to.deep.equal({
        type: 'MutationNotification',
        payload: { n: 2 },
      });
      expect(JSON.parse(wsFrames('r', {}, undefined, () => 'json').error(new Forbidden('no')) as string)).to.deep.equal(
        {
          type: 'Error',
          code: 403,
          message: 'no',
        },
      );
    },
  );

  it('encodes a shared payload once per format', () => {
    const data = { shared: true };
    const a = sseEventFrames().frame({ event: 'mutation', data });
    expect(sseEventFrames().frame({ event: 'mutation', data })).to.equal(a);
    expect(JSON.stringify(data)).to.equal('{"shared":true}');
  });

  it('drops a slow consumer: one SlowConsumer error frame, a warning, and nothing after', () => {
    const t = setup(1000);
    expect(t.renderer.emit({ event: 'mutation', data: {} })).to.equal(false);
    expect(t.frames).to.deep.equal([
      'event: error\ndata: {"error":"Slow consumer: more than 100 bytes unsent; closing the stream"}\n\n',
    ]);
    expect(t.warnings).to.deep.equal([['dropped a slow SSE subscriber: more than 100 bytes unsent', { keyId: 'k' }]]);
    expect(t.dropped()).to.equal(1);
    expect(t.renderer.emit({ event: 'heartbeat', data: {} })).to.equal(false);
    expect(t.frames).to.have.length(1);
  });

  it('stops rendering when the signal fires, and ends the stream it reads', async () => {
    const t = setup();
    let ended = false;
    const queue = new EventQueue<StreamEvent>(t.controller.signal, () => {
      ended = true;
    });
    queue.push({ event: 'a', data: 1 });
    const run = t.renderer.run(queue);
    await new Promise((r) => setImmediate(r));
    t.controller.abort();
    queue.push({ event: 'b', data: 2 });
    await run;
    expect(ended).to.equal(true);
    expect(t.frames).to.deep.equal(['event: a\ndata: 1\n\n']);
  });

  it('skips events the deliver check refuses, and ends a failing stream with its error frame', async () => {
    const t = setup();
    async function* failing(): AsyncIterable<StreamEvent> {
      yield { event: 'a', data: 1 };
      yield { event: 'b', data: 2 };
      throw new Forbidden('gone');
    }
    await t.renderer.run(failing(), () => t.frames.length === 0);
    expect(t.frames).to.deep.equal(['event: a\ndata: 1\n\n', 'event: error\ndata: {"error":"gone"}\n\n']);
  });
});
