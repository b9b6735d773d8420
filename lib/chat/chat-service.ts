/**
 * The chat service the transports call: chat sessions and their messages,
 * built from the provider directory (any `ProviderDirectory`), the embedder
 * used for vector retrieval, the clock and, for `agent_id`, the agents.
 */
import type { Embedder } from '../vector/index.js';
import type { AgentService } from '../workflow/index.js';
import type { ProviderDirectory } from './providers/provider.js';
import { ClientToolBroker, type BrokerClock } from './tools/client-tool-broker.js';
import { ChatStore, Stamps } from './chat-sessions/chat-store.js';
import { ChatSessionService } from './chat-sessions/chat-session-service.js';
import { MessageService } from './messages/message-service.js';

export interface ChatDeps {
  readonly providers: ProviderDirectory;
  /** The embedder for vector fields (per call: the configuration may change). */
  readonly embedder: () => Embedder;
  /** Milliseconds since the epoch (the engine's clock). */
  readonly now: () => number;
  /**
   * Makes sure the messages collection has a query index on `chat_id` (called once, after the first message is stored).
   */
  readonly indexMessages?: () => Promise<void>;
  /** Timers of client tool waits (specs inject a fake one). */
  readonly clientToolClock?: BrokerClock;
  /** The agents a chat session created with `agent_id` takes its defaults from (none: `agent_id` is only stored). */
  readonly agents?: AgentService;
}

export class ChatService {
  /** The providers chat sessions, raw completion and the Chat step call (the server's one directory). */
  readonly providers: ProviderDirectory;
  readonly chatSessions: ChatSessionService;
  readonly messages: MessageService;
  /** Client tool calls in flight, answered through tool-result / ClientToolResult. */
  readonly clientTools: ClientToolBroker;

  constructor(deps: ChatDeps) {
    const store = new ChatStore(new Stamps(deps.now), deps.indexMessages);
    this.providers = deps.providers;
    this.chatSessions = new ChatSessionService(store, deps.providers, deps.agents);
    this.clientTools = new ClientToolBroker(deps.clientToolClock);
    this.messages = new MessageService(store, deps, this.clientTools);
  }
}
